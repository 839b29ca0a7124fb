/* The CUDA twins of the SIMT micro-kernels (src/algos/simt/micro.c, docs/models/gpu.md): the
 * kernels, and for each family of the rows in src/algos/gpu-algos.h its CudaTwin (twin.h).
 *
 * Each kernel is written so that its memory instructions are exactly the ones its SIMT twin
 * issues: no bounds checks (the harness sizes every grid to cover the data exactly), no
 * __restrict__ (which would turn LDG.E into the read-only LDG.E.CONSTANT path), fill loops with
 * compile-time trip counts (unrolled, so they add no branch). The element types fix the access
 * width: unsigned for 4 bytes, uint2 for 8 and uint4 for 16 (LDG.E, LDG.E.64, LDG.E.128 and the
 * LDS/STS equivalents; tools/gpu-measure.sh keeps the SASS that shows it). */
#include <cmath>
#include <cstring>

#include "../gpu-mix.h"
#include "twin.h"

/* The lane index table of the gathered shared accesses: lane l uses element c_gather_idx[l]. */
__constant__ int c_gather_idx[32];
/* The lanes that run a masked shared access. */
__constant__ unsigned c_lane_mask;

/* ---- global memory ---- */

/* Thread i loads element first + i * stride and stores it, unit-stride, to out[i]. */
template <typename T>
__global__ void
global_stride_ld (T *out, T *in, int stride, int first)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[first + i * stride];
}

/* Thread i loads in[i], unit-stride, and stores it to element first + i * stride. */
template <typename T>
__global__ void
global_stride_st (T *out, T *in, int stride, int first)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[first + i * stride] = in[i];
}

/* Thread i adds in[i] to acc[i * stride] atomically and keeps the old value (an ATOMG, since the
 * result is used; without a use nvcc emits a RED). */
__global__ void
global_atomic (unsigned *old, unsigned *acc, unsigned *in, int stride)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  old[i] = atomicAdd (&acc[i * stride], in[i]);
}

/* ---- shared memory: one warp per block, MDL_GPU_SHARED_ELEMS elements of shared memory ---- */

/* Copies this block's MDL_GPU_SHARED_ELEMS elements into shared memory, lane l taking elements
 * l, l + 32, ... (unit stride: the conflict-free baseline). */
template <typename T>
__device__ __forceinline__ void
shared_fill (T *s, T *in)
{
  T *src = in + blockIdx.x * MDL_GPU_SHARED_ELEMS;
#pragma unroll
  for (int k = 0; k < MDL_GPU_SHARED_ELEMS / 32; k++)
    s[threadIdx.x + 32 * k] = src[threadIdx.x + 32 * k];
}

/* Lane l's element of the measured instruction: c_gather_idx[l] (GATHER, an int) or l * stride
 * (unsigned, as threadIdx.x makes it: the type decides the address arithmetic nvcc emits). */
template <bool GATHER>
__device__ __forceinline__ auto
shared_index (int stride)
{
  if constexpr (GATHER)
    return c_gather_idx[threadIdx.x];
  else
    return threadIdx.x * stride;
}

/* Whether lane l runs the measured instruction and what follows it: all lanes unless MASKED, then
 * those of c_lane_mask (nvcc predicates the single instructions under it). */
template <bool MASKED>
__device__ __forceinline__ bool
lane_on ()
{
  return !MASKED || ((c_lane_mask >> threadIdx.x) & 1);
}

/* The measured shared instruction and its check. A load (STORE false) fills shared memory, then
 * lane l loads its element and stores it to out[l]; a store has lane l load in[l], store it at its
 * element, and load it back from there into out[l]. The unmasked instantiations compile to the
 * same code as the three kernels they replaced (their PTX is identical). */
template <typename T, bool STORE, bool GATHER, bool MASKED>
__global__ void
shared_access (T *out, T *in, int stride)
{
  __shared__ T s[MDL_GPU_SHARED_ELEMS];
  if (STORE)
    {
      T v = in[blockIdx.x * 32 + threadIdx.x];
      if (lane_on<MASKED> ())
        s[shared_index<GATHER> (stride)] = v;
    }
  else
    shared_fill (s, in);
  __syncthreads ();
  if (lane_on<MASKED> ())
    out[blockIdx.x * 32 + threadIdx.x] = s[shared_index<GATHER> (stride)];
}

/* ---- matrix transpose of an n x n matrix of 4-byte words; blocks of 32 x 8 threads ---- */

/* Each thread moves MDL_GPU_TILE / MDL_GPU_TILE_ROWS elements: rows are read whole (coalesced),
 * columns are written one word per row (every lane in another 128-byte line). */
__global__ void
transpose_naive (unsigned *out, unsigned *in, int n)
{
  int x = blockIdx.x * MDL_GPU_TILE + threadIdx.x;
  int y = blockIdx.y * MDL_GPU_TILE + threadIdx.y;
#pragma unroll
  for (int r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    out[x * n + y + r] = in[(y + r) * n + x];
}

/* Through a shared tile with PAD extra words per row: rows are read and written whole; the tile is
 * written by rows and read by columns, which hits one bank 32 times unless PAD is 1. */
template <int PAD>
__global__ void
transpose_shared (unsigned *out, unsigned *in, int n)
{
  __shared__ unsigned tile[MDL_GPU_TILE][MDL_GPU_TILE + PAD];
  int x = blockIdx.x * MDL_GPU_TILE + threadIdx.x;
  int y = blockIdx.y * MDL_GPU_TILE + threadIdx.y;
#pragma unroll
  for (int r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    tile[threadIdx.y + r][threadIdx.x] = in[(y + r) * n + x];
  __syncthreads ();
  x = blockIdx.y * MDL_GPU_TILE + threadIdx.x;
  y = blockIdx.x * MDL_GPU_TILE + threadIdx.y;
#pragma unroll
  for (int r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    out[(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}

/* ---- tree reductions of MDL_GPU_REDUCE_BLOCK words per block into out[block] ---- */

/* The three addressings of one tree, as in the SIMT twin (micro.c). At distance d = 1, 2, 4, ...:
 * interleaved, thread t adds s[2dt + d] into s[2dt] (the active threads stay packed at the front,
 * but their addresses spread over banks); divergent, the threads that are multiples of 2d add
 * s[t + d] into s[t] (every warp stays half-active or less from the first step on); sequential,
 * threads t < h = MDL_GPU_REDUCE_BLOCK / 2d add s[t + h] into s[t] (consecutive threads touch
 * consecutive words, and whole warps drop out until h < 32). V is a constant, so each
 * instantiation compiles to the loop of its addressing alone. */
enum { REDUCE_INTERLEAVED, REDUCE_DIVERGENT, REDUCE_SEQUENTIAL };

template <int V>
__global__ void
reduce_tree (unsigned *out, unsigned *in)
{
  __shared__ unsigned s[MDL_GPU_REDUCE_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * MDL_GPU_REDUCE_BLOCK + t];
  __syncthreads ();
#pragma unroll
  for (unsigned d = 1; d < MDL_GPU_REDUCE_BLOCK; d *= 2)
    {
      if (V == REDUCE_INTERLEAVED)
        {
          unsigned k = 2 * d * t;
          if (k < MDL_GPU_REDUCE_BLOCK)
            s[k] += s[k + d];
        }
      else if (V == REDUCE_DIVERGENT)
        {
          if ((t & (2 * d - 1)) == 0)
            s[t] += s[t + d];
        }
      else
        {
          unsigned h = MDL_GPU_REDUCE_BLOCK / 2 / d;
          if (t < h)
            s[t] += s[t + h];
        }
      __syncthreads ();
    }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

/* ---- branches: each side runs a different mixing chain (src/algos/gpu-mix.h) ---- */

/* if/else split at lane 16: every warp diverges once. */
__global__ void
branch_half (unsigned *out, unsigned *in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  if ((threadIdx.x & 31) < 16)
    v = mdl_mix (v, 0);
  else
    v = mdl_mix (v, 1);
  out[i] = v;
}

/* A plain if (no else) taken by lanes 0..15. */
__global__ void
branch_if (unsigned *out, unsigned *in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  if ((threadIdx.x & 31) < 16)
    v = mdl_mix (v, 0);
  out[i] = v;
}

/* Nested divergence: lanes 0..15 split again at lane 8. */
__global__ void
branch_nested (unsigned *out, unsigned *in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31;
  unsigned v = in[i];
  if (lane < 16)
    {
      v = mdl_mix (v, 0);
      if (lane < 8)
        v = mdl_mix (v, 2);
      else
        v = mdl_mix (v, 3);
    }
  else
    v = mdl_mix (v, 1);
  out[i] = v;
}

/* if/else on the block index: uniform inside every warp (odd blocks take the if side). */
__global__ void
branch_uniform (unsigned *out, unsigned *in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  if (blockIdx.x & 1)
    v = mdl_mix (v, 0);
  else
    v = mdl_mix (v, 1);
  out[i] = v;
}

/* A loop whose trip count is lane % 4 + 1: lanes leave it one quarter at a time. */
__global__ void
branch_loop (unsigned *out, unsigned *in)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  unsigned trips = (threadIdx.x & 3) + 1;
#pragma unroll 1
  for (unsigned k = 0; k < trips; k++)
    v = mdl_mix (v, 0);
  out[i] = v;
}

/* ---- the twins ---- */

/* The checks every micro-kernel case passes: bytes per lane 4, 8 or 16, a stride of @min_stride..33,
 * and n a positive multiple of @granule up to 2^22. */
static bool
micro_validate (const Case &c, long granule, long min_stride, std::string *why)
{
  long width = c.num ("width", 4), stride = c.num ("stride", 1);
  if (!mdl_cuda_choice_ok (c, "op", "ld", "ld|st", why))
    return false;
  if (width != 4 && width != 8 && width != 16)
    return mdl_cuda_refuse (why, "width must be 4, 8 or 16");
  if (stride < min_stride || stride > 33)
    return mdl_cuda_refuse (why, "stride must be " + std::to_string (min_stride) + "..33");
  if (c.n <= 0 || c.n > (1L << 22) || c.n % granule != 0)
    return mdl_cuda_refuse (why, "n must be a positive multiple of " + std::to_string (granule));
  return true;
}

static bool
is_store (const Case &c)
{
  return c.text ("op", "ld") == "st";
}

static size_t
width_of (const Case &c)
{
  return (size_t) c.num ("width", 4);
}

/* Runs @go's instantiation for the element type of the case's width: 4, 8 or 16 bytes. */
typedef void (*TypedLaunch) (const Case &c, Buffers &b);
static void
by_width (const Case &c, Buffers &b, TypedLaunch w4, TypedLaunch w8, TypedLaunch w16)
{
  size_t w = width_of (c);
  (w == 4 ? w4 : w == 8 ? w8 : w16) (c, b);
}
#define BY_WIDTH(c, b, go) by_width ((c), (b), go<unsigned>, go<uint2>, go<uint4>)

/* global-stride */

static bool
global_stride_validate (const Case &c, std::string *why)
{
  return micro_validate (c, MDL_GPU_GLOBAL_BLOCK, 1, why);
}

static size_t
global_spread (const Case &c)
{
  return (c.num ("misalign", 0) + (c.n - 1) * c.num ("stride", 1) + 1) * width_of (c);
}

static void
global_stride_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t packed = (size_t) c.n * width_of (c);
  b.in.resize (is_store (c) ? packed : global_spread (c));
  b.out.assign (is_store (c) ? global_spread (c) : packed, MDL_CUDA_POISON);
  mdl_cuda_fill_random (b.in, rng);
}

template <typename T>
static void
global_stride_go (const Case &c, Buffers &b)
{
  unsigned grid = (unsigned) (c.n / MDL_GPU_GLOBAL_BLOCK);
  int stride = (int) c.num ("stride", 1), first = (int) c.num ("misalign", 0);
  if (is_store (c))
    global_stride_st<T><<<grid, MDL_GPU_GLOBAL_BLOCK>>> ((T *) b.d_out, (T *) b.d_in, stride, first);
  else
    global_stride_ld<T><<<grid, MDL_GPU_GLOBAL_BLOCK>>> ((T *) b.d_out, (T *) b.d_in, stride, first);
}

static int
global_stride_launch (const Case &c, Buffers &b)
{
  BY_WIDTH (c, b, global_stride_go);
  return 1;
}

static long
global_stride_check (const Case &c, const Buffers &b)
{
  size_t w = width_of (c), stride = (size_t) c.num ("stride", 1);
  size_t first = (size_t) c.num ("misalign", 0);
  std::vector<unsigned char> expect (b.out.size (), MDL_CUDA_POISON);
  for (size_t i = 0; i < (size_t) c.n; i++)
    {
      size_t spread = first + i * stride;
      memcpy (&expect[(is_store (c) ? spread : i) * w], &b.in[(is_store (c) ? i : spread) * w], w);
    }
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
global_stride_kernel (const Case &c)
{
  return is_store (c) ? "global_stride_st" : "global_stride_ld";
}

const CudaTwin cuda_twin_global_stride = {
  global_stride_validate, global_stride_prepare, global_stride_launch, global_stride_check,
  global_stride_kernel,
};

/* global-atomic: out is the accumulators (random, not poison), out2 the old values */

static void
global_atomic_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t n = (size_t) c.n;
  b.in.resize (n * 4);
  b.out.resize (((n - 1) * c.num ("stride", 1) + 1) * 4);
  mdl_cuda_fill_random (b.out, rng);
  b.out2.assign (n * 4, MDL_CUDA_POISON);
  mdl_cuda_fill_random (b.in, rng);
}

static int
global_atomic_launch (const Case &c, Buffers &b)
{
  global_atomic<<<(unsigned) (c.n / MDL_GPU_GLOBAL_BLOCK), MDL_GPU_GLOBAL_BLOCK>>> (
    (unsigned *) b.d_out2, (unsigned *) b.d_out, (unsigned *) b.d_in, (int) c.num ("stride", 1));
  return 1;
}

static long
global_atomic_check (const Case &c, const Buffers &b)
{
  size_t stride = (size_t) c.num ("stride", 1);
  std::vector<unsigned char> expect = b.out_initial, expect_old (b.out2.size ());
  for (size_t i = 0; i < (size_t) c.n; i++)
    {
      unsigned was = mdl_cuda_word (b.out_initial, i * stride), now = was + mdl_cuda_word (b.in, i);
      memcpy (&expect[4 * i * stride], &now, 4);
      memcpy (&expect_old[4 * i], &was, 4);
    }
  return mdl_cuda_count_diff (expect, b.out) + mdl_cuda_count_diff (expect_old, b.out2);
}

static std::string
global_atomic_kernel (const Case &)
{
  return "global_atomic";
}

const CudaTwin cuda_twin_global_atomic = {
  global_stride_validate, global_atomic_prepare, global_atomic_launch, global_atomic_check,
  global_atomic_kernel,
};

/* shared-stride and shared-gather: one warp per block; the measured instruction is a load or a
 * store (op), of the lanes in mask (hex, default all 32) */

/* The element lane @lane of a gather reads: the idx list ('.'-separated, repeated to 32 lanes). */
static long
gather_index (const Case &c, unsigned lane)
{
  std::string list = c.text ("idx", "0");
  std::vector<long> idx;
  for (size_t p = 0; p < list.size ();)
    {
      size_t dot = list.find ('.', p);
      idx.push_back (atol (list.substr (p, dot - p).c_str ()));
      p = dot == std::string::npos ? list.size () : dot + 1;
    }
  return idx.empty () ? -1 : idx[lane % idx.size ()];
}

static bool
is_gather (const Case &c)
{
  return c.twin == &cuda_twin_shared_gather;
}

/* Lane @lane's element of the measured instruction. */
static size_t
shared_elem (const Case &c, unsigned lane)
{
  return is_gather (c) ? (size_t) gather_index (c, lane) : lane * (size_t) c.num ("stride", 1);
}

static unsigned
lane_mask (const Case &c)
{
  return (unsigned) strtoul (c.text ("mask", "ffffffff").c_str (), NULL, 16);
}

static bool
shared_validate (const Case &c, std::string *why)
{
  for (unsigned lane = 0; is_gather (c) && lane < 32; lane++)
    if (gather_index (c, lane) < 0 || gather_index (c, lane) >= MDL_GPU_SHARED_ELEMS)
      return mdl_cuda_refuse (why, "idx needs 1 to 32 indexes, each inside the shared array");
  if (lane_mask (c) == 0)
    return mdl_cuda_refuse (why, "mask must be a nonzero hexadecimal lane mask");
  return micro_validate (c, 32, 0, why);
}

/* The lane table and mask go to constant memory here, outside the launches that are timed. */
static void
shared_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t w = width_of (c), n = (size_t) c.n;
  int idx[32];
  unsigned mask = lane_mask (c);
  for (unsigned lane = 0; lane < 32; lane++)
    idx[lane] = (int) shared_elem (c, lane);
  CUDA_OK (cudaMemcpyToSymbol (c_gather_idx, idx, sizeof idx));
  CUDA_OK (cudaMemcpyToSymbol (c_lane_mask, &mask, sizeof mask));
  b.in.resize ((is_store (c) ? 32 : MDL_GPU_SHARED_ELEMS) * (n / 32) * w);
  b.out.assign (n * w, MDL_CUDA_POISON);
  mdl_cuda_fill_random (b.in, rng);
}

template <typename T, bool STORE, bool GATHER>
static void
shared_go_op (const Case &c, Buffers &b)
{
  unsigned grid = (unsigned) (c.n / 32);
  int stride = (int) c.num ("stride", 1);
  if (lane_mask (c) != 0xffffffffu)
    shared_access<T, STORE, GATHER, true><<<grid, 32>>> ((T *) b.d_out, (T *) b.d_in, stride);
  else
    shared_access<T, STORE, GATHER, false><<<grid, 32>>> ((T *) b.d_out, (T *) b.d_in, stride);
}

template <typename T>
static void
shared_go (const Case &c, Buffers &b)
{
  if (is_gather (c))
    (is_store (c) ? shared_go_op<T, true, true> : shared_go_op<T, false, true>) (c, b);
  else
    (is_store (c) ? shared_go_op<T, true, false> : shared_go_op<T, false, false>) (c, b);
}

static int
shared_launch (const Case &c, Buffers &b)
{
  BY_WIDTH (c, b, shared_go);
  return 1;
}

/* Masked-off lanes leave their output poisoned. A load's lane gets its element of the block's
 * input; a store's lane gets the value of one of the lanes that stored to its element (which one
 * wins is the hardware's choice), the same for all of them. */
static long
shared_check (const Case &c, const Buffers &b)
{
  size_t w = width_of (c);
  unsigned mask = lane_mask (c);
  long bad = 0;
  for (size_t block = 0; block < (size_t) c.n / 32; block++)
    for (unsigned l = 0; l < 32; l++)
      {
        const unsigned char *got = &b.out[(block * 32 + l) * w];
        bool ok = false;
        if (!((mask >> l) & 1))
          for (size_t k = 0, poison = 1; k < w; k++)
            ok = (poison &= got[k] == MDL_CUDA_POISON);
        else if (!is_store (c))
          ok = memcmp (got, &b.in[(block * MDL_GPU_SHARED_ELEMS + shared_elem (c, l)) * w], w) == 0;
        else
          for (unsigned j = 0; j < 32 && !ok; j++)
            ok = ((mask >> j) & 1) && shared_elem (c, j) == shared_elem (c, l)
                 && memcmp (got, &b.in[(block * 32 + j) * w], w) == 0
                 && memcmp (got, &b.out[(block * 32 + j) * w], w) == 0;
        bad += ok ? 0 : (long) w;
      }
  return bad;
}

/* The measured kernel, as Nsight Compute names it (void shared_access<T, STORE, GATHER, MASKED>). */
static std::string
shared_kernel (const Case &)
{
  return "shared_access";
}

const CudaTwin cuda_twin_shared_stride = {
  shared_validate, shared_prepare, shared_launch, shared_check, shared_kernel,
};

const CudaTwin cuda_twin_shared_gather = {
  shared_validate, shared_prepare, shared_launch, shared_check, shared_kernel,
};

/* transpose of a side x side matrix of words */

static long
side_of (const Case &c)
{
  return (long) llround (sqrt ((double) c.n));
}

static bool
transpose_validate (const Case &c, std::string *why)
{
  long side = side_of (c);
  if (c.n <= 0 || c.n > (1L << 22) || side * side != c.n || side % MDL_GPU_TILE != 0)
    return mdl_cuda_refuse (why, "n must be the square of a multiple of 32, up to 2^22");
  return mdl_cuda_choice_ok (c, "variant", "naive", "naive|shared", why)
         && micro_validate (c, 1, 1, why);
}

/* The word kernels (transpose, reduce, branch) read n words and write @out_words. */
static void
words_prepare (Buffers &b, size_t n, size_t out_words, uint64_t *rng)
{
  b.in.resize (n * 4);
  b.out.assign (out_words * 4, MDL_CUDA_POISON);
  mdl_cuda_fill_random (b.in, rng);
}

static void
transpose_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  words_prepare (b, (size_t) c.n, (size_t) c.n, rng);
}

static int
transpose_launch (const Case &c, Buffers &b)
{
  int side = (int) side_of (c);
  dim3 grid (side / MDL_GPU_TILE, side / MDL_GPU_TILE), block (MDL_GPU_TILE, MDL_GPU_TILE_ROWS);
  unsigned *out = (unsigned *) b.d_out, *in = (unsigned *) b.d_in;
  if (c.text ("variant", "naive") == "naive")
    transpose_naive<<<grid, block>>> (out, in, side);
  else if (c.num ("pad", 1))
    transpose_shared<1><<<grid, block>>> (out, in, side);
  else
    transpose_shared<0><<<grid, block>>> (out, in, side);
  return 1;
}

static long
transpose_check (const Case &c, const Buffers &b)
{
  size_t side = (size_t) side_of (c);
  std::vector<unsigned char> expect (b.out.size ());
  for (size_t y = 0; y < side; y++)
    for (size_t x = 0; x < side; x++)
      memcpy (&expect[4 * (x * side + y)], &b.in[4 * (y * side + x)], 4);
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
transpose_kernel (const Case &c)
{
  return c.text ("variant", "naive") == "naive" ? "transpose_naive" : "transpose_shared";
}

const CudaTwin cuda_twin_transpose = {
  transpose_validate, transpose_prepare, transpose_launch, transpose_check, transpose_kernel,
};

/* reduce and branch: word kernels (out, in) chosen by the case's variant */

struct WordVariant {
  const char *name;                       /* the variant= value */
  void (*kernel) (unsigned *, unsigned *);
  const char *ncu_name;                   /* as Nsight Compute shows the kernel */
};

/* Each family's default variant comes first. */
static const WordVariant reduce_variants[] = {
  { "sequential", reduce_tree<REDUCE_SEQUENTIAL>, "reduce_tree<2>" },
  { "interleaved", reduce_tree<REDUCE_INTERLEAVED>, "reduce_tree<0>" },
  { "divergent", reduce_tree<REDUCE_DIVERGENT>, "reduce_tree<1>" },
};

static const WordVariant branch_variants[] = {
  { "half", branch_half, "branch_half" },
  { "if", branch_if, "branch_if" },
  { "nested", branch_nested, "branch_nested" },
  { "uniform", branch_uniform, "branch_uniform" },
  { "loop", branch_loop, "branch_loop" },
};

/* The variant the case names (its first, the default, when it names none), or nullptr. */
template <size_t N>
static const WordVariant *
variant_of (const Case &c, const WordVariant (&table)[N])
{
  std::string name = c.text ("variant", table[0].name);
  for (const WordVariant &v : table)
    if (name == v.name)
      return &v;
  return nullptr;
}

template <size_t N>
static bool
variant_validate (const Case &c, const WordVariant (&table)[N], long block, std::string *why)
{
  std::string names;
  if (variant_of (c, table))
    return micro_validate (c, block, 1, why);
  for (const WordVariant &v : table)
    names += (names.empty () ? "" : "|") + std::string (v.name);
  return mdl_cuda_refuse (why, "variant must be one of " + names);
}

static void
variant_launch (const Case &c, Buffers &b, const WordVariant *v, unsigned block)
{
  v->kernel<<<(unsigned) (c.n / block), block>>> ((unsigned *) b.d_out, (unsigned *) b.d_in);
}

/* reduce: block sums */

static bool
reduce_validate (const Case &c, std::string *why)
{
  return variant_validate (c, reduce_variants, MDL_GPU_REDUCE_BLOCK, why);
}

static void
reduce_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  words_prepare (b, (size_t) c.n, (size_t) c.n / MDL_GPU_REDUCE_BLOCK, rng);
}

static int
reduce_launch (const Case &c, Buffers &b)
{
  variant_launch (c, b, variant_of (c, reduce_variants), MDL_GPU_REDUCE_BLOCK);
  return 1;
}

static long
reduce_check (const Case &c, const Buffers &b)
{
  std::vector<unsigned char> expect (b.out.size ());
  for (size_t blk = 0; blk < (size_t) c.n / MDL_GPU_REDUCE_BLOCK; blk++)
    {
      unsigned sum = 0;
      for (size_t t = 0; t < MDL_GPU_REDUCE_BLOCK; t++)
        sum += mdl_cuda_word (b.in, blk * MDL_GPU_REDUCE_BLOCK + t);
      memcpy (&expect[4 * blk], &sum, 4);
    }
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
reduce_kernel (const Case &c)
{
  return variant_of (c, reduce_variants)->ncu_name;
}

const CudaTwin cuda_twin_reduce = {
  reduce_validate, reduce_prepare, reduce_launch, reduce_check, reduce_kernel,
};

/* branch: each element through the mixing chains of its side */

static bool
branch_validate (const Case &c, std::string *why)
{
  return variant_validate (c, branch_variants, MDL_GPU_BRANCH_BLOCK, why);
}

static void
branch_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  words_prepare (b, (size_t) c.n, (size_t) c.n, rng);
}

static int
branch_launch (const Case &c, Buffers &b)
{
  variant_launch (c, b, variant_of (c, branch_variants), MDL_GPU_BRANCH_BLOCK);
  return 1;
}

static long
branch_check (const Case &c, const Buffers &b)
{
  std::string variant = c.text ("variant", "half");
  std::vector<unsigned char> expect (b.out.size ());
  for (size_t i = 0; i < (size_t) c.n; i++)
    {
      unsigned lane = (unsigned) (i % MDL_GPU_BRANCH_BLOCK) & 31, v = mdl_cuda_word (b.in, i);
      unsigned block = (unsigned) (i / MDL_GPU_BRANCH_BLOCK);
      if (variant == "half")
        v = mdl_mix (v, lane < 16 ? 0 : 1);
      else if (variant == "if")
        v = lane < 16 ? mdl_mix (v, 0) : v;
      else if (variant == "nested")
        v = lane < 16 ? mdl_mix (mdl_mix (v, 0), lane < 8 ? 2 : 3) : mdl_mix (v, 1);
      else if (variant == "uniform")
        v = mdl_mix (v, (block & 1) ? 0 : 1);
      else
        for (unsigned k = 0; k <= (lane & 3); k++)
          v = mdl_mix (v, 0);
      memcpy (&expect[4 * i], &v, 4);
    }
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
branch_kernel (const Case &c)
{
  return variant_of (c, branch_variants)->ncu_name;
}

const CudaTwin cuda_twin_branch = {
  branch_validate, branch_prepare, branch_launch, branch_check, branch_kernel,
};
