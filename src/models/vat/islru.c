/* VAT replacement policy `islru` (Def. 2.9): evict the lowest descendant of the least recently used
 * node not on the current path, which keeps the initial segment property (ISP).
 *
 * Implemented as "the least recently used cached node that has no cached child" (spec vat §2.3):
 * one recency list as in lru.c, walked from the LRU end past nodes with children. The two rules pick
 * the same node: the descendants of the LRU node u were last used in u's last walk, after u, so the
 * first childless node from the LRU end is u's lowest descendant (tests/test-vat-ref.c checks this
 * against a literal implementation of Def. 2.9). The current path needs no exclusion when W >= d+1:
 * its nodes were just used, and some older childless node always exists. The walk past nodes with
 * children is at most d steps for that reason. */
#include "models/vat/policy.h"

typedef struct {
  guint32 *prev;   /* [W + 1] */
  guint32 *next;   /* [W + 1] */
} Islru;

static void
islru_reset (VatTc *tc)
{
  Islru *r = tc->ps;
  r->prev[tc->n_slots] = r->next[tc->n_slots] = tc->n_slots;
}

static gboolean
islru_init (VatTc *tc, GError **error)
{
  Islru *r = g_new0 (Islru, 1);
  (void) error;
  r->prev = g_new (guint32, tc->n_slots + 1);
  r->next = g_new (guint32, tc->n_slots + 1);
  tc->ps = r;
  islru_reset (tc);
  return TRUE;
}

static void
islru_finalize (VatTc *tc)
{
  Islru *r = tc->ps;
  if (r == NULL)
    return;
  g_free (r->prev);
  g_free (r->next);
  g_free (r);
  tc->ps = NULL;
}

static inline void
islru_access (VatTc *tc, guint32 s, gboolean hit)
{
  Islru *r = tc->ps;
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
islru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Islru *r = tc->ps;
  guint32 s = vat_free_slot (tc);
  (void) node, (void) parent;
  if (s != VAT_NO_SLOT)
    return s;
  for (s = r->prev[tc->n_slots]; tc->n_children[s] != 0;)
    {
      s = r->prev[s];
      g_assert (s != tc->n_slots); /* Why: with W >= d+1 an older childless node always exists. */
    }
  vat_list_unlink (r->prev, r->next, s);
  return s;
}

static void
islru_walk (VatTc *tc, guint64 page, guint tree, const guint64 *keys)
{
  vat_walk_inline (tc, page, tree, keys, islru_access, islru_victim, TRUE);
}

static gboolean
islru_check (const VatTc *tc, GError **error)
{
  const Islru *r = tc->ps;
  return mdl_vat_list_check (r->prev, r->next, tc->n_slots, tc->filled, tc, "islru", error);
}

const VatPolicy mdl_vat_islru = {
  .name = "islru",
  .flags = VAT_POLICY_ISP | VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH,
  .min_cells_extra = 1,
  .init = islru_init,
  .access = islru_access,
  .victim = islru_victim,
  .reset = islru_reset,
  .finalize = islru_finalize,
  .walk = islru_walk,
  .check = islru_check,
};
