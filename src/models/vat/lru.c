/* VAT replacement policy `lru`: evict the least recently used node, whatever its place in the tree.
 * Cells sit on the recency ring shared with islru (VatRecency in policy.h), so an insertion only
 * moves the ring's head. The walk uses Lemma 2.8, as corrected (misses = layer of the highest
 * absent node + 1): below the first miss it inserts without looking up, because LRU evicts every
 * cached node below the gap before the walk reaches it (spec vat §2.2; the proof is in
 * docs/models/vat.md). */
#include "models/vat/policy.h"

#include <string.h>

/* The least recent cell (a free one while there is one); the insertion then makes it the most
 * recent by moving the ring's head. */
static inline guint32
lru_victim (VatTc *tc, guint64 node, guint32 parent)
{
  VatRecency *r = tc->ps;
  (void) node, (void) parent;
  return r->prev[r->head];
}

/* VatPolicy.run_fast: the shared walk with what lru does not need taken out, and the state it
 * changes on every access (the ring's head, the path's cells) and the index's fields in locals,
 * where the shared walk reads them from the TC after every store to a table that may alias them.
 *
 * The root is not moved on the ring at every access: with W >= d+1 it is never the least recent
 * node (it was used at the start of the walk under way, and at most d-1 nodes since), so its place
 * decides nothing as long as it is never taken as the victim. When the ring brings it to the least
 * recent end, the ring turns one step past it, which makes it the most recent. The order of the
 * other cells stays exact, and the shared walk, which may take the next batch, moves the root to
 * the front first thing, before any insertion.
 *
 * Counts come from the histogram alone: an access with m misses misses exactly on layers 0..m-1
 * (Lemma 2.8), and since the free cells are the least recent, the first W insertions fill them and
 * nothing empties one. */
static void
lru_run_fast (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist)
{
  VatRecency *r = tc->ps;
  VatIndex index = tc->index, *x = &index;
  guint32 *prev = r->prev, *next = r->next, head = r->head, root;
  guint32 path[VAT_MAX_DEPTH + 1];            /* the cell of each node of the last walk */
  guint64 by_misses[VAT_MAX_DEPTH + 2] = { 0 }, insertions = 0, at_least = 0;
  guint64 memo_page = tc->memo_page;
  int depth = (int) tc->depth;
  guint k_bits = tc->k_bits;
  memcpy (path, tc->memo_slot, sizeof path);
  root = memo_page != VAT_NO_NODE ? path[depth] : VAT_NO_SLOT;
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i];
      int shared = tc->memo_layer[64 - __builtin_clzll ((page ^ memo_page) | 1)];
      /* The layers shared with the last walk's page are hits in known cells (the root's is not
       * moved, see above). */
      int l = shared <= depth ? depth - 1 : depth;
      for (; l >= shared; l--)
        vat_ring_touch (prev, next, &head, path[l]);
      for (; l >= 0; l--)
        {
          guint32 s = vat_index_find (x, vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l)));
          if (s == VAT_NO_SLOT)
            break;
          vat_ring_touch (prev, next, &head, s);
          path[l] = s;
        }
      by_misses[l + 1]++;
      /* Below the gap, insertions into the least recent cell, which becomes the most recent. */
      for (; l >= 0; l--)
        {
          guint32 s = prev[head];
          if (G_UNLIKELY (s == root))
            {
              head = s;
              s = prev[head];
            }
          head = s;
          vat_index_replace (x, s, vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l)));
          path[l] = s;
        }
      root = path[depth];
      memo_page = page;
    }
  r->head = head;
  tc->memo_page = memo_page;
  memcpy (tc->memo_slot, path, sizeof path);
  for (int m = depth + 1; m > 0; m--)
    {
      at_least += by_misses[m];
      tc->misses_layer[0][m - 1] += at_least;
      insertions += by_misses[m] * (guint64) m;
      hist[m] += by_misses[m];
    }
  hist[0] += by_misses[0];
  tc->filled = (guint32) MIN ((guint64) tc->n_slots, tc->filled + insertions);
}

VAT_POLICY_DEFINE (lru, VAT_POLICY_STACK | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP,
                   vat_recency_access, lru_victim, .run_fast = lru_run_fast, VAT_RECENCY_METHODS);
