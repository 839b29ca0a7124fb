/* Private to src/algos: compressed posting lists (Capannini's thesis §3.3.4): realistic d-gap
 * generators, the two codecs' CPU encoders (VS: variable-length bunches of one bit width each;
 * P4D: bunches of n̄ entries of b bits with one exception set per block) and the sequential
 * reference decoder. The SIMT decoder (src/algos/simt/postings.c) and its CUDA twin
 * (src/algos/cuda/postings.cu) decode this layout and are checked against the encoder's input.
 * Only <math.h>, <stdint.h>, <stdlib.h> and <string.h>: nvcc compiles it too (no GLib on the GPU
 * machine), as src/algos/keys.h. Spec: kmodel-capannini.md §4.5 and V14;
 * docs/models/postings.md. */
#ifndef MDL_POSTINGS_H
#define MDL_POSTINGS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/splitmix.h"

/* BITCPY runs in the CUDA twin's kernel too. */
#ifdef __CUDACC__
#define MDL_POSTINGS_HD __host__ __device__
#else
#define MDL_POSTINGS_HD
#endif

/* The d-gap distributions: geometric (a term in a fraction 1/(mean+1) of the documents, placed at
 * random: the Bernoulli model of inverted files) and Zipf-like (a discretized Pareto law of
 * exponent 1.5, heavy-tailed as the gaps of clustered terms). */
typedef enum { MDL_GAPS_GEOMETRIC = 0, MDL_GAPS_ZIPF } MdlGapDist;
#define MDL_GAPS_CHOICES "geometric|zipf"
/* Zipf gaps are capped here so that a long list's document ids stay 32-bit. */
#define MDL_GAPS_CAP ((1u << 24) - 1)

/* VS bunches longer than this are not formed by the optimal partition (a bunch's count then
 * fits its 12-bit signature with the 6-bit width). */
#define MDL_VS_MAX_BUNCH 64
/* The signature bits a VS bunch costs in the optimal partition: count and width. */
#define MDL_VS_SIGNATURE_BITS 12
/* P4D's bunch length n̄ (the thesis's tests use 32). */
#define MDL_P4D_NBAR 32

/* An encoded list. Bunches are grouped k to a block (a stream element); the bunch arrays are
 * padded with empty bunches (count 0) to a multiple of k. Codeword c of bunch i holds width[i]
 * bits at bit block_bit[B] + h_i + c·width[i] of @words (bit p is bit p mod 32 of word p / 32),
 * h_i the bits of the bunches of its block before it; it decodes to output block_out[B] + g_i + c.
 * P4D: the exceptions of block B are [block_exc[B], block_exc[B+1]) of @exc_pos (position in the
 * block) and @exc_high (the bits above the bunch's width); VS has none. */
typedef struct {
  uint64_t n;
  unsigned k;
  unsigned nbar;        /* P4D's n̄; 0 for VS */
  uint64_t n_bunches;
  uint32_t *count;
  uint32_t *width;
  uint64_t n_blocks;
  uint64_t *block_bit;  /* n_blocks + 1 entries */
  uint64_t *block_out;  /* n_blocks + 1 entries */
  uint64_t *block_exc;  /* n_blocks + 1 entries */
  uint32_t *words;      /* n_words, the last two spare so that a decoder may read past the end */
  uint64_t n_words;
  uint32_t *exc_pos;
  uint32_t *exc_high;
  uint64_t n_exc;
} MdlPostings;

/* Fills @gaps[0..@n) with d-gaps of @dist (@mean: the geometric mean gap) from @seed. */
static inline void
mdl_postings_gaps (uint32_t *gaps, uint64_t n, MdlGapDist dist, unsigned mean, uint64_t seed)
{
  uint64_t state = seed;
  /* geometric on {0, 1, ...} with mean m: success probability 1/(m+1) */
  double log_q = log1p (-1.0 / ((double) mean + 1.0));
  for (uint64_t i = 0; i < n; i++)
    {
      /* uniform in (0, 1]: its logarithm is finite */
      double u = ((double) (mdl_splitmix64 (&state) >> 11) + 1.0) / 9007199254740992.0, g;
      if (dist == MDL_GAPS_GEOMETRIC)
        g = mean == 0 ? 0.0 : floor (log (u) / log_q);
      else
        g = floor (pow (u, -1.0 / 1.5)) - 1.0;
      gaps[i] = g > MDL_GAPS_CAP ? MDL_GAPS_CAP : (uint32_t) g;
    }
}

/* The bits of @v: 0 for 0. */
static inline unsigned
mdl_postings_bits (uint32_t v)
{
  return v == 0 ? 0 : 32 - (unsigned) __builtin_clz (v);
}

/* Bits [@bit, @bit + @s) of @words as an integer (@s ≤ 32; reads word bit/32 + 1 when s > 0). */
static inline MDL_POSTINGS_HD uint32_t
mdl_postings_bitcpy (const uint32_t *words, uint64_t bit, unsigned s)
{
  uint64_t two;
  if (s == 0)
    return 0;
  two = (uint64_t) words[bit / 32] | (uint64_t) words[bit / 32 + 1] << 32;
  return (uint32_t) ((two >> (bit % 32)) & ((UINT64_C (1) << s) - 1));
}

/* An encoding of the @n_counts bunches of lengths @counts over @n values: arrays allocated and
 * padded to whole blocks of @k, widths zero. */
static inline MdlPostings *
mdl_postings_alloc (uint64_t n, unsigned k, unsigned nbar, const uint32_t *counts,
                    uint64_t n_counts)
{
  MdlPostings *p = (MdlPostings *) calloc (1, sizeof *p);
  p->n = n;
  p->k = k;
  p->nbar = nbar;
  p->n_blocks = (n_counts + k - 1) / k;
  p->n_bunches = p->n_blocks * k;
  p->count = (uint32_t *) calloc (p->n_bunches + 1, sizeof (uint32_t));
  memcpy (p->count, counts, n_counts * sizeof (uint32_t));
  p->width = (uint32_t *) calloc (p->n_bunches + 1, sizeof (uint32_t));
  p->block_bit = (uint64_t *) calloc (p->n_blocks + 1, sizeof (uint64_t));
  p->block_out = (uint64_t *) calloc (p->n_blocks + 1, sizeof (uint64_t));
  p->block_exc = (uint64_t *) calloc (p->n_blocks + 1, sizeof (uint64_t));
  p->exc_pos = (uint32_t *) calloc (n + 1, sizeof (uint32_t));
  p->exc_high = (uint32_t *) calloc (n + 1, sizeof (uint32_t));
  return p;
}

/* Packs the low width bits of @v's values bunch by bunch (widths set) and fills the blocks'
 * first bits and outputs. */
static inline void
mdl_postings_pack (MdlPostings *p, const uint32_t *v)
{
  uint64_t bits = 0, at = 0, out = 0;
  for (uint64_t b = 0; b < p->n_bunches; b++)
    bits += (uint64_t) p->count[b] * p->width[b];
  /* two spare words: BITCPY reads word bit/32 + 1, and a width-0 codeword may sit at the end */
  p->n_words = (bits + 31) / 32 + 2;
  p->words = (uint32_t *) calloc (p->n_words, sizeof (uint32_t));
  for (uint64_t b = 0; b < p->n_bunches; b++)
    {
      if (b % p->k == 0)
        {
          p->block_bit[b / p->k] = at;
          p->block_out[b / p->k] = out;
        }
      for (uint32_t c = 0; c < p->count[b]; c++, at += p->width[b])
        {
          uint64_t s = p->width[b], x = (uint64_t) (v[out + c] & (uint32_t) ((UINT64_C (1) << s) - 1));
          p->words[at / 32] |= (uint32_t) (x << (at % 32));
          p->words[at / 32 + 1] |= (uint32_t) ((x << (at % 32)) >> 32);
        }
      out += p->count[b];
    }
  p->block_bit[p->n_blocks] = at;
  p->block_out[p->n_blocks] = out;
}

/* The VS partition of least bits into @len (n + 1 entries: len[i] is the last bunch of the best
 * partition of v[0..i)); returns the number of bunches. */
static inline uint64_t
mdl_postings_vs_optimal (const uint32_t *v, uint64_t n, uint32_t *len)
{
  uint64_t *best = (uint64_t *) malloc ((n + 1) * sizeof (uint64_t)), bunches = 0;
  best[0] = 0;
  for (uint64_t i = 1; i <= n; i++)
    {
      unsigned width = 0;
      best[i] = UINT64_MAX;
      for (uint64_t l = 1; l <= MDL_VS_MAX_BUNCH && l <= i; l++)
        {
          uint64_t cost;
          unsigned b = mdl_postings_bits (v[i - l]);
          width = b > width ? b : width;
          cost = best[i - l] + MDL_VS_SIGNATURE_BITS + l * width;
          if (cost < best[i])
            {
              best[i] = cost;
              len[i] = (uint32_t) l;
            }
        }
    }
  free (best);
  for (uint64_t i = n; i > 0; i -= len[i])
    bunches++;
  return bunches;
}

/* VS over @v[0..@n) with blocks of @k bunches. @sizes == NULL: the partition of least bits
 * (dynamic programming over bunches of at most MDL_VS_MAX_BUNCH values, each costing
 * MDL_VS_SIGNATURE_BITS plus count × width); else bunch lengths @sizes[0..@n_sizes) taken in
 * turn, cyclically (each ≥ 1), the last bunch cut at n. */
static inline MdlPostings *
mdl_postings_encode_vs (const uint32_t *v, uint64_t n, unsigned k, const uint32_t *sizes,
                        unsigned n_sizes)
{
  uint32_t *counts = (uint32_t *) calloc (n + 1, sizeof (uint32_t));
  uint64_t m = 0, out = 0;
  MdlPostings *p;
  if (sizes == NULL)
    {
      uint32_t *len = (uint32_t *) calloc (n + 1, sizeof (uint32_t));
      m = mdl_postings_vs_optimal (v, n, len);
      for (uint64_t i = n, j = m; i > 0; i -= len[i])
        counts[--j] = len[i];
      free (len);
    }
  else
    for (; out < n; out += counts[m++])
      counts[m] = (uint32_t) (n - out < sizes[m % n_sizes] ? n - out : sizes[m % n_sizes]);
  p = mdl_postings_alloc (n, k, 0, counts, m);
  free (counts);
  out = 0;
  for (uint64_t b = 0; b < m; out += p->count[b], b++)
    for (uint32_t c = 0; c < p->count[b]; c++)
      {
        unsigned bits = mdl_postings_bits (v[out + c]);
        p->width[b] = bits > p->width[b] ? bits : p->width[b];
      }
  mdl_postings_pack (p, v);
  return p;
}

/* The least b for which at least 90% of @v[0..@len) fit in b bits. */
static inline unsigned
mdl_postings_p4d_width (const uint32_t *v, unsigned len)
{
  unsigned hist[33] = { 0 }, fit = 0, need = (9 * len + 9) / 10;
  for (unsigned c = 0; c < len; c++)
    hist[mdl_postings_bits (v[c])]++;
  for (unsigned b = 0; b <= 32; b++)
    if ((fit += hist[b]) >= need)
      return b;
  return 32;
}

/* P4D over @v[0..@n): bunches of @nbar values (the last one shorter), each of the least width b
 * that holds at least 90% of its values; the others keep their low b bits in the bunch and their
 * high bits in their block's exception set. */
static inline MdlPostings *
mdl_postings_encode_p4d (const uint32_t *v, uint64_t n, unsigned k, unsigned nbar)
{
  uint64_t m = (n + nbar - 1) / nbar;
  uint32_t *counts = (uint32_t *) malloc ((m + 1) * sizeof (uint32_t));
  MdlPostings *p;
  for (uint64_t b = 0; b < m; b++)
    counts[b] = (uint32_t) (n - b * nbar < nbar ? n - b * nbar : nbar);
  p = mdl_postings_alloc (n, k, nbar, counts, m);
  free (counts);
  for (uint64_t b = 0, out = 0; b < p->n_bunches; out += p->count[b], b++)
    {
      p->width[b] = mdl_postings_p4d_width (v + out, p->count[b]);
      if (b % k == 0)
        p->block_exc[b / k] = p->n_exc;
      for (uint32_t c = 0; c < p->count[b]; c++)
        if (mdl_postings_bits (v[out + c]) > p->width[b])
          {
            p->exc_pos[p->n_exc] = (uint32_t) ((b % k) * nbar + c);
            p->exc_high[p->n_exc++] = v[out + c] >> p->width[b];
          }
    }
  p->block_exc[p->n_blocks] = p->n_exc;
  mdl_postings_pack (p, v);
  return p;
}

/* The sequential reference decoder: @out[0..p->n). */
static inline void
mdl_postings_decode (const MdlPostings *p, uint32_t *out)
{
  for (uint64_t blk = 0; blk < p->n_blocks; blk++)
    {
      uint64_t bit = p->block_bit[blk], o = p->block_out[blk];
      for (uint64_t b = blk * p->k; b < (blk + 1) * p->k; b++)
        for (uint32_t c = 0; c < p->count[b]; c++, bit += p->width[b])
          out[o++] = mdl_postings_bitcpy (p->words, bit, p->width[b]);
      for (uint64_t e = p->block_exc[blk]; e < p->block_exc[blk + 1]; e++)
        {
          uint32_t at = p->exc_pos[e];
          out[p->block_out[blk] + at] |= p->exc_high[e] << p->width[blk * p->k + at / p->nbar];
        }
    }
}

/* The largest number of outputs of one block (shared memory the decoders stage them in). */
static inline uint64_t
mdl_postings_max_block (const MdlPostings *p)
{
  uint64_t most = 0;
  for (uint64_t b = 0; b < p->n_blocks; b++)
    if (p->block_out[b + 1] - p->block_out[b] > most)
      most = p->block_out[b + 1] - p->block_out[b];
  return most;
}

/* NULL is fine. */
static inline void
mdl_postings_free (MdlPostings *p)
{
  if (p == NULL)
    return;
  free (p->count);
  free (p->width);
  free (p->block_bit);
  free (p->block_out);
  free (p->block_exc);
  free (p->words);
  free (p->exc_pos);
  free (p->exc_high);
  free (p);
}

#endif
