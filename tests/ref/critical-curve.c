/* The plain critical-point curve of tests/ref/critical-curve.h. */
#include "ref/critical-curve.h"

#include "models/vat/policy.h"

typedef struct {
  guint64 node, stamp;
} LastUse;

struct RefCriticalCurve {
  guint64 *point;   /* [wmax + 1] the critical point of each W >= 2, a stamp or 0 */
  guint64 *hist;    /* [wmax + 1] references by stack distance */
  guint64 beyond;   /* references at no distance up to wmax */
  guint64 now;      /* the last stamp */
  GArray *last;     /* LastUse of every node that will be used again */
  guint32 wmax;
  gboolean is;
};

RefCriticalCurve *
ref_critical_curve_new (guint32 wmax, gboolean is)
{
  RefCriticalCurve *c = g_new0 (RefCriticalCurve, 1);
  c->point = g_new0 (guint64, wmax + 1);
  c->hist = g_new0 (guint64, wmax + 1);
  c->last = g_array_new (FALSE, FALSE, sizeof (LastUse));
  c->wmax = wmax;
  c->is = is;
  return c;
}

void
ref_critical_curve_free (RefCriticalCurve *c)
{
  if (c == NULL)
    return;
  g_free (c->point);
  g_free (c->hist);
  g_array_free (c->last, TRUE);
  g_free (c);
}

/* The stack distance of a use at stamp @t of a node last used at @s (0: never), 0 where above
 * wmax: 1 for s = t - 1, else the least W with point[W] <= s. Then point[D] takes t - 1 and its
 * old value is carried up through W = D + 1 .. wmax, trading with every point above it and at
 * most s. */
static guint32
distance (RefCriticalCurve *c, guint64 s, guint64 t)
{
  guint32 d = 2;
  guint64 carry;
  if (s == 0)
    return 0;
  if (s == t - 1)
    return 1;
  while (d <= c->wmax && c->point[d] > s)
    d++;
  if (d > c->wmax)
    return 0;
  carry = c->point[d];
  c->point[d] = t - 1;
  for (guint32 w = d + 1; w <= c->wmax; w++)
    if (c->point[w] > carry && c->point[w] <= s)
      {
        guint64 v = c->point[w];
        c->point[w] = carry;
        carry = v;
      }
  return d;
}

/* The entry of @node in c->last, or c->last->len. */
static guint
find (const RefCriticalCurve *c, guint64 node)
{
  guint i = 0;
  while (i < c->last->len && g_array_index (c->last, LastUse, i).node != node)
    i++;
  return i;
}

/* A counted use of @node at the next stamp; @again: it will be used again. */
static void
use (RefCriticalCurve *c, guint64 node, gboolean again)
{
  guint64 t = ++c->now;
  guint i = find (c, node);
  guint32 d = distance (c, i < c->last->len ? g_array_index (c->last, LastUse, i).stamp : 0, t);
  if (d)
    c->hist[d]++;
  else
    c->beyond++;
  if (i < c->last->len)
    g_array_remove_index_fast (c->last, i);
  if (again)
    g_array_append_val (c->last, ((LastUse) { node, t }));
}

void
ref_critical_curve_walk (RefCriticalCurve *c, const guint64 *nodes, const guint64 *keys, guint n)
{
  guint64 first = c->now + 1;
  for (guint i = 0; i < n; i++)
    use (c, nodes[i], keys[i] < VAT_DEAD_KEY (64));
  /* ismin: every node of the walk but the last is held to the walk's end, as by one more use
   * there, not counted (its last use, where it has an entry, moves to it). */
  for (guint i = 0; c->is && i + 1 < n; i++)
    {
      guint64 t = ++c->now;
      guint e = find (c, nodes[i]);
      distance (c, first + i, t);
      if (e < c->last->len)
        g_array_index (c->last, LastUse, e).stamp = t;
    }
}

void
ref_critical_curve_misses (const RefCriticalCurve *c, guint64 *out)
{
  guint64 sum = c->beyond;
  out[c->wmax] = sum;
  for (guint32 w = c->wmax; w-- > 0;)
    {
      sum += c->hist[w + 1];
      out[w] = sum;
    }
}
