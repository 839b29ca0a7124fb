/* man-api: writes libmodels(3) from the public headers' doc comments, so that the page is the
 * headers and nothing else (`make man`; docs/contributing.md).
 *
 *   man-api OUT HEADER...
 *
 * One section per header: its opening comment, then every doc comment (`/ **` NAME: ...) in
 * order, a function's with its prototype. A doc comment is its first line "NAME: summary", lines
 * "@param: text" and "Returns:"/"Cost:" paragraphs, with indented lines continuing the one
 * above. Every MDL_API declaration must follow a doc comment that names it: one that does not
 * stops the build with FILE:LINE, so an undocumented function cannot reach the API. */
#include "core/groff.h"

#include <models/api.h>

#include <stdio.h>
#include <string.h>

/* The text of a comment's lines without the comment marks and the " * " prefix; indentation
 * beyond the prefix is kept (it marks continuation lines). */
static char *
comment_line (const char *line)
{
  const char *p = line;
  const char *end;
  while (*p == ' ')
    p++;
  if (g_str_has_prefix (p, "/**"))
    p += 3;
  else if (g_str_has_prefix (p, "/*"))
    p += 2;
  else if (*p == '*' && p[1] != '/')
    p++;
  if (*p == ' ')
    p++;
  end = strstr (p, "*/");
  return g_strchomp (g_strndup (p, end ? (gsize) (end - p) : strlen (p)));
}

/* A line "@name: text" that documents a parameter or a field. */
static gboolean
is_param (const char *line)
{
  return line[0] == '@' && line[1 + strspn (line + 1, "abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")] == ':';
}

/* Appends a doc comment's @lines (the first "NAME: summary" without its name): parameters as a
 * list, the rest as paragraphs, each "Returns:" or "Cost:" line starting one. */
static void
write_doc (GString *out, char **lines, guint n)
{
  for (guint i = 0; i < n;)
    {
      guint start = i;
      const char *colon = strchr (lines[i], ':');
      gboolean param = is_param (lines[i]);
      if (param)
        for (i++; i < n && g_str_has_prefix (lines[i], "  "); i++)
          ;
      else
        for (i++; i < n && !is_param (lines[i]) && !g_str_has_prefix (lines[i], "Returns:")
                  && !g_str_has_prefix (lines[i], "Cost:"); i++)
          ;
      if (param)
        {
          g_string_append (out, ".TP\n\\fI");
          mdl_groff_text (out, lines[start] + 1, colon - lines[start] - 1);
          g_string_append (out, "\\fR\n");
          memmove (lines[start], colon + 1, strlen (colon + 1) + 1);
          g_strchug (lines[start]);
          for (guint j = start; j < i; j++)
            {
              mdl_groff_text (out, g_strstrip (lines[j]), -1);
              g_string_append_c (out, '\n');
            }
        }
      else if (*lines[start])
        mdl_groff_paragraph (out, lines + start, i - start);
    }
}

/* Collapses a declaration's whitespace and drops the export mark. */
static char *
prototype (const char *decl)
{
  g_autoptr (GString) out = g_string_new (NULL);
  const char *p = decl + strlen ("MDL_API");
  for (; *p; p++)
    if (g_ascii_isspace (*p))
      {
        if (out->len && out->str[out->len - 1] != ' ')
          g_string_append_c (out, ' ');
      }
    else
      g_string_append_c (out, *p);
  return g_strstrip (g_string_free (g_steal_pointer (&out), FALSE));
}

/* The function a declaration declares: the identifier before its first '('. */
static char *
declared_name (const char *decl)
{
  const char *paren = strchr (decl, '(');
  const char *start;
  if (paren == NULL)
    return NULL;
  while (paren > decl && paren[-1] == ' ')
    paren--;
  for (start = paren; start > decl && (g_ascii_isalnum (start[-1]) || start[-1] == '_'); start--)
    ;
  return start < paren ? g_strndup (start, (gsize) (paren - start)) : NULL;
}

static gboolean
write_header (GString *out, const char *path, GError **error)
{
  g_autofree char *text = NULL, *base = g_path_get_basename (path);
  g_auto (GStrv) lines = NULL;
  g_autoptr (GPtrArray) doc = g_ptr_array_new_with_free_func (g_free);
  guint doc_line = 0;
  gboolean opening = TRUE;
  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  g_string_append_printf (out, ".SH \"<models/%s>\"\n", base);
  for (guint i = 0; lines[i]; i++)
    {
      const char *line = lines[i];
      gboolean doc_start = g_str_has_prefix (line + strspn (line, " "), "/**");
      if ((opening && g_str_has_prefix (line, "/*")) || doc_start)
        {
          g_autoptr (GPtrArray) body = g_ptr_array_new_with_free_func (g_free);
          for (;; i++)
            {
              char *l = comment_line (lines[i]);
              if (*l || body->len)
                g_ptr_array_add (body, l);
              else
                g_free (l);
              if (strstr (lines[i], "*/") || lines[i + 1] == NULL)
                break;
            }
          if (doc_start)
            {
              g_ptr_array_free (doc, TRUE);
              doc = g_steal_pointer (&body);
              doc_line = i + 1;
            }
          else
            {
              /* The opening comment, "libmodels: what the header holds. ..." */
              char *first = body->len ? body->pdata[0] : NULL;
              if (first && g_str_has_prefix (first, "libmodels: "))
                {
                  memmove (first, first + strlen ("libmodels: "),
                           strlen (first) - strlen ("libmodels: ") + 1);
                  first[0] = g_ascii_toupper (first[0]);
                }
              g_ptr_array_add (body, NULL);
              for (guint s = 0, e; s < body->len - 1; s = e + 1)
                {
                  for (e = s; body->pdata[e] && *(char *) body->pdata[e]; e++)
                    ;
                  if (e > s)
                    mdl_groff_paragraph (out, (char **) body->pdata + s, e - s);
                }
            }
          opening = FALSE;
          continue;
        }
      if (*line && !g_str_has_prefix (line, "#include"))
        opening = FALSE;
      if (g_str_has_prefix (line, "MDL_API "))
        {
          g_autoptr (GString) decl = g_string_new (line);
          g_autofree char *name = NULL, *proto = NULL;
          const char *doc_name = doc->len ? doc->pdata[0] : "";
          const char *colon = strchr (doc_name, ':');
          guint decl_line = i + 1;
          while (!strchr (lines[i], ';') && lines[i + 1])
            g_string_append_printf (decl, " %s", lines[++i]);
          name = declared_name (decl->str);
          if (name == NULL || colon == NULL || strncmp (doc_name, name, strlen (name)) != 0
              || doc_name + strlen (name) != colon)
            {
              g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "%s:%u: MDL_API %s has no doc comment naming it (\"/** %s: ...\")",
                           path, decl_line, name ? name : "declaration", name ? name : "NAME");
              return FALSE;
            }
          proto = prototype (decl->str);
          g_string_append (out, ".SS ");
          mdl_groff_text (out, name, -1);
          g_string_append (out, "\n.PP\n\\fB");
          mdl_groff_text (out, proto, -1);
          g_string_append (out, "\\fR\n");
        }
      else if (doc->len && *line && doc_line == i)
        {
          /* A type or a macro: its doc comment under its name. */
          const char *colon = strchr (doc->pdata[0], ':');
          g_string_append (out, ".SS ");
          mdl_groff_text (out, doc->pdata[0], colon ? colon - (char *) doc->pdata[0] : -1);
          g_string_append_c (out, '\n');
        }
      else
        continue;
      if (doc->len)
        {
          char *first = doc->pdata[0];
          const char *colon = strchr (first, ':');
          if (colon)
            memmove (first, colon + 1, strlen (colon + 1) + 1);
          g_strchug (first);
          write_doc (out, (char **) doc->pdata, doc->len);
          g_ptr_array_set_size (doc, 0);
        }
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  if (argc < 3)
    {
      fprintf (stderr, "usage: man-api OUT HEADER...\n");
      return 2;
    }
  g_string_append_printf (out, ".TH LIBMODELS 3 \"\" \"libmodels %s\" \"libmodels\"\n",
                          MDL_VERSION_STRING);
  /* No hyphenation or justification: prototypes must not break inside a name. */
  g_string_append (out, ".nh\n.ad l\n.SH NAME\nlibmodels \\- predict what algorithms cost on real "
                        "machines: the C library\n"
                        ".SH SYNOPSIS\n.nf\n.B #include <models/models.h>\n.PP\n");
  mdl_groff_text (out, "cc app.c $(pkg-config --cflags --libs models)", -1);
  g_string_append (out, "\n.fi\n.SH DESCRIPTION\n");
  mdl_groff_text (out, "The library behind models(1): event sources, engines, reports, "
                       "experiments. Each section below is one public header, with its "
                       "functions, types and constants as the header documents them.", -1);
  g_string_append_c (out, '\n');
  for (int i = 2; i < argc; i++)
    if (!write_header (out, argv[i], &error))
      {
        fprintf (stderr, "man-api: %s\n", error->message);
        return 1;
      }
  g_string_append (out, ".SH \"SEE ALSO\"\n.BR models (1)\n");
  if (!g_file_set_contents (argv[1], out->str, (gssize) out->len, &error))
    {
      fprintf (stderr, "man-api: %s\n", error->message);
      return 1;
    }
  return 0;
}
