/* JSON strings and CSV fields (src/core/json.h). */
#include "core/json.h"

#include <string.h>

void
mdl_json_string (GString *out, const char *s)
{
  g_autofree char *valid = NULL;
  /* JSON text is UTF-8 (RFC 8259, 8.1): a file name or a quoted line need not be, so bytes that
   * are not UTF-8 become U+FFFD, as g_utf8_make_valid does; a reader then sees where they were
   * without the whole document being rejected. */
  if (s && !g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  g_string_append_c (out, '"');
  for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (out, "\\%c", *p);
      else if (*p < 0x20)
        g_string_append_printf (out, "\\u%04x", *p);
      else
        g_string_append_c (out, (char) *p);
    }
  g_string_append_c (out, '"');
}

void
mdl_csv_append_field (GString *out, const char *s)
{
  if (s == NULL)
    return;
  if (strpbrk (s, ",\"\n") == NULL)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}
