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
 * if the new node is the parent's first cached child. */
static inline void
ismin_access (VatTc *tc, guint32 s, gboolean hit)
{
  Ismin *m = tc->ps;
  guint32 up = tc->parent[s];
  m->key[s] = vat_cell_key (tc->next_key, s);
  if (!hit || tc->n_children[s] == 0)
    vat_tourney_set (&m->tree, s, m->key[s]);
  if (!hit && up != VAT_NO_SLOT && tc->n_children[up] == 1 && up != m->sat_out)
    vat_tourney_set (&m->tree, up, 0);
  m->sat_out = VAT_NO_SLOT;
}

static inline guint32
ismin_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Ismin *m = tc->ps;
  guint32 s = vat_tourney_top (&m->tree), up;
  (void) node;
  /* The parent sits out for good: the node being inserted becomes its child. */
  if (s == parent)
    {
      vat_tourney_set (&m->tree, parent, 0);
      m->sat_out = parent;
      s = vat_tourney_top (&m->tree);
    }
  /* Why a candidate remains: W >= d+1 cells hold at most d nodes of the current path. */
  g_assert (vat_tourney_key (&m->tree, s) != 0);
  up = tc->parent[s];
  if (up != VAT_NO_SLOT && tc->n_children[up] == 1)
    vat_tourney_set (&m->tree, up, m->key[up]);
  return s;
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
                   .check = ismin_check);
