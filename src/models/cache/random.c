/* Random replacement: ways have fixed places; a miss fills the lowest empty way, and in a full set
 * replaces way (g mod assoc), g the next number of the array's splitmix64 generator, which starts
 * from the engine's seed. The generator is drawn only for a replacement in a full set, so a run is
 * reproducible from the seed and the reference model in tests/ref can follow it draw for draw. */
#include "models/cache/sets.h"

static gboolean
random_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint64 *way = mdl_cache_set_ways (s, set);
  guint n = s->assoc;
  guint empty = n;
  guint v;
  for (guint i = 0; i < n; i++)
    {
      if (way[i] == tag)
        return TRUE;
      if (way[i] == CACHE_INVALID && empty == n)
        empty = i;
    }
  *evicted = CACHE_INVALID;
  if (!allocate)
    return FALSE;
  v = empty < n ? empty : (guint) (mdl_cache_rng_next (s) % n);
  *evicted = way[v];
  way[v] = tag;
  return FALSE;
}

static gboolean
random_invalidate (CacheSets *s, guint64 set, guint64 tag)
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

const CachePolicy mdl_cache_random = {
  .name = "random",
  .ref = random_ref,
  .invalidate = random_invalidate,
};
