/* The node-to-cell index (index.h): setup and the consistency check. */
#include <models/error.h>

#include "models/vat/index.h"
#include "models/vat/zeroed.h"

static gsize
direct_bytes (guint bits)
{
  return sizeof (guint32) << bits;
}

void
mdl_vat_index_init (VatIndex *x, guint32 cells)
{
  guint bits = 1;
  while ((G_GUINT64_CONSTANT (1) << bits) < 2 * (guint64) cells)
    bits++;
  x->n = cells;
  x->bucket_mask = (guint32) ((G_GUINT64_CONSTANT (1) << bits) - 1);
  x->bucket_shift = 64 - bits;
  x->link = g_new (guint32, (gsize) cells + 1 + x->bucket_mask + 1);
  x->back = g_new (guint32, (gsize) cells + 1);
  x->node = g_new (guint64, (gsize) cells + 1);
  x->direct = g_new0 (guint32 *, 256);
  x->direct_bits = g_new0 (guint8, 256);
  mdl_vat_index_clear (x);
}

void
mdl_vat_index_add_direct (VatIndex *x, guint layer, guint tree, guint bits)
{
  guint key = (guint) (vat_node_make (layer, tree, 0) >> VAT_TREE_SHIFT);
  g_assert (bits <= VAT_DIRECT_BITS && x->direct[key] == NULL);
  /* Zeroes name cell 0, which the lookup checks like any other cell. */
  x->direct[key] = mdl_vat_zeroed_new (direct_bytes (bits));
  x->direct_bits[key] = (guint8) bits;
}

void
mdl_vat_index_clear (VatIndex *x)
{
  for (gsize e = x->n; e <= (gsize) x->n + 1 + x->bucket_mask; e++)
    x->link[e] = x->n;
  for (guint32 s = 0; s <= x->n; s++)
    {
      x->node[s] = VAT_NO_NODE;
      x->link[s] = x->n;
      x->back[s] = x->n;
    }
}

void
mdl_vat_index_rechain (VatIndex *x)
{
  for (gsize e = x->n; e <= (gsize) x->n + 1 + x->bucket_mask; e++)
    x->link[e] = x->n;
  x->back[x->n] = x->n;
  for (guint32 s = 0; s < x->n; s++)
    {
      x->link[s] = x->n;
      x->back[s] = x->n;
      if (x->node[s] != VAT_NO_NODE)
        vat_index_put (x, s, x->node[s]);
    }
}

void
mdl_vat_index_free (VatIndex *x)
{
  g_free (x->link);
  g_free (x->back);
  g_free (x->node);
  for (guint key = 0; key < 256; key++)
    mdl_vat_zeroed_free (x->direct[key], direct_bytes (x->direct_bits[key]));
  g_free (x->direct);
  g_free (x->direct_bits);
}

gboolean
mdl_vat_index_check (const VatIndex *x, const char *what, GError **error)
{
  guint32 n_chained = 0, n_hashed = 0;
  for (gsize b = 0; b <= x->bucket_mask; b++)
    for (guint32 at = x->n + 1 + (guint32) b, s = x->link[at]; s != x->n; at = s, s = x->link[s])
      {
        if (s > x->n || x->node[s] == VAT_NO_NODE || x->direct[x->node[s] >> VAT_TREE_SHIFT]
            || x->back[s] != at || ++n_chained > x->n)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat %s check: index chain %zu is "
                         "broken at cell %u", what, b, s);
            return FALSE;
          }
        if (vat_index_bucket (x, x->node[s]) != b)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat %s check: cell %u is indexed in "
                         "the wrong chain", what, s);
            return FALSE;
          }
      }
  for (guint32 s = 0; s < x->n; s++)
    if (x->node[s] == VAT_NO_NODE || x->direct[x->node[s] >> VAT_TREE_SHIFT] != NULL)
      {
        if (x->link[s] != x->n || x->back[s] != x->n)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat %s check: cell %u is in no chain "
                         "but links to entry %u and back to %u", what, s, x->link[s], x->back[s]);
            return FALSE;
          }
      }
  for (guint32 s = 0; s < x->n; s++)
    if (x->node[s] != VAT_NO_NODE)
      {
        n_hashed += x->direct[x->node[s] >> VAT_TREE_SHIFT] == NULL;
        if (vat_index_find (x, x->node[s]) != s)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat %s check: the node of cell %u is "
                         "not found there", what, s);
            return FALSE;
          }
      }
  if (n_chained != n_hashed)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat %s check: the chains hold %u cells, %u "
                   "cells of hashed layers are in use", what, n_chained, n_hashed);
      return FALSE;
    }
  return TRUE;
}
