/* The one-pass miss curve of min and ismin (curve.h): Mattson's stack update for a priority
 * replacement policy. Keys are next-use positions (larger = evicted first), so the TC of size W
 * evicts the largest key among the top W stack entries. When x is referenced from stack position p
 * (or from below the stack), for each size W <= p the evicted node is the running maximum of the
 * keys over positions 0..W-1; the stack only changes where that maximum changes hands ("records"):
 * the carried node drops into the record's position and the record's node is carried on; the last
 * carry fills x's old position (or the next free one, or falls off the bottom). x goes to the top.
 *
 * The records are found by one left-to-right sweep down a max tree of fan-out FAN over the
 * positions, which enters only the subtrees holding a key above the running maximum and repairs
 * each entered node's maximum once, on the way back up. With R records among S positions a
 * reference visits O(log S + R log(S/R)) nodes, where finding each record from the previous one
 * and then repairing its path takes O(R log S) node steps, twice. A node's FAN
 * children are one 64-byte line of keys, so the tree over S = 4096 is 4 levels deep where a binary
 * tree was 12, and a visit reads one line instead of one per level.
 *
 * ismin is MIN that never evicts a node of the current walk (see ismin.c): such nodes carry key 0
 * while their walk lasts, then get their next-use keys back. */
#include "models/vat/curve.h"
#include "models/vat/policy.h"

#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define PINNED 0
#define BITS 3
#define FAN (1u << BITS)   /* group_max and group_above take 8 */
#define MAX_LEVELS 12   /* FAN^11 > 2^32 positions */

struct VatCurveMin {
  VatCurveBase base;   /* the stacked nodes (entries) and the references by stack position */
  guint32 *stack;      /* [len[0]] the entry at each stack position */
  guint32 *pos_of;     /* [wmax] the stack position of each entry: moving a node costs no
                        * hashing */
  /* The max tree: level[0][i] is the key at position i (0 where none, and at the top, whose key
   * is head_key: it changes at every reference and is never searched), level[k][i] at least the
   * largest of level[k-1][FAN i .. FAN i + FAN - 1] and equal to it after a sweep through it;
   * level[root] has one entry. Below the root, each level's length is a multiple of FAN, padded
   * with zeros, which never exceed a carried key. An upper bound only costs a sweep a look into
   * a subtree without records, and keys only go down in a sweep (records) and at the top. */
  guint64 *level[MAX_LEVELS];
  guint64 head_key;
  guint root;          /* the level with one entry */
  guint32 depth;       /* entries on the stack */
  gboolean is;
};

#define NONE G_MAXUINT32

/* The entries of the max tree's levels over @wmax positions, in @len; returns how many levels. */
static guint
tree_levels (guint64 wmax, guint64 *len)
{
  guint64 n = (MAX (wmax, 1) + FAN - 1) / FAN * FAN;
  guint k = 0;
  for (;; k++)
    {
      len[k] = n;
      if (n == 1)
        return k + 1;
      n = n / FAN == 1 ? 1 : (n / FAN + FAN - 1) / FAN * FAN;
    }
}

static guint64
tree_len (guint64 wmax)
{
  guint64 len[MAX_LEVELS], sum = 0;
  guint levels = tree_levels (wmax, len);
  for (guint k = 0; k < levels; k++)
    sum += len[k];
  return sum;
}

guint64
mdl_vat_curve_min_bytes (guint64 wmax)
{
  guint64 len[MAX_LEVELS];
  tree_levels (wmax, len);
  return 4 * len[0] + 4 * wmax + 8 * tree_len (wmax);
}

VatCurveMin *
mdl_vat_curve_min_new (guint32 wmax, gboolean is)
{
  VatCurveMin *c = g_new0 (VatCurveMin, 1);
  guint64 len[MAX_LEVELS];
  guint levels = tree_levels (wmax, len);
  mdl_vat_curve_base_init (&c->base, wmax);
  c->is = is;
  c->root = levels - 1;
  c->level[0] = g_new0 (guint64, tree_len (wmax));
  for (guint k = 1; k < levels; k++)
    c->level[k] = c->level[k - 1] + len[k - 1];
  c->stack = g_new0 (guint32, len[0]);
  c->pos_of = g_new (guint32, wmax);
  mdl_vat_curve_min_reset (c);
  return c;
}

void
mdl_vat_curve_min_reset (VatCurveMin *c)
{
  memset (c->level[0], 0, tree_len (c->base.wmax) * sizeof (guint64));
  c->head_key = 0;
  mdl_vat_curve_base_clear (&c->base);
  c->depth = 0;
}

void
mdl_vat_curve_min_free (VatCurveMin *c)
{
  if (c == NULL)
    return;
  g_free (c->stack);
  g_free (c->level[0]);
  g_free (c->pos_of);
  mdl_vat_curve_base_free (&c->base);
  g_free (c);
}

static inline guint64
max2 (guint64 a, guint64 b)
{
  return a > b ? a : b;
}

static inline guint64
min2 (guint64 a, guint64 b)
{
  return a < b ? a : b;
}

/* The largest of the FAN entries from @g, as a tree of selects. */
static inline guint64
group_max (const guint64 *g)
{
  return max2 (max2 (max2 (g[0], g[1]), max2 (g[2], g[3])), max2 (max2 (g[4], g[5]), max2 (g[6], g[7])));
}

/* Bit j set where @g[j] > @v: the candidates of a group found with no branch per entry. Keys are
 * below 2^63, so @v - @g[j] has its sign bit set exactly where @g[j] > @v: SSE2 subtracts two
 * 64-bit lanes at a time and gathers the sign bits, where it has no 64-bit compare. */
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

/* Sets the key at position @i, and raises the maxima above it (if it went down, they stay upper
 * bounds). */
static inline void
set_key (VatCurveMin *c, guint32 i, guint64 key)
{
  if (i == 0)
    {
      c->head_key = key;
      return;
    }
  c->level[0][i] = key;
  for (guint k = 1; k <= c->root; k++)
    {
      i /= FAN;
      c->level[k][i] = max2 (c->level[k][i], key);
    }
}

static inline void
place (VatCurveMin *c, guint32 i, guint32 e, guint64 key)
{
  c->stack[i] = e;
  c->pos_of[e] = i;
  set_key (c, i, key);
}

typedef struct {
  guint32 entry;
  guint64 key;
} Carry;

/* The records among the first @n leaves of group @g (the rest are beyond the range); returns the
 * group's largest key after them. A record is a leaf whose key exceeds the carried one, and there
 * the two swap: each leaf keeps the smaller key and the carry goes on with the larger, a
 * compare-exchange with min and max (cmov), the entries swapped by a mask. No branch: which
 * leaves are records depends on the keys, and branches on them mispredicted about half of the
 * time (callgrind's branch simulation; gcc turns a select of both key and entry on one compare
 * into a branch). */
static inline guint64
leaf_records (VatCurveMin *c, guint32 g, guint n, Carry *carry)
{
  guint32 first = g * FAN, *stack = c->stack + first, *pos_of = c->pos_of, entry = carry->entry;
  guint64 *key = c->level[0] + first, v = carry->key;
#pragma GCC unroll 8
  for (guint j = 0; j < n; j++)
    {
      guint64 k = key[j];
      guint32 e = stack[j];
      guint32 swap_entry = (e ^ entry) & (0u - (guint32) (k > v));
      key[j] = min2 (k, v);
      v = max2 (k, v);
      stack[j] = e ^ swap_entry;
      /* Every leaf writes its entry's position: one store with no select (a leaf that keeps its
       * entry writes the position it had). */
      pos_of[e ^ swap_entry] = first + j;
      entry ^= swap_entry;
    }
  *carry = (Carry) { entry, v };
  return group_max (key);
}

/* The last group of a range, out of line, its leaves a loop of variable length: a second unrolled
 * copy inside sweep() made gcc spill registers in the first. */
static G_GNUC_NO_INLINE guint64
leaf_records_part (VatCurveMin *c, guint32 g, guint n, Carry *carry)
{
  return leaf_records (c, g, n, carry);
}

static guint64
leaf_group (VatCurveMin *c, guint32 g, guint32 hi, Carry *carry)
{
  guint32 left = hi - g * FAN;
  return left >= FAN ? leaf_records (c, g, FAN, carry) : leaf_records_part (c, g, left, carry);
}

/* The children of entry @i of level @k in range, as a mask, for a range that ends below @hi: only
 * the last child that the range reaches can cross it, so a node inside it takes all FAN. */
static inline guint
children_in (guint k, guint32 i, guint32 hi)
{
  guint last = ((hi - 1) >> (BITS * (k - 1))) - i * FAN;
  return (2u << MIN (last, FAN - 1)) - 1;
}

/* Moves the carried node into every record among the positions below @hi under entry @i of level
 * @k >= 2, left to right, carrying each record's node on, and repairs the maxima it changed.
 * Position 0 needs no lower bound: its key in the tree stays 0, never above a carried key. The
 * leaf groups, most of the nodes visited, are swept in a loop of their own at level 2, without a
 * call each; the test of the level is made once per node, where one per candidate was 7 mispredicted
 * branches per access (callgrind's branch simulation, bench-vat's min curve). */
static void
sweep (VatCurveMin *c, guint k, guint32 i, guint32 hi, Carry *carry)
{
  guint64 *below = c->level[k - 1] + i * FAN;
  guint32 first = i * FAN;
  guint cand = group_above (below, carry->key) & children_in (k, i, hi);
  if (k == 2)
    for (; cand; cand &= cand - 1)
      {
        guint j = (guint) __builtin_ctz (cand);
        if (below[j] > carry->key)   /* else the carried key has grown past it */
          below[j] = leaf_group (c, first + j, hi, carry);
      }
  else
    for (; cand; cand &= cand - 1)
      {
        guint j = (guint) __builtin_ctz (cand);
        if (below[j] > carry->key)
          sweep (c, k - 1, first + j, hi, carry);
      }
  c->level[k][i] = group_max (below);
}

/* One reference to node @x, whose next-use key after it is @key; returns x's entry. */
static guint32
reference (VatCurveMin *c, guint64 x, guint64 key)
{
  guint32 e = vat_index_find (&c->base.entries, x);
  guint32 p = e != VAT_NO_SLOT ? c->pos_of[e] : NONE;
  guint32 limit, fresh = VAT_NO_SLOT;
  Carry carry;
  if (e != VAT_NO_SLOT)
    c->base.hist[p]++;
  else
    c->base.beyond++;
  if (p == 0)
    {
      set_key (c, 0, key);
      return e;
    }
  if (c->depth == 0)
    {
      vat_index_put (&c->base.entries, 0, x);
      place (c, 0, 0, key);
      c->depth = 1;
      return 0;
    }
  carry = (Carry) { c->stack[0], c->head_key };
  limit = e != VAT_NO_SLOT ? p : c->depth;
  if (limit > 1 && c->root == 1)
    c->level[1][0] = leaf_group (c, 0, limit, &carry);
  else if (limit > 1)
    sweep (c, c->root, 0, limit, &carry);
  /* The carried node fills x's old position, or the next free one (x takes the next free entry),
   * or falls off the bottom (x takes its entry). */
  if (e != VAT_NO_SLOT)
    place (c, p, carry.entry, carry.key);
  else if (c->depth < c->base.wmax)
    {
      fresh = c->depth;
      place (c, c->depth++, carry.entry, carry.key);
    }
  else
    {
      fresh = carry.entry;
      vat_index_remove (&c->base.entries, carry.entry);
    }
  if (fresh != VAT_NO_SLOT)
    {
      vat_index_put (&c->base.entries, fresh, x);
      e = fresh;
    }
  place (c, 0, e, key);
  return e;
}

void
mdl_vat_curve_min_walk (VatCurveMin *c, const guint64 *nodes, const guint64 *keys, guint n)
{
  guint32 entry[VAT_MAX_DEPTH + 1];
  g_assert (n <= G_N_ELEMENTS (entry));
  for (guint i = 0; i < n; i++)
    {
      g_assert (keys[i] < G_GUINT64_CONSTANT (1) << 63);   /* group_above() reads sign bits */
      entry[i] = reference (c, nodes[i], c->is ? PINNED : keys[i]);
    }
  /* A node of the walk keeps its entry unless it fell off the bottom (then another node has it). */
  for (guint i = 0; c->is && i < n; i++)
    if (c->base.entries.node[entry[i]] == nodes[i])
      set_key (c, c->pos_of[entry[i]], keys[i]);
}

void
mdl_vat_curve_min_misses (const VatCurveMin *c, guint64 *out)
{
  mdl_vat_curve_base_misses (&c->base, out);
}
