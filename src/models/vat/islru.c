/* VAT replacement policy `islru` (Def. 2.9): evict the lowest descendant of the least recently used
 * node not on the current path, which keeps the initial segment property (ISP).
 *
 * Implemented as "the least recent cached node that has no cached child" (spec vat §2.3): the
 * recency ring shared with lru.c (VatRecency), walked from the least recent cell past nodes with
 * children. The two rules pick the same node: the descendants of the LRU node u were last used in
 * u's last walk, after u, so the first childless node from the LRU end is u's lowest descendant
 * (tests/test-vat-ref.c checks this against a literal implementation of Def. 2.9). The current
 * path needs no exclusion when W >= d+1: its nodes were just used, and some older childless node
 * always exists.
 *
 * The ring keeps each walk's nodes root first: a root goes to the front, every other node just
 * after its parent, which the walk used just before. The victim is the same in any order within a
 * walk: the nodes last used by one walk form a path (a node used by a later walk is used with
 * all its ancestors, and the ISP keeps the path's upper part), so exactly one of them, the lowest,
 * is childless. In this order that lowest node is the least recent of its walk, and the walk
 * above finds it without a step: the least recent cell is always the victim, and a layer a walk
 * shares with the previous one is already in its place (the fast run relies on both). */
#include "models/vat/policy.h"

/* A root becomes the most recent cell, any other node the next after its parent's cell. */
static inline void
islru_access (VatTc *tc, guint32 s, gboolean hit)
{
  VatRecency *r = tc->ps;
  guint32 up = tc->parent[s];
  (void) hit;
  if (up == VAT_NO_SLOT)
    vat_ring_touch (r->prev, r->next, &r->head, s);
  else
    vat_ring_place_after (r->prev, r->next, up, s);
}

/* Free cells are the least recent and childless, so they go first. */
static inline guint32
islru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  VatRecency *r = tc->ps;
  guint32 s;
  (void) node, (void) parent;
  /* Why the scan stops before it wraps around past the most recent cell: with W >= d+1 a childless
   * node always exists. */
  for (s = r->prev[r->head]; tc->n_children[s] != 0; s = r->prev[s])
    g_assert (s != r->head);
  return s;
}

/* VatPolicy.run_fast: the recency rings' fast run (policy.h), with this ring order and the ISP
 * bookkeeping. */
static void
islru_run_fast (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist)
{
  vat_recency_run_fast_by_depth (tc, pages, n, hist, TRUE);
}

VAT_POLICY_DEFINE (islru, VAT_POLICY_ISP | VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP,
                   islru_access, islru_victim, .min_cells_extra = 1,
                   .run_fast = islru_run_fast, VAT_RECENCY_METHODS);
