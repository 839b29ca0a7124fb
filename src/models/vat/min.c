/* VAT replacement policy `min` (Belady, spec vat §2.4): evict the cached node whose next use is
 * furthest in the future; nodes never used again go first, descendants before ancestors (their keys
 * say so, see VAT_DEAD_KEY). Every path node is accessed whatever the policy, so MIN on the TC is
 * Belady's algorithm on the flattened node sequence; the keys come from the next-use pre-pass
 * (nextuse.c), as libCacheSim's Belady reads next_access_vtime.
 *
 * A tournament tree over the cells keyed by next use (tourney.h): a hit or an insertion sets one
 * key, O(log W) with one data-dependent branch (whether the key goes above all others, as a
 * leaf never used again does, to wait beside the tree as its pending top); the winner is the
 * victim. No gap shortcut: MIN may keep a node below a missing one.
 *
 * Not KEEPS_PATH: a walk may evict a node of its own path, one used again later than every other
 * cached node. But where the next access repeats the page, every node of the path has its next
 * use there, the nearest of all, and with W >= d+1 a cell off the path is always left to evict:
 * the repeat is all hits, and so is every repeat but the run's last, whose keys the next
 * different access sets. Hence RUN_ENDS: a run is stored as its first and last access (heap/sort
 * at 256k: 14.4 M accesses stored, 6.1 M with the run ends).
 *
 * A hit on a node used again at the very next access (the root always, and on most traces far
 * more: every layer a scan shares) leaves the node's old key in the tree, which saves a quarter
 * of the tree's work on random pages. Why the victims stay the same, with one tree and W >= d+1:
 * say node x of layer m is hit at access t and next used at t+1. Until the walk of t+1 reaches x
 * again, victims are only chosen in the rest of t's walk (at t+1 x's ancestors are t's, all hits),
 * when inserting below layer m. Then the only cells whose keys are below x's are the nodes of t's
 * path below the insertion (at most m-1 of them) and x's d-m ancestors, used again at t+1 before
 * x: with x, at most d of the W cells, so some cell's key is above x's and x is not the victim.
 * The key the tree keeps for x is an earlier next use of x, below its true key, so it is below
 * the true largest key as well, which the tree holds exactly (that cell was not left stale: a node
 * left stale at t-1 is next used at t, the smallest keys there are). So the tree's winner is the
 * true victim. Insertions always set their key (the cell's old key is another node's). */
#include <models/error.h>

#include <string.h>

#include "models/vat/policy.h"
#include "models/vat/tourney.h"

typedef struct {
  VatTourney tree;   /* every used cell's key (some hit nodes' an earlier one, see above) */
  gboolean keep_soon; /* leave a key where the next access uses the node: one tree, W >= d+1 */
} Min;

static void
min_init (VatTc *tc)
{
  Min *m = tc->ps;
  vat_tourney_init (&m->tree, tc->n_slots);
  m->keep_soon = tc->n_trees == 1 && tc->n_slots > tc->depth;
}

static void
min_reset (VatTc *tc)
{
  vat_tourney_clear (&((Min *) tc->ps)->tree);
}

static void
min_finalize (VatTc *tc)
{
  vat_tourney_free (&((Min *) tc->ps)->tree);
}

static inline void
min_access (VatTc *tc, guint32 s, gboolean hit)
{
  Min *m = tc->ps;
  /* Why the pending top's cell never keeps its key: the matches hold an old one for it. */
  if (hit && tc->next_soon && m->keep_soon && !vat_tourney_pending (&m->tree, s))
    return;
  vat_tourney_set (&m->tree, s, vat_cell_key (tc->next_key, s));
}

/* The node used furthest ahead; its cell's key is replaced when the new node's access sets it. */
static inline guint32
min_victim (VatTc *tc, guint64 node, guint32 parent)
{
  (void) node, (void) parent;
  return vat_tourney_top (&((Min *) tc->ps)->tree);
}

/* VatPolicy.run_offline_fast: the shared walk for min (policy.h) with one tree and no hook, its
 * state in locals (the tree's pending top, the index's fields, the filled count, the counts by
 * layer), where the shared walk reads them back from the TC after every store to a table that may
 * alias them, and the access's next uses read once. Every layer is looked up (min keeps no path
 * memo: a walk may evict a node of its own path). The same keys are set in the same order as the
 * shared walk's, so the tree, the index and the counts end as its would; test-vat-fast holds the
 * two to the same reports. @fixed_depth: the depth as a constant (0: read it from @tc), so that
 * the loop over the layers unrolls, each layer's branches predicted on their own. */
static inline __attribute__ ((always_inline)) void
min_run_fast_at (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist,
                 int fixed_depth)
{
  Min *m = tc->ps;
  VatTourney tree = m->tree;
  VatIndex index = tc->index;
  VatIndex *x = &index;
  int depth = fixed_depth > 0 ? fixed_depth : (int) tc->depth;
  guint stride = (guint) depth + 1, k_bits = tc->k_bits;
  guint32 filled = tc->filled, n_slots = tc->n_slots;
  gboolean keep_soon = m->keep_soon;
  guint32 *direct[VAT_MAX_DEPTH + 1];
  guint32 path[VAT_MAX_DEPTH + 1];
  guint64 by_misses[VAT_MAX_DEPTH + 2] = { 0 }, layer_misses[VAT_MAX_DEPTH + 1] = { 0 };
  if (n == 0)
    return;
  for (int l = 0; l <= depth; l++)
    direct[l] = vat_index_direct_of (x, vat_node_make ((guint) l, 0, 0));
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i];
      const guint32 *nu = next + i * stride;
      guint32 root_next = nu[depth];
      int misses = 0;
#pragma GCC unroll 8
      for (int l = depth; l >= 0; l--)
        {
          guint64 node = vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l));
          guint32 s = vat_index_find_in (x, direct[l], node), at = nu[l];
          guint64 key = at == G_MAXUINT32 ? VAT_DEAD_KEY (l)
                                          : (guint64) at * stride + (guint64) (depth - l);
          if (s != VAT_NO_SLOT)
            {
              /* min_access's rule for a hit used again at the next access (the proof in the
               * header). */
              path[l] = s;
              if (keep_soon && at == root_next && at != G_MAXUINT32
                  && !vat_tourney_pending (&tree, s))
                continue;
            }
          else
            {
              s = filled < n_slots ? filled++ : vat_tourney_top (&tree);
              vat_index_replace_in (x, direct[l], s, node);
              layer_misses[l]++;
              misses++;
              path[l] = s;
            }
          vat_tourney_set (&tree, s, vat_cell_key (key, s));
        }
      by_misses[misses]++;
    }
  m->tree = tree;
  tc->filled = filled;
  tc->memo_page = pages[n - 1];
  memcpy (tc->memo_slot, path, stride * sizeof *path);
  for (int l = 0; l <= depth; l++)
    tc->misses_layer[0][l] += layer_misses[l];
  for (int k = 0; k <= depth + 1; k++)
    hist[k] += by_misses[k];
}

static void
min_run_offline_fast (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  switch (tc->depth)
    {
    case 2: min_run_fast_at (tc, pages, n, next, hist, 2); break;
    case 3: min_run_fast_at (tc, pages, n, next, hist, 3); break;
    case 4: min_run_fast_at (tc, pages, n, next, hist, 4); break;
    case 5: min_run_fast_at (tc, pages, n, next, hist, 5); break;
    default: min_run_fast_at (tc, pages, n, next, hist, 0); break;
    }
}

/* Every used cell has a key in the tree (the next uses themselves are the pre-pass's), the padding
 * beyond W has none, and every match has the right winner. A free cell may keep its old key: it is
 * only ever free between an eviction and the insertion into it. */
static gboolean
min_check (const VatTc *tc, GError **error)
{
  const VatTourney *t = &((const Min *) tc->ps)->tree;
  for (guint32 s = 0; s < t->size; s++)
    if (s < tc->n_slots ? tc->index.node[s] != VAT_NO_NODE && vat_tourney_key (t, s) == 0
        : vat_tourney_key (t, s) != 0)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: min tree has key %"
                     G_GUINT64_FORMAT " for cell %u", vat_tourney_key (t, s), s);
        return FALSE;
      }
  if (!vat_tourney_valid (t))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: min tree has a wrong winner");
      return FALSE;
    }
  return TRUE;
}

VAT_POLICY_DEFINE (min, VAT_POLICY_OFFLINE | VAT_POLICY_STACK | VAT_POLICY_FREE_FIRST
                          | VAT_POLICY_RUN_ENDS, min_access,
                   min_victim, .state_size = sizeof (Min), .init = min_init,
                   .reset = min_reset, .finalize = min_finalize,
                   .run_offline_fast = min_run_offline_fast, .check = min_check);
