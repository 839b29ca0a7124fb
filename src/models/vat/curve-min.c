/* The one-pass miss curve of min and ismin (curve.h): Mattson's stack update for a priority
 * replacement policy. Keys are next-use positions (larger = evicted first), so the TC of size W
 * evicts the largest key among the top W stack entries. When x is referenced from stack position p
 * (or from below the stack), for each size W <= p the evicted node is the running maximum of the
 * keys over positions 0..W-1; the stack only changes where that maximum changes hands ("records"):
 * the carried node drops into the record's position and the record's node is carried on; the last
 * carry fills x's old position (or the next free one, or falls off the bottom). x goes to the top.
 * A max segment tree over positions finds the next record in O(log curve_max).
 *
 * ismin is MIN that never evicts a node of the current walk (see ismin.c): such nodes carry key 0
 * while their walk lasts, then get their next-use keys back. */
#include "models/vat/curve.h"
#include "models/vat/policy.h"

#include <string.h>

#define PINNED 0

struct VatCurveMin {
  VatCurveBase base;   /* the stacked nodes (entries) and the references by stack position */
  guint32 *stack;      /* [wmax] the entry at each stack position */
  guint64 *seg;        /* [2 * size] max segment tree of the keys; leaf i at size + i */
  guint32 *pos_of;     /* [wmax] the stack position of each entry: moving a node costs no hashing */
  guint32 size;        /* a power of two >= wmax */
  guint32 depth;       /* entries on the stack */
  gboolean is;
};

#define NONE G_MAXUINT32

VatCurveMin *
mdl_vat_curve_min_new (guint32 wmax, gboolean is)
{
  VatCurveMin *c = g_new0 (VatCurveMin, 1);
  mdl_vat_curve_base_init (&c->base, wmax);
  c->is = is;
  for (c->size = 1; c->size < wmax; c->size *= 2)
    ;
  c->stack = g_new (guint32, wmax);
  c->seg = g_new0 (guint64, 2 * (gsize) c->size);
  c->pos_of = g_new (guint32, wmax);
  mdl_vat_curve_min_reset (c);
  return c;
}

void
mdl_vat_curve_min_reset (VatCurveMin *c)
{
  memset (c->seg, 0, 2 * (gsize) c->size * sizeof *c->seg);
  mdl_vat_curve_base_clear (&c->base);
  c->depth = 0;
}

void
mdl_vat_curve_min_free (VatCurveMin *c)
{
  if (c == NULL)
    return;
  g_free (c->stack);
  g_free (c->seg);
  g_free (c->pos_of);
  mdl_vat_curve_base_free (&c->base);
  g_free (c);
}

static inline guint64
key_at (const VatCurveMin *c, guint32 i)
{
  return c->seg[c->size + i];
}

/* Sets a leaf and the maxima above it: each is the larger of the one below (in a register) and
 * its sibling's, with a select and no data-dependent branch. (Stopping where a maximum does not
 * change took fewer steps but mispredicted about 25 branches per access on bench-vat.) */
static inline void
set_key (VatCurveMin *c, guint32 i, guint64 key)
{
  gsize at = c->size + i;
  c->seg[at] = key;
  for (; at > 1; at /= 2)
    {
      guint64 sib = c->seg[at ^ 1];
      key = sib > key ? sib : key;
      c->seg[at / 2] = key;
    }
}

/* The first position in [lo, hi) whose key exceeds @v, or G_MAXUINT32: from lo's leaf, on to the
 * next subtree to the right (up past the subtrees `at` ends, with one count of trailing ones)
 * until one holds a larger key, then down into its leftmost such leaf. */
static guint32
first_greater (const VatCurveMin *c, guint32 lo, guint32 hi, guint64 v)
{
  guint64 at;
  if (lo >= hi)
    return NONE;
  at = c->size + lo;
  while (c->seg[at] <= v)
    {
      at >>= __builtin_ctzll (~at);
      if (at == 0)
        return NONE;
      at++;
    }
  while (at < c->size)
    at = 2 * at + (c->seg[2 * at] <= v);
  return at - c->size < hi ? (guint32) (at - c->size) : NONE;
}

static inline void
place (VatCurveMin *c, guint32 i, guint32 e, guint64 key)
{
  c->stack[i] = e;
  c->pos_of[e] = i;
  set_key (c, i, key);
}

/* One reference to node @x, whose next-use key after it is @key. (Deferring the repairs of the
 * maxima to the end of the update, which is sound, measured no faster on bench-vat.) */
static void
reference (VatCurveMin *c, guint64 x, guint64 key)
{
  guint32 e = vat_index_find (&c->base.entries, x);
  guint32 p = e != VAT_NO_SLOT ? c->pos_of[e] : NONE;
  guint32 carry, limit, i = 0, j, fresh = VAT_NO_SLOT;
  guint64 carry_key;
  if (e != VAT_NO_SLOT)
    c->base.hist[p]++;
  else
    c->base.beyond++;
  if (p == 0)
    {
      set_key (c, 0, key);
      return;
    }
  if (c->depth == 0)
    {
      vat_index_put (&c->base.entries, 0, x);
      place (c, 0, 0, key);
      c->depth = 1;
      return;
    }
  carry = c->stack[0];
  carry_key = key_at (c, 0);
  limit = e != VAT_NO_SLOT ? p : c->depth;
  while ((j = first_greater (c, i + 1, limit, carry_key)) != NONE)
    {
      guint32 n = c->stack[j];
      guint64 k = key_at (c, j);
      place (c, j, carry, carry_key);
      carry = n;
      carry_key = k;
      i = j;
    }
  /* The carried node fills x's old position, or the next free one (x takes the next free entry),
   * or falls off the bottom (x takes its entry). */
  if (e != VAT_NO_SLOT)
    place (c, p, carry, carry_key);
  else if (c->depth < c->base.wmax)
    {
      fresh = c->depth;
      place (c, c->depth++, carry, carry_key);
    }
  else
    {
      fresh = carry;
      vat_index_remove (&c->base.entries, carry);
    }
  if (fresh != VAT_NO_SLOT)
    {
      vat_index_put (&c->base.entries, fresh, x);
      e = fresh;
    }
  place (c, 0, e, key);
}

void
mdl_vat_curve_min_walk (VatCurveMin *c, const guint64 *nodes, const guint64 *keys, guint n)
{
  for (guint i = 0; i < n; i++)
    reference (c, nodes[i], c->is ? PINNED : keys[i]);
  if (c->is)
    for (guint i = 0; i < n; i++)
      {
        guint32 e = vat_index_find (&c->base.entries, nodes[i]);
        if (e != VAT_NO_SLOT)
          set_key (c, c->pos_of[e], keys[i]);
      }
}

void
mdl_vat_curve_min_misses (const VatCurveMin *c, guint64 *out)
{
  mdl_vat_curve_base_misses (&c->base, out);
}
