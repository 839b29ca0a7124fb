/* The CUDA twin of sort/bitonic (src/algos/simt/bitonic.c): the bitonic sorting network on 32-bit
 * keys, cut into passes by src/algos/bitonic.h (the same plan as the SIMT twin), one launch per
 * pass:
 *   bitonic_tile    a tile pass: block i sorts part i of the pass's Γ-sequence in shared memory
 *                   (tile keys: load, the pass's steps with a barrier after each, store);
 *   bitonic_global  a global pass: one step, thread j compares keys InsAt(j, 0, c) and that
 *                   + 2^c in global memory;
 *   bitonic_copy    n = 1: no step; one thread copies the key.
 * The first pass reads the input (n keys; the keys from n up to 2^L are MDL_BITONIC_PAD), every
 * later pass works in place on the output (2^L keys), so a launch sequence is idempotent and the
 * timed launches each sort the input afresh. Memory instructions per thread are the SIMT twin's;
 * the loops are runtime loops (tile and block are case parameters). */
#include "../bitonic.h"
#include "twin.h"

/* A tile pass's steps and register groups, by value in the kernel's parameters: the most a pass
 * holds is the first pass of a 32768-key tile, (15² + 15)/2 = 120 steps. */
#define MAX_PASS_STEPS 128
/* The most keys of a tile: 128 KiB of shared memory (more than 48 KiB needs the opt-in below). */
#define MAX_TILE 32768

struct PassSteps {
  unsigned char s[MAX_PASS_STEPS];   /* the step's stage */
  unsigned char rc[MAX_PASS_STEPS];  /* its bit, as the rank in its group's mask */
  unsigned char ls[MAX_PASS_STEPS];  /* the rank of bit s in Γ, or 255 when s is not in Γ */
  unsigned short group_mask[MAX_PASS_STEPS];   /* local positions of group g */
  unsigned char group_steps[MAX_PASS_STEPS];
  int groups;
};

static __device__ __forceinline__ void
exchange (unsigned &x, unsigned &y, unsigned down)
{
  unsigned lo = min (x, y), hi = max (x, y);
  x = down ? hi : lo;
  y = down ? lo : hi;
}

/* One step on a thread's K = 2^M keys v[x] (local index unit | off[x]), on group bit R. */
template <int M, int R>
static __device__ __forceinline__ void
group_step (unsigned *v, const unsigned *off, unsigned unit, unsigned ls, unsigned fixed)
{
#pragma unroll
  for (int x = 0; x < (1 << M); x++)
    if (!(x & (1 << R)))
      exchange (v[x], v[x | 1 << R], ls == 255 ? fixed : (unit | off[x]) >> ls & 1);
}

template <int M>
static __device__ __forceinline__ void
group_step_any (unsigned rc, unsigned *v, const unsigned *off, unsigned unit, unsigned ls,
                unsigned fixed)
{
  switch (rc)
    {
    case 0:
      group_step<M, 0> (v, off, unit, ls, fixed);
      break;
    case 1:
      if (M > 1)
        group_step<M, (M > 1 ? 1 : 0)> (v, off, unit, ls, fixed);
      break;
    case 2:
      if (M > 2)
        group_step<M, (M > 2 ? 2 : 0)> (v, off, unit, ls, fixed);
      break;
    default:
      if (M > 3)
        group_step<M, (M > 3 ? 3 : 0)> (v, off, unit, ls, fixed);
      break;
    }
}

/* Block b sorts part b: the keys at base | deposit(e, gamma), e < tile, base = the bits of b in
 * the positions of @rest; local key e at shared word mdl_bitonic_slot (e, @pad). Each register
 * group: thread t takes units u = t, t + blockDim, ... (the indices that differ only in the
 * group's positions), loads its 2^M keys, runs the group's steps, stores them. */
template <int M>
__global__ void
bitonic_tile (unsigned *dst, const unsigned *src, unsigned n_src, unsigned gamma, unsigned rest,
              unsigned tile, unsigned pad, PassSteps steps)
{
  extern __shared__ unsigned sh[];
  unsigned t = threadIdx.x, b = blockDim.x;
  unsigned base = mdl_bitonic_deposit (blockIdx.x, rest);
  /* e = t + i·b with t < b: deposit(e) = deposit(t) | deposit(i·b), disjoint bits. */
  unsigned low = mdl_bitonic_deposit (t, gamma);
  for (unsigned i = 0; i < tile / b; i++)
    {
      unsigned g = base | low | mdl_bitonic_deposit (i * b, gamma), e = t + i * b;
      sh[mdl_bitonic_slot (e, pad)] = g < n_src ? src[g] : MDL_BITONIC_PAD;
    }
  __syncthreads ();
  for (int gi = 0, k = 0; gi < steps.groups; gi++)
    {
      unsigned gm = steps.group_mask[gi], others = (tile - 1) & ~gm, off[1 << M], v[1 << M];
#pragma unroll
      for (int x = 0; x < (1 << M); x++)
        off[x] = mdl_bitonic_deposit (x, gm);
      for (unsigned u = t; u < tile >> M; u += b)
        {
          unsigned unit = mdl_bitonic_deposit (u, others);
#pragma unroll
          for (int x = 0; x < (1 << M); x++)
            v[x] = sh[mdl_bitonic_slot (unit | off[x], pad)];
          for (int j = k; j < k + steps.group_steps[gi]; j++)
            group_step_any<M> (steps.rc[j], v, off, unit, steps.ls[j], base >> steps.s[j] & 1);
#pragma unroll
          for (int x = 0; x < (1 << M); x++)
            sh[mdl_bitonic_slot (unit | off[x], pad)] = v[x];
        }
      k += steps.group_steps[gi];
      __syncthreads ();
    }
  for (unsigned i = 0; i < tile / b; i++)
    dst[base | low | mdl_bitonic_deposit (i * b, gamma)] = sh[mdl_bitonic_slot (t + i * b, pad)];
}

__global__ void
bitonic_global (unsigned *dst, const unsigned *src, unsigned n_src, unsigned s, unsigned c)
{
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned p = mdl_bitonic_ins_at (j, 0, c), q = p | 1u << c;
  unsigned x = p < n_src ? src[p] : MDL_BITONIC_PAD, y = q < n_src ? src[q] : MDL_BITONIC_PAD;
  exchange (x, y, p >> s & 1);
  dst[p] = x;
  dst[q] = y;
}

__global__ void
bitonic_copy (unsigned *dst, const unsigned *src)
{
  dst[0] = src[0];
}

/* Lets @kernel take @bytes of dynamic shared memory (beyond 48 KiB needs the opt-in). */
template <typename K>
static void
allow_shared (K kernel, unsigned bytes)
{
  CUDA_OK (cudaFuncSetAttribute (kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes));
}

/* The plan of a case (the SIMT twin's: mdl_bitonic_plan with its parameters). */
static void
case_plan (const Case &c, MdlBitonicPlan *plan)
{
  std::string layout = c.text ("layout", "greedy");
  MdlBitonicLayout l = layout == "global"  ? MDL_BITONIC_GLOBAL
                       : layout == "stage" ? MDL_BITONIC_STAGE
                       : layout == "formula" ? MDL_BITONIC_FORMULA : MDL_BITONIC_GREEDY;
  mdl_bitonic_plan (plan, mdl_bitonic_log_ceil ((uint64_t) c.n),
                    mdl_bitonic_log_ceil ((uint64_t) c.num ("tile", 2048)),
                    mdl_bitonic_log_ceil ((uint64_t) c.num ("k", 16)), l);
}

static bool
pow2_in (long v, long lo, long hi)
{
  return v >= lo && v <= hi && (v & (v - 1)) == 0;
}

static bool
bitonic_validate (const Case &c, std::string *why)
{
  if (!mdl_cuda_choice_ok (c, "layout", "greedy", MDL_BITONIC_LAYOUT_CHOICES, why)
      || !mdl_cuda_dist_ok (c, why))
    return false;
  if (!pow2_in (c.num ("tile", 2048), 2, MAX_TILE))
    return mdl_cuda_refuse (why, "tile must be a power of two from 2 to 32768");
  if (!pow2_in (c.num ("block", 512), 1, 1024))
    return mdl_cuda_refuse (why, "block must be a power of two from 1 to 1024");
  if (!pow2_in (c.num ("k", 16), 1, 8192))
    return mdl_cuda_refuse (why, "k must be a power of two from 1 to 8192");
  if (!pow2_in (c.num ("regs", 2), 2, 16))
    return mdl_cuda_refuse (why, "regs must be 2, 4, 8 or 16");
  if (c.num ("pad", 0) != 0 && c.num ("pad", 0) != 1)
    return mdl_cuda_refuse (why, "pad must be 0 or 1");
  if (c.n < 1 || c.n > (1L << 28))
    return mdl_cuda_refuse (why, "n must be 1..2^28");
  return true;
}

static void
bitonic_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  mdl_cuda_fill_keys (c, b.in, rng);
  mdl_cuda_keys_scratch (c, b);
  b.out.assign (4 * ((size_t) 1 << mdl_bitonic_log_ceil ((uint64_t) c.n)), MDL_CUDA_POISON);
}

/* The passes of the network from @src to @out; returns the launches. */
static int
bitonic_passes (const Case &c, const unsigned *src, unsigned *out)
{
  static MdlBitonicPlan plan;
  unsigned n_src = (unsigned) c.n, block = (unsigned) c.num ("block", 512);
  unsigned log_regs = mdl_bitonic_log_ceil ((uint64_t) c.num ("regs", 2));
  unsigned pad = (unsigned) c.num ("pad", 0);
  case_plan (c, &plan);
  unsigned n_keys = 1u << plan.log_n, tile = 1u << plan.log_tile;
  if (plan.n_steps == 0)
    {
      bitonic_copy<<<1, 1>>> (out, src);
      return 1;
    }
  for (unsigned i = 0; i < plan.n_passes; i++)
    {
      const MdlBitonicPass &pass = plan.pass[i];
      if (pass.gamma)
        {
          static PassSteps steps;
          uint32_t mask[MDL_BITONIC_MAX_STEPS], counts[MDL_BITONIC_MAX_STEPS];
          unsigned m = std::min (log_regs, plan.log_tile), threads = std::min (block, tile >> m);
          unsigned shared = 4 * mdl_bitonic_slot (tile, pad);
          steps.groups = (int) mdl_bitonic_groups (&plan, &pass, m, mask, counts);
          for (int g = 0, k = 0; g < steps.groups; g++)
            {
              steps.group_mask[g] = (unsigned short) mask[g];
              steps.group_steps[g] = (unsigned char) counts[g];
              for (unsigned j = 0; j < counts[g]; j++, k++)
                {
                  unsigned s = plan.step_s[pass.first + k];
                  unsigned c = mdl_bitonic_rank (pass.gamma, plan.step_c[pass.first + k]);
                  steps.s[k] = (unsigned char) s;
                  steps.rc[k] = (unsigned char) mdl_bitonic_rank (mask[g], c);
                  steps.ls[k] = s < 32 && (pass.gamma >> s & 1)
                                  ? (unsigned char) mdl_bitonic_rank (pass.gamma, s) : 255;
                }
            }
          dim3 grid (n_keys / tile);
          if (shared > 48 * 1024)
            {
              allow_shared (bitonic_tile<1>, shared);
              allow_shared (bitonic_tile<2>, shared);
              allow_shared (bitonic_tile<3>, shared);
              allow_shared (bitonic_tile<4>, shared);
            }
          switch (m)
            {
            case 1:
              bitonic_tile<1><<<grid, threads, shared>>> (out, src, n_src, pass.gamma,
                                                          (n_keys - 1) & ~pass.gamma, tile, pad, steps);
              break;
            case 2:
              bitonic_tile<2><<<grid, threads, shared>>> (out, src, n_src, pass.gamma,
                                                          (n_keys - 1) & ~pass.gamma, tile, pad, steps);
              break;
            case 3:
              bitonic_tile<3><<<grid, threads, shared>>> (out, src, n_src, pass.gamma,
                                                          (n_keys - 1) & ~pass.gamma, tile, pad, steps);
              break;
            default:
              bitonic_tile<4><<<grid, threads, shared>>> (out, src, n_src, pass.gamma,
                                                          (n_keys - 1) & ~pass.gamma, tile, pad, steps);
              break;
            }
        }
      else
        {
          unsigned threads = std::min (block, n_keys / 2);
          bitonic_global<<<n_keys / 2 / threads, threads>>> (out, src, n_src,
                                                              plan.step_s[pass.first],
                                                              plan.step_c[pass.first]);
        }
      src = out;
      n_src = n_keys;
    }
  return (int) plan.n_passes;
}

static int
bitonic_launch (const Case &c, Buffers &b)
{
  int launches = 0;
  const unsigned *src = mdl_cuda_keys_in (c, b, &launches);
  launches += bitonic_passes (c, src, (unsigned *) b.d_out);
  mdl_cuda_keys_out (c, (unsigned *) b.d_out, (size_t) c.n, &launches);
  return launches;
}

static long
bitonic_check (const Case &c, const Buffers &b)
{
  return mdl_cuda_check_sort_total (c, b);
}

static std::string
bitonic_kernel (const Case &c)
{
  if (c.n <= 1)
    return "bitonic_copy";
  return c.text ("layout", "greedy") == "global" ? "bitonic_global" : "bitonic_tile";
}

const CudaTwin cuda_twin_sort_bitonic = { bitonic_validate, bitonic_prepare, bitonic_launch,
                                          bitonic_check, bitonic_kernel };
