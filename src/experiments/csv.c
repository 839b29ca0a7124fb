/* CSV tables (src/experiments/csv.h). */
#include <models/error.h>

#include "experiments/csv.h"

#include <string.h>

/* Splits one line into its fields. */
static GPtrArray *
split_line (const char *line)
{
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  const char *p = line;
  for (;;)
    {
      GString *v = g_string_new (NULL);
      if (*p == '"')
        for (p++; *p; p++)
          {
            if (*p == '"' && p[1] == '"')
              g_string_append_c (v, *p++);
            else if (*p == '"')
              {
                p++;
                break;
              }
            else
              g_string_append_c (v, *p);
          }
      while (*p && *p != ',' && *p != '\r' && *p != '\n')
        g_string_append_c (v, *p++);
      g_ptr_array_add (fields, g_string_free (v, FALSE));
      if (*p != ',')
        return fields;
      p++;
    }
}

MdlCsv *
mdl_csv_parse (const char *text, const char *path, guint min_rows, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (MdlCsv) csv = g_new0 (MdlCsv, 1);
  csv->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  csv->lines = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; lines[i]; i++)
    if (*lines[i] && *lines[i] != '=' && *lines[i] != '#')
      {
        guint line = i + 1;
        g_ptr_array_add (csv->rows, split_line (lines[i]));
        g_array_append_val (csv->lines, line);
      }
  if (csv->rows->len < min_rows)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: expected at least %u CSV rows, found %u", path, min_rows, csv->rows->len);
      return NULL;
    }
  return g_steal_pointer (&csv);
}

MdlCsv *
mdl_csv_read (const char *path, guint min_rows, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) io_error = NULL;
  if (!g_file_get_contents (path, &text, NULL, &io_error))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, io_error->message);
      return NULL;
    }
  return mdl_csv_parse (text, path, min_rows, error);
}

void
mdl_csv_free (MdlCsv *csv)
{
  if (csv == NULL)
    return;
  g_ptr_array_unref (csv->rows);
  g_array_unref (csv->lines);
  g_free (csv);
}

GPtrArray *
mdl_csv_row (const MdlCsv *csv, guint i)
{
  return g_ptr_array_index (csv->rows, i);
}

guint
mdl_csv_line (const MdlCsv *csv, guint i)
{
  return g_array_index (csv->lines, guint, i);
}

const char *
mdl_csv_field (GPtrArray *row, guint i)
{
  return i < row->len ? g_ptr_array_index (row, i) : "";
}

gint
mdl_csv_column (GPtrArray *header, const char *name)
{
  for (guint i = 0; i < header->len; i++)
    if (strcmp (g_ptr_array_index (header, i), name) == 0)
      return (gint) i;
  return -1;
}
