// atomic-chain: how long one atomic lane update holds a contended global word on the GPU at hand
// (agpu's atomic_ps, in ps: 1000 x the median_ns printed here; docs/models/agpu.md, "Atomic chains").
//
// G blocks of one warp each; lanes 0..L-1 of every warp add 1 to the same word, ITERS times,
// using the old value (an ATOM, not a RED: the octree's termination counter needs the old value
// to tell who brought it to n). Every update of the word follows the one before, so the kernel
// lasts about G x L x ITERS x atomic_ps once enough warps keep the word busy. Timed by CUDA events,
// REPS times; the median, least and greatest ns per lane update are printed for each G and L.
// The row that feeds a preset: the most blocks and 8 lanes (the octree's leaf adds: lanes 0..7).
// Build and run: nvcc -O2 -arch=sm_90 -o atomic-chain tools/atomic-chain.cu && ./atomic-chain
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(call)                                                                  \
  do                                                                                   \
    {                                                                                  \
      cudaError_t e_ = (call);                                                         \
      if (e_ != cudaSuccess)                                                           \
        {                                                                              \
          fprintf (stderr, "atomic-chain: %s: %s\n", #call, cudaGetErrorString (e_)); \
          exit (1);                                                                    \
        }                                                                              \
    }                                                                                  \
  while (0)

enum { ITERS = 256, REPS = 7 };

// The old values are summed into @sink so that the compiler keeps the ATOM with its result.
__global__ void
chain_kernel (unsigned *word, unsigned *sink, unsigned lanes)
{
  unsigned acc = 0;
  if (threadIdx.x < lanes)
    for (int i = 0; i < ITERS; i++)
      acc += atomicAdd (word, 1u);
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
  printf ("blocks\tlanes\tupdates\tmedian_ns\tmin_ns\tmax_ns\n");
  for (unsigned g : grids)
    for (unsigned l : lanes)
      {
        double updates = (double) g * l * ITERS;
        std::vector<double> ns;
        chain_kernel<<<g, 32>>> (d_word, d_word + 1, l);   // warm-up
        for (int r = 0; r < REPS; r++)
          {
            float ms = 0;
            CUDA_OK (cudaEventRecord (start));
            chain_kernel<<<g, 32>>> (d_word, d_word + 1, l);
            CUDA_OK (cudaEventRecord (stop));
            CUDA_OK (cudaEventSynchronize (stop));
            CUDA_OK (cudaEventElapsedTime (&ms, start, stop));
            ns.push_back (ms * 1e6 / updates);
          }
        std::sort (ns.begin (), ns.end ());
        printf ("%u\t%u\t%.0f\t%.3f\t%.3f\t%.3f\n", g, l, updates, ns[REPS / 2], ns.front (),
                ns.back ());
      }
  CUDA_OK (cudaFree (d_word));
  return 0;
}
