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

#include "algos/gpu-affine.h"
#include "algos/gpu-algos.h"
#include "core/splitmix.h"
#include "core/clones.h"

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
/* The same with warps of @warp_width lanes (1..MDL_WARP_MAX_LANES). */
MdlSimt *mdl_simt_algo_gpu_new_lanes (MdlRecorder *rec, guint warp_width);
/* FNV-1a over @bytes bytes of an output: a checksum that depends on every byte and its place,
 * the one both entry points of an algorithm return. */
guint64 mdl_simt_algo_checksum (const void *data, gsize bytes);
/* TRUE when 1 <= @n <= @limit; otherwise a MDL_ERROR_PARAM naming @algo. */
gboolean mdl_simt_algo_size_ok (const char *algo, guint64 n, guint64 limit, GError **error);

/* keys=f32 of the sorts (float-keys.c): a launch mapping the @n words at @src to @dst (may be
 * @src) by mdl_keys_f32_order, or by mdl_keys_f32_unorder when @back. */
gboolean mdl_simt_keys_order (MdlSimt *gpu, guint64 src, guint64 dst, guint64 n, gboolean back,
                              GError **error);

/* The rows of the AGPU algorithms' parameter tables (reduce.c, matrix.c): b threads per block
 * (a power of two up to @max) and k blocks, each described by @what. */
#define MDL_AGPU_B_ROW(max, what)                                                                  \
  { "b", MDL_PARAM_UINT, "32", NULL, 2, max, NULL, MDL_PARAM_POW2, what }
#define MDL_AGPU_K_ROW(what) { "k", MDL_PARAM_UINT, "16", NULL, 1, 65535, NULL, 0, what }

/* Opens `if (threadIdx.x == 0)`: a branch, closed by mdl_simt_endif(). */
static inline void
mdl_simt_algo_if_thread0 (MdlSimtBlock *blk)
{
  mdl_simt_if_range (blk, 0, 1);
}

/* Narrows the mask to the threads below @k by predication (no branch), closed by
 * mdl_simt_pred_end(). */
static inline void
mdl_simt_algo_pred_below (MdlSimtBlock *blk, guint k)
{
  mdl_simt_pred_range (blk, 0, k);
}

/* Narrows the mask to the lanes t with @lo <= @first + t < @hi by predication (no branch: nvcc
 * predicates these), closed by mdl_simt_pred_end(). */
static inline void
mdl_simt_algo_pred_range (MdlSimtBlock *blk, guint64 first, guint64 lo, guint64 hi)
{
  /* The threads lo - first <= t < hi - first (first + t never wraps: t < 1024). */
  mdl_simt_pred_range (blk, lo > first ? lo - first : 0, hi > first ? hi - first : 0);
}

/* Lanes 0..@n-1 of a run: @dst[i] = @v; a whole warp (@n a constant 32) vectorizes. */
static inline __attribute__ ((always_inline)) void
mdl_simt_algo_fill_run (guint64 *restrict dst, guint64 v, guint n)
{
  for (guint i = 0; i < n; i++)
    dst[i] = v;
}

/* @dst[t] = @v for every active thread (a uniform address or value): a lane loop per run, where
 * one per lane cost three instructions a lane. */
static inline void
mdl_simt_algo_fill (MdlSimtBlock *blk, guint64 *dst, guint64 v)
{
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      mdl_simt_algo_fill_run (dst + t, v, 32);
    else
      mdl_simt_algo_fill_run (dst + t, v, n);
}

/* Lanes 0..@n-1 of a run from thread @t: @at[i] = @base + 4 (t + i), or @base − 4 (t + i) when
 * @neg is all ones (x ^ neg − neg is x or −x). A whole warp (@n a constant 32) vectorizes. */
static inline __attribute__ ((always_inline)) void
mdl_simt_algo_lane_words_run (guint64 *restrict at, guint64 base, guint64 neg, guint64 t, guint n)
{
  for (guint i = 0; i < n; i++, t++)
    at[i] = base + (((t << 2) ^ neg) - neg);
}

/* @at[t] = @base + 4t for every active thread t, or @base − 4t when @down: the byte offsets or
 * addresses of consecutive 4-byte words. (Unused where a source has no such words.) */
MDL_CLONES static inline void
mdl_simt_algo_lane_words (MdlSimtBlock *blk, guint64 *at, guint64 base, gboolean down)
{
  guint64 neg = down ? G_MAXUINT64 : 0;
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      mdl_simt_algo_lane_words_run (at + t, base, neg, t, 32);
    else
      mdl_simt_algo_lane_words_run (at + t, base, neg, t, n);
}

/* Lanes 0..@n-1 of a run: @at[i] = @base + 4 @idx[i]; a whole warp (@n a constant 32)
 * vectorizes (a shift: GCC 12 vectorizes no 64-bit multiply, not even by 4). */
static inline __attribute__ ((always_inline)) void
mdl_simt_algo_words_run (guint64 *restrict at, const guint64 *restrict idx, guint64 base, guint n)
{
  for (guint i = 0; i < n; i++)
    at[i] = base + (idx[i] << 2);
}

/* @at[t] = @base + 4 @idx[t] for every active thread: the addresses (or shared byte offsets) of
 * 4-byte words @idx of the array at @base. @at and @idx are distinct vectors. */
MDL_CLONES static void
mdl_simt_algo_word_addrs (MdlSimtBlock *blk, guint64 *at, guint64 base, const guint64 *idx)
{
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      mdl_simt_algo_words_run (at + t, idx + t, base, 32);
    else
      mdl_simt_algo_words_run (at + t, idx + t, base, n);
}

/* The active lanes load 4-byte word @idx[t] of the global array at @base into @dst[t]. */
static inline void
mdl_simt_algo_ld_words (MdlSimtBlock *blk, guint64 base, const guint64 *idx, guint64 *dst)
{
  guint64 *at = mdl_simt_reg (blk, 1);
  mdl_simt_algo_word_addrs (blk, at, base, idx);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, dst);
}

/* The active lanes store @src[t] to 4-byte word @idx[t] of the array at @base of @space (global:
 * a device address; shared: a byte offset). */
static inline void
mdl_simt_algo_st_words (MdlSimtBlock *blk, MdlSpace space, guint64 base, const guint64 *idx,
                        const guint64 *src)
{
  guint64 *at = mdl_simt_reg (blk, 1);
  mdl_simt_algo_word_addrs (blk, at, base, idx);
  mdl_simt_st (blk, space, 4, at, src);
}

/* Thread 0 alone (the others predicated off) stores @x to 4-byte word @i of the global array at
 * @base, through the lane vectors @idx and @v. */
static inline void
mdl_simt_algo_st_word0 (MdlSimtBlock *blk, guint64 base, guint64 i, guint64 x, guint64 *idx,
                        guint64 *v)
{
  mdl_simt_algo_pred_range (blk, 0, 0, 1);
  idx[0] = i, v[0] = x;
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, base, idx, v);
  mdl_simt_pred_end (blk);
}

/* Thread 0 alone loads 4-byte word @i of the global array at @base into v[0], which it returns. */
static inline guint64
mdl_simt_algo_ld_word0 (MdlSimtBlock *blk, guint64 base, guint64 i, guint64 *idx, guint64 *v)
{
  mdl_simt_algo_pred_range (blk, 0, 0, 1);
  idx[0] = i;
  mdl_simt_algo_ld_words (blk, base, idx, v);
  mdl_simt_pred_end (blk);
  return v[0];
}

/* Lanes 0..@n-1 of a run compare and exchange @x and @y: the larger key goes first where the
 * lane's direction bit, ((@dir[i] & @keep) | @bits) >> @shift & 1, is 1, the smaller where it is
 * 0 (@keep 0: the same direction for every lane, @dir any vector that is neither @x nor @y).
 * Keys are 32-bit (the sorts' keys and pads), so a > c is the sign of c - a, and the swap is a
 * mask: no branch and no compare that the baseline x86-64 build lacks (SSE2 has no 64-bit
 * compare), so that a whole warp (@n a constant 32) vectorizes; the restrict pointers tell the
 * compiler the vectors are apart. */
static inline __attribute__ ((always_inline)) void
mdl_simt_algo_exchange_run (guint64 *restrict x, guint64 *restrict y, const guint64 *restrict dir,
                            guint64 keep, guint64 bits, guint shift, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      guint64 a = x[i], c = y[i];
      guint64 swap = ((c - a) >> 63) ^ (((dir[i] & keep) | bits) >> shift & 1);
      guint64 m = -swap & (a ^ c);
      x[i] = a ^ m;
      y[i] = c ^ m;
    }
}

/* The compare and exchange of the 32-bit keys @x and @y of every active lane, in the direction
 * mdl_simt_algo_exchange_run() takes from @dir, @keep, @bits and @shift. Emits nothing (the
 * caller accounts for its min and max). */
static inline void
mdl_simt_algo_exchange (MdlSimtBlock *blk, guint64 *x, guint64 *y, const guint64 *dir, guint64 keep,
                        guint64 bits, guint shift)
{
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      mdl_simt_algo_exchange_run (x + t, y + t, dir + t, keep, bits, shift, 32);
    else
      mdl_simt_algo_exchange_run (x + t, y + t, dir + t, keep, bits, shift, n);
}

/* The addition of the reductions and scans (the CUDA twins' 32-bit `+`): one ALU instruction,
 * then @dst = @a + @b mod 2^32 on the active lanes (@dst may be @a or @b). */
static inline void
mdl_simt_algo_add32 (MdlSimtBlock *blk, guint64 *dst, const guint64 *a, const guint64 *b)
{
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    dst[t] = (a[t] + b[t]) & 0xffffffffu;
}

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

/* The non-commutative operator of the order-preserving reductions (src/algos/gpu-affine.h) on
 * lane words: the maps are 32-bit words, zero-extended. */
#define MDL_SIMT_AFFINE_ID ((guint64) MDL_AFFINE_ID)

static inline guint64
mdl_simt_affine (guint64 f, guint64 g)
{
  return mdl_affine ((guint32) f, (guint32) g);
}

/* Inside a kernel of b threads: combines shared words 0..b−1 in order, in place (adjacent pairs,
 * log b predicated steps, conflict-free), and lane 0 stores the product at global @out. */
void mdl_simt_affine_combine (MdlSimtBlock *blk, guint b, guint64 out);
/* The host side of the order-preserving reductions (reduce/pipeline, reduce/matrix) of algorithm
 * @algo: n checked, @padded identity words of input whose first @n are random maps, W of k =
 * @shape->grid_x words, @kernel launched over @shape with @args (*@in and *@out, which point
 * into @args, receive the input's and W's addresses first) leaving block ρ's product in W[ρ],
 * then Algorithm 6 over W; TRUE with *checksum = the product when it equals the sequential one,
 * else an error naming @algo and, when not NULL, @note. */
gboolean mdl_simt_affine_reduce (const char *algo, const char *note, MdlRecorder *rec, guint64 n,
                                 guint64 padded, guint64 seed, guint b,
                                 const MdlSimtLaunch *shape, MdlSimtKernel kernel, void *args,
                                 guint64 *in, guint64 *out, guint64 *checksum, GError **error);

#endif
