/* The critical points of the OPT stack (critical.h) in two trees of fan-out 8 over the points:
 * minima for the query, maxima for the shift. A node's 8 children are one 64-byte line. */
#include "models/vat/critical.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define BITS 3
#define FAN (1u << BITS)

/* The entries of each level over @n points, in @len; returns how many levels. */
static guint
levels_of (guint64 n, guint64 *len)
{
  guint64 m = (MAX (n, 1) + FAN - 1) / FAN * FAN;
  for (guint k = 0;; k++)
    {
      len[k] = m;
      if (m == 1)
        return k + 1;
      m = m / FAN == 1 ? 1 : (m / FAN + FAN - 1) / FAN * FAN;
    }
}

static guint64
entries_of (guint64 n)
{
  guint64 len[VAT_CRITICAL_LEVELS], sum = 0;
  guint levels = levels_of (n, len);
  for (guint k = 0; k < levels; k++)
    sum += len[k];
  return sum;
}

guint64
mdl_vat_critical_bytes (guint64 n)
{
  return 2 * 8 * entries_of (n);
}

void
mdl_vat_critical_init (VatCritical *c, guint32 n)
{
  guint64 len[VAT_CRITICAL_LEVELS], total = entries_of (n);
  guint levels = levels_of (n, len);
  c->n = n;
  c->root = levels - 1;
  c->lo[0] = g_new (guint64, 2 * total);
  c->hi[0] = c->lo[0];
  c->hi[1] = c->lo[0] + total;   /* the maxima's levels 1.. after the minima's */
  for (guint k = 1; k < levels; k++)
    {
      c->lo[k] = c->lo[k - 1] + len[k - 1];
      if (k > 1)
        c->hi[k] = c->hi[k - 1] + len[k - 1];
    }
  mdl_vat_critical_clear (c);
}

void
mdl_vat_critical_clear (VatCritical *c)
{
  guint64 len[VAT_CRITICAL_LEVELS];
  guint levels = levels_of (c->n, len);
  /* The points 0, the padding above every stamp; the nodes over them accordingly. */
  memset (c->lo[0], 0, len[0] * sizeof (guint64));
  for (guint64 i = c->n; i < len[0]; i++)
    c->lo[0][i] = VAT_CRITICAL_PAD;
  for (guint k = 1; k < levels; k++)
    for (guint64 i = 0; i < len[k]; i++)
      {
        guint64 lo = VAT_CRITICAL_PAD, hi = 0;
        for (guint j = 0; j < FAN && FAN * i + j < len[k - 1]; j++)
          {
            lo = MIN (lo, c->lo[k - 1][FAN * i + j]);
            hi = MAX (hi, c->hi[k - 1][FAN * i + j]);
          }
        c->lo[k][i] = lo;
        c->hi[k][i] = hi;
      }
}

void
mdl_vat_critical_free (VatCritical *c)
{
  g_free (c->lo[0]);
}

guint32
mdl_vat_critical_first_at_most (const VatCritical *c, guint64 s)
{
  guint64 i = 0;
  if (c->lo[c->root][0] > s)
    return c->n;
  /* Down the minima: the first child at most s, which the parent's minimum says exists. */
  for (guint k = c->root; k-- > 0;)
    {
      const guint64 *g = c->lo[k] + FAN * i;
      guint j = 0;
      while (g[j] > s)
        j++;
      i = FAN * i + j;
    }
  return (guint32) i;
}

/* Both extremes of the group of 8 at @i on level @k - 1, into level @k's entry @i. */
static inline void
repair (VatCritical *c, guint k, guint64 i)
{
  const guint64 *lo = c->lo[k - 1] + FAN * i, *hi = c->hi[k - 1] + FAN * i;
  guint64 l = lo[0], h = hi[0];
  for (guint j = 1; j < FAN; j++)
    {
      l = MIN (l, lo[j]);
      h = MAX (h, hi[j]);
    }
  c->lo[k][i] = l;
  c->hi[k][i] = h;
}

/* Bit j set where @g[j] > @v, for the 8 entries from @g, without a branch per entry: values stay
 * below 2^63, so @v - @g[j] has its sign bit set exactly there (SSE2 has no 64-bit compare). */
static inline guint
group_above (const guint64 *g, guint64 v)
{
  guint mask = 0;
#ifdef __SSE2__
  __m128i vv = _mm_set1_epi64x ((long long) v);
#pragma GCC unroll 4
  for (guint j = 0; j < FAN; j += 2)
    {
      __m128i pair = _mm_loadu_si128 ((const __m128i *) (gconstpointer) (g + j));
      mask |= (guint) _mm_movemask_pd (_mm_castsi128_pd (_mm_sub_epi64 (vv, pair))) << j;
    }
#else
  for (guint j = 0; j < FAN; j++)
    mask |= (guint) (g[j] > v) << j;
#endif
  return mask;
}

/* The trades among the points of leaf group @g from point @from on: every point stepped through
 * without a branch (which points trade depends on the values, a coin toss for a branch). */
static inline void
leaf_trades (VatCritical *c, guint64 g, guint64 from, guint64 s, guint64 *carry)
{
  guint64 *p = c->lo[0] + FAN * g, v = *carry;
#pragma GCC unroll 8
  for (guint j = 0; j < FAN; j++)
    {
      guint64 x = p[j];
      guint64 trade = (guint64) ((FAN * g + j >= from) & (x > v) & (x <= s));
      guint64 swap = (x ^ v) & (0 - trade);
      p[j] = x ^ swap;
      v ^= swap;
    }
  *carry = v;
}

/* The trades under entry @i of level @k >= 2, from point @from on: only children whose largest point
 * is above the carried value and whose least is at most @s can hold one (the carried value grows,
 * so the first test is made again before each). Every node entered is repaired on the way back
 * up; the others did not change. */
static void
sweep (VatCritical *c, guint k, guint64 i, guint64 from, guint64 s, guint64 *carry)
{
  const guint64 *lo = c->lo[k - 1] + FAN * i, *hi = c->hi[k - 1] + FAN * i;
  guint shift = BITS * (k - 1);
  guint64 first = FAN * i;
  /* The children that end after @from: all but a prefix. */
  guint skip = first << shift >= from ? 0 : (guint) MIN ((from - (first << shift)) >> shift, FAN);
  guint cand = group_above (hi, *carry) & ~group_above (lo, s) & (((1u << FAN) - 1) << skip);
  for (; cand; cand &= cand - 1)
    {
      guint j = (guint) __builtin_ctz (cand);
      if (hi[j] <= *carry)
        continue;
      if (k == 2)
        {
          leaf_trades (c, first + j, from, s, carry);
          repair (c, 1, first + j);
        }
      else
        sweep (c, k - 1, first + j, from, s, carry);
    }
  repair (c, k, i);
}

void
mdl_vat_critical_shift (VatCritical *c, guint32 i, guint64 top, guint64 s)
{
  guint64 carry = c->lo[0][i], at = i;
  c->lo[0][i] = top;
  /* The path above i first (its maxima may have risen, its minima moved), then the trades. */
  for (guint k = 1; k <= c->root; k++)
    {
      at /= FAN;
      repair (c, k, at);
    }
  if (c->root == 1)
    {
      leaf_trades (c, 0, (guint64) i + 1, s, &carry);
      repair (c, 1, 0);
    }
  else
    sweep (c, c->root, 0, (guint64) i + 1, s, &carry);
}
