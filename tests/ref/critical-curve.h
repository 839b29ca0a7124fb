/* A slow, plain reference for the min/ismin curve by the critical points of the OPT stack
 * (src/models/vat/critical.h, docs/models/vat.md "branch s11-curves"), for
 * tests/test-vat-curve-min.c: the points in a plain array, searched and shifted one by one, and
 * each node's last use found by a linear search. The keys must be true next uses (only "never
 * again", VAT_DEAD_KEY and above, is read from them). */
#ifndef TESTS_REF_CRITICAL_CURVE_H
#define TESTS_REF_CRITICAL_CURVE_H

#include <glib.h>

typedef struct RefCriticalCurve RefCriticalCurve;

/* @is: ismin instead of min (its counts are ismin's from W = d + 1 on); @wmax: the largest W. */
RefCriticalCurve *ref_critical_curve_new (guint32 wmax, gboolean is);
void ref_critical_curve_free (RefCriticalCurve *c);
/* One walk, root first: @nodes[i] and the next-use key after this use, @keys[i], i = 0..n-1. */
void ref_critical_curve_walk (RefCriticalCurve *c, const guint64 *nodes, const guint64 *keys,
                              guint n);
/* @out[W] = misses at size W, for W = 0..wmax. */
void ref_critical_curve_misses (const RefCriticalCurve *c, guint64 *out);

#endif
