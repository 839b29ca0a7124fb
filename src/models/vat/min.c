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
                   .reset = min_reset, .finalize = min_finalize, .check = min_check);
