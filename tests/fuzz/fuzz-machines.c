/* libFuzzer target: the machine preset file named by MODELS_MACHINES (src/core/machine.c), and
 * every engine built on each of its presets (the values flow through the spec parser into init).
 *
 * The input is written to a file of this process, MODELS_MACHINES names it, and the target lists
 * the presets, reads every key of the first few groups of the file, and builds every built-in
 * engine on each of them (mdl_engine_new_on) and drives it with the small stream of
 * fuzz_engine(). A bad file or a bad value must be an MDL_ERROR; nothing may crash, leak or
 * overflow. */
#include "common.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Presets built on per input: enough for a file that adds one and replaces another. Each costs
 * every engine once (the preset files are parsed once per change, src/core/machine.c), so the
 * target runs at tens to a hundred inputs a second under the sanitizers; building on the first
 * group only is three times faster but reaches a quarter of the code. */
#define MAX_PRESETS 3

static char *
machines_path (void)
{
  static char *path;
  if (path == NULL)
    {
      GError *error = NULL;
      int fd = g_file_open_tmp ("fuzz-machines-XXXXXX.ini", &path, &error);
      if (fd < 0)
        {
          fprintf (stderr, "cannot make the presets file: %s\n", error->message);
          abort ();
        }
      close (fd);
      g_setenv ("MODELS_MACHINES", path, TRUE);
    }
  return path;
}

/* Writes @size bytes of @data to the presets file, in place: not with g_file_set_contents, whose
 * fsync and rename were a twentieth of the time; the library must see a file changed in place
 * within one clock tick. */
static void
write_file (const char *path, const uint8_t *data, size_t size)
{
  FILE *out = fopen (path, "wb");
  if (out == NULL || (size && fwrite (data, 1, size, out) != size) || fclose (out) != 0)
    {
      fprintf (stderr, "cannot write %s\n", path);
      abort ();
    }
}

static void
remove_file (void)
{
  if (g_getenv ("MODELS_MACHINES"))
    g_unlink (g_getenv ("MODELS_MACHINES"));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static gboolean registered;
  const char *path = machines_path ();
  GError *error = NULL;
  char **names;
  guint n_classes;
  const MdlEngineClass **classes;
  GKeyFile *file = g_key_file_new ();
  char **groups = NULL;

  if (!registered)
    registered = atexit (remove_file) == 0;
  write_file (path, data, size);
  names = mdl_machine_names (&error);
  fuzz_check_error (error, "listing the presets");
  g_clear_error (&error);
  /* The file's own groups, new or replacing built-in ones, are the presets worth building on. */
  if (names && g_key_file_load_from_data (file, (const char *) data, size, G_KEY_FILE_NONE, NULL))
    groups = g_key_file_get_groups (file, NULL);
  classes = mdl_engine_classes (&n_classes);
  for (guint i = 0; groups && groups[i] && i < MAX_PRESETS; i++)
    {
      char **keys = mdl_machine_keys (groups[i], &error);
      fuzz_check_error (error, groups[i]);
      g_clear_error (&error);
      for (char **k = keys; k && *k; k++)
        {
          char *value = NULL;
          mdl_machine_get (groups[i], *k, &value, &error);
          fuzz_check_error (error, *k);
          g_clear_error (&error);
          g_free (value);
        }
      g_strfreev (keys);
      for (guint c = 0; c < n_classes; c++)
        fuzz_engine (classes[c]->name, groups[i]);
    }
  g_free (classes);
  g_strfreev (groups);
  g_strfreev (names);
  g_key_file_free (file);
  /* The library keeps the parsed file until it changes. Left holding this input's, a run would
   * end with more allocations than frees, which libFuzzer answers by running the input a second
   * time (a fifth of the time went there). An empty file parsed at the end of every input
   * balances them. */
  write_file (path, NULL, 0);
  g_strfreev (mdl_machine_names (NULL));
  return 0;
}
