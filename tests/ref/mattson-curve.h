/* The one-pass min/ismin curve by Mattson's stack update, as src/models/vat/curve-min.c computed it
 * before branch s11-curves: a reference for the critical-point algorithm that replaced it
 * (tests/test-vat-curve-min.c). Same calls as curve.h's VatCurveMin. */
#ifndef TESTS_REF_MATTSON_CURVE_H
#define TESTS_REF_MATTSON_CURVE_H

#include <glib.h>

typedef struct RefMattsonCurve RefMattsonCurve;

/* @is: ismin instead of min; @wmax: the largest W of the curve. */
RefMattsonCurve *ref_mattson_curve_new (guint32 wmax, gboolean is);
void ref_mattson_curve_free (RefMattsonCurve *c);
void ref_mattson_curve_reset (RefMattsonCurve *c);
/* One walk, root first: @nodes[i] and the next-use key after this use, @keys[i], i = 0..n-1. */
void ref_mattson_curve_walk (RefMattsonCurve *c, const guint64 *nodes, const guint64 *keys,
                             guint n);
/* @out[W] = misses at size W, for W = 0..wmax. */
void ref_mattson_curve_misses (const RefMattsonCurve *c, guint64 *out);

#endif
