/* VAT replacement policy `fifo`, a baseline: evict the node inserted longest ago, hits or not.
 * Cells fill in order and are then reused round robin, which is exactly first-in first-out. It is
 * not a stack algorithm (Belady's anomaly), and it evicts the root as readily as a leaf, so even a
 * sequential scan costs more than the distinct nodes it touches. */
#include "models/vat/policy.h"

#define FIFO_FLAGS 0

typedef struct {
  guint32 next_out;   /* the cell inserted longest ago, once the TC is full */
} Fifo;

static void
fifo_reset (VatTc *tc)
{
  ((Fifo *) tc->ps)->next_out = 0;
}

static gboolean
fifo_init (VatTc *tc, GError **error)
{
  (void) error;
  tc->ps = g_new0 (Fifo, 1);
  return TRUE;
}

static void
fifo_finalize (VatTc *tc)
{
  g_clear_pointer (&tc->ps, g_free);
}

static inline void
fifo_access (VatTc *tc, guint32 s, gboolean hit)
{
  (void) tc, (void) s, (void) hit;
}

static inline guint32
fifo_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Fifo *f = tc->ps;
  guint32 s = vat_free_slot (tc);
  (void) node, (void) parent;
  if (s != VAT_NO_SLOT)
    return s;
  s = f->next_out;
  f->next_out = s + 1 == tc->n_slots ? 0 : s + 1;
  return s;
}

static void
fifo_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  vat_run_inline (tc, pages, n, next, hist, fifo_access, fifo_victim, FIFO_FLAGS);
}

const VatPolicy mdl_vat_fifo = {
  .name = "fifo",
  .flags = FIFO_FLAGS,
  .init = fifo_init,
  .access = fifo_access,
  .victim = fifo_victim,
  .reset = fifo_reset,
  .finalize = fifo_finalize,
  .run = fifo_run,
};
