/* `models complete WORD...` ($MODELS_BIN) offers exactly what the registries and the commands'
 * help say may come next: every expected list here is derived from the library's registries
 * (engines and their parameter tables, algorithms, machine presets, trace formats) or from
 * `models CMD --help`, never written out, and compared as a set with the command's answer. The
 * bash side (data/models.bash) is checked for the part bash itself splits off at ':' and '='. */
#include "helpers.h"

#include <string.h>

/* The candidates `models complete WORDS...` prints, sorted; @words is one string split at
 * spaces, a trailing space giving an empty last word. */
static GPtrArray *
complete (const char *words)
{
  g_auto (GStrv) split = g_strsplit (words, " ", -1);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *out = NULL, *err = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *got = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, (gpointer) "models");
  g_ptr_array_add (argv, (gpointer) "complete");
  for (guint i = 0; split[i]; i++)
    g_ptr_array_add (argv, split[i]);
  g_ptr_array_add (argv, NULL);
  if (test_spawn ((const char *const *) argv->pdata, NULL, &out, &err) != 0)
    fail_msg ("models complete %s: %s", words, err);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      g_ptr_array_add (got, g_strdup (lines[i]));
  return got;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Fails unless @got and @expected (of which only those starting with the last word of @words
 * count) hold the same strings. Frees @expected. */
static void
assert_candidates (const char *words, GPtrArray *expected)
{
  g_autoptr (GPtrArray) got = complete (words);
  g_autoptr (GPtrArray) want = g_ptr_array_new_with_free_func (g_free);
  const char *cur = strrchr (words, ' ') ? strrchr (words, ' ') + 1 : words;
  g_autoptr (GString) diff = g_string_new (NULL);
  for (guint i = 0; i < expected->len; i++)
    if (g_str_has_prefix (expected->pdata[i], cur))
      g_ptr_array_add (want, g_strdup (expected->pdata[i]));
  g_ptr_array_unref (expected);
  g_ptr_array_sort (got, compare_strings);
  g_ptr_array_sort (want, compare_strings);
  for (guint i = 0; i < MAX (got->len, want->len); i++)
    g_string_append_printf (diff, "  %-40s %s\n", i < got->len ? (char *) got->pdata[i] : "-",
                            i < want->len ? (char *) want->pdata[i] : "-");
  if (got->len != want->len)
    fail_msg ("models complete %s: %u candidates, expected %u (got, expected):\n%s", words,
              got->len, want->len, diff->str);
  for (guint i = 0; i < got->len; i++)
    if (strcmp (got->pdata[i], want->pdata[i]) != 0)
      fail_msg ("models complete %s (got, expected):\n%s", words, diff->str);
}

static GPtrArray *
strings (void)
{
  return g_ptr_array_new_with_free_func (g_free);
}

static GPtrArray *
with_prefix (GPtrArray *list, const char *prefix)
{
  for (guint i = 0; i < list->len; i++)
    {
      char *old = list->pdata[i];
      list->pdata[i] = g_strconcat (prefix, old, NULL);
      g_free (old);
    }
  return list;
}

static GPtrArray *
engine_names (void)
{
  guint n;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n);
  GPtrArray *names = strings ();
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (names, g_strdup (classes[i]->name));
  return names;
}

static GPtrArray *
machine_names (void)
{
  g_auto (GStrv) names = mdl_machine_names (NULL);
  GPtrArray *list = strings ();
  for (guint i = 0; names[i]; i++)
    g_ptr_array_add (list, g_strdup (names[i]));
  return list;
}

/* "machine=" and "KEY=" for every row of @table. */
static GPtrArray *
keys_of (const MdlParamSpec *table)
{
  GPtrArray *keys = strings ();
  g_ptr_array_add (keys, g_strdup ("machine="));
  for (const MdlParamSpec *p = table; p->key; p++)
    g_ptr_array_add (keys, g_strconcat (p->key, "=", NULL));
  return keys;
}

static GPtrArray *
words_of (const char *choices)
{
  g_auto (GStrv) words = g_strsplit (choices, "|", -1);
  GPtrArray *list = strings ();
  for (guint i = 0; words[i]; i++)
    g_ptr_array_add (list, g_strdup (words[i]));
  return list;
}

/* The long options of `models CMD --help`, as "--NAME". */
static GPtrArray *
options_of_help (const char *command)
{
  g_auto (GStrv) words = g_strsplit (command, " ", -1);
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  g_auto (GStrv) argv = NULL, lines = NULL;
  g_autofree char *out = NULL;
  GPtrArray *options = strings ();
  g_strv_builder_add (b, "models");
  g_strv_builder_addv (b, (const char **) words);
  g_strv_builder_add (b, "--help");
  argv = g_strv_builder_end (b);
  assert_int_equal (test_spawn ((const char *const *) argv, NULL, &out, NULL), 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "  -"))
      {
        const char *opt = strstr (lines[i], "--");
        g_ptr_array_add (options, g_strndup (opt, strcspn (opt, "= ")));
      }
  return options;
}

/* Ensure that the first word completes to the commands and the top-level options, and that
 * `help` takes a command name. */
static void
test_commands (void **state)
{
  g_autoptr (GPtrArray) commands = test_models_commands ();
  (void) state;
  assert_true (commands->len >= 9);
  assert_candidates ("", test_models_commands ());
  assert_candidates ("ex", test_models_commands ());
  assert_candidates ("-", options_of_help (""));
  for (guint i = 0; i < commands->len; i++)
    if (strcmp (commands->pdata[i], "help") == 0)
      g_ptr_array_remove_index (commands, i);
  assert_candidates ("help ", g_ptr_array_ref (commands));
  assert_candidates ("help r", g_ptr_array_ref (commands));
  assert_candidates ("help run ", strings ());
  assert_candidates ("nosuch ", strings ());
}

/* Ensure that every command (and experiment gpu) completes its options as its --help lists them,
 * with --help, and a prefix narrows them. */
static void
test_options_per_command (void **state)
{
  g_autoptr (GPtrArray) commands = test_models_commands ();
  (void) state;
  g_ptr_array_add (commands, g_strdup ("experiment gpu"));
  for (guint i = 0; i < commands->len; i++)
    {
      g_autofree char *dash = g_strdup_printf ("%s -", (char *) commands->pdata[i]);
      g_autofree char *dashes = g_strdup_printf ("%s --m", (char *) commands->pdata[i]);
      if (strcmp (commands->pdata[i], "help") == 0)
        continue;
      assert_candidates (dash, options_of_help (commands->pdata[i]));
      assert_candidates (dashes, options_of_help (commands->pdata[i]));
    }
  /* After an option that takes a value, the next option. */
  assert_candidates ("run -n 1k --s", options_of_help ("run"));
  assert_candidates ("run scan/seq --by-site --e", options_of_help ("run"));
}

/* Ensure that engine names follow -e, --engine and --engine=, and that after NAME: and after
 * each ',' come NAME's parameter keys, for every engine. */
static void
test_engine_specs (void **state)
{
  guint n;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n);
  (void) state;
  assert_true (n >= 10);
  assert_candidates ("run -e ", engine_names ());
  assert_candidates ("analyze --engine co", engine_names ());
  assert_candidates ("list -e ", engine_names ());
  assert_candidates ("trace --engine=", with_prefix (engine_names (), "--engine="));
  assert_candidates ("run -e nosuch:", strings ());
  for (guint i = 0; i < n; i++)
    {
      const MdlParamSpec *first = classes[i]->params;
      g_autofree char *head = g_strdup_printf ("%s:", classes[i]->name);
      g_autofree char *words = g_strdup_printf ("run -e %s", head);
      assert_candidates (words, with_prefix (keys_of (classes[i]->params), head));
      if (first && first->key)
        {
          g_autofree char *head2 = g_strdup_printf ("%s:%s=1,", classes[i]->name, first->key);
          g_autofree char *words2 = g_strdup_printf ("analyze --engine %s", head2);
          assert_candidates (words2, with_prefix (keys_of (classes[i]->params), head2));
        }
    }
}

/* Ensure that after KEY= of a choice parameter come its choices, and after machine= the presets,
 * in engine specs (every choice parameter of every engine), after -m and --machine. */
static void
test_values (void **state)
{
  guint n;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n);
  guint n_choice_params = 0;
  (void) state;
  for (guint i = 0; i < n; i++)
    for (const MdlParamSpec *p = classes[i]->params; p && p->key; p++)
      if (p->type == MDL_PARAM_CHOICE)
        {
          g_autofree char *head = g_strdup_printf ("%s:%s=", classes[i]->name, p->key);
          g_autofree char *words = g_strdup_printf ("run -e %s", head);
          assert_candidates (words, with_prefix (words_of (p->choices), head));
          n_choice_params++;
        }
  assert_true (n_choice_params >= 3);
  assert_candidates ("run -e vat:P=4k,machine=",
                     with_prefix (machine_names (), "vat:P=4k,machine="));
  assert_candidates ("analyze -m ", machine_names ());
  assert_candidates ("experiment gpu --machine=h", with_prefix (machine_names (), "--machine="));
}

/* Ensure that run's argument completes to the algorithms, ALGO: and --param to its keys, and
 * --algos to CPU algorithms after each comma. */
static void
test_algorithms (void **state)
{
  guint n;
  const MdlAlgo *algos = mdl_algos (&n);
  g_autoptr (GPtrArray) names = strings ();
  GPtrArray *cpu = strings ();
  (void) state;
  for (guint i = 0; i < n; i++)
    {
      g_ptr_array_add (names, g_strdup (algos[i].name));
      if (algos[i].gpu == NULL)
        g_ptr_array_add (cpu, g_strdup (algos[i].name));
    }
  assert_candidates ("run ", g_ptr_array_ref (names));
  assert_candidates ("run --n 1k scan/", g_ptr_array_ref (names));
  assert_candidates ("run scan/seq ", strings ());
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *head = g_strdup_printf ("%s:", algos[i].name);
      g_autofree char *words = g_strdup_printf ("run %s", head);
      g_autofree char *param = g_strdup_printf ("run %s --param ", algos[i].name);
      assert_candidates (words, with_prefix (keys_of (algos[i].params), head));
      assert_candidates (param, keys_of (algos[i].params));
    }
  assert_candidates ("experiment vat --algos scan/seq,", with_prefix (cpu, "scan/seq,"));
}

/* Ensure that formats, files and the experiments complete as the registries and usage lines say. */
static void
test_formats_files_and_choices (void **state)
{
  GPtrArray *formats = strings ();
  (void) state;
  for (MdlTraceFormat f = 0; mdl_trace_format_name (f); f++)
    g_ptr_array_add (formats, g_strdup (mdl_trace_format_name (f)));
  assert_true (formats->len >= 5);
  assert_candidates ("convert --from ", g_ptr_array_ref (formats));
  assert_candidates ("convert -T ", g_ptr_array_ref (formats));
  assert_candidates ("analyze --trace-format ", formats);
  {
    /* The report formats, in MdlFormat order, as the library parses them. */
    static const char *const names[] = { "table", "json", "csv" };
    GPtrArray *outputs = strings ();
    G_STATIC_ASSERT (G_N_ELEMENTS (names) == MDL_FORMAT_CSV + 1);
    for (MdlFormat f = 0; f <= MDL_FORMAT_CSV; f++)
      {
        MdlFormat parsed;
        assert_true (mdl_format_from_name (names[f], &parsed, NULL));
        assert_int_equal (parsed, f);
        g_ptr_array_add (outputs, g_strdup (names[f]));
      }
    assert_candidates ("run -f ", g_ptr_array_ref (outputs));
    /* models list writes only some: those it accepts. */
    for (guint i = 0; i < outputs->len;)
      {
        const char *const argv[] = { "models", "list", "--format", outputs->pdata[i], NULL };
        if (test_spawn (argv, NULL, NULL, NULL) == 0)
          i++;
        else
          g_ptr_array_remove_index (outputs, i);
      }
    assert_int_equal (outputs->len, 2);
    assert_candidates ("list --format ", outputs);
  }
  assert_candidates ("experiment ", words_of ("vat|gpu"));
  /* Files: "@file" asks the shell for file names. */
  {
    static const char *const file_positions[] = {
      "analyze ", "convert in ", "run -o ", "run scan/seq --trace-out=", "trace ",
      "trace ls -", "trace -e count ls --e", "experiment gpu --measured ", "demo -o ",
    };
    for (guint i = 0; i < G_N_ELEMENTS (file_positions); i++)
      {
        g_autoptr (GPtrArray) got = complete (file_positions[i]);
        if (got->len != 1 || strcmp (got->pdata[0], "@file") != 0)
          fail_msg ("models complete %s: expected @file only, got %u candidates",
                    file_positions[i], got->len);
      }
  }
  /* Values nothing lists, and past the last argument: nothing. */
  assert_candidates ("run -n ", strings ());
  assert_candidates ("list extra ", strings ());
}

/* Ensure that data/models.bash hands bash only what follows the last ':' or '=' of the word
 * (bash replaces just that part), and names the same candidates otherwise. */
static void
test_bash_script (void **state)
{
  const char *bin = g_getenv ("MODELS_BIN");
  g_autofree char *abs_bin = g_canonicalize_filename (bin && *bin ? bin : "build/bin/models", NULL);
  g_autofree char *bin_dir = g_path_get_dirname (abs_bin);
  g_autofree char *script = g_strdup_printf (
    "PATH='%s':$PATH; source data/models.bash\n"
    "for l in 'models run -e vat:po' 'models run -e vat:policy=lr' 'models analyze -m h1' "
    "'models ru'; do\n"
    "  COMP_LINE=$l; COMP_POINT=${#l}; _models 2>/dev/null; echo \"${COMPREPLY[*]}\"\n"
    "done\n", bin_dir);
  const char *const argv[] = { "bash", "--norc", "-c", script, NULL };
  g_autofree char *out = NULL, *err = NULL;
  (void) state;
  assert_int_equal (test_spawn (argv, NULL, &out, &err), 0);
  assert_string_equal (out, "policy=\nlru\nh100\nrun\n");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_commands),
    cmocka_unit_test (test_options_per_command),
    cmocka_unit_test (test_engine_specs),
    cmocka_unit_test (test_values),
    cmocka_unit_test (test_algorithms),
    cmocka_unit_test (test_formats_files_and_choices),
    cmocka_unit_test (test_bash_script),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
