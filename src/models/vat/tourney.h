/* Private to src/models/vat/: a tournament (winner) tree over cells, for min and ismin. Each cell
 * has a key (larger = needed later = evicted first); each inner entry holds the winner of its two
 * children, the larger key, so the root names the cell to evict. Setting a key replays the
 * log2(size) matches above the cell with selects, the same steps whatever the keys: the binary
 * heap it replaced mispredicted about five branches per access on bench-vat's random pages
 * (cachegrind's simulation), and took 40% of min's time.
 * The keys of the cells that may be chosen must differ (vat_cell_key() in policy.h makes them);
 * a cell that must not be chosen has key 0 (free cells, and ismin's cells with children).
 *
 * A key set above every other stays out of the matches, beside the root as the pending top,
 * until a larger key comes or its cell's key changes: it is the winner meanwhile, and the cell
 * that wins is mostly the next victim, whose key the insertion into it sets again. On random
 * pages that is a leaf never used again (63% of bench-vat's leaves), which used to replay its
 * whole path twice in two accesses. The matches stay right over the keys they hold; only the
 * pending cell's key there is old, which decides nothing while the pending key, above it and all
 * others, wins, and a key change of that cell replays its path. */
#ifndef MDL_VAT_TOURNEY_H
#define MDL_VAT_TOURNEY_H

#include <glib.h>

#define VAT_TOURNEY_NONE G_MAXUINT32

typedef struct {
  guint64 *key;      /* [2 * size]: the leaf of cell s at size + s, the root at 1 */
  guint32 *cell;     /* [2 * size]: the winning cell below each entry */
  guint64 top_key;   /* the pending top's key, above every key in the matches */
  guint32 top_cell;  /* the pending top's cell, VAT_TOURNEY_NONE when none */
  guint32 size;      /* a power of two >= the cells */
} VatTourney;

static inline void
vat_tourney_clear (VatTourney *t)
{
  for (guint32 i = 0; i < t->size; i++)
    {
      t->key[t->size + i] = 0;
      t->cell[t->size + i] = i;
    }
  for (guint32 i = t->size; i-- > 1;)
    {
      t->key[i] = 0;
      t->cell[i] = t->cell[2 * i];
    }
  t->top_key = 0;
  t->top_cell = VAT_TOURNEY_NONE;
}

static inline void
vat_tourney_init (VatTourney *t, guint32 cells)
{
  for (t->size = 1; t->size < cells; t->size *= 2)
    ;
  t->key = g_new (guint64, 2 * (gsize) t->size);
  t->cell = g_new (guint32, 2 * (gsize) t->size);
  vat_tourney_clear (t);
}

static inline void
vat_tourney_free (VatTourney *t)
{
  g_free (t->key);
  g_free (t->cell);
}

/* The cell of the largest key (the lowest such cell). */
static inline guint32
vat_tourney_top (const VatTourney *t)
{
  return t->top_cell != VAT_TOURNEY_NONE ? t->top_cell : t->cell[1];
}

/* TRUE when @s holds the pending top. */
static inline gboolean
vat_tourney_pending (const VatTourney *t, guint32 s)
{
  return s == t->top_cell;
}

static inline guint64
vat_tourney_key (const VatTourney *t, guint32 s)
{
  return s == t->top_cell ? t->top_key : t->key[t->size + s];
}

/* Sets leaf @s to @k and replays the matches above it. */
static inline void
tourney_replay (VatTourney *t, guint32 s, guint64 k)
{
  guint32 i = t->size + s, c = s;
  t->key[i] = k;
  while (i > 1)
    {
      guint32 sib = i ^ 1, cs = t->cell[sib];
      guint64 ks = t->key[sib];
      gboolean sib_wins = ks > k;
      k = sib_wins ? ks : k;
      c = sib_wins ? cs : c;
      i /= 2;
      t->key[i] = k;
      t->cell[i] = c;
    }
}

/* Sets cell @s's key to @k: the pending top if above every other key, else into the matches.
 * Always inlined: the fast runs keep the tree's fields in registers (ismin's run spent 50 of 665
 * instructions per access calling it out of line). */
static inline __attribute__ ((always_inline)) void
vat_tourney_set (VatTourney *t, guint32 s, guint64 k)
{
  if (s == t->top_cell)
    t->top_cell = VAT_TOURNEY_NONE;
  if (k > (t->top_cell != VAT_TOURNEY_NONE ? t->top_key : t->key[1]))
    {
      if (t->top_cell != VAT_TOURNEY_NONE)
        tourney_replay (t, t->top_cell, t->top_key);
      t->top_cell = s;
      t->top_key = k;
      return;
    }
  tourney_replay (t, s, k);
}

/* TRUE when every inner entry holds the winner of its children and the pending key is above
 * them. */
static inline gboolean
vat_tourney_valid (const VatTourney *t)
{
  if (t->top_cell != VAT_TOURNEY_NONE && t->top_key <= t->key[1])
    return FALSE;
  for (guint32 i = 1; i < t->size; i++)
    {
      guint32 win = t->key[2 * i + 1] > t->key[2 * i] ? 2 * i + 1 : 2 * i;
      if (t->key[i] != t->key[win] || (t->key[i] != 0 && t->cell[i] != t->cell[win]))
        return FALSE;
    }
  return TRUE;
}

#endif
