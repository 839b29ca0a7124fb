/* Random replacement: ways have fixed places; a miss fills the lowest empty way, and in a full set
 * replaces way (g mod assoc), g the next number of the array's splitmix64 generator, which starts
 * from the engine's seed. The generator is drawn only for a replacement in a full set, so a run is
 * reproducible from the seed and the reference model in tests/ref can follow it draw for draw. */
#include "models/cache/sets.h"

static inline guint
random_victim (CacheSets *s, guint64 set)
{
  (void) set;
  return (guint) (mdl_cache_rng_next (s) % s->assoc);
}

static gboolean
random_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  return mdl_cache_ways_ref (s, set, tag, allocate, evicted, NULL, random_victim);
}

const CachePolicy mdl_cache_random = {
  .name = "random",
  .ref = random_ref,
  .invalidate = mdl_cache_ways_remove,
};
