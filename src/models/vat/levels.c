/* VAT replacement policy `levels`: the static split from the proof of Theorem 2.32, a separate LRU
 * cache per tree layer. The root layer gets one cell per tree; the other W - (trees) cells are
 * shared out evenly over layers 0..d-1, the remainder going one each to the lowest layers (the
 * thesis's a = floor(W/d) cells per level counts d+1 levels into W cells; we keep its intent, an
 * equal share per level, inside the budget). A layer-l node only ever evicts a layer-l node. */
#include <models/error.h>

#include "models/vat/policy.h"

typedef struct {
  guint32 *prev;            /* [W]: a recency ring per layer (policy.h) */
  guint32 *next;
  guint32 head[VAT_MAX_DEPTH + 1];     /* each layer's most recent cell */
  guint32 offset[VAT_MAX_DEPTH + 1];   /* first cell of each layer */
  guint32 cap[VAT_MAX_DEPTH + 1];      /* cells of each layer */
} Levels;

static void
levels_init (VatTc *tc)
{
  Levels *v = tc->ps;
  guint32 rest = tc->n_slots - tc->n_trees, at = 0;
  g_assert (tc->n_slots >= tc->depth + tc->n_trees); /* vat.c checks W first */
  for (guint l = 0; l < tc->depth; l++)
    {
      v->cap[l] = rest / tc->depth + (l < rest % tc->depth);
      v->offset[l] = at;
      at += v->cap[l];
    }
  v->cap[tc->depth] = tc->n_trees;
  v->offset[tc->depth] = at;
  v->prev = g_new (guint32, tc->n_slots);
  v->next = g_new (guint32, tc->n_slots);
}

static void
levels_reset (VatTc *tc)
{
  Levels *v = tc->ps;
  for (guint l = 0; l <= tc->depth; l++)
    mdl_vat_ring_init (v->prev, v->next, &v->head[l], v->offset[l], v->cap[l]);
}

static void
levels_finalize (VatTc *tc)
{
  Levels *v = tc->ps;
  g_free (v->prev);
  g_free (v->next);
}

static inline void
levels_access (VatTc *tc, guint32 s, gboolean hit)
{
  Levels *v = tc->ps;
  (void) hit;
  vat_ring_touch (v->prev, v->next, &v->head[vat_node_layer (tc->index.node[s])], s);
}

/* The least recent cell of the node's layer, a free one while there is one. */
static inline guint32
levels_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Levels *v = tc->ps;
  (void) parent;
  return v->prev[v->head[vat_node_layer (node)]];
}

static gboolean
levels_check (const VatTc *tc, GError **error)
{
  const Levels *v = tc->ps;
  for (guint l = 0; l <= tc->depth; l++)
    {
      for (guint32 s = v->offset[l]; s < v->offset[l] + v->cap[l]; s++)
        {
          guint64 node = tc->index.node[s];
          if (node != VAT_NO_NODE && vat_node_layer (node) != l)
            {
              g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: levels cell %u of layer "
                           "%u holds a layer-%u node", s, l, vat_node_layer (node));
              return FALSE;
            }
        }
      if (!mdl_vat_ring_check (v->prev, v->next, v->head[l], v->offset[l], v->cap[l], "levels",
                               error))
        return FALSE;
    }
  return TRUE;
}

VAT_POLICY_DEFINE (levels, VAT_POLICY_KEEPS_PATH | VAT_POLICY_ROOT_PER_TREE, levels_access,
                   levels_victim, .min_cells_extra = 1, .state_size = sizeof (Levels),
                   .init = levels_init, .reset = levels_reset, .finalize = levels_finalize,
                   .check = levels_check);
