/* Tests of the machine presets (include/models/machine.h): the built-in data/machines.ini and a
 * MODELS_MACHINES file that adds or replaces presets. Expected values are read off
 * data/machines.ini by hand. Every test starts and ends with MODELS_MACHINES unset. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>
#include <utime.h>

static char *
preset (const char *machine, const char *key)
{
  g_autoptr (GError) error = NULL;
  char *value = NULL;
  if (!mdl_machine_get (machine, key, &value, &error))
    fail_msg ("%s.%s: %s", machine, key, error->message);
  return value;
}

/* Ensure the built-in presets include x86-64 and h100, in file order, each once. */
static void
test_builtin_names_include_x86_64_and_h100 (void **state)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = mdl_machine_names (&error);
  (void) state;
  assert_non_null (names);
  assert_true (g_strv_length (names) >= 2);
  assert_string_equal (names[0], "x86-64");
  assert_string_equal (names[1], "h100");
  for (guint i = 0; names[i]; i++)
    for (guint j = i + 1; names[j]; j++)
      if (strcmp (names[i], names[j]) == 0)
        fail_msg ("preset %s listed twice", names[i]);
}

/* Rows: preset values as data/machines.ini gives them (NULL: the preset lacks the key). */
static const struct {
  const char *machine;
  const char *key;
  const char *expect;
} value_rows[] = {
  { "x86-64", "page_bytes", "4096" },
  { "x86-64", "tree_arity", "512" },
  { "x86-64", "tree_depth", "4" },
  { "x86-64", "line_bytes", "64" },
  { "x86-64", "l1_dtlb_entries", "64" },
  { "x86-64", "warp_width", NULL },
  { "h100", "warp_width", "32" },
  { "h100", "sector_bytes", "32" },
  { "h100", "line_bytes", "128" },
  { "h100", "shared_banks", "32" },
  { "h100", "bank_bytes", "4" },
  { "h100", "sm_count", "132" },
  { "h100", "page_bytes", NULL },
};

/* Ensure each preset key reads as the data file says, and a missing key is TRUE with NULL. */
static void
test_builtin_values_match_the_data_file (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (value_rows); i++)
    {
      g_autofree char *v = preset (value_rows[i].machine, value_rows[i].key);
      if (g_strcmp0 (v, value_rows[i].expect) != 0)
        fail_msg ("%s.%s: expected %s, got %s", value_rows[i].machine, value_rows[i].key,
                  value_rows[i].expect ? value_rows[i].expect : "(absent)", v ? v : "(absent)");
    }
}

/* Ensure every built-in value other than the description and compute capability is an unsigned
 * integer, so that any UINT parameter may default from it. */
static void
test_builtin_values_are_integers (void **state)
{
  g_auto (GStrv) names = mdl_machine_names (NULL);
  (void) state;
  assert_non_null (names);
  for (guint i = 0; names[i]; i++)
    {
      g_auto (GStrv) keys = mdl_machine_keys (names[i], NULL);
      assert_non_null (keys);
      assert_string_equal (keys[0], "description");
      for (guint k = 1; keys[k]; k++)
        {
          g_autofree char *v = preset (names[i], keys[k]);
          /* the version, the GPU engines' rule names (coalesce_rule, shared_rule), and the host
           * preset's words for people (cache_source, thp_mode, l3_shared_cpus) */
          if (strcmp (keys[k], "compute_capability") == 0 || g_str_has_suffix (keys[k], "_rule")
              || g_str_has_suffix (keys[k], "_source") || g_str_has_suffix (keys[k], "_mode")
              || g_str_has_suffix (keys[k], "_cpus"))
            continue;
          for (const char *p = v; *p; p++)
            if (!g_ascii_isdigit (*p))
              fail_msg ("%s.%s=%s is not an unsigned integer", names[i], keys[k], v);
        }
    }
}

/* Ensure an unknown preset is MDL_ERROR_UNKNOWN_NAME listing the valid ones, for get and keys. */
static void
test_unknown_machine_lists_presets (void **state)
{
  GError *error = NULL;
  char *value = (char *) "untouched";
  (void) state;
  assert_false (mdl_machine_get ("z80", "page_bytes", &value, &error));
  assert_null (value);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown machine \"z80\"; valid: x86-64, h100");
  assert_null (mdl_machine_keys ("H100", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "unknown machine \"H100\"");
}

/* A MODELS_MACHINES file: adds "toy" and replaces the built-in h100 group. */
static const char user_presets[] =
  "[toy]\n"
  "description=a teaching machine\n"
  "page_bytes=256\n"
  "tree_arity=4\n"
  "[h100]\n"
  "description=an h100 with wider warps\n"
  "warp_width=64\n";

typedef struct {
  char *path;
} Fixture;

static int
fixture_setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_unsetenv ("MODELS_MACHINES");
  *state = f;
  return 0;
}

static int
fixture_teardown (void **state)
{
  Fixture *f = *state;
  g_unsetenv ("MODELS_MACHINES");
  if (f->path)
    {
      g_autofree char *dir = g_path_get_dirname (f->path);
      g_unlink (f->path);
      g_rmdir (dir);
      g_free (f->path);
    }
  g_free (f);
  return 0;
}

static void
use_file (Fixture *f, const char *text)
{
  f->path = test_write_temp ("machines.ini", text, strlen (text));
  g_setenv ("MODELS_MACHINES", f->path, TRUE);
}

/* Ensure a MODELS_MACHINES file adds its presets after the built-in ones and replaces a built-in
 * group of the same name as a whole (h100 keeps only what the file gives it). */
static void
test_env_file_adds_and_replaces_presets (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;
  g_autofree char *toy_page = NULL, *h100_warp = NULL, *h100_sms = NULL, *x86_page = NULL;
  use_file (f, user_presets);
  names = mdl_machine_names (&error);
  assert_non_null (names);
  /* the built-in presets (x86-64, h100, the older GPUs g80, gt200, fermi, kepler, and the
   * thesis's 8800gt and 9600gt), then toy, then the one read from this machine */
  assert_int_equal (g_strv_length (names), 10);
  assert_string_equal (names[0], "x86-64");
  assert_string_equal (names[1], "h100");
  assert_string_equal (names[8], "toy");
  assert_string_equal (names[9], "host");
  toy_page = preset ("toy", "page_bytes");
  assert_string_equal (toy_page, "256");
  h100_warp = preset ("h100", "warp_width");
  assert_string_equal (h100_warp, "64");
  h100_sms = preset ("h100", "sm_count");
  assert_null (h100_sms);
  x86_page = preset ("x86-64", "page_bytes");
  assert_string_equal (x86_page, "4096");
}

/* Ensure engines see user presets: footprint:machine=toy takes page_bytes from the file. */
static void
test_env_file_preset_reaches_engines (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) e = NULL;
  use_file (f, user_presets);
  e = mdl_engine_new ("footprint:machine=toy,line_bytes=32", &error);
  if (e == NULL)
    fail_msg ("%s", error->message);
  /* toy has page_bytes=256 and no line_bytes, which the spec gives. */
  assert_string_equal (mdl_engine_spec (e), "footprint:machine=toy,page_bytes=256,line_bytes=32,"
                                            "buckets=22");
}

/* Ensure a malformed or missing MODELS_MACHINES file is MDL_ERROR_FORMAT naming the file, from
 * every entry point. */
static void
test_bad_env_file_is_a_format_error_naming_it (void **state)
{
  Fixture *f = *state;
  GError *error = NULL;
  char *value = NULL;
  g_autofree char *needle = NULL;
  use_file (f, "[toy\npage_bytes=256\n");
  needle = g_strdup_printf ("MODELS_MACHINES=%s: ", f->path);
  assert_null (mdl_machine_names (&error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, needle);
  assert_false (mdl_machine_get ("x86-64", "page_bytes", &value, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, needle);
  assert_null (mdl_machine_keys ("h100", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, needle);

  g_setenv ("MODELS_MACHINES", "/nonexistent/machines.ini", TRUE);
  assert_null (mdl_machine_names (&error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT,
                    "MODELS_MACHINES=/nonexistent/machines.ini: ");
}

/* Ensure an empty MODELS_MACHINES means the built-in presets only. */
static void
test_empty_env_means_builtin_only (void **state)
{
  g_auto (GStrv) names = NULL;
  (void) state;
  g_setenv ("MODELS_MACHINES", "", TRUE);
  names = mdl_machine_names (NULL);
  assert_non_null (names);
  assert_string_equal (names[0], "x86-64");
  assert_string_equal (names[1], "h100");
}

/* Ensure the parsed user file (src/core/machine.c caches it) follows the file's bytes: rewritten
 * in place with the same size and its modification time set back, a value reads anew; made
 * malformed, every question is an error again; fixed, it reads again; another path is another
 * file. A cache keyed on the time alone would give "256" after the first rewrite. */
static void
test_env_file_changes_are_seen_at_once (void **state)
{
  Fixture *f = *state;
  g_autoptr (GError) error = NULL;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  g_autofree char *other = NULL;
  char *bad = NULL;
  GStatBuf st;
  struct utimbuf times;
  use_file (f, "[toy]\npage_bytes=256\n");
  a = preset ("toy", "page_bytes");
  assert_string_equal (a, "256");
  assert_int_equal (g_stat (f->path, &st), 0);
  assert_true (g_file_set_contents (f->path, "[toy]\npage_bytes=512\n", -1, NULL));
  times.actime = st.st_atime;
  times.modtime = st.st_mtime;
  assert_int_equal (g_utime (f->path, &times), 0);
  b = preset ("toy", "page_bytes");
  assert_string_equal (b, "512");
  assert_true (g_file_set_contents (f->path, "[toy\npage_bytes=512\n", -1, NULL));
  assert_false (mdl_machine_get ("toy", "page_bytes", &bad, &error));
  assert_null (bad);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, "MODELS_MACHINES=");
  assert_true (g_file_set_contents (f->path, "[toy]\npage_bytes=1024\n", -1, NULL));
  c = preset ("toy", "page_bytes");
  assert_string_equal (c, "1024");
  other = test_write_temp ("other.ini", "[toy]\npage_bytes=2048\n", 22);
  g_setenv ("MODELS_MACHINES", other, TRUE);
  d = preset ("toy", "page_bytes");
  assert_string_equal (d, "2048");
  g_setenv ("MODELS_MACHINES", f->path, TRUE);
  {
    g_autofree char *dir = g_path_get_dirname (other);
    g_unlink (other);
    g_rmdir (dir);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_builtin_names_include_x86_64_and_h100, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_builtin_values_match_the_data_file, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_builtin_values_are_integers, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_unknown_machine_lists_presets, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_env_file_adds_and_replaces_presets, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_env_file_preset_reaches_engines, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_bad_env_file_is_a_format_error_naming_it, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_empty_env_means_builtin_only, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_env_file_changes_are_seen_at_once, fixture_setup,
                                     fixture_teardown),
  };
  return cmocka_run_group_tests_name ("machine", tests, NULL, NULL);
}
