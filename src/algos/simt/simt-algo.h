/* Private: the SIMT micro-kernels (src/algos/simt/micro.c), the twins of src/algos/cuda/kernels.cuh.
 * Each algorithm has one build: its instrumented entry point runs the kernels on a simulated GPU
 * that delivers warp events to the recorder's sink, the native one runs them with no sink. Both
 * compute the result, check it against a CPU reference and return the same checksum. */
#ifndef MDL_SIMT_ALGO_H
#define MDL_SIMT_ALGO_H

#include <models/algo.h>
#include <models/error.h>
#include <models/simt.h>

#define MDL_SIMT_ALGO_DECLARE(name)                                                                \
  gboolean mdl_algo_gpu_##name##_run (const MdlParams *, guint64, guint64, MdlRecorder *,          \
                                      guint64 *, GError **);                                       \
  gboolean mdl_algo_gpu_##name##_native (const MdlParams *, guint64, guint64, MdlRecorder *,       \
                                         guint64 *, GError **)

MDL_SIMT_ALGO_DECLARE (global_stride);
MDL_SIMT_ALGO_DECLARE (global_atomic);
MDL_SIMT_ALGO_DECLARE (shared_stride);
MDL_SIMT_ALGO_DECLARE (shared_gather);
MDL_SIMT_ALGO_DECLARE (transpose);
MDL_SIMT_ALGO_DECLARE (reduce);
MDL_SIMT_ALGO_DECLARE (branch);
MDL_SIMT_ALGO_DECLARE (reduce_tree);
MDL_SIMT_ALGO_DECLARE (reduce_cascade);
MDL_SIMT_ALGO_DECLARE (reduce_pipeline);
MDL_SIMT_ALGO_DECLARE (scan_nopad);
MDL_SIMT_ALGO_DECLARE (scan_padding);
MDL_SIMT_ALGO_DECLARE (scan_leftright);
MDL_SIMT_ALGO_DECLARE (scan_hillis_steele);

/* Shared host side (src/algos/simt/host.c). */
/* The next number of a splitmix64 generator: the inputs of every SIMT algorithm. */
guint64 mdl_simt_algo_random (guint64 *state);
/* A simulated 32-lane GPU writing into @rec's stream, or producing nothing when @rec is NULL
 * (the native entry point). */
MdlSimt *mdl_simt_algo_gpu_new (MdlRecorder *rec);
/* TRUE when 1 <= @n <= @limit; otherwise a MDL_ERROR_PARAM naming @algo. */
gboolean mdl_simt_algo_size_ok (const char *algo, guint64 n, guint64 limit, GError **error);

/* Their parameter tables (rows of src/algos/algos.c). */
extern const MdlParamSpec mdl_gpu_global_stride_params[];
extern const MdlParamSpec mdl_gpu_global_atomic_params[];
extern const MdlParamSpec mdl_gpu_shared_stride_params[];
extern const MdlParamSpec mdl_gpu_shared_gather_params[];
extern const MdlParamSpec mdl_gpu_transpose_params[];
extern const MdlParamSpec mdl_gpu_reduce_params[];
extern const MdlParamSpec mdl_gpu_branch_params[];
extern const MdlParamSpec mdl_reduce_tree_params[];
extern const MdlParamSpec mdl_reduce_cascade_params[];
extern const MdlParamSpec mdl_reduce_pipeline_params[];
extern const MdlParamSpec mdl_scan_nopad_params[];
extern const MdlParamSpec mdl_scan_padding_params[];
extern const MdlParamSpec mdl_scan_leftright_params[];
extern const MdlParamSpec mdl_scan_hillis_steele_params[];

/* The parents of a LeftRight tree over @n elements (a power of two) with @k banks that sit on a
 * word that is neither of their two operands' words: 0 for the corrected mapping LR', and for
 * Eq. 3.2 as printed (@literal) 0 up to n = k^2, then more (2 at n = 32, k = 4). */
guint64 mdl_scan_leftright_off_operand (guint64 n, guint k, gboolean literal);

/* The table rows, for src/algos/algos.c. */
#define MDL_SIMT_ALGO_ROWS                                                                         \
  { "gpu/global-stride", "SIMT: lane i loads (op=ld) or stores (op=st) element first + i*stride "  \
    "of width bytes", mdl_gpu_global_stride_params, mdl_algo_gpu_global_stride_run,                 \
    mdl_algo_gpu_global_stride_native, NULL },                                                     \
  { "gpu/global-atomic", "SIMT: lane i adds atomically into word i*stride", mdl_gpu_global_atomic_params, \
    mdl_algo_gpu_global_atomic_run, mdl_algo_gpu_global_atomic_native, NULL },                     \
  { "gpu/shared-stride", "SIMT: one warp per block loads or stores shared element lane*stride",    \
    mdl_gpu_shared_stride_params, mdl_algo_gpu_shared_stride_run, mdl_algo_gpu_shared_stride_native, \
    NULL },                                                                                        \
  { "gpu/shared-gather", "SIMT: lane l loads shared element idx[l] (broadcasts, bank probes)",      \
    mdl_gpu_shared_gather_params, mdl_algo_gpu_shared_gather_run, mdl_algo_gpu_shared_gather_native, \
    NULL },                                                                                        \
  { "gpu/transpose", "SIMT: N x N transpose, naive or through a (padded) shared tile",             \
    mdl_gpu_transpose_params, mdl_algo_gpu_transpose_run, mdl_algo_gpu_transpose_native, NULL },   \
  { "gpu/reduce", "SIMT: block sums by a shared-memory tree, interleaved or sequential addressing", \
    mdl_gpu_reduce_params, mdl_algo_gpu_reduce_run, mdl_algo_gpu_reduce_native, NULL },            \
  { "gpu/branch", "SIMT: divergent, nested, uniform branches and a divergent loop",                \
    mdl_gpu_branch_params, mdl_algo_gpu_branch_run, mdl_algo_gpu_branch_native, NULL },            \
  { "reduce/tree", "SIMT: AGPU tree-based reduction (Koike & Sadakane Algorithm 1), chunks of 2b " \
    "words per block of b threads", mdl_reduce_tree_params, mdl_algo_gpu_reduce_tree_run,          \
    mdl_algo_gpu_reduce_tree_native, NULL },                                                       \
  { "reduce/cascade", "SIMT: AGPU cascading reduction (Koike & Sadakane Algorithms 2-3): k blocks " \
    "sum columns of the n/p x p matrix, then reduce/tree", mdl_reduce_cascade_params,              \
    mdl_algo_gpu_reduce_cascade_run, mdl_algo_gpu_reduce_cascade_native, NULL },                   \
  { "reduce/pipeline", "SIMT: AGPU pipeline reduction for non-commutative operators (Koike & "     \
    "Sadakane Algorithms 4-6, order fixed), on affine maps", mdl_reduce_pipeline_params,           \
    mdl_algo_gpu_reduce_pipeline_run, mdl_algo_gpu_reduce_pipeline_native, NULL },                 \
  { "scan/nopad", "SIMT: work-efficient exclusive scan (Blelloch/Harris up-sweep and down-sweep) " \
    "in shared memory, no padding", mdl_scan_nopad_params, mdl_algo_gpu_scan_nopad_run,           \
    mdl_algo_gpu_scan_nopad_native, NULL },                                                        \
  { "scan/padding", "SIMT: the same scan with Harris's padding, element i at word i + i/k",        \
    mdl_scan_padding_params, mdl_algo_gpu_scan_padding_run, mdl_algo_gpu_scan_padding_native,      \
    NULL },                                                                                        \
  { "scan/leftright", "SIMT: the same scan with Capannini's LeftRight tree layout (Eq. 3.2), "     \
    "conflict-free stores", mdl_scan_leftright_params, mdl_algo_gpu_scan_leftright_run,            \
    mdl_algo_gpu_scan_leftright_native, NULL },                                                    \
  { "scan/hillis-steele", "SIMT: Hillis-Steele (CM) inclusive scan, log n steps of load, add, "    \
    "store", mdl_scan_hillis_steele_params, mdl_algo_gpu_scan_hillis_steele_run,                  \
    mdl_algo_gpu_scan_hillis_steele_native, NULL }

#endif
