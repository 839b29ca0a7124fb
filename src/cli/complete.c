/* `models complete WORD...`: what may come next on a command line, for the bash completion
 * (data/models.bash). The words are those after `models`, the last one being the word under the
 * cursor (possibly empty); the answer is every whole word that could replace it, one per line.
 * Everything comes from where the command itself looks: the commands' tables, the option table
 * each parser gets (mdl_cli_with_options()), and the registries of engines, algorithms, machine
 * presets and formats, so completion cannot disagree with what the command accepts. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

/* What a value or a positional argument is. */
typedef enum {
  VALUE_NONE,
  VALUE_FILE,
  VALUE_CHOICES,          /* the args token's words: "vat|gpu" */
  VALUE_ENGINE,           /* an engine spec NAME:key=value,... */
  VALUE_ALGORITHM,        /* an algorithm spec NAME:key=value,... */
  VALUE_CPU_ALGORITHMS,   /* a comma-separated list of CPU algorithms */
  VALUE_ALGO_PARAM,       /* key=value of the algorithm given as the first argument */
  VALUE_MACHINE,
  VALUE_OUTPUT_FORMAT,
  VALUE_LIST_FORMAT,      /* the output formats `models list` writes */
  VALUE_TRACE_FORMAT,
} ValueKind;

/* Options whose values come from a registry, by long name, in any command (NULL) or in one; the
 * first row that fits counts. Any FILENAME option takes a file. */
static const struct {
  const char *command;
  const char *option;
  ValueKind kind;
} option_values[] = {
  { NULL, "engine", VALUE_ENGINE },
  { NULL, "machine", VALUE_MACHINE },
  { "list", "format", VALUE_LIST_FORMAT },
  { NULL, "format", VALUE_OUTPUT_FORMAT },
  { NULL, "trace-format", VALUE_TRACE_FORMAT },
  { NULL, "from", VALUE_TRACE_FORMAT },
  { NULL, "to", VALUE_TRACE_FORMAT },
  { NULL, "algos", VALUE_CPU_ALGORITHMS },
  { NULL, "param", VALUE_ALGO_PARAM },
};

/* Positional arguments by the name a command's usage line gives them. */
static const struct {
  const char *arg;
  ValueKind kind;
} positional_values[] = {
  { "FILE|-", VALUE_FILE },
  { "IN", VALUE_FILE },
  { "OUT", VALUE_FILE },
  { "PROGRAM", VALUE_FILE },
  { "ARG…", VALUE_FILE },
  { "ALGORITHM", VALUE_ALGORITHM },
};

typedef struct {
  const char *const *words;   /* after `models`; the last is the one being completed */
  guint n_words;
  guint first_arg;            /* the index of the first word after the command's name */
  GPtrArray *out;             /* the candidates */
  gboolean files;             /* complete file names instead */
} Completion;

/* Adds @head followed by @len bytes of @word (-1: all) when it extends the current word. */
static void
offer (Completion *c, const char *head, const char *word, gssize len)
{
  g_autofree char *tail = len < 0 ? g_strdup (word) : g_strndup (word, (gsize) len);
  char *candidate = g_strconcat (head, tail, NULL);
  if (g_str_has_prefix (candidate, c->words[c->n_words - 1]))
    g_ptr_array_add (c->out, candidate);
  else
    g_free (candidate);
}

/* Adds @head followed by each of the '|'-separated words of @choices. */
static void
offer_choices (Completion *c, const char *head, const char *choices)
{
  for (const char *p = choices; *p;)
    {
      gsize len = strcspn (p, "|");
      offer (c, head, p, (gssize) len);
      p += len + (p[len] == '|');
    }
}

static void
offer_machines (Completion *c, const char *head)
{
  g_auto (GStrv) names = mdl_machine_names (NULL);
  for (guint i = 0; names && names[i]; i++)
    offer (c, head, names[i], -1);
}

/* @partial is the assignment being written after "NAME:" or ",": a key of @table (or machine),
 * or after "key=" a value of a CHOICE key or a preset name. */
static void
offer_assignment (Completion *c, const char *head, const char *partial, const MdlParamSpec *table)
{
  const char *eq = strchr (partial, '=');
  if (eq == NULL)
    {
      offer (c, head, "machine=", -1);
      for (const MdlParamSpec *p = table; p && p->key; p++)
        {
          g_autofree char *key = g_strconcat (p->key, "=", NULL);
          offer (c, head, key, -1);
        }
      return;
    }
  {
    g_autofree char *key = g_strndup (partial, (gsize) (eq - partial));
    g_autofree char *key_head = g_strconcat (head, key, "=", NULL);
    if (strcmp (key, "machine") == 0)
      offer_machines (c, key_head);
    for (const MdlParamSpec *p = table; p && p->key; p++)
      if (strcmp (p->key, key) == 0 && p->type == MDL_PARAM_CHOICE)
        offer_choices (c, key_head, p->choices);
  }
}

/* A spec NAME[:key=value,...] of an engine (@algo FALSE) or an algorithm, @head before it. */
static void
offer_spec (Completion *c, const char *head, const char *spec, gboolean algo)
{
  const char *colon = strchr (spec, ':');
  const char *partial;
  const MdlParamSpec *table = NULL;
  g_autofree char *name = NULL, *spec_head = NULL;
  if (colon == NULL)
    {
      guint n;
      if (algo)
        {
          const MdlAlgo *algos = mdl_algos (&n);
          for (guint i = 0; i < n; i++)
            offer (c, head, algos[i].name, -1);
        }
      else
        {
          g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n);
          for (guint i = 0; i < n; i++)
            offer (c, head, classes[i]->name, -1);
        }
      return;
    }
  name = g_strndup (spec, (gsize) (colon - spec));
  if (algo)
    {
      const MdlAlgo *a = mdl_algo_lookup (name, NULL);
      if (a == NULL)
        return;
      table = a->params;
    }
  else
    {
      const MdlEngineClass *klass = mdl_engine_class_lookup (name);
      if (klass == NULL)
        return;
      table = klass->params;
    }
  partial = strrchr (colon, ',') ? strrchr (colon, ',') + 1 : colon + 1;
  spec_head = g_strdup_printf ("%s%.*s", head, (int) (partial - spec), spec);
  offer_assignment (c, spec_head, partial, table);
}

/* The name of positional argument @index in @cmd's usage line ("[--] PROGRAM [ARG…]": PROGRAM,
 * then ARG… for every later one), or NULL. (transfer full) */
static char *
positional_name (const MdlCliCommand *cmd, guint index)
{
  g_auto (GStrv) tokens = g_strsplit (cmd->args, " ", -1);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  const char *last;
  for (guint i = 0; tokens[i]; i++)
    if (*tokens[i] && strcmp (tokens[i], "[--]") != 0)
      g_ptr_array_add (names, g_strstrip (g_strdelimit (tokens[i], "[]", ' ')));
  if (names->len == 0)
    return NULL;
  last = names->pdata[names->len - 1];
  if (index < names->len)
    return g_strdup (names->pdata[index]);
  return g_str_has_suffix (last, "…") ? g_strdup (last) : NULL;
}

/* What the positional argument @name takes: a known name, else the words of "a|b". */
static ValueKind
positional_kind (const char *name)
{
  for (guint i = 0; name && i < G_N_ELEMENTS (positional_values); i++)
    if (strcmp (positional_values[i].arg, name) == 0)
      return positional_values[i].kind;
  return name && strchr (name, '|') ? VALUE_CHOICES : VALUE_NONE;
}

/* Offers the values of @kind for the text @value, each after @head. @algo_arg is the command's
 * first argument (for --param), or NULL. */
static void
offer_value (Completion *c, ValueKind kind, const char *head, const char *value,
             const char *choices, const char *algo_arg)
{
  switch (kind)
    {
    case VALUE_NONE:
      break;
    case VALUE_FILE:
      c->files = TRUE;
      break;
    case VALUE_CHOICES:
      offer_choices (c, head, choices);
      break;
    case VALUE_ENGINE:
    case VALUE_ALGORITHM:
      offer_spec (c, head, value, kind == VALUE_ALGORITHM);
      break;
    case VALUE_CPU_ALGORITHMS:
      {
        const char *comma = strrchr (value, ',');
        g_autofree char *list_head = g_strdup_printf ("%s%.*s", head,
                                                      comma ? (int) (comma + 1 - value) : 0, value);
        guint n;
        const MdlAlgo *algos = mdl_algos (&n);
        for (guint i = 0; i < n; i++)
          if (algos[i].gpu == NULL)
            offer (c, list_head, algos[i].name, -1);
        break;
      }
    case VALUE_ALGO_PARAM:
      if (algo_arg)
        {
          g_autofree char *name = g_strndup (algo_arg, strcspn (algo_arg, ":"));
          const MdlAlgo *a = mdl_algo_lookup (name, NULL);
          if (a)
            offer_assignment (c, head, value, a->params);
        }
      break;
    case VALUE_MACHINE:
      offer_machines (c, head);
      break;
    case VALUE_OUTPUT_FORMAT:
    case VALUE_LIST_FORMAT:
      for (guint i = 0; i < (kind == VALUE_LIST_FORMAT ? MDL_CLI_LIST_FORMATS : MDL_CLI_N_FORMATS);
           i++)
        offer (c, head, mdl_cli_format_names[i], -1);
      break;
    case VALUE_TRACE_FORMAT:
      for (MdlTraceFormat f = 0; mdl_trace_format_name (f); f++)
        offer (c, head, mdl_trace_format_name (f), -1);
      break;
    }
}

/* The option @word names ("--long", "--long=value" or "-s"), or NULL. */
static const GOptionEntry *
option_find (const GOptionEntry *entries, const char *word)
{
  for (const GOptionEntry *e = entries; e && e->long_name; e++)
    if (g_str_has_prefix (word, "--") ? strncmp (word + 2, e->long_name, strcspn (word + 2, "="))
                                          == 0 && strlen (e->long_name) == strcspn (word + 2, "=")
                                      : word[1] == e->short_name && word[2] == '\0')
      return e;
  return NULL;
}

static void
offer_option_value (Completion *c, const MdlCliCommand *cmd, const GOptionEntry *e,
                    const char *head, const char *value, const char *algo_arg)
{
  if (e->arg == G_OPTION_ARG_FILENAME)
    {
      c->files = TRUE;
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (option_values); i++)
    if (strcmp (option_values[i].option, e->long_name) == 0
        && (option_values[i].command == NULL || strcmp (option_values[i].command, cmd->name) == 0))
      {
        offer_value (c, option_values[i].kind, head, value, NULL, algo_arg);
        return;
      }
}

/* The command's first argument so far (the algorithm --param refers to), or NULL. */
static const char *
first_arg (const GPtrArray *args)
{
  return args->len ? args->pdata[0] : NULL;
}

/* The MdlCliOptionsFunc that completes the last word for @cmd. */
static int
complete_command (const MdlCliCommand *cmd, const GOptionEntry *entries, void *data)
{
  Completion *c = data;
  const char *cur = c->words[c->n_words - 1];
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  gboolean options_end = FALSE;
  g_autofree char *name = NULL;
  for (guint i = c->first_arg; i + 1 < c->n_words; i++)
    {
      const char *w = c->words[i];
      const GOptionEntry *e;
      if (!options_end && strcmp (w, "--") == 0)
        options_end = TRUE;
      else if (!options_end && w[0] == '-' && w[1])
        {
          e = option_find (entries, w);
          if (e && e->arg != G_OPTION_ARG_NONE && strchr (w, '=') == NULL)
            {
              if (i + 2 == c->n_words)
                {
                  offer_option_value (c, cmd, e, "", cur, first_arg (args));
                  return MDL_CLI_OK;
                }
              i++;
            }
        }
      else
        {
          /* Options stop at the program whose command line follows (models trace). */
          g_autofree char *arg_name = positional_name (cmd, args->len);
          options_end = options_end || g_strcmp0 (arg_name, "PROGRAM") == 0;
          g_ptr_array_add (args, (gpointer) w);
        }
    }
  if (!options_end && g_str_has_prefix (cur, "--") && strchr (cur, '='))
    {
      const GOptionEntry *e = option_find (entries, cur);
      g_autofree char *head = g_strndup (cur, (gsize) (strchr (cur, '=') + 1 - cur));
      if (e)
        offer_option_value (c, cmd, e, head, strchr (cur, '=') + 1, first_arg (args));
      return MDL_CLI_OK;
    }
  if (!options_end && cur[0] == '-')
    {
      for (const GOptionEntry *e = entries; e && e->long_name; e++)
        if (!(e->flags & G_OPTION_FLAG_HIDDEN))
          offer (c, "--", e->long_name, -1);
      offer (c, "--", "help", -1);
      return MDL_CLI_OK;
    }
  name = positional_name (cmd, args->len);
  offer_value (c, positional_kind (name), "", cur, name, first_arg (args));
  return MDL_CLI_OK;
}

int
mdl_cli_complete_main (int argc, char **argv)
{
  const char *const empty[] = { "" };
  Completion c = { argc > 0 ? (const char *const *) argv : empty, argc > 0 ? (guint) argc : 1, 0,
                   g_ptr_array_new_with_free_func (g_free), FALSE };
  const char *cur = c.words[c.n_words - 1];
  guint n_commands;
  const MdlCliCommand *const *commands = mdl_cli_commands (&n_commands);
  int rc = MDL_CLI_OK;

  if (c.n_words == 1 && cur[0] == '-')
    for (const GOptionEntry *e = mdl_cli_top_options; e->long_name; e++)
      offer (&c, "--", e->long_name, -1);
  else if (c.n_words == 1 || (c.n_words == 2 && strcmp (c.words[0], "help") == 0))
    {
      for (guint i = 0; i < n_commands; i++)
        offer (&c, "", commands[i]->name, -1);
      if (c.n_words == 1)
        offer (&c, "", "help", -1);
    }
  else if (mdl_cli_command_find (c.words, c.n_words - 1, &c.first_arg))
    rc = mdl_cli_with_options (c.words, c.n_words - 1, complete_command, &c);
  if (c.files)
    puts ("@file");
  for (guint i = 0; i < c.out->len; i++)
    puts (c.out->pdata[i]);
  g_ptr_array_free (c.out, TRUE);
  return rc;
}
