// atomic-chain: how long one atomic update holds a contended global word on the GPU at hand
// (agpu's atomic_ps, in ps: 1000 x the median_ns printed here; docs/models/agpu.md, "Atomic chains").
//
// G blocks of one warp each; lanes 0..L-1 of every warp add to the same word, ITERS times, using
// the old value (an ATOM, not a RED: the octree's termination counter needs the old value to tell
// who brought it to n). The operand is 1 in every lane ("one"), or lane + 1 ("lane": the octree's
// leaf adds, each lane its own count), since a compiler can merge a warp's equal adds into one
// and may not merge unequal ones. Every update of the word follows the one before, so the kernel
// lasts about G x L x ITERS x (ns a lane update) once enough warps keep the word busy. Timed by
// CUDA events, REPS times; the median, least and greatest ns per lane update are printed for each
// G, L and operand. The row that feeds a preset: the most blocks and 1 lane, one update per warp
// instruction (agpu's chain counts lane updates; docs/experiments/load-balancing.md, "The H100's
// atomic_ps"). Build and run: nvcc -O2 -arch=sm_90 -o atomic-chain tools/atomic-chain.cu &&
// ./atomic-chain; `cuobjdump -sass atomic-chain | grep -E 'ATOM|RED|REDUX|POPC'` shows what the
// compiler made of the adds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../src/algos/cuda/cuda-check.h"

enum { ITERS = 256, REPS = 7 };

// The old values are summed into @sink so that the compiler keeps the ATOM with its result. The
// operand is a template argument so that the "one" kernel adds the literal 1, as in the runs
// before the "lane" kernel was added.
template <bool PER_LANE>
__global__ void
chain_kernel (unsigned *word, unsigned *sink, unsigned lanes)
{
  unsigned acc = 0, add = PER_LANE ? threadIdx.x + 1 : 1u;
  if (threadIdx.x < lanes)
    for (int i = 0; i < ITERS; i++)
      acc += atomicAdd (word, add);
  if (acc == 0xffffffffu)
    *sink = acc;
}

int
main ()
{
  static const unsigned grids[] = { 1, 132, 528, 1320 }, lanes[] = { 1, 8, 32 };
  cudaDeviceProp prop;
  cudaEvent_t start, stop;
  unsigned *d_word;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));
  CUDA_OK (cudaMalloc (&d_word, 2 * sizeof *d_word));
  CUDA_OK (cudaEventCreate (&start));
  CUDA_OK (cudaEventCreate (&stop));
  printf ("# %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  printf ("blocks\tlanes\toperand\tupdates\tmedian_ns\tmin_ns\tmax_ns\n");
  for (unsigned per_lane = 0; per_lane < 2; per_lane++)
    for (unsigned g : grids)
      for (unsigned l : lanes)
        {
        if (per_lane && l == 1)
          continue;   // one lane: the operands are the same
        double updates = (double) g * l * ITERS;
        std::vector<double> ns;
        auto kernel = per_lane ? chain_kernel<true> : chain_kernel<false>;
        kernel<<<g, 32>>> (d_word, d_word + 1, l);   // warm-up
        for (int r = 0; r < REPS; r++)
          {
            float ms = 0;
            CUDA_OK (cudaEventRecord (start));
            kernel<<<g, 32>>> (d_word, d_word + 1, l);
            CUDA_OK (cudaEventRecord (stop));
            CUDA_OK (cudaEventSynchronize (stop));
            CUDA_OK (cudaEventElapsedTime (&ms, start, stop));
            ns.push_back (ms * 1e6 / updates);
          }
        std::sort (ns.begin (), ns.end ());
        printf ("%u\t%u\t%s\t%.0f\t%.3f\t%.3f\t%.3f\n", g, l, per_lane ? "lane" : "one", updates,
                ns[REPS / 2], ns.front (), ns.back ());
      }
  CUDA_OK (cudaFree (d_word));
  return 0;
}
