/* Private: what tests and the benchmark reach past the engine API. The node encoding, a direct
 * constructor for the engine state (so a test can watch every TC operation through a hook), and
 * consistency checks of the translation cache. Nothing here is installed. */
#ifndef MDL_VAT_H
#define MDL_VAT_H

#include <glib.h>
#include <models/engine.h>

/* A tree node packed in 64 bits: layer (0 = leaves, d = root) in bits 57..63, the tree (0 = the
 * guest or only tree, 1 = the host tree of vm=1) in bit 56, the node's number in its layer below.
 * The number of a layer-l node is page >> (log2(K)·l), so K^d ≤ 2^56 keeps it in range. */
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

/* The translation cache of one engine (policy.h has the layout). */
typedef struct VatTc VatTc;
/* The engine state (vat.c). */
typedef struct Vat Vat;

/**
 * VatEventKind: what the observation hook is told, in the order it happens.
 * @VAT_EV_HIT: the walk found @node cached.
 * @VAT_EV_EVICT: the policy evicted @node to make room (the insertion follows).
 * @VAT_EV_MISS: @node was inserted (one TC miss).
 */
typedef enum {
  VAT_EV_HIT = 0,
  VAT_EV_EVICT,
  VAT_EV_MISS,
} VatEventKind;

/* Called after every TC operation when set; @tc may be inspected (mdl_vat_tc_cached/check). An
 * access collapsed into the previous one (same page, a policy that keeps the whole path) reports
 * its d+1 hits too, so hit/miss sequences compare with an uncollapsed reference. Offline policies
 * (min, ismin) run when the report is made, and call the hook then. */
typedef void (*VatHook) (void *data, const VatTc *tc, VatEventKind kind, guint64 node);

/**
 * mdl_vat_new: the engine state without the MdlEngine wrapper.
 * @assignments: the spec's parameter part, "policy=lru,K=4,d=3,W=8" ("" for the defaults).
 * @error: MDL_ERROR_PARAM as for mdl_engine_new("vat:...").
 * Returns: (transfer full) the state, or NULL.
 */
Vat *mdl_vat_new (const char *assignments, GError **error);
/* mdl_vat_free: NULL is fine. */
void mdl_vat_free (Vat *vat);
/* The engine methods, on a state from mdl_vat_new(). */
gboolean mdl_vat_consume (Vat *vat, const MdlEventBatch *batch, GError **error);
gboolean mdl_vat_marker (Vat *vat, const MdlMarker *marker, GError **error);
/* (transfer full) the report, as the engine gives it. */
MdlReport *mdl_vat_report (Vat *vat);
/* Feeds one 1-byte read at the start of each page of @pages (page numbers, not addresses). */
gboolean mdl_vat_pages (Vat *vat, const guint64 *pages, gsize n, GError **error);
/* Installs (or with NULL removes) the observation hook. */
void mdl_vat_set_hook (Vat *vat, VatHook hook, void *data);
/* The TC of @vat (borrowed). */
const VatTc *mdl_vat_tc (const Vat *vat);
/* The page shift and depth in force (after huge=1). */
guint mdl_vat_page_shift (const Vat *vat);
guint mdl_vat_depth (const Vat *vat);

/* TRUE when @node is cached. */
gboolean mdl_vat_tc_cached (const VatTc *tc, guint64 node);
/* Number of cached nodes. */
guint mdl_vat_tc_len (const VatTc *tc);
/* The @i-th cell's node, VAT_NO_NODE when free. */
guint64 mdl_vat_tc_cell (const VatTc *tc, guint i);
/**
 * mdl_vat_tc_check: checks the TC's invariants: the index finds every cached node in its cell and
 * nothing else; no node is cached twice; under an ISP policy (islru, ismin) every cached non-root
 * node has its parent cached (the initial segment property), and the child counts are right; the
 * policy's own structures hold exactly the cached cells.
 * @error: MDL_ERROR_MODEL naming the broken invariant and the node.
 */
gboolean mdl_vat_tc_check (const VatTc *tc, GError **error);

#endif
