/* The CUDA twins of the SIMT micro-kernels in src/algos/simt/ (docs/models/gpu.md).
 *
 * Each kernel is written so that its memory instructions are exactly the ones its SIMT twin
 * issues: no bounds checks (the harness sizes every grid to cover the data exactly), no
 * __restrict__ (which would turn LDG.E into the read-only LDG.E.CONSTANT path), fill loops with
 * compile-time trip counts (unrolled, so they add no branch). The element types fix the access
 * width: unsigned for 4 bytes, uint2 for 8 and uint4 for 16 (LDG.E, LDG.E.64, LDG.E.128 and the
 * LDS/STS equivalents; tools/gpu-measure.sh keeps the SASS that shows it). */
#ifndef MDL_CUDA_KERNELS_CUH
#define MDL_CUDA_KERNELS_CUH

#include "../gpu-mix.h"
#include "../gpu-sizes.h"

template <int W> struct Elem;
template <> struct Elem<4> { typedef unsigned T; };
template <> struct Elem<8> { typedef uint2 T; };
template <> struct Elem<16> { typedef uint4 T; };

/* The lane index table of shared_gather: lane l reads element c_gather_idx[l]. */
__constant__ int c_gather_idx[32];

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

/* Fills shared memory, then lane l loads element l * stride. */
template <typename T>
__global__ void
shared_stride_ld (T *out, T *in, int stride)
{
  __shared__ T s[MDL_GPU_SHARED_ELEMS];
  shared_fill (s, in);
  __syncthreads ();
  out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x * stride];
}

/* Lane l stores its element at l * stride, then loads it back from there. */
template <typename T>
__global__ void
shared_stride_st (T *out, T *in, int stride)
{
  __shared__ T s[MDL_GPU_SHARED_ELEMS];
  T v = in[blockIdx.x * 32 + threadIdx.x];
  s[threadIdx.x * stride] = v;
  __syncthreads ();
  out[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x * stride];
}

/* Fills shared memory, then lane l loads element c_gather_idx[l] (broadcasts, probes). */
template <typename T>
__global__ void
shared_gather (T *out, T *in)
{
  __shared__ T s[MDL_GPU_SHARED_ELEMS];
  shared_fill (s, in);
  __syncthreads ();
  out[blockIdx.x * 32 + threadIdx.x] = s[c_gather_idx[threadIdx.x]];
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

/* Interleaved addressing with a strided index: at distance d, thread t adds s[2dt + d] into
 * s[2dt]; the active threads stay packed at the front, but their addresses spread over banks. */
__global__ void
reduce_interleaved (unsigned *out, unsigned *in)
{
  __shared__ unsigned s[MDL_GPU_REDUCE_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * MDL_GPU_REDUCE_BLOCK + t];
  __syncthreads ();
#pragma unroll
  for (unsigned d = 1; d < MDL_GPU_REDUCE_BLOCK; d *= 2)
    {
      unsigned k = 2 * d * t;
      if (k < MDL_GPU_REDUCE_BLOCK)
        s[k] += s[k + d];
      __syncthreads ();
    }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

/* Interleaved addressing with a divergent test: at distance d, the threads that are multiples of
 * 2d add s[t + d] into s[t]; every warp stays half-active or less from the first step on. */
__global__ void
reduce_divergent (unsigned *out, unsigned *in)
{
  __shared__ unsigned s[MDL_GPU_REDUCE_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * MDL_GPU_REDUCE_BLOCK + t];
  __syncthreads ();
#pragma unroll
  for (unsigned d = 1; d < MDL_GPU_REDUCE_BLOCK; d *= 2)
    {
      if ((t & (2 * d - 1)) == 0)
        s[t] += s[t + d];
      __syncthreads ();
    }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

/* Sequential addressing: at half-width h, threads t < h add s[t + h] into s[t]; consecutive
 * threads touch consecutive words, and whole warps drop out until h < 32. */
__global__ void
reduce_sequential (unsigned *out, unsigned *in)
{
  __shared__ unsigned s[MDL_GPU_REDUCE_BLOCK];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * MDL_GPU_REDUCE_BLOCK + t];
  __syncthreads ();
#pragma unroll
  for (unsigned h = MDL_GPU_REDUCE_BLOCK / 2; h > 0; h /= 2)
    {
      if (t < h)
        s[t] += s[t + h];
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

#endif
