/* VAT replacement policy `lru`: evict the least recently used node, whatever its place in the tree.
 * Cells sit on one doubly linked recency list over cell numbers (MRU first; entry W is the
 * sentinel). The walk uses Lemma 2.8, as corrected (misses = layer of the highest absent node + 1):
 * below the first miss it inserts without looking up, because LRU evicts every cached node below
 * the gap before the walk reaches it (spec vat §2.2; the proof is in docs/models/vat.md). */
#include "models/vat/policy.h"

typedef struct {
  guint32 *prev;   /* [W + 1] */
  guint32 *next;   /* [W + 1] */
} Lru;

static void
lru_reset (VatTc *tc)
{
  Lru *r = tc->ps;
  r->prev[tc->n_slots] = r->next[tc->n_slots] = tc->n_slots;
}

static gboolean
lru_init (VatTc *tc, GError **error)
{
  Lru *r = g_new0 (Lru, 1);
  (void) error;
  r->prev = g_new (guint32, tc->n_slots + 1);
  r->next = g_new (guint32, tc->n_slots + 1);
  tc->ps = r;
  lru_reset (tc);
  return TRUE;
}

static void
lru_finalize (VatTc *tc)
{
  Lru *r = tc->ps;
  if (r == NULL)
    return;
  g_free (r->prev);
  g_free (r->next);
  g_free (r);
  tc->ps = NULL;
}

static inline void
lru_access (VatTc *tc, guint32 s, gboolean hit)
{
  Lru *r = tc->ps;
  guint32 head = tc->n_slots;
  if (hit)
    {
      if (r->next[head] == s)
        return;
      vat_list_unlink (r->prev, r->next, s);
    }
  vat_list_push_front (r->prev, r->next, head, s);
}

static inline guint32
lru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Lru *r = tc->ps;
  guint32 s = vat_free_slot (tc);
  (void) node, (void) parent;
  if (s != VAT_NO_SLOT)
    return s;
  s = r->prev[tc->n_slots];
  vat_list_unlink (r->prev, r->next, s);
  return s;
}

static void
lru_walk (VatTc *tc, guint64 page, guint tree, const guint64 *keys)
{
  vat_walk_inline (tc, page, tree, keys, lru_access, lru_victim, TRUE);
}

static gboolean
lru_check (const VatTc *tc, GError **error)
{
  const Lru *r = tc->ps;
  return mdl_vat_list_check (r->prev, r->next, tc->n_slots, tc->filled, tc, "lru", error);
}

const VatPolicy mdl_vat_lru = {
  .name = "lru",
  .flags = VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH,
  .init = lru_init,
  .access = lru_access,
  .victim = lru_victim,
  .reset = lru_reset,
  .finalize = lru_finalize,
  .walk = lru_walk,
  .check = lru_check,
};
