/* Reader of Dinero IV's text traces (docs/trace-format.md, "Dinero din"), both variants:
 *
 *  - classic din (Dinero's -informat d): "LABEL ADDRESS" per line, both hex (an optional 0x), the
 *    rest of the line ignored. Labels 0 read, 1 write, 2 instruction fetch, 3 miscellaneous (read
 *    as a read), 4 copy-back and 5 invalidate. As Dinero IV does for this format, the address is
 *    rounded down to a multiple of 4 and the reference is 4 bytes long.
 *  - extended din (-informat D): "TYPE ADDRESS SIZE", TYPE one of r w i m c v (either case),
 *    ADDRESS and SIZE hex; the rest of the line is ignored.
 * The first record decides the variant (a digit: classic, a letter: extended) and every later
 * record must follow it. Copy-back and invalidate records have no event form: they are skipped and
 * counted, like empty lines and '#' comment lines. An instruction fetch is one RAM operation, as a
 * Lackey "I" line is (one MDL_CPU_OPS record per run of them); with fetches kept
 * (mdl_trace_reader_set_fetches) each also becomes a read record flagged MDL_CPU_FLAG_FETCH.
 * Anything else is an error naming FILE:LINE. Lines are parsed by hand, as in reader-lackey.c. */
#include "trace-private.h"


enum { VARIANT_UNKNOWN = 0, VARIANT_CLASSIC, VARIANT_EXTENDED };

/* What a record becomes. */
enum { DIN_READ, DIN_WRITE, DIN_FETCH, DIN_SKIP };

typedef struct {
  MdlTextBatch batch;       /* first: the line number is batch.line */
  guint64 first_line;       /* the line of the first record, which set the variant */
  int variant;
} DinReader;

static gboolean
line_error (MdlTraceReader *r, GError **error, const char *s, gsize len, const char *why)
{
  DinReader *d = r->priv;
  char *quoted = mdl_text_quote (s, len);
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%" G_GUINT64_FORMAT ": %s, got \"%s\"",
               r->name, d->batch.line, why, quoted);
  g_free (quoted);
  return FALSE;
}

static inline gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* Reads the hex @field (an optional 0x) at s[*i..len); NULL, or why it is bad in @why_buf. */
static const char *
parse_hex (const char *s, gsize len, gsize *i, guint64 *out, const char *field, char *why_buf,
           gsize why_len)
{
  guint64 v = 0;
  gsize digits = 0;
  if (*i + 1 < len && s[*i] == '0' && (s[*i + 1] == 'x' || s[*i + 1] == 'X'))
    *i += 2;
  for (; *i < len && g_ascii_isxdigit (s[*i]); (*i)++, digits++)
    {
      if (v >> 60)
        {
          g_snprintf (why_buf, why_len, "%s wider than 64 bits", field);
          return why_buf;
        }
      v = (v << 4) | (guint64) g_ascii_xdigit_value (s[*i]);
    }
  if (digits == 0 || (*i < len && !is_blank (s[*i])))
    {
      if (*i < len && !is_blank (s[*i]))
        g_snprintf (why_buf, why_len, "%s: '%c' is not a hex digit", field,
                    g_ascii_isprint (s[*i]) ? s[*i] : '?');
      else
        g_snprintf (why_buf, why_len, "missing %s (hex)", field);
      return why_buf;
    }
  *out = v;
  return NULL;
}

static inline void
skip_blanks (const char *s, gsize len, gsize *i)
{
  while (*i < len && is_blank (s[*i]))
    (*i)++;
}

/* Parses one record line (not empty, not a comment) into @what, @addr, @size; NULL or why not. */
static const char *
parse_record (DinReader *d, const char *s, gsize len, guint *what, guint64 *addr, guint *size,
              char *why_buf, gsize why_len)
{
  gsize i = 0;
  guint64 label = 0, n = 4;
  const char *why;
  skip_blanks (s, len, &i);
  if (d->variant == VARIANT_UNKNOWN)
    d->variant = g_ascii_isdigit (s[i]) ? VARIANT_CLASSIC : VARIANT_EXTENDED;
  if (d->variant == VARIANT_CLASSIC)
    {
      if (!g_ascii_isxdigit (s[i]))
        return "expected a classic din record \"LABEL ADDRESS\" (this trace is classic din from "
               "its first record)";
      if ((why = parse_hex (s, len, &i, &label, "label", why_buf, why_len)) != NULL)
        return why;
      switch (label)
        {
        case 0: case 3: *what = DIN_READ; break;
        case 1: *what = DIN_WRITE; break;
        case 2: *what = DIN_FETCH; break;
        case 4: case 5: *what = DIN_SKIP; break;
        default:
          return "unknown label (valid: 0 read, 1 write, 2 instruction fetch, 3 misc, "
                 "4 copy-back, 5 invalidate)";
        }
    }
  else
    {
      switch (s[i])
        {
        case 'r': case 'R': case 'm': case 'M': *what = DIN_READ; break;
        case 'w': case 'W': *what = DIN_WRITE; break;
        case 'i': case 'I': *what = DIN_FETCH; break;
        case 'c': case 'C': case 'v': case 'V': *what = DIN_SKIP; break;
        default:
          return d->first_line == d->batch.line
                   ? "expected a din record: \"LABEL ADDRESS\" (classic) or \"TYPE ADDRESS SIZE\" "
                     "(extended, TYPE one of r w i m c v)"
                   : "expected an extended din record \"TYPE ADDRESS SIZE\", TYPE one of r w i m c v "
                     "(this trace is extended din from its first record)";
        }
      i++;
      if (i < len && !is_blank (s[i]))
        return "the access type is one letter (r w i m c v)";
    }
  skip_blanks (s, len, &i);
  if ((why = parse_hex (s, len, &i, addr, "address", why_buf, why_len)) != NULL)
    return why;
  if (d->variant == VARIANT_EXTENDED)
    {
      skip_blanks (s, len, &i);
      if ((why = parse_hex (s, len, &i, &n, "size", why_buf, why_len)) != NULL)
        return why;
      if (n == 0 || n > G_MAXUINT16)
        {
          g_snprintf (why_buf, why_len, "size 0x%" G_GINT64_MODIFIER "x outside 1..0xffff", n);
          return why_buf;
        }
    }
  else
    *addr &= ~(guint64) 3;   /* Dinero IV's din is word-oriented: 4 bytes at a 4-byte boundary */
  if (mdl_access_wraps (*addr, (guint) n))
    return "the access runs past the top of the 64-bit address space";
  *size = (guint) n;
  return NULL;
}

static gboolean
din_pump (MdlTraceReader *r, const MdlSink *sink, guint64 budget, GError **error)
{
  DinReader *d = r->priv;
  MdlTextBatch *b = &d->batch;
  guint64 created = 0;
  char why_buf[96];

  for (;;)
    {
      const char *s, *why;
      gsize len, consumed, i = 0;
      guint64 addr = 0;
      guint size = 0, what = DIN_SKIP, need;

      switch (mdl_text_next_line (r, &b->line, &s, &len, &consumed, error))
        {
        case MDL_TEXT_OK: break;
        case MDL_TEXT_END: return mdl_text_batch_deliver (r, b, sink, error);
        case MDL_TEXT_TOO_LONG:
          return line_error (r, error, s, len, "line longer than 65536 bytes");
        case MDL_TEXT_FAILED: return FALSE;
        }
      skip_blanks (s, len, &i);
      if (i == len || s[i] == '#')
        {
          r->n_skipped++;
          r->pos += consumed;
          continue;
        }
      if (d->first_line == 0)
        d->first_line = b->line;
      if ((why = parse_record (d, s, len, &what, &addr, &size, why_buf, sizeof why_buf)) != NULL)
        return line_error (r, error, s, len, why);
      if (what == DIN_SKIP)
        {
          r->n_skipped++;
          r->pos += consumed;
          continue;
        }
      /* Records this line adds: a fetch extends an open op count, or opens one, and with fetches
       * kept adds its read. */
      need = what != DIN_FETCH ? 1 : (b->ops_at == G_MAXSIZE) + (r->fetches ? 1 : 0);
      if (need > 0 && created + need > budget && created > 0)
        {
          b->line--;   /* not consumed: the next call parses it again */
          break;
        }
      if (b->n_out + need > MDL_TEXT_BATCH && !mdl_text_batch_deliver (r, b, sink, error))
        return FALSE;
      if (what == DIN_FETCH)
        {
          mdl_text_batch_count_op (b);
          if (r->fetches)
            b->out[b->n_out++] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH,
                                                 .size = (guint16) size, .addr = addr };
        }
      else
        {
          b->out[b->n_out++] = (MdlCpuEvent) { .kind = what == DIN_WRITE ? MDL_CPU_WRITE
                                                                         : MDL_CPU_READ,
                                               .size = (guint16) size, .addr = addr };
          b->ops_at = G_MAXSIZE;
        }
      created += need;
      r->pos += consumed;
    }
  return mdl_text_batch_deliver (r, b, sink, error);
}

const MdlTraceReaderClass mdl_trace_reader_din_class = {
  .priv_bytes = sizeof (DinReader),
  .start = mdl_text_reader_start,
  .pump = din_pump,
};
