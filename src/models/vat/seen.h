/* Private to src/models/vat/: the set of tree nodes touched so far, for the `compulsory` counter.
 *
 * The distinct nodes touched do not depend on the policy (every node is inserted at its first use
 * and only nodes that are used get inserted), so the set is fed the page sequence itself, in
 * batches, apart from the TC walk. A path is added leaf first and stops at the first node already
 * in the set: its ancestors are in the set too (whoever added it went on up to the root, or to a
 * node already there). On random pages that is about one lookup per access, the leaf's.
 *
 * Layout: a layer whose node numbers fit in SEEN_DIRECT_BITS bits gets a plain bitmap over all of
 * them, allocated zeroed so that only the pages of it that are written take memory (at most
 * 2^SEEN_DIRECT_BITS / 8 bytes). A wider layer keeps 512-bit chunks of consecutive nodes, found
 * through an open-addressing table keyed by the chunk (layer and node number >> 9), key and chunk
 * number side by side so that a probe touches one cache line: a dense range costs a bit per node,
 * a sparse one about 100 bytes per chunk. Only the guest tree is kept: with vm=1 the host walk uses
 * the same numbers in the second tree, which doubles the count (vat.c). */
#ifndef MDL_VAT_SEEN_H
#define MDL_VAT_SEEN_H

#include <glib.h>

#include "models/vat/node.h"

#define SEEN_DIRECT_BITS 28

typedef struct {
  guint64 *direct[VAT_MAX_DEPTH + 1];     /* per layer: its bitmap, or NULL for chunks */
  guint64 *slots;     /* [2 * (mask + 1)]: chunk key, chunk number; the key VAT_NO_NODE when free */
  guint64 *bits;      /* [8 * cap_chunks] */
  gsize mask;         /* table slots - 1 */
  guint shift;        /* 64 - log2(table slots) */
  gsize n_chunks;
  gsize cap_chunks;
  guint64 distinct;   /* nodes in the set */
  guint64 distinct_layer[VAT_MAX_DEPTH + 1];  /* of them, on each layer */
  guint64 memo_key[VAT_MAX_DEPTH + 1];    /* per layer: the chunk found last */
  guint64 memo_chunk[VAT_MAX_DEPTH + 1];
  guint depth;
  guint k_bits;
} VatSeen;

/* An empty set for trees of @depth levels of arity 2^@k_bits. */
void mdl_vat_seen_init (VatSeen *seen, guint depth, guint k_bits);
void mdl_vat_seen_finalize (VatSeen *seen);
/* Adds the path nodes of @pages[0..@n) (guest tree) to the set; @seen->distinct counts them.
 * O(1) expected per page plus O(1) per new node. */
void mdl_vat_seen_add_paths (VatSeen *seen, const guint64 *pages, gsize n);

#endif
