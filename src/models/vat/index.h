/* Private to src/models/vat/: a map from tree nodes to a fixed set of cells, the TC's index and
 * the curves' (VatCurveBase in curve.h).
 *
 * Two kinds of layer. A layer with few enough node numbers (the TC's upper layers, and on traces
 * of a few GiB its leaves too) may get a direct table: the cell each of its nodes was last put in,
 * by node number, trusted only when that cell still holds the node. A lookup is two loads, an
 * insertion one store, and an eviction nothing; the table is never cleared (a stale entry names a
 * cell that now holds another node or none). The tables are mapped zeroed, so only the parts
 * touched cost memory.
 *
 * Every other layer is hashed: chains through the cells, 2n to 4n buckets for n cells, all in L1
 * for the W of real machines (an open-addressing index with backward-shift deletion ran bench-vat's
 * lru at 10.8 M accesses/s, singly linked chains at 14.5). The chains are doubly linked and a
 * lookup reads the first two cells of its chain before it branches: on random pages the walks of
 * singly linked chains (to find a node, and to find the link to an evicted cell) were two
 * mispredicted branches per access, about a third of lru's time (lru 128 -> 95 cycles per
 * access). */
#ifndef MDL_VAT_INDEX_H
#define MDL_VAT_INDEX_H

#include <glib.h>

#include "models/vat/node.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define VAT_NO_SLOT G_MAXUINT32

/* Layers of at most 2^VAT_DIRECT_BITS nodes may get a direct table (4 bytes a node, of which a
 * trace touches the pages around its nodes). Why not more: bench-vat's leaves (2^27 on its tree,
 * 16 MiB of table touched) ran lru at 0.45x the hashed leaves, every store a cache miss. */
#define VAT_DIRECT_BITS 20

/* Entries 0..n-1 of `link` and `back` are the cells, entry n the end of every chain (it links to
 * itself and its node is VAT_NO_NODE), entries n+1+b of `link` the heads of the buckets. A cell in
 * no chain (free, or holding a node of a direct layer) links to entry n both ways, so that removing
 * any cell is the same two stores, without a branch on its layer (a coin toss on random pages). */
typedef struct {
  guint64 *node;          /* [n + 1] the node in each cell, VAT_NO_NODE while free */
  guint32 *link;          /* [n + 1 + buckets] the next cell of the chain */
  guint32 *back;          /* [n + 1] the entry that links to the cell (entry n: scratch) */
  guint32 **direct;       /* [256] by a node's layer and tree (node >> VAT_TREE_SHIFT; 255 is
                             VAT_NO_NODE's): its layer's direct table, NULL for a hashed layer */
  guint8 *direct_bits;    /* [256] the node bits of each direct table */
  guint32 n;              /* cells */
  guint32 bucket_mask;    /* buckets - 1 */
  guint bucket_shift;     /* 64 - log2(buckets) */
} VatIndex;
/* Why the tables sit behind pointers: the struct stays small enough that a hot loop copies it to
 * a local, whose fields the compiler then keeps in registers across the stores to the tables. */

/* An index of @cells cells, all free, every layer hashed. */
void mdl_vat_index_init (VatIndex *x, guint32 cells);
/* Gives layer @layer of tree @tree, whose node numbers are below 2^@bits (@bits <=
 * VAT_DIRECT_BITS), a direct table; only while no cell is used. */
void mdl_vat_index_add_direct (VatIndex *x, guint layer, guint tree, guint bits);
/* Frees every cell. */
void mdl_vat_index_clear (VatIndex *x);
/* Rebuilds every chain from the cells' nodes (the direct tables must be up to date).
 * O(cells + buckets). */
void mdl_vat_index_rechain (VatIndex *x);
void mdl_vat_index_free (VatIndex *x);
/* Checks that every chain links used cells of its bucket with agreeing back links, and that the
 * index finds every used cell's node there; @what names the owner in the message
 * (MDL_ERROR_MODEL). */
gboolean mdl_vat_index_check (const VatIndex *x, const char *what, GError **error);

static inline guint32
vat_index_bucket (const VatIndex *x, guint64 node)
{
  /* Multiply-shift: node numbers come in dense runs; the odd constant spreads them and the top
   * bits are the best mixed. */
  return (guint32) ((node * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> x->bucket_shift);
}

/* The cell holding @node of a hashed layer, or VAT_NO_SLOT. The first two cells of the chain are
 * compared without a branch (selects); a chain of three or more cells is rare (well under 2% of
 * them at the index's load factor of at most 1/2). */
static inline guint32
vat_index_find_hashed (const VatIndex *x, guint64 node)
{
  guint32 end = x->n, first = x->link[end + 1 + vat_index_bucket (x, node)];
  guint32 second = x->link[first];
  guint32 s = x->node[second] == node ? second : end;
  s = x->node[first] == node ? first : s;
  if (G_UNLIKELY (s == end && x->link[second] != end))
    for (s = x->link[second]; s != end && x->node[s] != node;)
      s = x->link[s];
  return s == end ? VAT_NO_SLOT : s;
}

/* The direct table of @node's layer and tree, NULL for a hashed layer. A walk that knows its
 * layers reads these once and passes them to the _in calls below. */
static inline guint32 *
vat_index_direct_of (const VatIndex *x, guint64 node)
{
  return x->direct[node >> VAT_TREE_SHIFT];
}

/* The cell holding @node, or VAT_NO_SLOT; @direct: vat_index_direct_of (@x, @node). */
static inline guint32
vat_index_find_in (const VatIndex *x, const guint32 *direct, guint64 node)
{
  if (direct != NULL)
    {
      guint32 s = direct[node & VAT_INDEX_MASK];
      return x->node[s] == node ? s : VAT_NO_SLOT;
    }
  return vat_index_find_hashed (x, node);
}

/* The cell holding @node, or VAT_NO_SLOT. */
static inline guint32
vat_index_find (const VatIndex *x, guint64 node)
{
  return vat_index_find_in (x, vat_index_direct_of (x, node), node);
}

/* Where a TC has at most VAT_SCAN_CELLS cells, a run may find the hashed layers' nodes by scanning
 * the cells instead of keeping the chains (vat_recency_run_fast): a 16-bit fingerprint of each
 * cell's node, compared 16 at a time, and the chains rebuilt from the cells' nodes at the end of
 * the run (mdl_vat_index_rechain). An insertion is then a store or two and an eviction nothing
 * (bench-vat lru: 211 -> 200 instructions per access). Why no more cells: a scan of 64 already
 * costs about twice the instructions of a chain lookup. */
#define VAT_SCAN_CELLS 64

static inline guint16
vat_index_fingerprint (guint64 node)
{
  return (guint16) ((node * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 48);
}

/* The cell holding @node, or VAT_NO_SLOT, by @fp ([@x->n rounded up to 16]: the fingerprint of
 * each cell's node, then anything). */
static inline guint32
vat_index_scan (const VatIndex *x, const guint16 *fp, guint64 node)
{
  guint16 key = vat_index_fingerprint (node);
#ifdef __SSE2__
  __m128i keys = _mm_set1_epi16 ((short) key);
  for (guint32 c = 0; c < x->n; c += 16)
    {
      __m128i lo = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (fp + c));
      __m128i hi = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (fp + c + 8));
      guint m = (guint) _mm_movemask_epi8 (_mm_packs_epi16 (_mm_cmpeq_epi16 (lo, keys),
                                                            _mm_cmpeq_epi16 (hi, keys)));
      for (; m != 0; m &= m - 1)
        {
          guint32 s = c + (guint32) __builtin_ctz (m);
          if (s < x->n && x->node[s] == node)
            return s;
        }
    }
#else
  for (guint32 s = 0; s < x->n; s++)
    if (fp[s] == key && x->node[s] == node)
      return s;
#endif
  return VAT_NO_SLOT;
}

/* Takes the cell @s out of its chain, if it is in one; its own links are left as they were. */
static inline void
vat_index_unlink (VatIndex *x, guint32 s)
{
  guint32 next = x->link[s], at = x->back[s];
  x->link[at] = next;
  x->back[next] = at;
}

/* Puts @node into the cell @s, free or just unlinked (first in the chain of its bucket, if
 * hashed); @direct: vat_index_direct_of (@x, @node). */
static inline void
vat_index_put_in (VatIndex *x, guint32 *direct, guint32 s, guint64 node)
{
  x->node[s] = node;
  if (direct != NULL)
    {
      direct[node & VAT_INDEX_MASK] = s;
      x->link[s] = x->n;
      x->back[s] = x->n;
    }
  else
    {
      guint32 head = x->n + 1 + vat_index_bucket (x, node), next = x->link[head];
      x->link[s] = next;
      x->back[s] = head;
      x->back[next] = s;
      x->link[head] = s;
    }
}

static inline void
vat_index_put (VatIndex *x, guint32 s, guint64 node)
{
  vat_index_put_in (x, vat_index_direct_of (x, node), s, node);
}

/* Frees the cell @s; a free one stays free. */
static inline void
vat_index_remove (VatIndex *x, guint32 s)
{
  vat_index_unlink (x, s);
  x->link[s] = x->n;
  x->back[s] = x->n;
  x->node[s] = VAT_NO_NODE;
}

/* Puts @node into the cell @s in place of its node, if any: a remove and a put in one. */
static inline void
vat_index_replace_in (VatIndex *x, guint32 *direct, guint32 s, guint64 node)
{
  vat_index_unlink (x, s);
  vat_index_put_in (x, direct, s, node);
}

#endif
