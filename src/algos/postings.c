/* Posting-list codecs on the CPU: d-gap generators, the VS and P4D encoders, the reference
 * decoder (postings.h). */
#include "algos/postings.h"

#include <math.h>
#include <string.h>

#include "core/splitmix.h"

#define ZIPF_CAP ((1u << 24) - 1)

/* A uniform double in (0, 1]: never 0, so that its logarithm is finite. */
static double
unit_draw (guint64 *state)
{
  return ((double) (mdl_splitmix64 (state) >> 11) + 1.0) / 9007199254740992.0;
}

void
mdl_postings_gaps (guint32 *gaps, guint64 n, MdlGapDist dist, guint mean, guint64 seed)
{
  guint64 state = seed;
  /* Geometric on {0, 1, ...} with mean m: success probability 1/(m+1). */
  double log_q = log1p (-1.0 / ((double) mean + 1.0));
  for (guint64 i = 0; i < n; i++)
    {
      double u = unit_draw (&state), g;
      if (dist == MDL_GAPS_GEOMETRIC)
        g = mean == 0 ? 0.0 : floor (log (u) / log_q);
      else
        g = floor (pow (u, -1.0 / 1.5)) - 1.0;
      gaps[i] = g > ZIPF_CAP ? ZIPF_CAP : (guint32) g;
    }
}

static guint
bits_of (guint32 v)
{
  return v == 0 ? 0 : 32 - (guint) __builtin_clz (v);
}

guint32
mdl_postings_bitcpy (const guint32 *words, guint64 bit, guint s)
{
  guint64 w = bit / 32;
  guint sh = (guint) (bit % 32);
  guint64 two;
  if (s == 0)
    return 0;
  two = (guint64) words[w] | (guint64) words[w + 1] << 32;
  return (guint32) ((two >> sh) & ((G_GUINT64_CONSTANT (1) << s) - 1));
}

/* Appends bits [0, s) of @v at bit *@at of @words (zero-filled, long enough). */
static void
bitput (guint32 *words, guint64 *at, guint32 v, guint s)
{
  guint64 w = *at / 32;
  guint sh = (guint) (*at % 32);
  guint64 x = (guint64) (s == 32 ? v : v & ((1u << s) - 1)) << sh;
  words[w] |= (guint32) x;
  if (sh + s > 32)
    words[w + 1] |= (guint32) (x >> 32);
  *at += s;
}

/* An encoding of @n_bunches bunches (lengths in @count) of @v: the arrays allocated and padded to
 * whole blocks of @k, widths left for the caller. */
static MdlPostings *
postings_new (guint64 n, guint k, GArray *count)
{
  MdlPostings *p = g_new0 (MdlPostings, 1);
  p->n = n;
  p->k = k;
  p->n_blocks = (count->len + k - 1) / k;
  p->n_bunches = p->n_blocks * k;
  p->count = g_new0 (guint32, p->n_bunches);
  memcpy (p->count, count->data, count->len * sizeof (guint32));
  p->width = g_new0 (guint32, p->n_bunches);
  p->block_bit = g_new0 (guint64, p->n_blocks + 1);
  p->block_out = g_new0 (guint64, p->n_blocks + 1);
  p->block_exc = g_new0 (guint64, p->n_blocks + 1);
  return p;
}

/* Packs the bunches' low width bits of @v (widths set) and fills the block offsets. */
static void
postings_pack (MdlPostings *p, const guint32 *v)
{
  guint64 bits = 0, at = 0, out = 0;
  for (guint64 b = 0; b < p->n_bunches; b++)
    bits += (guint64) p->count[b] * p->width[b];
  /* two spare words: BITCPY reads word bit/32 + 1, and a width-0 codeword may sit at the end */
  p->n_words = (bits + 31) / 32 + 2;
  p->words = g_new0 (guint32, p->n_words);
  for (guint64 b = 0; b < p->n_bunches; b++)
    {
      if (b % p->k == 0)
        {
          p->block_bit[b / p->k] = at;
          p->block_out[b / p->k] = out;
        }
      for (guint32 c = 0; c < p->count[b]; c++)
        bitput (p->words, &at, v[out + c], p->width[b]);
      out += p->count[b];
    }
  p->block_bit[p->n_blocks] = at;
  p->block_out[p->n_blocks] = out;
}

/* The VS partition of least bits: bunch lengths, in order. */
static GArray *
vs_optimal (const guint32 *v, guint64 n)
{
  guint64 *best = g_new (guint64, n + 1);
  guint32 *len = g_new (guint32, n + 1);
  GArray *count = g_array_new (FALSE, FALSE, sizeof (guint32));
  best[0] = 0;
  for (guint64 i = 1; i <= n; i++)
    {
      guint width = 0;
      best[i] = G_MAXUINT64;
      for (guint64 l = 1; l <= MDL_VS_MAX_BUNCH && l <= i; l++)
        {
          guint64 cost;
          width = MAX (width, bits_of (v[i - l]));
          cost = best[i - l] + MDL_VS_SIGNATURE_BITS + l * width;
          if (cost < best[i])
            {
              best[i] = cost;
              len[i] = (guint32) l;
            }
        }
    }
  for (guint64 i = n; i > 0; i -= len[i])
    g_array_append_val (count, len[i]);
  for (guint a = 0, b = count->len; a + 1 < b; a++, b--)
    {
      guint32 t = g_array_index (count, guint32, a);
      g_array_index (count, guint32, a) = g_array_index (count, guint32, b - 1);
      g_array_index (count, guint32, b - 1) = t;
    }
  g_free (best);
  g_free (len);
  return count;
}

MdlPostings *
mdl_postings_encode_vs (const guint32 *v, guint64 n, guint k, const guint32 *sizes, guint n_sizes)
{
  GArray *count;
  MdlPostings *p;
  guint64 out = 0;
  if (sizes == NULL)
    count = vs_optimal (v, n);
  else
    {
      count = g_array_new (FALSE, FALSE, sizeof (guint32));
      for (guint64 i = 0; out < n; i++)
        {
          guint32 l = (guint32) MIN ((guint64) sizes[i % n_sizes], n - out);
          g_array_append_val (count, l);
          out += l;
        }
    }
  p = postings_new (n, k, count);
  out = 0;
  for (guint b = 0; b < count->len; b++)
    {
      for (guint32 c = 0; c < p->count[b]; c++)
        p->width[b] = MAX (p->width[b], bits_of (v[out + c]));
      out += p->count[b];
    }
  g_array_free (count, TRUE);
  postings_pack (p, v);
  return p;
}

/* The least b for which at least 90% of @v[0..@len) fit in b bits. */
static guint
p4d_width (const guint32 *v, guint len)
{
  guint hist[33] = { 0 }, fit = 0, need = (9 * len + 9) / 10;
  for (guint c = 0; c < len; c++)
    hist[bits_of (v[c])]++;
  for (guint b = 0; b <= 32; b++)
    if ((fit += hist[b]) >= need)
      return b;
  return 32;
}

MdlPostings *
mdl_postings_encode_p4d (const guint32 *v, guint64 n, guint k, guint nbar)
{
  GArray *count = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *pos = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *high = g_array_new (FALSE, FALSE, sizeof (guint32));
  MdlPostings *p;
  for (guint64 out = 0; out < n; out += nbar)
    {
      guint32 l = (guint32) MIN ((guint64) nbar, n - out);
      g_array_append_val (count, l);
    }
  p = postings_new (n, k, count);
  g_array_free (count, TRUE);
  for (guint64 b = 0, out = 0; b < p->n_bunches; out += p->count[b], b++)
    {
      p->width[b] = p4d_width (v + out, p->count[b]);
      if (b % k == 0)
        p->block_exc[b / k] = pos->len;
      for (guint32 c = 0; c < p->count[b]; c++)
        if (bits_of (v[out + c]) > p->width[b])
          {
            guint32 at = (guint32) ((b % k) * nbar + c), hi = v[out + c] >> p->width[b];
            g_array_append_val (pos, at);
            g_array_append_val (high, hi);
          }
    }
  p->block_exc[p->n_blocks] = pos->len;
  p->n_exc = pos->len;
  p->exc_pos = (guint32 *) g_array_free (pos, FALSE);
  p->exc_high = (guint32 *) g_array_free (high, FALSE);
  postings_pack (p, v);
  return p;
}

void
mdl_postings_decode (const MdlPostings *p, guint32 *out)
{
  for (guint64 blk = 0; blk < p->n_blocks; blk++)
    {
      guint64 bit = p->block_bit[blk], o = p->block_out[blk];
      for (guint64 b = blk * p->k; b < (blk + 1) * p->k; b++)
        for (guint32 c = 0; c < p->count[b]; c++, bit += p->width[b])
          out[o++] = mdl_postings_bitcpy (p->words, bit, p->width[b]);
      for (guint64 e = p->block_exc[blk]; e < p->block_exc[blk + 1]; e++)
        {
          guint32 at = p->exc_pos[e];
          /* The bunch of position at: the bunches before it in the block are full (n̄ each). */
          guint64 b = blk * p->k + at / p->count[blk * p->k];
          out[p->block_out[blk] + at] |= p->exc_high[e] << p->width[b];
        }
    }
}

guint64
mdl_postings_max_block (const MdlPostings *p)
{
  guint64 most = 0;
  for (guint64 b = 0; b < p->n_blocks; b++)
    most = MAX (most, p->block_out[b + 1] - p->block_out[b]);
  return most;
}

void
mdl_postings_free (MdlPostings *p)
{
  if (p == NULL)
    return;
  g_free (p->count);
  g_free (p->width);
  g_free (p->block_bit);
  g_free (p->block_out);
  g_free (p->block_exc);
  g_free (p->words);
  g_free (p->exc_pos);
  g_free (p->exc_high);
  g_free (p);
}
