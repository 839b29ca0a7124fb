/* Private to src/models/vat/: the TC misses of every cache size W in one pass (curve=1), for the
 * four policies that are stack algorithms (Mattson et al. 1970): at every moment the TC of size W
 * holds the W nodes of highest priority, so one priority-ordered stack stands for every W at once,
 * and a reference at stack position p (0-based) hits exactly for W > p.
 *
 * curve-lru.c: lru and islru, whose referenced node always rises to the top of its walk: the stack
 * is sorted by recency, and positions come from a Fenwick tree over access positions (O(log)).
 * curve-min.c: min and ismin, priorities by next use: the stack update of Mattson's OPT algorithm,
 * where only the running-maximum "records" move, found by one sweep down a max tree.
 * Both keep only the top curve_max entries: deeper references miss at every W of the curve. The
 * proofs that islru and ismin are stack algorithms are in docs/models/vat.md. What the two share,
 * the tracked nodes and the count of references by stack position, is VatCurveBase (curve.c). */
#ifndef MDL_VAT_CURVE_H
#define MDL_VAT_CURVE_H

#include <glib.h>

#include "models/vat/index.h"

/* The tracked nodes, one per entry of an index (at most wmax), and the references by stack
 * position. Entries are taken in order 0, 1, ... while fewer than wmax are used; after that a
 * node is only tracked in the entry of one that is dropped. */
typedef struct {
  VatIndex entries;
  guint64 *hist;       /* [wmax] references by stack position (0-based) */
  guint64 beyond;      /* references from below the tracked stack, first uses included */
  guint32 wmax;
} VatCurveBase;

void mdl_vat_curve_base_init (VatCurveBase *b, guint32 wmax);
/* Back to no tracked node and no reference. */
void mdl_vat_curve_base_clear (VatCurveBase *b);
void mdl_vat_curve_base_free (VatCurveBase *b);
/* @out[W] = misses at size W, for W = 0..wmax: the references at stack position W or deeper. */
void mdl_vat_curve_base_misses (const VatCurveBase *b, guint64 *out);

typedef struct VatCurveLru VatCurveLru;
typedef struct VatCurveMin VatCurveMin;

/* @is: islru instead of lru. @wmax: the largest W of the curve. */
VatCurveLru *mdl_vat_curve_lru_new (guint depth, guint k_bits, guint32 wmax, gboolean is);
void mdl_vat_curve_lru_free (VatCurveLru *c);
void mdl_vat_curve_lru_reset (VatCurveLru *c);
/* One walk of @page in tree @tree, root first. */
void mdl_vat_curve_lru_walk (VatCurveLru *c, guint64 page, guint tree);
/* @out[W] = misses at size W, for W = 0..wmax. */
void mdl_vat_curve_lru_misses (const VatCurveLru *c, guint64 *out);

/* @is: ismin instead of min. */
VatCurveMin *mdl_vat_curve_min_new (guint32 wmax, gboolean is);
void mdl_vat_curve_min_free (VatCurveMin *c);
void mdl_vat_curve_min_reset (VatCurveMin *c);
/* One walk, root first: @nodes[i] and the next-use key after this use, @keys[i], i = 0..n-1. */
void mdl_vat_curve_min_walk (VatCurveMin *c, const guint64 *nodes, const guint64 *keys, guint n);
void mdl_vat_curve_min_misses (const VatCurveMin *c, guint64 *out);
/* The bytes of a min curve's stack, positions and max tree for @wmax positions (vat.c counts them). */
guint64 mdl_vat_curve_min_bytes (guint64 wmax);

#endif
