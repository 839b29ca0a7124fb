/* Trace format names and detection. Detection looks only at the first bytes of the decompressed
 * stream: the binary format announces itself with its magic; Lackey text is recognised by its first
 * non-empty line, either a Valgrind banner line or a record line. Deciding on one line is enough
 * because the reader validates every later line anyway and names the first bad one. */
#include "trace-private.h"

static const char *const format_names[] = { "auto", "bin", "lackey", "din", "raw", "warp" };

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
               "unknown trace format \"%s\" (valid: auto, bin, lackey, din, raw, warp)", name);
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

/* A line that starts like a Dinero din record: classic "LABEL ADDRESS" (a digit first) or
 * extended "TYPE ADDRESS SIZE" (TYPE one of r w i m c v), fields separated by blanks. */
static gboolean
looks_like_din (const char *line, gsize len)
{
  gsize i = 0, fields = 0;
  gboolean extended;
  while (i < len && (line[i] == ' ' || line[i] == '\t'))
    i++;
  if (i == len)
    return FALSE;
  extended = strchr ("rwimcvRWIMCV", line[i]) != NULL;
  if (!extended && !g_ascii_isdigit (line[i]))
    return FALSE;
  while (i < len && fields < (extended ? 3u : 2u))
    {
      gsize start = i;
      if (fields > 0 && i + 1 < len && line[i] == '0' && (line[i + 1] == 'x' || line[i + 1] == 'X'))
        i += 2;
      while (i < len && line[i] != ' ' && line[i] != '\t'
             && (fields == 0 ? i == start || g_ascii_isxdigit (line[i]) || line[i] == 'x'
                             : g_ascii_isxdigit (line[i])))
        i++;
      if (i == start || (i < len && line[i] != ' ' && line[i] != '\t'))
        return FALSE;
      fields++;
      while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    }
  return fields == (extended ? 3u : 2u);
}

/* A line of the warp text format: "launch ...", "sync", "bar B" or "B W OP ..." with a known op. */
static gboolean
looks_like_warp (const char *line, gsize len)
{
  static const char *const ops[] = { "ld ", "st ", "atom ", "atom.", "alu ", "branch ",
                                     "jump ", "bar ", "shfl ", "vote " };
  gsize i = 0;
  if ((len >= 7 && memcmp (line, "launch ", 7) == 0) || (len == 4 && memcmp (line, "sync", 4) == 0)
      || (len >= 5 && memcmp (line, "bar ", 4) == 0 && g_ascii_isdigit (line[4])))
    return TRUE;
  for (guint field = 0; field < 2; field++)
    {
      gsize start = i;
      while (i < len && g_ascii_isdigit (line[i]))
        i++;
      if (i == start || i == len || line[i] != ' ')
        return FALSE;
      while (i < len && line[i] == ' ')
        i++;
    }
  for (guint k = 0; k < G_N_ELEMENTS (ops); k++)
    if (len - i > strlen (ops[k]) && memcmp (line + i, ops[k], strlen (ops[k])) == 0)
      return TRUE;
  return FALSE;
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
      /* '#' comment lines, which only din allows, do not decide. */
      if (line_len > 0 && text[pos] != '#' && looks_like_warp (text + pos, line_len))
        return MDL_TRACE_WARP;
      if (line_len > 0 && text[pos] != '#')
        return mdl_lackey_is_banner (text + pos, line_len)
                   || looks_like_record (text + pos, line_len)
                 ? MDL_TRACE_LACKEY
               : looks_like_din (text + pos, line_len) ? MDL_TRACE_DIN
                                                       : MDL_TRACE_AUTO;
      pos += raw_len + 1;
    }
  return MDL_TRACE_AUTO;
}
