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
 * 2^SEEN_DIRECT_BITS / 8 bytes). A wider layer keeps 512-bit chunks of consecutive nodes. Up to
 * SEEN_RADIX_BITS bits (x86-64's leaves: 36) a zeroed table indexed by the node number >> 9 holds
 * each chunk's number + 1 (mapped zeroed: 512 MiB of address space at 36 bits), so that a lookup
 * is two loads (scan/random's leaves through the hash below took 57 instructions a lookup,
 * callgrind); the table takes a 4 KiB page of memory per 2^19 nodes of address range it is asked
 * about, which a dense range amortizes and a page scattered alone does not. A wider layer finds its chunks through an open-addressing table
 * keyed by the chunk (layer and node number >> 9), key and chunk number side by side so that a
 * probe touches one cache line: a dense range costs a bit per node, a sparse one about 100 bytes
 * per chunk. Only the guest tree is kept: with vm=1 the host walk uses the same numbers in the
 * second tree, which doubles the count (vat.c). */
#ifndef MDL_VAT_SEEN_H
#define MDL_VAT_SEEN_H

#include <glib.h>

#include "models/vat/node.h"

#define SEEN_DIRECT_BITS 28
#define SEEN_RADIX_BITS 36

typedef struct {
  guint64 *direct[VAT_MAX_DEPTH + 1];     /* per layer: its bitmap, or NULL for chunks */
  guint32 *radix[VAT_MAX_DEPTH + 1];      /* per layer of chunks up to SEEN_RADIX_BITS bits: the
                                             chunk number + 1 of node number >> 9 (0: none);
                                             NULL for the other layers */
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
