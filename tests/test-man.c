/* The man pages say what the command and the headers say: `models help --man DIR` (run here into
 * a fresh directory, with $MODELS_BIN) writes a page for every command `models --help` lists,
 * every option and example of `models CMD --help` is on its page, every MDL_API function of
 * include/models/ and every symbol libmodels.so exports is in libmodels(3) ($B/man/man3, made by
 * tools/man-api), an undocumented MDL_API declaration stops tools/man-api, and groff renders
 * every page without a warning. */
#include "helpers.h"
#include "core/groff.h"

#include <string.h>

static const char *
build_dir (void)
{
  const char *b = g_getenv ("B");
  return b && *b ? b : "build";
}

/* Runs `models ARGS...` and returns its standard output; fails unless it exits with 0. */
static char *
models_out (const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *err = NULL;
  char *out = NULL;
  g_ptr_array_add (argv, (gpointer) "models");
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (test_spawn ((const char *const *) argv->pdata, NULL, &out, &err) != 0)
    fail_msg ("models %s failed: %s", args[0], err);
  return out;
}

/* The commands of `models --help` but help, and the one nested command with options of its
 * own. */
static GPtrArray *
commands_of_help (void)
{
  GPtrArray *commands = test_models_commands ();
  for (guint i = 0; i < commands->len; i++)
    if (strcmp (commands->pdata[i], "help") == 0)
      g_ptr_array_remove_index (commands, i--);
  g_ptr_array_add (commands, g_strdup ("experiment gpu"));
  return commands;
}

static char *man_dir;

static char *
page_text (const char *file)
{
  g_autofree char *path = g_build_filename (man_dir, file, NULL);
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    fail_msg ("no page %s", path);
  return text;
}

static char *
command_page (const char *command)
{
  g_autofree char *file = g_strdup_printf ("models-%s.1", command);
  return page_text (g_strdelimit (file, " ", '-'));
}

static void
assert_on_page (const char *page, const char *text, const char *command, const char *what)
{
  g_autoptr (GString) escaped = g_string_new (NULL);
  mdl_groff_text (escaped, text, -1);
  if (strstr (page, escaped->str) == NULL)
    fail_msg ("the page of models %s lacks %s \"%s\" (as groff: %s)", command, what, text,
              escaped->str);
}

/* Ensure that the pages are exactly models.1 and one per command of `models --help`. */
static void
test_every_command_has_a_page (void **state)
{
  g_autoptr (GPtrArray) commands = commands_of_help ();
  g_autoptr (GDir) dir = g_dir_open (man_dir, 0, NULL);
  g_autofree char *top = page_text ("models.1");
  const char *name;
  guint n_pages = 0;
  (void) state;
  assert_non_null (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    n_pages++;
  assert_int_equal (n_pages, commands->len + 1);
  for (guint i = 0; i < commands->len; i++)
    {
      g_autofree char *page = command_page (commands->pdata[i]);
      g_autofree char *file = g_strdup_printf ("models-%s", (char *) commands->pdata[i]);
      assert_non_null (strstr (page, ".TH MODELS\\-"));
      /* models(1) lists and points to every command's page. */
      assert_on_page (top, g_strdelimit (file, " ", '-'), "", "a pointer to the page");
    }
}

/* Ensure that every option, with its description, and every example of `models CMD --help` is on
 * the command's page (GLib prints the options; the page is written from the table itself). */
static void
test_every_option_and_example_is_on_its_page (void **state)
{
  g_autoptr (GPtrArray) commands = commands_of_help ();
  (void) state;
  for (guint c = 0; c < commands->len; c++)
    {
      const char *command = commands->pdata[c];
      g_auto (GStrv) words = g_strsplit (command, " ", -1);
      g_autoptr (GStrvBuilder) args = g_strv_builder_new ();
      g_auto (GStrv) argv = NULL, lines = NULL;
      g_autofree char *help = NULL, *page = command_page (command);
      gboolean in_examples = FALSE;
      guint n_options = 0, n_examples = 0;
      g_strv_builder_addv (args, (const char **) words);
      g_strv_builder_add (args, "--help");
      argv = g_strv_builder_end (args);
      help = models_out ((const char *const *) argv);
      lines = g_strsplit (help, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        {
          const char *line = lines[i];
          if (g_str_has_prefix (line, "  -"))
            {
              /* "  -e, --engine=SPEC     An engine spec..." or "  --native     Time..." */
              const char *long_opt = strstr (line, "--");
              g_autofree char *opt = g_strndup (long_opt, strcspn (long_opt, "= "));
              const char *desc = long_opt + strcspn (long_opt, " ");
              g_autoptr (GString) tag = g_string_new ("\\fB");
              mdl_groff_text (tag, opt, -1);
              g_string_append (tag, "\\fR");
              if (strstr (page, tag->str) == NULL)
                fail_msg ("the page of models %s has no entry %s", command, tag->str);
              assert_on_page (page, g_strchug ((char *) desc), command, "the description");
              if (line[3] != '-')
                {
                  g_autofree char *short_opt = g_strdup_printf ("\\fB\\-%c\\fR", line[3]);
                  assert_non_null (strstr (page, short_opt));
                }
              n_options++;
            }
          else if (strcmp (line, "Examples:") == 0)
            in_examples = TRUE;
          else if (in_examples && g_str_has_prefix (line, "  "))
            {
              const char *cmd = line + 2;
              const char *gap = strstr (cmd, "  ");
              g_autofree char *text = g_strndup (cmd, gap ? (gsize) (gap - cmd) : strlen (cmd));
              if (!g_str_has_suffix (text, "\\"))
                assert_on_page (page, text, command, "example");
              n_examples++;
            }
          else
            in_examples = FALSE;
        }
      /* Every command has --help at least, and examples. */
      assert_true (n_options >= 1);
      assert_true (n_examples >= 1);
    }
}

/* The functions of the MDL_API declarations of the headers in include/models/. */
static GHashTable *
declared_functions (void)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GRegex) re = g_regex_new ("^MDL_API[^;(]*?\\b(mdl_\\w+)\\s*\\(", G_REGEX_MULTILINE,
                                       0, NULL);
  g_autoptr (GDir) dir = g_dir_open ("include/models", 0, NULL);
  const char *name;
  assert_non_null (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("include/models", name, NULL), *text = NULL;
      g_autoptr (GMatchInfo) m = NULL;
      assert_true (g_file_get_contents (path, &text, NULL, NULL));
      for (g_regex_match (re, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL))
        g_hash_table_add (names, g_match_info_fetch (m, 1));
    }
  return names;
}

/* Ensure that libmodels(3) has a section for every MDL_API function of the headers and for every
 * function the shared library exports. */
static void
test_every_api_function_is_in_libmodels3 (void **state)
{
  g_autofree char *path = g_build_filename (build_dir (), "man", "man3", "libmodels.3", NULL);
  g_autofree char *so = g_build_filename (build_dir (), "libmodels.so", NULL);
  g_autofree char *page = NULL;
  g_autoptr (GHashTable) declared = declared_functions ();
  const char *const nm[] = { "nm", "-D", "--defined-only", so, NULL };
  GHashTableIter it;
  gpointer name;
  guint n_exported = 0;
  (void) state;
  if (!g_file_get_contents (path, &page, NULL, NULL))
    fail_msg ("no %s (make man)", path);
  assert_true (g_hash_table_size (declared) > 100);
  g_hash_table_iter_init (&it, declared);
  while (g_hash_table_iter_next (&it, &name, NULL))
    {
      g_autoptr (GString) heading = g_string_new (".SS ");
      mdl_groff_text (heading, name, -1);
      g_string_append_c (heading, '\n');
      if (strstr (page, heading->str) == NULL)
        fail_msg ("libmodels(3) has no section %s", (char *) name);
    }
  /* libmodels.so, and libmodels-dwarf.a (include/models/dwarf.h: kept out of the shared library
   * so that only the command needs libdw) */
  for (guint lib = 0; lib < 2; lib++)
    {
      g_autofree char *ar = g_build_filename (build_dir (), "libmodels-dwarf.a", NULL);
      const char *const nm_ar[] = { "nm", "--defined-only", ar, NULL };
      g_autofree char *symbols = NULL;
      g_auto (GStrv) lines = NULL;
      assert_int_equal (test_spawn (lib == 0 ? nm : nm_ar, NULL, &symbols, NULL), 0);
      lines = g_strsplit (symbols, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        {
          g_auto (GStrv) f = g_strsplit (lines[i], " ", -1);
          if (g_strv_length (f) == 3 && strcmp (f[1], "T") == 0)
            {
              if (!g_hash_table_contains (declared, f[2]))
                fail_msg ("%s exports %s, which no header declares with MDL_API",
                          lib == 0 ? "libmodels.so" : "libmodels-dwarf.a", f[2]);
              n_exported++;
            }
        }
    }
  assert_int_equal (n_exported, g_hash_table_size (declared));
}

/* Ensure that tools/man-api refuses a header whose MDL_API function has no doc comment, or one
 * that names another function, with the file and line. */
static void
test_undocumented_function_stops_man_api (void **state)
{
  static const struct {
    const char *header;
    const char *message;
  } cases[] = {
    { "/* libmodels: a test. */\n\nMDL_API int mdl_x (void);\n", "x.h:3: MDL_API mdl_x" },
    { "/* libmodels: a test. */\n/** mdl_y: why. */\nMDL_API int mdl_x (void);\n",
      "x.h:3: MDL_API mdl_x" },
    { "/** mdl_x: documented. */\nMDL_API int\nmdl_x (int a,\n  int b);\n/* plain */\n"
      "MDL_API void mdl_z (void);\n", "x.h:6: MDL_API mdl_z" },
  };
  g_autofree char *tool = g_build_filename (build_dir (), "tools", "man-api", NULL);
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *header = test_write_temp ("x.h", cases[i].header, strlen (cases[i].header));
      g_autofree char *dir = g_path_get_dirname (header);
      g_autofree char *out = g_build_filename (dir, "x.3", NULL), *err = NULL;
      const char *const argv[] = { tool, out, header, NULL };
      assert_int_equal (test_spawn (argv, NULL, NULL, &err), 1);
      if (strstr (err, cases[i].message) == NULL)
        fail_msg ("case %u: expected \"%s\" in: %s", i, cases[i].message, err);
      assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
}

static void
assert_renders (const char *path)
{
  const char *const argv[] = { "groff", "-man", "-Tutf8", "-ww", "-z", path, NULL };
  g_autofree char *err = NULL;
  if (test_spawn (argv, NULL, NULL, &err) != 0 || *err)
    fail_msg ("groff -man -ww %s: %s", path, err);
}

/* Ensure that groff renders every page, with every warning on, without a word. */
static void
test_pages_render_without_warnings (void **state)
{
  g_autoptr (GDir) dir = g_dir_open (man_dir, 0, NULL);
  g_autofree char *api = g_build_filename (build_dir (), "man", "man3", "libmodels.3", NULL);
  const char *name;
  (void) state;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (man_dir, name, NULL);
      assert_renders (path);
    }
  assert_renders (api);
}

static int
group_setup (void **state)
{
  g_autofree char *dir = test_temp_dir (), *out = NULL;
  const char *argv[] = { "help", "--man", NULL, NULL };
  (void) state;
  man_dir = g_build_filename (dir, "man1", NULL);
  argv[2] = man_dir;
  out = models_out (argv);
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_command_has_a_page),
    cmocka_unit_test (test_every_option_and_example_is_on_its_page),
    cmocka_unit_test (test_every_api_function_is_in_libmodels3),
    cmocka_unit_test (test_undocumented_function_stops_man_api),
    cmocka_unit_test (test_pages_render_without_warnings),
  };
  return cmocka_run_group_tests (tests, group_setup, NULL);
}
