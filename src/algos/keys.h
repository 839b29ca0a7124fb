/* Private: the input distributions of the sorts, one generator for the CPU sorts, the SIMT twins
 * and the CUDA harness, so that every side of a sort sees the same keys for the same seed.
 * Keys are 32-bit unsigned; the float sorts take mdl_keys_f32_bits of each: mdl_keys_float, an
 * order-preserving map onto [0, 1), so a distribution keeps its shape in both types, or for
 * "special" (signed zeros, denormals, infinities) the key's bits as they are.
 *
 * The distributions are Cederman's (GPU-Quicksort, after Helman, Bader and JaJa; the reading notes
 * ../shared/spec/gpu-quicksort-cederman.md §2.11, with their cleaned definitions) plus two common
 * in sorting benchmarks. "Uniform" is Cederman's: integers in [0, 2^31). Key k depends only on the
 * seed and k (mdl_keys_draw), so a large input can be drawn in parallel; "sorted" and "reverse"
 * then need mdl_keys_arrange.
 *
 * Only <stdint.h>, <stdlib.h> and <string.h>: nvcc compiles it too (no GLib on the GPU machine). */
#ifndef MDL_KEYS_H
#define MDL_KEYS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/splitmix.h"

/* MDL_KEY_DISTS (X) calls X (NAME, DESCRIPTION) for each distribution, in the order of the
 * MdlKeyDist values and of MDL_KEY_DIST_CHOICES. */
#define MDL_KEY_DISTS(X)                                                                           \
  X ("uniform", "independent uniform integers in [0, 2^31)")                                      \
  X ("gaussian", "the mean of four uniform keys (integer division)")                              \
  X ("zero", "one random value n times")                                                          \
  X ("sorted", "uniform keys in ascending order")                                                 \
  X ("bucket", "p = 128 blocks of p sections; section j of every block uniform in "               \
               "[j 2^31/p, (j+1) 2^31/p)")                                                         \
  X ("staggered", "p = 128 blocks; block i < p/2 uniform in slot 2i+1 of width 2^31/p, block "    \
                  "i >= p/2 in slot 2i-p")                                                         \
  X ("reverse", "uniform keys in descending order")                                               \
  X ("few", "16 random values, each key one of them at random")                                   \
  X ("special", "float bits: half one of 16 special values (+-0, denormals, +-inf, ...), half "   \
                "random finite floats")

/* The distributions as a parameter's choices (MDL_PARAM_CHOICE): choice i is MdlKeyDist i. */
#define MDL_KEY_DIST_CHOICES "uniform|gaussian|zero|sorted|bucket|staggered|reverse|few|special"

/* The row of a sort's parameter table (an MdlParamSpec, include/models/params.h) that picks the
 * distribution: `dist=gaussian`. */
#define MDL_KEYS_DIST_ROW                                                                          \
  { "dist", MDL_PARAM_CHOICE, "uniform", NULL, 0, 0, MDL_KEY_DIST_CHOICES, 0,                      \
    "input keys: " MDL_KEY_DIST_CHOICES " (docs/experiments/sorting.md)" }

/* The row that picks the key type: `keys=f32` sorts floats (as their bits, in totalOrder). */
#define MDL_KEYS_TYPE_ROW                                                                          \
  { "keys", MDL_PARAM_CHOICE, "u32", NULL, 0, 0, "u32|f32", 0,                                     \
    "key type: 32-bit unsigned or float (docs/experiments/sorting.md)" }

typedef enum {
  MDL_KEYS_UNIFORM = 0,
  MDL_KEYS_GAUSSIAN,
  MDL_KEYS_ZERO,
  MDL_KEYS_SORTED,
  MDL_KEYS_BUCKET,
  MDL_KEYS_STAGGERED,
  MDL_KEYS_REVERSE,
  MDL_KEYS_FEW,
  MDL_KEYS_SPECIAL,
  MDL_KEYS_N_DISTS
} MdlKeyDist;

/* Blocks of bucket and staggered: Cederman's p, stated for staggered and the natural reading for
 * bucket (notes §2.11). */
#define MDL_KEYS_P 128u
/* Distinct values of "few". */
#define MDL_KEYS_FEW_VALUES 16u
/* The special values of "special" as float bits: -0, +0, the smallest and largest denormals, the
 * smallest normals, the largest finite floats, the infinities and +-1, each with both signs. No
 * NaN: a comparison sort (qsort, thrust) has no order for it (the seed sorts do, see
 * mdl_keys_f32_order). */
#define MDL_KEYS_N_SPECIAL 16u
static const uint32_t mdl_keys_special[MDL_KEYS_N_SPECIAL] = {
  0x80000000u, 0x00000000u, 0x80000001u, 0x00000001u, 0x807fffffu, 0x007fffffu, 0x80800000u,
  0x00800000u, 0xff7fffffu, 0x7f7fffffu, 0xff800000u, 0x7f800000u, 0xbf800000u, 0x3f800000u,
  0x80000002u, 0x00000002u,
};

/* Keys of the uniform distribution are below this. */
#define MDL_KEYS_RANGE (1u << 31)

/* The distribution called @name, or -1. */
static inline int
mdl_keys_dist_index (const char *name)
{
  static const char *const names[] = {
#define MDL_KEYS_NAME_(name, what) name,
    MDL_KEY_DISTS (MDL_KEYS_NAME_)
#undef MDL_KEYS_NAME_
  };
  for (int i = 0; i < (int) MDL_KEYS_N_DISTS; i++)
    if (strcmp (name, names[i]) == 0)
      return i;
  return -1;
}

/* Uniform number @k of the stream @seed names, in [0, 2^31). */
static inline uint32_t
mdl_keys_uniform (uint64_t seed, uint64_t k)
{
  return (uint32_t) (mdl_splitmix64_mix (seed + (k + 1) * MDL_SPLITMIX64_GAMMA) >> 33);
}

/* Key @k of @n (k < n <= 2^32) of distribution @dist for @seed; for "sorted" and "reverse" the
 * uniform key, put in order by mdl_keys_arrange. */
static inline uint32_t
mdl_keys_draw (MdlKeyDist dist, uint64_t seed, uint64_t n, uint64_t k)
{
  const uint32_t slot = MDL_KEYS_RANGE / MDL_KEYS_P;
  uint32_t u = mdl_keys_uniform (seed, k), block;
  uint64_t sum = 0;
  switch (dist)
    {
    case MDL_KEYS_GAUSSIAN:
      for (uint64_t i = 0; i < 4; i++)
        sum += mdl_keys_uniform (seed, 4 * k + i);
      return (uint32_t) (sum / 4);
    case MDL_KEYS_ZERO:
      return mdl_keys_uniform (seed, 0);
    case MDL_KEYS_BUCKET:
      /* Element k lies in section k p^2 / n of the p^2 sections, section (that mod p) of its block. */
      return (uint32_t) ((k * MDL_KEYS_P * MDL_KEYS_P / n) % MDL_KEYS_P) * slot + u % slot;
    case MDL_KEYS_STAGGERED:
      block = (uint32_t) (k * MDL_KEYS_P / n);
      return (block < MDL_KEYS_P / 2 ? 2 * block + 1 : 2 * block - MDL_KEYS_P) * slot + u % slot;
    case MDL_KEYS_FEW:
      /* The values are numbers 0..15 of a second stream, so that none depends on n. */
      return mdl_keys_uniform (~seed, u % MDL_KEYS_FEW_VALUES);
    case MDL_KEYS_SPECIAL:
      /* Bit 0 picks a special value (bits 1-4) or a finite float: sign bit 1, the other 31 bits
       * from a second stream, the exponent field kept below 255 (all ones: inf or NaN). */
      if (u & 1)
        return mdl_keys_special[(u >> 1) % MDL_KEYS_N_SPECIAL];
      block = ((u >> 1) & 1) << 31 | mdl_keys_uniform (seed ^ MDL_SPLITMIX64_GAMMA, k);
      return (block & 0x7f800000u) == 0x7f800000u ? block & 0xbfffffffu : block;
    default:
      return u;
    }
}

/* Sorts @keys ascending: least-significant-digit radix sort, two passes of 16 bits through a
 * buffer of n keys (returns 0 when it cannot get one, else 1). The reference every sort is checked
 * against, and what makes "sorted" sorted. */
static inline int
mdl_keys_sort (uint32_t *keys, uint64_t n)
{
  uint32_t *tmp = (uint32_t *) malloc (n ? n * sizeof *keys : 1);
  uint32_t *src = keys, *dst = tmp;
  if (!tmp)
    return 0;
  for (int shift = 0; shift < 32; shift += 16)
    {
      uint64_t *start = (uint64_t *) calloc (1u << 16, sizeof *start), sum = 0;
      if (!start)
        {
          free (tmp);
          return 0;
        }
      for (uint64_t i = 0; i < n; i++)
        start[(src[i] >> shift) & 0xffff]++;
      for (uint32_t d = 0; d < (1u << 16); d++)
        {
          uint64_t count = start[d];
          start[d] = sum;
          sum += count;
        }
      for (uint64_t i = 0; i < n; i++)
        dst[start[(src[i] >> shift) & 0xffff]++] = src[i];
      free (start);
      uint32_t *swap = src;
      src = dst;
      dst = swap;
    }
  /* Two passes: the keys are back in @keys. */
  free (tmp);
  return 1;
}

/* Puts keys drawn by mdl_keys_draw in the distribution's order: ascending for "sorted",
 * descending for "reverse", as drawn for the others. Returns 0 when out of memory. */
static inline int
mdl_keys_arrange (uint32_t *keys, uint64_t n, MdlKeyDist dist)
{
  if (dist != MDL_KEYS_SORTED && dist != MDL_KEYS_REVERSE)
    return 1;
  if (!mdl_keys_sort (keys, n))
    return 0;
  for (uint64_t i = 0; dist == MDL_KEYS_REVERSE && i < n / 2; i++)
    {
      uint32_t t = keys[i];
      keys[i] = keys[n - 1 - i];
      keys[n - 1 - i] = t;
    }
  return 1;
}

/* Fills @keys with @n keys of @dist for @seed (n <= 2^32). Returns 0 when out of memory. */
static inline int
mdl_keys_fill (uint32_t *keys, uint64_t n, MdlKeyDist dist, uint64_t seed)
{
  for (uint64_t k = 0; k < n; k++)
    keys[k] = mdl_keys_draw (dist, seed, n, k);
  return mdl_keys_arrange (keys, n, dist);
}

/* Forward: the float bits of a key (below). */
static inline uint32_t mdl_keys_f32_bits (MdlKeyDist dist, uint32_t key);

/* mdl_keys_fill, then for @is_float each key replaced by its float's bits (mdl_keys_f32_bits). */
static inline int
mdl_keys_fill_typed (uint32_t *keys, uint64_t n, MdlKeyDist dist, uint64_t seed, int is_float)
{
  if (!mdl_keys_fill (keys, n, dist, seed))
    return 0;
  for (uint64_t k = 0; is_float && k < n; k++)
    keys[k] = mdl_keys_f32_bits (dist, keys[k]);
  return 1;
}

/* The float key of @key (below 2^31): its top 24 bits times 2^-24, exact, in [0, 1), so that the
 * order of the 32-bit keys is kept (keys that differ only in their low 7 bits tie). */
static inline float
mdl_keys_float (uint32_t key)
{
  return (float) (key >> 7) * (1.0f / 16777216.0f);
}

/* The bits of the float key of @key of @dist: mdl_keys_float of it, or for "special" the key itself
 * (already float bits). */
static inline uint32_t
mdl_keys_f32_bits (MdlKeyDist dist, uint32_t key)
{
  float f = mdl_keys_float (key);
  uint32_t bits;
  if (dist == MDL_KEYS_SPECIAL)
    return key;
  memcpy (&bits, &f, 4);
  return bits;
}

/* The float sorts run on unsigned words: mdl_keys_f32_order maps float bits to a word whose
 * unsigned order is IEEE 754's totalOrder (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN): a
 * negative float has every bit flipped, a positive one its sign bit. Equal words are equal bits,
 * which GPU-Quicksort needs (it writes the pivot's value over the keys equal to it: with float
 * compares -0 would come back as +0 and a NaN as the pivot). mdl_keys_f32_unorder inverts it.
 * Both run in CUDA kernels too (src/algos/cuda/float-keys.cu). */
#ifdef __CUDACC__
#define MDL_KEYS_HOST_DEVICE __host__ __device__
#else
#define MDL_KEYS_HOST_DEVICE
#endif

static inline MDL_KEYS_HOST_DEVICE uint32_t
mdl_keys_f32_order (uint32_t bits)
{
  return bits ^ ((uint32_t) ((int32_t) bits >> 31) | 0x80000000u);
}

static inline MDL_KEYS_HOST_DEVICE uint32_t
mdl_keys_f32_unorder (uint32_t word)
{
  return word ^ ((uint32_t) ((int32_t) ~word >> 31) | 0x80000000u);
}

/* The problems of @out (n keys) as the sort of @in: 0 when @out is @in sorted ascending; else the
 * number of positions where it differs from the reference sort (the first at *@first when
 * @first is not NULL), or UINT64_MAX when out of memory. */
static inline uint64_t
mdl_keys_check (const uint32_t *in, const uint32_t *out, uint64_t n, uint64_t *first)
{
  uint32_t *want = (uint32_t *) malloc (n ? n * sizeof *want : 1);
  uint64_t bad = 0;
  if (!want)
    return UINT64_MAX;
  memcpy (want, in, n * sizeof *want);
  if (!mdl_keys_sort (want, n))
    {
      free (want);
      return UINT64_MAX;
    }
  for (uint64_t i = 0; i < n; i++)
    if (want[i] != out[i] && bad++ == 0 && first)
      *first = i;
  free (want);
  return bad;
}

/* The problems of @out (n float keys, as bits) as the sort of @in (the same return as
 * mdl_keys_check): the reference is @in in totalOrder (mdl_keys_f32_order); @numeric compares a
 * position's floats by value (+0 == -0, the only freedom a float comparison sort has on inputs
 * without NaN), else by their bits. */
static inline uint64_t
mdl_keys_check_f32 (const uint32_t *in, const uint32_t *out, uint64_t n, int numeric,
                    uint64_t *first)
{
  uint32_t *want = (uint32_t *) malloc (n ? n * sizeof *want : 1);
  uint64_t bad = 0;
  if (!want)
    return UINT64_MAX;
  for (uint64_t i = 0; i < n; i++)
    want[i] = mdl_keys_f32_order (in[i]);
  if (!mdl_keys_sort (want, n))
    {
      free (want);
      return UINT64_MAX;
    }
  for (uint64_t i = 0; i < n; i++)
    {
      uint32_t w = mdl_keys_f32_unorder (want[i]);
      float a, b;
      memcpy (&a, &w, 4);
      memcpy (&b, &out[i], 4);
      if ((numeric ? a != b : w != out[i]) && bad++ == 0 && first)
        *first = i;
    }
  free (want);
  return bad;
}

/* The check of a sort of either key type: mdl_keys_check, or for @is_float the bit-exact
 * totalOrder check of mdl_keys_check_f32 (the seed sorts' own order). */
static inline uint64_t
mdl_keys_check_typed (const uint32_t *in, const uint32_t *out, uint64_t n, int is_float,
                      uint64_t *first)
{
  return is_float ? mdl_keys_check_f32 (in, out, n, 0, first) : mdl_keys_check (in, out, n, first);
}

/* The qsort comparators of the keys: 32-bit unsigned, and floats compared as numbers. */
static inline int
mdl_keys_cmp_u32 (const void *x, const void *y)
{
  uint32_t a = *(const uint32_t *) x, b = *(const uint32_t *) y;
  return (a > b) - (a < b);
}

static inline int
mdl_keys_cmp_f32 (const void *x, const void *y)
{
  float a = *(const float *) x, b = *(const float *) y;
  return (a > b) - (a < b);
}

#endif
