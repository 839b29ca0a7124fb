/* What the line-oriented readers (Lackey, din, warp) share: cutting the buffer into lines, the batch of
 * records their lines become, and quoting a bad line for an error message. */
#include "trace-private.h"

MdlTextLine
mdl_text_next_line (MdlTraceReader *r, guint64 *line_no, const char **line, gsize *len,
                    gsize *consumed, GError **error)
{
  for (;;)
    {
      const char *s = (const char *) r->buf + r->pos;
      gsize avail = r->len - r->pos;
      const char *nl = memchr (s, '\n', MIN (avail, MDL_LACKEY_LINE_MAX + 1));
      *line = s;
      if (nl != NULL)
        {
          *len = (gsize) (nl - s);
          *consumed = *len + 1;
        }
      else if (avail > MDL_LACKEY_LINE_MAX)
        {
          (*line_no)++;
          *len = avail;
          return MDL_TEXT_TOO_LONG;
        }
      else if (!r->eof)
        {
          if (!mdl_trace_reader_fill (r, avail + 1, error))
            return MDL_TEXT_FAILED;
          continue;
        }
      else if (avail == 0)
        {
          r->done = TRUE;
          return MDL_TEXT_END;
        }
      else if (r->gzip_cut)
        {
          /* The gzip data was cut short, and with it this line: dropped rather than misread
           * (" L 7ff0,1" of " L 7ff0,16"). Without salvage the pump fails with the cut anyway. */
          char *note = g_strdup_printf ("%s; its last line, cut, was dropped", r->gzip_cut);
          g_free (r->gzip_cut);
          r->gzip_cut = note;
          r->pos = r->len;
          r->done = TRUE;
          return MDL_TEXT_END;
        }
      else
        {
          /* The last line has no newline. Every writer of these formats (Valgrind, Dinero, ours)
           * ends each line with one, so a line without it is a trace cut mid-record: "L 7ff8,1"
           * cut from "L 7ff8,16" parses, with the wrong size. Only blanks may follow the last
           * newline. */
          gsize i = 0;
          while (i < avail && g_ascii_isspace (s[i]))
            i++;
          if (i == avail)
            {
              r->pos += avail;
              r->done = TRUE;
              return MDL_TEXT_END;
            }
          (*line_no)++;
          {
            char *quoted = mdl_text_quote (s, avail);
            g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%" G_GUINT64_FORMAT ": the last "
                         "line, \"%s\", has no newline: the trace ends mid-line (cut short?), so "
                         "its last record cannot be trusted; a complete text trace ends every line "
                         "with a newline", r->name, *line_no, quoted);
            g_free (quoted);
          }
          return MDL_TEXT_FAILED;
        }
      if (*len > 0 && s[*len - 1] == '\r')
        (*len)--;
      (*line_no)++;
      return MDL_TEXT_OK;
    }
}

char *
mdl_text_quote (const char *s, gsize len)
{
  GString *q = g_string_new (NULL);
  for (gsize i = 0; i < len && i < MDL_TEXT_QUOTE_MAX; i++)
    {
      guchar c = (guchar) s[i];
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
        g_string_append_c (q, (char) c);
      else
        g_string_append_printf (q, "\\x%02x", c);
    }
  if (len > MDL_TEXT_QUOTE_MAX)
    g_string_append (q, "...");
  return g_string_free (q, FALSE);
}

gboolean
mdl_text_reader_start (MdlTraceReader *r, GError **error)
{
  MdlTextBatch *b = r->priv;
  (void) error;
  b->ops_at = G_MAXSIZE;
  return TRUE;
}

gboolean
mdl_text_batch_deliver (MdlTraceReader *r, MdlTextBatch *b, const MdlSink *sink, GError **error)
{
  MdlEventBatch batch = { .cpu = b->out, .n_cpu = b->n_out };
  if (b->n_out == 0)
    return TRUE;
  r->n_records += b->n_out;
  b->n_out = 0;
  b->ops_at = G_MAXSIZE;
  return sink->batch (sink->data, &batch, error);
}

void
mdl_text_batch_count_op (MdlTextBatch *b)
{
  if (b->ops_at == G_MAXSIZE)
    {
      b->ops_at = b->n_out;
      b->out[b->n_out++] = (MdlCpuEvent) { .kind = MDL_CPU_OPS, .addr = 0 };
    }
  b->out[b->ops_at].addr++;
}
