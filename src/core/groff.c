/* groff text escaping (groff.h). Dashes become \- so that options copy and paste as ASCII. */
#include "core/groff.h"

#include <string.h>

void
mdl_groff_text (GString *out, const char *text, gssize len)
{
  const char *end = len < 0 ? text + strlen (text) : text + len;
  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      gboolean line_start = out->len == 0 || out->str[out->len - 1] == '\n';
      if (line_start && (c == '.' || c == '\''))
        g_string_append (out, "\\&");
      if (c == '\\')
        g_string_append (out, "\\e");
      else if (c == '-')
        g_string_append (out, "\\-");
      else if (c >= 0x80)
        g_string_append_printf (out, "\\[u%04X]", c);
      else
        g_string_append_c (out, (char) c);
    }
}

void
mdl_groff_paragraph (GString *out, char **lines, guint n)
{
  gboolean keep_lines = FALSE;
  for (guint i = 1; i < n; i++)
    keep_lines = keep_lines || g_str_has_prefix (lines[i], " ");
  g_string_append (out, keep_lines ? ".PP\n.nf\n" : ".PP\n");
  for (guint i = 0; i < n; i++)
    {
      const char *line = keep_lines ? lines[i] : g_strstrip (lines[i]);
      gsize len = strlen (line);
      mdl_groff_text (out, line, -1);
      /* A word the help text broke at its hyphen ("leave-one-algorithm-" / "out") stays whole. */
      if (!keep_lines && len >= 2 && line[len - 1] == '-' && g_ascii_isalpha (line[len - 2]))
        g_string_append (out, "\\c");
      g_string_append_c (out, '\n');
    }
  if (keep_lines)
    g_string_append (out, ".fi\n");
}
