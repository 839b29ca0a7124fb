/* Every shell example of the documentation is a test. The rules (docs/contributing.md, "Examples
 * in the documentation are tests"):
 *
 * - The pages are README.md, every .md under docs/, and the "Examples:" of `models COMMAND --help`
 *   for every command `models --help` lists (help_not_run below names the ones that cannot run).
 *   MODELS_DOCS=DIR restricts the run to the pages under DIR (`make labs`: docs/course), without
 *   README.md and the helps. Every fenced block names its
 *   language; a block without one fails the test, so an example cannot slip past unrun. Blocks
 *   tagged `sh` are shell examples, anything else (`text`, `json`, `c`) is not run.
 * - `<!-- not-run: REASON -->` on the last non-blank line before a block keeps it from running;
 *   the test counts and lists every such block with its reason.
 * - A block with lines starting with "$ " is a transcript: each "$ " line is a command, the lines
 *   after it are its output (stdout and stderr together), matched in order, each against a whole
 *   line of the output with "..." standing for any text; "[status N]" gives the exit status
 *   (default 0). Any other block runs line by line (a trailing "\" continues a line; "#" lines
 *   are comments), and every command must exit with 0.
 * - Sizes are shrunk, in commands whose output the page does not show only: --n above 1M becomes
 *   1M; `models experiment vat` gets --max-bytes 64k and --reps 1, and --algos scan/seq,scan/random
 *   when it names no algorithms (each size is timed for 0.05 s at least, so the number of points
 *   sets its time), but not with --from (a refit takes its journal's options and runs nothing);
 *   `models demo` gets --no-experiment.
 * - The blocks of one page run in order in one scratch directory, with `models` on the PATH and the
 *   fixtures listed in fixture_script below, so that a file an example writes is there for the next.
 */
#include "helpers.h"

#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#define SIZE_CAP ((guint64) 1 << 20)  /* --n above this becomes this */
#define EXPERIMENT_BYTES "64k"         /* --max-bytes of `models experiment vat` */
#define EXPERIMENT_ALGOS "scan/seq,scan/random"   /* its --algos when it names none */

/* The files an example may name, made in each page's scratch directory; @SRC@ is the source tree
 * and @B@ the build directory. `prog` is a program that does nothing, so that Valgrind examples
 * run fast (`sort` too, a script that does nothing); prog.lackey is a small valid Lackey trace,
 * trace.bin the same in the binary format and killed.bin that one cut short as a killed run leaves
 * it, bad.lackey one with a bad line 3, trace one whose addresses fit a small translation tree
 * (under 64 KiB). */
static const char fixture_script[] =
  "set -e\n"
  "ln -s /bin/true prog\n"
  "cp '@SRC@/tests/data/cli/small.lackey' prog.lackey\n"
  "gzip -c prog.lackey > prog.lackey.gz\n"
  "cp '@SRC@/tests/data/cli/bad.lackey' bad.lackey\n"
  "printf ' L 0,8\\n S 1040,8\\n L 2fc0,8\\n L 0,8\\n' > trace\n"
  "models convert prog.lackey trace.bin\n"
  "head -c -5 trace.bin > killed.bin\n"
  "printf '#!/bin/sh\\nexit 0\\n' > sort && chmod +x sort\n"
  "ln -s '@SRC@/tools' tools\n"
  "ln -s '@SRC@/docs' docs\n"
  "ln -s '@B@' build\n";

typedef struct {
  char *text;       /* the command, continuation lines joined by their newlines */
  guint line;       /* where it starts in the page */
  GPtrArray *want;  /* expected output lines (char *), empty when the page shows none */
  int status;       /* expected exit status */
  gboolean shown;   /* the page shows its output: no shrinking */
} DocCommand;

typedef struct {
  GPtrArray *commands;   /* DocCommand *, in page order */
  GPtrArray *not_run;    /* char *: "PAGE:LINE (REASON)" */
  GString *errors;       /* malformed blocks */
} DocPage;

static void
doc_command_free (gpointer p)
{
  DocCommand *c = p;
  g_free (c->text);
  g_ptr_array_unref (c->want);
  g_free (c);
}

static DocCommand *
doc_command_new (const char *text, guint line)
{
  DocCommand *c = g_new0 (DocCommand, 1);
  c->text = g_strdup (text);
  c->line = line;
  c->want = g_ptr_array_new_with_free_func (g_free);
  return c;
}

static void
doc_page_free (DocPage *p)
{
  g_ptr_array_unref (p->commands);
  g_ptr_array_unref (p->not_run);
  g_string_free (p->errors, TRUE);
  g_free (p);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (DocPage, doc_page_free)

/* Splits the lines of one `sh` block (starting at page line @first) into commands. */
static void
block_commands (DocPage *page, GPtrArray *lines, guint first)
{
  gboolean transcript = FALSE;
  DocCommand *cur = NULL;
  for (guint i = 0; i < lines->len; i++)
    if (g_str_has_prefix (lines->pdata[i], "$ "))
      transcript = TRUE;
  for (guint i = 0; i < lines->len; i++)
    {
      const char *l = lines->pdata[i];
      g_autoptr (GString) cmd = NULL;
      guint line = first + i;
      int status;
      if (transcript && !g_str_has_prefix (l, "$ "))
        {
          if (cur == NULL)
            g_string_append_printf (page->errors, "line %u: output before the first \"$ \"\n",
                                    line);
          else if (sscanf (l, "[status %d]", &status) == 1)
            cur->status = status;
          else if (*l)
            g_ptr_array_add (cur->want, g_strdup (l));
          continue;
        }
      if (!transcript)
        {
          g_autofree char *t = g_strstrip (g_strdup (l));
          if (*t == '\0' || t[0] == '#')
            continue;
        }
      cmd = g_string_new (transcript ? l + 2 : l);
      while (cmd->len && cmd->str[cmd->len - 1] == '\\' && i + 1 < lines->len)
        g_string_append_printf (cmd, "\n%s", (const char *) lines->pdata[++i]);
      cur = doc_command_new (cmd->str, line);
      cur->shown = transcript;
      g_ptr_array_add (page->commands, cur);
    }
}

/* Reads the fenced blocks of @text (page @name). */
static DocPage *
doc_page_parse (const char *name, const char *text)
{
  DocPage *page = g_new0 (DocPage, 1);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GPtrArray) block = NULL;
  g_autofree char *lang = NULL, *reason = NULL;
  const char *last = "";
  guint indent = 0, start = 0;
  page->commands = g_ptr_array_new_with_free_func (doc_command_free);
  page->not_run = g_ptr_array_new_with_free_func (g_free);
  page->errors = g_string_new (NULL);
  for (guint i = 0; lines[i]; i++)
    {
      const char *l = lines[i], *s = l;
      while (*s == ' ')
        s++;
      if (block == NULL && g_str_has_prefix (s, "```"))
        {
          const char *tag = strstr (last, "<!-- not-run:");
          indent = (guint) (s - l);
          start = i + 1;
          g_free (lang);
          lang = g_strstrip (g_strdup (s + 3));
          if (*lang == '\0')
            g_string_append_printf (page->errors, "%s:%u: a fenced block without a language "
                                    "(sh for a shell example, text for anything else)\n", name,
                                    start);
          g_clear_pointer (&reason, g_free);
          if (tag)
            {
              const char *end = strstr (tag, "-->");
              tag += strlen ("<!-- not-run:");
              reason = g_strstrip (g_strndup (tag, end ? (gsize) (end - tag) : strlen (tag)));
            }
          block = g_ptr_array_new_with_free_func (g_free);
        }
      else if (block && g_str_has_prefix (s, "```"))
        {
          if (strcmp (lang, "sh") == 0 && reason)
            g_ptr_array_add (page->not_run, g_strdup_printf ("%s:%u (%s)", name, start, reason));
          else if (strcmp (lang, "sh") == 0)
            block_commands (page, block, start + 1);
          g_clear_pointer (&block, g_ptr_array_unref);
        }
      else if (block)
        {
          guint drop = 0;
          while (drop < indent && l[drop] == ' ')
            drop++;
          g_ptr_array_add (block, g_strdup (l + drop));
        }
      if (*s)
        last = l;
    }
  if (block)
    g_string_append_printf (page->errors, "%s:%u: the block is never closed\n", name, start);
  return page;
}

/* ---- shrinking ---- */

/* A size as the command takes it (decimal with an optional k, M or G suffix); G_MAXUINT64 when
 * it is not one. */
static guint64
size_value (const char *s)
{
  char *end;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (end == s)
    return G_MAXUINT64;
  switch (*end)
    {
    case 'k': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    default: return v;
    }
}

static gboolean
cap_n (const GMatchInfo *m, GString *out, gpointer data)
{
  g_autofree char *opt = g_match_info_fetch (m, 1), *val = g_match_info_fetch (m, 2);
  (void) data;
  if (size_value (val) > SIZE_CAP && size_value (val) != G_MAXUINT64)
    g_string_append_printf (out, "%s 1M", opt);
  else
    g_string_append_printf (out, "%s %s", opt, val);
  return FALSE;
}

/* The command as the test runs it: @c's text with the size rules of the header applied. */
static char *
shrink (const DocCommand *c)
{
  g_autoptr (GRegex) n_re = g_regex_new ("(--n|-n) +([0-9]+[kMG]?)\\b", 0, 0, NULL);
  g_autoptr (GRegex) bytes_re = g_regex_new ("--max-bytes +[0-9]+[kMG]?", 0, 0, NULL);
  g_autoptr (GRegex) reps_re = g_regex_new ("--reps +[0-9]+", 0, 0, NULL);
  g_autoptr (GRegex) vat_re = g_regex_new ("models experiment vat", 0, 0, NULL);
  g_autoptr (GRegex) demo_re = g_regex_new ("models demo(?! --no-experiment)", 0, 0, NULL);
  g_autofree char *a = NULL, *b = NULL, *d = NULL;
  if (c->shown)
    return g_strdup (c->text);
  a = g_regex_replace_eval (n_re, c->text, -1, 0, 0, cap_n, NULL, NULL);
  if (strstr (a, "models experiment vat") && !strstr (a, "--from"))   /* a refit runs nothing */
    {
      b = g_regex_replace_literal (bytes_re, a, -1, 0, "", 0, NULL);
      g_free (a);
      a = g_regex_replace_literal (reps_re, b, -1, 0, "", 0, NULL);
      g_free (b);
      b = g_regex_replace_literal (vat_re, a, -1, 0,
                                   strstr (a, "--algos")
                                   ? "models experiment vat --max-bytes " EXPERIMENT_BYTES
                                     " --reps 1"
                                   : "models experiment vat --max-bytes " EXPERIMENT_BYTES
                                     " --reps 1 --algos " EXPERIMENT_ALGOS, 0, NULL);
      g_free (a);
      a = g_steal_pointer (&b);
    }
  d = g_regex_replace_literal (demo_re, a, -1, 0, "models demo --no-experiment", 0, NULL);
  return g_steal_pointer (&d);
}

/* ---- matching ---- */

/* TRUE when the whole line @have (blanks at either end aside) matches @want, where "..." in
 * @want stands for any text and a run of blanks for any run of blanks: a table's columns widen
 * when an engine gains a longer counter name, and a page must not break for that. */
static gboolean
line_matches (const char *want, const char *have)
{
  g_auto (GStrv) parts = g_strsplit (want, "...", -1);
  g_autoptr (GString) re = g_string_new ("^\\s*");
  g_autoptr (GRegex) regex = NULL;
  for (guint i = 0; parts[i]; i++)
    {
      g_auto (GStrv) words = g_regex_split_simple ("\\s+", parts[i], 0, 0);
      if (i)
        g_string_append (re, ".*");
      gboolean first = TRUE;
      for (guint w = 0; words[w]; w++)
        if (*words[w])
          {
            g_autofree char *t = g_regex_escape_string (words[w], -1);
            g_string_append (re, first ? "" : "\\s+");
            g_string_append (re, t);
            first = FALSE;
          }
    }
  g_string_append (re, "\\s*$");
  regex = g_regex_new (re->str, 0, 0, NULL);
  return regex && g_regex_match (regex, have, 0, NULL);
}

/* The first line of @want that has no match in @output after the match of the one before it, or
 * NULL when all of them match in order. Walks the output once, line by line: an example may
 * print megabytes (a trace converted to stdout). */
static const char *
first_unmatched (const GPtrArray *want, const char *output)
{
  const char *line = output;
  guint i = 0;
  while (i < want->len && *line)
    {
      const char *end = strchr (line, '\n');
      g_autofree char *have = g_strndup (line, end ? (gsize) (end - line) : strlen (line));
      if (line_matches (want->pdata[i], have))
        i++;
      line = end ? end + 1 : line + strlen (line);
    }
  return i < want->len ? want->pdata[i] : NULL;
}

/* ---- running ---- */

static char *
absolute (const char *path)
{
  g_autofree char *cwd = g_get_current_dir ();
  return g_path_is_absolute (path) ? g_strdup (path) : g_build_filename (cwd, path, NULL);
}

/* Runs @script with sh in @dir, stdout and stderr together into *@output; returns the status. */
static int
sh_run (const char *dir, const char *script, char **output)
{
  g_autofree char *bin = absolute (g_getenv ("MODELS_BIN") ? g_getenv ("MODELS_BIN")
                                                            : "build/bin/models");
  g_autofree char *bindir = g_path_get_dirname (bin);
  g_autofree char *path = g_strdup_printf ("%s:%s", bindir, g_getenv ("PATH"));
  g_autofree char *wrapped = g_strdup_printf ("{\n%s\n} 2>&1", script);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "PATH", path, TRUE);
  char *argv[] = { (char *) "/bin/sh", (char *) "-c", wrapped, NULL };
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  if (!g_spawn_sync (dir, argv, env, G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL, output, NULL,
                     &wait_status, &error))
    fail_msg ("cannot run /bin/sh: %s", error->message);
  return WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

static char *
tail_lines (const char *text, guint n)
{
  const char *p = text + strlen (text);
  while (p > text && n)
    if (*--p == '\n' && p[1])
      n--;
  return g_strdup (p);
}

/* Runs the commands of @page (named @name) in a new scratch directory with the fixtures; fails
 * the test with every command that did not do what the page says. */
static void
run_page (const char *name, const DocPage *page)
{
  g_autofree char *dir = NULL, *src = absolute ("."), *b = NULL, *fx_out = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) failures = g_string_new (NULL);
  g_autoptr (GString) script = NULL;
  b = absolute (g_getenv ("B") ? g_getenv ("B") : "build");
  dir = g_dir_make_tmp ("models-docs-XXXXXX", &error);
  assert_non_null (dir);
  script = g_string_new (fixture_script);
  g_string_replace (script, "@SRC@", src, 0);
  g_string_replace (script, "@B@", b, 0);
  if (sh_run (dir, script->str, &fx_out) != 0)
    fail_msg ("%s: the fixtures could not be made: %s", name, fx_out);
  for (guint i = 0; i < page->commands->len; i++)
    {
      const DocCommand *c = page->commands->pdata[i];
      g_autofree char *cmd = shrink (c), *out = NULL;
      int status = sh_run (dir, cmd, &out);
      const char *missing = first_unmatched (c->want, out);
      if (status != c->status || missing)
        {
          g_autofree char *t = tail_lines (out, 15);
          g_string_append_printf (failures, "%s:%u: %s\n", name, c->line, cmd);
          if (status != c->status)
            g_string_append_printf (failures, "  exit status %d, expected %d\n", status,
                                    c->status);
          if (missing)
            g_string_append_printf (failures, "  no output line matches \"%s\"\n", missing);
          g_string_append_printf (failures, "  output ends:\n%s\n", t);
        }
    }
  print_message ("docs: %s: %u commands run, %u blocks not run\n", name, page->commands->len,
                 page->not_run->len);
  for (guint i = 0; i < page->not_run->len; i++)
    print_message ("docs:   not run: %s\n", (const char *) page->not_run->pdata[i]);
  {
    g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", dir);
    g_autofree char *rm_out = NULL;
    sh_run ("/", rm, &rm_out);
  }
  if (failures->len)
    fail_msg ("%s", failures->str);
}

/* Ensure that every shell example of one page (the test's state: its path) runs as the page
 * says. */
static void
test_page_examples (void **state)
{
  const char *name = *state;
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (DocPage) page = NULL;
  if (!g_file_get_contents (name, &text, NULL, &error))
    fail_msg ("%s", error->message);
  page = doc_page_parse (name, text);
  if (page->errors->len)
    fail_msg ("%s", page->errors->str);
  run_page (name, page);
}

/* Examples of `models COMMAND --help` that cannot run here, by the start of their command. */
static const struct {
  const char *command;
  const char *reason;
} help_not_run[] = {
  { "make demo", "a Makefile target; make check runs this test" },
  { "models measure", "without --measured it runs the GPU harness: needs nvcc, ncu and a GPU" },
  { "gpu-kernels", "needs the CUDA harness (nvcc)" },
  { "models experiment gpu", "needs cases.txt from gpu-kernels or a GPU run's directory" },
  { "models annotate -e", "needs a program built with -g (./prog has no debug information); "
    "docs/howto/annotate.md runs one" },
  { "models annotate --trace", "needs a trace of a program built with -g; docs/howto/annotate.md "
    "runs a program" },
};

/* The page of `models COMMAND --help`: every line of its "Examples:" section is a command (a
 * trailing "\" continues it), up to a run of two spaces that starts its description. */
static DocPage *
help_page (const char *command)
{
  g_autofree char *help_cmd = g_strdup_printf ("models %s --help", command), *out = NULL;
  g_autofree char *name = g_strdup_printf ("models %s --help", command);
  g_auto (GStrv) lines = NULL;
  DocPage *page = g_new0 (DocPage, 1);
  gboolean in_examples = FALSE;
  page->commands = g_ptr_array_new_with_free_func (doc_command_free);
  page->not_run = g_ptr_array_new_with_free_func (g_free);
  page->errors = g_string_new (NULL);
  if (sh_run (".", help_cmd, &out) != 0)
    g_string_append_printf (page->errors, "%s failed: %s\n", help_cmd, out);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_autoptr (GString) cmd = NULL;
      const char *gap;
      gboolean skipped = FALSE;
      if (!in_examples)
        {
          in_examples = strcmp (lines[i], "Examples:") == 0;
          continue;
        }
      if (!g_str_has_prefix (lines[i], "  "))
        break;
      cmd = g_string_new (g_strstrip (lines[i]));
      while (g_str_has_suffix (cmd->str, "\\") && lines[i + 1])
        {
          g_string_truncate (cmd, cmd->len - 1);
          while (cmd->len && cmd->str[cmd->len - 1] == ' ')
            g_string_truncate (cmd, cmd->len - 1);
          i++;
          g_string_append_printf (cmd, " %s", g_strstrip (lines[i]));
        }
      if ((gap = strstr (cmd->str, "  ")) != NULL)
        g_string_truncate (cmd, (gsize) (gap - cmd->str));
      for (guint r = 0; r < G_N_ELEMENTS (help_not_run) && !skipped; r++)
        if (g_str_has_prefix (cmd->str, help_not_run[r].command)
            && (strcmp (help_not_run[r].command, "models measure") != 0
                || strstr (cmd->str, "--measured") == NULL))
          {
            g_ptr_array_add (page->not_run, g_strdup_printf ("%s: %s (%s)", name, cmd->str,
                                                             help_not_run[r].reason));
            skipped = TRUE;
          }
      if (!skipped)
        g_ptr_array_add (page->commands, doc_command_new (cmd->str, i + 1));
    }
  if (page->commands->len + page->not_run->len == 0)
    g_string_append_printf (page->errors, "%s: no examples\n", help_cmd);
  return page;
}

/* Ensure that every example of one command's --help (the test's state: the command) runs. */
static void
test_help_examples (void **state)
{
  const char *command = *state;
  g_autofree char *name = g_strdup_printf ("models %s --help", command);
  g_autoptr (DocPage) page = help_page (command);
  if (page->errors->len)
    fail_msg ("%s", page->errors->str);
  run_page (name, page);
}

/* ---- the harness's own rules, on made-up pages ---- */

/* Ensure that a transcript's output is matched line by line, in order, with "..." for any text,
 * and that a wrong or missing line is reported. */
static void
test_transcript_output_is_checked (void **state)
{
  g_autoptr (GPtrArray) want = g_ptr_array_new ();
  (void) state;
  g_ptr_array_add (want, (gpointer) "models: unknown engine \"cont\"; valid: ...");
  g_ptr_array_add (want, (gpointer) "last");
  assert_null (first_unmatched (want, "first\nmodels: unknown engine \"cont\"; valid: a, b\nlast\n"));
  assert_string_equal (first_unmatched (want, "last\nmodels: unknown engine \"cont\"; valid: a\n"),
                       "last");
  assert_non_null (first_unmatched (want, "models: unknown engine \"count\"; valid: a\nlast\n"));
  assert_false (line_matches ("io = 1", "io = 12"));
}

/* Ensure that the parser finds commands, statuses, continuations, not-run markers and untagged
 * blocks. */
static void
test_pages_are_parsed (void **state)
{
  static const char text[] =
    "```sh\n"
    "# a comment\n"
    "models run scan/seq --n 16M\n"
    "models analyze \\\n"
    "    x.bin\n"
    "```\n"
    "<!-- not-run: needs a GPU -->\n"
    "```sh\n"
    "nvcc x.cu\n"
    "```\n"
    "   ```sh\n"
    "   $ models analyze\n"
    "   models analyze: missing argument\n"
    "   [status 2]\n"
    "   ```\n"
    "```\n"
    "untagged\n"
    "```\n";
  g_autoptr (DocPage) page = doc_page_parse ("p.md", text);
  const DocCommand *c;
  g_autofree char *small = NULL;
  (void) state;
  assert_int_equal (page->commands->len, 3);
  c = page->commands->pdata[0];
  assert_int_equal (c->line, 3);
  small = shrink (c);
  assert_string_equal (small, "models run scan/seq --n 1M");
  c = page->commands->pdata[1];
  assert_string_equal (c->text, "models analyze \\\n    x.bin");
  c = page->commands->pdata[2];
  assert_string_equal (c->text, "models analyze");
  assert_int_equal (c->status, 2);
  assert_int_equal (c->want->len, 1);
  assert_int_equal (page->not_run->len, 1);
  assert_string_equal (page->not_run->pdata[0], "p.md:8 (needs a GPU)");
  assert_non_null (strstr (page->errors->str, "p.md:16: a fenced block without a language"));
}

/* Ensure that `models experiment vat` gets the small bound whether or not it names one, and
 * that a command whose output the page shows keeps its sizes. */
static void
test_sizes_are_shrunk (void **state)
{
  DocCommand a = { .text = (char *) "models experiment vat --max-bytes 256M --reps 5 > v.csv" };
  DocCommand b = { .text = (char *) "models experiment vat -o out" };
  DocCommand c = { .text = (char *) "models run scan/matrix --n 16M", .shown = TRUE };
  DocCommand d = { .text = (char *) "models demo" };
  DocCommand e = { .text = (char *) "models experiment vat --algos heap/sort" };
  g_autofree char *sa = shrink (&a), *sb = shrink (&b), *sc = shrink (&c), *sd = shrink (&d);
  g_autofree char *se = shrink (&e);
  (void) state;
  assert_string_equal (sa, "models experiment vat --max-bytes 64k --reps 1 --algos "
                       "scan/seq,scan/random   > v.csv");
  assert_string_equal (sb, "models experiment vat --max-bytes 64k --reps 1 --algos "
                       "scan/seq,scan/random -o out");
  assert_string_equal (se, "models experiment vat --max-bytes 64k --reps 1 --algos heap/sort");
  assert_string_equal (sc, "models run scan/matrix --n 16M");
  assert_string_equal (sd, "models demo --no-experiment");
}

int
main (void)
{
  g_autoptr (GArray) tests = g_array_new (FALSE, TRUE, sizeof (struct CMUnitTest));
  g_autofree char *found = NULL;
  g_auto (GStrv) names = NULL, help_lines = NULL;
  g_autofree char *help = NULL;
  g_autoptr (GPtrArray) commands = g_ptr_array_new_with_free_func (g_free);
  const struct CMUnitTest own[] = {
    cmocka_unit_test (test_transcript_output_is_checked),
    cmocka_unit_test (test_pages_are_parsed),
    cmocka_unit_test (test_sizes_are_shrunk),
  };
  const char *only = g_getenv ("MODELS_DOCS");
  g_autofree char *list = NULL;
  int failed;
  if (only)
    {
      g_autofree char *quoted = g_shell_quote (only);
      list = g_strdup_printf ("find %s -name '*.md' | LC_ALL=C sort", quoted);
    }
  else
    list = g_strdup ("ls README.md; find docs -name '*.md' | LC_ALL=C sort");
  if (sh_run (".", list, &found) != 0 || !*g_strstrip (found))
    {
      g_printerr ("test-docs: no pages found by: %s\n", list);
      return 1;
    }
  names = g_strsplit (found, "\n", -1);
  g_array_append_vals (tests, own, G_N_ELEMENTS (own));
  for (guint i = 0; names[i]; i++)
    {
      struct CMUnitTest t = { .name = names[i], .test_func = test_page_examples,
                              .initial_state = names[i] };
      g_array_append_val (tests, t);
    }
  /* The commands that `models --help` lists, and the one subcommand with a help of its own. */
  if (only)
    help = g_strdup ("");
  else if (sh_run (".", "models --help", &help) != 0)
    return 1;
  help_lines = g_strsplit (help, "\n", -1);
  for (guint i = 0, in_list = 0; help_lines[i]; i++)
    {
      g_auto (GStrv) words = NULL;
      if (!in_list)
        {
          in_list = strcmp (help_lines[i], "Commands:") == 0;
          continue;
        }
      if (!g_str_has_prefix (help_lines[i], "  "))
        break;
      words = g_strsplit (g_strstrip (help_lines[i]), " ", 2);
      if (strcmp (words[0], "help") != 0)
        g_ptr_array_add (commands, g_strdup (words[0]));
      if (strcmp (words[0], "experiment") == 0)
        g_ptr_array_add (commands, g_strdup ("experiment gpu"));
    }
  for (guint i = 0; i < commands->len; i++)
    {
      struct CMUnitTest t = { .name = commands->pdata[i], .test_func = test_help_examples,
                              .initial_state = commands->pdata[i] };
      g_array_append_val (tests, t);
    }
  failed = _cmocka_run_group_tests ("docs", (const struct CMUnitTest *) tests->data, tests->len,
                                    NULL, NULL);
  return failed;
}
