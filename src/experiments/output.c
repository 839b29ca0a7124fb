/* The experiments' shared writers (src/experiments/output.h). */
#include <models/error.h>

#include "core/json.h"
#include "experiments/output.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>

void
mdl_experiment_append_real (GString *out, double v, const char *missing)
{
  if (isfinite (v))
    {
      char buf[G_ASCII_DTOSTR_BUF_SIZE];
      g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.7g", v));
    }
  else
    g_string_append (out, missing);
}

void
mdl_experiment_json_lines (GString *out, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean first = TRUE;
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      {
        g_string_append (out, first ? "\n    " : ",\n    ");
        mdl_json_string (out, lines[i]);
        first = FALSE;
      }
}

gboolean
mdl_experiment_make_dir (const char *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) == 0)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot create the directory: %s", dir,
               g_strerror (errno));
  return FALSE;
}

gboolean
mdl_experiment_write_file (const char *dir, const char *name, const GString *text,
                           GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) local = NULL;
  if (g_file_set_contents (path, text->str, (gssize) text->len, &local))
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, local->message);
  return FALSE;
}
