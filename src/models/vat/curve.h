/* Private to src/models/vat/: the TC misses of every cache size W in one pass (curve=1), for the
 * four policies that are stack algorithms (Mattson et al. 1970): at every moment the TC of size W
 * holds the W nodes of highest priority, so one priority-ordered stack stands for every W at once,
 * and a reference at stack position p (0-based) hits exactly for W > p.
 *
 * curve-lru.c: lru and islru, whose referenced node always rises to the top of its walk: the stack
 * is sorted by recency, and positions come from a Fenwick tree over access positions (O(log)).
 * curve-min.c: min and ismin, priorities by next use: no explicit stack, but each reference's OPT
 * stack distance from the critical points (critical.h) and its node's last use.
 * Both count only distances up to curve_max: deeper references miss at every W of the curve. The
 * proofs that islru and ismin are stack algorithms are in docs/models/vat.md. What the two share,
 * the index of tracked nodes and the count of references by stack position, is VatCurveBase
 * (curve.c). */
#ifndef MDL_VAT_CURVE_H
#define MDL_VAT_CURVE_H

#include <glib.h>

#include "models/vat/index.h"

/* The tracked nodes, one per entry of an index, and the references by stack position. lru and
 * islru track the top wmax of their stack: entries are taken in order 0, 1, ... while fewer than
 * wmax are used; after that a node is only tracked in the entry of one that is dropped. min and
 * ismin track the nodes that may still hit, each with its last use (curve-min.c). */
typedef struct {
  VatIndex entries;
  guint64 *hist;       /* [wmax] references by stack position (0-based) */
  guint64 beyond;      /* references from below the tracked stack, first uses included */
  guint32 wmax;
} VatCurveBase;

/* An index of @cells cells, for a curve of sizes up to @wmax. */
void mdl_vat_curve_base_init (VatCurveBase *b, guint32 wmax, guint32 cells);
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
/* The cells a min curve's index starts with (it doubles where the nodes that may still hit need
 * more), and the bytes of its critical points and last uses for them (vat.c counts both). */
guint32 mdl_vat_curve_min_cells (guint32 wmax);
guint64 mdl_vat_curve_min_bytes (guint64 wmax);

#endif
