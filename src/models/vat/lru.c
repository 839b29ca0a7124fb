/* VAT replacement policy `lru`: evict the least recently used node, whatever its place in the tree.
 * Cells sit on the recency ring shared with islru (VatRecency in policy.h), so an insertion only
 * moves the ring's head. The walk uses Lemma 2.8, as corrected (misses = layer of the highest
 * absent node + 1): below the first miss it inserts without looking up, because LRU evicts every
 * cached node below the gap before the walk reaches it (spec vat §2.2; the proof is in
 * docs/models/vat.md). */
#include "models/vat/policy.h"

/* The least recent cell (a free one while there is one); the insertion then makes it the most
 * recent by moving the ring's head. */
static inline guint32
lru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  VatRecency *r = tc->ps;
  (void) node, (void) parent;
  return r->prev[r->head];
}

/* VatPolicy.run_fast: the recency rings' fast run (policy.h), with the root left where it is. */
static void
lru_run_fast (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist)
{
  vat_recency_run_fast_by_depth (tc, pages, n, hist, FALSE);
}

VAT_POLICY_DEFINE (lru, VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP,
                   vat_recency_access, lru_victim, .run_fast = lru_run_fast, VAT_RECENCY_METHODS);
