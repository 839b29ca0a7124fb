/* Tree pseudo-LRU over a power-of-two number of ways (at most 64): a binary tree of assoc - 1 bits
 * per set, heap-numbered from 1 at the root (node k has children 2k and 2k+1; way w is leaf
 * assoc + w). A bit of 0 points the victim search left, 1 right. Touching a way (hit or fill) sets
 * every bit on its path to point away from it; the victim is found by following the bits from the
 * root. A miss fills the lowest empty way before it evicts anything, as most hardware does. */
#include "models/cache/sets.h"

static inline void
plru_touch (guint64 *bits, guint n, guint w)
{
  for (guint node = n + w; node > 1; node >>= 1)
    {
      guint parent = node >> 1;
      if (node & 1)   /* right child: the victim side is now the left */
        *bits &= ~(G_GUINT64_CONSTANT (1) << parent);
      else
        *bits |= G_GUINT64_CONSTANT (1) << parent;
    }
}

static gboolean
plru_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint64 *way = mdl_cache_set_ways (s, set);
  guint64 *bits = s->bits + set;
  guint n = s->assoc;
  guint empty = n;
  guint v;
  for (guint i = 0; i < n; i++)
    {
      if (way[i] == tag)
        {
          plru_touch (bits, n, i);
          return TRUE;
        }
      if (way[i] == CACHE_INVALID && empty == n)
        empty = i;
    }
  *evicted = CACHE_INVALID;
  if (!allocate)
    return FALSE;
  v = empty;
  if (v == n)
    {
      guint node = 1;
      while (node < n)
        node = 2 * node + (guint) ((*bits >> node) & 1);
      v = node - n;
    }
  *evicted = way[v];
  way[v] = tag;
  plru_touch (bits, n, v);
  return FALSE;
}

static gboolean
plru_invalidate (CacheSets *s, guint64 set, guint64 tag)
{
  guint64 *way = mdl_cache_set_ways (s, set);
  for (guint i = 0; i < s->assoc; i++)
    if (way[i] == tag)
      {
        way[i] = CACHE_INVALID;
        return TRUE;
      }
  return FALSE;
}

const CachePolicy mdl_cache_plru = {
  .name = "plru",
  .flags = CACHE_POLICY_POW2_ASSOC,
  .max_assoc = 64,
  .ref = plru_ref,
  .invalidate = plru_invalidate,
};
