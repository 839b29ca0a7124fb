/* warpio/k-partition: Algorithm 10 of Jurkiewicz's thesis (§4.2; spec vat-thesis-jurkiewicz.md
 * §5.10) as a SIMT algorithm, one warp a processor of the warp-centric I/O model. Warp g
 * distributes its m input keys (keys g m ..) into k buckets by k-1 sorted splitters s_1..s_{k-1}
 * (bucket of x: how many splitters are <= x), with a cache of c blocks of S keys (warp-cache.h):
 *   read the splitters (one block);
 *   repeat: fill the cache's free blocks with the next input blocks; sort the cache; while input
 *           is left, write each aligned block of the sorted cache whose first and last keys fall
 *           in the same bucket to the end of that bucket, and free it; once the input is read,
 *           write every bucket's cached keys to its end (the last block of a bucket partial);
 *   write the k bucket sizes (one block).
 * A kept block holds a bucket boundary, so at most k-1 blocks stay and c >= k makes progress.
 * Bucket b of warp g gets m keys of room at output keys (g k + b) m .., its size at word g S + b
 * of the sizes. n keys make shares of m = S ceil(n / (warps S)): the input is padded with the
 * largest key to whole blocks, and the pads go to bucket k-1 like any key. Every write of a
 * bucket but its last is a whole block, so under warpio a warp costs
 * 1 + m/S + sum_b ceil(size_b / S) + 1 turns in one launch. docs/models/warpio.md. */
#include "algos/simt/warp-cache.h"

/* The largest input; the buckets' room is k times as much. */
#define MAX_N (G_GUINT64_CONSTANT (1) << 24)

const MdlParamSpec mdl_warpio_kpartition_params[] = {
  { "k", MDL_PARAM_UINT, "4", NULL, 2, 64, NULL, 0, "buckets (k-1 splitters), at most S" },
  MDL_WARP_CACHE_ROWS,
  { NULL }
};

typedef struct {
  guint64 in, splitters, out, sizes;   /* device addresses */
  guint64 share;                       /* m: input keys per warp, a multiple of S */
  guint k, c, S;
} PartitionArgs;

/* The bucket of @x: the splitters @s[0..@k-2] at most @x. */
static guint
bucket_of (const guint64 *s, guint k, guint32 x)
{
  guint b = 0;
  while (b < k - 1 && s[b] <= x)
    b++;
  return b;
}

static void
partition_kernel (MdlSimtBlock *blk, void *p)
{
  const PartitionArgs *a = p;
  guint64 first = (guint64) blk->idx_x * a->share, blocks = a->share / a->S, read = 0;
  guint64 room = a->out + 4 * (guint64) blk->idx_x * a->k * a->share;
  guint64 *s = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1), *size = mdl_simt_reg (blk, 1);
  g_autofree guint8 *is_free = g_new (guint8, a->c);
  MdlWarpCache cache;
  mdl_warp_cache_init (blk, &cache, a->S, a->c);
  memset (is_free, 1, a->c);
  mdl_simt_algo_pred_below (blk, a->k - 1);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->splitters + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, s);
  mdl_simt_pred_end (blk);
  for (;;)
    {
      guint cached = cache.slots;
      for (guint j = 0; j < a->c; j++)
        if (is_free[j] && read < blocks)
          {
            mdl_warp_cache_read (blk, &cache, a->in + 4 * (first + read * a->S), j * a->S, a->S);
            read++;
            is_free[j] = 0;
          }
        else if (is_free[j])
          {
            mdl_warp_cache_pad (blk, &cache, j * a->S, (j + 1) * a->S);
            cached -= a->S;
          }
      mdl_warp_cache_sort (blk, &cache);
      if (read == blocks)
        {
          for (guint from = 0, to; from < cached; from = to)
            {
              guint b = bucket_of (s, a->k, mdl_warp_cache_key (blk, from));
              to = from;
              while (to < cached && bucket_of (s, a->k, mdl_warp_cache_key (blk, to)) == b)
                to++;
              for (guint o = from; o < to; o += a->S)
                mdl_warp_cache_write (blk, &cache, o, MIN (a->S, to - o),
                                      room + 4 * (b * a->share + size[b] + o - from));
              size[b] += to - from;
            }
          break;
        }
      for (guint j = 0; j < a->c; j++)
        {
          guint b = bucket_of (s, a->k, mdl_warp_cache_key (blk, j * a->S));
          if (b != bucket_of (s, a->k, mdl_warp_cache_key (blk, (j + 1) * a->S - 1)))
            continue;
          mdl_warp_cache_write (blk, &cache, j * a->S, a->S, room + 4 * (b * a->share + size[b]));
          size[b] += a->S;
          is_free[j] = 1;
        }
    }
  mdl_simt_algo_pred_below (blk, a->k);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->sizes + 4 * ((guint64) blk->idx_x * a->S + t);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, size);
  mdl_simt_pred_end (blk);
}

/* NULL when warp @g's buckets hold its input keys, each by its splitters; else what is wrong. */
static char *
check_warp (const PartitionArgs *a, const guint32 *keys, const guint32 *splitters,
            const guint32 *out, const guint32 *sizes, guint g)
{
  g_autofree guint32 *got = g_new (guint32, a->share);
  guint64 total = 0, bad, at = 0;
  guint64 s[64];
  for (guint b = 0; b + 1 < a->k; b++)
    s[b] = splitters[b];
  for (guint b = 0; b < a->k; b++)
    {
      const guint32 *bucket = out + ((guint64) g * a->k + b) * a->share;
      if (sizes[b] > a->share - total)
        return g_strdup_printf ("bucket sizes add up to more than its %" G_GUINT64_FORMAT " keys",
                                a->share);
      for (guint64 i = 0; i < sizes[b]; i++)
        if (bucket_of (s, a->k, bucket[i]) != b)
          return g_strdup_printf ("key %" G_GUINT64_FORMAT " of bucket %u (%u) belongs to bucket "
                                  "%u", i, b, bucket[i], bucket_of (s, a->k, bucket[i]));
      memcpy (got + total, bucket, 4 * sizes[b]);
      total += sizes[b];
    }
  if (total != a->share)
    return g_strdup_printf ("bucket sizes add up to %" G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT,
                            total, a->share);
  if (!mdl_keys_sort (got, a->share))
    return g_strdup ("out of memory");
  bad = mdl_keys_check (keys + (guint64) g * a->share, got, a->share, &at);
  return bad ? g_strdup_printf ("the buckets are not a permutation of its keys (sorted, %"
                                G_GUINT64_FORMAT " differ, the first at %" G_GUINT64_FORMAT ")",
                                bad, at)
             : NULL;
}

static gboolean
kpartition_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                 guint64 *checksum, GError **error)
{
  const char *algo = "warpio/k-partition";
  guint k = (guint) mdl_params_uint (params, "k"), c = (guint) mdl_params_uint (params, "c");
  guint S = (guint) mdl_params_uint (params, "S"), w = (guint) mdl_params_uint (params, "w");
  guint warps = (guint) mdl_params_uint (params, "warps");
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  g_autoptr (MdlSimt) gpu = NULL;
  PartitionArgs a = { .k = k, .c = c, .S = S };
  guint32 *keys, *splitters;
  guint64 state = seed, unit, padded;
  if (!mdl_simt_algo_size_ok (algo, n, MAX_N, error)
      || !mdl_warp_cache_check (algo, k, c, S, w, error))
    return FALSE;
  if (k > S)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: k=%u > S=%u: the splitters and the "
                   "bucket sizes are one block each", algo, k, S);
      return FALSE;
    }
  unit = (guint64) warps * S;
  padded = (n + unit - 1) / unit * unit;
  a.share = padded / warps;
  gpu = mdl_simt_algo_gpu_new_lanes (rec, w);
  if (!(keys = mdl_warp_cache_input (gpu, n, padded, dist, seed, &a.in, error))
      || !(a.splitters = mdl_simt_alloc (gpu, 4 * S, error))
      || !(a.out = mdl_simt_alloc (gpu, 4 * padded * k, error))
      || !(a.sizes = mdl_simt_alloc (gpu, 4 * (gsize) warps * S, error)))
    return FALSE;
  splitters = mdl_simt_host (gpu, a.splitters);
  /* The splitters: k-1 input keys at random places, sorted (a sample, as a sort would take). */
  for (guint b = 0; b + 1 < k; b++)
    splitters[b] = keys[mdl_splitmix64 (&state) % n];
  mdl_keys_sort (splitters, k - 1);
  {
    MdlSimtLaunch shape = { .grid_x = warps, .block_x = w,
                            .shared_bytes = mdl_warp_cache_bytes (c * S) };
    if (!mdl_simt_launch (gpu, &shape, partition_kernel, &a, error))
      return FALSE;
  }
  {
    const guint32 *out = mdl_simt_host (gpu, a.out), *sizes = mdl_simt_host (gpu, a.sizes);
    guint64 h = 0;
    for (guint g = 0; g < warps; g++)
      {
        g_autofree char *why = check_warp (&a, keys, splitters, out, sizes + (guint64) g * S, g);
        if (why)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: warp %u: %s", algo, g, why);
            return FALSE;
          }
        for (guint b = 0; b < k; b++)
          h = h * 31 + mdl_simt_algo_checksum (out + ((guint64) g * k + b) * a.share,
                                               4 * (gsize) sizes[(guint64) g * S + b]);
      }
    *checksum = h;
  }
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (warpio_kpartition, kpartition_body)
