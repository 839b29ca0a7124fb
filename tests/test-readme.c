/* Tests of README.md's C snippet: it is taken out of the README at test time (the first ```c
 * block under "## The library"), compiled as written against this build with the project's
 * warnings, and run. The snippet promises what its comments say: the counts of its loop, and a
 * loud, named failure for a mistyped engine spec or counter name. The two failure runs change one
 * string of the snippet and nothing else. Compiler and flags come from make check's environment
 * (CC, CFLAGS, LDFLAGS, B), so `make asan` compiles the snippet with the sanitizers too. */
#include "helpers.h"

#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

typedef struct {
  char *snippet;   /* the README's text of the program */
  char *dir;       /* a temporary directory for sources and binaries */
} Fixture;

/* The body of the first ```c fence after @heading in @text, or NULL. */
static char *
fenced_c_after (const char *text, const char *heading)
{
  const char *at = strstr (text, heading), *begin, *end;
  if (at == NULL || (begin = strstr (at, "\n```c\n")) == NULL)
    return NULL;
  begin += strlen ("\n```c\n");
  end = strstr (begin, "\n```\n");
  return end ? g_strndup (begin, (gsize) (end - begin) + 1) : NULL;
}

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autofree char *readme = NULL;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents ("README.md", &readme, NULL, &error))
    fail_msg ("README.md (the tests run from the repository root): %s", error->message);
  f->snippet = fenced_c_after (readme, "\n## The library\n");
  if (f->snippet == NULL)
    fail_msg ("README.md: no ```c block under \"## The library\"");
  f->dir = g_dir_make_tmp ("test-readme-XXXXXX", &error);
  if (f->dir == NULL)
    fail_msg ("temporary directory: %s", error->message);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->snippet);
  g_free (f);
  return 0;
}

static const char *
env_or (const char *name, const char *fallback)
{
  const char *v = g_getenv (name);
  return v && *v ? v : fallback;
}

typedef struct {
  int status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

static void
run_shell (Run *r, const char *command)
{
  const char *argv[] = { "/bin/sh", "-c", command, NULL };
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &r->out, &r->err,
                     &wait_status, &error))
    fail_msg ("cannot run %s: %s", command, error->message);
  r->status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : -1;
}

/* Writes @source as NAME.c, compiles it as the README says a user does (the project's headers and
 * library, GLib through pkg-config) with the project's warnings as errors, and runs it. */
static void
compile_and_run (const Fixture *f, const char *name, const char *source, Run *r)
{
  g_autofree char *src = g_strdup_printf ("%s/%s.c", f->dir, name);
  g_autofree char *bin = g_strdup_printf ("%s/%s", f->dir, name);
  g_autofree char *compile = NULL;
  g_autoptr (GError) error = NULL;
  Run cc = { 0 };
  if (!g_file_set_contents (src, source, -1, &error))
    fail_msg ("%s: %s", src, error->message);
  compile = g_strdup_printf ("%s -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes %s "
                             "-Iinclude $(pkg-config --cflags glib-2.0) '%s' -o '%s' %s "
                             "'%s/libmodels.a' $(pkg-config --libs glib-2.0 gio-2.0 gio-unix-2.0) "
                             "-lm",
                             env_or ("CC", "cc"), env_or ("CFLAGS", "-O2 -g"), src, bin,
                             env_or ("LDFLAGS", ""), env_or ("B", "build"));
  run_shell (&cc, compile);
  if (cc.status != 0)
    fail_msg ("the README snippet (%s) does not compile:\n%s\n%s%s", name, compile, cc.out, cc.err);
  run_clear (&cc);
  run_shell (r, bin);
}

/* The snippet with its one occurrence of @from replaced by @to. */
static char *
replace_once (const char *snippet, const char *from, const char *to)
{
  const char *at = strstr (snippet, from);
  if (at == NULL || strstr (at + 1, from) != NULL)
    fail_msg ("the README snippet should hold %s exactly once", from);
  return g_strdup_printf ("%.*s%s%s", (int) (at - snippet), snippet, to, at + strlen (from));
}

/* Ensure the snippet compiles as written and prints its loop's counts: a[i] = i summed over
 * 100000 elements is 100000 * 99999 / 2 = 4999950000, one 8-byte read each; the 800000 bytes
 * of the array span 196 or 197 pages of 4096 bytes (195.3 pages, and the array's start within
 * its first page decides whether it reaches one more). */
static void
test_snippet_runs_and_reads_counts (void **state)
{
  Fixture *f = *state;
  Run r = { 0 };
  compile_and_run (f, "readme", f->snippet, &r);
  if (r.status != 0)
    fail_msg ("the README snippet exited %d:\n%s%s", r.status, r.out, r.err);
  if (strcmp (r.out, "sum 4999950000: 100000 reads over 196 pages\n") != 0
      && strcmp (r.out, "sum 4999950000: 100000 reads over 197 pages\n") != 0)
    fail_msg ("the README snippet printed \"%s\"", r.out);
  run_clear (&r);
}

/* Ensure a mistyped engine in the snippet's spec stops it with the library's message naming the
 * spec and the close match, and prints no counts. */
static void
test_snippet_fails_loudly_on_a_mistyped_spec (void **state)
{
  Fixture *f = *state;
  g_autofree char *typo = replace_once (f->snippet, "\"footprint:machine=x86-64\"",
                                        "\"footprnt:machine=x86-64\"");
  Run r = { 0 };
  compile_and_run (f, "readme-spec", typo, &r);
  assert_int_equal (r.status, 1);
  assert_string_equal (r.out, "");
  if (strstr (r.err, "app: unknown engine \"footprnt\"") == NULL
      || strstr (r.err, "(did you mean \"footprint\"?)") == NULL)
    fail_msg ("mistyped spec: stderr was \"%s\"", r.err);
  run_clear (&r);
}

/* Ensure a mistyped counter name stops the snippet with the report's spec, the name and the
 * closest counter, not a crash or a zero. */
static void
test_snippet_fails_loudly_on_a_mistyped_counter (void **state)
{
  Fixture *f = *state;
  g_autofree char *typo = replace_once (f->snippet, "\"pages\"", "\"page\"");
  Run r = { 0 };
  compile_and_run (f, "readme-counter", typo, &r);
  assert_int_equal (r.status, 1);
  assert_string_equal (r.out, "");
  if (strstr (r.err, "app: report \"footprint:") == NULL
      || strstr (r.err, "has no counter \"page\"") == NULL
      || strstr (r.err, "(did you mean \"pages\"?)") == NULL)
    fail_msg ("mistyped counter: stderr was \"%s\"", r.err);
  run_clear (&r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_snippet_runs_and_reads_counts),
    cmocka_unit_test (test_snippet_fails_loudly_on_a_mistyped_spec),
    cmocka_unit_test (test_snippet_fails_loudly_on_a_mistyped_counter),
  };
  return cmocka_run_group_tests_name ("readme", tests, setup, teardown);
}
