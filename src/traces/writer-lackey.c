/* Writer of Valgrind Lackey text (docs/trace-format.md). Lackey can say less than our event stream:
 * an access keeps its kind, address and size, but not its thread or site; an op count of n becomes
 * n instruction lines "I  00000000,0" (Lackey has no count, and the instructions' addresses were
 * never kept), up to MDL_TRACE_TEXT_OPS_MAX; markers and branch records have no Lackey form and
 * are dropped and counted (mdl_trace_writer_n_dropped) rather than failing, so that a CPU trace with phases can
 * still be exported; warp events cannot be approximated and fail with MDL_ERROR_UNSUPPORTED.
 * Header metadata is ignored. */
#include "trace-private.h"

/* The longest line: " L " + 16 hex digits + "," + 5 digits + "\n". */
#define LINE_MAX_BYTES 32

static const char instruction_line[] = "I  00000000,0\n";
#define INSTRUCTION_BYTES (sizeof instruction_line - 1)

/* Writes " K ADDR,SIZE\n" at @p, the address in at least 8 lower-case hex digits as Lackey prints
 * it; returns the bytes written. */
static gsize
format_access (char *p, char kind, guint64 addr, guint size)
{
  static const char digits[] = "0123456789abcdef";
  guint n_hex = addr >> 32 ? (guint) (16 - __builtin_clzll (addr) / 4) : 8;
  char dec[8];
  guint n_dec = 0;
  char *q = p;

  *q++ = ' ';
  *q++ = kind;
  *q++ = ' ';
  for (guint i = n_hex; i-- > 0;)
    *q++ = digits[(addr >> (4 * i)) & 0xf];
  *q++ = ',';
  do
    dec[n_dec++] = (char) ('0' + size % 10);
  while ((size /= 10) != 0);
  while (n_dec > 0)
    *q++ = dec[--n_dec];
  *q++ = '\n';
  return (gsize) (q - p);
}

static gboolean
lackey_batch (MdlTraceWriter *w, const MdlEventBatch *batch, GError **error)
{
  static const char kind_letter[] = { 'L', 'S', 'M' };

  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      guint32 head = (guint32) e->kind | (guint32) e->flags << 8 | (guint32) e->size << 16;
      if (e->kind >= MDL_CPU_N_KINDS || !mdl_cpu_head_ok (head)
          || mdl_access_wraps (e->addr, e->size))
        return mdl_trace_writer_fail_cpu (w, e, error);
      if (e->kind == MDL_CPU_BRANCH)
        {
          w->n_dropped++;
          continue;
        }
      if (e->kind == MDL_CPU_OPS && e->addr > MDL_TRACE_TEXT_OPS_MAX)
        return mdl_trace_writer_fail_ops (w, e->addr, "Lackey", error);
      if (e->kind == MDL_CPU_OPS)
        {
          if (!mdl_trace_writer_repeat (w, instruction_line, INSTRUCTION_BYTES, e->addr, error))
            return FALSE;
        }
      else
        {
          guint8 *p = mdl_trace_writer_reserve (w, LINE_MAX_BYTES, error);
          if (p == NULL)
            return FALSE;
          w->len += format_access ((char *) p, kind_letter[e->kind], e->addr, e->size);
        }
      w->n_records++;
    }
  return TRUE;
}

const MdlTraceWriterClass mdl_trace_writer_lackey_class = {
  .name = "lackey text",
  .cpu = TRUE,
  .batch = lackey_batch,
};
