/* Private to src/models/vat/: a node of the translation tree packed in 64 bits, the word every
 * part of the engine (the TC and its index, the policies, the seen-set, the curves) and its tests
 * speak. Layer (0 = leaves, d = root) in bits 57..63, the tree (0 = the guest or only tree, 1 =
 * the host tree of vm=1) in bit 56, the node's number in its layer below. The number of a layer-l
 * node is page >> (log2(K)·l), so K^d ≤ 2^56 keeps it in range. */
#ifndef MDL_VAT_NODE_H
#define MDL_VAT_NODE_H

#include <glib.h>

#define VAT_MAX_DEPTH 56
#define VAT_MAX_INDEX_BITS 56
#define VAT_LAYER_SHIFT 57
#define VAT_TREE_SHIFT 56
#define VAT_INDEX_MASK ((G_GUINT64_CONSTANT (1) << VAT_TREE_SHIFT) - 1)
#define VAT_NO_NODE G_MAXUINT64 /* never a node: the layer field would be 127 */

static inline guint64
vat_node_make (guint layer, guint tree, guint64 index)
{
  return ((guint64) layer << VAT_LAYER_SHIFT) | ((guint64) tree << VAT_TREE_SHIFT) | index;
}

static inline guint
vat_node_layer (guint64 node)
{
  return (guint) (node >> VAT_LAYER_SHIFT);
}

static inline guint
vat_node_tree (guint64 node)
{
  return (guint) (node >> VAT_TREE_SHIFT) & 1;
}

static inline guint64
vat_node_index (guint64 node)
{
  return node & VAT_INDEX_MASK;
}

/* The hash tables keyed by nodes, or by numbers made from them (seen.c, nextuse.c), keep each key
 * beside its value so that a probe reads one cache line; a free pair's key is VAT_NO_NODE. The
 * pair of @key in @pairs ([2 * (mask + 1)]: key, value), probing linearly from pair @home: the pair
 * holding @key, or the free pair where it would go. */
static inline guint64 *
vat_pair_find (guint64 *pairs, gsize mask, gsize home, guint64 key)
{
  gsize i = home;
  while (pairs[2 * i] != key && pairs[2 * i] != VAT_NO_NODE)
    i = (i + 1) & mask;
  return &pairs[2 * i];
}

#endif
