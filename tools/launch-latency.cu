// launch-latency: what a kernel launch costs the host loop of Cederman's static list, on the
// GPU at hand (the value of data/machines.ini's launch_ns; docs/models/agpu.md, "Launches").
//
// Three loops of an empty one-block kernel, each timed on the host clock over ITERS iterations,
// REPS times (median and range printed, in us per iteration):
//   queued:  ITERS launches back to back, then one synchronisation (what a persistent balancer's
//            two launches and a reduction's levels pay: the launch overlaps the previous kernel);
//   sync:    a launch and cudaDeviceSynchronize per iteration;
//   static:  a launch, a 4-byte cudaMemcpy device to host and a 4-byte cudaMemset per iteration:
//            Algorithm 4's host loop as src/algos/cuda/balance.cu runs it (read the task count,
//            clear it, launch again).
// Build and run: nvcc -O2 -o launch-latency tools/launch-latency.cu && ./launch-latency
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../src/algos/cuda/cuda-check.h"

enum { ITERS = 2000, REPS = 7, WARMUP = 200 };

// Touches its argument only when no thread can match, so it does no work but is not elided.
__global__ void
empty_kernel (unsigned *word)
{
  if (threadIdx.x == 1024u)
    *word = 0;
}

enum Loop { QUEUED, SYNC, STATIC_LIST };

static void
run (Loop loop, unsigned *d_word, int iters)
{
  unsigned host = 0;
  for (int i = 0; i < iters; i++)
    {
      empty_kernel<<<1, 32>>> (d_word);
      if (loop == SYNC)
        CUDA_OK (cudaDeviceSynchronize ());
      else if (loop == STATIC_LIST)
        {
          CUDA_OK (cudaMemcpy (&host, d_word, sizeof host, cudaMemcpyDeviceToHost));
          CUDA_OK (cudaMemset (d_word, 0, sizeof host));
        }
    }
  CUDA_OK (cudaDeviceSynchronize ());
}

int
main ()
{
  static const char *const names[] = { "queued", "sync", "static" };
  cudaDeviceProp prop;
  unsigned *d_word;
  int clock_khz = 0;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));
  CUDA_OK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0));
  CUDA_OK (cudaMalloc (&d_word, sizeof *d_word));
  CUDA_OK (cudaMemset (d_word, 0, sizeof *d_word));
  printf ("# %s, %d SMs, SM clock %d MHz (the attribute: the clock the card can boost to)\n",
          prop.name, prop.multiProcessorCount, clock_khz / 1000);
  printf ("loop\tmedian_us\tmin_us\tmax_us\tmedian_cycles\n");
  for (int l = QUEUED; l <= STATIC_LIST; l++)
    {
      std::vector<double> us;
      run ((Loop) l, d_word, WARMUP);
      for (int r = 0; r < REPS; r++)
        {
          auto t0 = std::chrono::steady_clock::now ();
          run ((Loop) l, d_word, ITERS);
          auto t1 = std::chrono::steady_clock::now ();
          us.push_back (std::chrono::duration<double, std::micro> (t1 - t0).count () / ITERS);
        }
      std::sort (us.begin (), us.end ());
      printf ("%s\t%.2f\t%.2f\t%.2f\t%.0f\n", names[l], us[REPS / 2], us.front (), us.back (),
              us[REPS / 2] * clock_khz / 1000.0);
    }
  CUDA_OK (cudaFree (d_word));
  return 0;
}
