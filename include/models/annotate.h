/* libmodels: annotation, every count of every engine by source line and function (the shape of
 * Cachegrind's cg_annotate).
 *
 * Two steps. While events flow, every access carries the site of the line that issued it: an
 * instrumented algorithm's MDL_READ/MDL_WRITE record their call site themselves (sites.h); a
 * Lackey trace goes through an attributor, which gives each data access the site of the
 * instruction that made it (Lackey prints an instruction before its data accesses), looked up by
 * a caller's address-to-line function (the `models` command's is DWARF, through libdw). The
 * engines break their counts down by site (mdl_engine_set_site_phases()). Then an annotation
 * gathers those per-site counts from the engines' reports into per-line and per-function tables,
 * and prints them hottest first, with the annotated source. */
#ifndef MODELS_ANNOTATE_H
#define MODELS_ANNOTATE_H

#include <glib.h>
#include <models/api.h>
#include <models/event.h>
#include <models/report.h>
#include <models/sites.h>

G_BEGIN_DECLS

/**
 * MdlAddrLineFunc: finds the source line of the instruction at @addr.
 * @file, @line, @function: (out) borrowed strings that must outlive the site table they go into
 *   (the table copies them).
 * Returns: FALSE when @addr has no line (code without debug information).
 */
typedef gboolean (*MdlAddrLineFunc) (void *data, guint64 addr, const char **file, guint *line,
                                     const char **function);

/** MdlAttributor: a sink that gives each access of a trace read with its instruction fetches
 * (mdl_trace_reader_set_fetches()) the site of its instruction; opaque. */
typedef struct MdlAttributor MdlAttributor;

/**
 * mdl_attributor_new: an attributor delivering to @next.
 * @sites: (transfer none) where new lines are interned; must outlive the attributor.
 * @resolve: the address-to-line function; an instruction without a line gets the site `???:0`.
 * @keep_fetches: also deliver the fetches (for an instruction cache); otherwise they are dropped.
 * @next: (transfer none) copied.
 * Each instruction becomes one RAM operation of its own site, so op counts split by line too.
 * Returns: (transfer full).
 */
MDL_API MdlAttributor *mdl_attributor_new (MdlSiteTable *sites, MdlAddrLineFunc resolve,
                                           void *data, gboolean keep_fetches,
                                           const MdlSink *next);
/** mdl_attributor_free: NULL is fine. */
MDL_API void mdl_attributor_free (MdlAttributor *attributor);
/** mdl_attributor_sink: the sink to read the trace into (its data is @attributor). */
MDL_API MdlSink mdl_attributor_sink (MdlAttributor *attributor);
/** mdl_attributor_n_instructions: the instructions seen. */
MDL_API guint64 mdl_attributor_n_instructions (const MdlAttributor *attributor);
/** mdl_attributor_n_resolved: how many of the instructions seen had a line (a trace of another
 * program than the one looked up resolves none). */
MDL_API guint64 mdl_attributor_n_resolved (const MdlAttributor *attributor);

/** MdlAnnotation: per-site counts of a run; opaque. */
typedef struct MdlAnnotation MdlAnnotation;

/**
 * mdl_annotation_new: gathers the per-site counts from the reports of engines that broke their
 * counts down by site, over the sites of @sites. Its columns are every exact, additive count of
 * every report (peaks, reals and counts an engine keeps out of its phases are not split by line),
 * named `ENGINE.COUNTER` (`cache.l1_misses`;
 * a second engine of one class is `cache2.`, and so on).
 * @sites: (transfer none) must outlive the annotation.
 * @reports: (transfer none) read only during the call.
 * Returns: (transfer full).
 */
MDL_API MdlAnnotation *mdl_annotation_new (const MdlSiteTable *sites, MdlReport *const *reports,
                                           guint n_reports);
/** mdl_annotation_free: NULL is fine. */
MDL_API void mdl_annotation_free (MdlAnnotation *annotation);
/** mdl_annotation_n_columns: the number of columns. */
MDL_API guint mdl_annotation_n_columns (const MdlAnnotation *annotation);
/** mdl_annotation_column: the name of column @col. */
MDL_API const char *mdl_annotation_column (const MdlAnnotation *annotation, guint col);
/**
 * mdl_annotation_find_column: the column named @name; a bare counter name (`l1_misses`) finds the
 * first engine's.
 * @error: MDL_ERROR_UNKNOWN_NAME listing the columns (and a close one).
 * Returns: the column, or -1.
 */
MDL_API gint mdl_annotation_find_column (const MdlAnnotation *annotation, const char *name,
                                         GError **error);
/** mdl_annotation_total: column @col's count over the whole run (the engine's own total). */
MDL_API guint64 mdl_annotation_total (const MdlAnnotation *annotation, guint col);
/** mdl_annotation_count: column @col's count at site @site (0 for a site with none). */
MDL_API guint64 mdl_annotation_count (const MdlAnnotation *annotation, guint site, guint col);

/**
 * MdlAnnotateOptions: what mdl_annotation_write() prints.
 * @sort: (nullable) the column that orders rows, hottest first, and that the threshold applies to;
 *   NULL: the first column with a nonzero total.
 * @show: (nullable) the columns to print, NULL-terminated; NULL: all (in a table, all that some
 *   line has a count of).
 * @threshold: percent of the sort column's total under which a line or function is left out
 *   (0: print every row with a count).
 * @context: lines of source printed around each line above the threshold.
 * @source: print the annotated source (table format only).
 * @source_dirs: (nullable) NULL-terminated directories where a source file named by a relative
 *   path is looked for when it is not found from the current directory (instrumented code names
 *   its files relative to the directory it was built in).
 */
typedef struct {
  const char *sort;
  const char *const *show;
  double threshold;
  guint context;
  gboolean source;
  const char *const *source_dirs;
} MdlAnnotateOptions;

/**
 * mdl_annotation_write: appends the per-function table, the per-line table and (with @source) the
 * source files with counts in the margin, in @format: a table for people, or JSON (`functions`,
 * `lines`, `totals`) or CSV (one row per line and per function) for programs.
 * @error: MDL_ERROR_UNKNOWN_NAME for an unknown @sort or @show column; MDL_ERROR_PARAM for a
 *   threshold outside 0..100.
 */
MDL_API gboolean mdl_annotation_write (const MdlAnnotation *annotation,
                                       const MdlAnnotateOptions *options, MdlFormat format,
                                       GString *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlAttributor, mdl_attributor_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlAnnotation, mdl_annotation_free)

G_END_DECLS

#endif
