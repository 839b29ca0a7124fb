/* The baselines a GPU experiment measures beside the algorithms (MDL_GPU_BASELINES in
 * src/algos/gpu-algos.h): CUB's reduction and inclusive scan of n 32-bit words (the libraries'
 * best), the device-to-device copy of n words (the copy bandwidth: the physical limit a
 * bandwidth-bound kernel is measured against) and a plain kernel in which thread i reads word i
 * and writes it (the copy as a kernel reaches it). Each is checked against the CPU: the sum, the
 * inclusive prefix sums, the copy. CUB's temporary storage is sized in prepare() and travels as
 * the second input (in2), so that the harness allocates it outside the timed launches. Each
 * launch() counts 1, whatever CUB launches inside: profile mode leaves the baselines out. */
#include <cstring>

#include <cub/cub.cuh>

#include "twin.h"

/* Threads per block of the copy kernel. */
#define COPY_BLOCK 256

__global__ void
copy_words (unsigned *out, unsigned *in, unsigned n)
{
  unsigned i = blockIdx.x * COPY_BLOCK + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

/* n: 1..2^29 words (2 GiB a buffer). */
static bool
words_validate (const Case &c, std::string *why)
{
  if (c.n < 1 || c.n > (1L << 29))
    return mdl_cuda_refuse (why, "n must be 1..2^29");
  return true;
}

/* n random words in, @out_words poisoned words out, and, when @temp_bytes is not 0 (CUB's
 * temporary storage: CUB asks for some always), that many bytes as in2. */
static void
words_prepare (const Case &c, Buffers &b, size_t out_words, size_t temp_bytes, uint64_t *rng)
{
  b.in.resize (4 * (size_t) c.n);
  mdl_cuda_fill_random (b.in, rng);
  b.out.assign (4 * out_words, MDL_CUDA_POISON);
  b.in2.assign (temp_bytes, 0);
}

/* The bytes of out that differ from @want; the first wrong word reported on stderr. */
static long
words_compare (const Case &c, const std::vector<unsigned> &want, const Buffers &b)
{
  std::vector<unsigned char> want_bytes (4 * want.size ());
  long bad;
  memcpy (want_bytes.data (), want.data (), want_bytes.size ());
  bad = mdl_cuda_count_diff (want_bytes, b.out);
  for (size_t i = 0; bad && i < want.size (); i++)
    if (mdl_cuda_word (b.out, i) != want[i])
      {
        fprintf (stderr, "gpu-kernels: %s: word %zu is 0x%08x, the CPU reference has 0x%08x (%ld "
                 "wrong bytes in all)\n", c.spec.c_str (), i, mdl_cuda_word (b.out, i), want[i],
                 bad);
        break;
      }
  return bad;
}

static unsigned *
words (unsigned char *d)
{
  return (unsigned *) d;
}

/* baseline/cub-reduce and baseline/cub-scan: CUB's call (SCAN: DeviceScan::InclusiveSum, else
 * DeviceReduce::Sum), which with a null @temp only sets @bytes; the reference is the prefix sums,
 * of which a reduction keeps the last. */

template <bool SCAN>
static cudaError_t
cub_call (void *temp, size_t &bytes, unsigned *in, unsigned *out, int n)
{
  if (SCAN)
    return cub::DeviceScan::InclusiveSum (temp, bytes, in, out, n);
  return cub::DeviceReduce::Sum (temp, bytes, in, out, n);
}

template <bool SCAN>
static void
cub_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t temp_bytes = 0;
  CUDA_OK (cub_call<SCAN> (nullptr, temp_bytes, nullptr, nullptr, (int) c.n));
  words_prepare (c, b, SCAN ? (size_t) c.n : 1, temp_bytes, rng);
}

template <bool SCAN>
static int
cub_launch (const Case &c, Buffers &b)
{
  size_t temp_bytes = b.in2.size ();
  CUDA_OK (cub_call<SCAN> (b.d_in2, temp_bytes, words (b.d_in), words (b.d_out), (int) c.n));
  return 1;
}

template <bool SCAN>
static long
cub_check (const Case &c, const Buffers &b)
{
  std::vector<unsigned> want ((size_t) c.n);
  unsigned run = 0;
  for (size_t i = 0; i < want.size (); i++)
    want[i] = run += mdl_cuda_word (b.in, i);
  if (!SCAN)
    want.assign (1, run);
  return words_compare (c, want, b);
}

template <bool SCAN>
static std::string
cub_kernel (const Case &)
{
  return SCAN ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceReduce::Sum";
}

const CudaTwin cuda_twin_cub_reduce = {
  words_validate, cub_prepare<false>, cub_launch<false>, cub_check<false>, cub_kernel<false>,
};

const CudaTwin cuda_twin_cub_scan = {
  words_validate, cub_prepare<true>, cub_launch<true>, cub_check<true>, cub_kernel<true>,
};

/* baseline/memcpy (MEMCPY) and baseline/copy: out is a copy of in */

static void
copy_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  words_prepare (c, b, (size_t) c.n, 0, rng);
}

static long
copy_check (const Case &c, const Buffers &b)
{
  std::vector<unsigned> want ((size_t) c.n);
  memcpy (want.data (), b.in.data (), b.in.size ());
  return words_compare (c, want, b);
}

template <bool MEMCPY>
static int
copy_launch (const Case &c, Buffers &b)
{
  unsigned n = (unsigned) c.n, grid = (n + COPY_BLOCK - 1) / COPY_BLOCK;
  if (MEMCPY)
    CUDA_OK (cudaMemcpyAsync (b.d_out, b.d_in, 4 * (size_t) n, cudaMemcpyDeviceToDevice));
  else
    copy_words<<<grid, COPY_BLOCK>>> (words (b.d_out), words (b.d_in), n);
  return 1;
}

template <bool MEMCPY>
static std::string
copy_kernel (const Case &)
{
  return MEMCPY ? "cudaMemcpy" : "copy_words";
}

const CudaTwin cuda_twin_memcpy = {
  words_validate, copy_prepare, copy_launch<true>, copy_check, copy_kernel<true>,
};

const CudaTwin cuda_twin_copy = {
  words_validate, copy_prepare, copy_launch<false>, copy_check, copy_kernel<false>,
};
