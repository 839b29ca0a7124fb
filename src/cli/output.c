/* Where the command's results go: a file named by --output, or standard output. A report is built
 * whole in memory first (reports are small; traces are what is big), so a failed run never leaves
 * half a JSON document behind. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const mdl_cli_format_names[MDL_CLI_N_FORMATS] = { "table", "json", "csv" };

gboolean
mdl_cli_format_parse (const char *name, MdlFormat *format, GError **error)
{
  return mdl_format_from_name (name ? name : "table", format, error);
}

void
mdl_cli_text_table (GString *out, const char *indent, GPtrArray *rows, guint left)
{
  guint n_cols = 0;
  g_autofree gsize *widths = NULL;
  for (guint r = 0; r < rows->len; r++)
    n_cols = MAX (n_cols, g_strv_length (g_ptr_array_index (rows, r)));
  widths = g_new0 (gsize, n_cols + 1);
  for (guint r = 0; r < rows->len; r++)
    {
      char **row = g_ptr_array_index (rows, r);
      for (guint c = 0; row[c]; c++)
        widths[c] = MAX (widths[c], (gsize) g_utf8_strlen (row[c], -1));
    }
  for (guint r = 0; r < rows->len; r++)
    {
      char **row = g_ptr_array_index (rows, r);
      g_string_append (out, indent);
      for (guint c = 0; row[c]; c++)
        {
          /* Pad by characters, not bytes: cells may hold UTF-8 (σ, ≤). */
          int pad = (int) (widths[c] - (gsize) g_utf8_strlen (row[c], -1));
          if (c > 0)
            g_string_append (out, "  ");
          if (c >= left)
            g_string_append_printf (out, "%*s", pad, "");
          g_string_append (out, row[c]);
          if (c < left && row[c + 1])
            g_string_append_printf (out, "%*s", pad, "");
        }
      g_string_append_c (out, '\n');
    }
}

char *
mdl_cli_grouped (guint64 v)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
  GString *s = g_string_new (NULL);
  gsize len = strlen (digits);
  for (gsize i = 0; i < len; i++)
    {
      if (i && (len - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

gboolean
mdl_cli_output_write (const char *path, const GString *text, GError **error)
{
  gboolean to_stdout = path == NULL || strcmp (path, "-") == 0;
  const char *name = to_stdout ? "<stdout>" : path;
  FILE *f = to_stdout ? stdout : fopen (path, "wb");
  int saved;
  if (f == NULL)
    {
      saved = errno;
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot create: %s", name,
                   g_strerror (saved));
      return FALSE;
    }
  errno = 0;
  if (fwrite (text->str, 1, text->len, f) != text->len || fflush (f) != 0)
    {
      saved = errno;
      if (!to_stdout)
        fclose (f);
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot write: %s", name,
                   saved ? g_strerror (saved) : "short write");
      return FALSE;
    }
  if (!to_stdout && fclose (f) != 0)
    {
      saved = errno;
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot write: %s", name,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

gboolean
mdl_cli_write_reports (MdlPipeline *pipeline, const MdlSourceInfo *source, MdlFormat format,
                       const char *path, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  guint n_reports = 0;
  MdlReport **reports = mdl_pipeline_reports (pipeline, &n_reports);
  guint series = mdl_reports_longest_series (reports, n_reports);
  mdl_reports_write_partial (source, mdl_cli_interrupted (), reports, n_reports, format, text);
  if (format == MDL_FORMAT_TABLE && series > MDL_REPORT_TABLE_SERIES_MAX)
    {
      /* Issue 19, item 6: a long curve goes whole to a CSV file beside the summarized table,
       * rather than a million table lines or a second run with --format csv. */
      g_autoptr (GString) csv = g_string_new (NULL);
      g_autoptr (GError) local = NULL;
      g_autofree char *csv_path = path && strcmp (path, "-") != 0
                                    ? g_strconcat (path, ".series.csv", NULL)
                                    : g_strdup ("models-series.csv");
      mdl_reports_write_partial (source, NULL, reports, n_reports, MDL_FORMAT_CSV, csv);
      if (mdl_cli_output_write (csv_path, csv, &local))
        g_string_append_printf (text, "\nevery point of the series (%u in the longest) is in %s "
                                "(CSV, as --format csv writes it)\n", series, csv_path);
      else
        g_string_append_printf (text, "\nthe series (up to %u points) could not be written "
                                "beside the table (%s); --format csv gives every point\n", series,
                                local->message);
    }
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  g_free (reports);
  return mdl_cli_output_write (path, text, error);
}
