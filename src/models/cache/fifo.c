/* First in, first out: each set is a ring in order of insertion, newest at its head (sets.h); a hit
 * changes nothing, a miss replaces the oldest line. Removal keeps the order of the others. */
#include "models/cache/sets.h"

static gboolean
fifo_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint8 *block = mdl_cache_set_block (s, set);
  if (mdl_cache_ring_find (s, block, tag) != G_MAXUINT)
    return TRUE;
  *evicted = CACHE_INVALID;
  if (allocate)
    mdl_cache_ring_push (s, block, tag, mdl_cache_fp (tag), evicted);
  return FALSE;
}

const CachePolicy mdl_cache_fifo = {
  .name = "fifo",
  .flags = CACHE_POLICY_RING,
  .ref = fifo_ref,
  .invalidate = mdl_cache_ring_remove,
};
