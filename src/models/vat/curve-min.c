/* The one-pass miss curve of min and ismin (curve.h) from the critical points of the OPT stack
 * (critical.h), where Mattson's update moved every record of an explicit stack.
 *
 * Why it works, in short (the derivation is in docs/models/vat.md, "branch s11-curves"): OPT with W
 * cells hits a reference exactly when greedy interval packing accepts its reuse interval (s, t):
 * intervals taken in the order of their ends, one accepted where no point strictly inside is
 * already covered by W - 1 accepted ones. Accepted sets are nested in W, so each reference has a
 * least W that hits it, its stack distance, found from s alone by the critical points. A
 * reference that misses at every W (most leaves on large traces) leaves them as they were: only
 * hits move them, and then only a few.
 *
 * The last use of each node comes from an index whose cells are taken in turn, a ring: a node
 * last used before the least critical point misses at every W from then on, so its cell may be
 * taken; where the ring comes round to a cell that may still hit, it doubles.
 *
 * ismin is OPT that never evicts a node of the current walk (see ismin.c). Each node of a walk
 * but its last is used once more, uncounted, at the walk's end, in walk order: its cell then
 * stays taken through the walk, and OPT on that longer sequence misses exactly where ismin does,
 * for every W >= d + 1 (the counts below d + 1, never reported, are not ismin's). */
#include "models/vat/curve.h"
#include "models/vat/critical.h"
#include "models/vat/policy.h"

struct VatCurveMin {
  VatCurveBase base;   /* entries: the ring's cells; the references by stack distance - 1 */
  VatCritical points;
  guint64 *last;       /* [cells] the stamp of the last use of each cell's node */
  guint64 now;         /* the stamp of the last reference (stamps count from 1) */
  guint64 turns;       /* nodes put into the ring so far: the next goes to cell turns % cells */
  guint32 cells;       /* a power of two */
  gboolean is;
};

/* The least key that says "never used again" (VAT_DEAD_KEY of every layer is at least this). */
#define DEAD VAT_DEAD_KEY (64)

guint32
mdl_vat_curve_min_cells (guint32 wmax)
{
  guint32 cells = 64;
  while (cells < 2 * (guint64) wmax)
    cells *= 2;
  return cells;
}

guint64
mdl_vat_curve_min_bytes (guint64 wmax)
{
  return mdl_vat_critical_bytes (wmax - 1) + 8 * (guint64) mdl_vat_curve_min_cells ((guint32) wmax);
}

VatCurveMin *
mdl_vat_curve_min_new (guint32 wmax, gboolean is)
{
  VatCurveMin *c = g_new0 (VatCurveMin, 1);
  c->cells = mdl_vat_curve_min_cells (wmax);
  mdl_vat_curve_base_init (&c->base, wmax, c->cells);
  mdl_vat_critical_init (&c->points, wmax - 1);
  c->last = g_new0 (guint64, c->cells);
  c->is = is;
  return c;
}

void
mdl_vat_curve_min_reset (VatCurveMin *c)
{
  mdl_vat_curve_base_clear (&c->base);
  mdl_vat_critical_clear (&c->points);
  c->now = 0;
  c->turns = 0;
}

void
mdl_vat_curve_min_free (VatCurveMin *c)
{
  if (c == NULL)
    return;
  mdl_vat_critical_free (&c->points);
  mdl_vat_curve_base_free (&c->base);
  g_free (c->last);
  g_free (c);
}

/* The stack distance of a reference at stamp @t to a node last used at stamp @s (0: never), 0
 * where it misses at every W up to wmax; a hit at distance 2 or more moves the critical points. */
static guint32
distance (VatCurveMin *c, guint64 s, guint64 t)
{
  guint32 i;
  if (s == 0)
    return 0;
  if (s == t - 1)
    return 1;
  i = mdl_vat_critical_first_at_most (&c->points, s);
  if (i >= c->points.n)
    return 0;
  mdl_vat_critical_shift (&c->points, i, t - 1, s);
  return i + 2;
}

/* The ring at twice its cells, each node in the cell of its turn. The used cells are of the last
 * `cells` turns: cell e holds turn turns - cells + ((e - turns) mod cells). */
static void
grow (VatCurveMin *c)
{
  guint32 old = c->cells, cells = 2 * old;
  VatIndex fresh;
  guint64 *last = g_new0 (guint64, cells);
  mdl_vat_index_init (&fresh, cells);
  for (guint32 e = 0; e < old; e++)
    {
      guint64 node = c->base.entries.node[e];
      guint32 to;
      if (node == VAT_NO_NODE)
        continue;
      to = (guint32) ((c->turns - old + (((guint64) e - c->turns) & (old - 1))) & (cells - 1));
      vat_index_put (&fresh, to, node);
      last[to] = c->last[e];
    }
  mdl_vat_index_free (&c->base.entries);
  c->base.entries = fresh;
  g_free (c->last);
  c->last = last;
  c->cells = cells;
}

/* @x into the ring, last used at stamp @t. */
static void
remember (VatCurveMin *c, guint64 x, guint64 t)
{
  guint32 e = (guint32) (c->turns & (c->cells - 1));
  if (c->base.entries.node[e] != VAT_NO_NODE)
    {
      if (c->last[e] >= vat_critical_floor (&c->points))
        {
          grow (c);
          e = (guint32) (c->turns & (c->cells - 1));
        }
      else
        vat_index_remove (&c->base.entries, e);
    }
  vat_index_put (&c->base.entries, e, x);
  c->last[e] = t;
  c->turns++;
}

/* One counted reference to @x, whose next use is @key (DEAD or above: none). */
static void
reference (VatCurveMin *c, guint64 x, guint64 key)
{
  guint64 t = ++c->now, s = 0;
  guint32 e = vat_index_find (&c->base.entries, x), d;
  if (e != VAT_NO_SLOT)
    {
      s = c->last[e];
      vat_index_remove (&c->base.entries, e);
    }
  d = distance (c, s, t);
  if (d)
    c->base.hist[d - 1]++;
  else
    c->base.beyond++;
  if (key < DEAD)
    remember (c, x, t);
}

void
mdl_vat_curve_min_walk (VatCurveMin *c, const guint64 *nodes, const guint64 *keys, guint n)
{
  guint64 first = c->now + 1;
  for (guint i = 0; i < n; i++)
    reference (c, nodes[i], keys[i]);
  /* ismin: the walk's pins, as uses at its end (see the top). */
  for (guint i = 0; c->is && i + 1 < n; i++)
    {
      guint64 t = ++c->now;
      guint32 e = vat_index_find (&c->base.entries, nodes[i]);
      distance (c, first + i, t);
      if (e != VAT_NO_SLOT)
        c->last[e] = t;
    }
}

void
mdl_vat_curve_min_misses (const VatCurveMin *c, guint64 *out)
{
  mdl_vat_curve_base_misses (&c->base, out);
}
