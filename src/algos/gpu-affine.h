/* Private: the non-commutative operator of the order-preserving GPU algorithms (reduce/pipeline,
 * reduce/matrix): composition of affine maps x -> a x + c (mod 2^16), a in the high half of a
 * 32-bit word and c in the low half; f (+) g = "f, then g" = (a_f a_g, a_g c_f + c_g).
 * Associative, not commutative; the identity is (1, 0). One copy, compiled by nvcc for the CUDA
 * twins (src/algos/cuda) and by the C compiler for the SIMT twins, so both sides apply the same
 * operator by construction. No GLib: the GPU machine has none. */
#ifndef MDL_GPU_AFFINE_H
#define MDL_GPU_AFFINE_H

#ifdef __CUDACC__
#define MDL_AFFINE_FN static __host__ __device__ __forceinline__
typedef unsigned int mdl_affine_u32;
#else
#include <stdint.h>
#define MDL_AFFINE_FN static inline
typedef uint32_t mdl_affine_u32;
#endif

/* The identity map (a = 1, c = 0). */
#define MDL_AFFINE_ID 0x00010000u

MDL_AFFINE_FN mdl_affine_u32
mdl_affine (mdl_affine_u32 f, mdl_affine_u32 g)
{
  mdl_affine_u32 af = f >> 16, cf = f & 0xffffu, ag = g >> 16, cg = g & 0xffffu;
  return ((af * ag) & 0xffffu) << 16 | ((ag * cf + cg) & 0xffffu);
}

#endif
