/* VAT replacement policy `ismin` (Def. 2.12, optimal among ISP policies by Theorem 2.13): evict,
 * among the cached nodes with no cached children that are not on the current path, the one used
 * furthest in the future; nodes never used again first, descendants first.
 *
 * A max-heap over the childless cells, keyed by next use (keys of all cells are kept, since a node
 * rejoins the heap when its last child goes). On the current path only the parent of the node being
 * inserted can be childless (its ancestors have their path child cached, the nodes below are absent
 * by ISP), so the exclusion is "not the parent": when the heap's top is the parent, the victim is
 * the larger of the top's two heap children. */
#include <models/error.h>

#include "models/vat/heap.h"
#include "models/vat/policy.h"

#define ISMIN_FLAGS (VAT_POLICY_ISP | VAT_POLICY_OFFLINE | VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP)

typedef struct {
  guint64 *key;    /* [W] next-use key of each cell's node */
  VatHeap heap;    /* the childless cells */
} Ismin;

static void
ismin_reset (VatTc *tc)
{
  Ismin *m = tc->ps;
  vat_heap_clear (&m->heap, tc->n_slots);
}

static gboolean
ismin_init (VatTc *tc, GError **error)
{
  Ismin *m = g_new0 (Ismin, 1);
  (void) error;
  m->key = g_new0 (guint64, tc->n_slots);
  vat_heap_init (&m->heap, tc->n_slots, m->key);
  tc->ps = m;
  return TRUE;
}

static void
ismin_finalize (VatTc *tc)
{
  Ismin *m = tc->ps;
  if (m == NULL)
    return;
  vat_heap_free (&m->heap);
  g_free (m->key);
  g_free (m);
  tc->ps = NULL;
}

static inline void
ismin_access (VatTc *tc, guint32 s, gboolean hit)
{
  Ismin *m = tc->ps;
  m->key[s] = tc->next_key;
  if (hit)
    {
      if (m->heap.pos[s] != VAT_HEAP_NONE)
        vat_heap_update (&m->heap, s);
      return;
    }
  vat_heap_push (&m->heap, s);
  if (tc->parent[s] != VAT_NO_SLOT && m->heap.pos[tc->parent[s]] != VAT_HEAP_NONE)
    vat_heap_remove (&m->heap, tc->parent[s]);
}

static inline guint32
ismin_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Ismin *m = tc->ps;
  guint32 s = vat_free_slot (tc), up;
  (void) node;
  if (s != VAT_NO_SLOT)
    return s;
  s = m->heap.item[0];
  if (s == parent)
    {
      /* Why there is another: W >= d+1 cells hold at most d nodes of the current path. */
      g_assert (m->heap.len > 1);
      s = m->heap.item[1];
      if (m->heap.len > 2 && m->key[m->heap.item[2]] > m->key[s])
        s = m->heap.item[2];
    }
  vat_heap_remove (&m->heap, s);
  up = tc->parent[s];
  if (up != VAT_NO_SLOT && tc->n_children[up] == 1)
    vat_heap_push (&m->heap, up);
  return s;
}

static void
ismin_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  vat_run_inline (tc, pages, n, next, hist, ismin_access, ismin_victim, ISMIN_FLAGS);
}

static gboolean
ismin_check (const VatTc *tc, GError **error)
{
  const Ismin *m = tc->ps;
  guint32 childless = 0;
  for (guint32 s = 0; s < tc->n_slots; s++)
    {
      if (tc->node[s] == VAT_NO_NODE)
        continue;
      childless += tc->n_children[s] == 0;
      if ((tc->n_children[s] == 0) != (m->heap.pos[s] != VAT_HEAP_NONE))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: ismin heap %s cell %u, "
                       "which has %u children", tc->n_children[s] ? "holds" : "lacks", s,
                       tc->n_children[s]);
          return FALSE;
        }
    }
  if (childless != m->heap.len)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: ismin heap holds %u cells, "
                   "%u are childless", m->heap.len, childless);
      return FALSE;
    }
  for (guint32 i = 1; i < m->heap.len; i++)
    if (m->key[m->heap.item[(i - 1) / 2]] < m->key[m->heap.item[i]])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: ismin heap order broken at %u",
                     i);
        return FALSE;
      }
  return TRUE;
}

const VatPolicy mdl_vat_ismin = {
  .name = "ismin",
  .flags = ISMIN_FLAGS,
  .min_cells_extra = 1,
  .init = ismin_init,
  .access = ismin_access,
  .victim = ismin_victim,
  .reset = ismin_reset,
  .finalize = ismin_finalize,
  .run = ismin_run,
  .check = ismin_check,
};
