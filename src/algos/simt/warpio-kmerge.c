/* warpio/k-merge: Algorithm 9 of Jurkiewicz's thesis (§4.2; spec vat-thesis-jurkiewicz.md §5.10)
 * as a SIMT algorithm, one warp a processor of the warp-centric I/O model. Warp g merges its k
 * sorted runs of m keys (run i of warp g at input keys (g k + i) m ..) into output keys g k m ..
 * with a cache of c blocks of S keys (warp-cache.h):
 *   rank(i) = -inf for every run;
 *   repeat: while the cache has a free block and some run has an unread block, read the next
 *           block of the run of least rank (ties: the lowest run) and set rank(i) to its largest
 *           key; sort the cache; write out all its keys but the (k-1) S largest, or all of them
 *           once every run is read.
 * Why the kept keys suffice: a run's blocks before its last read one have their largest key at
 * most R = the least rank of the runs not yet exhausted (each was that least rank when the run
 * was read again, and ranks only grow), so only the k-1 last read blocks of the other runs can
 * hold keys above R, and every unread key is at least R.
 * n keys make warps x k runs of m = S ceil(n / (warps k S)) keys: the input is padded with the
 * largest key to whole blocks, and the pads are merged too (they end each warp's output).
 * Cost under warpio: each block read once (m k / S loads) and written once (m k / S stores), in
 * one launch: turns = 2 m k / S per warp. docs/models/warpio.md. */
#include "algos/simt/warp-cache.h"

/* The largest input (keys in and out: 512 MiB). */
#define MAX_N (G_GUINT64_CONSTANT (1) << 26)

const MdlParamSpec mdl_warpio_kmerge_params[] = {
  { "k", MDL_PARAM_UINT, "4", NULL, 2, 4096, NULL, 0, "sorted runs each warp merges" },
  MDL_WARP_CACHE_ROWS,
  { NULL }
};

typedef struct {
  guint64 in, out;   /* device addresses */
  guint64 run;       /* m: keys per run, a multiple of S */
  guint k, c, S;
} MergeArgs;

/* The run to read next: an unread one first, else the least rank; -1 when every run is read. */
static gint
next_run (const MergeArgs *a, const guint64 *blocks_read, const guint32 *rank)
{
  gint best = -1;
  for (guint i = 0; i < a->k; i++)
    {
      if (blocks_read[i] * a->S == a->run)
        continue;
      if (blocks_read[i] == 0)
        return (gint) i;
      if (best < 0 || rank[i] < rank[best])
        best = (gint) i;
    }
  return best;
}

static void
merge_kernel (MdlSimtBlock *blk, void *p)
{
  const MergeArgs *a = p;
  guint64 first = (guint64) blk->idx_x * a->k * a->run, written = 0;
  g_autofree guint64 *blocks_read = g_new0 (guint64, a->k);
  g_autofree guint32 *rank = g_new0 (guint32, a->k);
  MdlWarpCache cache;
  guint free_end;
  mdl_warp_cache_init (blk, &cache, a->S, a->c);
  free_end = cache.slots;   /* the free keys of the cache: 0 .. free_end - 1 */
  for (;;)
    {
      guint filled = 0, cached, out;
      gint i = 0;
      while (filled < free_end && (i = next_run (a, blocks_read, rank)) >= 0)
        {
          guint64 src = a->in + 4 * (first + (guint64) i * a->run + blocks_read[i] * a->S);
          mdl_warp_cache_read (blk, &cache, src, filled, a->S);
          blocks_read[i]++;
          rank[i] = mdl_warp_cache_key (blk, filled + a->S - 1);
          filled += a->S;
        }
      i = next_run (a, blocks_read, rank);   /* -1: every run read, write out everything */
      mdl_warp_cache_pad (blk, &cache, filled, free_end);
      mdl_warp_cache_sort (blk, &cache);
      cached = cache.slots - (free_end - filled);
      out = i < 0 ? cached : cached - (a->k - 1) * a->S;
      for (guint o = 0; o < out; o += a->S)
        mdl_warp_cache_write (blk, &cache, o, a->S, a->out + 4 * (first + written + o));
      written += out;
      if (i < 0)
        break;
      free_end = out;
    }
}

static gboolean
kmerge_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             guint64 *checksum, GError **error)
{
  const char *algo = "warpio/k-merge";
  guint k = (guint) mdl_params_uint (params, "k"), c = (guint) mdl_params_uint (params, "c");
  guint S = (guint) mdl_params_uint (params, "S"), w = (guint) mdl_params_uint (params, "w");
  guint warps = (guint) mdl_params_uint (params, "warps");
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  g_autoptr (MdlSimt) gpu = NULL;
  MergeArgs a = { .k = k, .c = c, .S = S };
  guint32 *keys;
  const guint32 *merged;
  guint64 unit, padded;
  if (!mdl_simt_algo_size_ok (algo, n, MAX_N, error)
      || !mdl_warp_cache_check (algo, k, c, S, w, error))
    return FALSE;
  unit = (guint64) warps * k * S;
  padded = (n + unit - 1) / unit * unit;
  a.run = padded / warps / k;
  gpu = mdl_simt_algo_gpu_new_lanes (rec, w);
  if (!(keys = mdl_warp_cache_input (gpu, n, padded, dist, seed, &a.in, error))
      || !(a.out = mdl_simt_alloc (gpu, 4 * padded, error)))
    return FALSE;
  for (guint64 r = 0; r < padded / a.run; r++)
    if (!mdl_keys_sort (keys + r * a.run, a.run))
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT ": out of "
                     "memory", algo, n);
        return FALSE;
      }
  {
    MdlSimtLaunch shape = { .grid_x = warps, .block_x = w,
                            .shared_bytes = mdl_warp_cache_bytes (c * S) };
    if (!mdl_simt_launch (gpu, &shape, merge_kernel, &a, error))
      return FALSE;
  }
  merged = mdl_simt_host (gpu, a.out);
  for (guint g = 0; g < warps; g++)
    {
      guint64 share = (guint64) k * a.run, at = 0;
      guint64 bad = mdl_keys_check (keys + g * share, merged + g * share, share, &at);
      if (bad)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: warp %u: %" G_GUINT64_FORMAT " of %"
                       G_GUINT64_FORMAT " keys out of place, the first at %" G_GUINT64_FORMAT,
                       algo, g, bad, share, at);
          return FALSE;
        }
    }
  *checksum = mdl_simt_algo_checksum (merged, 4 * padded);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (warpio_kmerge, kmerge_body)
