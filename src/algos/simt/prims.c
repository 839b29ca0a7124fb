/* The SIMT twins of the warp-primitive micro-kernels (src/algos/cuda/prims.cu): gpu/shuffle,
 * gpu/vote and gpu/atomic. As in micro.c, every memory, shuffle, vote and barrier instruction of
 * the CUDA twin is one SIMT call here, and the other SASS instructions are mdl_simt_alu() with
 * the counts the H100's SASS shows (docs/models/gpu.md, "Warp primitives"). Shapes and default
 * cases come from src/algos/gpu-prims.h. The results are checked against a sequential reference
 * that applies the atomics in thread order, the order the SIMT layer runs them in. */
#include "algos/simt/simt-algo.h"
#include "algos/gpu-prims.h"

#include <string.h>

#define POISON 0xA5

/* The other SASS instructions of each kernel (sm_90, nvcc 13.0 -O3; the SASS of the measured run,
 * docs/models/gpu.md "Warp primitives"): address arithmetic, parameter loads, the EXIT. */
#define SHUFFLE_ALU_BEFORE 10  /* before the LDG */
#define SHUFFLE_ALU_AFTER 4    /* segment mask and clamp, address of out[i]; 3 for up */
#define VOTE_ALU_BEFORE 12     /* before the branch, BSSY apart */
#define VOTE_ALU_BODY 3        /* address of in[i], before the LDG */
#define VOTE_ALU_PRED 3        /* WARPSYNC, the predicate; any and all add 1 after the VOTE */
#define VOTE_ALU_AFTER 3       /* address of out[i] */
#define ATOM_G_ALU_BEFORE 11   /* before the LDG */
#define ATOM_G_ALU_MID 8       /* word and address; +1 for CAS (the compare), +1 when returning */
#define ATOM_S_ALU_BEFORE 15   /* around the zero fill */
#define ATOM_S_ALU_MID 8       /* the word; +1 for CAS, +3 when returning */
#define ATOM_S_ALU_AFTER 4     /* before the copy out; 3 when returning */

static void
fill_random (guint8 *p, gsize n, guint64 *state)
{
  for (gsize i = 0; i < n; i += 8)
    {
      guint64 r = mdl_splitmix64 (state);
      memcpy (p + i, &r, MIN ((gsize) 8, n - i));
    }
}

static guint8 *
gpu_buffer (MdlSimt *gpu, gsize bytes, guint64 *addr, GError **error)
{
  *addr = mdl_simt_alloc (gpu, bytes, error);
  return *addr ? mdl_simt_host (gpu, *addr) : NULL;
}

static gboolean
differs (const char *algo, const char *what, gsize i, GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: %s %" G_GSIZE_FORMAT " differs from the CPU "
               "reference", algo, what, i);
  return FALSE;
}

static guint64
round_up (guint64 n, guint64 granule)
{
  return (n + granule - 1) / granule * granule;
}

/* ---- shuffle ---- */

const MdlParamSpec mdl_gpu_shuffle_params[] = {
  { "mode", MDL_PARAM_CHOICE, "idx", NULL, 0, 0, "idx|up|down|xor", 0,
    "__shfl_sync, __shfl_up_sync, __shfl_down_sync or __shfl_xor_sync" },
  { "width", MDL_PARAM_UINT, "32", NULL, 1, 32, NULL, MDL_PARAM_POW2,
    "lanes per shuffle segment" },
  { "sel", MDL_PARAM_UINT, "1", NULL, 0, 31, NULL, 0,
    "the selector of every lane: source lane, delta or lane mask" },
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint mode, width, sel;
} ShuffleArgs;

static void
shuffle_kernel (MdlSimtBlock *b, void *p)
{
  const ShuffleArgs *a = p;
  guint64 *src = mdl_simt_reg (b, 1), *dst = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint64 *sel = mdl_simt_reg (b, 1);
  mdl_simt_alu (b, SHUFFLE_ALU_BEFORE);
  MDL_SIMT_EACH (b, t)
    {
      guint64 i = (guint64) b->idx_x * b->n_threads + t;
      src[t] = a->in + 4 * i;
      dst[t] = a->out + 4 * i;
      sel[t] = a->sel;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, src, v);
  mdl_simt_alu (b, SHUFFLE_ALU_AFTER - (a->mode == MDL_SIMT_SHFL_UP));
  mdl_simt_shfl (b, (MdlSimtShflMode) a->mode, a->width, v, sel, v);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, dst, v);
  mdl_simt_alu (b, 1);
}

static gboolean
shuffle_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
              guint64 *checksum, GError **error)
{
  const char *algo = "gpu/shuffle";
  g_autoptr (MdlSimt) gpu = NULL;
  ShuffleArgs a = { 0 };
  guint8 *in, *out;
  guint64 state = seed;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_PRIM_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  n = round_up (n, MDL_GPU_PRIM_BLOCK);
  a.mode = mdl_params_choice (params, "mode");
  a.width = (guint) mdl_params_uint (params, "width");
  a.sel = (guint) mdl_params_uint (params, "sel");
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(in = gpu_buffer (gpu, n * 4, &a.in, error)) || !(out = gpu_buffer (gpu, n * 4, &a.out, error)))
    return FALSE;
  fill_random (in, n * 4, &state);
  memset (out, POISON, n * 4);
  shape.grid_x = (guint32) (n / MDL_GPU_PRIM_BLOCK);
  if (!mdl_simt_launch (gpu, &shape, shuffle_kernel, &a, error))
    return FALSE;
  /* The reference: CUDA's rules, written out lane by lane (prims.cu has the same). */
  for (guint64 i = 0; i < n; i++)
    {
      guint lane = (guint) (i % 32), seg = lane & ~(a.width - 1), at = lane & (a.width - 1), from;
      if (a.mode == MDL_SIMT_SHFL_IDX)
        from = seg + (a.sel & (a.width - 1));
      else if (a.mode == MDL_SIMT_SHFL_UP)
        from = a.sel <= at ? lane - a.sel : lane;
      else if (a.mode == MDL_SIMT_SHFL_DOWN)
        from = a.sel < a.width - at ? lane + a.sel : lane;
      else
        from = (lane ^ a.sel) < seg + a.width ? lane ^ a.sel : lane;
      if (memcmp (out + 4 * i, in + 4 * (i - lane + from), 4) != 0)
        return differs (algo, "output word", i, error);
    }
  *checksum = mdl_simt_algo_checksum (out, n * 4);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (shuffle, shuffle_body)

/* ---- vote ---- */

const MdlParamSpec mdl_gpu_vote_params[] = {
  { "mode", MDL_PARAM_CHOICE, "ballot", NULL, 0, 0, "ballot|any|all", 0,
    "__ballot_sync, __any_sync or __all_sync" },
  { "mask", MDL_PARAM_STRING, "ffffffff", NULL, 0, 0, NULL, 0,
    "the lanes that vote (hexadecimal, bit l: lane l of every warp)" },
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint mode;
  guint32 mask;
} VoteArgs;

static void
vote_kernel (MdlSimtBlock *b, void *p)
{
  const VoteArgs *a = p;
  guint64 *src = mdl_simt_reg (b, 1), *dst = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint64 *r = mdl_simt_reg (b, 1);
  guint8 *cond = mdl_simt_cond (b);
  mdl_simt_alu (b, VOTE_ALU_BEFORE);
  MDL_SIMT_EACH (b, t)
    {
      guint64 i = (guint64) b->idx_x * b->n_threads + t;
      src[t] = a->in + 4 * i;
      dst[t] = a->out + 4 * i;
      cond[t] = (a->mask >> (t % 32)) & 1;
    }
  /* nvcc branches around the lanes outside the mask, in a convergence barrier, and loads the
   * word inside (SASS: BSSY, @!P0 BRA, LDG, WARPSYNC, VOTE, BSYNC); those lanes keep r = 0. */
  mdl_simt_bssy (b);
  mdl_simt_if (b);
  mdl_simt_alu (b, VOTE_ALU_BODY);
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, src, v);
  mdl_simt_alu (b, VOTE_ALU_PRED);
  MDL_SIMT_EACH (b, t)
    v[t] &= 1;
  mdl_simt_vote (b, (MdlSimtVoteMode) a->mode, v, r);
  mdl_simt_alu (b, a->mode != MDL_SIMT_VOTE_BALLOT);
  mdl_simt_endif (b);
  mdl_simt_alu (b, VOTE_ALU_AFTER);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, dst, r);
  mdl_simt_alu (b, 1);
}

static gboolean
vote_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
           GError **error)
{
  const char *algo = "gpu/vote";
  const char *mask = mdl_params_string (params, "mask");
  g_autoptr (MdlSimt) gpu = NULL;
  VoteArgs a = { 0 };
  guint8 *in, *out;
  guint64 state = seed, m;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_PRIM_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  if (!g_ascii_string_to_unsigned (mask, 16, 1, G_MAXUINT32, &m, NULL))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: mask \"%s\" is not a nonzero 32-bit "
                   "hexadecimal lane mask", algo, mask);
      return FALSE;
    }
  n = round_up (n, MDL_GPU_PRIM_BLOCK);
  a.mode = mdl_params_choice (params, "mode");
  a.mask = (guint32) m;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(in = gpu_buffer (gpu, n * 4, &a.in, error)) || !(out = gpu_buffer (gpu, n * 4, &a.out, error)))
    return FALSE;
  fill_random (in, n * 4, &state);
  memset (out, POISON, n * 4);
  shape.grid_x = (guint32) (n / MDL_GPU_PRIM_BLOCK);
  if (!mdl_simt_launch (gpu, &shape, vote_kernel, &a, error))
    return FALSE;
  for (guint64 w = 0; w < n / 32; w++)
    {
      guint32 yes = 0, result;
      for (guint l = 0; l < 32; l++)
        yes |= (guint32) (in[4 * (32 * w + l)] & 1) << l;
      yes &= a.mask;
      result = a.mode == 0 ? yes : a.mode == 1 ? yes != 0 : yes == a.mask;
      for (guint l = 0; l < 32; l++)
        {
          guint32 want = (a.mask >> l) & 1 ? result : 0;
          if (memcmp (out + 4 * (32 * w + l), &want, 4) != 0)
            return differs (algo, "output word", 32 * w + l, error);
        }
    }
  *checksum = mdl_simt_algo_checksum (out, n * 4);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (vote, vote_body)

/* ---- atomic ---- */

const MdlParamSpec mdl_gpu_atomic_params[] = {
  { "op", MDL_PARAM_CHOICE, "add", NULL, 0, 0, "add|exch|cas|min|max|umin|umax", 0,
    "atomicAdd, atomicExch, atomicCAS (compare 0), atomicMin/Max on signed or unsigned words" },
  { "space", MDL_PARAM_CHOICE, "global", NULL, 0, 0, "global|shared", 0,
    "where the accumulators live" },
  { "k", MDL_PARAM_UINT, "1", NULL, 1, 32, NULL, MDL_PARAM_POW2,
    "lanes per address (1: all distinct, 32: the whole warp on one word)" },
  { "stride", MDL_PARAM_UINT, "1", NULL, 1, 32, NULL, 0, "words between a warp's addresses" },
  { "width", MDL_PARAM_UINT, "4", NULL, 4, 8, NULL, MDL_PARAM_POW2, "bytes per word: 4 or 8" },
  { "ret", MDL_PARAM_UINT, "1", NULL, 0, 1, NULL, 0,
    "1: the old values are stored (ATOM); 0: unused (RED in global memory)" },
  { "warps", MDL_PARAM_CHOICE, "apart", NULL, 0, 0, "apart|together", 0,
    "apart: each warp its own words; together: every warp on the same words" },
  { NULL }
};

/* The MdlSimtAtomOp of each op choice, in the table's order. */
static const MdlSimtAtomOp atom_ops[] = { MDL_SIMT_ATOM_ADD, MDL_SIMT_ATOM_EXCH, MDL_SIMT_ATOM_CAS,
                                          MDL_SIMT_ATOM_MIN, MDL_SIMT_ATOM_MAX, MDL_SIMT_ATOM_UMIN,
                                          MDL_SIMT_ATOM_UMAX };

typedef struct {
  guint64 old, acc, in;
  MdlSimtAtomOp op;
  guint width, kshift, stride;
  gboolean shared, ret, together;
} AtomArgs;

/* The word thread @t of the block targets: an index into the block's shared accumulators, or
 * into the global ones for block @block. */
static guint64
atom_word (const AtomArgs *a, guint64 block, guint t)
{
  guint64 warp = a->shared ? t / 32 : (block * MDL_GPU_PRIM_BLOCK + t) / 32;
  return (a->together ? 0 : warp * 32 * a->stride) + (guint64) ((t % 32) >> a->kshift) * a->stride;
}

static void
atomic_kernel (MdlSimtBlock *b, void *p)
{
  const AtomArgs *a = p;
  guint64 *src = mdl_simt_reg (b, 1), *dst = mdl_simt_reg (b, 1), *keep = mdl_simt_reg (b, 1);
  guint64 *v = mdl_simt_reg (b, 1), *old = mdl_simt_reg (b, 1), *cmp = mdl_simt_reg (b, 1);
  guint64 *sh = mdl_simt_reg (b, 1), *val = mdl_simt_reg (b, 1);
  guint w = a->width;
  mdl_simt_alu (b, a->shared ? ATOM_S_ALU_BEFORE : ATOM_G_ALU_BEFORE);
  MDL_SIMT_EACH (b, t)
    {
      guint64 i = (guint64) b->idx_x * b->n_threads + t;
      src[t] = a->in + w * i;
      keep[t] = a->old + w * i;
      dst[t] = a->shared ? w * atom_word (a, b->idx_x, t) : a->acc + w * atom_word (a, b->idx_x, t);
    }
  if (a->shared)
    {
      /* The zero fill: element t + 128 j for every j, one STS each (unrolled). */
      for (guint j = 0; j < MDL_GPU_ATOM_SHARED_ELEMS / MDL_GPU_PRIM_BLOCK; j++)
        {
          MDL_SIMT_EACH (b, t)
            sh[t] = (guint64) w * (t + (guint64) j * MDL_GPU_PRIM_BLOCK);
          mdl_simt_st (b, MDL_SPACE_SHARED, w, sh, cmp);   /* cmp is all zeros */
        }
      mdl_simt_sync (b);
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, w, src, v);
  if (a->shared)
    mdl_simt_alu (b, ATOM_S_ALU_MID + (a->op == MDL_SIMT_ATOM_CAS) + (a->ret ? 3 : 0));
  else
    mdl_simt_alu (b, ATOM_G_ALU_MID + (a->op == MDL_SIMT_ATOM_CAS) + (a->ret ? 1 : 0));
  mdl_simt_atom (b, a->shared ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL, a->op, w, dst, v, cmp,
                 a->ret ? old : NULL);
  if (a->ret)
    {
      mdl_simt_alu (b, a->shared ? ATOM_S_ALU_AFTER - 1 : 1);
      mdl_simt_st (b, MDL_SPACE_GLOBAL, w, keep, old);
    }
  if (a->shared)
    {
      guint64 base = a->acc + (guint64) b->idx_x * MDL_GPU_ATOM_SHARED_ELEMS * w;
      mdl_simt_sync (b);
      if (!a->ret)
        mdl_simt_alu (b, ATOM_S_ALU_AFTER);
      for (guint j = 0; j < MDL_GPU_ATOM_SHARED_ELEMS / MDL_GPU_PRIM_BLOCK; j++)
        {
          MDL_SIMT_EACH (b, t)
            {
              sh[t] = (guint64) w * (t + (guint64) j * MDL_GPU_PRIM_BLOCK);
              dst[t] = base + sh[t];
            }
          mdl_simt_ld (b, MDL_SPACE_SHARED, w, sh, val);
          mdl_simt_st (b, MDL_SPACE_GLOBAL, w, dst, val);
        }
    }
  mdl_simt_alu (b, 1);
}

/* The reference's step: the new word, as mdl_simt_atom() defines it (@width bytes). */
static guint64
atom_step (MdlSimtAtomOp op, guint width, guint64 old, guint64 v)
{
  guint64 mask = width == 8 ? G_MAXUINT64 : G_GUINT64_CONSTANT (0xffffffff);
  gint64 so = width == 8 ? (gint64) old : (gint64) (gint32) (guint32) old;
  gint64 sv = width == 8 ? (gint64) v : (gint64) (gint32) (guint32) v;
  switch (op)
    {
    case MDL_SIMT_ATOM_ADD: return (old + v) & mask;
    case MDL_SIMT_ATOM_EXCH: return v;
    case MDL_SIMT_ATOM_CAS: return old == 0 ? v : old;
    case MDL_SIMT_ATOM_MIN: return so <= sv ? old : v;
    case MDL_SIMT_ATOM_MAX: return so >= sv ? old : v;
    case MDL_SIMT_ATOM_UMIN: return MIN (old, v);
    default: return MAX (old, v);
    }
}

static gboolean
atomic_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
             GError **error)
{
  const char *algo = "gpu/atomic";
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree guint8 *want = NULL;
  AtomArgs a = { 0 };
  guint8 *old, *acc, *in;
  gsize acc_elems;
  guint64 state = seed, k;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_PRIM_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  n = round_up (n, MDL_GPU_PRIM_BLOCK);
  a.op = atom_ops[mdl_params_choice (params, "op")];
  a.shared = mdl_params_choice (params, "space") == 1;
  k = mdl_params_uint (params, "k");
  a.kshift = (guint) __builtin_ctzll (k);
  a.stride = (guint) mdl_params_uint (params, "stride");
  a.width = (guint) mdl_params_uint (params, "width");
  a.ret = mdl_params_uint (params, "ret") == 1;
  a.together = mdl_params_choice (params, "warps") == 1;
  acc_elems = a.shared ? n / MDL_GPU_PRIM_BLOCK * MDL_GPU_ATOM_SHARED_ELEMS : n * a.stride;
  if (a.shared)
    shape.shared_bytes = MDL_GPU_ATOM_SHARED_ELEMS * a.width;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(old = gpu_buffer (gpu, n * a.width, &a.old, error))
      || !(acc = gpu_buffer (gpu, acc_elems * a.width, &a.acc, error))
      || !(in = gpu_buffer (gpu, n * a.width, &a.in, error)))
    return FALSE;
  fill_random (in, n * a.width, &state);
  memset (old, POISON, n * a.width);
  memset (acc, a.shared ? POISON : 0, acc_elems * a.width);
  if (!a.shared && a.op != MDL_SIMT_ATOM_CAS)
    fill_random (acc, acc_elems * a.width, &state);
  /* The reference, in thread order (the SIMT layer's order): the accumulators after, and each
   * thread's old value. */
  want = g_malloc (acc_elems * a.width);
  if (a.shared)
    memset (want, 0, acc_elems * a.width);
  else
    memcpy (want, acc, acc_elems * a.width);
  g_autofree guint64 *want_old = g_new (guint64, n);
  for (guint64 i = 0; i < n; i++)
    {
      guint64 block = i / MDL_GPU_PRIM_BLOCK, e = atom_word (&a, block, (guint) (i % MDL_GPU_PRIM_BLOCK));
      guint64 was = 0, v = 0, now;
      if (a.shared)
        e += block * MDL_GPU_ATOM_SHARED_ELEMS;
      memcpy (&was, want + e * a.width, a.width);
      memcpy (&v, in + i * a.width, a.width);
      now = atom_step (a.op, a.width, was, v);
      memcpy (want + e * a.width, &now, a.width);
      want_old[i] = was;
    }
  shape.grid_x = (guint32) (n / MDL_GPU_PRIM_BLOCK);
  if (!mdl_simt_launch (gpu, &shape, atomic_kernel, &a, error))
    return FALSE;
  for (gsize e = 0; e < acc_elems; e++)
    if (memcmp (acc + e * a.width, want + e * a.width, a.width) != 0)
      return differs (algo, "accumulator", e, error);
  for (guint64 i = 0; i < n && a.ret; i++)
    if (memcmp (old + i * a.width, &want_old[i], a.width) != 0)
      return differs (algo, "old value of thread", i, error);
  *checksum = mdl_simt_algo_checksum (acc, acc_elems * a.width)
              ^ (a.ret ? mdl_simt_algo_checksum (old, n * a.width) : 0);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (atomic, atomic_body)
