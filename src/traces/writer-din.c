/* Writer of Dinero IV extended din text (docs/trace-format.md, "Dinero din"): one line
 * "TYPE ADDRESS SIZE" per reference, ADDRESS and SIZE in lower-case hex, which `dineroIV -informat D`
 * reads and our din reader reads back as the same accesses. The extended form is written rather
 * than the classic one because it keeps sizes: classic din would turn every access into a 4-byte
 * word. A read is "r", a write "w", a modify "r" then "w" of the same bytes (Dinero has no
 * modify), a fetch record "i". Markers and branch records have no din form: they are left out
 * and counted (mdl_trace_writer_n_dropped); warp events fail with MDL_ERROR_UNSUPPORTED.
 *
 * Op counts are kept, because an "i" line is what din has for an executed instruction and every
 * din reader counts it (ours reads each as one RAM operation, so VAT's cost survives a conversion
 * from Lackey; leaving them out lost every one of them). The stream a reader with fetches kept
 * produces has each run's op count followed by that many fetch records: those fetches already are
 * the run's "i" lines. So an op count is owed rather than written, each fetch pays one, and what
 * is still owed when a data access or the end comes is written as "i 0 1" placeholders (the
 * instructions' addresses are not in the stream; with fetches kept they read back as 1-byte
 * fetches at address 0, as the Lackey writer's "I  00000000,0" do). */
#include "trace-private.h"

/* The longest line: "r " + 16 hex digits + " " + 4 hex digits + "\n". */
#define LINE_MAX_BYTES 32

/* Writes "T ADDR SIZE\n" at @p; returns the bytes written. */
static gsize
format_line (char *p, char type, guint64 addr, guint size)
{
  static const char digits[] = "0123456789abcdef";
  guint n_addr = addr ? (guint) (16 - __builtin_clzll (addr) / 4) : 1;
  guint n_size = (guint) (8 - __builtin_clz (size) / 4);   /* size >= 1 */
  char *q = p;
  *q++ = type;
  *q++ = ' ';
  for (guint i = n_addr; i-- > 0;)
    *q++ = digits[(addr >> (4 * i)) & 0xf];
  *q++ = ' ';
  for (guint i = n_size; i-- > 0;)
    *q++ = digits[(size >> (4 * i)) & 0xf];
  *q++ = '\n';
  return (gsize) (q - p);
}

static gboolean
put (MdlTraceWriter *w, char type, const MdlCpuEvent *e, GError **error)
{
  guint8 *p = mdl_trace_writer_reserve (w, LINE_MAX_BYTES, error);
  if (p == NULL)
    return FALSE;
  w->len += format_line ((char *) p, type, e->addr, e->size);
  return TRUE;
}

static const char placeholder_line[] = "i 0 1\n";

/* Writes the op count still owed as placeholder "i" lines. */
static gboolean
pay_ops (MdlTraceWriter *w, GError **error)
{
  guint64 n = w->ops_owed;
  w->ops_owed = 0;
  return mdl_trace_writer_repeat (w, placeholder_line, sizeof placeholder_line - 1, n, error);
}

static gboolean
din_batch (MdlTraceWriter *w, const MdlEventBatch *batch, GError **error)
{
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      gboolean fetch = e->kind == MDL_CPU_READ && e->flags == MDL_CPU_FLAG_FETCH;
      gboolean ok;
      char *why = mdl_trace_cpu_problem (e->kind, fetch ? 0 : e->flags, e->size, e->addr);
      if (why)
        {
          mdl_trace_writer_fail (w, error, why);
          g_free (why);
          return FALSE;
        }
      if (e->kind == MDL_CPU_BRANCH)
        {
          w->n_dropped++;
          continue;
        }
      if (e->kind == MDL_CPU_OPS)
        {
          if (e->addr > MDL_TRACE_TEXT_OPS_MAX)
            return mdl_trace_writer_fail_ops (w, e->addr, "din", error);
          w->ops_owed += e->addr;
          ok = TRUE;
        }
      else if (fetch)
        {
          /* Pays one owed op; a fetch that follows no op count still reads back as one. */
          w->ops_owed -= w->ops_owed > 0;
          ok = put (w, 'i', e, error);
        }
      else
        {
          ok = pay_ops (w, error);
          if (ok && e->kind != MDL_CPU_WRITE)
            ok = put (w, 'r', e, error);
          if (ok && e->kind != MDL_CPU_READ)
            ok = put (w, 'w', e, error);
        }
      if (!ok)
        return FALSE;
      w->n_records++;
    }
  return TRUE;
}

const MdlTraceWriterClass mdl_trace_writer_din_class = {
  .name = "din text",
  .cpu = TRUE,
  .batch = din_batch,
  .finish = pay_ops,
};
