/* The CUDA twins of the warp-primitive micro-kernels (src/algos/simt/prims.c): warp shuffles,
 * votes and atomics, each a kernel whose instruction under test is one SHFL, VOTE, ATOM/RED
 * (global) or ATOMS (shared) per warp, between unit-stride loads and stores. Blocks of
 * MDL_GPU_PRIM_BLOCK threads (src/algos/gpu-prims.h); no bounds checks (n is a multiple of the
 * block). The mode and the atomic's op are template parameters, so each kernel has exactly one
 * instruction of its kind and no dispatch branch.
 *
 * gpu/atomic: thread i of warp w (of the grid for global memory, of the block for shared) targets
 * word (together ? 0 : w x 32 x stride) + (lane / k) x stride, so k lanes share each address and
 * warps=together puts every warp on the same words. Shared accumulators start at zero and are
 * copied out after the atomics; global ones are random (zero for cas, whose compare value is 0, so
 * that the first lane to arrive at each word wins). Where several lanes hit one word the hardware
 * order is unspecified: the check then asks order-free facts (the fold of a commutative op; for
 * exch and cas, a final value that one of the word's lanes brought). */
#include <cstring>

#include "twin.h"

#define FULL_MASK 0xffffffffu

/* ---- shuffle ---- */

template <int MODE>
__global__ void
prim_shuffle (unsigned *out, unsigned *in, int sel, int width)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i], r;
  if (MODE == 0)
    r = __shfl_sync (FULL_MASK, v, sel, width);
  else if (MODE == 1)
    r = __shfl_up_sync (FULL_MASK, v, (unsigned) sel, width);
  else if (MODE == 2)
    r = __shfl_down_sync (FULL_MASK, v, (unsigned) sel, width);
  else
    r = __shfl_xor_sync (FULL_MASK, v, sel, width);
  out[i] = r;
}

/* ---- vote ---- */

template <int MODE>
__global__ void
prim_vote (unsigned *out, unsigned *in, unsigned mask)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31, v = in[i], r = 0;
  if ((mask >> lane) & 1)
    {
      if (MODE == 0)
        r = __ballot_sync (mask, v & 1);
      else if (MODE == 1)
        r = __any_sync (mask, v & 1);
      else
        r = __all_sync (mask, v & 1);
    }
  out[i] = r;
}

/* ---- atomics ---- */

enum { OP_ADD, OP_EXCH, OP_CAS, OP_MIN, OP_MAX, OP_UMIN, OP_UMAX, N_OPS };
static const char *const op_names[N_OPS] = { "add", "exch", "cas", "min", "max", "umin", "umax" };

__device__ __forceinline__ unsigned
atom_do (int op, unsigned *p, unsigned v)
{
  switch (op)
    {
    case OP_ADD: return atomicAdd (p, v);
    case OP_EXCH: return atomicExch (p, v);
    case OP_CAS: return atomicCAS (p, 0u, v);
    case OP_MIN: return (unsigned) atomicMin ((int *) p, (int) v);
    case OP_MAX: return (unsigned) atomicMax ((int *) p, (int) v);
    case OP_UMIN: return atomicMin (p, v);
    default: return atomicMax (p, v);
    }
}

__device__ __forceinline__ unsigned long long
atom_do (int op, unsigned long long *p, unsigned long long v)
{
  switch (op)
    {
    case OP_ADD: return atomicAdd (p, v);
    case OP_EXCH: return atomicExch (p, v);
    case OP_CAS: return atomicCAS (p, 0ull, v);
    case OP_MIN: return (unsigned long long) atomicMin ((long long *) p, (long long) v);
    case OP_MAX: return (unsigned long long) atomicMax ((long long *) p, (long long) v);
    case OP_UMIN: return atomicMin (p, v);
    default: return atomicMax (p, v);
    }
}

template <typename U, int OP, bool RET>
__global__ void
prim_atomic_global (U *old, U *acc, U *in, int kshift, int stride, int together)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int word = (together ? 0 : (i >> 5) * 32 * stride) + (lane >> kshift) * stride;
  U r = atom_do (OP, &acc[word], in[i]);
  if (RET)
    old[i] = r;
}

template <typename U, int OP, bool RET>
__global__ void
prim_atomic_shared (U *old, U *out, U *in, int kshift, int stride, int together)
{
  __shared__ U s[MDL_GPU_ATOM_SHARED_ELEMS];
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
#pragma unroll
  for (int j = 0; j < MDL_GPU_ATOM_SHARED_ELEMS / MDL_GPU_PRIM_BLOCK; j++)
    s[threadIdx.x + j * MDL_GPU_PRIM_BLOCK] = 0;
  __syncthreads ();
  int word = (together ? 0 : (int) (threadIdx.x >> 5) * 32 * stride) + (lane >> kshift) * stride;
  U r = atom_do (OP, &s[word], in[i]);
  if (RET)
    old[i] = r;
  __syncthreads ();
  U *dst = out + (size_t) blockIdx.x * MDL_GPU_ATOM_SHARED_ELEMS;
#pragma unroll
  for (int j = 0; j < MDL_GPU_ATOM_SHARED_ELEMS / MDL_GPU_PRIM_BLOCK; j++)
    dst[threadIdx.x + j * MDL_GPU_PRIM_BLOCK] = s[threadIdx.x + j * MDL_GPU_PRIM_BLOCK];
}

/* ---- host side ---- */

static const char *const shuffle_modes[] = { "idx", "up", "down", "xor" };
static const char *const vote_modes[] = { "ballot", "any", "all" };

static int
index_of (const std::string &v, const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (v == names[i])
      return i;
  return 0;
}

static bool
prim_n_ok (const Case &c, std::string *why)
{
  if (c.n <= 0 || c.n > (1L << 22) || c.n % MDL_GPU_PRIM_BLOCK != 0)
    return mdl_cuda_refuse (why, "n must be a positive multiple of "
                                 + std::to_string (MDL_GPU_PRIM_BLOCK));
  return true;
}

static void
words_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  b.in.resize ((size_t) c.n * 4);
  b.out.assign ((size_t) c.n * 4, MDL_CUDA_POISON);
  mdl_cuda_fill_random (b.in, rng);
}

/* shuffle */

static bool
shuffle_validate (const Case &c, std::string *why)
{
  long width = c.num ("width", 32), sel = c.num ("sel", 1);
  if (!mdl_cuda_choice_ok (c, "mode", "idx", "idx|up|down|xor", why))
    return false;
  if (width < 1 || width > 32 || (width & (width - 1)))
    return mdl_cuda_refuse (why, "width must be a power of two from 1 to 32");
  if (sel < 0 || sel > 31)
    return mdl_cuda_refuse (why, "sel must be 0..31");
  return prim_n_ok (c, why);
}

static int
shuffle_launch (const Case &c, Buffers &b)
{
  int mode = index_of (c.text ("mode", "idx"), shuffle_modes, 4);
  int sel = (int) c.num ("sel", 1), width = (int) c.num ("width", 32);
  unsigned grid = (unsigned) (c.n / MDL_GPU_PRIM_BLOCK);
  unsigned *out = (unsigned *) b.d_out, *in = (unsigned *) b.d_in;
  if (mode == 0)
    prim_shuffle<0><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, sel, width);
  else if (mode == 1)
    prim_shuffle<1><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, sel, width);
  else if (mode == 2)
    prim_shuffle<2><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, sel, width);
  else
    prim_shuffle<3><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, sel, width);
  return 1;
}

static long
shuffle_check (const Case &c, const Buffers &b)
{
  int mode = index_of (c.text ("mode", "idx"), shuffle_modes, 4);
  unsigned sel = (unsigned) c.num ("sel", 1), width = (unsigned) c.num ("width", 32);
  std::vector<unsigned char> expect (b.out.size ());
  for (size_t i = 0; i < (size_t) c.n; i++)
    {
      unsigned lane = (unsigned) i & 31, seg = lane & ~(width - 1), in = lane & (width - 1), from;
      if (mode == 0)
        from = seg + (sel & (width - 1));
      else if (mode == 1)
        from = sel <= in ? lane - sel : lane;
      else if (mode == 2)
        from = sel < width - in ? lane + sel : lane;
      else
        from = (lane ^ sel) < seg + width ? lane ^ sel : lane;
      unsigned v = mdl_cuda_word (b.in, i - lane + from);
      memcpy (&expect[4 * i], &v, 4);
    }
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
shuffle_kernel (const Case &)
{
  return "prim_shuffle";
}

const CudaTwin cuda_twin_shuffle = {
  shuffle_validate, words_prepare, shuffle_launch, shuffle_check, shuffle_kernel,
};

/* vote */

static unsigned
vote_mask (const Case &c)
{
  return (unsigned) strtoul (c.text ("mask", "ffffffff").c_str (), NULL, 16);
}

static bool
vote_validate (const Case &c, std::string *why)
{
  if (!mdl_cuda_choice_ok (c, "mode", "ballot", "ballot|any|all", why))
    return false;
  if (vote_mask (c) == 0)
    return mdl_cuda_refuse (why, "mask must be a nonzero hexadecimal lane mask");
  return prim_n_ok (c, why);
}

static int
vote_launch (const Case &c, Buffers &b)
{
  int mode = index_of (c.text ("mode", "ballot"), vote_modes, 3);
  unsigned grid = (unsigned) (c.n / MDL_GPU_PRIM_BLOCK), mask = vote_mask (c);
  unsigned *out = (unsigned *) b.d_out, *in = (unsigned *) b.d_in;
  if (mode == 0)
    prim_vote<0><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, mask);
  else if (mode == 1)
    prim_vote<1><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, mask);
  else
    prim_vote<2><<<grid, MDL_GPU_PRIM_BLOCK>>> (out, in, mask);
  return 1;
}

static long
vote_check (const Case &c, const Buffers &b)
{
  int mode = index_of (c.text ("mode", "ballot"), vote_modes, 3);
  unsigned mask = vote_mask (c);
  std::vector<unsigned char> expect (b.out.size ());
  for (size_t w = 0; w < (size_t) c.n / 32; w++)
    {
      unsigned yes = 0;
      for (unsigned l = 0; l < 32; l++)
        yes |= (mdl_cuda_word (b.in, 32 * w + l) & 1u) << l;
      yes &= mask;
      unsigned r = mode == 0 ? yes : mode == 1 ? yes != 0 : yes == mask;
      for (unsigned l = 0; l < 32; l++)
        {
          unsigned v = (mask >> l) & 1 ? r : 0;
          memcpy (&expect[4 * (32 * w + l)], &v, 4);
        }
    }
  return mdl_cuda_count_diff (expect, b.out);
}

static std::string
vote_kernel (const Case &)
{
  return "prim_vote";
}

const CudaTwin cuda_twin_vote = {
  vote_validate, words_prepare, vote_launch, vote_check, vote_kernel,
};

/* atomic: in = operands, out = accumulators, out2 = old values */

struct AtomShape {
  int op, width, kshift, stride, together, shared, ret;
};

static AtomShape
atom_shape (const Case &c)
{
  AtomShape s;
  long k = c.num ("k", 1);
  s.op = 0;
  for (int i = 0; i < N_OPS; i++)
    if (c.text ("op", "add") == op_names[i])
      s.op = i;
  s.width = (int) c.num ("width", 4);
  s.kshift = 0;
  while ((1L << s.kshift) < k)
    s.kshift++;
  s.stride = (int) c.num ("stride", 1);
  s.together = c.text ("warps", "apart") == "together";
  s.shared = c.text ("space", "global") == "shared";
  s.ret = (int) c.num ("ret", 1);
  return s;
}

/* The accumulator thread @i targets (an index into its block's shared array, or the global one). */
static size_t
atom_word (const AtomShape &s, size_t i)
{
  size_t lane = i & 31, warp = s.shared ? (i % MDL_GPU_PRIM_BLOCK) / 32 : i / 32;
  return (s.together ? 0 : warp * 32 * (size_t) s.stride) + (lane >> s.kshift) * (size_t) s.stride;
}

static size_t
atom_acc_elems (const Case &c, const AtomShape &s)
{
  return s.shared ? (size_t) c.n / MDL_GPU_PRIM_BLOCK * MDL_GPU_ATOM_SHARED_ELEMS
                  : (size_t) c.n * (size_t) s.stride;
}

static bool
atomic_validate (const Case &c, std::string *why)
{
  long k = c.num ("k", 1), stride = c.num ("stride", 1), width = c.num ("width", 4);
  if (!mdl_cuda_choice_ok (c, "op", "add", "add|exch|cas|min|max|umin|umax", why)
      || !mdl_cuda_choice_ok (c, "space", "global", "global|shared", why)
      || !mdl_cuda_choice_ok (c, "warps", "apart", "apart|together", why))
    return false;
  if (k < 1 || k > 32 || (k & (k - 1)))
    return mdl_cuda_refuse (why, "k must be a power of two from 1 to 32");
  if (stride < 1 || stride > 32)
    return mdl_cuda_refuse (why, "stride must be 1..32");
  if (width != 4 && width != 8)
    return mdl_cuda_refuse (why, "width must be 4 or 8");
  if (c.num ("ret", 1) != 0 && c.num ("ret", 1) != 1)
    return mdl_cuda_refuse (why, "ret must be 0 or 1");
  return prim_n_ok (c, why);
}

static void
atomic_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  AtomShape s = atom_shape (c);
  size_t n = (size_t) c.n, w = (size_t) s.width;
  b.in.resize (n * w);
  mdl_cuda_fill_random (b.in, rng);
  b.out.assign (atom_acc_elems (c, s) * w, s.shared ? MDL_CUDA_POISON : 0);
  if (!s.shared && s.op != OP_CAS)
    mdl_cuda_fill_random (b.out, rng);
  b.out2.assign (n * w, MDL_CUDA_POISON);
}

template <typename U, int OP, bool RET>
static void
atomic_go (const AtomShape &s, unsigned grid, Buffers &b)
{
  if (s.shared)
    prim_atomic_shared<U, OP, RET><<<grid, MDL_GPU_PRIM_BLOCK>>> (
      (U *) b.d_out2, (U *) b.d_out, (U *) b.d_in, s.kshift, s.stride, s.together);
  else
    prim_atomic_global<U, OP, RET><<<grid, MDL_GPU_PRIM_BLOCK>>> (
      (U *) b.d_out2, (U *) b.d_out, (U *) b.d_in, s.kshift, s.stride, s.together);
}

template <typename U, int OP>
static void
atomic_ret (const AtomShape &s, unsigned grid, Buffers &b)
{
  if (s.ret)
    atomic_go<U, OP, true> (s, grid, b);
  else
    atomic_go<U, OP, false> (s, grid, b);
}

template <typename U>
static void
atomic_op (const AtomShape &s, unsigned grid, Buffers &b)
{
  switch (s.op)
    {
    case OP_ADD: atomic_ret<U, OP_ADD> (s, grid, b); break;
    case OP_EXCH: atomic_ret<U, OP_EXCH> (s, grid, b); break;
    case OP_CAS: atomic_ret<U, OP_CAS> (s, grid, b); break;
    case OP_MIN: atomic_ret<U, OP_MIN> (s, grid, b); break;
    case OP_MAX: atomic_ret<U, OP_MAX> (s, grid, b); break;
    case OP_UMIN: atomic_ret<U, OP_UMIN> (s, grid, b); break;
    default: atomic_ret<U, OP_UMAX> (s, grid, b); break;
    }
}

static int
atomic_launch (const Case &c, Buffers &b)
{
  AtomShape s = atom_shape (c);
  unsigned grid = (unsigned) (c.n / MDL_GPU_PRIM_BLOCK);
  if (s.width == 8)
    atomic_op<unsigned long long> (s, grid, b);
  else
    atomic_op<unsigned> (s, grid, b);
  return 1;
}

static uint64_t
load_word (const std::vector<unsigned char> &v, size_t i, int width)
{
  uint64_t x = 0;
  memcpy (&x, &v[i * (size_t) width], (size_t) width);
  return x;
}

/* The commutative ops' fold step, @width bytes. */
static uint64_t
fold (int op, int width, uint64_t a, uint64_t v)
{
  uint64_t mask = width == 8 ? ~0ull : 0xffffffffull;
  int64_t sa = width == 8 ? (int64_t) a : (int64_t) (int32_t) (uint32_t) a;
  int64_t sv = width == 8 ? (int64_t) v : (int64_t) (int32_t) (uint32_t) v;
  switch (op)
    {
    case OP_ADD: return (a + v) & mask;
    case OP_MIN: return sa <= sv ? a : v;
    case OP_MAX: return sa >= sv ? a : v;
    case OP_UMIN: return a < v ? a : v;
    default: return a > v ? a : v;   /* OP_UMAX */
    }
}

static long
atomic_check (const Case &c, const Buffers &b)
{
  AtomShape s = atom_shape (c);
  size_t n = (size_t) c.n, elems = atom_acc_elems (c, s);
  std::vector<std::vector<size_t>> lanes (elems);
  long bad = 0;
  for (size_t i = 0; i < n; i++)
    {
      size_t base = s.shared ? i / MDL_GPU_PRIM_BLOCK * MDL_GPU_ATOM_SHARED_ELEMS : 0;
      lanes[base + atom_word (s, i)].push_back (i);
    }
  for (size_t e = 0; e < elems; e++)
    {
      uint64_t start = s.shared ? 0 : load_word (b.out_initial, e, s.width);
      uint64_t got = load_word (b.out, e, s.width), want = start;
      bool ok;
      if (s.op == OP_EXCH || s.op == OP_CAS)
        {
          ok = lanes[e].empty () && got == start;
          for (size_t i : lanes[e])
            ok = ok || got == load_word (b.in, i, s.width);
        }
      else
        {
          for (size_t i : lanes[e])
            want = fold (s.op, s.width, want, load_word (b.in, i, s.width));
          ok = got == want;
        }
      if (!ok && bad++ == 0)
        fprintf (stderr, "gpu-kernels: %s: accumulator %zu is 0x%llx\n", c.spec.c_str (), e,
                 (unsigned long long) got);
      /* The old values are known only where one lane hit the word. */
      if (s.ret && lanes[e].size () == 1 && load_word (b.out2, lanes[e][0], s.width) != start)
        bad++;
    }
  return bad;
}

static std::string
atomic_kernel (const Case &c)
{
  return c.text ("space", "global") == "shared" ? "prim_atomic_shared" : "prim_atomic_global";
}

const CudaTwin cuda_twin_atomic = {
  atomic_validate, atomic_prepare, atomic_launch, atomic_check, atomic_kernel,
};
