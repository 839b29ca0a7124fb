/* Tree pseudo-LRU over a power-of-two number of ways (at most 64): a binary tree of assoc - 1 bits
 * per set, heap-numbered from 1 at the root (node k has children 2k and 2k+1; way w is leaf
 * assoc + w). A bit of 0 points the victim search left, 1 right. Touching a way (hit or fill) sets
 * every bit on its path to point away from it; the victim is found by following the bits from the
 * root. A miss fills the lowest empty way before it evicts anything, as most hardware does. The
 * bits of a set are one guint64 of its state (bit k: node k), all 0 in an empty set. */
#include "models/cache/sets.h"

static inline guint64 *
plru_bits (CacheSets *s, guint64 set)
{
  return (guint64 *) (void *) s->state + set;
}

static inline void
plru_touch (CacheSets *s, guint64 set, guint way)
{
  guint64 *bits = plru_bits (s, set);
  for (guint node = s->assoc + way; node > 1; node >>= 1)
    {
      guint parent = node >> 1;
      if (node & 1)   /* right child: the victim side is now the left */
        *bits &= ~(G_GUINT64_CONSTANT (1) << parent);
      else
        *bits |= G_GUINT64_CONSTANT (1) << parent;
    }
}

static inline guint
plru_victim (CacheSets *s, guint64 set)
{
  guint64 bits = *plru_bits (s, set);
  guint node = 1;
  while (node < s->assoc)
    node = 2 * node + (guint) ((bits >> node) & 1);
  return node - s->assoc;
}

static gboolean
plru_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  return mdl_cache_ways_ref (s, set, tag, allocate, evicted, plru_touch, plru_victim);
}

const CachePolicy mdl_cache_plru = {
  .name = "plru",
  .flags = CACHE_POLICY_POW2_ASSOC,
  .max_assoc = 64,
  .set_state_bytes = sizeof (guint64),
  .ref = plru_ref,
  .invalidate = mdl_cache_ways_remove,
};
