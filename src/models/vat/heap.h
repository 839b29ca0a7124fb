/* Private to src/models/vat/: a binary max-heap of cells ordered by a key per cell, with each cell's
 * heap position kept so that a key can change in place (O(log W)). Used by min.c and ismin.c,
 * whose keys are next-use positions (larger = needed later = evicted first). */
#ifndef MDL_VAT_HEAP_H
#define MDL_VAT_HEAP_H

#include <glib.h>

#define VAT_HEAP_NONE G_MAXUINT32

typedef struct {
  guint32 *item;        /* [cap] cells, item[0] has the largest key */
  guint32 *pos;         /* [cap] position of each cell in item, VAT_HEAP_NONE when absent */
  const guint64 *key;   /* [cap] borrowed: the key of each cell */
  guint32 len;
} VatHeap;

static inline void
vat_heap_init (VatHeap *h, guint32 cap, const guint64 *key)
{
  h->item = g_new (guint32, MAX (cap, 1));
  h->pos = g_new (guint32, MAX (cap, 1));
  h->key = key;
  h->len = 0;
  for (guint32 i = 0; i < cap; i++)
    h->pos[i] = VAT_HEAP_NONE;
}

static inline void
vat_heap_clear (VatHeap *h, guint32 cap)
{
  h->len = 0;
  for (guint32 i = 0; i < cap; i++)
    h->pos[i] = VAT_HEAP_NONE;
}

static inline void
vat_heap_free (VatHeap *h)
{
  g_free (h->item);
  g_free (h->pos);
}

static inline void
vat_heap_place (VatHeap *h, guint32 i, guint32 s)
{
  h->item[i] = s;
  h->pos[s] = i;
}

static inline void
vat_heap_sift_up (VatHeap *h, guint32 i)
{
  guint32 s = h->item[i];
  guint64 k = h->key[s];
  while (i > 0 && h->key[h->item[(i - 1) / 2]] < k)
    {
      vat_heap_place (h, i, h->item[(i - 1) / 2]);
      i = (i - 1) / 2;
    }
  vat_heap_place (h, i, s);
}

static inline void
vat_heap_sift_down (VatHeap *h, guint32 i)
{
  guint32 s = h->item[i];
  guint64 k = h->key[s];
  for (;;)
    {
      guint32 c = 2 * i + 1;
      if (c >= h->len)
        break;
      if (c + 1 < h->len && h->key[h->item[c + 1]] > h->key[h->item[c]])
        c++;
      if (h->key[h->item[c]] <= k)
        break;
      vat_heap_place (h, i, h->item[c]);
      i = c;
    }
  vat_heap_place (h, i, s);
}

static inline void
vat_heap_push (VatHeap *h, guint32 s)
{
  vat_heap_place (h, h->len++, s);
  vat_heap_sift_up (h, h->len - 1);
}

/* After the key of cell @s (in the heap) changed. */
static inline void
vat_heap_update (VatHeap *h, guint32 s)
{
  guint32 i = h->pos[s];
  if (i > 0 && h->key[h->item[(i - 1) / 2]] < h->key[s])
    vat_heap_sift_up (h, i);
  else
    vat_heap_sift_down (h, i);
}

static inline void
vat_heap_remove (VatHeap *h, guint32 s)
{
  guint32 i = h->pos[s];
  guint32 last = h->item[--h->len];
  h->pos[s] = VAT_HEAP_NONE;
  if (last == s)
    return;
  vat_heap_place (h, i, last);
  vat_heap_update (h, last);
}

#endif
