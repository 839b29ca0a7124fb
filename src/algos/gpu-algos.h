/* Private: the GPU algorithms, one row each. The C library (src/algos/algos.c) makes each row an
 * algorithm of the registry with its SIMT entry points and its GPU descriptor (MdlGpuAlgo); the
 * CUDA harness (src/algos/cuda/harness.cu) makes each row with a CUDA twin a case family it can
 * check, time and profile. Both expand the same list, so they agree on names, default sizes, launch
 * geometry and default cases by construction. Plain preprocessor text: read by nvcc and by the C
 * compiler, no GLib.
 *
 * MDL_GPU_ALGOS (X) calls X (SYM, NAME, PARAMS, TWIN, DEFAULT_N, BLOCK, CHECKED_ON, CASES, SUMMARY):
 *   SYM         the C symbol stem: the SIMT entry points are mdl_algo_gpu_SYM_run and _native, the
 *               CUDA twin (src/algos/cuda/) is the CudaTwin cuda_twin_SYM;
 *   NAME        the registry name, as `models run` and the cases spell it;
 *   PARAMS      the SIMT twin's parameter table (an MdlParamSpec array);
 *   TWIN        cuda when a CUDA twin exists, none when only the SIMT twin does;
 *   DEFAULT_N   n of a case that names none;
 *   BLOCK       threads per block of its launches at the default parameters;
 *   CHECKED_ON  the engines whose counters are compared with Nsight Compute's metrics;
 *   CASES       the default cases as a parameter grid: key=v1|v2|... joined by ',' give every
 *               combination (the last key varying fastest); grids joined by ';' are listed one
 *               after the other;
 *   SUMMARY     one line for `models list`.
 * Adding a GPU algorithm: its SIMT file, its CUDA file, and a row here. Baselines (below) have a
 * CUDA file and a row. */
#ifndef MDL_GPU_ALGOS_H
#define MDL_GPU_ALGOS_H

#include "gpu-prims.h"
#include "gpu-sizes.h"
#include "keys.h"
#include "particles.h"
#include "points.h"

/* The engines that predict what Nsight Compute counts. */
#define MDL_GPU_HW_ENGINES "coalesce,banks,divergence"

/* The strides of the micro-kernels' cases: unit, powers of two up to a whole warp, and 33 (odd,
 * so every lane lands in another bank); shared memory adds 0 (every lane one element) and 3. */
#define MDL_GPU_STRIDES "stride=1|2|4|8|16|32|33"
#define MDL_GPU_SHARED_STRIDES "stride=0|1|2|3|4|8|16|32|33"

/* The probes of the 8- and 16-byte rules for partial warps: half warps, even lanes, and alternate
 * quarter warps run the instruction. */
#define MDL_GPU_MASKS "mask=0000ffff|55555555|0f0f0f0f"

/* The lane patterns of gpu/shared-gather that pin down the bank rules (docs/models/gpu.md), in
 * order: one broadcast; lanes 16..31 repeating lanes 0..15; pairs of lanes sharing a word; lanes
 * 0..15 all in bank group 0, 16..31 unit stride; the warp's halves swapping halves of a row;
 * quarter-warps repeating the first quarter; two words per bank pair; two broadcasts; two words of
 * one bank; lanes 4..7 repeating lanes 0..3 in each quarter (4-lane or 8-lane merging). */
#define MDL_GPU_GATHER_PATTERNS                                                                    \
  "idx=0"                                                                                          \
  "|0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15"                                                         \
  "|0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15"                   \
  "|0.32.64.96.128.160.192.224.256.288.320.352.384.416.448.480.16.17.18.19.20.21.22.23.24.25.26."  \
  "27.28.29.30.31"                                                                                 \
  "|16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31.0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15"        \
  "|0.1.2.3.4.5.6.7"                                                                               \
  "|0.2.4.6.8.10.12.14.48.50.52.54.56.58.60.62.1.3.5.7.9.11.13.15.49.51.53.55.57.59.61.63"        \
  "|0.1"                                                                                           \
  "|0.32"                                                                                          \
  "|0.1.2.3.0.1.2.3.4.5.6.7.4.5.6.7.8.9.10.11.8.9.10.11.12.13.14.15.12.13.14.15"

/* The grids of the AGPU algorithms (Koike & Sadakane): b from one warp to 512 threads per block,
 * and k = 16 multiprocessors (the SIMT default, the paper's scale) or 1024 blocks (about 8 per SM
 * of an H100, enough to fill it). reduce/matrix stops at b = 128: its b x (b+1) tile at 256 is more
 * shared memory than a block of an H100 may have. A grid names order=fixed (carry=advance), the
 * default, so that the harness also takes the case with order=printed (carry=printed). */
#define MDL_GPU_AGPU_B "b=32|64|128|256|512"
#define MDL_GPU_AGPU_K "k=16|1024"

/* The block sizes of the scans' cases: the thesis's 2048 elements, half (512 threads) and twice
 * (1024 threads, two rounds at the first level). mapping=literal is in place up to k^2 elements
 * per block, so its case keeps blocks of k^2 = 256 and passes at every n (beyond, it fails its
 * check, as the SIMT twin does). */
#define MDL_GPU_SCAN_BLOCKS "block=1024|2048|4096"

/* The cases of sort/msimd-quicksort: every distribution at P = 1056 warps (8 per SM of an H100),
 * then uniform keys over the processors, the rules, the commits and the base sizes; float keys of
 * every distribution. */
#define MDL_GPU_MQS_CASES                                                                          \
  "dist=" MDL_KEY_DIST_CHOICES ",P=1056,rule=spare,commit=buffered,base=256"                       \
  ";dist=uniform,P=16|132|264|528|2112|4224,rule=spare,commit=buffered,base=256"                   \
  ";dist=uniform,P=1056,rule=literal|spare,commit=direct|buffered,base=1024"                      \
  ";dist=" MDL_KEY_DIST_CHOICES ",P=1056,rule=spare,commit=buffered,base=256,keys=f32"

/* The cases of sort/bitonic (docs/models/sort-bitonic.md), on uniform keys: global steps only;
 * Algorithm 4 as printed (a pair per step through shared memory) in the stage, greedy and formula
 * cuts at tiles of 2048 and 4096 keys; register groups of 8 or 16 keys with padded shared memory
 * at tiles of 4096 to 32768 keys; and the fastest at 2^26 on H100 (tiles of 32768, 16 keys a
 * thread) on every other distribution of MDL_KEY_DIST_CHOICES (the network is data-independent),
 * and on float keys of every distribution. */
#define MDL_GPU_BITONIC_CASES                                                                      \
  "layout=global,block=256,dist=uniform"                                                           \
  ";layout=stage,tile=2048|4096,block=512,regs=2,pad=0,dist=uniform"                               \
  ";layout=greedy|formula,tile=2048|4096,k=16|32,block=512,regs=2,pad=0,dist=uniform"              \
  ";layout=stage,tile=8192|32768,block=512,regs=16,pad=1,dist=uniform"                             \
  ";layout=greedy,tile=4096|8192|16384|32768,k=32,block=512|1024,regs=8|16,pad=1,dist=uniform"     \
  ";layout=greedy,tile=32768,k=32,block=1024,regs=16,pad=1,"                                       \
  "dist=gaussian|zero|sorted|bucket|staggered|reverse|few"                                         \
  ";layout=greedy,tile=32768,k=32,block=1024,regs=16,pad=1,dist=special"                           \
  ";layout=greedy,tile=32768,k=32,block=1024,regs=16,pad=1,keys=f32,dist=" MDL_KEY_DIST_CHOICES

/* The grids of the merge sorts (sort/warpsort, sort/dway-merge): l and sigma chosen from n (0),
 * b = 128 and 256 on uniform keys (D: the d values, or ""), and b = 256 (E: d = 4, or "") on
 * every distribution, 32-bit and float keys. */
#define MDL_GPU_MERGE_CASES(D, E)                                                                  \
  "b=128|256," D "l=0,sigma=0,dist=uniform;b=256," E "l=0,sigma=0,dist=" MDL_KEY_DIST_CHOICES      \
  ";b=256," E "l=0,sigma=0,keys=f32,dist=" MDL_KEY_DIST_CHOICES

#define MDL_GPU_ALGOS(X)                                                                           \
  X (global_stride, "gpu/global-stride", mdl_gpu_global_stride_params, cuda, MDL_GPU_N_GLOBAL,     \
     MDL_GPU_GLOBAL_BLOCK, MDL_GPU_HW_ENGINES,                                                      \
     "op=ld|st,width=4|8|16," MDL_GPU_STRIDES ",misalign=0|1",                                         \
     "SIMT: lane i loads (op=ld) or stores (op=st) element first + i*stride of width bytes")      \
  X (global_atomic, "gpu/global-atomic", mdl_gpu_global_atomic_params, cuda, MDL_GPU_N_GLOBAL,     \
     MDL_GPU_GLOBAL_BLOCK, MDL_GPU_HW_ENGINES, "stride=1|32",                                       \
     "SIMT: lane i adds atomically into word i*stride")                                            \
  X (shared_stride, "gpu/shared-stride", mdl_gpu_shared_stride_params, cuda, MDL_GPU_N_SHARED,     \
     32, MDL_GPU_HW_ENGINES,                                                                       \
     "op=ld|st,width=4|8|16," MDL_GPU_SHARED_STRIDES                                               \
     ";op=ld|st,width=8|16,stride=0|1|2," MDL_GPU_MASKS,                                            \
     "SIMT: one warp per block loads or stores shared element lane*stride")                        \
  X (shared_gather, "gpu/shared-gather", mdl_gpu_shared_gather_params, cuda, MDL_GPU_N_SHARED,     \
     32, MDL_GPU_HW_ENGINES,                                                                       \
     "width=4|8|16," MDL_GPU_GATHER_PATTERNS ";op=st,width=4|8|16," MDL_GPU_GATHER_PATTERNS         \
     ";op=ld|st,width=8|16,idx=0|0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13."  \
     "14.14.15.15|0.1," MDL_GPU_MASKS,                                                              \
     "SIMT: lane l loads or stores shared element idx[l] (broadcasts, bank probes)")               \
  X (transpose, "gpu/transpose", mdl_gpu_transpose_params, cuda, MDL_GPU_N_TRANSPOSE,              \
     MDL_GPU_TILE * MDL_GPU_TILE_ROWS, MDL_GPU_HW_ENGINES, "variant=naive;variant=shared,pad=0|1",  \
     "SIMT: N x N transpose, naive or through a (padded) shared tile")                             \
  X (reduce, "gpu/reduce", mdl_gpu_reduce_params, cuda, MDL_GPU_N_REDUCE, MDL_GPU_REDUCE_BLOCK,    \
     MDL_GPU_HW_ENGINES, "variant=interleaved|divergent|sequential",                                \
     "SIMT: block sums by a shared-memory tree, interleaved or sequential addressing")             \
  X (branch, "gpu/branch", mdl_gpu_branch_params, cuda, MDL_GPU_N_BRANCH, MDL_GPU_BRANCH_BLOCK,    \
     MDL_GPU_HW_ENGINES, "variant=half|if|nested|uniform|loop",                                     \
     "SIMT: divergent, nested, uniform branches and a divergent loop")                             \
  X (reduce_tree, "reduce/tree", mdl_reduce_tree_params, cuda, 1 << 20, 32, MDL_GPU_HW_ENGINES,    \
     MDL_GPU_AGPU_B,                                                                               \
     "SIMT: AGPU tree-based reduction (Koike & Sadakane Algorithm 1), chunks of 2b words per "     \
     "block of b threads")                                                                         \
  X (reduce_cascade, "reduce/cascade", mdl_reduce_cascade_params, cuda, 1 << 20, 32,               \
     MDL_GPU_HW_ENGINES, MDL_GPU_AGPU_B "," MDL_GPU_AGPU_K,                                        \
     "SIMT: AGPU cascading reduction (Koike & Sadakane Algorithms 2-3): k blocks sum columns of "  \
     "the n/p x p matrix, then reduce/tree")                                                       \
  X (reduce_pipeline, "reduce/pipeline", mdl_reduce_pipeline_params, cuda, 1 << 20, 32,            \
     MDL_GPU_HW_ENGINES, MDL_GPU_AGPU_B "," MDL_GPU_AGPU_K ",order=fixed",                         \
     "SIMT: AGPU pipeline reduction for non-commutative operators (Koike & Sadakane Algorithms "   \
     "4-6, order fixed), on affine maps")                                                          \
  X (reduce_matrix, "reduce/matrix", mdl_reduce_matrix_params, cuda, 1 << 20, 32,                  \
     MDL_GPU_HW_ENGINES, "b=32|64|128," MDL_GPU_AGPU_K,                                            \
     "SIMT: AGPU matrix-based reduction for non-commutative operators (Koike & Sadakane 5.2.1): "  \
     "b x (b+1) transposed tiles, each core folds a contiguous run, on affine maps")               \
  X (scan_nopad, "scan/nopad", mdl_scan_nopad_params, cuda, 1 << 20, 1024, MDL_GPU_HW_ENGINES,     \
     MDL_GPU_SCAN_BLOCKS,                                                                          \
     "SIMT: work-efficient exclusive scan (Blelloch/Harris up-sweep and down-sweep) in shared "    \
     "memory, no padding")                                                                         \
  X (scan_padding, "scan/padding", mdl_scan_padding_params, cuda, 1 << 20, 1024,                   \
     MDL_GPU_HW_ENGINES, MDL_GPU_SCAN_BLOCKS ",k=16|32",                                           \
     "SIMT: the same scan with Harris's padding, element i at word i + i/k")                       \
  X (scan_leftright, "scan/leftright", mdl_scan_leftright_params, cuda, 1 << 20, 1024,             \
     MDL_GPU_HW_ENGINES,                                                                           \
     MDL_GPU_SCAN_BLOCKS ",k=16|32,mapping=corrected;block=256,k=16,mapping=literal",              \
     "SIMT: the same scan with Capannini's LeftRight tree layout (Eq. 3.2), conflict-free stores") \
  X (scan_hillis_steele, "scan/hillis-steele", mdl_scan_hillis_steele_params, cuda, 1 << 20, 1024, \
     MDL_GPU_HW_ENGINES, MDL_GPU_SCAN_BLOCKS,                                                      \
     "SIMT: Hillis-Steele (CM) inclusive scan, log n steps of load, add, store")                   \
  X (scan_matrix, "scan/matrix", mdl_scan_matrix_params, cuda, 1 << 20, 32, MDL_GPU_HW_ENGINES,    \
     MDL_GPU_AGPU_B "," MDL_GPU_AGPU_K ",alpha=16|32,carry=advance",                               \
     "SIMT: AGPU matrix-based exclusive prefix sum (Koike & Sadakane Algorithms 7-8, cleaned): "   \
     "block sums, a scan of them on one block, alpha x (b+1) matrices per block")                   \
  X (msimd_quicksort, "sort/msimd-quicksort", mdl_msimd_quicksort_params, cuda, 1 << 20, 32,      \
     MDL_GPU_HW_ENGINES, MDL_GPU_MQS_CASES,                                                        \
     "SIMT: MSIMD quicksort (Jurkiewicz & Danilewski): collaborative C4 partitions by P warps "    \
     "(Lemma 1 assignment), then each warp sorts its own subproblem")                              \
  X (gpu_quicksort, "sort/gpu-quicksort", mdl_gpu_quicksort_params, cuda, 1 << 20, 128,            \
     MDL_GPU_HW_ENGINES,                                                                            \
     "dist=" MDL_KEY_DIST_CHOICES ";sum=serial|faa;pivot=median;threads=256,maxseq=2048,"          \
     "minsize=512;keys=f32,dist=" MDL_KEY_DIST_CHOICES ";phase1=host,dist=uniform|zero|sorted",     \
     "SIMT: Cederman's GPU-Quicksort: phase one (blocks share a sequence, FAA cursors), phase "    \
     "two (a block per sequence, shared stack), bitonic sort below MINSIZE")                        \
  X (shuffle, "gpu/shuffle", mdl_gpu_shuffle_params, cuda, MDL_GPU_N_PRIM, MDL_GPU_PRIM_BLOCK,     \
     MDL_GPU_HW_ENGINES, MDL_GPU_SHUFFLE_CASES,                                                     \
     "SIMT: lane i loads word i, shuffles it (idx, up, down or xor in segments of width lanes), "  \
     "stores it")                                                                                  \
  X (vote, "gpu/vote", mdl_gpu_vote_params, cuda, MDL_GPU_N_PRIM, MDL_GPU_PRIM_BLOCK,              \
     MDL_GPU_HW_ENGINES, MDL_GPU_VOTE_CASES,                                                        \
     "SIMT: the lanes of mask vote (ballot, any or all) on bit 0 of their word")                   \
  X (atomic, "gpu/atomic", mdl_gpu_atomic_params, cuda, MDL_GPU_N_PRIM, MDL_GPU_PRIM_BLOCK,        \
     MDL_GPU_HW_ENGINES, MDL_GPU_ATOMIC_CASES,                                                      \
     "SIMT: atomics (add, exch, cas, min, max, umin, umax) on global or shared words, k lanes per " \
     "address")                                                                                     \
  X (sort_bitonic, "sort/bitonic", mdl_sort_bitonic_params, cuda, 1 << 20, 512,                   \
     MDL_GPU_HW_ENGINES, MDL_GPU_BITONIC_CASES,                                                    \
     "SIMT: bitonic sorting network (Capannini 3.2) on 32-bit keys: global steps, shared-memory "  \
     "stages of a tile, or the thesis's greedy passes over Gamma-sequences")                        \
  X (sort_warpsort, "sort/warpsort", mdl_sort_warpsort_params, cuda, 1 << 14, 32,                \
     MDL_GPU_HW_ENGINES, MDL_GPU_MERGE_CASES ("", ""),                                                 \
     "SIMT: GPU-Warpsort as Koike & Sadakane model it (7.1.2): the four parts of sort/dway-merge " \
     "with 2-way merges")                                                                          \
  X (sort_dway, "sort/dway-merge", mdl_sort_dway_params, cuda, 1 << 14, 32, MDL_GPU_HW_ENGINES,    \
     MDL_GPU_MERGE_CASES ("d=2|4|8|16,", "d=4,"),                                                          \
     "SIMT: Koike & Sadakane's I/O-optimal d-way merge sort (7.3): bitonic blocks, column-wise "   \
     "d-way merges, separators, row-wise merges of all groups at once")                                  \
  X (balance_static, "balance/static", mdl_balance_static_params, cuda, 500000, 32,                \
     MDL_GPU_HW_ENGINES, MDL_GPU_BALANCE_CASES,                                                    \
     "SIMT: octree partitioning (Cederman 3.6) under the static task list (Algorithm 4): a "       \
     "launch per level, one block per task")                                                       \
  X (balance_blocking, "balance/blocking", mdl_balance_blocking_params, cuda, 500000, 32,          \
     MDL_GPU_HW_ENGINES, MDL_GPU_BALANCE_CASES ",blocks=8|32",                                     \
     "SIMT: octree partitioning under the blocking task queue (Algorithm 5): a CAS spin lock")     \
  X (balance_lockfree, "balance/lockfree", mdl_balance_lockfree_params, cuda, 500000, 32,          \
     MDL_GPU_HW_ENGINES, MDL_GPU_BALANCE_CASES ",blocks=8|32",                                     \
     "SIMT: octree partitioning under the lock-free task queue (Algorithm 6, Tsigas-Zhang slots)") \
  X (balance_abp, "balance/abp", mdl_balance_abp_params, cuda, 500000, 32, MDL_GPU_HW_ENGINES,     \
     MDL_GPU_BALANCE_CASES ",blocks=8|32",                                                         \
     "SIMT: octree partitioning under ABP work stealing: a deque per block, round-robin victims") \
  X (postings_vs, "postings/vs", mdl_postings_vs_params, cuda, 1 << 20, 16, "",                    \
     "dist=geometric|zipf,k=16|32,mean=16,bunches=opt"                                              \
     ";dist=geometric,k=16,mean=2|256,bunches=opt|5.16.33.1",                                       \
     "SIMT: Capannini's GPU decoder of VS-coded posting lists (3.3.4, approach ii, PPSUM_k)")      \
  X (postings_p4d, "postings/p4d", mdl_postings_p4d_params, cuda, 1 << 20, 16, "",                 \
     "dist=geometric|zipf,k=16|32,mean=16;dist=geometric,k=16,mean=2|256",                          \
     "SIMT: Capannini's GPU decoder of P4D-coded posting lists (n-bar = 32, exceptions per block)") \
  X (warpio_kmerge, "warpio/k-merge", mdl_warpio_kmerge_params, none, 1 << 14, 32, "",            \
     "k=2|4|8,c=8;k=4,c=4|16,dist=sorted|few",                                                      \
     "SIMT: the thesis's k-merge (Algorithm 9): a warp merges k sorted runs through a cache of c " \
     "blocks, reading the run of least rank")                                                      \
  X (warpio_kpartition, "warpio/k-partition", mdl_warpio_kpartition_params, none, 1 << 14, 32,    \
     "", "k=2|4|8,c=8;k=4,c=4|16,dist=sorted|few",                                                 \
     "SIMT: the thesis's k-partition (Algorithm 10): a warp sorts a cache of c blocks and writes " \
     "each block within one of k buckets")                                                         \
  X (hull_msimd, "hull/msimd", mdl_hull_msimd_params, cuda, 1 << 20, 32, MDL_GPU_HW_ENGINES,       \
     "dist=" MDL_POINT_DIST_CHOICES ",prec=f32,P=480,part=" MDL_HULL_PART_CHOICES,                 \
     "SIMT: MSIMD 2D convex hull (Jurkiewicz & Danilewski A.3): primary quadrilateral, "           \
     "collaborative lossy partitions by P warps, then each warp alone")

/* The cases of the load balancers: every particle set (src/algos/particles.h). */
#define MDL_GPU_BALANCE_CASES "dist=" MDL_PARTICLE_DIST_CHOICES

/* The cases of a sort: every input distribution (src/algos/keys.h), 32-bit unsigned and float
 * keys (docs/experiments/sorting.md). */
#define MDL_GPU_SORT_CASES "dist=" MDL_KEY_DIST_CHOICES ",keys=u32|f32"

/* The baselines a GPU experiment measures beside the algorithms (CUB's reduction and scan, the
 * device copy, a one-thread-per-element kernel, the library and CPU sorts): CUDA or host code
 * only, no SIMT twin and no prediction.
 * MDL_GPU_BASELINES (X) calls X (SYM, NAME, DEFAULT_N, CASES, SUMMARY) as above; their names start
 * with "baseline/", which is how the experiments tell them from the algorithms. */
#define MDL_GPU_BASELINES(X)                                                                       \
  X (cub_reduce, "baseline/cub-reduce", 1 << 20, "", "CUB DeviceReduce::Sum of n 32-bit words")   \
  X (cub_scan, "baseline/cub-scan", 1 << 20, "",                                                   \
     "CUB DeviceScan::InclusiveSum of n 32-bit words")                                             \
  X (memcpy, "baseline/memcpy", 1 << 20, "",                                                       \
     "cudaMemcpy of n words device to device: the copy bandwidth, the physical limit")            \
  X (copy, "baseline/copy", 1 << 20, "",                                                         \
     "one thread per word: thread i reads word i and writes it")                                  \
  X (cub_sort, "baseline/cub-sort", 1 << 20, MDL_GPU_SORT_CASES,                                  \
     "CUB DeviceRadixSort::SortKeys of n keys (the GPU sorts' reference)")                         \
  X (cubmerge_sort, "baseline/cubmerge-sort", 1 << 20, MDL_GPU_SORT_CASES,                        \
     "CUB DeviceMergeSort::SortKeysCopy of n keys")                                                \
  X (thrust_sort, "baseline/thrust-sort", 1 << 20, MDL_GPU_SORT_CASES,                            \
     "thrust::sort of n keys in place (the input copied back before each run, untimed)")          \
  X (qsort_sort, "baseline/qsort-sort", 1 << 20, MDL_GPU_SORT_CASES,                              \
     "libc qsort of n keys on the GPU machine's CPU, one core (host-timed)")                      \
  X (introsort_sort, "baseline/introsort-sort", 1 << 20, MDL_GPU_SORT_CASES,                      \
     "the tuned C introsort (src/algos/introsort.h) on the GPU machine's CPU, one core")       \
  X (quickhull, "baseline/quickhull", 1 << 20, "dist=" MDL_POINT_DIST_CHOICES,                    \
     "quickhull from Thrust (max_element, copy_if) driven by the host, f32 points: hull/msimd's "  \
     "baseline")

#endif
