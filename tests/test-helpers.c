/* Tests of the shared test helpers (tests/helpers.c) that outlive a single test: the temporary
 * directories of a test program are gone when it exits (issue 19: each run of make check used to
 * leave about 17 empty /tmp/models-test-* folders). */
#include "helpers.h"

#include <glib/gstdio.h>

/* Ensure a test program that writes temporary files through the helpers (test-din writes about
 * twenty, each in its own directory) leaves nothing in TMPDIR once it has exited, and that
 * MODELS_TEST_KEEP keeps them. Runs $B/tests/test-din (B defaults to build). */
static void
test_temp_dirs_are_removed_at_exit (void **state)
{
  const char *b = g_getenv ("B");
  g_autofree char *prog = g_build_filename (b && *b ? b : "build", "tests", "test-din", NULL);
  g_autofree char *tmp = g_dir_make_tmp ("models-helpers-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;
  const char *argv[] = { prog, NULL };
  guint n_left = 0;
  (void) state;
  if (!g_file_test (prog, G_FILE_TEST_IS_EXECUTABLE))
    {
      print_message ("SKIP: %s is not built\n", prog);
      skip ();
    }
  assert_non_null (tmp);
  for (guint keep = 0; keep < 2; keep++)
    {
      g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "TMPDIR", tmp, TRUE);
      gint status = 0;
      GDir *dir;
      if (keep)
        env = g_environ_setenv (env, "MODELS_TEST_KEEP", "1", TRUE);
      else
        env = g_environ_unsetenv (env, "MODELS_TEST_KEEP");
      if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL
                         | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error))
        fail_msg ("cannot run %s: %s", prog, error->message);
      if (!g_spawn_check_wait_status (status, &error))
        fail_msg ("%s failed: %s", prog, error->message);
      dir = g_dir_open (tmp, 0, NULL);
      assert_non_null (dir);
      n_left = 0;
      while (g_dir_read_name (dir))
        n_left++;
      g_dir_close (dir);
      if (!keep && n_left != 0)
        fail_msg ("%s left %u entries in %s", prog, n_left, tmp);
      if (keep && n_left == 0)
        fail_msg ("%s with MODELS_TEST_KEEP=1 kept nothing in %s", prog, tmp);
    }
  /* what MODELS_TEST_KEEP kept, and the directory itself */
  {
    g_autoptr (GDir) dir = g_dir_open (tmp, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name (dir)))
      {
        g_autofree char *sub = g_build_filename (tmp, name, NULL);
        g_autoptr (GDir) in = g_dir_open (sub, 0, NULL);
        const char *file;
        while (in && (file = g_dir_read_name (in)))
          {
            g_autofree char *path = g_build_filename (sub, file, NULL);
            g_remove (path);
          }
        g_remove (sub);
      }
  }
  g_remove (tmp);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_temp_dirs_are_removed_at_exit),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
