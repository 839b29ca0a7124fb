/* Private: the integer mixing chains that the branch micro-kernels run on each side of a branch.
 * One copy is compiled by nvcc for the CUDA twins (src/algos/cuda) and by the C compiler for the
 * SIMT twins and the references, so the two sides compute the same function by construction.
 * Each chain is long enough (8 dependent multiply/xor-shift rounds) that nvcc keeps a real branch
 * around it instead of predicating both sides, and the four chains differ in their constants so
 * that the two sides of an if/else cannot be merged. Arithmetic is on uint32, wrapping. */
#ifndef MDL_GPU_MIX_H
#define MDL_GPU_MIX_H

#ifdef __CUDACC__
#define MDL_MIX_FN static __host__ __device__ __forceinline__
typedef unsigned int mdl_mix_u32;
#else
#include <stdint.h>
#define MDL_MIX_FN static inline
typedef uint32_t mdl_mix_u32;
#endif

/* The number of rounds of every chain. */
#define MDL_MIX_ROUNDS 8

MDL_MIX_FN mdl_mix_u32
mdl_mix_round (mdl_mix_u32 v, mdl_mix_u32 mul, mdl_mix_u32 add, unsigned shift)
{
  v = v * mul + add;
  return v ^ (v >> shift);
}

/* Chain @which (0..3): MDL_MIX_ROUNDS rounds with constants of its own. */
MDL_MIX_FN mdl_mix_u32
mdl_mix (mdl_mix_u32 v, unsigned which)
{
  mdl_mix_u32 mul = which == 0 ? 0x9E3779B1u : which == 1 ? 0x85EBCA77u
                  : which == 2 ? 0xC2B2AE3Du : 0x27D4EB2Fu;
  for (unsigned r = 0; r < MDL_MIX_ROUNDS; r++)
    v = mdl_mix_round (v, mul + 2u * r, 0x165667B1u + which * 0x1000193u + r, 13u + (which + r) % 7u);
  return v;
}

#endif
