/* `models help --man DIR`: the man pages, generated from what --help prints so that the two never
 * disagree. models(1) comes from the top level's texts (summary, commands, options, environment,
 * examples); models-CMD(1) from a command's MdlCliCommand texts and the very option table its
 * parser gets (mdl_cli_with_options()). Help texts are wrapped by hand for a terminal; here a
 * paragraph of plain lines becomes filled text, and one with indented lines (a table, a list)
 * keeps its lines. */
#include "cli/cli.h"
#include "core/groff.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* One example line "  COMMAND  DESCRIPTION" (a trailing "\" continues COMMAND on the next line,
 * as tests/test-docs.c reads it); returns the lines it took. */
static guint
man_example (GString *out, char **lines)
{
  g_autoptr (GString) cmd = g_string_new (NULL);
  const char *gap;
  guint used = 0;
  do
    {
      if (cmd->len && cmd->str[cmd->len - 1] == '\\')
        {
          g_string_truncate (cmd, cmd->len - 1);
          g_string_append_c (cmd, ' ');
        }
      g_string_append (cmd, g_strstrip (lines[used++]));
    }
  while (g_str_has_suffix (cmd->str, "\\") && lines[used]);
  gap = strstr (cmd->str, "  ");
  g_string_append (out, ".TP\n\\fB");
  mdl_groff_text (out, cmd->str, gap ? gap - cmd->str : -1);
  g_string_append (out, "\\fR\n");
  if (gap)
    mdl_groff_text (out, g_strchug ((char *) gap), -1);
  g_string_append (out, gap ? "\n" : "\\&\n");
  return used;
}

/* A paragraph that starts with @label goes to @text, not to the page's description. */
typedef struct {
  const char *label;
  GString *text;
} ManSection;

static gboolean
has_label (const char *line, const ManSection *sections)
{
  for (const ManSection *s = sections; s && s->label; s++)
    if (g_str_has_prefix (line, s->label))
      return TRUE;
  return FALSE;
}

/* A --help description: paragraphs into @body, the lines of its "Examples:" block into
 * @examples; paragraphs starting with a label of @sections (NULL: none) go to their section,
 * without the label. */
static void
man_description (GString *body, GString *examples, const char *description, ManSection *sections)
{
  g_auto (GStrv) lines = g_strsplit (description ? description : "", "\n", -1);
  guint i = 0;
  while (lines[i])
    {
      guint start = i;
      GString *dest = body;
      if (*lines[i] == '\0')
        {
          i++;
          continue;
        }
      if (strcmp (lines[i], "Examples:") == 0)
        {
          for (i++; lines[i] && g_str_has_prefix (lines[i], "  ");)
            i += man_example (examples, lines + i);
          continue;
        }
      /* A labelled line starts a paragraph of its own ("Exit status:" after "Documentation:"). */
      for (i++; lines[i] && *lines[i] && !has_label (lines[i], sections); i++)
        ;
      for (ManSection *s = sections; s && s->label; s++)
        if (g_str_has_prefix (lines[start], s->label))
          {
            dest = s->text;
            memmove (lines[start], lines[start] + strlen (s->label),
                     strlen (lines[start]) - strlen (s->label) + 1);
          }
      mdl_groff_paragraph (dest, lines + start, i - start);
    }
}

static void
man_options (GString *out, const GOptionEntry *entries)
{
  for (const GOptionEntry *e = entries; e && e->long_name; e++)
    {
      if (e->flags & G_OPTION_FLAG_HIDDEN)
        continue;
      g_string_append (out, ".TP\n");
      if (e->short_name)
        g_string_append_printf (out, "\\fB\\-%c\\fR, ", e->short_name);
      g_string_append (out, "\\fB\\-\\-");
      mdl_groff_text (out, e->long_name, -1);
      g_string_append (out, "\\fR");
      if (e->arg != G_OPTION_ARG_NONE)
        {
          g_string_append (out, "=\\fI");
          mdl_groff_text (out, e->arg_description ? e->arg_description : "VALUE", -1);
          g_string_append (out, "\\fR");
        }
      g_string_append_c (out, '\n');
      mdl_groff_text (out, e->description, -1);
      g_string_append_c (out, '\n');
    }
}

/* The title line of section-1 page @page; no date, so that a rebuild writes the same bytes. No
 * hyphenation: option and page names must not break at a hyphen of their own. */
static void
man_header (GString *out, const char *page)
{
  g_autofree char *upper = g_ascii_strup (page, -1);
  g_string_append (out, ".TH ");
  mdl_groff_text (out, upper, -1);
  g_string_append_printf (out, " 1 \"\" \"models %s\" \"libmodels\"\n.nh\n", MDL_VERSION_STRING);
}

static char *
page_name (const MdlCliCommand *cmd)
{
  g_autofree char *name = g_strdup_printf ("models-%s", cmd->name);
  return g_strdelimit (g_steal_pointer (&name), " ", '-');
}

typedef struct {
  const char *dir;
  GError *error;
} ManRun;

static gboolean
man_write (const char *dir, const char *file, const GString *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  return g_file_set_contents (path, text->str, (gssize) text->len, error);
}

/* The MdlCliOptionsFunc that writes the page of @cmd. */
static int
command_page (const MdlCliCommand *cmd, const GOptionEntry *entries, void *data)
{
  ManRun *run = data;
  const GOptionEntry help[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, NULL, MDL_CLI_HELP_TEXT, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autofree char *page = page_name (cmd), *file = g_strconcat (page, ".1", NULL);
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GString) body = g_string_new (NULL);
  g_autoptr (GString) examples = g_string_new (NULL);
  man_header (out, page);
  g_string_append (out, ".SH NAME\n");
  mdl_groff_text (out, page, -1);
  g_string_append (out, " \\- ");
  mdl_groff_text (out, cmd->summary, -1);
  g_string_append (out, "\n.SH SYNOPSIS\n.B models ");
  mdl_groff_text (out, cmd->name, -1);
  g_string_append (out, "\n[\\fIOPTION\\fR...]");
  if (*cmd->args)
    {
      g_string_append (out, " \\fI");
      mdl_groff_text (out, cmd->args, -1);
      g_string_append (out, "\\fR");
    }
  man_description (body, examples, cmd->description, NULL);
  g_string_append (out, "\n.SH DESCRIPTION\n");
  g_string_append_len (out, body->str, (gssize) body->len);
  g_string_append (out, ".SH OPTIONS\n");
  man_options (out, entries);
  man_options (out, help);
  if (examples->len)
    {
      g_string_append (out, ".SH EXAMPLES\n");
      g_string_append_len (out, examples->str, (gssize) examples->len);
    }
  g_string_append (out, ".SH \"EXIT STATUS\"\nAs for\n.BR models (1).\n"
                        ".SH \"SEE ALSO\"\n.BR models (1),\n.BR libmodels (3)\n");
  return man_write (run->dir, file, out, &run->error) ? MDL_CLI_OK : MDL_CLI_BAD_INPUT;
}

/* The entry of @cmd in models(1)'s COMMANDS, and its page in @pages (for SEE ALSO). */
static void
command_entry (GString *out, GString *pages, const MdlCliCommand *cmd)
{
  g_autofree char *page = page_name (cmd);
  g_string_append_printf (pages, ".BR %s (1),\n", page);
  g_string_append (out, ".TP\n\\fB");
  mdl_groff_text (out, cmd->name, -1);
  g_string_append (out, "\\fR ");
  mdl_groff_text (out, cmd->args, -1);
  g_string_append_c (out, '\n');
  mdl_groff_text (out, cmd->summary, -1);
  g_string_append (out, "; see\n.BR ");
  mdl_groff_text (out, page, -1);
  g_string_append (out, " (1).\n");
}

static gboolean
top_page (const char *dir, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GString) body = g_string_new (NULL);
  g_autoptr (GString) examples = g_string_new (NULL);
  g_autoptr (GString) exit_status = g_string_new (NULL);
  g_autoptr (GString) see_also = g_string_new (NULL);
  g_autoptr (GString) pages = g_string_new (NULL);
  ManSection sections[] = {
    { "Exit status: ", exit_status }, { "Documentation: ", see_also }, { NULL, NULL }
  };
  const char *colon = strchr (mdl_cli_top_summary, ':');
  guint n_commands;
  const MdlCliCommand *const *commands = mdl_cli_commands (&n_commands);

  man_header (out, "models");
  g_string_append (out, ".SH NAME\nmodels \\- ");
  g_string_append_c (out, g_ascii_tolower (*mdl_cli_top_summary));
  mdl_groff_text (out, mdl_cli_top_summary + 1, colon ? colon - mdl_cli_top_summary - 1 : -1);
  g_string_append (out, "\n.SH SYNOPSIS\n.B models\n[\\fB\\-h\\fR|\\fB\\-V\\fR]\n.br\n"
                        ".B models\n\\fICOMMAND\\fR [\\fIOPTION\\fR...] [\\fIARG\\fR...]\n"
                        ".SH DESCRIPTION\n");
  man_description (body, examples, mdl_cli_top_summary, NULL);
  man_description (body, examples, mdl_cli_top_description, sections);
  g_string_append_len (out, body->str, (gssize) body->len);
  g_string_append (out, ".SH COMMANDS\n");
  for (guint i = 0; i < n_commands; i++)
    {
      command_entry (out, pages, commands[i]);
      for (const MdlCliCommand *const *sub = commands[i]->subcommands; sub && *sub; sub++)
        command_entry (out, pages, *sub);
    }
  g_string_append (out, ".TP\n\\fBhelp\\fR [COMMAND]\nshow the help of a command\n"
                        ".SH OPTIONS\n");
  man_options (out, mdl_cli_top_options);
  g_string_append (out, ".SH ENVIRONMENT\n");
  for (const MdlCliEnvVar *v = mdl_cli_environment; v->name; v++)
    {
      g_string_append (out, ".TP\n.B ");
      mdl_groff_text (out, v->name, -1);
      g_string_append_c (out, '\n');
      mdl_groff_text (out, v->help, -1);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, ".SH FILES\n.TP\n.I share/models/machines.ini\n");
  mdl_groff_text (out, "under the installation prefix: a copy of the machine presets compiled "
                      "into the library, the shape a MODELS_MACHINES file takes.", -1);
  g_string_append (out, "\n.SH \"EXIT STATUS\"\n");
  g_string_append_len (out, exit_status->str, (gssize) exit_status->len);
  g_string_append (out, ".SH EXAMPLES\n");
  g_string_append_len (out, examples->str, (gssize) examples->len);
  g_string_append (out, ".SH \"SEE ALSO\"\n");
  g_string_append_len (out, pages->str, (gssize) pages->len);
  g_string_append (out, ".BR libmodels (3)\n");
  g_string_append_len (out, see_also->str, (gssize) see_also->len);
  return man_write (dir, "models.1", out, error);
}

int
mdl_cli_man_main (const char *dir)
{
  ManRun run = { dir, NULL };
  guint n_commands;
  const MdlCliCommand *const *commands = mdl_cli_commands (&n_commands);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      mdl_cli_warn ("%s: %s", dir, g_strerror (errno));
      return MDL_CLI_BAD_INPUT;
    }
  if (!top_page (dir, &run.error))
    return mdl_cli_fail (run.error);
  for (guint i = 0; i < n_commands; i++)
    {
      const char *words[] = { commands[i]->name, NULL };
      const MdlCliCommand *const *sub = commands[i]->subcommands;
      int rc = mdl_cli_with_options (words, 1, command_page, &run);
      for (; rc == MDL_CLI_OK && sub && *sub; sub++)
        {
          words[1] = strrchr ((*sub)->name, ' ') + 1;
          rc = mdl_cli_with_options (words, 2, command_page, &run);
        }
      if (rc != MDL_CLI_OK)
        {
          if (run.error == NULL)
            mdl_cli_warn ("%s: the command did not reach its option parser", commands[i]->name);
          return run.error ? mdl_cli_fail (run.error) : MDL_CLI_BAD_INPUT;
        }
    }
  return MDL_CLI_OK;
}
