/* libFuzzer target: the machine preset file named by MODELS_MACHINES (src/core/machine.c), and
 * the built-in engines built on its presets (the values flow through the spec parser into init).
 *
 * Byte 0 of the input picks what to do, the rest is the presets file, written to a file of this
 * process that MODELS_MACHINES names. The target lists the presets; if the file parses, byte 0
 * picks one of the file's own groups (new or replacing a built-in one: the presets the input can
 * change) and one of 1 + E actions on it: read every key of it through the public API, or build
 * one of the E built-in engines on it (mdl_engine_new_on) and drive it with the small stream of
 * fuzz_engine(). One action per input, where the target once built every engine on three groups:
 * over a campaign every engine still meets every preset the fuzzer makes, at a small part of the
 * cost (docs/reliability.md). A bad file or a bad value must be an MDL_ERROR; nothing may crash,
 * leak or overflow. */
#include "common.h"

#include "core/preset.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The presets file of this process. In memory where the machine has a tmpfs at /dev/shm:
 * truncating and rewriting a file of the disk's file system (ext4) cost 0.2 ms of system time
 * per input, more than all the rest of an input. */
static char *
machines_path (void)
{
  static char *path;
  if (path == NULL)
    {
      gboolean shm = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR);
      int fd;
      path = g_build_filename (shm ? "/dev/shm" : g_get_tmp_dir (), "fuzz-machines-XXXXXX.ini", NULL);
      fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC, 0600);
      if (fd < 0)
        {
          fprintf (stderr, "cannot make the presets file %s: %s\n", path, g_strerror (errno));
          abort ();
        }
      close (fd);
      g_setenv ("MODELS_MACHINES", path, TRUE);
    }
  return path;
}

/* Writes @size bytes of @data to the presets file, in place: not with g_file_set_contents, whose
 * fsync and rename were a twentieth of the time, nor through stdio, whose buffer was one more
 * allocation; the library must see a file changed in place within one clock tick. */
static void
write_file (const char *path, const uint8_t *data, size_t size)
{
  int fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0 || (size && write (fd, data, size) != (ssize_t) size) || close (fd) != 0)
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

/* Lists the keys of preset @group and reads each one: values or an MDL_ERROR. */
static void
read_keys (const char *group)
{
  GError *error = NULL;
  char **keys = mdl_machine_keys (group, &error);

  fuzz_check_error (error, group);
  g_clear_error (&error);
  for (char **k = keys; k && *k; k++)
    {
      char *value = NULL;
      mdl_machine_get (group, *k, &value, &error);
      fuzz_check_error (error, *k);
      g_clear_error (&error);
      g_free (value);
    }
  g_strfreev (keys);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static gboolean registered;
  const char *path = machines_path ();
  GError *error = NULL;
  char **names;
  guint pick, n_classes;
  gsize n_groups = 0;
  const MdlEngineClass **classes;
  GKeyFile *file;
  char **groups = NULL;

  if (size < 1)
    return 0;
  if (!registered)
    registered = atexit (remove_file) == 0;
  pick = data[0];
  write_file (path, data + 1, size - 1);
  names = mdl_machine_names (&error);
  fuzz_check_error (error, "listing the presets");
  g_clear_error (&error);
  file = g_key_file_new ();
  if (names && g_key_file_load_from_data (file, (const char *) data + 1, size - 1,
                                          G_KEY_FILE_NONE, NULL))
    groups = g_key_file_get_groups (file, &n_groups);
  classes = mdl_engine_classes (&n_classes);
  if (n_groups > 0)
    {
      /* The action from the byte modulo 1 + E, the group from the quotient: with 15 engines,
       * each action on any of the file's first 16 groups. */
      guint action = pick % (n_classes + 1);
      const char *group = groups[pick / (n_classes + 1) % n_groups];
      if (action == n_classes)
        read_keys (group);
      else
        fuzz_engine (classes[action]->name, group);
    }
  g_free (classes);
  g_strfreev (groups);
  g_strfreev (names);
  g_key_file_free (file);
  /* The library keeps the parsed file until it changes; dropped here, so that every input ends
   * with as many frees as allocations and libFuzzer does not run it a second time for leaks. */
  mdl_preset_forget_user ();
  return 0;
}
