/* Tests of the `models` command, run as a separate process ($MODELS_BIN, default build/bin/models):
 * exit codes and messages, --help of every command, exact counters of runs and of a hand-written
 * Lackey trace, the JSON document's shape, and equality of results through trace files. The
 * expected numbers are derived by hand from the algorithms' and the fixture's definitions. */
#include "helpers.h"

#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

/* ---- running the command ---- */

typedef struct {
  int status;  /* exit status; -1 when it did not exit normally */
  char *out;
  char *err;
} CliResult;

static void
cli_result_clear (CliResult *r)
{
  g_free (r->out);
  g_free (r->err);
  *r = (CliResult) { 0 };
}

static const char *
models_bin (void)
{
  const char *bin = g_getenv ("MODELS_BIN");
  return bin && *bin ? bin : "build/bin/models";
}

static void
cli_runv (CliResult *r, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  g_ptr_array_add (argv, (gpointer) models_bin ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r->out,
                     &r->err, &wait_status, &error))
    fail_msg ("cannot run %s: %s", models_bin (), error->message);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

/* Runs `models ARGS...`; @r must be cleared by the caller. */
G_GNUC_NULL_TERMINATED static void
cli_run (CliResult *r, ...)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  va_list ap;
  const char *a;
  va_start (ap, r);
  while ((a = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  cli_runv (r, (const char *const *) args->pdata);
}

/* Fails with the command's output when it did not exit with @status. */
static void
assert_status (const CliResult *r, int status, const char *what)
{
  if (r->status != status)
    fail_msg ("%s: exit status %d, expected %d\nstdout: %s\nstderr: %s", what, r->status, status,
              r->out, r->err);
}

static void
assert_contains (const char *text, const char *needle, const char *what)
{
  if (strstr (text, needle) == NULL)
    fail_msg ("%s: expected \"%s\" in:\n%s", what, needle, text);
}

/* ---- fixtures: a scratch directory, and the data directory beside this file ---- */

typedef struct {
  char *tmp;
  char *data;
} Fixture;

static int
group_setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autofree char *dir = g_path_get_dirname (__FILE__);
  f->tmp = g_dir_make_tmp ("models-cli-XXXXXX", NULL);
  f->data = g_build_filename (dir, "data", "cli", NULL);
  *state = f;
  return f->tmp ? 0 : -1;
}

static int
group_teardown (void **state)
{
  Fixture *f = *state;
  GDir *dir = g_dir_open (f->tmp, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->tmp, name, NULL);
      g_unlink (path);
    }
  if (dir)
    g_dir_close (dir);
  g_rmdir (f->tmp);
  g_free (f->tmp);
  g_free (f->data);
  g_free (f);
  return 0;
}

static char *
tmp_path (const Fixture *f, const char *name)
{
  return g_build_filename (f->tmp, name, NULL);
}

static char *
data_path (const Fixture *f, const char *name)
{
  return g_build_filename (f->data, name, NULL);
}

/* ---- a small JSON reader, enough to check the shape of the documents the command prints ---- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } JsonType;

typedef struct Json Json;
struct Json {
  JsonType type;
  char *text;        /* J_NUMBER: as written; J_STRING: decoded; J_BOOL: "true"/"false" */
  GPtrArray *items;  /* J_ARRAY: Json *; J_OBJECT: values, in order */
  GPtrArray *keys;   /* J_OBJECT: char *, in order */
};

static void
json_free (Json *j)
{
  if (j == NULL)
    return;
  g_free (j->text);
  if (j->items)
    g_ptr_array_unref (j->items);
  if (j->keys)
    g_ptr_array_unref (j->keys);
  g_free (j);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Json, json_free)

static Json *json_value (const char **p);

static void
json_ws (const char **p)
{
  while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
    (*p)++;
}

static char *
json_string_text (const char **p)
{
  GString *s = g_string_new (NULL);
  if (**p != '"')
    goto bad;
  for ((*p)++; **p && **p != '"'; (*p)++)
    {
      if (**p != '\\')
        {
          g_string_append_c (s, **p);
          continue;
        }
      (*p)++;
      switch (**p)
        {
        case 'n': g_string_append_c (s, '\n'); break;
        case 't': g_string_append_c (s, '\t'); break;
        case 'u':
          {
            char hex[5] = { 0 };
            for (int k = 0; k < 4; k++)
              if (!g_ascii_isxdigit (hex[k] = (*p)[1 + k]))
                goto bad;
            g_string_append_unichar (s, (gunichar) g_ascii_strtoull (hex, NULL, 16));
            *p += 4;
            break;
          }
        case '"': case '\\': case '/': g_string_append_c (s, **p); break;
        default: goto bad;
        }
    }
  if (**p != '"')
    goto bad;
  (*p)++;
  return g_string_free (s, FALSE);
bad:
  g_string_free (s, TRUE);
  return NULL;
}

static Json *
json_container (const char **p, gboolean object)
{
  g_autoptr (Json) j = g_new0 (Json, 1);
  j->type = object ? J_OBJECT : J_ARRAY;
  j->items = g_ptr_array_new_with_free_func ((GDestroyNotify) json_free);
  if (object)
    j->keys = g_ptr_array_new_with_free_func (g_free);
  (*p)++;
  json_ws (p);
  if (**p == (object ? '}' : ']'))
    {
      (*p)++;
      return g_steal_pointer (&j);
    }
  for (;;)
    {
      Json *v;
      json_ws (p);
      if (object)
        {
          char *key = json_string_text (p);
          if (key == NULL)
            return NULL;
          g_ptr_array_add (j->keys, key);
          json_ws (p);
          if (*(*p)++ != ':')
            return NULL;
        }
      if ((v = json_value (p)) == NULL)
        return NULL;
      g_ptr_array_add (j->items, v);
      json_ws (p);
      if (**p == ',')
        (*p)++;
      else if (**p == (object ? '}' : ']'))
        {
          (*p)++;
          return g_steal_pointer (&j);
        }
      else
        return NULL;
    }
}

static Json *
json_value (const char **p)
{
  Json *j;
  json_ws (p);
  if (**p == '{' || **p == '[')
    return json_container (p, **p == '{');
  j = g_new0 (Json, 1);
  if (**p == '"')
    {
      j->type = J_STRING;
      j->text = json_string_text (p);
    }
  else if (g_str_has_prefix (*p, "null") || g_str_has_prefix (*p, "true")
           || g_str_has_prefix (*p, "false"))
    {
      j->type = **p == 'n' ? J_NULL : J_BOOL;
      j->text = g_strndup (*p, **p == 'f' ? 5 : 4);
      *p += strlen (j->text);
    }
  else
    {
      const char *start = *p;
      char *end = NULL;
      g_ascii_strtod (start, &end);
      j->type = J_NUMBER;
      if (end != start && (g_ascii_isdigit (*start) || *start == '-'))
        {
          j->text = g_strndup (start, (gsize) (end - start));
          *p = end;
        }
    }
  if (j->text == NULL)
    {
      json_free (j);
      return NULL;
    }
  return j;
}

/* Parses a whole document; fails the test (showing the text) when it is not valid JSON. */
static Json *
json_parse (const char *text)
{
  const char *p = text;
  Json *j = json_value (&p);
  if (j)
    json_ws (&p);
  if (j == NULL || *p != '\0')
    {
      json_free (j);
      fail_msg ("not a JSON document (stopped at offset %d):\n%s", (int) (p - text), text);
    }
  return j;
}

static const Json *
json_get (const Json *obj, const char *key)
{
  if (obj == NULL || obj->type != J_OBJECT)
    return NULL;
  for (guint i = 0; i < obj->keys->len; i++)
    if (strcmp (g_ptr_array_index (obj->keys, i), key) == 0)
      return g_ptr_array_index (obj->items, i);
  return NULL;
}

static const Json *
json_expect (const Json *obj, const char *key, JsonType type)
{
  const Json *v = json_get (obj, key);
  if (v == NULL || v->type != type)
    fail_msg ("JSON: expected key \"%s\" of type %d, %s", key, type,
              v ? "found another type" : "not found");
  return v;
}

/* An exact count from a JSON object of counters. */
static guint64
json_count (const Json *counters, const char *name)
{
  const Json *v = json_expect (counters, name, J_NUMBER);
  return g_ascii_strtoull (v->text, NULL, 10);
}

/* Checks the report document of include/models/report.h: {"source": {"name", "events",
 * "seconds"}, "reports": [{"engine", "spec", "counters", "units", "metrics", "phases"}]}, with
 * numbers (or null) as counter values, strings as units, and one object of numbers per phase. */
static void
assert_report_document (const Json *doc)
{
  const Json *source = json_expect (doc, "source", J_OBJECT);
  const Json *reports = json_expect (doc, "reports", J_ARRAY);
  assert_int_equal (doc->keys->len, 2);
  json_expect (source, "name", J_STRING);
  json_expect (source, "events", J_NUMBER);
  json_expect (source, "seconds", J_NUMBER);
  for (guint i = 0; i < reports->items->len; i++)
    {
      const Json *r = g_ptr_array_index (reports->items, i);
      const Json *counters, *units, *phases;
      assert_int_equal (r->type, J_OBJECT);
      json_expect (r, "engine", J_STRING);
      json_expect (r, "spec", J_STRING);
      counters = json_expect (r, "counters", J_OBJECT);
      units = json_expect (r, "units", J_OBJECT);
      json_expect (r, "metrics", J_OBJECT);
      phases = json_expect (r, "phases", J_OBJECT);
      for (guint c = 0; c < counters->items->len; c++)
        {
          const Json *v = g_ptr_array_index (counters->items, c);
          const char *name = g_ptr_array_index (counters->keys, c);
          if (v->type != J_NUMBER && v->type != J_NULL)
            fail_msg ("counter %s is not a number", name);
          json_expect (units, name, J_STRING);
        }
      for (guint p = 0; p < phases->items->len; p++)
        {
          const Json *ph = g_ptr_array_index (phases->items, p);
          assert_int_equal (ph->type, J_OBJECT);
          for (guint c = 0; c < ph->items->len; c++)
            assert_int_equal (((const Json *) g_ptr_array_index (ph->items, c))->type, J_NUMBER);
        }
    }
}

/* The report of @engine in a document. */
static const Json *
json_report (const Json *doc, const char *engine)
{
  const Json *reports = json_expect (doc, "reports", J_ARRAY);
  for (guint i = 0; i < reports->items->len; i++)
    {
      const Json *r = g_ptr_array_index (reports->items, i);
      if (strcmp (json_expect (r, "engine", J_STRING)->text, engine) == 0)
        return r;
    }
  fail_msg ("no report of engine %s", engine);
  return NULL;
}

/* The total (phase "") value of @counter of @engine in CSV output, as text; fails when absent. */
static char *
csv_value (const char *csv, const char *engine, const char *counter)
{
  g_auto (GStrv) lines = g_strsplit (csv, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto (GStrv) f = NULL;
      guint n;
      /* Specs hold commas, so a spec field may be quoted: split from both ends instead. */
      if (!g_str_has_prefix (*l, engine) || (*l)[strlen (engine)] != ',')
        continue;
      f = g_strsplit (*l, ",", -1);
      n = g_strv_length (f);
      if (n >= 7 && strcmp (f[n - 4], counter) == 0 && f[n - 5][0] == '\0')
        return g_strdup (f[n - 3]);
    }
  fail_msg ("no CSV row for %s %s in:\n%s", engine, counter, csv);
  return NULL;
}

/* ---- exit codes and messages ---- */

/* Each row: arguments (space-separated; @DATA@ is the fixture directory), the exit status, and
 * pieces of stderr (separated by tabs) that name the problem. */
static const struct {
  const char *name;
  const char *args;
  int status;
  const char *err;
} exit_rows[] = {
  { "no command is a usage error", "", 2, "missing command" },
  { "unknown command", "anlyze x.bin", 2, "did you mean \"analyze\"" },
  { "unknown option", "analyze --bogus x.bin", 2, "--bogus" },
  { "unknown top-level option", "--bogus", 2, "--bogus" },
  { "missing FILE", "analyze", 2, "missing argument" },
  { "extra argument", "analyze a.bin b.bin", 2, "unexpected argument \"b.bin\"" },
  { "run without algorithm", "run", 2, "missing argument" },
  { "convert needs two files", "convert a.bin", 2, "missing argument" },
  { "list takes one section", "list x", 2, "unknown section \"x\" (valid: machines)" },
  { "list takes one argument", "list machines x", 2, "unexpected argument" },
  { "list has no csv", "list --format csv", 2, "table or json" },
  { "native runs no engines", "run scan/seq --native --engine count", 2, "--native" },
  { "unknown engine, with the library's suggestion", "run scan/seq --n 10 --engine cont", 1,
    "unknown engine \"cont\"; valid: count, footprint\t(did you mean \"count\"?)" },
  { "bad engine parameter value", "run scan/seq --n 10 --engine footprint:page_bytes=3", 1,
    "page_bytes=3 is not a power of two" },
  { "unknown engine parameter", "run scan/seq --n 10 --engine footprint:page_byte=4096", 1,
    "did you mean \"page_bytes\"" },
  { "unknown machine", "run scan/seq --n 10 --machine x86", 1,
    "unknown machine \"x86\"; valid: x86-64" },
  { "repeated engine key", "run scan/seq --n 10 --engine vat:W=64,W=32", 1,
    "vat: parameter W is given twice (W=64, then W=32)" },
  { "repeated algorithm key", "run scan/leftright:k=32,k=8 --n 64 --engine count", 1,
    "scan/leftright: parameter k is given twice" },
  { "repeated --param", "run scan/leftright --param k=32 --param k=8 --n 64 --engine count", 1,
    "scan/leftright: parameter k is given twice" },
  { "preset without the engine's keys", "run scan/seq --n 10 --engine vat:machine=h100", 1,
    "vat: machine h100 lacks keys page_bytes (parameter P), tree_arity (parameter K), tree_depth "
    "(parameter d)\tor a machine that has them: x86-64" },
  { "--machine without the engine's keys", "run scan/seq --n 10 --machine h100", 1,
    "footprint: machine h100 lacks key page_bytes" },
  { "zero repetitions", "experiment vat --reps 0", 1,
    "experiment: reps=0 is out of range (valid: 1..1000)" },
  { "too many repetitions", "experiment vat --reps 1001", 1, "reps=1001 is out of range" },
  { "repetitions not a number", "experiment vat --reps x", 1, "bad value \"x\" for reps" },
  { "zero instrumented runs at once", "experiment vat --jobs 0", 1,
    "experiment: jobs=0 is out of range (valid: 1..4096)" },
  { "zero jobs", "experiment gpu --predict-only --cases c --predictions p --jobs 0", 1,
    "experiment gpu: jobs=0 is out of range (valid: 1..4096)" },
  { "cache tables over the memory budget",
    "run scan/seq --n 1k --engine cache:size=1099511627776,assoc=8", 1,
    "cache: l1 of 1099511627776 bytes\tover the memory budget" },
  { "unknown algorithm", "run scan/sq", 1, "unknown algorithm \"scan/sq\"" },
  { "bad size", "run scan/seq --n 12q", 1, "bad value \"12q\" for n" },
  { "zero size", "run scan/seq --n 0", 1, "n=0 is out of range" },
  { "unknown output format", "run scan/seq --n 10 --format xml", 1, "\"xml\"" },
  { "unknown trace format", "analyze --trace-format txt @DATA@/small.lackey", 1, "\"txt\"" },
  { "missing file names it", "analyze @DATA@/no-such-trace.bin", 1, "no-such-trace.bin" },
  { "malformed Lackey line names file and line", "analyze @DATA@/bad.lackey", 1, "bad.lackey:3" },
  { "wrong forced format", "analyze --trace-format bin @DATA@/small.lackey", 1, "small.lackey" },
  { "a format without a writer", "convert --to raw @DATA@/small.lackey @DATA@/never.raw", 1,
    "never.raw: traces cannot be written in the raw format (writable: bin, lackey, din, warp)" },
  { "version", "--version", 0, "" },
};

/* Ensure a small --max-bytes prints as what it is: 64k is "64 KiB" in the notes, and the plan's
 * largest arrays, at most 64 KiB and more than 1 KiB, print in KiB; never "0 MiB" as they did. */
static void
test_small_experiment_bounds_are_not_zero (void **state)
{
  CliResult r = { 0 };
  (void) state;
  cli_run (&r, "experiment", "vat", "--max-bytes", "64k", "--reps", "1", "--algos", "scan/seq",
           NULL);
  assert_status (&r, 0, "experiment vat --max-bytes 64k");
  assert_contains (r.out, "arrays up to 64 KiB;", "notes");
  assert_contains (r.err, " KiB; estimated time", "plan");
  if (strstr (r.out, " 0 MiB") || strstr (r.err, " 0 MiB") || strstr (r.err, "0.1 MiB"))
    fail_msg ("a size printed in a unit too large: %s%s", r.err, r.out);
  cli_result_clear (&r);
}

/* Ensure every usage error exits with 2 and every bad input with 1, each with a message that
 * names the problem on stderr, as "models..." and nothing on stdout. */
static void
test_exit_codes_and_messages (void **state)
{
  Fixture *f = *state;
  for (guint i = 0; i < G_N_ELEMENTS (exit_rows); i++)
    {
      g_autofree char *args_text = NULL;
      g_auto (GStrv) args = NULL;
      g_auto (GStrv) needles = NULL;
      g_autoptr (GRegex) data = g_regex_new ("@DATA@", 0, 0, NULL);
      CliResult r = { 0 };
      args_text = g_regex_replace_literal (data, exit_rows[i].args, -1, 0, f->data, 0, NULL);
      args = g_strsplit (args_text, " ", -1);
      if (args[0] && args[0][0] == '\0')
        g_clear_pointer (&args[0], g_free);
      cli_runv (&r, (const char *const *) args);
      assert_status (&r, exit_rows[i].status, exit_rows[i].name);
      needles = g_strsplit (exit_rows[i].err, "\t", -1);
      for (char **n = needles; *n; n++)
        assert_contains (r.err, *n, exit_rows[i].name);
      if (exit_rows[i].status != 0)
        {
          if (!g_str_has_prefix (r.err, "models"))
            fail_msg ("%s: stderr does not start with \"models\": %s", exit_rows[i].name, r.err);
          if (r.out[0] != '\0')
            fail_msg ("%s: unexpected stdout: %s", exit_rows[i].name, r.out);
        }
      cli_result_clear (&r);
    }
}

/* ---- help ---- */

static const struct {
  const char *command;
  const char *options; /* each must appear in the help */
} help_rows[] = {
  { "list", "--format" },
  { "analyze", "--engine --machine --format --trace-format --output FILE|-" },
  { "run", "--n --seed --param --engine --machine --format --output --trace-out --native" },
  { "convert", "--from --to IN OUT" },
  { "trace", "--engine --format --output --save --fetches --program-output --valgrind PROGRAM" },
  { "demo", "--help" },
};

/* Ensure `models CMD --help` and `models help CMD` print the same help, exit 0, and name every
 * option; the top-level help lists every command. */
static void
test_help_of_every_command (void **state)
{
  CliResult top = { 0 }, help = { 0 };
  (void) state;
  cli_run (&top, "--help", NULL);
  assert_status (&top, 0, "models --help");
  cli_run (&help, "help", NULL);
  assert_status (&help, 0, "models help");
  assert_string_equal (top.out, help.out);
  for (guint i = 0; i < G_N_ELEMENTS (help_rows); i++)
    {
      CliResult a = { 0 }, b = { 0 };
      g_auto (GStrv) options = g_strsplit (help_rows[i].options, " ", -1);
      assert_contains (top.out, help_rows[i].command, "models --help");
      cli_run (&a, help_rows[i].command, "--help", NULL);
      assert_status (&a, 0, help_rows[i].command);
      cli_run (&b, "help", help_rows[i].command, NULL);
      assert_status (&b, 0, help_rows[i].command);
      assert_string_equal (a.out, b.out);
      assert_contains (a.out, "Example", help_rows[i].command);
      for (char **o = options; *o; o++)
        assert_contains (a.out, *o, help_rows[i].command);
      cli_result_clear (&a);
      cli_result_clear (&b);
    }
  cli_result_clear (&top);
  cli_result_clear (&help);
}

/* ---- run ---- */

/* Ensure run prints the documented JSON document, and that scan/seq of 1000 elements makes exactly
 * 1000 reads and 1000 RAM operations (by hand: one load and one add per element). */
static void
test_run_scan_seq_json_exact (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  const Json *count, *counters;
  (void) state;
  cli_run (&r, "run", "scan/seq", "--n", "1000", "--engine", "count", "--format", "json", NULL);
  assert_status (&r, 0, "run scan/seq");
  doc = json_parse (r.out);
  assert_report_document (doc);
  assert_string_equal (json_expect (json_expect (doc, "source", J_OBJECT), "name", J_STRING)->text,
                       "scan/seq:n=1000,seed=1,pages=default");
  assert_int_equal (json_expect (doc, "reports", J_ARRAY)->items->len, 1);
  count = json_report (doc, "count");
  assert_string_equal (json_expect (count, "spec", J_STRING)->text, "count");
  counters = json_expect (count, "counters", J_OBJECT);
  assert_int_equal (json_count (counters, "cpu_reads"), 1000);
  assert_int_equal (json_count (counters, "ram_ops"), 1000);
  assert_int_equal (json_count (counters, "cpu_writes"), 0);
  assert_string_equal (json_expect (json_expect (count, "units", J_OBJECT), "cpu_reads",
                                    J_STRING)->text, "count");
  /* The algorithm marks its loop as phase "scan": all of it happens there. */
  assert_int_equal (json_count (json_expect (json_expect (count, "phases", J_OBJECT), "scan",
                                             J_OBJECT), "cpu_reads"), 1000);
  cli_result_clear (&r);
}

/* Ensure the K-model scan is reachable from the command line with its phases: LeftRight at
 * n = 2048, k = 16 (reading notes V5): the up-sweep's stores cost log k + (n−k)/k = 131 over
 * n − 1 = 2047 operations, and the block goes in and out in n/k = 128 segments each. */
static void
test_run_scan_leftright_kmodel_json (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  const Json *km, *upsweep;
  (void) state;
  cli_run (&r, "run", "scan/leftright", "--n", "2048", "--engine", "kmodel:k=16", "--format",
           "json", NULL);
  assert_status (&r, 0, "run scan/leftright");
  doc = json_parse (r.out);
  assert_report_document (doc);
  km = json_report (doc, "kmodel");
  upsweep = json_expect (json_expect (km, "phases", J_OBJECT), "upsweep", J_OBJECT);
  assert_int_equal (json_count (upsweep, "T_shared_stores"), 131);
  assert_int_equal (json_count (upsweep, "W_shared_stores"), 2047);
  assert_int_equal (json_count (json_expect (km, "counters", J_OBJECT), "G"), 256);
  cli_result_clear (&r);
}

/* Ensure an algorithm takes its parameters in the spec form too (scan/leftright:k=32 is
 * --param k=32), a later --param overriding it, and that the source line names the values used. */
static void
test_run_algorithm_spec (void **state)
{
  CliResult spec = { 0 }, param = { 0 }, both = { 0 };
  (void) state;
  cli_run (&spec, "run", "scan/leftright:k=32", "--n", "64", "--engine", "count", NULL);
  cli_run (&param, "run", "scan/leftright", "--param", "k=32", "--n", "64", "--engine", "count",
           NULL);
  cli_run (&both, "run", "scan/leftright:k=32", "--param", "k=8", "--n", "64", "--engine", "count",
           NULL);
  assert_status (&spec, 0, "run scan/leftright:k=32");
  assert_contains (spec.out, "scan/leftright:n=64,seed=1,block=2048,k=32,mapping=corrected",
                   "run scan/leftright:k=32");
  assert_contains (param.out, "scan/leftright:n=64,seed=1,block=2048,k=32,mapping=corrected",
                   "run scan/leftright --param k=32");
  assert_contains (both.out, "scan/leftright:n=64,seed=1,block=2048,k=8,mapping=corrected",
                   "run scan/leftright:k=32 --param k=8");
  cli_result_clear (&spec);
  cli_result_clear (&param);
  cli_result_clear (&both);
}

/* Ensure scan/random reads twice per element (by hand: pi(i), then A[pi(i)]) and that the sizes
 * take k suffixes like engine parameters (1k = 1024). */
static void
test_run_scan_random_reads_twice (void **state)
{
  static const struct { const char *n; const char *reads; } rows[] = {
    { "1000", "2000" },
    { "1k", "2048" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      CliResult r = { 0 };
      g_autofree char *reads = NULL;
      cli_run (&r, "run", "scan/random", "--n", rows[i].n, "--engine", "count", "--format", "csv",
               NULL);
      assert_status (&r, 0, rows[i].n);
      reads = csv_value (r.out, "count", "cpu_reads");
      assert_string_equal (reads, rows[i].reads);
      cli_result_clear (&r);
    }
}

/* Ensure --machine adds machine=NAME to specs without one (footprint then takes page_bytes=4096
 * from x86-64) and leaves a spec's own machine= alone (h100's 128-byte lines; h100 has no page
 * size, which the spec gives). */
static void
test_machine_option_fills_specs (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  const char *spec;
  (void) state;
  cli_run (&r, "run", "scan/seq", "--n", "100", "--machine", "x86-64", "--engine", "footprint",
           "--engine", "footprint:machine=h100,page_bytes=2M", "--format", "json", NULL);
  assert_status (&r, 0, "run --machine");
  doc = json_parse (r.out);
  assert_report_document (doc);
  spec = json_expect (g_ptr_array_index (json_expect (doc, "reports", J_ARRAY)->items, 0), "spec",
                      J_STRING)->text;
  assert_contains (spec, "machine=x86-64", "first spec");
  assert_contains (spec, "page_bytes=4096", "first spec");
  spec = json_expect (g_ptr_array_index (json_expect (doc, "reports", J_ARRAY)->items, 1), "spec",
                      J_STRING)->text;
  assert_contains (spec, "machine=h100", "second spec");
  assert_contains (spec, "line_bytes=128", "second spec");
  cli_result_clear (&r);
}

/* Ensure the CSV output starts with the documented header. */
static void
test_csv_header (void **state)
{
  CliResult r = { 0 };
  (void) state;
  cli_run (&r, "run", "scan/seq", "--n", "10", "--format", "csv", NULL);
  assert_status (&r, 0, "run --format csv");
  if (!g_str_has_prefix (r.out, "engine,spec,phase,counter,value,unit,metric\n"))
    fail_msg ("CSV header missing:\n%s", r.out);
  cli_result_clear (&r);
}

/* Ensure --by-site breaks the counts down by the site ids of a trace, named by its site markers.
 * The trace, written here through the library: site 7 is named "partition"; reads at sites 7, 7,
 * 0, 9 and 7. So phase "partition" has 3 reads, "site 9" has 1, and the totals have 5. */
static void
test_analyze_by_site (void **state)
{
  Fixture *f = *state;
  g_autofree char *path = tmp_path (f, "sites.bin");
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_open (path, MDL_TRACE_BIN, &error);
  static const guint16 sites[] = { 7, 7, 0, 9, 7 };
  MdlCpuEvent ev[G_N_ELEMENTS (sites)];
  MdlMarker name = { .kind = MDL_MARK_SITE, .site = 7, .name = "partition" };
  MdlEventBatch batch = { .cpu = ev, .n_cpu = G_N_ELEMENTS (sites) };
  CliResult r = { 0 };
  assert_non_null (w);
  for (guint i = 0; i < G_N_ELEMENTS (sites); i++)
    ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .site = sites[i], .addr = 8 * i };
  MdlSink sink = mdl_trace_writer_sink (w);
  assert_true (sink.marker (sink.data, &name, &error));
  assert_true (sink.batch (sink.data, &batch, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  cli_run (&r, "analyze", "--engine", "count", "--by-site", "--format", "csv", path, NULL);
  assert_status (&r, 0, "analyze --by-site");
  assert_contains (r.out, "count,count,,cpu_reads,5,", "total reads");
  assert_contains (r.out, "count,count,partition,cpu_reads,3,", "reads of site 7");
  assert_contains (r.out, "count,count,site 9,cpu_reads,1,", "reads of site 9");
  cli_result_clear (&r);
}

/* Ensure --output writes the report to the file and nothing to stdout. */
static void
test_output_file (void **state)
{
  Fixture *f = *state;
  g_autofree char *path = tmp_path (f, "out.json");
  g_autofree char *text = NULL;
  g_autoptr (Json) doc = NULL;
  CliResult r = { 0 };
  cli_run (&r, "run", "scan/seq", "--n", "10", "--format", "json", "--output", path, NULL);
  assert_status (&r, 0, "run --output");
  assert_string_equal (r.out, "");
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  doc = json_parse (text);
  assert_report_document (doc);
  cli_result_clear (&r);
}

/* Ensure --native prints a time and checksum in the report document's shape, without engines. */
static void
test_run_native (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  (void) state;
  cli_run (&r, "run", "scan/seq", "--n", "1000", "--native", "--format", "json", NULL);
  assert_status (&r, 0, "run --native");
  doc = json_parse (r.out);
  json_expect (json_expect (doc, "source", J_OBJECT), "seconds", J_NUMBER);
  json_expect (doc, "checksum", J_NUMBER);
  assert_int_equal (json_expect (doc, "reports", J_ARRAY)->items->len, 0);
  cli_result_clear (&r);
}

/* ---- analyze ---- */

/* tests/data/cli/small.lackey, counted by hand: two "==123==" banner lines (skipped); I lines
 * 3 (RAM operations); L 8, L 8, L 2 (3 reads, 18 bytes); S 8 (1 write); M 4 (1 modify, whose 4
 * bytes count as read and as written). */
static const struct {
  const char *counter;
  const char *value;
} small_lackey_counts[] = {
  { "cpu_reads", "3" },     { "cpu_writes", "1" },    { "cpu_modifies", "1" },
  { "bytes_read", "22" },   { "bytes_written", "12" }, { "ram_ops", "3" },
  { "size_2", "1" },        { "size_4", "1" },        { "size_8", "3" },
  { "size_1", "0" },        { "warp_insts", "0" },
};

/* Ensure a hand-written Lackey trace gives the hand-counted numbers, and that the skipped banner
 * lines are reported on stderr. */
static void
test_analyze_lackey_exact (void **state)
{
  Fixture *f = *state;
  g_autofree char *path = data_path (f, "small.lackey");
  CliResult r = { 0 };
  cli_run (&r, "analyze", "--engine", "count", "--format", "csv", path, NULL);
  assert_status (&r, 0, "analyze small.lackey");
  for (guint i = 0; i < G_N_ELEMENTS (small_lackey_counts); i++)
    {
      g_autofree char *v = csv_value (r.out, "count", small_lackey_counts[i].counter);
      if (strcmp (v, small_lackey_counts[i].value) != 0)
        fail_msg ("%s: got %s, expected %s", small_lackey_counts[i].counter, v,
                  small_lackey_counts[i].value);
    }
  assert_contains (r.err, "small.lackey: skipped 2 lines", "skipped note");
  cli_result_clear (&r);
}

/* Ensure "-" reads standard input, under the name <stdin>. */
static void
test_analyze_stdin (void **state)
{
  Fixture *f = *state;
  g_autofree char *path = data_path (f, "small.lackey");
  g_autofree char *q_bin = g_shell_quote (models_bin ());
  g_autofree char *q_path = g_shell_quote (path);
  g_autofree char *cmd = g_strdup_printf ("%s analyze --engine count --format csv - < %s", q_bin,
                                          q_path);
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  g_autofree char *out = NULL, *err = NULL, *reads = NULL;
  int wait_status = 0;
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                             &wait_status, NULL));
  if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    fail_msg ("analyze -: %s", err);
  reads = csv_value (out, "count", "cpu_reads");
  assert_string_equal (reads, "3");
  assert_contains (err, "<stdin>: skipped 2 lines", "stdin");
}

/* Ensure a run written to a trace file and analysed from it gives the very same counters (every
 * engine, every phase) as the run analysed directly: one pipeline, with a file in between. */
static void
test_trace_file_gives_same_counters (void **state)
{
  Fixture *f = *state;
  g_autofree char *trace = tmp_path (f, "random.bin");
  g_autofree char *reads = NULL;
  CliResult direct = { 0 }, file = { 0 };
  cli_run (&direct, "run", "scan/random", "--n", "3000", "--seed", "7", "--machine", "x86-64",
           "--trace-out", trace, "--format", "csv", NULL);
  assert_status (&direct, 0, "run --trace-out");
  cli_run (&file, "analyze", "--machine", "x86-64", "--format", "csv", trace, NULL);
  assert_status (&file, 0, "analyze trace");
  reads = csv_value (direct.out, "count", "cpu_reads");
  assert_string_equal (reads, "6000");
  assert_string_equal (direct.out, file.out);
  assert_string_equal (file.err, "");
  cli_result_clear (&direct);
  cli_result_clear (&file);
}

/* ---- convert ---- */

/* Counters that survive Lackey text, which has no markers: all CPU counters. */
static const char *const cpu_counters[] = {
  "cpu_reads", "cpu_writes", "cpu_modifies", "bytes_read", "bytes_written", "ram_ops",
  "size_1", "size_2", "size_4", "size_8", "size_other",
};

/* Ensure bin -> lackey -> bin keeps every CPU counter, warns about the phase markers Lackey cannot
 * carry, and prints nothing on stdout when it is not a terminal. */
static void
test_convert_round_trip (void **state)
{
  Fixture *f = *state;
  g_autofree char *bin = tmp_path (f, "seq.bin");
  g_autofree char *lackey = tmp_path (f, "seq.lackey");
  g_autofree char *back = tmp_path (f, "seq-back.bin");
  CliResult r = { 0 }, a = { 0 }, b = { 0 };
  cli_run (&r, "run", "scan/seq", "--n", "2000", "--engine", "count", "--trace-out", bin, NULL);
  assert_status (&r, 0, "run --trace-out");
  cli_result_clear (&r);

  cli_run (&r, "convert", bin, lackey, NULL);
  assert_status (&r, 0, "convert bin lackey");
  assert_string_equal (r.out, "");
  /* Its 2 phase markers and the 2 site markers naming scan/seq's MDL_READ and MDL_OPS lines. */
  assert_contains (r.err, "dropped 4 records", "convert to lackey");
  cli_result_clear (&r);
  cli_run (&r, "convert", "--to", "bin", lackey, back, NULL);
  assert_status (&r, 0, "convert lackey bin");
  assert_string_equal (r.out, "");
  assert_string_equal (r.err, "");
  cli_result_clear (&r);

  cli_run (&a, "analyze", "--engine", "count", "--format", "csv", bin, NULL);
  cli_run (&b, "analyze", "--engine", "count", "--format", "csv", back, NULL);
  assert_status (&a, 0, "analyze original");
  assert_status (&b, 0, "analyze converted");
  for (guint i = 0; i < G_N_ELEMENTS (cpu_counters); i++)
    {
      g_autofree char *va = csv_value (a.out, "count", cpu_counters[i]);
      g_autofree char *vb = csv_value (b.out, "count", cpu_counters[i]);
      if (strcmp (va, vb) != 0)
        fail_msg ("%s: %s before, %s after bin -> lackey -> bin", cpu_counters[i], va, vb);
    }
  cli_result_clear (&a);
  cli_result_clear (&b);
}

/* Ensure convert refuses to write over its input (which would destroy it) with a usage error. */
static void
test_convert_refuses_same_file (void **state)
{
  Fixture *f = *state;
  g_autofree char *bin = tmp_path (f, "same.bin");
  CliResult r = { 0 };
  cli_run (&r, "run", "scan/seq", "--n", "10", "--trace-out", bin, NULL);
  assert_status (&r, 0, "run --trace-out");
  cli_result_clear (&r);
  cli_run (&r, "convert", bin, bin, NULL);
  assert_status (&r, 2, "convert X X");
  assert_contains (r.err, "same file", "convert X X");
  cli_result_clear (&r);
  cli_run (&r, "analyze", "--engine", "count", bin, NULL);
  assert_status (&r, 0, "input still intact");
  cli_result_clear (&r);
}

/* ---- trace ---- */

/* Ensure `models trace` keeps the traced program's output out of the report: with the report on
 * stdout (CSV here), a program that prints a marker line has it on stderr by default, and in the
 * --program-output file (with its stderr line too) when one is named, never on stdout. Needs
 * valgrind; without it the test says so and is skipped. */
static void
test_trace_keeps_program_output_apart (void **state)
{
  static const char marker[] = "models-trace-marker-5e1d";
  Fixture *f = *state;
  g_autofree char *valgrind = g_find_program_in_path ("valgrind");
  g_autofree char *sh = g_find_program_in_path ("sh");
  g_autofree char *out_file = tmp_path (f, "program.out");
  g_autofree char *script = g_strdup_printf ("echo %s; echo %s-err >&2", marker, marker);
  g_autofree char *saved = NULL;
  CliResult r = { 0 };
  if (valgrind == NULL || sh == NULL)
    {
      print_message ("SKIPPED test_trace_keeps_program_output_apart: %s not found (`make deps` "
                     "installs valgrind)\n", valgrind == NULL ? "valgrind" : "sh");
      skip ();
    }
  cli_run (&r, "trace", "--engine", "count", "--format", "csv", "--", sh, "-c", script, NULL);
  assert_status (&r, 0, "trace");
  if (strstr (r.out, marker) != NULL)
    fail_msg ("the program's output is in the report on stdout:\n%s", r.out);
  if (!g_str_has_prefix (r.out, "engine,spec,phase,counter,value,unit,metric\n"))
    fail_msg ("stdout does not start with the CSV header:\n%s", r.out);
  assert_contains (r.err, marker, "trace: the program's stdout on stderr");
  assert_contains (r.err, "models-trace-marker-5e1d-err", "trace: the program's stderr");
  cli_result_clear (&r);

  cli_run (&r, "trace", "--engine", "count", "--format", "csv", "--program-output", out_file,
           "--", sh, "-c", script, NULL);
  assert_status (&r, 0, "trace --program-output");
  if (strstr (r.out, marker) != NULL || strstr (r.err, marker) != NULL)
    fail_msg ("the program's output escaped --program-output:\nstdout: %s\nstderr: %s", r.out,
              r.err);
  assert_true (g_str_has_prefix (r.out, "engine,spec,phase,counter,value,unit,metric\n"));
  assert_true (g_file_get_contents (out_file, &saved, NULL, NULL));
  assert_string_equal (saved, "models-trace-marker-5e1d\nmodels-trace-marker-5e1d-err\n");
  cli_result_clear (&r);

  /* The report's own file cannot also take the program's output. */
  cli_run (&r, "trace", "--output", out_file, "--program-output", out_file, "--", sh, "-c", "true",
           NULL);
  assert_status (&r, 2, "trace -o X -P X");
  assert_contains (r.err, "--program-output", "trace -o X -P X");
  cli_result_clear (&r);
}

/* ---- list and demo ---- */

/* Ensure list names the engines, algorithms and presets, in both formats. */
static void
test_list (void **state)
{
  static const char *const names[] = { "count", "footprint", "page_bytes", "scan/seq",
                                       "scan/random", "x86-64", "h100", "lackey", "csv" };
  CliResult table = { 0 }, json = { 0 };
  g_autoptr (Json) doc = NULL;
  (void) state;
  cli_run (&table, "list", NULL);
  assert_status (&table, 0, "list");
  cli_run (&json, "list", "--format", "json", NULL);
  assert_status (&json, 0, "list --format json");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      assert_contains (table.out, names[i], "list");
      assert_contains (json.out, names[i], "list --format json");
    }
  doc = json_parse (json.out);
  json_expect (doc, "engines", J_ARRAY);
  json_expect (doc, "algorithms", J_ARRAY);
  json_expect (doc, "machines", J_ARRAY);
  json_expect (doc, "trace_formats", J_ARRAY);
  json_expect (doc, "output_formats", J_ARRAY);
  cli_result_clear (&table);
  cli_result_clear (&json);
}

/* Ensure `list --format json` gives every engine class the counters its engine reports (the
 * library's own report of an unfed engine of the default spec), each with its unit, kind,
 * description and metric, in the report's order. */
static void
test_list_json_has_every_engines_counters (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  guint n_classes = 0;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n_classes);
  const Json *engines;
  (void) state;
  cli_run (&r, "list", "--format", "json", NULL);
  assert_status (&r, 0, "list --format json");
  doc = json_parse (r.out);
  engines = json_expect (doc, "engines", J_ARRAY);
  assert_int_equal (engines->items->len, n_classes);
  for (guint i = 0; i < n_classes; i++)
    {
      const Json *e = g_ptr_array_index (engines->items, i);
      const Json *counters = json_expect (e, "counters", J_ARRAY);
      g_autoptr (GError) error = NULL;
      g_autoptr (MdlEngine) engine = mdl_engine_new (classes[i]->name, &error);
      g_autoptr (MdlReport) report = NULL;
      assert_non_null (engine);
      report = mdl_engine_report (engine);
      assert_string_equal (json_expect (e, "name", J_STRING)->text, classes[i]->name);
      assert_string_equal (json_expect (e, "spec", J_STRING)->text, mdl_engine_spec (engine));
      if (counters->items->len != mdl_report_n_counters (report) || counters->items->len == 0)
        fail_msg ("%s: %u counters listed, its report has %u", classes[i]->name,
                  counters->items->len, mdl_report_n_counters (report));
      for (guint k = 0; k < counters->items->len; k++)
        {
          const Json *c = g_ptr_array_index (counters->items, k);
          const MdlCounter *want = mdl_report_counter (report, k);
          const Json *metric = json_get (c, "metric");
          const char *kind = want->is_real ? "real" : want->is_peak ? "peak" : "count";
          if (strcmp (json_expect (c, "name", J_STRING)->text, want->name) != 0
              || strcmp (json_expect (c, "unit", J_STRING)->text, want->unit) != 0
              || strcmp (json_expect (c, "kind", J_STRING)->text, kind) != 0
              || strcmp (json_expect (c, "description", J_STRING)->text, want->description) != 0
              || metric == NULL
              || (want->metric ? metric->type != J_STRING || strcmp (metric->text, want->metric)
                               : metric->type != J_NULL))
            fail_msg ("%s: counter %u listed as \"%s\", the report has \"%s\" (%s, %s, %s)",
                      classes[i]->name, k, json_expect (c, "name", J_STRING)->text, want->name,
                      want->unit, kind, want->metric ? want->metric : "no metric");
        }
    }
  cli_result_clear (&r);
}

/* Ensure `list --engine SPEC` lists that engine only, with the counters that the spec's own
 * parameters give: vat with d=2 has layers 0..2 (the root is layer d) and, with curve=1 and
 * curve_max=4, one curve counter per W from d+1 = 3 to 4 (docs/models/vat.md); and that each
 * counter's table row carries its unit, description and hardware metric. */
static void
test_list_engine_shows_the_specs_counters (void **state)
{
  CliResult r = { 0 };
  g_autoptr (Json) doc = NULL;
  const Json *engines, *counters;
  g_autoptr (GString) names = g_string_new (NULL);
  (void) state;
  cli_run (&r, "list", "--engine", "vat:d=2,curve=1,curve_max=4", "--format", "json", NULL);
  assert_status (&r, 0, "list --engine vat:... --format json");
  doc = json_parse (r.out);
  engines = json_expect (doc, "engines", J_ARRAY);
  assert_int_equal (engines->items->len, 1);
  assert_null (json_get (doc, "algorithms"));
  counters = json_expect (g_ptr_array_index (engines->items, 0), "counters", J_ARRAY);
  for (guint k = 0; k < counters->items->len; k++)
    g_string_append_printf (names, " %s",
                            json_expect (g_ptr_array_index (counters->items, k), "name",
                                         J_STRING)->text);
  assert_contains (names->str, " tc_misses_l2 ", "vat d=2 layers");
  assert_contains (names->str, " tc_misses_w3 tc_misses_w4", "vat curve W=3..4");
  if (strstr (names->str, "tc_misses_l3") || strstr (names->str, "tc_misses_w5"))
    fail_msg ("vat:d=2,curve_max=4 lists counters it cannot have:%s", names->str);
  cli_result_clear (&r);

  /* The table: one row per counter, NAME UNIT DESCRIPTION METRIC; coalesce's global-load
   * sectors are Nsight Compute's l1tex sector count (docs/models/gpu.md). */
  cli_run (&r, "list", "--engine", "coalesce", NULL);
  assert_status (&r, 0, "list --engine coalesce");
  if (!g_regex_match_simple ("^ +gld_sectors +count +global loads: .* "
                             "+l1tex__t_sectors_pipe_lsu_mem_global_op_ld\\.sum$",
                             r.out, G_REGEX_MULTILINE, 0))
    fail_msg ("list --engine coalesce: no gld_sectors row with unit and metric in:\n%s", r.out);
  if (strstr (r.out, "Algorithms") != NULL || strstr (r.out, "\nvat") != NULL)
    fail_msg ("list --engine coalesce lists more than coalesce:\n%s", r.out);
  cli_result_clear (&r);

  /* A mistyped spec is an error, as for run and analyze. */
  cli_run (&r, "list", "--engine", "vt", NULL);
  assert_status (&r, 1, "list --engine vt");
  assert_contains (r.err, "unknown engine \"vt\"", "list --engine vt");
  assert_contains (r.err, "(did you mean \"vat\"?)", "list --engine vt");
  assert_string_equal (r.out, "");
  cli_result_clear (&r);
}

/* Ensure the demo runs its rows and says what to try next, and that its GPU table carries the
 * engines' numbers (reduce/tree at n = 2^20 under agpu:b=32,k=16 has the notes' I/O, 49,935).
 * (Without its short VAT experiment, which takes a minute; tests/test-fit.c runs a small
 * experiment through the library.) */
static void
test_demo (void **state)
{
  CliResult r = { 0 };
  (void) state;
  cli_run (&r, "demo", "--no-experiment", NULL);
  assert_status (&r, 0, "demo");
  assert_contains (r.out, "scan/seq", "demo");
  assert_contains (r.out, "scan/random", "demo");
  assert_contains (r.out, "2^20", "demo");
  assert_contains (r.out, "models list", "demo");
  assert_contains (r.out, "reduce/tree n=2^20", "demo");
  assert_contains (r.out, "49,935", "demo");
  assert_string_equal (r.err, "");
  cli_result_clear (&r);
}

/* Ensure the demo keeps its experiment's files in one folder under the user's cache folder
 * (XDG_CACHE_HOME/models/demo), not in a new temporary folder per run, and checks that folder
 * before the minute of work: with XDG_CACHE_HOME a plain file, it stops with a message naming
 * the folder, within the time of the first table. */
static void
test_demo_keeps_its_files_in_the_cache_folder (void **state)
{
  Fixture *f = *state;
  CliResult r = { 0 };
  g_autofree char *file = g_build_filename (f->tmp, "not-a-folder", NULL);
  g_autofree char *expect = g_build_filename (file, "models", "demo", NULL);
  g_autofree char *saved = g_strdup (g_getenv ("XDG_CACHE_HOME"));
  assert_true (g_file_set_contents (file, "", 0, NULL));
  g_setenv ("XDG_CACHE_HOME", file, TRUE);
  cli_run (&r, "demo", NULL);
  if (saved)
    g_setenv ("XDG_CACHE_HOME", saved, TRUE);
  else
    g_unsetenv ("XDG_CACHE_HOME");
  assert_status (&r, 1, "demo with XDG_CACHE_HOME a file");
  assert_contains (r.err, expect, "demo");
  assert_contains (r.err, "cannot create the demo's folder", "demo");
  cli_result_clear (&r);
}

/* Ensure `models experiment gpu` teaches its options and says what is missing, joins the
 * synthetic GPU run (tests/data/gpu-experiment, its predictions read, nothing run) keeping the
 * cases a CASE names, and refuses a size range that does not run between powers of two. */
static void
test_experiment_gpu (void **state)
{
  static const char *const options[] = { "--measured", "--cases", "--n", "--predictions",
                                          "--predict-only", "--no-compute", "--jobs",
                                          "--min-fit-n", "--output-dir", "Example" };
  CliResult help = { 0 }, bare = { 0 }, half = { 0 }, csv = { 0 }, range = { 0 };
  g_auto (GStrv) lines = NULL;
  (void) state;
  cli_run (&help, "experiment", "gpu", "--help", NULL);
  assert_status (&help, 0, "experiment gpu --help");
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    assert_contains (help.out, options[i], "experiment gpu --help");
  cli_run (&bare, "experiment", "gpu", NULL);
  assert_status (&bare, 2, "experiment gpu");
  assert_contains (bare.err, "models experiment gpu: give --measured DIR", "experiment gpu");
  cli_run (&half, "experiment", "gpu", "--predict-only", "--cases", "cases.txt", NULL);
  assert_status (&half, 2, "experiment gpu --predict-only");
  assert_contains (half.err, "--predict-only needs --cases and --predictions", "--predict-only");
  cli_run (&csv, "experiment", "gpu", "--measured", "tests/data/gpu-experiment", "--predictions",
           "tests/data/gpu-experiment/predictions.csv", "--no-compute", "--format", "csv",
           "reduce/tree", NULL);
  assert_status (&csv, 0, "experiment gpu --format csv");
  lines = g_strsplit (g_strstrip (csv.out), "\n", -1);
  assert_int_equal (g_strv_length (lines), 1 + 3);
  assert_contains (lines[2], "\"reduce/tree:n=65536,b=32\",reduce/tree,\"b=32\",65536,0,1,1,1,1,1,1,3,",
                   "experiment gpu --format csv");
  cli_run (&range, "experiment", "gpu", "--predict-only", "--cases", "-", "--predictions",
           "/nonexistent/p.csv", "--n", "2^12..2^10", NULL);
  assert_status (&range, 1, "experiment gpu --n 2^12..2^10");
  assert_contains (range.err, "range \"2^12..2^10\" must run from a power of two", "--n");
  cli_result_clear (&help);
  cli_result_clear (&bare);
  cli_result_clear (&half);
  cli_result_clear (&csv);
  cli_result_clear (&range);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_exit_codes_and_messages),
    cmocka_unit_test (test_small_experiment_bounds_are_not_zero),
    cmocka_unit_test (test_demo_keeps_its_files_in_the_cache_folder),
    cmocka_unit_test (test_help_of_every_command),
    cmocka_unit_test (test_run_scan_seq_json_exact),
    cmocka_unit_test (test_analyze_by_site),
    cmocka_unit_test (test_run_scan_random_reads_twice),
    cmocka_unit_test (test_run_scan_leftright_kmodel_json),
    cmocka_unit_test (test_run_algorithm_spec),
    cmocka_unit_test (test_machine_option_fills_specs),
    cmocka_unit_test (test_csv_header),
    cmocka_unit_test (test_output_file),
    cmocka_unit_test (test_run_native),
    cmocka_unit_test (test_analyze_lackey_exact),
    cmocka_unit_test (test_analyze_stdin),
    cmocka_unit_test (test_trace_file_gives_same_counters),
    cmocka_unit_test (test_convert_round_trip),
    cmocka_unit_test (test_convert_refuses_same_file),
    cmocka_unit_test (test_trace_keeps_program_output_apart),
    cmocka_unit_test (test_list),
    cmocka_unit_test (test_list_json_has_every_engines_counters),
    cmocka_unit_test (test_list_engine_shows_the_specs_counters),
    cmocka_unit_test (test_demo),
    cmocka_unit_test (test_experiment_gpu),
  };
  return cmocka_run_group_tests (tests, group_setup, group_teardown);
}
