/* Replays inputs through one libFuzzer target without libFuzzer, as a cmocka test of `make check`
 * (plain build) and `make asan` (address and undefined-behaviour sanitizers, leaks included).
 *
 * The Makefile builds it once per target, with FUZZ_TARGET naming it ("fuzz-warp"). Every target
 * gets every input that once broke something (tests/data/regress/, whichever target found it: any
 * target must take any bytes) and its own seeds (tests/data/seeds-TARGET/). A target aborts on a
 * broken property, and the sanitizers on a memory or UB error, so "it returned" is the check. */
#include "common.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET=\"fuzz-NAME\""
#endif

/* Runs the target on every file of tests/data/@sub; returns how many there were. */
static guint
replay_dir (const char *sub)
{
  g_autofree char *src = g_path_get_dirname (__FILE__);
  g_autofree char *dir_path = g_build_filename (src, "..", "data", sub, NULL);
  g_autoptr (GError) error = NULL;
  GDir *dir = g_dir_open (dir_path, 0, &error);
  const char *name;
  guint n = 0;

  if (dir == NULL)
    fail_msg ("%s: %s (run the tests from the source root)", FUZZ_TARGET, error->message);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *data = NULL;
      gsize size;
      if (!g_file_get_contents (path, &data, &size, &error))
        fail_msg ("%s: %s", FUZZ_TARGET, error->message);
      /* libFuzzer hands over a buffer of exactly the input's size; so does this copy. */
      {
        g_autofree guint8 *exact = g_memdup2 (data, size);
        LLVMFuzzerTestOneInput (exact, size);
      }
      n++;
    }
  g_dir_close (dir);
  return n;
}

/* Ensure every input in tests/data/regress/ runs through this target cleanly. */
static void
test_regress_inputs_pass (void **state)
{
  (void) state;
  assert_true (replay_dir ("regress") > 0);
}

/* Ensure every seed of this target runs through it cleanly (and that it has seeds). */
static void
test_seeds_pass (void **state)
{
  (void) state;
  assert_true (replay_dir ("seeds-" FUZZ_TARGET) > 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_regress_inputs_pass),
    cmocka_unit_test (test_seeds_pass),
  };
  return cmocka_run_group_tests_name (FUZZ_TARGET, tests, NULL, NULL);
}
