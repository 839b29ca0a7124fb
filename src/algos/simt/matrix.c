/* Koike & Sadakane's matrix-based algorithms in SIMT C: the reduction of §5.2.1 for a
 * non-commutative operator, and the prefix scan of §6 (Algorithms 7 and 8, cleaned). One block of
 * b threads is one AGPU multiprocessor (MP); grids of k blocks. Memory instructions and operator
 * applications are counted (mdl_simt_alu), register moves and index arithmetic are not, as in
 * reduce.c. Spec: agpu-koike-sadakane.md §3.4, §4, V4, V7–V9; docs/models/agpu.md.
 *
 * reduce/matrix. The paper gives one sentence: a modified cascading algorithm that reads b²
 * elements as a b × b matrix into shared memory, transposed with the b+1 padding of §6.1, so
 * that each core reduces a contiguous run in order. Derivation: cascading (Algorithm 3) lets
 * each core fold n/p elements, with one aligned b-word read per row, but its columns interleave
 * the input, which loses the order. Give core ε of MP ρ the contiguous run ε of length R = n/p
 * inside the MP's contiguous group ρ of n/k elements. A b-word read of one run is still one
 * block, so step s reads, for j = 0..b−1, words sb..sb+b−1 of run j into row j of a b × (b+1)
 * tile (store m[j][ε]: b consecutive words, conflict-free), then core ε folds row ε, its own next
 * b elements, left to right (load m[ε][c]: bank (ε + c) mod b, distinct over ε thanks to the
 * padding; without it every lane would hit bank c). After R/b steps core ε holds run ε's
 * product; the b products combine in order in row 0 of the tile (Algorithm 6's adjacent pairs),
 * lane 0 writes W[ρ], and Algorithm 6 reduces the k values of W. With n a multiple of k·b²:
 *   io   = n/b (one block per load) + k (W) + TreeIO₂(k) (2 per block of Algorithm 6's levels);
 *   time = per MP 4b per step (load, store, load, ⊕ per row) × n/(kb²) steps + 3 + 4 log b,
 *          plus Algorithm 6's levels (4 + 4 log b per level when k ≤ b);
 *   m    = b(b+1) words, multiplicity M/(b(b+1)) = O(M/b²): Table 1's point.
 * Other n are padded with the identity up to a multiple of k·b² (the formulas then hold for the
 * padded n).
 *
 * scan/matrix, exclusive scan of 32-bit addition. Phase 1 (local-reduction): Algorithm 3's kernel
 * over k contiguous segments of n/k elements (C[ρ] must be the sum of segment ρ for phase 3;
 * Algorithm 3's strided columns would sum the wrong elements, but cost the same). Phase 2
 * (global-scan): BlockPrefixScan(C, C, k, NULL) on one block. Phase 3 (local-scan):
 * BlockPrefixScan of segment ρ with carry C[ρ], k blocks. BlockPrefixScan is Algorithm 8 as the
 * notes clean it (§4.2): per matrix of αb elements, (1) load j = 0..α−1 stores element jb + ε at
 * m[(jb+ε) mod α][⌊(jb+ε)/α⌋] of an α × (b+1) array, so column c holds elements cα..cα+α−1;
 * (2) lane ε sums column ε, lane 0 putting the carry in front; (3) a log b doubling scan of the
 * column sums; (4) an exclusive scan down each column from the inclusive sum of column ε−1
 * (lane 0: the carry); (5) the transposed store; the carry advances to the inclusive sum of
 * column b−1 (the printed algorithm never advances it: carry=printed). The column sums live in
 * row 0 of m once lane ε keeps m[0][ε] in a register, so m = α(b+1) words exactly (V8, V9).
 * Elements past the end of a segment load as the identity and are not stored (predicated), so the
 * global scan of k < b values costs ⌈k/b⌉ reads and writes; n is padded with zeros up to a
 * multiple of k·α·b. io = 3n/b + 2k + 2⌈k/b⌉ (V8); the time of one matrix is derived in
 * tests/test-matrix-scan.c. */
#include "algos/simt/simt-algo.h"

/* ---- reduce/matrix ---- */

/* Why at most 256: the tile of 512 x 513 words is more than the SIMT layer's 1 MiB. */
#define MATRIX_MAX_B 256

const MdlParamSpec mdl_reduce_matrix_params[] = {
  MDL_AGPU_B_ROW (MATRIX_MAX_B, "threads per block = AGPU cores per multiprocessor; the tile is b x (b+1) "
                       "words"),
  MDL_AGPU_K_ROW ("blocks of the local phase = AGPU multiprocessors"),
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint64 run;       /* elements per core: n / p, a multiple of b */
  guint b;
} MatrixArgs;

static void
matrix_kernel (MdlSimtBlock *blk, void *p)
{
  const MatrixArgs *a = p;
  guint64 b = a->b, pitch = b + 1;
  guint64 group = a->in + 4 * (guint64) blk->idx_x * a->run * b;
  guint64 *v = mdl_simt_reg (blk, 1), *acc = mdl_simt_reg (blk, 1);
  guint64 *at = mdl_simt_reg (blk, 1), *sat = mdl_simt_reg (blk, 1);
  guint64 *row[MATRIX_MAX_B];

  for (guint64 j = 0; j < b; j++)
    row[j] = mdl_simt_reg (blk, 1);
  MDL_SIMT_EACH (blk, t)
    acc[t] = MDL_SIMT_AFFINE_ID;
  for (guint64 s = 0; s < a->run; s += b)
    {
      /* Row j of the tile: words s..s+b−1 of run j, one aligned block. The b loads go first, then
       * the b stores, as the CUDA twin's unrolled SASS issues them (b LDG, then b STS). */
      for (guint64 j = 0; j < b; j++)
        {
          MDL_SIMT_EACH (blk, t)
            at[t] = group + 4 * (j * a->run + s + t);
          mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, row[j]);
        }
      for (guint64 j = 0; j < b; j++)
        {
          MDL_SIMT_EACH (blk, t)
            sat[t] = 4 * (j * pitch + t);
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, sat, row[j]);
        }
      /* Core ε folds row ε, its own run, in order. */
      for (guint64 c = 0; c < b; c++)
        {
          MDL_SIMT_EACH (blk, t)
            sat[t] = 4 * (t * pitch + c);
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, sat, v);
          mdl_simt_alu (blk, 1);
          MDL_SIMT_EACH (blk, t)
            acc[t] = mdl_simt_affine (acc[t], v[t]);
        }
    }
  MDL_SIMT_EACH (blk, t)
    sat[t] = 4 * (guint64) t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, sat, acc);
  mdl_simt_affine_combine (blk, a->b, a->out + 4 * (guint64) blk->idx_x);
}

static gboolean
reduce_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             guint64 *checksum, GError **error)
{
  guint b = (guint) mdl_params_uint (params, "b"), k = (guint) mdl_params_uint (params, "k");
  guint64 p = (guint64) b * k, round = p * b;   /* round: a tile per MP */
  guint64 padded = (n + round - 1) / round * round;
  MatrixArgs a = { .b = b, .run = padded / p };
  MdlSimtLaunch shape = { .grid_x = k, .block_x = b, .shared_bytes = 4 * b * (b + 1) };
  return mdl_simt_affine_reduce ("reduce/matrix", NULL, rec, n, padded, seed, b, &shape,
                                 matrix_kernel, &a, &a.in, &a.out, checksum, error);
}

/* ---- scan/matrix ---- */

const MdlParamSpec mdl_scan_matrix_params[] = {
  MDL_AGPU_B_ROW (512, "threads per block = AGPU cores per multiprocessor = columns of a matrix"),
  MDL_AGPU_K_ROW ("blocks of the local phases = AGPU multiprocessors = segments of the input"),
  /* Why 16: the power of two nearest the paper's best K20c value (18, §6.3); a power of two
   * keeps power-of-two n a multiple of k·α·b, so the paper's sizes need no padding. */
  { "alpha", MDL_PARAM_UINT, "16", NULL, 1, 512, NULL, 0,
    "rows of a matrix (alpha <= b); shared memory alpha x (b+1) words" },
  { "carry", MDL_PARAM_CHOICE, "advance", NULL, 0, 0, "advance|printed", 0,
    "advance: the carry moves to the end of each matrix (the notes' fix); printed: it never "
    "moves, as Algorithm 8 prints it (every matrix after a block's first is then wrong and the "
    "run fails its check)" },
  { NULL }
};

typedef struct {
  guint64 in, out;     /* device addresses of segment 0's input and output */
  guint64 seg;         /* elements per segment (per block) */
  guint64 carry;       /* device address of C[0], segment ρ's carry at C[ρ]; 0: none */
  guint b, alpha;
  gboolean printed;
} ScanArgs;

/* Shared byte offset of m[row][col] in the α × (b+1) array. */
static inline guint64
cell (guint64 b, guint64 row, guint64 col)
{
  return 4 * (row * (b + 1) + col);
}

/* Row @j of the transposed load or store of the matrix at element @e0 of segment ρ (its first
 * element @seg0): lane t's element e = jb + t, its global word in the array at @array (@gat), its
 * cell m[e mod α][⌊e/α⌋] (@at), and as the condition whether e lies inside the segment. */
static void
transposed_row (MdlSimtBlock *blk, const ScanArgs *a, guint64 array, guint64 seg0, guint64 e0,
                guint64 j, guint64 *gat, guint64 *at)
{
  guint8 *cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    {
      guint64 e = j * a->b + t;
      cond[t] = e0 + e < a->seg;
      gat[t] = array + 4 * (seg0 + e0 + e);
      at[t] = cell (a->b, e % a->alpha, e / a->alpha);
    }
}

/* Algorithm 8 (cleaned) for segment ρ = block idx_x: see the file's head. */
static void
scan_kernel (MdlSimtBlock *blk, void *p)
{
  const ScanArgs *a = p;
  guint64 b = a->b, alpha = a->alpha, seg0 = (guint64) blk->idx_x * a->seg;
  guint64 *v = mdl_simt_reg (blk, 1), *first = mdl_simt_reg (blk, 1), *sum = mdl_simt_reg (blk, 1);
  guint64 *carry = mdl_simt_reg (blk, 1), *next = mdl_simt_reg (blk, 1);
  guint64 *at = mdl_simt_reg (blk, 1), *gat = mdl_simt_reg (blk, 1);
  guint8 *cond;

  /* Registers start at 0, the identity: lanes other than 0 hold a zero carry for good. */
  if (a->carry)
    {
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = t == 0;
      mdl_simt_pred_begin (blk);
      MDL_SIMT_EACH (blk, t)
        gat[t] = a->carry + 4 * (guint64) blk->idx_x;
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, gat, carry);
      mdl_simt_pred_end (blk);
    }
  for (guint64 e0 = 0; e0 < a->seg; e0 += alpha * b)
    {
      /* (1) Transposed load; past the segment's end a lane keeps the identity. */
      for (guint64 j = 0; j < alpha; j++)
        {
          transposed_row (blk, a, a->in, seg0, e0, j, gat, at);
          MDL_SIMT_EACH (blk, t)
            v[t] = 0;
          mdl_simt_pred_begin (blk);
          mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, gat, v);
          mdl_simt_pred_end (blk);
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, v);
        }
      /* (2) Column sums, carry first; m[0][ε] stays in a register so row 0 is free for (3). */
      MDL_SIMT_EACH (blk, t)
        at[t] = cell (b, 0, t);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, first);
      MDL_SIMT_EACH (blk, t)
        sum[t] = first[t];
      for (guint64 j = 1; j < alpha; j++)
        {
          MDL_SIMT_EACH (blk, t)
            at[t] = cell (b, j, t);
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v);
          mdl_simt_algo_add32 (blk, sum, sum, v);
        }
      mdl_simt_algo_add32 (blk, sum, carry, sum);
      MDL_SIMT_EACH (blk, t)
        at[t] = cell (b, 0, t);
      /* (3) Inclusive doubling scan of the column sums in row 0; lane ε keeps its own value in
       * sum, so a step is one load, one add and one store (lock step: all loads first). */
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, sum);
      for (guint64 d = 1; d < b; d *= 2)
        {
          cond = mdl_simt_cond (blk);
          MDL_SIMT_EACH (blk, t)
            cond[t] = t >= d;
          mdl_simt_pred_begin (blk);
          MDL_SIMT_EACH (blk, t)
            {
              gat[t] = cell (b, 0, t - d);
              at[t] = cell (b, 0, t);
            }
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, gat, v);
          mdl_simt_algo_add32 (blk, sum, v, sum);
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, sum);
          mdl_simt_pred_end (blk);
        }
      /* Column ε starts from the inclusive sum of column ε−1; lane 0 reads column b−1's instead
       * (a rotation: conflict-free), the next matrix's carry, and starts from the carry. */
      MDL_SIMT_EACH (blk, t)
        at[t] = cell (b, 0, (t + b - 1) % b);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v);
      MDL_SIMT_EACH (blk, t)
        {
          next[t] = t == 0 ? carry[t] : v[t];
          if (t == 0 && !a->printed)
            carry[t] = v[t];
        }
      /* (4) Exclusive scan down column ε: tmp ← m[j][ε]; m[j][ε] ← next; next ← next + tmp
       * (the last add is not needed). */
      for (guint64 j = 0; j < alpha; j++)
        {
          MDL_SIMT_EACH (blk, t)
            at[t] = cell (b, j, t);
          if (j == 0)
            {
              MDL_SIMT_EACH (blk, t)
                v[t] = first[t];
            }
          else
            mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v);
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, next);
          if (j + 1 < alpha)
            {
              mdl_simt_algo_add32 (blk, next, next, v);
            }
        }
      /* (5) Transposed store, only inside the segment. */
      for (guint64 j = 0; j < alpha; j++)
        {
          transposed_row (blk, a, a->out, seg0, e0, j, gat, at);
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v);
          mdl_simt_pred_begin (blk);
          mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, gat, v);
          mdl_simt_pred_end (blk);
        }
    }
}

/* Runs @kernel over @shape inside phase @name (markers only when there is a recorder; the SIMT
 * layer has delivered every event of a launch when mdl_simt_launch returns, so the end marker
 * follows them). */
static gboolean
phase_launch (MdlSimt *gpu, MdlRecorder *rec, const char *name, const MdlSimtLaunch *shape,
              MdlSimtKernel kernel, void *args, GError **error)
{
  gboolean ok;
  if (rec)
    mdl_recorder_phase_begin (rec, name);
  ok = mdl_simt_launch (gpu, shape, kernel, args, error);
  if (rec && ok)
    mdl_recorder_phase_end (rec, name);
  return ok;
}

/* Compares U with a sequential exclusive scan of T's first @n words; *checksum = Σ U[i]. */
static gboolean
check_scan (const guint32 *in, const guint32 *out, guint64 n, gboolean printed,
            guint64 *checksum, GError **error)
{
  guint32 run = 0;
  guint64 sum = 0;
  for (guint64 i = 0; i < n; i++)
    {
      if (out[i] != run)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "scan/matrix: U[%" G_GUINT64_FORMAT
                       "] is %u, the sequential exclusive scan has %u (carry=%s)", i, out[i], run,
                       printed ? "printed" : "advance");
          return FALSE;
        }
      sum += out[i];
      run += in[i];
    }
  *checksum = sum;
  return TRUE;
}

static gboolean
scan_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
           GError **error)
{
  const char *algo = "scan/matrix";
  const guint64 max_padded = G_GUINT64_CONSTANT (1) << 29;
  g_autoptr (MdlSimt) gpu = NULL;
  guint b = (guint) mdl_params_uint (params, "b"), k = (guint) mdl_params_uint (params, "k");
  guint alpha = (guint) mdl_params_uint (params, "alpha");
  guint64 unit = (guint64) k * alpha * b, padded, state = seed, t, u, c;
  guint64 shared_bytes = 4 * (guint64) alpha * (b + 1);
  ScanArgs sa = { .b = b, .alpha = alpha, .printed = mdl_params_choice (params, "carry") == 1 };
  MdlSimtCascadeArgs ca = { .b = b, .row_words = b };
  MdlSimtLaunch reduce_shape = { .grid_x = k, .block_x = b, .shared_bytes = 4 * (b + b / 2) };
  MdlSimtLaunch scan_shape = { .grid_x = 1, .block_x = b };
  guint32 *in;
  if (!mdl_simt_algo_size_ok (algo, n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  if (alpha > b)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: alpha=%u must be at most b=%u (a "
                   "matrix has alpha <= b rows)", algo, alpha, b);
      return FALSE;
    }
  if (shared_bytes > MDL_SIMT_MAX_SHARED)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: alpha=%u and b=%u need alpha x (b+1) = %"
                   G_GUINT64_FORMAT " shared words, more than the SIMT layer's %u", algo, alpha, b,
                   shared_bytes / 4, MDL_SIMT_MAX_SHARED / 4);
      return FALSE;
    }
  padded = (n + unit - 1) / unit * unit;
  if (padded > max_padded)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT " padded to a "
                   "multiple of k x alpha x b = %" G_GUINT64_FORMAT " is %" G_GUINT64_FORMAT
                   " elements, more than %" G_GUINT64_FORMAT, algo, n, unit, padded, max_padded);
      return FALSE;
    }
  scan_shape.shared_bytes = (guint32) shared_bytes;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(t = mdl_simt_alloc (gpu, padded * 4, error)) || !(u = mdl_simt_alloc (gpu, padded * 4, error))
      || !(c = mdl_simt_alloc (gpu, ((guint64) k + b - 1) / b * b * 4, error)))
    return FALSE;
  in = mdl_simt_host (gpu, t);
  for (guint64 i = 0; i < n; i++)
    in[i] = (guint32) mdl_splitmix64 (&state);

  /* Phase 1: C[ρ] = the sum of segment ρ, n/(kb) rows of b words each. */
  ca.in = t;
  ca.out = c;
  ca.rows = padded / k / b;
  ca.block_words = padded / k;
  if (!phase_launch (gpu, rec, "local-reduction", &reduce_shape, mdl_simt_cascade_kernel, &ca,
                     error))
    return FALSE;
  /* Phase 2: C becomes its exclusive scan, on one block. */
  sa.in = sa.out = c;
  sa.seg = k;
  sa.carry = 0;
  if (!phase_launch (gpu, rec, "global-scan", &scan_shape, scan_kernel, &sa, error))
    return FALSE;
  /* Phase 3: every segment from its carry. */
  sa.in = t;
  sa.out = u;
  sa.seg = padded / k;
  sa.carry = c;
  scan_shape.grid_x = k;
  if (!phase_launch (gpu, rec, "local-scan", &scan_shape, scan_kernel, &sa, error))
    return FALSE;
  return check_scan (in, mdl_simt_host (gpu, u), n, sa.printed, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (reduce_matrix, reduce_body)
MDL_SIMT_ENTRY_POINTS (scan_matrix, scan_body)
