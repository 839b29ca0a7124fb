/* Every JSON document the command can write is valid JSON (issue 19, item 8), checked by a strict
 * validator (test_json_check in tests/helpers.c; GLib has no JSON parser), with hostile names:
 * file and folder names holding bytes that are not UTF-8, quotes, backslashes, a newline and a
 * control character. The validator itself is tested first, on documents written by hand. Runs
 * $MODELS_BIN (default build/bin/models). */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

/* Rows: a document and whether it is valid JSON, by RFC 8259. */
static const struct {
  const char *text;
  gboolean valid;
} check_rows[] = {
  { "{}", TRUE },
  { " [1, -0.5, 2e10, 1E-3, true, false, null, \"a\\u00e9\\n\"] ", TRUE },
  { "{\"k\": {\"n\": [[]]}}", TRUE },
  { "\"\xc3\xa9\"", TRUE },                       /* é in UTF-8 */
  { "\"\\ud83d\\ude00\"", TRUE },                 /* a surrogate pair */
  { "\"bad\xff\xfe\"", FALSE },                   /* bytes that are not UTF-8 */
  { "\"a\nb\"", FALSE },                          /* a raw newline in a string */
  { "\"\\x41\"", FALSE },                         /* not a JSON escape */
  { "\"\\ud83d\"", FALSE },                       /* a lone high surrogate */
  { "[01]", FALSE },                              /* a leading zero */
  { "[NaN]", FALSE },
  { "[0x10]", FALSE },
  { "[1.]", FALSE },
  { "{\"a\" 1}", FALSE },
  { "{\"a\": 1,}", FALSE },
  { "{} {}", FALSE },
  { "", FALSE },
};

/* Ensure the validator takes what RFC 8259 takes and refuses the rest. */
static void
test_validator_is_strict (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (check_rows); i++)
    {
      g_autofree char *why = NULL;
      gboolean ok = test_json_check (check_rows[i].text, strlen (check_rows[i].text), &why);
      if (ok != check_rows[i].valid)
        fail_msg ("row %u (%s): %s", i, check_rows[i].text, ok ? "accepted" : why);
    }
}

static const char *
models_bin (void)
{
  const char *bin = g_getenv ("MODELS_BIN");
  return bin && *bin ? bin : "build/bin/models";
}

/* Runs `models ARGS` and checks that it exits with @status and that its standard output, or the
 * file @output_file when not NULL, is valid JSON. */
static void
check_command_status (const char *what, const char *const *args, const char *output_file,
                      int expect)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL, *err = NULL, *why = NULL;
  gint status = 0;
  g_ptr_array_add (argv, (gpointer) models_bin ());
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                     &status, &error))
    fail_msg ("%s: cannot run %s: %s", what, models_bin (), error->message);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != expect)
    fail_msg ("%s: exit status %d, expected %d: %s", what, WEXITSTATUS (status), expect, err);
  if (output_file)
    {
      g_free (out);
      if (!g_file_get_contents (output_file, &out, NULL, &error))
        fail_msg ("%s: %s", what, error->message);
    }
  if (!test_json_check (out, strlen (out), &why))
    fail_msg ("%s: not valid JSON: %s\n%s", what, why, out);
}

static void
check_command (const char *what, const char *const *args, const char *output_file)
{
  check_command_status (what, args, output_file, 0);
}

/* The hostile part of every name: not UTF-8, a quote, a backslash, a newline, a control byte,
 * and a valid é. */
#define HOSTILE "h\xff\xfe\"q\\b\nl\x01-\xc3\xa9"

static char *
copy_to (const char *from, const char *dir, const char *name)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  char *to = g_build_filename (dir, name, NULL);
  assert_true (g_file_get_contents (from, &text, &len, NULL));
  assert_true (g_file_set_contents (to, text, (gssize) len, NULL));
  return to;
}

/* Copies the files of folder @from into a new folder @name under @dir. */
static char *
copy_dir (const char *from, const char *dir, const char *name)
{
  char *to = g_build_filename (dir, name, NULL);
  g_autoptr (GDir) d = g_dir_open (from, 0, NULL);
  const char *f;
  assert_non_null (d);
  assert_int_equal (g_mkdir (to, 0755), 0);
  while ((f = g_dir_read_name (d)))
    {
      g_autofree char *src = g_build_filename (from, f, NULL);
      g_autofree char *dst = copy_to (src, to, f);
    }
  return to;
}

/* Ensure every command that writes JSON writes valid JSON when the names it reports are hostile:
 * analyze (a Lackey, a binary and a gzip trace), run (instrumented, with --trace-out, --by-site
 * and native), list (all, and one engine), measure and experiment gpu (a hostile measured
 * folder), experiment vat (a hostile --output-dir, whose vat.json is checked too), trace (a
 * hostile program name, when Valgrind is installed), and --output to a hostile file. */
static void
test_every_json_output_is_valid_with_hostile_names (void **state)
{
  g_autofree char *dir = test_temp_dir ();
  g_autofree char *lackey = copy_to ("tests/data/cli/small.lackey", dir, HOSTILE ".lackey");
  g_autofree char *bin = g_build_filename (dir, HOSTILE ".bin", NULL);
  g_autofree char *gz = g_build_filename (dir, HOSTILE ".bin.gz", NULL);
  g_autofree char *out = g_build_filename (dir, HOSTILE ".json", NULL);
  g_autofree char *measured = copy_dir ("tests/data/gpu-measured", dir, HOSTILE "-m");
  g_autofree char *gpu = copy_dir ("tests/data/gpu-experiment", dir, HOSTILE "-g");
  g_autofree char *predictions = g_build_filename (gpu, "predictions.csv", NULL);
  g_autofree char *vat_dir = g_build_filename (dir, HOSTILE "-vat", NULL);
  g_autofree char *vat_json = g_build_filename (vat_dir, "vat.json", NULL);
  g_autofree char *valgrind = g_find_program_in_path ("valgrind");
  g_autofree char *prog = NULL;
  (void) state;

  {
    const char *a[] = { "run", "scan/seq", "--n", "1k", "--format", "json", "--trace-out", bin,
                        NULL };
    check_command ("run --trace-out", a, NULL);
  }
  {
    const char *a[] = { "run", "scan/seq", "--n", "1k", "--engine", "count", "--trace-out", gz,
                        "--format", "json", "--output", out, NULL };
    check_command ("run --output", a, out);
  }
  {
    const char *a[] = { "run", "scan/random", "--n", "1k", "--native", "--format", "json", NULL };
    check_command ("run --native", a, NULL);
  }
  {
    const char *a[] = { "run", "scan/leftright", "--n", "2048", "--engine", "kmodel:k=16",
                        "--engine", "vat:curve=1", "--by-site", "--format", "json", NULL };
    check_command ("run --by-site", a, NULL);
  }
  {
    const char *a[] = { "analyze", "--format", "json", lackey, NULL };
    check_command ("analyze lackey", a, NULL);
  }
  {
    const char *a[] = { "analyze", "--engine", "cache", "--engine", "vat", "--format", "json",
                        bin, NULL };
    check_command ("analyze bin", a, NULL);
  }
  {
    const char *a[] = { "analyze", "--format", "json", gz, NULL };
    check_command ("analyze gzip", a, NULL);
  }
  {
    const char *a[] = { "list", "--format", "json", NULL };
    check_command ("list", a, NULL);
  }
  {
    const char *a[] = { "list", "--engine", "cache:classify=1", "--format", "json", NULL };
    check_command ("list --engine", a, NULL);
  }
  {
    /* exit 1: a case of tests/data/gpu-measured failed its CUDA check, on purpose */
    const char *a[] = { "measure", "--measured", measured, "--format", "json", NULL };
    check_command_status ("measure", a, NULL, 1);
  }
  {
    const char *a[] = { "experiment", "gpu", "--measured", gpu, "--predictions", predictions,
                        "--no-compute", "--format", "json", NULL };
    check_command ("experiment gpu", a, NULL);
  }
  {
    const char *a[] = { "experiment", "vat", "--max-bytes", "64k", "--reps", "1", "--algos",
                        "scan/seq", "--format", "json", "--output-dir", vat_dir, NULL };
    check_command ("experiment vat", a, NULL);
    check_command ("experiment vat: vat.json", (const char *const[]) { "list", NULL }, vat_json);
  }
  if (valgrind == NULL)
    {
      print_message ("SKIP: models trace (valgrind is not installed)\n");
      return;
    }
  prog = copy_to ("/bin/true", dir, HOSTILE "-prog");
  g_chmod (prog, 0755);
  {
    const char *a[] = { "trace", "--engine", "count", "--format", "json", "--", prog, NULL };
    check_command ("trace", a, NULL);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_validator_is_strict),
    cmocka_unit_test (test_every_json_output_is_valid_with_hostile_names),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
