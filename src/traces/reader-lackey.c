/* Reader of Valgrind Lackey text (`valgrind --tool=lackey --trace-mem=yes`), docs/trace-format.md.
 *
 * "I  addr,size" is one executed instruction: a RAM operation, not a data access, so a run of them
 * becomes one MDL_CPU_OPS record counting the run (this keeps a Lackey trace about half as many
 * records as lines). " L", " S" and " M" become read, write and modify records; thread and site are
 * 0, as Lackey has neither. With fetches kept (mdl_trace_reader_set_fetches) every "I" line also
 * becomes a read flagged MDL_CPU_FLAG_FETCH, after the op count of its run. Valgrind's own lines
 * ("==pid== ...", also "--pid--" and "**pid**") and empty lines are skipped and counted. Everything
 * else is an error naming the line.
 *
 * Lines are parsed by hand out of the reader's big buffer: a table lookup per hex digit and no
 * sscanf, since a Lackey trace of a short run already has hundreds of millions of lines. */
#include "trace-private.h"


/* Hex digit values, -1 for other bytes. */
static const gint8 hex_value[256] = {
  ['0'] = 0 + 1, ['1'] = 1 + 1, ['2'] = 2 + 1, ['3'] = 3 + 1, ['4'] = 4 + 1, ['5'] = 5 + 1,
  ['6'] = 6 + 1, ['7'] = 7 + 1, ['8'] = 8 + 1, ['9'] = 9 + 1, ['a'] = 10 + 1, ['b'] = 11 + 1,
  ['c'] = 12 + 1, ['d'] = 13 + 1, ['e'] = 14 + 1, ['f'] = 15 + 1, ['A'] = 10 + 1,
  ['B'] = 11 + 1, ['C'] = 12 + 1, ['D'] = 13 + 1, ['E'] = 14 + 1, ['F'] = 15 + 1,
};
/* Why the "+ 1" above: the table is zero-initialised, so 0 must mean "not a hex digit";
 * HEX() undoes the offset. */
#define HEX(c) (hex_value[(guint8) (c)] - 1)

static gboolean
line_error (MdlTraceReader *r, GError **error, const char *s, gsize len, const char *why)
{
  MdlTextBatch *k = r->priv;
  char *quoted = mdl_text_quote (s, len);
  if (why)
    g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%" G_GUINT64_FORMAT ": %s in \"%s\"",
                 r->name, k->line, why, quoted);
  else
    g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%" G_GUINT64_FORMAT
                 ": expected \"<I|L|S|M> addr,size\", got \"%s\"", r->name, k->line, quoted);
  g_free (quoted);
  return FALSE;
}

/* Most commands kept in the "commands" metadata; a shell script running a loop of programs would
 * otherwise grow it without bound. Beyond it, one last line "..." says that more ran. */
#define MAX_COMMANDS 64

/* Valgrind starts the log of every process it runs with "==PID== Command: PROGRAM ARGS"; with
 * --trace-children=yes there is one per process. They go, one per line, into the metadata key
 * "commands", so that a report can say which programs the trace covers (a launcher script that
 * execs the real program is a process of its own). */
static void
note_command (MdlTraceReader *r, const char *s, gsize len)
{
  static const char tag[] = " Command: ";
  const char *end = s + len, *at;
  const char *old;
  guint n = 0;
  g_autofree char *cmd = NULL;
  if (len < 4 || s[0] != '=' || (at = g_strstr_len (s + 2, (gssize) (len - 2), "== ")) == NULL
      || (gsize) (end - at - 2) < sizeof tag - 1 || memcmp (at + 2, tag, sizeof tag - 1) != 0)
    return;
  for (const char *p = s + 2; p < at; p++)
    if (!g_ascii_isdigit (*p))
      return;
  cmd = g_strndup (at + 2 + sizeof tag - 1, (gsize) (end - at - 2 - (sizeof tag - 1)));
  old = g_hash_table_lookup (r->meta, "commands");
  for (const char *p = old; p && *p; p++)
    n += *p == '\n';
  if (n > MAX_COMMANDS)
    return;
  if (n == MAX_COMMANDS)
    cmd = (g_free (cmd), g_strdup ("..."));
  g_hash_table_insert (r->meta, g_strdup ("commands"),
                       g_strconcat (old ? old : "", cmd, "\n", NULL));
}

/* Parses "addr,size" from s[3..len); returns NULL or why the line is bad (a static string, or one
 * formatted into @why_buf). */
static const char *
parse_fields (const char *s, gsize len, gboolean instruction, guint64 *addr, guint *size,
              char *why_buf, gsize why_len)
{
  gsize i = 3;
  guint64 a = 0;
  guint64 n = 0;
  gsize digits;

  for (digits = 0; i < len && HEX (s[i]) >= 0; i++, digits++)
    {
      if (a >> 60)
        return "address wider than 64 bits";
      a = (a << 4) | (guint64) HEX (s[i]);
    }
  if (i < len && s[i] != ',' && g_ascii_isalnum (s[i]))
    {
      g_snprintf (why_buf, why_len, "'%c' is not a hex digit", s[i]);
      return why_buf;
    }
  if (digits == 0)
    return "missing address";
  if (i == len || s[i] != ',')
    return "expected ',' after the address";
  for (i++, digits = 0; i < len && g_ascii_isdigit (s[i]); i++, digits++)
    n = MIN (n * 10 + (guint64) (s[i] - '0'), (guint64) G_MAXUINT32);
  if (digits == 0)
    return i < len ? "expected a decimal size after ','" : "missing size";
  if (i < len)
    return "trailing characters after the size";
  if (!instruction && (n == 0 || n > G_MAXUINT16))
    {
      g_snprintf (why_buf, why_len, "size %" G_GUINT64_FORMAT "%s outside 1..65535", n,
                  n == G_MAXUINT32 ? "+" : "");
      return why_buf;
    }
  if (mdl_access_wraps (a, (guint) MIN (n, (guint64) G_MAXUINT16)))
    return "the access runs past the top of the 64-bit address space";
  *addr = a;
  *size = (guint) n;
  return NULL;
}

static gboolean
lackey_pump (MdlTraceReader *r, const MdlSink *sink, guint64 budget, GError **error)
{
  MdlTextBatch *k = r->priv;
  guint64 created = 0;
  char why_buf[64];

  for (;;)
    {
      const char *s, *why;
      gsize len, consumed;
      guint64 addr = 0;
      guint size = 0;
      guint8 kind;

      switch (mdl_text_next_line (r, &k->line, &s, &len, &consumed, error))
        {
        case MDL_TEXT_OK: break;
        case MDL_TEXT_END: return mdl_text_batch_deliver (r, k, sink, error);
        case MDL_TEXT_TOO_LONG:
          return line_error (r, error, s, len, "line longer than 65536 bytes");
        case MDL_TEXT_FAILED: return FALSE;
        }
      if (len == 0 || mdl_lackey_is_banner (s, len))
        {
          note_command (r, s, len);
          r->n_skipped++;
          r->pos += consumed;
          continue;
        }
      if (len >= 3 && s[0] == 'I' && s[1] == ' ' && s[2] == ' ')
        {
          why = parse_fields (s, len, TRUE, &addr, &size, why_buf, sizeof why_buf);
          if (why)
            return line_error (r, error, s, len, why);
          if (r->fetches)
            {
              /* The fetch, and the op count of its run opened first if there is none. */
              guint need = 1 + (k->ops_at == G_MAXSIZE);
              if (created + need > budget && created > 0)
                {
                  k->line--;
                  break;
                }
              if (k->n_out + need > MDL_TEXT_BATCH && !mdl_text_batch_deliver (r, k, sink, error))
                return FALSE;
              mdl_text_batch_count_op (k);
              k->out[k->n_out++] = (MdlCpuEvent) { .kind = MDL_CPU_READ,
                                                   .flags = MDL_CPU_FLAG_FETCH,
                                                   .size = (guint16) CLAMP (size, 1, G_MAXUINT16),
                                                   .addr = addr };
              created += need;
              r->pos += consumed;
              continue;
            }
          if (k->ops_at != G_MAXSIZE)
            {
              k->out[k->ops_at].addr++;
              r->pos += consumed;
              continue;
            }
          kind = MDL_CPU_OPS;
          addr = 1;
          size = 0;
        }
      else if (len >= 3 && s[0] == ' ' && s[2] == ' '
               && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M'))
        {
          why = parse_fields (s, len, FALSE, &addr, &size, why_buf, sizeof why_buf);
          if (why)
            return line_error (r, error, s, len, why);
          kind = s[1] == 'L' ? MDL_CPU_READ : s[1] == 'S' ? MDL_CPU_WRITE : MDL_CPU_MODIFY;
        }
      else
        return line_error (r, error, s, len, NULL);

      /* The line starts a new record. */
      if (created == budget)
        {
          k->line--;   /* not consumed: the next call parses it again */
          break;
        }
      if (k->n_out == MDL_TEXT_BATCH && !mdl_text_batch_deliver (r, k, sink, error))
        return FALSE;
      k->out[k->n_out++] = (MdlCpuEvent) { .kind = kind, .size = (guint16) size, .addr = addr };
      k->ops_at = kind == MDL_CPU_OPS ? k->n_out - 1 : G_MAXSIZE;
      created++;
      r->pos += consumed;
    }
  return mdl_text_batch_deliver (r, k, sink, error);
}

const MdlTraceReaderClass mdl_trace_reader_lackey_class = {
  .priv_bytes = sizeof (MdlTextBatch),
  .start = mdl_text_reader_start,
  .pump = lackey_pump,
};
