/* Least recently used: each set is a ring in recency order, most recent at its head (sets.h), as
 * Cachegrind keeps its sets most recent first; a hit moves the line to the head, a miss replaces the
 * least recent. The rule is inline in sets.h (mdl_cache_lru_access) for the engines' hot loops. */
#include "models/cache/sets.h"

static gboolean
lru_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  return mdl_cache_lru_access (s, set, tag, allocate, evicted);
}

const CachePolicy mdl_cache_lru = {
  .name = "lru",
  .flags = CACHE_POLICY_RING,
  .ref = lru_ref,
  .invalidate = mdl_cache_ring_remove,
};
