/* The cache of a warp-centric I/O processor in shared memory (warp-cache.h). Kernels using it run
 * blocks of one warp; lanes beyond a chunk's length are masked off by predication. */
#include "algos/simt/warp-cache.h"

guint
mdl_warp_cache_bytes (guint slots)
{
  guint size = 1;
  while (size < slots)
    size <<= 1;
  return 4 * MAX (size, 2u);
}

void
mdl_warp_cache_init (MdlSimtBlock *blk, MdlWarpCache *cache, guint S, guint c)
{
  cache->S = S;
  cache->slots = c * S;
  cache->size = mdl_warp_cache_bytes (cache->slots) / 4;
  cache->at = mdl_simt_reg (blk, 1);
  cache->x = mdl_simt_reg (blk, 1);
  cache->y = mdl_simt_reg (blk, 1);
  cache->down = mdl_simt_reg (blk, 1);
  mdl_warp_cache_pad (blk, cache, 0, cache->size);
}

guint32
mdl_warp_cache_key (const MdlSimtBlock *blk, guint i)
{
  return ((const guint32 *) blk->shared)[i];
}

void
mdl_warp_cache_read (MdlSimtBlock *blk, MdlWarpCache *cache, guint64 src, guint slot, guint count)
{
  mdl_simt_algo_pred_below (blk, count);
  MDL_SIMT_EACH (blk, t)
    cache->at[t] = src + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, cache->at, cache->x);
  MDL_SIMT_EACH (blk, t)
    cache->at[t] = 4 * (slot + t);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, cache->at, cache->x);
  mdl_simt_pred_end (blk);
}

void
mdl_warp_cache_write (MdlSimtBlock *blk, MdlWarpCache *cache, guint slot, guint count,
                      guint64 dst)
{
  mdl_simt_algo_pred_below (blk, count);
  MDL_SIMT_EACH (blk, t)
    cache->at[t] = 4 * (slot + t);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, cache->at, cache->x);
  MDL_SIMT_EACH (blk, t)
    cache->at[t] = dst + 4 * t;
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, cache->at, cache->x);
  mdl_simt_pred_end (blk);
}

void
mdl_warp_cache_pad (MdlSimtBlock *blk, MdlWarpCache *cache, guint from, guint to)
{
  for (guint at = from; at < to; at += blk->warp_width)
    {
      mdl_simt_algo_pred_below (blk, MIN (blk->warp_width, to - at));
      MDL_SIMT_EACH (blk, t)
        {
          cache->at[t] = 4 * (at + t);
          cache->x[t] = MDL_WARP_CACHE_PAD;
        }
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, cache->at, cache->x);
      mdl_simt_pred_end (blk);
    }
}

/* One step of the network: pairs (p, p + j) at distance @j in runs of @run keys sorted up or down
 * alternately, @half pairs in rounds of a warp. */
static void
sort_step (MdlSimtBlock *blk, MdlWarpCache *cache, guint run, guint j)
{
  guint half = cache->size / 2;
  for (guint first = 0; first < half; first += blk->warp_width)
    {
      mdl_simt_algo_pred_below (blk, MIN (blk->warp_width, half - first));
      MDL_SIMT_EACH (blk, t)
        {
          guint i = first + t, p = 2 * j * (i / j) + i % j;
          cache->at[t] = 4 * p;
          cache->down[t] = (p & run) != 0;
        }
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, cache->at, cache->x);
      MDL_SIMT_EACH (blk, t)
        cache->at[t] += 4 * j;
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, cache->at, cache->y);
      mdl_simt_alu (blk, 2);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 lo = MIN (cache->x[t], cache->y[t]), hi = MAX (cache->x[t], cache->y[t]);
          cache->x[t] = cache->down[t] ? hi : lo;
          cache->y[t] = cache->down[t] ? lo : hi;
        }
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, cache->at, cache->y);
      MDL_SIMT_EACH (blk, t)
        cache->at[t] -= 4 * j;
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, cache->at, cache->x);
      mdl_simt_pred_end (blk);
    }
}

void
mdl_warp_cache_sort (MdlSimtBlock *blk, MdlWarpCache *cache)
{
  for (guint run = 2; run <= cache->size; run <<= 1)
    for (guint j = run / 2; j >= 1; j >>= 1)
      sort_step (blk, cache, run, j);
}

gboolean
mdl_warp_cache_check (const char *algo, guint k, guint c, guint S, guint w, GError **error)
{
  if (c < k)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: c=%u < k=%u: the cache keeps k-1 blocks "
                 "between rounds and must take at least one more", algo, c, k);
  else if (S > w)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: S=%u > w=%u: a block is read by one "
                 "instruction of S lanes", algo, S, w);
  else if (mdl_warp_cache_bytes (c * S) > MDL_SIMT_MAX_SHARED)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: c x S = %u keys exceed a block's shared "
                 "memory", algo, c * S);
  else
    return TRUE;
  return FALSE;
}

guint32 *
mdl_warp_cache_input (MdlSimt *gpu, guint64 n, guint64 padded, MdlKeyDist dist, guint64 seed,
                      guint64 *addr, GError **error)
{
  guint32 *keys;
  if (!(*addr = mdl_simt_alloc (gpu, 4 * padded, error)))
    return NULL;
  keys = mdl_simt_host (gpu, *addr);
  if (!mdl_keys_fill (keys, n, dist, seed))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": out of memory", n);
      return NULL;
    }
  for (guint64 i = n; i < padded; i++)
    keys[i] = MDL_WARP_CACHE_PAD;
  return keys;
}
