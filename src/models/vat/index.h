/* Private to src/models/vat/: a map from tree nodes to a fixed set of cells, the TC's index and
 * the curves' (VatCurveBase in curve.h). A hash index chained through the cells, 2n to 4n buckets
 * for n cells: for the W of real machines it all stays in L1, and an eviction plus an insertion
 * is two short chain edits (an open-addressing index with backward-shift deletion ran bench-vat's
 * lru at 10.8 M accesses/s, singly linked chains at 14.5).
 * The chains are doubly linked and a lookup reads the first two cells of its chain before it
 * branches: on random pages the walks of singly linked chains (to find a node, and to find the
 * link to an evicted cell) were two mispredicted branches per access, about a third of lru's time
 * (lru 128 -> 95 cycles per access). */
#ifndef MDL_VAT_INDEX_H
#define MDL_VAT_INDEX_H

#include <glib.h>

#include "models/vat/node.h"

#define VAT_NO_SLOT G_MAXUINT32

/* Entries 0..n-1 of `link` and `back` are the cells, entry n the end of every chain (it links to
 * itself and its node is VAT_NO_NODE), entries n+1+b of `link` the heads of the buckets. */
typedef struct {
  guint32 *link;          /* [n + 1 + buckets] the next cell of the chain */
  guint32 *back;          /* [n + 1] the entry that links to the cell (entry n: scratch) */
  guint64 *node;          /* [n + 1] the node in each cell, VAT_NO_NODE while free */
  guint32 n;              /* cells */
  guint32 bucket_mask;    /* buckets - 1 */
  guint bucket_shift;     /* 64 - log2(buckets) */
} VatIndex;

/* An index of @cells cells, all free. */
void mdl_vat_index_init (VatIndex *x, guint32 cells);
/* Frees every cell. */
void mdl_vat_index_clear (VatIndex *x);
void mdl_vat_index_free (VatIndex *x);
/* Checks that every chain links used cells of its bucket with agreeing back links, and that it
 * finds every used cell's node there; @what names the owner in the message (MDL_ERROR_MODEL). */
gboolean mdl_vat_index_check (const VatIndex *x, const char *what, GError **error);

static inline guint32
vat_index_bucket (const VatIndex *x, guint64 node)
{
  /* Multiply-shift: node numbers come in dense runs; the odd constant spreads them and the top
   * bits are the best mixed. */
  return (guint32) ((node * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> x->bucket_shift);
}

/* The cell holding @node, whose bucket is @b, or VAT_NO_SLOT. The first two cells are compared
 * without a branch (selects); a chain of three or more cells is rare (well under 2% of them at the
 * index's load factor of at most 1/2). */
static inline guint32
vat_index_find_in (const VatIndex *x, guint32 b, guint64 node)
{
  guint32 end = x->n, first = x->link[end + 1 + b], second = x->link[first];
  guint32 s = x->node[second] == node ? second : end;
  s = x->node[first] == node ? first : s;
  if (G_UNLIKELY (s == end && x->link[second] != end))
    for (s = x->link[second]; s != end && x->node[s] != node;)
      s = x->link[s];
  return s == end ? VAT_NO_SLOT : s;
}

/* The cell holding @node, or VAT_NO_SLOT. */
static inline guint32
vat_index_find (const VatIndex *x, guint64 node)
{
  return vat_index_find_in (x, vat_index_bucket (x, node), node);
}

/* Puts @node, of bucket @b, into the free cell @s, first in its chain. */
static inline void
vat_index_put (VatIndex *x, guint32 b, guint32 s, guint64 node)
{
  guint32 head = x->n + 1 + b, next = x->link[head];
  x->node[s] = node;
  x->link[s] = next;
  x->back[s] = head;
  x->back[next] = s;
  x->link[head] = s;
}

/* Frees the used cell @s. */
static inline void
vat_index_remove (VatIndex *x, guint32 s)
{
  guint32 next = x->link[s], at = x->back[s];
  x->link[at] = next;
  x->back[next] = at;
  x->node[s] = VAT_NO_NODE;
}

#endif
