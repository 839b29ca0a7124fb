/* Private to src/algos: compressed posting lists (Capannini's thesis §3.3.4): realistic d-gap
 * generators, the two codecs' CPU encoders (VS: variable-length bunches of one bit width each;
 * P4D: bunches of n̄ entries of b bits with one exception set per block) and the sequential
 * reference decoder. The SIMT decoder (src/algos/simt/postings.c) and its CUDA twin
 * (src/algos/cuda/postings.cu) decode this layout and are checked against the encoder's input.
 * Spec: kmodel-capannini.md §4.5 and V14; docs/models/postings.md. */
#ifndef MDL_POSTINGS_H
#define MDL_POSTINGS_H

#include <glib.h>

/* The d-gap distributions: geometric (a term in a fraction 1/(mean+1) of the documents, placed at
 * random: the Bernoulli model of inverted files) and Zipf-like (a discretized Pareto law of
 * exponent 1.5, heavy-tailed as the gaps of clustered terms). */
typedef enum { MDL_GAPS_GEOMETRIC = 0, MDL_GAPS_ZIPF } MdlGapDist;
#define MDL_GAPS_CHOICES "geometric|zipf"

/* Fills @gaps[0..@n) with d-gaps of @dist (@mean: the geometric mean gap) from @seed. Zipf gaps
 * are capped at 2^24 − 1 so that a long list's document ids stay 32-bit. */
void mdl_postings_gaps (guint32 *gaps, guint64 n, MdlGapDist dist, guint mean, guint64 seed);

/* VS bunches longer than this are not formed by the optimal partition (a bunch's count then
 * fits its 12-bit signature with the 6-bit width). */
#define MDL_VS_MAX_BUNCH 64
/* The signature bits a VS bunch costs in the optimal partition: count and width. */
#define MDL_VS_SIGNATURE_BITS 12
/* P4D's bunch length n̄ (the thesis's tests use 32). */
#define MDL_P4D_NBAR 32

/* An encoded list. Bunches are grouped k to a block (a stream element); the bunch arrays are
 * padded with empty bunches (count 0) to a multiple of k. Codeword c of bunch i holds @width[i]
 * bits at bit block_bit[B] + h_i + c·width[i] of @words (bit p is bit p mod 32 of word p / 32),
 * h_i the bits of the bunches of its block before it; it decodes to output block_out[B] + g_i + c.
 * P4D: the exceptions of block B are [block_exc[B], block_exc[B+1]) of @exc_pos (position in the
 * block) and @exc_high (the bits above the bunch's width); VS has none. */
typedef struct {
  guint64 n;
  guint k;
  guint64 n_bunches;
  guint32 *count;
  guint32 *width;
  guint64 n_blocks;
  guint64 *block_bit;   /* n_blocks + 1 entries */
  guint64 *block_out;   /* n_blocks + 1 entries */
  guint64 *block_exc;   /* n_blocks + 1 entries */
  guint32 *words;       /* n_words, the last two spare so that a decoder may read past the end */
  guint64 n_words;
  guint32 *exc_pos;
  guint32 *exc_high;
  guint64 n_exc;
} MdlPostings;

/* VS over @v[0..@n) with blocks of @k bunches. @sizes == NULL: the partition of least bits
 * (dynamic programming over bunches of at most MDL_VS_MAX_BUNCH values, each costing
 * MDL_VS_SIGNATURE_BITS plus count × width); else bunch lengths @sizes[0..@n_sizes) taken in
 * turn, cyclically (each ≥ 1), the last bunch cut at n. */
MdlPostings *mdl_postings_encode_vs (const guint32 *v, guint64 n, guint k, const guint32 *sizes,
                              guint n_sizes);
/* P4D over @v[0..@n): bunches of @nbar values (the last one shorter), each of the least width b
 * that holds at least 90% of its values; the others keep their low b bits in the bunch and their
 * high bits in their block's exception set. */
MdlPostings *mdl_postings_encode_p4d (const guint32 *v, guint64 n, guint k, guint nbar);
/* The sequential reference decoder: @out[0..p->n). */
void mdl_postings_decode (const MdlPostings *p, guint32 *out);
/* Bits [@bit, @bit + @s) of @words as an integer (@s ≤ 32; reads word bit/32 + 1 when s > 0). */
guint32 mdl_postings_bitcpy (const guint32 *words, guint64 bit, guint s);
/* The largest number of outputs of one block (shared memory the decoder stages them in). */
guint64 mdl_postings_max_block (const MdlPostings *p);
void mdl_postings_free (MdlPostings *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlPostings, mdl_postings_free)

#endif
