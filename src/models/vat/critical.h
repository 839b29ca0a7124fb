/* Private to src/models/vat/: the critical points of the OPT stack (curve-min.c), the state that
 * gives every reference's OPT stack distance without a stack.
 *
 * Time is counted in references, stamps 1, 2, ... (0: none). For cache sizes W = 2..wmax there is
 * one critical point c[W - 2] each, a stamp or 0. The stack distance of a reference at stamp t to
 * a node last used at stamp s is 1 where s = t - 1, else the least W with c[W - 2] <= s, or beyond
 * wmax where there is none. After a reference with distance D >= 2 the critical points move by
 * vat_critical_shift (D - 2, t - 1, s); any other reference leaves them as they are. Why, and why
 * this is Mattson's OPT stack: docs/models/vat.md, "branch s11-curves".
 *
 * The points sit in the leaves of two trees of fan-out 8, one of minima (the query) and one of
 * maxima (the shift's search), both O(log wmax) deep. */
#ifndef MDL_VAT_CRITICAL_H
#define MDL_VAT_CRITICAL_H

#include <glib.h>

#define VAT_CRITICAL_LEVELS 12   /* 8^11 > 2^32 points */

typedef struct {
  guint64 *lo[VAT_CRITICAL_LEVELS];   /* lo[0]: the points, padded with VAT_CRITICAL_PAD;
                                       * lo[k][i]: the least of lo[k-1][8i .. 8i+7] */
  guint64 *hi[VAT_CRITICAL_LEVELS];   /* hi[0] = lo[0]; hi[k][i]: the largest of hi[k-1][8i ..] */
  guint32 n;                          /* points: wmax - 1 */
  guint root;                         /* the level with one entry */
} VatCritical;

/* Above every stamp, so never <= a stamp; below 2^63, so the trees' compares stay signed-safe. */
#define VAT_CRITICAL_PAD ((G_GUINT64_CONSTANT (1) << 63) - 1)

/* @n points, all 0. */
void mdl_vat_critical_init (VatCritical *c, guint32 n);
void mdl_vat_critical_clear (VatCritical *c);
void mdl_vat_critical_free (VatCritical *c);
/* The bytes of the trees for @n points. */
guint64 mdl_vat_critical_bytes (guint64 n);

/* The first point i with c[i] <= @s, or n where there is none. */
guint32 mdl_vat_critical_first_at_most (const VatCritical *c, guint64 s);

/* Point @i takes @top; its old value is carried on through the points after it, trading places
 * with every point above the carried value and at most @s (the carried value grows); the last
 * carried value leaves. */
void mdl_vat_critical_shift (VatCritical *c, guint32 i, guint64 top, guint64 s);

/* The least point, 0 where there is none (a stamp below it is beyond wmax for good). */
static inline guint64
vat_critical_floor (const VatCritical *c)
{
  return c->n ? c->lo[c->root][0] : G_MAXUINT64;
}

#endif
