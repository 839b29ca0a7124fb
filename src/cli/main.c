/* The `models` command: dispatch on the first argument, and the option and error conventions every
 * subcommand follows (docs/cli.md). Exit status 0 means success, 1 bad input (the library said
 * why), 2 a usage error; errors are one line "models: MESSAGE" on stderr. Top-level options stop at
 * the first word, so `models analyze --help` reaches analyze and not the top level. */
#include "cli/cli.h"
#include "core/names.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

static const MdlCliCommand *const commands[] = {
  &mdl_cli_cmd_demo,
  &mdl_cli_cmd_list,
  &mdl_cli_cmd_analyze,
  &mdl_cli_cmd_run,
  &mdl_cli_cmd_convert,
  &mdl_cli_cmd_measure,
  &mdl_cli_cmd_trace,
  &mdl_cli_cmd_annotate,
  &mdl_cli_cmd_experiment,
  &mdl_cli_cmd_sweep,
};

static const MdlCliCommand *
command_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i]->name, name) == 0)
      return commands[i];
  return NULL;
}

const MdlCliCommand *const *
mdl_cli_commands (guint *n)
{
  *n = G_N_ELEMENTS (commands);
  return commands;
}

const MdlCliCommand *
mdl_cli_command_find (const char *const *words, guint n_words, guint *n_used)
{
  const MdlCliCommand *cmd = n_words ? command_lookup (words[0]) : NULL;
  *n_used = cmd ? 1 : 0;
  if (cmd && cmd->subcommands && n_words > 1)
    for (const MdlCliCommand *const *sub = cmd->subcommands; *sub; sub++)
      if (strcmp (strrchr ((*sub)->name, ' ') + 1, words[1]) == 0)
        {
          *n_used = 2;
          return *sub;
        }
  return cmd;
}

/* The table of the context made last, and the hook of mdl_cli_with_options(): one command runs
 * per process, so its context is the last one made when its parser is reached. */
static const GOptionEntry *last_entries;
static MdlCliOptionsFunc options_hook;
static void *options_hook_data;
static gboolean options_hook_called;

int
mdl_cli_with_options (const char *const *words, guint n_words, MdlCliOptionsFunc fn, void *data)
{
  guint n_used;
  const MdlCliCommand *cmd = mdl_cli_command_find (words, n_words, &n_used);
  g_autofree char **argv = g_new0 (char *, n_used + 1);
  int rc;
  if (cmd == NULL)
    return MDL_CLI_BAD_INPUT;
  for (guint i = 0; i < n_used; i++)
    argv[i] = (char *) words[i];
  options_hook = fn;
  options_hook_data = data;
  options_hook_called = FALSE;
  rc = command_lookup (words[0])->main ((int) n_used, argv);
  options_hook = NULL;
  return options_hook_called ? rc : MDL_CLI_BAD_INPUT;
}

GOptionContext *
mdl_cli_context_new (const MdlCliCommand *cmd, const GOptionEntry *entries, gboolean *help)
{
  const GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, help, MDL_CLI_HELP_TEXT, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  GOptionContext *ctx = g_option_context_new (cmd->args);
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_set_summary (ctx, cmd->summary);
  if (cmd->description)
    g_option_context_set_description (ctx, cmd->description);
  if (entries)
    g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_main_entries (ctx, help_entries, NULL);
  last_entries = entries;
  return ctx;
}

int
mdl_cli_usage (const MdlCliCommand *cmd, const char *format, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  va_start (ap, format);
  msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  if (cmd)
    fprintf (stderr, "models %s: %s\nTry \"models %s --help\".\n", cmd->name, msg, cmd->name);
  else
    fprintf (stderr, "models: %s\nTry \"models --help\".\n", msg);
  return MDL_CLI_USAGE;
}

/* Messages go out as the UTF-8 the library wrote: g_printerr() would turn every non-ASCII
 * character (GIO's quotes, a file name) into '?' under the C locale that scripts and CI run in. */
void
mdl_cli_warn (const char *format, ...)
{
  va_list ap;
  fputs ("models: ", stderr);
  va_start (ap, format);
  vfprintf (stderr, format, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

int
mdl_cli_fail (GError *error)
{
  mdl_cli_warn ("%s", error ? error->message : "unknown error");
  g_clear_error (&error);
  return MDL_CLI_BAD_INPUT;
}

void
mdl_cli_error_name (GError **error, const char *name)
{
  if (error && *error && name && strstr ((*error)->message, name) == NULL)
    g_prefix_error (error, "%s: ", name);
}

int
mdl_cli_parse (GOptionContext *ctx, const MdlCliCommand *cmd, const gboolean *help, int *argc,
               char ***argv, int min_args, int max_args)
{
  g_autoptr (GError) error = NULL;
  int n_args;
  if (options_hook)
    {
      options_hook_called = TRUE;
      return options_hook (cmd, last_entries, options_hook_data);
    }
  if (!g_option_context_parse (ctx, argc, argv, &error))
    return mdl_cli_usage (cmd, "%s", error->message);
  if (*help)
    {
      g_autofree char *text = g_option_context_get_help (ctx, TRUE, NULL);
      fputs (text, stdout);
      return MDL_CLI_OK;
    }
  /* GOption leaves a "--" in place when arguments follow it; it only ends the options. */
  if (*argc > 1 && strcmp ((*argv)[1], "--") == 0)
    {
      memmove (*argv + 1, *argv + 2, sizeof **argv * (gsize) (*argc - 1));
      (*argc)--;
    }
  n_args = *argc - 1;
  if (n_args < min_args)
    return mdl_cli_usage (cmd, "missing argument: expected %s", cmd->args);
  if (max_args >= 0 && n_args > max_args)
    return mdl_cli_usage (cmd, "unexpected argument \"%s\" (expected %s)", (*argv)[1 + max_args],
                          *cmd->args ? cmd->args : "no arguments");
  return MDL_CLI_CONTINUE;
}

const char mdl_cli_top_summary[] =
  "Predict what algorithms cost on real machines: feed an event stream (an instrumented\n"
  "algorithm or a trace file) through model engines and report their counters.";

const char mdl_cli_top_description[] =
  "Examples:\n"
  "  models demo                         what the models show, in about a minute\n"
  "  models list                         engines, parameters, algorithms, machine presets\n"
  "  models run scan/random --n 1M       an instrumented algorithm through the engines\n"
  "  models experiment vat -o vat-out    the VAT thesis's experiment, measured and predicted\n"
  "  models analyze prog.lackey          a Valgrind Lackey trace of any program\n"
  "  models help run                     the options of one command, with examples\n"
  "\n"
  "Exit status: 0 success, 1 bad input (trace, spec, name, file), 2 usage error,\n"
  "128+N stopped by signal N (130 for Ctrl-C) after printing a partial report.\n"
  "Documentation: docs/cli.md; man models.";

const MdlCliEnvVar mdl_cli_environment[] = {
  { "MODELS_MACHINES", "A file of machine presets in the shape of data/machines.ini: adds "
    "presets, or replaces built-in ones of the same name" },
  { "MODELS_MEMORY_BUDGET", "The most memory engines' tables may take (k, M, G suffixes; "
    "default: the smaller of 4G and half the RAM)" },
  { "MODELS_ASLR", "Set to 1 to keep address-space randomization (by default the command runs "
    "without it, so that the same seed gives the same report)" },
  { NULL, NULL }
};

static gboolean top_help, top_version;
const GOptionEntry mdl_cli_top_options[] = {
  { "help", 'h', 0, G_OPTION_ARG_NONE, &top_help, MDL_CLI_HELP_TEXT, NULL },
  { "version", 'V', 0, G_OPTION_ARG_NONE, &top_version, "Show the version and exit", NULL },
  { NULL, 0, 0, 0, NULL, NULL, NULL }
};

/* The top level's --help: the commands with their summaries, then the environment and examples. */
static void
print_top_help (GOptionContext *ctx)
{
  g_autoptr (GString) summary = g_string_new (mdl_cli_top_summary);
  g_autoptr (GString) description = g_string_new ("Environment:");
  g_autofree char *text = NULL;
  g_string_append (summary, "\n\nCommands:");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (summary, "\n  %-9s %s", commands[i]->name, commands[i]->summary);
  g_string_append_printf (summary, "\n  %-9s %s", "help", "show the help of a command");
  g_option_context_set_summary (ctx, summary->str);
  for (const MdlCliEnvVar *v = mdl_cli_environment; v->name; v++)
    {
      /* Wrapped at 96 columns, as the hand-wrapped texts are; the man page fills its own. */
      g_auto (GStrv) words = g_strsplit (v->help, " ", -1);
      gsize line_start;
      g_string_append_printf (description, "\n  %s\n     ", v->name);
      line_start = description->len - 6;
      for (guint w = 0; words[w]; w++)
        {
          if (description->len - line_start + 1 + strlen (words[w]) > 96)
            {
              g_string_append (description, "\n     ");
              line_start = description->len - 6;
            }
          g_string_append_printf (description, " %s", words[w]);
        }
    }
  g_string_append_printf (description, "\n\n%s", mdl_cli_top_description);
  g_option_context_set_description (ctx, description->str);
  text = g_option_context_get_help (ctx, TRUE, NULL);
  fputs (text, stdout);
}

/* Runs the command again with address-space randomization off, once, so that the same seed
 * gives the same report run after run. The instrumented algorithms record the addresses of their
 * real arrays: with randomization, where an array lands relative to a 2 MiB or 1 GiB boundary
 * changes from run to run, and so do the upper levels' TC misses, the distinct nodes, the pages
 * touched (5 runs in 20 of scan/random at n = 200000 under vat differed). MODELS_ASLR=1 keeps
 * randomization; a system that refuses personality() or the exec leaves it on too. */
static void
fix_address_space (char **argv)
{
  int persona = personality (0xffffffff);
  const char *keep = g_getenv ("MODELS_ASLR");
  if (persona == -1 || (persona & ADDR_NO_RANDOMIZE) || (keep && *keep && strcmp (keep, "0") != 0))
    return;
  if (personality ((unsigned long) persona | ADDR_NO_RANDOMIZE) == -1)
    return;
  fflush (NULL);
  execv ("/proc/self/exe", argv);
  personality ((unsigned long) persona);   /* the exec failed: go on as we are */
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new ("COMMAND [OPTION…]");
  g_autoptr (GError) error = NULL;
  const MdlCliCommand *cmd;
  const char *name;

  fix_address_space (argv);
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_set_strict_posix (ctx, TRUE);
  g_option_context_add_main_entries (ctx, mdl_cli_top_options, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return mdl_cli_usage (NULL, "%s", error->message);
  if (top_version)
    {
      printf ("models %s\n", MDL_VERSION_STRING);
      return MDL_CLI_OK;
    }
  if (top_help)
    {
      g_set_prgname ("models");
      print_top_help (ctx);
      return MDL_CLI_OK;
    }
  if (argc < 2)
    return mdl_cli_usage (NULL, "missing command (try \"models demo\" or \"models list\")");

  name = argv[1];
  /* Hidden: what `make man` and the bash completion (data/models.bash) call. */
  if (strcmp (name, "complete") == 0)
    return mdl_cli_complete_main (argc - 2, argv + 2);
  if (strcmp (name, "help") == 0 && argc >= 3 && strcmp (argv[2], "--man") == 0)
    {
      if (argc != 4)
        return mdl_cli_usage (NULL, "help --man takes one directory");
      return mdl_cli_man_main (argv[3]);
    }
  if (strcmp (name, "help") == 0)
    {
      if (argc == 2)
        {
          g_set_prgname ("models");
          print_top_help (ctx);
          return MDL_CLI_OK;
        }
      if (argc > 3)
        return mdl_cli_usage (NULL, "help takes one command name");
      name = argv[2];
      cmd = command_lookup (name);
      if (cmd)
        {
          char *help_argv[] = { (char *) cmd->name, (char *) "--help", NULL };
          g_autofree char *prgname = g_strdup_printf ("models %s", cmd->name);
          g_set_prgname (prgname);
          return cmd->main (2, help_argv);
        }
    }
  cmd = command_lookup (name);
  if (cmd == NULL)
    {
      const char *names[G_N_ELEMENTS (commands) + 1];
      g_autoptr (GString) msg = g_string_new (NULL);
      for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
        names[i] = commands[i]->name;
      names[G_N_ELEMENTS (commands)] = "help";
      g_string_printf (msg, "unknown command \"%s\"", name);
      mdl_names_append_choices (msg, name, names, G_N_ELEMENTS (names));
      return mdl_cli_usage (NULL, "%s", msg->str);
    }
  {
    g_autofree char *prgname = g_strdup_printf ("models %s", cmd->name);
    g_set_prgname (prgname);
  }
  return cmd->main (argc - 1, argv + 1);
}
