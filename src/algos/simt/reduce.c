/* The seed reductions in SIMT C: Koike & Sadakane's tree-based reduction (Algorithm 1, AGPU).
 * One block of b threads is one AGPU multiprocessor. Level i reads the d values of the previous
 * level in chunks of 2b words, one block per chunk: two aligned b-word global reads, x = d1 + d2
 * into shared memory, log b in-place steps x[ε] += x[ε+δ] executed by all b lanes (x holds 3b/2
 * words, so lanes ε ≥ δ add garbage that is never used, as in the paper), and lane 0 writes the
 * chunk's sum. Every level's values are stored zero-padded to a multiple of 2b words, so each
 * chunk is two whole blocks even when d is not a multiple of 2b (the paper's 3 accesses per
 * chunk). One launch per level: the paper's ⌈d/2kb⌉ host-serialized rounds of k MPs are what the
 * agpu engine's folding of blocks onto k multiprocessors charges. The operator is 32-bit integer
 * addition; the result is checked against a sequential sum.
 * Algorithm 3's kernel and the affine-map pieces (operator, Algorithm 6) are also used by
 * matrix.c, so they are declared in simt-algo.h and defined here once.
 * Spec: agpu-koike-sadakane.md §3.1 and V5; docs/models/agpu.md. */
#include "algos/simt/simt-algo.h"

#include <string.h>

#define CORES_ROW MDL_AGPU_B_ROW (512, "threads per block = AGPU cores per multiprocessor")
#define MPS_ROW MDL_AGPU_K_ROW ("blocks of the local phase = AGPU multiprocessors")
/* Loads that nvcc batches in cascade_rows' loop (its SASS: four LDG, then their additions). */
#define CASCADE_UNROLL 4

const MdlParamSpec mdl_reduce_tree_params[] = { CORES_ROW, { NULL } };

typedef struct {
  guint64 in, out;   /* device addresses of this level's input and output */
  guint b;
} TreeArgs;

/* The last step of a block's reduction: lane 0 alone (predicated) loads shared byte offset @from
 * and stores it at global @to. @x, @at and @at2 are scratch registers. */
static void
lane0_store (MdlSimtBlock *blk, guint64 from, guint64 to, guint64 *x, guint64 *at, guint64 *at2)
{
  guint8 *cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = t == 0;
  mdl_simt_pred_begin (blk);
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = from;
      at2[t] = to;
    }
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at2, x);
  mdl_simt_pred_end (blk);
}

/* The end of Algorithms 1 and 3: the b values in @x go to shared words 0..b−1, log b in-place
 * steps x[ε] += x[ε+δ] run on all b lanes (shared memory holds 3b/2 words, so lanes ε ≥ δ add
 * words that are never used, as in the paper), and lane 0 writes x[0] to word blockIdx of @out.
 * @d, @at and @at2 are scratch registers. */
static void
block_sum (MdlSimtBlock *blk, guint b, guint64 *x, guint64 *d, guint64 *at, guint64 *at2,
           guint64 out)
{
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * (guint64) t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
  for (guint delta = b / 2; delta > 0; delta /= 2)
    {
      MDL_SIMT_EACH (blk, t)
        at2[t] = 4 * ((guint64) t + delta);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at2, d);
      mdl_simt_algo_add32 (blk, x, x, d);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
    }
  /* if ε == 0: Ω[ρ] ⇐ x[0] */
  lane0_store (blk, 0, out + 4 * (guint64) blk->idx_x, x, at, at2);
}

static void
tree_kernel (MdlSimtBlock *blk, void *p)
{
  const TreeArgs *a = p;
  guint64 *d1 = mdl_simt_reg (blk, 1), *d2 = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  guint64 *at2 = mdl_simt_reg (blk, 1);
  guint64 chunk = a->in + 4 * 2 * (guint64) a->b * blk->idx_x;

  MDL_SIMT_EACH (blk, t)
    {
      at[t] = chunk + 4 * (guint64) t;
      at2[t] = chunk + 4 * ((guint64) a->b + t);
    }
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, d1);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at2, d2);
  mdl_simt_algo_add32 (blk, d1, d1, d2);
  block_sum (blk, a->b, d1, d2, at, at2, a->out);
}

/* Algorithm 1 over the @d values at @in (zero-padded to a multiple of 2b words): one launch per
 * level. *result receives the device address of the final value. */
static gboolean
tree_levels (MdlSimt *gpu, guint b, guint64 in, guint64 d, guint64 *result, GError **error)
{
  guint64 two_b = 2 * (guint64) b, total = 0, w_addr;
  TreeArgs a = { .b = b, .in = in };
  MdlSimtLaunch shape = { .block_x = b, .shared_bytes = 4 * (b + b / 2) };
  *result = in;
  if (d <= 1)
    return TRUE;
  for (guint64 e = d; e > 1; e = (e + two_b - 1) / two_b)
    total += ((e + two_b - 1) / two_b + two_b - 1) / two_b * two_b;
  if (!(w_addr = mdl_simt_alloc (gpu, total * 4, error)))
    return FALSE;
  a.out = w_addr;
  while (d > 1)
    {
      guint64 chunks = (d + two_b - 1) / two_b;
      shape.grid_x = (guint32) chunks;
      if (!mdl_simt_launch (gpu, &shape, tree_kernel, &a, error))
        return FALSE;
      a.in = a.out;
      a.out += 4 * ((chunks + two_b - 1) / two_b * two_b);
      d = chunks;
    }
  *result = a.in;
  return TRUE;
}

/* Allocates @padded words of input, fills the first @n with random words (the rest stay 0, the
 * identity) and returns their 32-bit sum in *want. */
static guint64
input_new (MdlSimt *gpu, guint64 n, guint64 padded, guint64 seed, guint32 *want, GError **error)
{
  guint64 addr = mdl_simt_alloc (gpu, padded * 4, error), state = seed;
  guint32 *in;
  if (!addr)
    return 0;
  in = mdl_simt_host (gpu, addr);
  *want = 0;
  for (guint64 i = 0; i < n; i++)
    {
      in[i] = (guint32) mdl_splitmix64 (&state);
      *want += in[i];
    }
  return addr;
}

static gboolean
check_sum (const char *algo, MdlSimt *gpu, guint64 result, guint32 want, guint64 *checksum,
           GError **error)
{
  guint32 got;
  memcpy (&got, mdl_simt_host (gpu, result), 4);
  if (got != want)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: the sum is %u, the sequential reference "
                   "has %u", algo, got, want);
      return FALSE;
    }
  *checksum = got;
  return TRUE;
}

/* The start of reduce/tree and reduce/cascade: n checked, the simulated GPU and its input
 * (input_new) at *in; NULL with @error set on failure. */
static MdlSimt *
sum_start (const char *algo, guint64 n, guint64 padded, guint64 seed, MdlRecorder *rec,
           guint64 *in, guint32 *want, GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  if (!mdl_simt_algo_size_ok (algo, n, G_GUINT64_CONSTANT (1) << 28, error))
    return NULL;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(*in = input_new (gpu, n, padded, seed, want, error)))
    return NULL;
  return g_steal_pointer (&gpu);
}

static gboolean
tree_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
           GError **error)
{
  guint b = (guint) mdl_params_uint (params, "b");
  guint64 two_b = 2 * (guint64) b, in = 0, result;
  guint32 want;
  g_autoptr (MdlSimt) gpu = sum_start ("reduce/tree", n, (n + two_b - 1) / two_b * two_b, seed,
                                       rec, &in, &want, error);
  if (gpu == NULL || !tree_levels (gpu, b, in, n, &result, error))
    return FALSE;
  return check_sum ("reduce/tree", gpu, result, want, checksum, error);
}

/* ---- cascade (Algorithms 2 and 3) ---- */

const MdlParamSpec mdl_reduce_cascade_params[] = { CORES_ROW, MPS_ROW, { NULL } };

/* Algorithm 3: core (ρ, ε) sums its column of b-word rows (one aligned b-word read per row
 * and MP), the b partial sums are tree-reduced in shared memory, and lane 0 writes W[ρ]. The
 * running sum is kept in a register (the paper's x[ε] in shared memory; §3.5.1's first piece of
 * advice), which changes time, not I/O. The rows go in batches of CASCADE_UNROLL loads before
 * their additions, then one at a time, in the order the CUDA twin's SASS issues them (nvcc
 * unrolls cascade_rows' loop by 4: four LDG, then the adds; the remainder loop after it). */
void
mdl_simt_cascade_kernel (MdlSimtBlock *blk, void *p)
{
  const MdlSimtCascadeArgs *a = p;
  guint64 *x = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1), *at2 = mdl_simt_reg (blk, 1);
  guint64 *d[CASCADE_UNROLL];
  for (guint u = 0; u < CASCADE_UNROLL; u++)
    d[u] = mdl_simt_reg (blk, 1);
  for (guint64 i = 0; i < a->rows;)
    {
      guint batch = a->rows - i >= CASCADE_UNROLL ? CASCADE_UNROLL : 1;
      for (guint u = 0; u < batch; u++)
        {
          MDL_SIMT_EACH (blk, t)
            at[t] = a->in + 4 * ((i + u) * a->row_words + a->block_words * blk->idx_x + t);
          mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, d[u]);
        }
      for (guint u = 0; u < batch; u++)
        mdl_simt_algo_add32 (blk, x, x, d[u]);
      i += batch;
    }
  block_sum (blk, a->b, x, d[0], at, at2, a->out);
}

static gboolean
cascade_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
              guint64 *checksum, GError **error)
{
  guint b = (guint) mdl_params_uint (params, "b"), k = (guint) mdl_params_uint (params, "k");
  guint64 p = (guint64) b * k, two_b = 2 * (guint64) b, result;
  /* Row i of MP ρ: the b words at i·p + b·ρ (the n/p x p matrix of Fig. 5). */
  MdlSimtCascadeArgs a = { .b = b, .rows = (n + p - 1) / p, .row_words = p, .block_words = b };
  MdlSimtLaunch shape = { .grid_x = k, .block_x = b, .shared_bytes = 4 * (b + b / 2) };
  guint32 want;
  g_autoptr (MdlSimt) gpu = sum_start ("reduce/cascade", n, a.rows * p, seed, rec, &a.in, &want,
                                       error);
  if (gpu == NULL || !(a.out = mdl_simt_alloc (gpu, (k + two_b - 1) / two_b * two_b * 4, error))
      || !mdl_simt_launch (gpu, &shape, mdl_simt_cascade_kernel, &a, error)
      || !tree_levels (gpu, b, a.out, k, &result, error))
    return FALSE;
  return check_sum ("reduce/cascade", gpu, result, want, checksum, error);
}

/* ---- pipeline (Algorithms 4, 5 and 6), for a non-commutative operator ---- */

const MdlParamSpec mdl_reduce_pipeline_params[] = {
  CORES_ROW,
  MPS_ROW,
  { "order", MDL_PARAM_CHOICE, "fixed", NULL, 0, 0, "fixed|printed", 0,
    "fixed: the accumulator computes acc (+) root; printed: root (+) acc as Algorithm 5 prints "
    "it, which reverses the rows (the run then fails its check)" },
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint64 rows;      /* rows of b elements per MP: n / p */
  guint b;
  gboolean printed;
} PipeArgs;

/* Algorithm 5: core ε stores its element of the row into leaf slot 2ε... of the logical tree of
 * 2b slots (bank-conflict-free layout of Fig. 8: i_s, i_r, i_1, i_2) and computes node b + ε =
 * L(2ε) (+) L(2ε+1); core b-1 computes the accumulator, slot 2b-1. y starts as the identity;
 * log b drain iterations feed identities. */
static void
pipe_kernel (MdlSimtBlock *blk, void *p)
{
  const PipeArgs *a = p;
  guint b = a->b;
  guint64 *x = mdl_simt_reg (blk, 1), *y1 = mdl_simt_reg (blk, 1), *y2 = mdl_simt_reg (blk, 1);
  guint64 *at_s = mdl_simt_reg (blk, 1), *at_r = mdl_simt_reg (blk, 1);
  guint64 *at_1 = mdl_simt_reg (blk, 1), *at_2 = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  guint log_b = (guint) __builtin_ctz (b);

  MDL_SIMT_EACH (blk, t)
    {
      at_s[t] = 4 * (guint64) (t % 2 ? t / 2 + 3 * b / 2 : t / 2);
      at_r[t] = 4 * (guint64) (t % 2 ? t / 2 + b : t / 2 + b / 2);
      at_1[t] = 4 * (guint64) t;
      at_2[t] = 4 * (guint64) (t < b / 2 ? t + 3 * b / 2 : t + b / 2);
      x[t] = MDL_SIMT_AFFINE_ID;
      at[t] = 4 * (guint64) t;
    }
  /* y ← identity (both physical rows) */
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * ((guint64) b + t);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
  for (guint64 j = 0; j < a->rows + log_b; j++)
    {
      if (j < a->rows)
        {
          MDL_SIMT_EACH (blk, t)
            at[t] = a->in + 4 * ((guint64) blk->idx_x * a->rows * b + (guint64) b * j + t);
          mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
        }
      else
        {
          mdl_simt_alu (blk, 1);
          MDL_SIMT_EACH (blk, t)
            x[t] = MDL_SIMT_AFFINE_ID;
        }
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at_s, x);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at_1, y1);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at_2, y2);
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        y1[t] = t == b - 1 && !a->printed ? mdl_simt_affine (y2[t], y1[t])
                                                  : mdl_simt_affine (y1[t], y2[t]);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at_r, y1);
    }
  /* if ε == 0: W[ρ] ⇐ y[3b/2 − 1] */
  lane0_store (blk, 4 * (guint64) (3 * b / 2 - 1), a->out + 4 * (guint64) blk->idx_x, x, at, at_r);
}

/* Algorithm 6's in-block step, also the last step of reduce/matrix's blocks. */
void
mdl_simt_affine_combine (MdlSimtBlock *blk, guint b, guint64 out)
{
  guint64 *x = mdl_simt_reg (blk, 1), *y = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  guint64 *at1 = mdl_simt_reg (blk, 1), *at2 = mdl_simt_reg (blk, 1);
  for (guint live = b / 2; live > 0; live /= 2)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = t < live;
          at[t] = 4 * (guint64) t;
          at1[t] = 4 * (2 * (guint64) t);
          at2[t] = 4 * (2 * (guint64) t + 1);
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at1, x);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at2, y);
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        x[t] = mdl_simt_affine (x[t], y[t]);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
      mdl_simt_pred_end (blk);
    }
  lane0_store (blk, 0, out, x, at, at1);
}

/* Algorithm 6 (cleaned): block ρ reads b consecutive values (1 I/O) into shared words 0..b−1 and
 * combines them in order (mdl_simt_affine_combine). */
static void
tree2_kernel (MdlSimtBlock *blk, void *p)
{
  const TreeArgs *a = p;
  guint64 *x = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1), *at1 = mdl_simt_reg (blk, 1);
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = a->in + 4 * ((guint64) a->b * blk->idx_x + t);
      at1[t] = 4 * (guint64) t;
    }
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at1, x);
  mdl_simt_affine_combine (blk, a->b, a->out + 4 * (guint64) blk->idx_x);
}

/* @words words of global memory holding the identity; 0 on error. */
static guint64
affine_buffer (MdlSimt *gpu, guint64 words, GError **error)
{
  guint64 addr = mdl_simt_alloc (gpu, words * 4, error);
  guint32 *h;
  if (!addr)
    return 0;
  h = mdl_simt_host (gpu, addr);
  for (guint64 i = 0; i < words; i++)
    h[i] = (guint32) MDL_SIMT_AFFINE_ID;
  return addr;
}

/* @padded identity words whose first @n are random maps with an odd a (mdl_splitmix64 from @seed,
 * bit 16 set); *want receives their in-order product. Returns the device address, 0 on error. */
static guint64
affine_input (MdlSimt *gpu, guint64 n, guint64 padded, guint64 seed, guint64 *want,
              GError **error)
{
  guint64 addr = affine_buffer (gpu, padded, error), state = seed;
  guint32 *in;
  if (!addr)
    return 0;
  in = mdl_simt_host (gpu, addr);
  *want = MDL_SIMT_AFFINE_ID;
  for (guint64 i = 0; i < n; i++)
    {
      /* a odd: the maps are invertible, so the product depends on every input (with even a's
       * it keeps only the last few dozen and an order error early on would go unseen). */
      in[i] = (guint32) mdl_splitmix64 (&state) | 0x10000u;
      *want = mdl_simt_affine (*want, in[i]);
    }
  return addr;
}

/* Algorithm 6 (cleaned) over the @d values at @in (identity-padded to a multiple of b words):
 * one launch per level of ⌈d/b⌉ blocks of b threads; *result receives the device address of the
 * product (@in itself when @d <= 1). */
static gboolean
affine_tree (MdlSimt *gpu, guint b, guint64 in, guint64 d, guint64 *result, GError **error)
{
  TreeArgs a = { .b = b, .in = in };
  MdlSimtLaunch shape = { .block_x = b, .shared_bytes = 4 * b };
  *result = in;
  while (d > 1)
    {
      guint64 chunks = (d + b - 1) / b;
      if (!(a.out = affine_buffer (gpu, (chunks + b - 1) / b * b, error)))
        return FALSE;
      shape.grid_x = (guint32) chunks;
      if (!mdl_simt_launch (gpu, &shape, tree2_kernel, &a, error))
        return FALSE;
      a.in = *result = a.out;
      d = chunks;
    }
  return TRUE;
}

/* Compares the word at @result with @want: TRUE and *checksum = the product, or a MDL_ERROR_MODEL
 * naming @algo and, when not NULL, @note. */
static gboolean
affine_check (const char *algo, const char *note, MdlSimt *gpu, guint64 result, guint64 want,
              guint64 *checksum, GError **error)
{
  guint64 got = *(guint32 *) mdl_simt_host (gpu, result);
  if (got != want)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: the product is 0x%08" G_GINT64_MODIFIER
                   "x, the sequential reference has 0x%08" G_GINT64_MODIFIER "x%s%s%s", algo, got,
                   want, note ? " (" : "", note ? note : "", note ? ")" : "");
      return FALSE;
    }
  *checksum = got;
  return TRUE;
}

gboolean
mdl_simt_affine_reduce (const char *algo, const char *note, MdlRecorder *rec, guint64 n,
                        guint64 padded, guint64 seed, guint b, const MdlSimtLaunch *shape,
                        MdlSimtKernel kernel, void *args, guint64 *in, guint64 *out,
                        guint64 *checksum, GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  guint k = shape->grid_x;
  guint64 want, result;
  if (!mdl_simt_algo_size_ok (algo, n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(*in = affine_input (gpu, n, padded, seed, &want, error))
      || !(*out = affine_buffer (gpu, (k + b - 1) / b * b, error))
      || !mdl_simt_launch (gpu, shape, kernel, args, error)
      || !affine_tree (gpu, b, *out, k, &result, error))
    return FALSE;
  return affine_check (algo, note, gpu, result, want, checksum, error);
}

static gboolean
pipeline_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
               guint64 *checksum, GError **error)
{
  guint b = (guint) mdl_params_uint (params, "b"), k = (guint) mdl_params_uint (params, "k");
  guint64 pw = (guint64) b * k;
  PipeArgs a = { .b = b, .rows = (n + pw - 1) / pw,
                 .printed = mdl_params_choice (params, "order") == 1 };
  MdlSimtLaunch shape = { .grid_x = k, .block_x = b, .shared_bytes = 4 * 2 * b };
  return mdl_simt_affine_reduce ("reduce/pipeline", a.printed ? "order=printed" : "order=fixed",
                                 rec, n, a.rows * pw, seed, b, &shape, pipe_kernel, &a, &a.in,
                                 &a.out, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (reduce_tree, tree_body)
MDL_SIMT_ENTRY_POINTS (reduce_cascade, cascade_body)
MDL_SIMT_ENTRY_POINTS (reduce_pipeline, pipeline_body)
