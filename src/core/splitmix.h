/* Private: SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), the one generator of the library's
 * inputs (CPU and SIMT algorithms, the CUDA harness) and of the cache's random policy. GRand is
 * not used for these because GLib does not promise to keep its sequence, and inputs must repeat
 * across builds and platforms. Only <stdint.h>: the CUDA harness, built without GLib, includes it
 * too, so both sides of a GPU algorithm draw the same inputs from the same seed. */
#ifndef MDL_SPLITMIX_H
#define MDL_SPLITMIX_H

#include <stdint.h>

/* The step added to the state for each number. */
#define MDL_SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull

/* The mix runs in CUDA kernels too (hull/msimd's random pairs). */
#ifdef __CUDACC__
#define MDL_SPLITMIX_HD __host__ __device__
#else
#define MDL_SPLITMIX_HD
#endif

/* The number that state @z (already advanced) gives. */
MDL_SPLITMIX_HD static inline uint64_t
mdl_splitmix64_mix (uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Advances @state and returns its next 64-bit number. The k-th number after a state s is
 * mdl_splitmix64_mix (s + k * MDL_SPLITMIX64_GAMMA), so a long run can be drawn in parallel. */
static inline uint64_t
mdl_splitmix64 (uint64_t *state)
{
  return mdl_splitmix64_mix (*state += MDL_SPLITMIX64_GAMMA);
}

#endif
