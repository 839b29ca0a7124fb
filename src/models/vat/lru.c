/* VAT replacement policy `lru`: evict the least recently used node, whatever its place in the tree.
 * Cells sit on the recency ring shared with islru (VatRecency in policy.h), so an insertion only
 * moves the ring's head. The walk uses Lemma 2.8, as corrected (misses = layer of the highest
 * absent node + 1): below the first miss it inserts without looking up, because LRU evicts every
 * cached node below the gap before the walk reaches it (spec vat §2.2; the proof is in
 * docs/models/vat.md). */
#include "models/vat/policy.h"

#define LRU_FLAGS (VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP)

/* The least recent cell (a free one while there is one); the insertion then makes it the most
 * recent by moving the ring's head. */
static inline guint32
lru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  VatRecency *r = tc->ps;
  (void) node, (void) parent;
  return r->prev[r->head];
}

static void
lru_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  vat_run_inline (tc, pages, n, next, hist, vat_recency_access, lru_victim, LRU_FLAGS);
}

static gboolean
lru_check (const VatTc *tc, GError **error)
{
  return mdl_vat_recency_check (tc, "lru", error);
}

const VatPolicy mdl_vat_lru = {
  .name = "lru",
  .flags = LRU_FLAGS,
  .init = mdl_vat_recency_init,
  .access = vat_recency_access,
  .victim = lru_victim,
  .reset = mdl_vat_recency_reset,
  .finalize = mdl_vat_recency_finalize,
  .run = lru_run,
  .check = lru_check,
};
