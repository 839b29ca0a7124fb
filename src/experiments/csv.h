/* Private to src/experiments: reading the CSV files that measuring tools write (the CUDA harness's
 * timings, Nsight Compute's raw page), so that measured and predicted tables can be joined. */
#ifndef MDL_EXPERIMENTS_CSV_H
#define MDL_EXPERIMENTS_CSV_H

#include <glib.h>

/**
 * MdlCsv: a CSV file as rows of fields: RFC 4180 quoting, no line breaks inside a field; empty
 * lines, `#` comment lines and `=` lines (ncu's "==PROF==" notes) are left out.
 * @rows: GPtrArray of GPtrArray of char *, the first row usually the header.
 * @lines: the line number (from 1) in the file of each row, for messages that name the place.
 */
typedef struct {
  GPtrArray *rows;
  GArray *lines;
} MdlCsv;

/**
 * mdl_csv_read: reads @path.
 * @min_rows: the fewest rows (header included) the file must have.
 * @error: MDL_ERROR_IO naming the file when it cannot be read, MDL_ERROR_FORMAT when it has fewer
 *   than @min_rows rows.
 * Returns: (transfer full) the table, or NULL.
 */
MdlCsv *mdl_csv_read (const char *path, guint min_rows, GError **error);
/* mdl_csv_parse: as mdl_csv_read() for the text of a file, @path naming it in messages. */
MdlCsv *mdl_csv_parse (const char *text, const char *path, guint min_rows, GError **error);
/* mdl_csv_free: NULL is fine. */
void mdl_csv_free (MdlCsv *csv);
/* The @i-th row (borrowed); 0 is the first line of the file. */
GPtrArray *mdl_csv_row (const MdlCsv *csv, guint i);
/* The line of the file (from 1) that row @i came from. */
guint mdl_csv_line (const MdlCsv *csv, guint i);
/* Field @i of @row, "" when the row is shorter. */
const char *mdl_csv_field (GPtrArray *row, guint i);
/* The index of the field named @name in @header, or -1. */
gint mdl_csv_column (GPtrArray *header, const char *name);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlCsv, mdl_csv_free)

#endif
