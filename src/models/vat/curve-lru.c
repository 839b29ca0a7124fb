/* The one-pass miss curve of lru and islru (curve.h).
 *
 * Each tracked node remembers the walk of its latest use and its offset in that walk (d - layer,
 * root first). Per walk a bit mask holds the offsets whose node still has its latest use there, and
 * a Fenwick tree over walks holds the masks' population counts.
 *  - lru: the stack distance of x (nodes above it in the stack) is the number of nodes used since
 *    x's last use: those in later walks plus those later in x's own last walk.
 *  - islru: priority is (walk of the node's last use, then layer): a node's cached subtree was used
 *    in its last walk, below it. The nodes above x are those used in later walks (its ancestors of
 *    that walk have all been used again by the walk that reaches x now).
 * The walk under way enters the tree when it ends (its nodes are counted from its mask until then).
 * Only the top curve_max stack entries are tracked (a node below them misses at every W of the
 * curve, and everything above a tracked node is tracked). When the walk numbers run out the live
 * walks are renumbered in order. Counting walks rather than positions keeps the tree d+1 times
 * smaller and touches it once per walk for insertions; recent walks are summed from their masks, and
 * the oldest walk is tracked by a pointer that only moves up: 2.9 -> 4.0 M accesses/s on bench-vat. */
#include "models/vat/curve.h"
#include "models/vat/node.h"

#include <string.h>

struct VatCurveLru {
  VatCurveBase base;   /* the tracked nodes (entries) and the references by stack distance */
  guint32 *fen;        /* [cap_walks + 1], 1-based Fenwick tree of the masks' population counts */
  guint64 *mask;       /* [cap_walks] offsets whose node's latest use is in that walk */
  guint32 *walk_slot;  /* [cap_walks * stride] the tracked entry at each walk and offset */
  guint64 *walk_of;    /* [wmax] per entry: the walk of the node's latest use */
  guint32 *offset_of;  /* [wmax] per entry: its offset there */
  guint64 low;         /* no walk below it holds a tracked node */
  guint64 cap_walks;   /* a power of two */
  guint64 walk;        /* the walk under way (walks below it are in the tree) */
  guint32 tracked;     /* tracked nodes, the walk under way included */
  guint32 in_tree;     /* tracked nodes of finished walks */
  guint depth;
  guint k_bits;
  guint stride;        /* d + 1 */
  guint log_walks;
  gboolean is;
};

static inline void
fen_add (VatCurveLru *c, guint64 w, gint32 delta)
{
  for (guint64 i = w + 1; i <= c->cap_walks; i += i & (~i + 1))
    c->fen[i] += (guint32) delta;
}

/* Tracked nodes in finished walks below @w. */
static inline guint32
fen_prefix (const VatCurveLru *c, guint64 w)
{
  guint32 s = 0;
  for (guint64 i = w; i > 0; i -= i & (~i + 1))
    s += c->fen[i];
  return s;
}

/* Population count without relying on the POPCNT instruction (the build targets plain x86-64,
 * where __builtin_popcountll is a libgcc call: 2% of a curve run). */
static inline guint
popcount (guint64 x)
{
  x = x - ((x >> 1) & G_GUINT64_CONSTANT (0x5555555555555555));
  x = (x & G_GUINT64_CONSTANT (0x3333333333333333)) + ((x >> 2) & G_GUINT64_CONSTANT (0x3333333333333333));
  x = (x + (x >> 4)) & G_GUINT64_CONSTANT (0x0F0F0F0F0F0F0F0F);
  return (guint) ((x * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56);
}

/* Tracked nodes in the finished walks after @w: summed from the masks when few walks lie between
 * (the common case: the root and the upper layers come back within a few walks), else from the
 * tree. */
static inline guint32
walks_after (const VatCurveLru *c, guint64 w)
{
  if (c->walk - w <= 24)
    {
      guint32 n = 0;
      for (guint64 v = w + 1; v < c->walk; v++)
        n += popcount (c->mask[v]);
      return n;
    }
  return c->in_tree - fen_prefix (c, w + 1);
}

VatCurveLru *
mdl_vat_curve_lru_new (guint depth, guint k_bits, guint32 wmax, gboolean is)
{
  VatCurveLru *c = g_new0 (VatCurveLru, 1);
  mdl_vat_curve_base_init (&c->base, wmax);
  c->depth = depth;
  c->k_bits = k_bits;
  c->stride = depth + 1;
  c->is = is;
  /* At most wmax walks hold tracked nodes: a renumbering then frees at least half the numbers. */
  for (c->log_walks = 6; (G_GUINT64_CONSTANT (1) << c->log_walks) < 2 * (guint64) wmax + 64;
       c->log_walks++)
    ;
  c->cap_walks = G_GUINT64_CONSTANT (1) << c->log_walks;
  c->fen = g_new0 (guint32, c->cap_walks + 1);
  c->mask = g_new0 (guint64, c->cap_walks);
  c->walk_slot = g_new (guint32, c->cap_walks * c->stride);
  c->walk_of = g_new (guint64, wmax);
  c->offset_of = g_new (guint32, wmax);
  mdl_vat_curve_lru_reset (c);
  return c;
}

void
mdl_vat_curve_lru_reset (VatCurveLru *c)
{
  memset (c->fen, 0, (c->cap_walks + 1) * sizeof *c->fen);
  memset (c->mask, 0, c->cap_walks * sizeof *c->mask);
  mdl_vat_curve_base_clear (&c->base);
  c->walk = 0;
  c->low = 0;
  c->tracked = 0;
  c->in_tree = 0;
}

void
mdl_vat_curve_lru_free (VatCurveLru *c)
{
  if (c == NULL)
    return;
  g_free (c->fen);
  g_free (c->mask);
  g_free (c->walk_slot);
  g_free (c->walk_of);
  g_free (c->offset_of);
  mdl_vat_curve_base_free (&c->base);
  g_free (c);
}

/* Renumbers the walks that hold tracked nodes from 0, in order (called between walks). */
static void
compact (VatCurveLru *c)
{
  guint64 to = 0;
  memset (c->fen, 0, (c->cap_walks + 1) * sizeof *c->fen);
  for (guint64 w = 0; w < c->walk; w++)
    {
      guint64 m = c->mask[w];
      if (m == 0)
        continue;
      c->mask[w] = 0;
      c->mask[to] = m;
      for (guint64 bits = m; bits; bits &= bits - 1)
        {
          guint off = (guint) __builtin_ctzll (bits);
          guint32 e = c->walk_slot[w * c->stride + off];
          c->walk_slot[to * c->stride + off] = e;
          c->walk_of[e] = to;
        }
      fen_add (c, to, (gint32) popcount (m));
      to++;
    }
  c->walk = to;
  c->low = 0;
}

/* Forgets the tracked node of lowest priority: the oldest for lru; for islru the lowest layer of
 * the oldest walk. Returns its entry, free now. */
static guint32
drop_lowest (VatCurveLru *c)
{
  guint64 w;
  guint off;
  guint32 e;
  /* Why `low` only moves up: walks below the one under way never gain nodes. */
  while (c->mask[c->low] == 0)
    c->low++;
  w = c->low;
  off = c->is ? 63 - (guint) __builtin_clzll (c->mask[w]) : (guint) __builtin_ctzll (c->mask[w]);
  e = c->walk_slot[w * c->stride + off];
  vat_index_remove (&c->base.entries, e);
  c->mask[w] &= ~(G_GUINT64_CONSTANT (1) << off);
  fen_add (c, w, -1);
  c->tracked--;
  c->in_tree--;
  return e;
}

void
mdl_vat_curve_lru_walk (VatCurveLru *c, guint64 page, guint tree)
{
  guint64 cur;
  guint32 placed = 0;   /* nodes of this walk placed so far */
  if (c->walk == c->cap_walks)
    compact (c);
  cur = c->walk;
  for (guint l = c->depth + 1; l-- > 0;)
    {
      guint64 node = vat_node_make (l, tree, page >> (c->k_bits * l));
      guint off = c->depth - l;
      guint32 e = vat_index_find (&c->base.entries, node);
      if (e != VAT_NO_SLOT)
        {
          guint64 w = c->walk_of[e];
          guint o = c->offset_of[e];
          guint32 dist = walks_after (c, w) + placed;
          if (!c->is)
            dist += popcount (c->mask[w] >> o >> 1);
          /* Why in range: x is tracked, so everything above it is, and x is not counted. */
          g_assert (dist < c->base.wmax);
          c->base.hist[dist]++;
          c->mask[w] &= ~(G_GUINT64_CONSTANT (1) << o);
          fen_add (c, w, -1);
          c->in_tree--;
        }
      else
        {
          c->base.beyond++;
          e = c->tracked < c->base.wmax ? c->tracked : drop_lowest (c);
          vat_index_put (&c->base.entries, e, node);
          c->tracked++;
        }
      c->walk_of[e] = cur;
      c->offset_of[e] = off;
      c->walk_slot[cur * c->stride + off] = e;
      c->mask[cur] |= G_GUINT64_CONSTANT (1) << off;
      placed++;
    }
  fen_add (c, cur, (gint32) placed);
  c->in_tree += placed;
  c->walk++;
}

void
mdl_vat_curve_lru_misses (const VatCurveLru *c, guint64 *out)
{
  mdl_vat_curve_base_misses (&c->base, out);
}
