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
 * changes on every access (the ring's head, the path's cells) in locals, where the shared walk
 * keeps it in the TC behind pointers that stores to the tables may alias. Counts come from the
 * histogram alone: by Lemma 2.8 an access with m misses misses exactly on layers 0..m-1, and since
 * the free cells are the least recent, the first W insertions fill them and nothing empties one. */
static void
lru_run_fast (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist)
{
  VatRecency *r = tc->ps;
  VatIndex *x = &tc->index;
  guint32 *prev = r->prev, *next = r->next, head = r->head;
  guint32 path[VAT_MAX_DEPTH + 1];            /* the cell of each node of the last walk */
  guint64 by_misses[VAT_MAX_DEPTH + 2] = { 0 }, insertions = 0, at_least = 0;
  guint64 memo_page = tc->memo_page;
  int depth = (int) tc->depth;
  guint k_bits = tc->k_bits;
  memcpy (path, tc->memo_slot, sizeof path);
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i];
      int l = depth;
      /* The layers shared with the last walk's page are hits in known cells. */
      for (int shared = tc->memo_layer[64 - __builtin_clzll ((page ^ memo_page) | 1)]; l >= shared;
           l--)
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
          head = s;
          vat_index_remove (x, s);
          vat_index_put (x, s, vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l)));
          path[l] = s;
        }
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
