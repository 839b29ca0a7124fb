/* VAT replacement policy `ismin` (Def. 2.12, optimal among ISP policies by Theorem 2.13): evict,
 * among the cached nodes with no cached children that are not on the current path, the one used
 * furthest in the future; nodes never used again first, descendants first.
 *
 * A tournament tree over the cells (tourney.h) in which the childless cells have their next-use
 * keys and the others 0 (the keys of all cells are kept, since a node becomes a candidate again
 * when its last child goes). On the current path only the parent of the node being inserted can be
 * childless (its ancestors have their path child cached, the nodes below are absent by ISP), so
 * the exclusion is "not the parent": when the tree's winner is the parent, its key goes to 0 at
 * once, as it would when the new node comes in as its child (which then finds it 0 and sets
 * nothing), where the parent used to sit out one replay and come back for it (bench-vat,
 * callgrind: two of ismin's five or so key changes per access). */
#include <models/error.h>

#include <string.h>

#include "models/vat/policy.h"
#include "models/vat/tourney.h"

typedef struct {
  guint64 *key;    /* [W] next-use key of each cell's node (vat_cell_key) */
  VatTourney tree; /* the keys of the childless cells, 0 for the others */
  guint32 sat_out; /* the parent whose key the victim's choice set to 0 before the new node came
                      in as its child, VAT_NO_SLOT when none */
} Ismin;

static void
ismin_init (VatTc *tc)
{
  Ismin *m = tc->ps;
  m->key = g_new0 (guint64, tc->n_slots);
  vat_tourney_init (&m->tree, tc->n_slots);
}

static void
ismin_reset (VatTc *tc)
{
  Ismin *m = tc->ps;
  vat_tourney_clear (&m->tree);
  m->sat_out = VAT_NO_SLOT;
}

static void
ismin_finalize (VatTc *tc)
{
  Ismin *m = tc->ps;
  vat_tourney_free (&m->tree);
  g_free (m->key);
}

/* A hit changes the key of a candidate; an insertion adds a candidate and takes its parent out,
 * if the new node is the parent's first cached child. The state comes as arguments, so that the
 * fast run below passes its locals where the shared walk's access passes the TC's. */
static inline __attribute__ ((always_inline)) void
ismin_keyed (VatTourney *tree, guint64 *key, const guint32 *parent, const guint32 *n_children,
             guint32 *sat_out, guint32 s, gboolean hit, guint64 next_key)
{
  guint32 up = parent[s];
  key[s] = vat_cell_key (next_key, s);
  if (!hit || n_children[s] == 0)
    vat_tourney_set (tree, s, key[s]);
  if (!hit && up != VAT_NO_SLOT && n_children[up] == 1 && up != *sat_out)
    vat_tourney_set (tree, up, 0);
  *sat_out = VAT_NO_SLOT;
}

/* ismin_keyed for the fast run, which knows where in the walk it is (@gets_child: @s is above the
 * walk's bottom layer): a node above the bottom layer has a child by the walk's end (where it has
 * none yet, by the ISP every layer below misses), so it goes into the tree as 0 at once, one key
 * change where ismin_keyed makes two (its key, then 0 when the child comes in, or the parent
 * sitting out); and an insertion's parent, which now has a child, goes to 0 only where the tree
 * still has its key (the victim was its only child). No parent sits out: it is never the winner. */
static inline __attribute__ ((always_inline)) void
ismin_keyed_in_walk (VatTourney *tree, guint64 *key, const guint32 *n_children, guint32 *sat_out,
                     guint32 s, guint32 up, gboolean hit, gboolean gets_child, guint64 next_key)
{
  key[s] = vat_cell_key (next_key, s);
  if (!hit || n_children[s] == 0)
    vat_tourney_set (tree, s, gets_child ? 0 : key[s]);
  if (!hit && up != VAT_NO_SLOT && vat_tourney_key (tree, up) != 0)
    vat_tourney_set (tree, up, 0);
  *sat_out = VAT_NO_SLOT;
}

static inline void
ismin_access (VatTc *tc, guint32 s, gboolean hit)
{
  Ismin *m = tc->ps;
  ismin_keyed (&m->tree, m->key, tc->parent, tc->n_children, &m->sat_out, s, hit, tc->next_key);
}

/* The victim for a node whose parent sits in cell @up; the state as in ismin_keyed. */
static inline __attribute__ ((always_inline)) guint32
ismin_choose (VatTourney *tree, const guint64 *key, const guint32 *parent,
              const guint32 *n_children, guint32 *sat_out, guint32 up)
{
  guint32 s = vat_tourney_top (tree), above;
  /* The parent sits out for good: the node being inserted becomes its child. */
  if (s == up)
    {
      vat_tourney_set (tree, up, 0);
      *sat_out = up;
      s = vat_tourney_top (tree);
    }
  /* Why a candidate remains: W >= d+1 cells hold at most d nodes of the current path. */
  g_assert (vat_tourney_key (tree, s) != 0);
  above = parent[s];
  if (above != VAT_NO_SLOT && n_children[above] == 1)
    vat_tourney_set (tree, above, key[above]);
  return s;
}

static inline guint32
ismin_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Ismin *m = tc->ps;
  (void) node;
  return ismin_choose (&m->tree, m->key, tc->parent, tc->n_children, &m->sat_out, parent);
}

/* VatPolicy.run_offline_fast: the shared walk for ismin (policy.h) with one tree and no hook, the
 * tree, the index, the parent sitting out, the filled count, the last path and the counts by layer
 * in locals, where the shared walk reads them back from the TC after every store to a table that
 * may alias them. The same steps in the same order as the shared walk's but for the key changes
 * (ismin_keyed_in_walk: fewer, the same victims, the same keys after each walk), so the TC ends as
 * its would; test-vat-fast holds the two to the same reports. @fixed_depth: the depth as a
 * constant (0: read it from @tc), so that the loops over the layers unroll. */
static inline __attribute__ ((always_inline)) void
ismin_run_fast_at (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist,
                   int fixed_depth)
{
  Ismin *m = tc->ps;
  VatTourney tree = m->tree;
  VatIndex index = tc->index;
  VatIndex *x = &index;
  guint64 *key = m->key;
  guint32 *parent = tc->parent, *n_children = tc->n_children;
  guint32 sat_out = m->sat_out, filled = tc->filled, n_slots = tc->n_slots;
  int depth = fixed_depth > 0 ? fixed_depth : (int) tc->depth;
  guint stride = (guint) depth + 1, k_bits = tc->k_bits;
  gboolean memo = tc->memo;
  guint64 memo_page = tc->memo_page;
  guint32 *direct[VAT_MAX_DEPTH + 1];
  guint32 path[VAT_MAX_DEPTH + 1];
  guint64 by_misses[VAT_MAX_DEPTH + 2] = { 0 }, layer_misses[VAT_MAX_DEPTH + 1] = { 0 };
  memcpy (path, tc->memo_slot, sizeof path);
  for (int l = 0; l <= depth; l++)
    direct[l] = vat_index_direct_of (x, vat_node_make ((guint) l, 0, 0));
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i];
      const guint32 *nu = next + i * stride;
      guint32 up = VAT_NO_SLOT;
      int l = depth, misses = 0;
#define ISMIN_KEY(l) \
  (nu[l] == G_MAXUINT32 ? VAT_DEAD_KEY (l) : (guint64) nu[l] * stride + (guint64) (depth - (l)))
      /* The layers this page shares with the last walk's are hits in its cells (the path memo);
       * then lookups to the first miss, below which every layer misses (the ISP). */
      if (memo)
        for (int shared = tc->memo_layer[64 - __builtin_clzll ((page ^ memo_page) | 1)];
             l >= shared; l--)
          {
            up = path[l];
            ismin_keyed_in_walk (&tree, key, n_children, &sat_out, up, VAT_NO_SLOT, TRUE, l > 0,
                                 ISMIN_KEY (l));
          }
      for (; l >= 0; l--)
        {
          guint64 node = vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l));
          guint32 s = vat_index_find_in (x, direct[l], node);
          if (s == VAT_NO_SLOT)
            break;
          ismin_keyed_in_walk (&tree, key, n_children, &sat_out, s, VAT_NO_SLOT, TRUE, l > 0,
                               ISMIN_KEY (l));
          up = path[l] = s;
        }
      for (; l >= 0; l--)
        {
          guint32 s;
          if (filled < n_slots)
            s = filled++;
          else
            {
              s = ismin_choose (&tree, key, parent, n_children, &sat_out, up);
              if (parent[s] != VAT_NO_SLOT)
                n_children[parent[s]]--;
            }
          vat_index_replace_in (x, direct[l], s,
                                vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l)));
          parent[s] = up;
          n_children[s] = 0;
          if (up != VAT_NO_SLOT)
            n_children[up]++;
          ismin_keyed_in_walk (&tree, key, n_children, &sat_out, s, up, FALSE, l > 0,
                               ISMIN_KEY (l));
          layer_misses[l]++;
          misses++;
          up = path[l] = s;
        }
#undef ISMIN_KEY
      by_misses[misses]++;
      memo_page = page;
    }
  m->tree = tree;
  m->sat_out = sat_out;
  tc->filled = filled;
  tc->memo_page = memo_page;
  memcpy (tc->memo_slot, path, sizeof path);
  for (int l = 0; l <= depth; l++)
    tc->misses_layer[0][l] += layer_misses[l];
  for (int k = 0; k <= depth + 1; k++)
    hist[k] += by_misses[k];
}

static void
ismin_run_offline_fast (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next,
                        guint64 *hist)
{
  switch (tc->depth)
    {
    case 2: ismin_run_fast_at (tc, pages, n, next, hist, 2); break;
    case 3: ismin_run_fast_at (tc, pages, n, next, hist, 3); break;
    case 4: ismin_run_fast_at (tc, pages, n, next, hist, 4); break;
    case 5: ismin_run_fast_at (tc, pages, n, next, hist, 5); break;
    default: ismin_run_fast_at (tc, pages, n, next, hist, 0); break;
    }
}

/* The tree holds its key for every childless used cell but a parent sitting out, and 0 for every
 * cell with children (a free
 * cell may keep its old key: it is only ever free between an eviction and the insertion into it),
 * and every match has the right winner. */
static gboolean
ismin_check (const VatTc *tc, GError **error)
{
  const Ismin *m = tc->ps;
  for (guint32 s = 0; s < tc->n_slots; s++)
    {
      guint64 want = tc->n_children[s] || s == m->sat_out ? 0 : m->key[s];
      if (tc->index.node[s] == VAT_NO_NODE || vat_tourney_key (&m->tree, s) == want)
        continue;
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: ismin tree has key %"
                   G_GUINT64_FORMAT " for cell %u, which has %u children and key %" G_GUINT64_FORMAT,
                   vat_tourney_key (&m->tree, s), s, tc->n_children[s], m->key[s]);
      return FALSE;
    }
  if (!vat_tourney_valid (&m->tree))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: ismin tree has a wrong winner");
      return FALSE;
    }
  return TRUE;
}

VAT_POLICY_DEFINE (ismin, VAT_POLICY_ISP | VAT_POLICY_OFFLINE | VAT_POLICY_STACK
                            | VAT_POLICY_KEEPS_PATH | VAT_POLICY_GAP | VAT_POLICY_FREE_FIRST,
                   ismin_access, ismin_victim, .min_cells_extra = 1, .state_size = sizeof (Ismin),
                   .init = ismin_init, .reset = ismin_reset, .finalize = ismin_finalize,
                   .run_offline_fast = ismin_run_offline_fast, .check = ismin_check);
