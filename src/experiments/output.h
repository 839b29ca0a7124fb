/* Private to src/experiments: what the experiments' writers share (vat-output.c,
 * gpu-experiment-output.c): numbers for CSV, JSON and gnuplot data, and the files of an output
 * directory. */
#ifndef MDL_EXPERIMENTS_OUTPUT_H
#define MDL_EXPERIMENTS_OUTPUT_H

#include <glib.h>

/* Appends @v with 7 significant digits (more than a measurement has), or @missing when it is not
 * finite: "" in CSV, "null" in JSON, "?" in gnuplot data. */
void mdl_experiment_append_real (GString *out, double v, const char *missing);

/* Appends each non-empty line of @text as a JSON string, one per line indented by four spaces,
 * separated by commas: the members of a "notes" array. */
void mdl_experiment_json_lines (GString *out, const char *text);

/* Creates directory @dir if missing; MDL_ERROR_IO naming it. */
gboolean mdl_experiment_make_dir (const char *dir, GError **error);

/* Writes @text to @dir/@name; MDL_ERROR_IO naming the file. */
gboolean mdl_experiment_write_file (const char *dir, const char *name, const GString *text,
                                    GError **error);

#endif
