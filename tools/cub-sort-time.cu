/* cub-sort-time: the baseline of the sorts' note (docs/models/sort-msimd-quicksort.md): CUB
 * DeviceRadixSort::SortKeys of n 32-bit keys of one distribution (src/algos/keys.h), timed with
 * CUDA events, 3 warm-ups and REPS timed runs, the median printed as keys/s; every run's output
 * checked sorted against the host's reference.
 *   nvcc -O3 -arch=sm_90 -std=c++17 -o cub-sort-time tools/cub-sort-time.cu
 *   cub-sort-time DIST REPS N...        (N: decimal or 2^K) */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cub/cub.cuh>

#include "../src/algos/keys.h"

#define OK(call)                                                                                   \
  do                                                                                               \
    {                                                                                              \
      cudaError_t e_ = (call);                                                                     \
      if (e_ != cudaSuccess)                                                                       \
        {                                                                                          \
          fprintf (stderr, "cub-sort-time: %s: %s\n", #call, cudaGetErrorString (e_));             \
          return 2;                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

int
main (int argc, char **argv)
{
  if (argc < 4)
    {
      fprintf (stderr, "usage: cub-sort-time DIST REPS N...\n");
      return 2;
    }
  int dist = mdl_keys_dist_index (argv[1]), reps = atoi (argv[2]);
  if (dist < 0 || reps < 1)
    {
      fprintf (stderr, "cub-sort-time: bad distribution or REPS\n");
      return 2;
    }
  for (int a = 3; a < argc; a++)
    {
      std::string s = argv[a];
      size_t n = s.compare (0, 2, "2^") == 0 ? (size_t) 1 << atoi (s.c_str () + 2)
                                             : (size_t) strtoull (s.c_str (), NULL, 0);
      std::vector<uint32_t> keys (n), got (n);
      if (!mdl_keys_fill (keys.data (), n, (MdlKeyDist) dist, 1))
        return 2;
      uint32_t *d_in, *d_out;
      void *tmp = nullptr;
      size_t tmp_bytes = 0;
      OK (cudaMalloc (&d_in, 4 * n));
      OK (cudaMalloc (&d_out, 4 * n));
      OK (cudaMemcpy (d_in, keys.data (), 4 * n, cudaMemcpyHostToDevice));
      OK (cub::DeviceRadixSort::SortKeys (tmp, tmp_bytes, d_in, d_out, (int) n));
      OK (cudaMalloc (&tmp, tmp_bytes));
      cudaEvent_t t0, t1;
      OK (cudaEventCreate (&t0));
      OK (cudaEventCreate (&t1));
      std::vector<float> ms;
      for (int r = 0; r < reps + 3; r++)
        {
          float t;
          OK (cudaEventRecord (t0));
          OK (cub::DeviceRadixSort::SortKeys (tmp, tmp_bytes, d_in, d_out, (int) n));
          OK (cudaEventRecord (t1));
          OK (cudaEventSynchronize (t1));
          OK (cudaEventElapsedTime (&t, t0, t1));
          if (r >= 3)
            ms.push_back (t);
        }
      OK (cudaMemcpy (got.data (), d_out, 4 * n, cudaMemcpyDeviceToHost));
      uint64_t bad = mdl_keys_check (keys.data (), got.data (), n, NULL);
      std::sort (ms.begin (), ms.end ());
      printf ("cub-radix-sort,%s,%zu,%.3f,%.3f,%llu\n", argv[1], n, 1000.0 * ms[ms.size () / 2],
              n / (ms[ms.size () / 2] * 1e-3) / 1e9, (unsigned long long) bad);
      cudaFree (d_in);
      cudaFree (d_out);
      cudaFree (tmp);
    }
  return 0;
}
