/* VAT replacement policy `fifo`, a baseline: evict the node inserted longest ago, hits or not.
 * Cells fill in order and are then reused round robin, which is exactly first-in first-out. It is
 * not a stack algorithm (Belady's anomaly), and it evicts the root as readily as a leaf, so even a
 * sequential scan costs more than the distinct nodes it touches. */
#include "models/vat/policy.h"

typedef struct {
  guint32 next_out;   /* the cell inserted longest ago, once the TC is full */
} Fifo;

static void
fifo_reset (VatTc *tc)
{
  ((Fifo *) tc->ps)->next_out = 0;
}

static inline guint32
fifo_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Fifo *f = tc->ps;
  guint32 s = f->next_out;
  (void) node, (void) parent;
  f->next_out = s + 1 == tc->n_slots ? 0 : s + 1;
  return s;
}

VAT_POLICY_DEFINE (fifo, VAT_POLICY_FREE_FIRST, vat_no_access, fifo_victim,
                   .state_size = sizeof (Fifo), .reset = fifo_reset);
