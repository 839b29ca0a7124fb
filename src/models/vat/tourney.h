/* Private to src/models/vat/: a tournament (winner) tree over cells, for min and ismin. Each cell
 * has a key (larger = needed later = evicted first); each inner entry holds the winner of its two
 * children, the larger key, so the root names the cell to evict. Setting a key replays the
 * log2(size) matches above the cell with selects, the same steps whatever the keys: the binary
 * heap it replaced mispredicted about five branches per access on bench-vat's random pages
 * (cachegrind's simulation), and took 40% of min's time.
 * The keys of the cells that may be chosen must differ (vat_cell_key() in policy.h makes them);
 * a cell that must not be chosen has key 0 (free cells, and ismin's cells with children). */
#ifndef MDL_VAT_TOURNEY_H
#define MDL_VAT_TOURNEY_H

#include <glib.h>

typedef struct {
  guint64 *key;     /* [2 * size]: the leaf of cell s at size + s, the root at 1 */
  guint32 *cell;    /* [2 * size]: the winning cell below each entry */
  guint32 size;     /* a power of two >= the cells */
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
  return t->cell[1];
}

/* The largest key. */
static inline guint64
vat_tourney_top_key (const VatTourney *t)
{
  return t->key[1];
}

static inline guint64
vat_tourney_key (const VatTourney *t, guint32 s)
{
  return t->key[t->size + s];
}

/* Sets cell @s's key to @k and replays the matches above it. */
static inline void
vat_tourney_set (VatTourney *t, guint32 s, guint64 k)
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

/* TRUE when every inner entry holds the winner of its children. */
static inline gboolean
vat_tourney_valid (const VatTourney *t)
{
  for (guint32 i = 1; i < t->size; i++)
    {
      guint32 win = t->key[2 * i + 1] > t->key[2 * i] ? 2 * i + 1 : 2 * i;
      if (t->key[i] != t->key[win] || (t->key[i] != 0 && t->cell[i] != t->cell[win]))
        return FALSE;
    }
  return TRUE;
}

#endif
