/* Private: the shapes the warp-primitive micro-kernels (gpu/shuffle, gpu/vote, gpu/atomic) share
 * between their SIMT twins (src/algos/simt/prims.c) and CUDA twins (src/algos/cuda/prims.cu).
 * Plain preprocessor text, read by nvcc and by the C compiler. */
#ifndef MDL_GPU_PRIMS_H
#define MDL_GPU_PRIMS_H

/* Threads per block and the default n: 8 blocks of 4 warps. */
#define MDL_GPU_PRIM_BLOCK 128
#define MDL_GPU_N_PRIM 1024

/* gpu/atomic, space=shared: each block's accumulators, 32 per lane of a block (4 warps x 32
 * lanes x stride 32 covers every pattern), zeroed by the block, then copied out. */
#define MDL_GPU_ATOM_SHARED_ELEMS 4096

/* The grids of the default cases. */
#define MDL_GPU_SHUFFLE_CASES "mode=idx|up|down|xor,width=32|16|4,sel=1|3"
#define MDL_GPU_VOTE_CASES "mode=ballot|any|all,mask=ffffffff|0000ffff|55555555"
#define MDL_GPU_ATOMIC_CASES                                                                       \
  "op=add|exch|cas|min|max|umin|umax,space=global|shared,k=1|32"                                   \
  ";op=add,space=global|shared,k=2|4|8|16"                                                         \
  ";op=add,space=global|shared,k=1|4,stride=32"                                                    \
  ";op=add|min,space=global|shared,k=1|32,ret=0"                                                   \
  ";op=add|exch|cas|min,space=global|shared,k=1|32,width=8"                                        \
  ";op=add,space=global|shared,k=1|32,warps=together"

#endif
