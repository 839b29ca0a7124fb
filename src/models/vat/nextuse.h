/* Private to src/models/vat/: the next uses that the offline policies (min, ismin) key their cells
 * by, computed forward as the accesses arrive (nextuse.c).
 *
 * For access t and layer l, next[t * (d+1) + l] is the number of the next access whose path
 * shares t's layer-l node, or G_MAXUINT32 while there is none so far. An access gets its entries
 * when it is added, and an earlier access's entry is filled in once, when its node is used again,
 * so after the last access every entry is what a backward pass over the whole trace gives. The
 * accesses before `final_upto` have all their next uses already: a policy may run over them while
 * the stream goes on, and its choices are those of a run after the stream's end. */
#ifndef MDL_VAT_NEXTUSE_H
#define MDL_VAT_NEXTUSE_H

#include <glib.h>

#include "models/vat/node.h"

/* What one layer remembers of each node: the last access of its latest finished run of
 * consecutive uses (the leaves' own loop stores the run under way too, which its end would store
 * anyway), either in a plain array indexed by node number (access + 1, 0: none) where the
 * layer's numbers are dense, or in a hash table. */
typedef struct {
  guint32 *direct;     /* [n_direct] while not hashed */
  guint64 n_direct;
  guint64 *pairs;      /* hashed: [2 * (mask + 1)] node number, last access */
  gsize mask;
  gsize n_pairs;
  guint64 run_node;    /* the node number of the latest access (VAT_NO_NODE before the first) */
  guint64 distinct;    /* node numbers seen */
  guint64 top;         /* hashed: the largest number seen */
  gboolean hashed;
} VatNextUseLayer;

typedef struct {
  GArray *next;        /* guint32, (d+1) per access */
  gsize n;             /* accesses added */
  gsize final_upto;    /* accesses [0, final_upto) have every next use */
  guint depth;         /* d */
  guint k_bits;        /* log2 K */
  VatNextUseLayer layer[VAT_MAX_DEPTH + 1];
} VatNextUse;

void mdl_vat_nextuse_init (VatNextUse *nu, guint depth, guint k_bits);
void mdl_vat_nextuse_finalize (VatNextUse *nu);

/* Appends the accesses to @pages[0..@n) (page numbers) and fills in the next uses they give.
 * Amortized O(d+1) per access: a direct array's load and store per layer, or, on a hashed layer,
 * one probe where a run of the same node ends (within a run the next use is the next access).
 * The caller keeps the total below G_MAXUINT32 - 1 accesses. */
void mdl_vat_nextuse_add (VatNextUse *nu, const guint64 *pages, gsize n);

/* The entries of access 0 on: (d+1) per access, valid until the next add. */
static inline const guint32 *
mdl_vat_nextuse_of (const VatNextUse *nu)
{
  return (const guint32 *) (gconstpointer) nu->next->data;
}

#endif
