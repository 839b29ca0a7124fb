/* The CUDA twin of src/algos/simt/postings.c: Capannini's GPU decoder of VS- and P4D-coded
 * posting lists (thesis §3.3.4, Algorithms 8-10, approach ii). One block of k threads is one
 * stream element decoding one block of k bunches: signatures into shared memory, PPSUM_k
 * (Hillis-Steele; k ≤ 32 so one warp, with barriers between reading and writing, which the
 * hardware needs since Volta's independent thread scheduling), EXTRACTBUNCH bunch by bunch with
 * lane j decoding codewords j, j + k, ... into shared memory, P4D's exception pass, and the flush
 * of the block's outputs in k-word runs. The host encodes with src/algos/postings.h (the same
 * encoder as the SIMT twin) and checks the output against the encoder's input. */
#include <cstring>

#include "twin.h"
#include "../postings.h"

/* The encoding serialized into Buffers::in: this header, then each array at its byte offset
 * (8-byte aligned). */
struct Layout {
  uint64_t count, width, block_bit, block_out, block_exc, words, exc_pos, exc_high;
  uint64_t n_blocks, max_block;
  uint32_t k, nbar;
};

__global__ void
postings_decode (const unsigned char *blob, unsigned *out)
{
  extern __shared__ unsigned sh[];
  const Layout L = *(const Layout *) blob;
  const uint32_t *count = (const uint32_t *) (blob + L.count);
  const uint32_t *width = (const uint32_t *) (blob + L.width);
  const uint64_t *block_bit = (const uint64_t *) (blob + L.block_bit);
  const uint64_t *block_out = (const uint64_t *) (blob + L.block_out);
  const uint64_t *block_exc = (const uint64_t *) (blob + L.block_exc);
  const uint32_t *words = (const uint32_t *) (blob + L.words);
  unsigned k = blockDim.x, j = threadIdx.x;
  unsigned *N = sh, *S = sh + k, *G = sh + 2 * k, *H = sh + 3 * k, *O = sh + 4 * k;
  uint64_t B = blockIdx.x, bitbase = block_bit[B], first = block_out[B];
  unsigned n = count[B * k + j], s = width[B * k + j];
  N[j] = n;
  S[j] = s;
  G[j] = n;
  H[j] = n * s;
  __syncthreads ();
  /* PPSUM_k, inclusive; the exclusive sums below subtract the bunch's own term */
  for (unsigned d = 1; d < k; d *= 2)
    {
      unsigned g = j + d < k ? G[j] + G[j + d] : 0, h = j + d < k ? H[j] + H[j + d] : 0;
      __syncthreads ();
      if (j + d < k)
        {
          G[j + d] = g;
          H[j + d] = h;
        }
      __syncthreads ();
    }
  for (unsigned i = 0; i < k; i++)
    {
      unsigned n_i = N[i], s_i = S[i], h = H[i] - n_i * s_i;
      unsigned g = L.nbar ? L.nbar * i : G[i] - n_i;
      for (unsigned c = j; c < n_i; c += k)
        O[g + c] = mdl_postings_bitcpy (words, bitbase + h + (uint64_t) c * s_i, s_i);
    }
  __syncthreads ();
  if (L.nbar)
    {
      const uint32_t *pos = (const uint32_t *) (blob + L.exc_pos);
      const uint32_t *high = (const uint32_t *) (blob + L.exc_high);
      for (uint64_t e = block_exc[B] + j; e < block_exc[B + 1]; e += k)
        O[pos[e]] |= high[e] << S[pos[e] / L.nbar];
      __syncthreads ();
    }
  for (uint64_t c = j; c < block_out[B + 1] - first; c += k)
    out[first + c] = O[c];
}

static bool
postings_validate (const Case &c, std::string *why)
{
  long k = c.num ("k", 16), mean = c.num ("mean", 16);
  std::string bunches = c.text ("bunches", "opt");
  if (c.n < 1 || c.n > (1L << 26))
    return mdl_cuda_refuse (why, "n must be 1..2^26");
  if (k < 2 || k > 32 || (k & (k - 1)) != 0)
    return mdl_cuda_refuse (why, "k must be a power of two, 2..32");
  if (mean < 0 || mean > (1L << 20))
    return mdl_cuda_refuse (why, "mean must be 0..2^20");
  if (bunches != "opt")
    for (size_t at = 0; at <= bunches.size ();)
      {
        size_t dot = bunches.find ('.', at);
        std::string part = bunches.substr (at, dot == std::string::npos ? std::string::npos
                                                                          : dot - at);
        long v = part.empty () || part.find_first_not_of ("0123456789") != std::string::npos
                   ? 0 : atol (part.c_str ());
        if (v < 1 || v > 1024)
          return mdl_cuda_refuse (why, "bunches must be opt or lengths 1..1024 such as 5.16.33.1");
        at = dot == std::string::npos ? bunches.size () + 1 : dot + 1;
      }
  return mdl_cuda_choice_ok (c, "dist", "geometric", MDL_GAPS_CHOICES, why);
}

/* The case's encoding: VS unless the spec names postings/p4d. */
static MdlPostings *
encode (const Case &c, const uint32_t *gaps)
{
  unsigned k = (unsigned) c.num ("k", 16);
  std::string bunches = c.text ("bunches", "opt");
  std::vector<uint32_t> sizes;
  if (c.spec.rfind ("postings/p4d", 0) == 0)
    return mdl_postings_encode_p4d (gaps, (uint64_t) c.n, k, MDL_P4D_NBAR);
  for (size_t at = 0; bunches != "opt" && at < bunches.size ();)
    {
      size_t dot = bunches.find ('.', at);
      sizes.push_back ((uint32_t) atol (bunches.c_str () + at));
      at = dot == std::string::npos ? bunches.size () : dot + 1;
    }
  return mdl_postings_encode_vs (gaps, (uint64_t) c.n, k, sizes.empty () ? nullptr : sizes.data (),
                                 (unsigned) sizes.size ());
}

/* Appends @bytes bytes of @src to @blob at an 8-byte boundary; returns their offset. */
static uint64_t
put (std::vector<unsigned char> &blob, const void *src, size_t bytes)
{
  uint64_t at = (blob.size () + 7) / 8 * 8;
  blob.resize (at + bytes + 8);
  if (bytes)
    memcpy (&blob[at], src, bytes);
  return at;
}

static void
postings_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  std::vector<uint32_t> gaps ((size_t) c.n);
  MdlPostings *p;
  Layout L;
  int dist = c.text ("dist", "geometric") == "zipf" ? MDL_GAPS_ZIPF : MDL_GAPS_GEOMETRIC;
  mdl_postings_gaps (gaps.data (), (uint64_t) c.n, (MdlGapDist) dist,
                     (unsigned) c.num ("mean", 16), mdl_splitmix64 (rng));
  p = encode (c, gaps.data ());
  b.in.assign (sizeof L, 0);
  L.count = put (b.in, p->count, 4 * p->n_bunches);
  L.width = put (b.in, p->width, 4 * p->n_bunches);
  L.block_bit = put (b.in, p->block_bit, 8 * (p->n_blocks + 1));
  L.block_out = put (b.in, p->block_out, 8 * (p->n_blocks + 1));
  L.block_exc = put (b.in, p->block_exc, 8 * (p->n_blocks + 1));
  L.words = put (b.in, p->words, 4 * p->n_words);
  L.exc_pos = put (b.in, p->exc_pos, 4 * p->n_exc);
  L.exc_high = put (b.in, p->exc_high, 4 * p->n_exc);
  L.n_blocks = p->n_blocks;
  L.max_block = mdl_postings_max_block (p);
  L.k = p->k;
  L.nbar = p->nbar;
  memcpy (&b.in[0], &L, sizeof L);
  b.in2.resize (4 * (size_t) c.n);
  memcpy (b.in2.data (), gaps.data (), b.in2.size ());
  b.out.assign (4 * (size_t) c.n, MDL_CUDA_POISON);
  mdl_postings_free (p);
  CUDA_OK (cudaFuncSetAttribute ((const void *) postings_decode,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int) (4 * (4 * L.k + L.max_block))));
}

static int
postings_launch (const Case &, Buffers &b)
{
  Layout L;
  memcpy (&L, b.in.data (), sizeof L);
  postings_decode<<<(unsigned) L.n_blocks, L.k, 4 * (4 * L.k + L.max_block)>>> (b.d_in,
                                                                              (unsigned *) b.d_out);
  return 1;
}

/* The output against the encoder's input (b.in2), the first difference on stderr. */
static long
postings_check (const Case &c, const Buffers &b)
{
  for (size_t i = 0; i < (size_t) c.n; i++)
    if (mdl_cuda_word (b.out, i) != mdl_cuda_word (b.in2, i))
      {
        fprintf (stderr, "gpu-kernels: %s: integer %zu decodes to %u, the encoder's input has %u\n",
                 c.spec.c_str (), i, mdl_cuda_word (b.out, i), mdl_cuda_word (b.in2, i));
        break;
      }
  return mdl_cuda_count_diff (b.in2, b.out);
}

static std::string
postings_kernel (const Case &)
{
  return "postings_decode";
}

const CudaTwin cuda_twin_postings_vs = { postings_validate, postings_prepare, postings_launch,
                                         postings_check, postings_kernel };
const CudaTwin cuda_twin_postings_p4d = { postings_validate, postings_prepare, postings_launch,
                                          postings_check, postings_kernel };
