/* Trace format names and detection. Detection looks only at the first bytes of the decompressed
 * stream: the binary format announces itself with its magic; Lackey text is recognised by its first
 * non-empty line, either a Valgrind banner line or a record line. Deciding on one line is enough
 * because the reader validates every later line anyway and names the first bad one. */
#include "trace-private.h"

static const char *const format_names[] = { "auto", "bin", "lackey" };

const char *
mdl_trace_format_name (MdlTraceFormat format)
{
  return (guint) format < G_N_ELEMENTS (format_names) ? format_names[format] : NULL;
}

gboolean
mdl_trace_format_from_name (const char *name, MdlTraceFormat *format, GError **error)
{
  g_return_val_if_fail (name != NULL && format != NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (format_names); i++)
    if (strcmp (name, format_names[i]) == 0)
      {
        *format = (MdlTraceFormat) i;
        return TRUE;
      }
  g_set_error (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME,
               "unknown trace format \"%s\" (valid: auto, bin, lackey)", name);
  return FALSE;
}

gboolean
mdl_lackey_is_banner (const char *line, gsize len)
{
  return len >= 2 && line[0] == line[1] && (line[0] == '=' || line[0] == '-' || line[0] == '*');
}

/* A line that starts like a Lackey record: "I  " or " L ", " S ", " M " and a hex digit. */
static gboolean
looks_like_record (const char *line, gsize len)
{
  gboolean head = len >= 4 && ((line[0] == 'I' && line[1] == ' ' && line[2] == ' ')
                               || (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M')
                                   && line[2] == ' '));
  return head && g_ascii_isxdigit (line[3]);
}

MdlTraceFormat
mdl_trace_detect (const guint8 *data, gsize len)
{
  const char *text = (const char *) data;
  gsize pos = 0;

  if (len >= 8 && memcmp (data, MDL_BIN_MAGIC, 8) == 0)
    return MDL_TRACE_BIN;
  while (pos < len)
    {
      const char *nl = memchr (text + pos, '\n', len - pos);
      gsize raw_len = nl ? (gsize) (nl - (text + pos)) : len - pos;
      gsize line_len = raw_len;
      if (line_len > 0 && text[pos + line_len - 1] == '\r')
        line_len--;
      if (line_len > 0)
        return mdl_lackey_is_banner (text + pos, line_len)
                   || looks_like_record (text + pos, line_len)
                 ? MDL_TRACE_LACKEY
                 : MDL_TRACE_AUTO;
      pos += raw_len + 1;
    }
  return MDL_TRACE_AUTO;
}
