/* Private: the launch shapes that the CUDA twins (src/algos/cuda) and their SIMT twins
 * (src/algos/simt) share, so that both run the same grid over the same data layout. Plain
 * macros, read by nvcc and by the C compiler. */
#ifndef MDL_GPU_SIZES_H
#define MDL_GPU_SIZES_H

/* Threads per block of the global-memory kernels (global-stride, global-atomic). */
#define MDL_GPU_GLOBAL_BLOCK 128
/* Elements of shared memory per block of the shared-memory kernels: 32 lanes x 33, room for
 * lane * stride up to stride 33. Those kernels run one warp per block. */
#define MDL_GPU_SHARED_ELEMS 1056
/* Transpose: a tile of 32 x 32 words moved by a block of 32 x 8 threads. */
#define MDL_GPU_TILE 32
#define MDL_GPU_TILE_ROWS 8
/* Words summed per block by the reductions (one thread each). */
#define MDL_GPU_REDUCE_BLOCK 256
/* Threads per block of the branch kernels. */
#define MDL_GPU_BRANCH_BLOCK 64

/* Default problem sizes (n) of the families, used by the harness and by `models measure` when a
 * case names none: threads for global-*, shared-* and branch, matrix elements for transpose
 * (a 256 x 256 matrix), words for reduce. */
#define MDL_GPU_N_GLOBAL 1024
#define MDL_GPU_N_SHARED 256
#define MDL_GPU_N_TRANSPOSE 65536
#define MDL_GPU_N_REDUCE 4096
#define MDL_GPU_N_BRANCH 256

#endif
