/* The translation cache's storage (policy.h), and the consistency check the tests run after every
 * operation. */
#include <models/error.h>

#include "models/vat/policy.h"

#include <string.h>

void
mdl_vat_tc_init (VatTc *tc, const VatPolicy *policy, guint32 n_slots, guint depth, guint k_bits,
                 guint n_trees, guint64 seed)
{
  tc->policy = policy;
  tc->n_slots = n_slots;
  tc->depth = depth;
  tc->k_bits = k_bits;
  tc->n_trees = n_trees;
  tc->seed = seed;
  tc->isp = (policy->flags & VAT_POLICY_ISP) != 0;
  for (guint b = 0; b <= 64; b++)
    tc->memo_layer[b] = (guint8) MIN ((b + k_bits - 1) / k_bits, depth + 1);
  mdl_vat_index_init (&tc->index, n_slots);
  for (guint l = 0; l <= depth; l++)
    if (k_bits * (depth - l) <= VAT_DIRECT_BITS)
      for (guint tree = 0; tree < n_trees; tree++)
        mdl_vat_index_add_direct (&tc->index, l, tree, k_bits * (depth - l));
  if (tc->isp)
    {
      tc->parent = g_new (guint32, n_slots);
      tc->n_children = g_new0 (guint32, n_slots);
    }
  tc->ps = g_malloc0 (MAX (policy->state_size, 1));
  if (policy->init)
    policy->init (tc);
  mdl_vat_tc_reset (tc);
}

void
mdl_vat_tc_reset (VatTc *tc)
{
  mdl_vat_index_clear (&tc->index);
  if (tc->isp)
    {
      /* A free cell has no parent, so an insertion may drop its cell's old parent link
       * without asking whether the cell was free. */
      memset (tc->parent, 0xff, tc->n_slots * sizeof *tc->parent);
      memset (tc->n_children, 0, tc->n_slots * sizeof *tc->n_children);
    }
  tc->filled = 0;
  tc->memo_page = VAT_NO_NODE;
  memset (tc->misses_layer, 0, sizeof tc->misses_layer);
  tc->policy->reset (tc);
}

void
mdl_vat_tc_recount_children (VatTc *tc)
{
  memset (tc->n_children, 0, tc->n_slots * sizeof *tc->n_children);
  for (guint32 c = 0; c < tc->n_slots; c++)
    if (tc->parent[c] != VAT_NO_SLOT)
      tc->n_children[tc->parent[c]]++;
}

void
mdl_vat_tc_finalize (VatTc *tc)
{
  if (tc->ps && tc->policy->finalize)
    tc->policy->finalize (tc);
  g_free (tc->ps);
  if (tc->index.node)
    mdl_vat_index_free (&tc->index);
  g_free (tc->parent);
  g_free (tc->n_children);
  memset (tc, 0, sizeof *tc);
}

guint64
mdl_vat_tc_tree_misses (const VatTc *tc, guint tree)
{
  guint64 sum = 0;
  for (guint l = 0; l <= tc->depth; l++)
    sum += tc->misses_layer[tree][l];
  return sum;
}

guint64
mdl_vat_tc_misses (const VatTc *tc)
{
  return mdl_vat_tc_tree_misses (tc, 0) + mdl_vat_tc_tree_misses (tc, 1);
}

gboolean
mdl_vat_tc_cached (const VatTc *tc, guint64 node)
{
  return vat_index_find (&tc->index, node) != VAT_NO_SLOT;
}

static gboolean
fail (GError **error, const char *what, guint64 node)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: %s (node layer %u, tree %u, "
               "number %" G_GUINT64_FORMAT ")", what, vat_node_layer (node), vat_node_tree (node),
               vat_node_index (node));
  return FALSE;
}

gboolean
mdl_vat_tc_check (const VatTc *tc, GError **error)
{
  guint32 n_used = 0;
  if (!mdl_vat_index_check (&tc->index, "TC", error))
    return FALSE;
  for (guint32 s = 0; s < tc->n_slots; s++)
    n_used += tc->index.node[s] != VAT_NO_NODE;
  if (n_used != tc->filled)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: %u cells are in use, %u counted",
                   n_used, tc->filled);
      return FALSE;
    }
  /* Only the count of used cells is checked: the check also runs between an eviction and the
   * insertion into the same cell, and levels fills each layer's own range of cells. */
  for (guint32 s = 0; s < tc->n_slots; s++)
    {
      guint64 node = tc->index.node[s];
      if (node == VAT_NO_NODE)
        continue;
      if (tc->isp)
        {
          guint layer = vat_node_layer (node);
          guint32 children = 0;
          if (layer < tc->depth)
            {
              guint64 up = vat_node_make (layer + 1, vat_node_tree (node),
                                          vat_node_index (node) >> tc->k_bits);
              if (vat_index_find (&tc->index, up) == VAT_NO_SLOT)
                return fail (error, "initial segment property broken: parent not cached", node);
              if (tc->parent[s] != vat_index_find (&tc->index, up))
                return fail (error, "parent link points at the wrong cell", node);
            }
          else if (tc->parent[s] != VAT_NO_SLOT)
            return fail (error, "root has a parent link", node);
          for (guint32 c = 0; c < tc->n_slots; c++)
            children += tc->index.node[c] != VAT_NO_NODE && tc->parent[c] == s
                        && vat_node_layer (tc->index.node[c]) + 1 == layer;
          if (children != tc->n_children[s])
            return fail (error, "child count is wrong", node);
        }
    }
  return tc->policy->check == NULL || tc->policy->check (tc, error);
}

void
mdl_vat_ring_init (guint32 *prev, guint32 *next, guint32 *head, guint32 first, guint32 n)
{
  /* Cell first + i is followed (less recent) by first + i - 1, so that the cells are taken in the
   * order first, first + 1, ... */
  for (guint32 i = 0; i < n; i++)
    {
      prev[first + i] = first + (i + 1 == n ? 0 : i + 1);
      next[first + i] = first + (i == 0 ? n - 1 : i - 1);
    }
  *head = first + n - 1;
}

gboolean
mdl_vat_ring_check (const guint32 *prev, const guint32 *next, guint32 head, guint32 first,
                    guint32 n, const char *what, GError **error)
{
  guint32 s = head;
  for (guint32 i = 0; i < n; i++, s = next[s])
    if (s < first || s >= first + n || prev[next[s]] != s || (i > 0 && s == head))
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: %s ring is broken at cell "
                     "%u", what, s);
        return FALSE;
      }
  if (s != head)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: %s ring does not close after "
                   "its %u cells", what, n);
      return FALSE;
    }
  return TRUE;
}

void
mdl_vat_recency_init (VatTc *tc)
{
  VatRecency *r = tc->ps;
  r->prev = g_new (guint32, tc->n_slots);
  r->next = g_new (guint32, tc->n_slots);
}

void
mdl_vat_recency_reset (VatTc *tc)
{
  VatRecency *r = tc->ps;
  mdl_vat_ring_init (r->prev, r->next, &r->head, 0, tc->n_slots);
}

void
mdl_vat_recency_finalize (VatTc *tc)
{
  VatRecency *r = tc->ps;
  g_free (r->prev);
  g_free (r->next);
}

gboolean
mdl_vat_recency_check (const VatTc *tc, GError **error)
{
  const VatRecency *r = tc->ps;
  return mdl_vat_ring_check (r->prev, r->next, r->head, 0, tc->n_slots, tc->policy->name, error);
}
