/* Private to src/algos: what the GPU algorithms written against the SIMT layer share (micro.c,
 * reduce.c, scan.c, matrix.c; their rows are in src/algos/gpu-algos.h, their CUDA twins in
 * src/algos/cuda/). Each algorithm has one build: its instrumented entry point runs the kernels
 * on a simulated GPU that delivers warp events to the recorder's sink, the native one runs them
 * with no sink. Both compute the result, check it against a CPU reference and return the same
 * checksum. */
#ifndef MDL_SIMT_ALGO_H
#define MDL_SIMT_ALGO_H

#include <models/algo.h>
#include <models/error.h>
#include <models/simt.h>

#include "algos/gpu-algos.h"
#include "core/splitmix.h"

/* The entry points and parameter table of every row of src/algos/gpu-algos.h. */
#define MDL_SIMT_ALGO_DECLARE(sym, name, params, twin, n, block, checked, cases, summary)          \
  gboolean mdl_algo_gpu_##sym##_run (const MdlParams *, guint64, guint64, MdlRecorder *,          \
                                     guint64 *, GError **);                                        \
  gboolean mdl_algo_gpu_##sym##_native (const MdlParams *, guint64, guint64, MdlRecorder *,       \
                                        guint64 *, GError **);                                     \
  extern const MdlParamSpec params[];
MDL_GPU_ALGOS (MDL_SIMT_ALGO_DECLARE)

/* Both entry points of algorithm SYM over BODY (params, n, seed, rec, checksum, error): the
 * instrumented one runs into @rec's stream, the native one with no sink. */
#define MDL_SIMT_ENTRY_POINTS(sym, body)                                                           \
  gboolean mdl_algo_gpu_##sym##_run (const MdlParams *params, guint64 n, guint64 seed,             \
                                     MdlRecorder *rec, guint64 *checksum, GError **error)          \
  {                                                                                                \
    return body (params, n, seed, rec, checksum, error);                                           \
  }                                                                                                \
  gboolean mdl_algo_gpu_##sym##_native (const MdlParams *params, guint64 n, guint64 seed,          \
                                        MdlRecorder *rec, guint64 *checksum, GError **error)       \
  {                                                                                                \
    (void) rec;                                                                                    \
    return body (params, n, seed, NULL, checksum, error);                                          \
  }

/* Shared host side (src/algos/simt/host.c). */
/* A simulated 32-lane GPU writing into @rec's stream, or producing nothing when @rec is NULL
 * (the native entry point). */
MdlSimt *mdl_simt_algo_gpu_new (MdlRecorder *rec);
/* FNV-1a over @bytes bytes of an output: a checksum that depends on every byte and its place,
 * the one both entry points of an algorithm return. */
guint64 mdl_simt_algo_checksum (const void *data, gsize bytes);
/* TRUE when 1 <= @n <= @limit; otherwise a MDL_ERROR_PARAM naming @algo. */
gboolean mdl_simt_algo_size_ok (const char *algo, guint64 n, guint64 limit, GError **error);

/* The parents of a LeftRight tree over @n elements (a power of two) with @k banks that sit on a
 * word that is neither of their two operands' words: 0 for the corrected mapping LR', and for
 * Eq. 3.2 as printed (@literal) 0 up to n = k^2, then more (2 at n = 32, k = 4). */
guint64 mdl_scan_leftright_off_operand (guint64 n, guint k, gboolean literal);

/* Shared by reduce.c and matrix.c; defined in reduce.c. */

/* Algorithm 3's kernel (one block of b threads per MP, grid k): block ρ sums @rows b-word rows,
 * row i at word @in/4 + i·@row_words + ρ·@block_words, lane ε taking word ε of each (addition
 * mod 2^32, partial sums in registers), tree-reduces the b sums in shared words 0..3b/2−1 and
 * lane 0 stores the block's sum at @out + 4ρ. Launch it with shared_bytes 4·(b + b/2). */
typedef struct {
  guint64 in, out;      /* device addresses */
  guint64 rows;         /* rows per block */
  guint64 row_words;    /* from one row of a block to its next */
  guint64 block_words;  /* from block ρ's first row to block ρ+1's */
  guint b;
} MdlSimtCascadeArgs;
void mdl_simt_cascade_kernel (MdlSimtBlock *blk, void *args);

/* The non-commutative operator of the order-preserving reductions: composition of affine maps
 * x -> a x + c (mod 2^16), a in the high half of the word and c in the low half;
 * f (+) g = "f, then g" = (a_f a_g, a_g c_f + c_g). Associative, not commutative; the identity
 * is (1, 0). */
#define MDL_SIMT_AFFINE_ID G_GUINT64_CONSTANT (0x00010000)

static inline guint64
mdl_simt_affine (guint64 f, guint64 g)
{
  guint32 af = (guint32) (f >> 16) & 0xffff, cf = (guint32) f & 0xffff;
  guint32 ag = (guint32) (g >> 16) & 0xffff, cg = (guint32) g & 0xffff;
  return (guint64) ((af * ag) & 0xffff) << 16 | ((ag * cf + cg) & 0xffff);
}

/* @words words of global memory holding the identity; 0 on error. */
guint64 mdl_simt_affine_buffer (MdlSimt *gpu, guint64 words, GError **error);
/* @padded identity words whose first @n are random maps with an odd a (mdl_splitmix64
 * from @seed, bit 16 set); *want receives their in-order product. Returns the device address, 0
 * on error. */
guint64 mdl_simt_affine_input (MdlSimt *gpu, guint64 n, guint64 padded, guint64 seed,
                               guint64 *want, GError **error);
/* Inside a kernel of b threads: combines shared words 0..b−1 in order, in place (adjacent pairs,
 * log b predicated steps, conflict-free), and lane 0 stores the product at global @out. */
void mdl_simt_affine_combine (MdlSimtBlock *blk, guint b, guint64 out);
/* Algorithm 6 (cleaned) over the @d values at @in (identity-padded to a multiple of b words):
 * one launch per level of ⌈d/b⌉ blocks of b threads; *result receives the device address of the
 * product (@in itself when @d <= 1). */
gboolean mdl_simt_affine_tree (MdlSimt *gpu, guint b, guint64 in, guint64 d, guint64 *result,
                               GError **error);
/* Compares the word at @result with @want: TRUE and *checksum = the product, or a MDL_ERROR_MODEL
 * naming @algo and, when not NULL, @note. */
gboolean mdl_simt_affine_check (const char *algo, const char *note, MdlSimt *gpu, guint64 result,
                                guint64 want, guint64 *checksum, GError **error);

#endif
