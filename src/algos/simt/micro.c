/* The SIMT micro-kernels: the twins of src/algos/cuda/micro.cu, instruction for instruction.
 * Every memory, branch and barrier instruction of the H100 SASS (`tools/gpu-measure.sh` keeps it;
 * docs/models/gpu.md quotes it) is one SIMT call here, in the same predication; the other SASS
 * instructions (address arithmetic, moves, the mixing chains, EXIT) are accounted for by
 * mdl_simt_alu() with the count the SASS shows for that stretch of code, so that warp instruction
 * and thread counts can be compared with Nsight Compute too. Launch shapes and default sizes come
 * from src/algos/gpu-sizes.h, shared with the CUDA side. Each algorithm rounds n up to whole
 * blocks (transpose: to the next square of a multiple of 32). */
#include "algos/simt/simt-algo.h"
#include "algos/gpu-mix.h"
#include "algos/gpu-sizes.h"

#include <math.h>
#include <string.h>

#define POISON 0xA5

/* ---- host side ---- */

static void
fill_random (guint8 *p, gsize n, guint64 *state)
{
  for (gsize i = 0; i < n; i += 8)
    {
      guint64 r = mdl_splitmix64 (state);
      memcpy (p + i, &r, MIN ((gsize) 8, n - i));
    }
}

static gboolean
compare (const char *algo, const guint8 *got, const guint8 *want, gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (got[i] != want[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: output byte %" G_GSIZE_FORMAT " is 0x%02x,"
                     " the CPU reference has 0x%02x", algo, i, got[i], want[i]);
        return FALSE;
      }
  return TRUE;
}

static guint64
round_up (guint64 n, guint64 granule)
{
  return (n + granule - 1) / granule * granule;
}

/* Allocates @bytes of global memory and returns its host view. */
static guint8 *
gpu_buffer (MdlSimt *gpu, gsize bytes, guint64 *addr, GError **error)
{
  *addr = mdl_simt_alloc (gpu, bytes, error);
  return *addr ? mdl_simt_host (gpu, *addr) : NULL;
}

/* The host side of a micro-kernel with one input and one output (every one but global-atomic):
 * the simulated GPU, @in_bytes of random input, @out_bytes of poisoned output, and the CPU
 * reference's expected output, poisoned too until the caller fills it. */
typedef struct {
  MdlSimt *gpu;
  guint8 *in, *out, *want;
  guint64 in_addr, out_addr;
  gsize out_bytes;
} Micro;

static void
micro_clear (Micro *m)
{
  g_clear_pointer (&m->gpu, mdl_simt_free);
  g_clear_pointer (&m->want, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Micro, micro_clear)

static gboolean
micro_setup (Micro *m, MdlRecorder *rec, gsize in_bytes, gsize out_bytes, guint64 seed,
             GError **error)
{
  guint64 state = seed;
  m->gpu = mdl_simt_algo_gpu_new (rec);
  if (!(m->in = gpu_buffer (m->gpu, in_bytes, &m->in_addr, error))
      || !(m->out = gpu_buffer (m->gpu, out_bytes, &m->out_addr, error)))
    return FALSE;
  fill_random (m->in, in_bytes, &state);
  memset (m->out, POISON, out_bytes);
  m->want = g_malloc (out_bytes);
  memset (m->want, POISON, out_bytes);
  m->out_bytes = out_bytes;
  return TRUE;
}

/* Launches @kernel over @shape and compares the output with the expected one. */
static gboolean
micro_launch_check (Micro *m, const char *algo, const MdlSimtLaunch *shape, MdlSimtKernel kernel,
                    void *args, guint64 *checksum, GError **error)
{
  if (!mdl_simt_launch (m->gpu, shape, kernel, args, error))
    return FALSE;
  *checksum = mdl_simt_algo_checksum (m->out, m->out_bytes);
  return compare (algo, m->out, m->want, m->out_bytes, error);
}

static const guint global_width_ok[] = { 4, 8, 16 };

static gboolean
width_param (const char *algo, const MdlParams *params, guint *width, GError **error)
{
  guint64 w = mdl_params_uint (params, "width");
  for (guint i = 0; i < G_N_ELEMENTS (global_width_ok); i++)
    if (w == global_width_ok[i])
      {
        *width = (guint) w;
        return TRUE;
      }
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: width=%" G_GUINT64_FORMAT " is not 4, 8 or 16",
               algo, w);
  return FALSE;
}

/* ---- global-stride ---- */

const MdlParamSpec mdl_gpu_global_stride_params[] = {
  { "op", MDL_PARAM_CHOICE, "ld", NULL, 0, 0, "ld|st", 0, "the strided instruction: load or store" },
  { "width", MDL_PARAM_UINT, "4", NULL, 4, 16, NULL, MDL_PARAM_POW2, "bytes per lane: 4, 8 or 16" },
  { "stride", MDL_PARAM_UINT, "1", NULL, 1, 1024, NULL, 0, "elements between consecutive lanes" },
  { "misalign", MDL_PARAM_UINT, "0", NULL, 0, 1, NULL, 0, "1: start one element past the aligned base" },
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint width, stride, first;
  gboolean store;
} GlobalArgs;

/* SASS (15 per warp): 12 ALU, LDG, STG, EXIT. */
static void
global_stride_kernel (MdlSimtBlock *b, void *p)
{
  const GlobalArgs *a = p;
  guint64 *from = mdl_simt_reg (b, 1), *to = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 2);
  mdl_simt_alu (b, 6);
  MDL_SIMT_EACH (b, t)
    {
      guint64 i = (guint64) b->idx_x * b->n_threads + t;
      guint64 spread = a->first + i * a->stride;
      from[t] = a->in + (a->store ? i : spread) * a->width;
      to[t] = a->out + (a->store ? spread : i) * a->width;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, a->width, from, v);
  mdl_simt_alu (b, 6);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, a->width, to, v);
  mdl_simt_alu (b, 1);
}

static gboolean
global_stride_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                    guint64 *checksum, GError **error)
{
  const char *algo = "gpu/global-stride";
  g_auto (Micro) m = { 0 };
  GlobalArgs a = { 0 };
  gsize spread;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_GLOBAL_BLOCK };

  if (!width_param (algo, params, &a.width, error)
      || !mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  n = round_up (n, MDL_GPU_GLOBAL_BLOCK);
  a.store = mdl_params_choice (params, "op") == 1;
  a.stride = (guint) mdl_params_uint (params, "stride");
  a.first = (guint) mdl_params_uint (params, "misalign");
  spread = (a.first + (n - 1) * a.stride + 1) * a.width;
  if (!micro_setup (&m, rec, a.store ? n * a.width : spread, a.store ? spread : n * a.width, seed,
                    error))
    return FALSE;
  a.in = m.in_addr;
  a.out = m.out_addr;
  for (guint64 i = 0; i < n; i++)
    {
      guint64 spread_i = a.first + i * a.stride;
      memcpy (m.want + (a.store ? spread_i : i) * a.width, m.in + (a.store ? i : spread_i) * a.width,
              a.width);
    }
  shape.grid_x = (guint32) (n / MDL_GPU_GLOBAL_BLOCK);
  return micro_launch_check (&m, algo, &shape, global_stride_kernel, &a, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (global_stride, global_stride_body)

/* ---- global-atomic ---- */

const MdlParamSpec mdl_gpu_global_atomic_params[] = {
  { "stride", MDL_PARAM_UINT, "1", NULL, 1, 1024, NULL, 0, "words between consecutive lanes' targets" },
  { NULL }
};

typedef struct {
  guint64 old, acc, in;
  guint stride;
} AtomicArgs;

/* SASS (18 per warp): 14 ALU, LDG, ATOMG, STG, EXIT. */
static void
global_atomic_kernel (MdlSimtBlock *b, void *p)
{
  const AtomicArgs *a = p;
  guint64 *src = mdl_simt_reg (b, 1), *dst = mdl_simt_reg (b, 1), *old = mdl_simt_reg (b, 1);
  guint64 *v = mdl_simt_reg (b, 1), *keep = mdl_simt_reg (b, 1);
  mdl_simt_alu (b, 8);
  MDL_SIMT_EACH (b, t)
    {
      guint64 i = (guint64) b->idx_x * b->n_threads + t;
      src[t] = a->in + 4 * i;
      dst[t] = a->acc + 4 * i * a->stride;
      keep[t] = a->old + 4 * i;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, src, v);
  mdl_simt_alu (b, 6);
  mdl_simt_atom_add (b, MDL_SPACE_GLOBAL, 4, dst, v, old);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, keep, old);
  mdl_simt_alu (b, 1);
}

static gboolean
global_atomic_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                    guint64 *checksum, GError **error)
{
  const char *algo = "gpu/global-atomic";
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree guint8 *before = NULL;
  AtomicArgs a = { 0 };
  guint8 *old, *acc, *in;
  gsize acc_bytes;
  guint64 state = seed;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_GLOBAL_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  n = round_up (n, MDL_GPU_GLOBAL_BLOCK);
  a.stride = (guint) mdl_params_uint (params, "stride");
  acc_bytes = ((n - 1) * a.stride + 1) * 4;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(old = gpu_buffer (gpu, n * 4, &a.old, error)) || !(acc = gpu_buffer (gpu, acc_bytes, &a.acc, error))
      || !(in = gpu_buffer (gpu, n * 4, &a.in, error)))
    return FALSE;
  fill_random (acc, acc_bytes, &state);
  fill_random (in, n * 4, &state);
  memset (old, POISON, n * 4);
  before = g_memdup2 (acc, acc_bytes);
  shape.grid_x = (guint32) (n / MDL_GPU_GLOBAL_BLOCK);
  if (!mdl_simt_launch (gpu, &shape, global_atomic_kernel, &a, error))
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 was, add, now;
      memcpy (&was, before + 4 * i * a.stride, 4);
      memcpy (&add, in + 4 * i, 4);
      now = was + add;
      if (memcmp (old + 4 * i, &was, 4) != 0 || memcmp (acc + 4 * i * a.stride, &now, 4) != 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: lane %" G_GUINT64_FORMAT " differs from "
                       "the CPU reference", algo, i);
          return FALSE;
        }
    }
  *checksum = mdl_simt_algo_checksum (acc, acc_bytes) ^ mdl_simt_algo_checksum (old, n * 4);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (global_atomic, global_atomic_body)

/* ---- shared-stride and shared-gather: one warp per block ---- */

#define SHARED_OP_ROW                                                                              \
  { "op", MDL_PARAM_CHOICE, "ld", NULL, 0, 0, "ld|st", 0,                                          \
    "the measured instruction: load, or store (then loaded back)" }
#define SHARED_WIDTH_ROW                                                                           \
  { "width", MDL_PARAM_UINT, "4", NULL, 4, 16, NULL, MDL_PARAM_POW2, "bytes per lane: 4, 8 or 16" }
#define SHARED_MASK_ROW                                                                            \
  { "mask", MDL_PARAM_STRING, "ffffffff", NULL, 0, 0, NULL, 0,                                     \
    "the lanes that run the measured instruction and its check, hexadecimal (predicated)" }

const MdlParamSpec mdl_gpu_shared_stride_params[] = {
  SHARED_OP_ROW,
  SHARED_WIDTH_ROW,
  { "stride", MDL_PARAM_UINT, "1", NULL, 0, 33, NULL, 0,
    "elements between consecutive lanes (0: every lane the same element)" },
  SHARED_MASK_ROW,
  { NULL }
};

const MdlParamSpec mdl_gpu_shared_gather_params[] = {
  SHARED_OP_ROW,
  SHARED_WIDTH_ROW,
  { "idx", MDL_PARAM_STRING, "0", NULL, 0, 0, NULL, 0,
    "element of lane l: the l-th of these '.'-separated indexes, repeated (0..1055)" },
  SHARED_MASK_ROW,
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint width, stride;
  gboolean store, gather;
  guint32 mask;         /* lanes of the measured instruction; all 32: no predication */
  guint idx[32];
} SharedArgs;

/* Lane t's shared element in the strided or gathered instruction. */
static guint64
shared_elem (const SharedArgs *a, guint t)
{
  return a->gather ? a->idx[t % 32] : (guint64) t * a->stride;
}

/* Sets the condition to "lane runs the measured instruction" (or with @off, to the opposite). */
static void
cond_on (MdlSimtBlock *b, const SharedArgs *a, gboolean off)
{
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = (((a->mask >> (t % 32)) & 1) != 0) != off;
}

/* SASS of the load and gather kernels (90 per warp): 20 ALU, 33 LDG + 33 STS (the fill), BAR,
 * LDS, STG, EXIT. SASS of the store kernels (21): 15 ALU, LDG, STS, BAR, LDS, STG, EXIT. With a
 * lane mask (95 and, for stores, 27 to 36; the order of each stretch is the SASS's):
 * *  - loads: the fill as unmasked with two ALU fewer, BAR, a predicated EXIT of the masked-off
 *    lanes, then 5 ALU, LDS, 1 ALU, STG, EXIT for the others;
 *  - strided stores: 17 ALU (18 for 8-byte words), LDG and STS predicated on the mask, BAR,
 *    the predicated EXIT, LDS, 3 ALU, STG, EXIT;
 *  - gathered stores: a branch instead of predication: 6 ALU, BSSY, 4 ALU, BRA (the masked-off
 *    lanes jump to the join), 3 ALU, LDG, 5 ALU, STS, BSYNC, BAR, the predicated EXIT, 7 ALU,
 *    LDS, 1 ALU, STG, EXIT. */
static void
shared_kernel (MdlSimtBlock *b, void *p)
{
  const SharedArgs *a = p;
  guint64 *ga = mdl_simt_reg (b, 1), *sa = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 2);
  guint64 block = (guint64) b->idx_x;
  gboolean masked = a->mask != G_MAXUINT32;
  guint tail_alu = 0, before_alu;
  MDL_SIMT_EACH (b, t)
    {
      ga[t] = a->in + (block * 32 + t) * a->width;
      sa[t] = shared_elem (a, t) * a->width;
    }
  if (a->store && !masked)
    {
      mdl_simt_alu (b, 8);
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, a->width, ga, v);
      mdl_simt_st (b, MDL_SPACE_SHARED, a->width, sa, v);
      mdl_simt_sync (b);
      mdl_simt_alu (b, 7);
    }
  else if (a->store && !a->gather)
    {
      mdl_simt_alu (b, a->width == 8 ? 18 : 17);
      cond_on (b, a, FALSE);
      mdl_simt_pred_begin (b);
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, a->width, ga, v);
      mdl_simt_st (b, MDL_SPACE_SHARED, a->width, sa, v);
      mdl_simt_pred_end (b);
      mdl_simt_sync (b);
      tail_alu = 3;
    }
  else if (a->store)
    {
      mdl_simt_alu (b, 6);
      mdl_simt_bssy (b);
      mdl_simt_alu (b, 4);
      cond_on (b, a, FALSE);
      mdl_simt_if (b);
      mdl_simt_alu (b, 3);
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, a->width, ga, v);
      mdl_simt_alu (b, 5);
      mdl_simt_st (b, MDL_SPACE_SHARED, a->width, sa, v);
      mdl_simt_endif (b);
      mdl_simt_sync (b);
      tail_alu = 8;
    }
  else
    {
      mdl_simt_alu (b, 10);
      for (guint k = 0; k < MDL_GPU_SHARED_ELEMS / 32; k++)
        {
          MDL_SIMT_EACH (b, t)
            {
              ga[t] = a->in + (block * MDL_GPU_SHARED_ELEMS + t + 32 * k) * a->width;
              sa[t] = (guint64) (t + 32 * k) * a->width;
            }
          mdl_simt_ld (b, MDL_SPACE_GLOBAL, a->width, ga, v);
          mdl_simt_st (b, MDL_SPACE_SHARED, a->width, sa, v);
        }
      before_alu = masked ? 8 : 10;
      mdl_simt_alu (b, before_alu);
      mdl_simt_sync (b);
      tail_alu = 6;
    }
  if (masked)
    {
      cond_on (b, a, TRUE);
      mdl_simt_pred_begin (b);
      mdl_simt_exit (b);
      mdl_simt_pred_end (b);
      mdl_simt_alu (b, tail_alu);
    }
  MDL_SIMT_EACH (b, t)
    {
      sa[t] = shared_elem (a, t) * a->width;
      ga[t] = a->out + (block * 32 + t) * a->width;
    }
  mdl_simt_ld (b, MDL_SPACE_SHARED, a->width, sa, v);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, a->width, ga, v);
  mdl_simt_alu (b, 1);
}

static gboolean
shared_run (const char *algo, SharedArgs *a, guint64 n, guint64 seed, MdlRecorder *rec,
            guint64 *checksum, GError **error)
{
  g_auto (Micro) m = { 0 };
  gsize blocks, in_elems, w = a->width;
  MdlSimtLaunch shape = { .block_x = 32, .shared_bytes = MDL_GPU_SHARED_ELEMS * a->width };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 20, error))
    return FALSE;
  blocks = round_up (n, 32) / 32;
  in_elems = (a->store ? 32 : MDL_GPU_SHARED_ELEMS) * blocks;
  if (!micro_setup (&m, rec, in_elems * w, blocks * 32 * w, seed, error))
    return FALSE;
  a->in = m.in_addr;
  a->out = m.out_addr;
  /* Masked-off lanes leave their output poisoned; of lanes storing to one element, the highest
   * wins (the SIMT layer's lock step), and all of them load its value back. */
  for (gsize i = 0; i < blocks * 32; i++)
    {
      gsize blk = i / 32, lane = i % 32, from = blk * MDL_GPU_SHARED_ELEMS;
      if (!((a->mask >> lane) & 1))
        continue;
      from += shared_elem (a, (guint) lane);
      for (guint j = 0; a->store && j < 32; j++)
        if (((a->mask >> j) & 1) && shared_elem (a, j) == shared_elem (a, (guint) lane))
          from = blk * 32 + j;
      memcpy (m.want + i * w, m.in + from * w, w);
    }
  shape.grid_x = (guint32) blocks;
  return micro_launch_check (&m, algo, &shape, shared_kernel, a, checksum, error);
}

/* The parameters both shared families have: op, width and mask. */
static gboolean
shared_params (const char *algo, const MdlParams *params, SharedArgs *a, GError **error)
{
  const char *mask = mdl_params_string (params, "mask");
  guint64 m;
  if (!width_param (algo, params, &a->width, error))
    return FALSE;
  a->store = mdl_params_choice (params, "op") == 1;
  if (!g_ascii_string_to_unsigned (mask, 16, 1, G_MAXUINT32, &m, NULL))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: mask \"%s\" is not a nonzero 32-bit "
                   "hexadecimal lane mask", algo, mask);
      return FALSE;
    }
  a->mask = (guint32) m;
  return TRUE;
}

static gboolean
shared_stride_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                    guint64 *checksum, GError **error)
{
  SharedArgs a = { 0 };
  if (!shared_params ("gpu/shared-stride", params, &a, error))
    return FALSE;
  a.stride = (guint) mdl_params_uint (params, "stride");
  return shared_run ("gpu/shared-stride", &a, n, seed, rec, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (shared_stride, shared_stride_body)

static gboolean
shared_gather_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                    guint64 *checksum, GError **error)
{
  const char *algo = "gpu/shared-gather";
  SharedArgs a = { .gather = TRUE };
  g_auto (GStrv) parts = NULL;
  guint count;
  if (!shared_params (algo, params, &a, error))
    return FALSE;
  parts = g_strsplit (mdl_params_string (params, "idx"), ".", 0);
  count = g_strv_length (parts);
  if (count == 0 || count > 32)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: idx needs 1 to 32 indexes, got %u", algo,
                   count);
      return FALSE;
    }
  for (guint l = 0; l < 32; l++)
    {
      guint64 v;
      const char *text = parts[l % count];
      if (!g_ascii_string_to_unsigned (text, 10, 0, MDL_GPU_SHARED_ELEMS - 1, &v, NULL))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: idx entry \"%s\" is not an element "
                       "index 0..%d", algo, text, MDL_GPU_SHARED_ELEMS - 1);
          return FALSE;
        }
      a.idx[l] = (guint) v;
    }
  return shared_run (algo, &a, n, seed, rec, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (shared_gather, shared_gather_body)

/* ---- transpose ---- */

const MdlParamSpec mdl_gpu_transpose_params[] = {
  { "variant", MDL_PARAM_CHOICE, "naive", NULL, 0, 0, "naive|shared", 0,
    "naive: straight from global memory; shared: through a 32 x 32 shared tile" },
  { "pad", MDL_PARAM_UINT, "1", NULL, 0, 1, NULL, 0, "shared: 1 extra word per tile row" },
  { NULL }
};

typedef struct {
  guint64 in, out;
  guint side, pad;
} TransposeArgs;

/* SASS: naive 28 per warp (19 ALU, 4 LDG, 4 STG, EXIT); shared 49 (31 ALU, 4 LDG, 4 STS, BAR,
 * 4 LDS, 4 STG, EXIT). threadIdx.x = t mod 32, threadIdx.y = t / 32. */
static void
transpose_naive_kernel (MdlSimtBlock *b, void *p)
{
  const TransposeArgs *a = p;
  guint64 *from = mdl_simt_reg (b, 1), *to = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  mdl_simt_alu (b, 19);
  for (guint r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    {
      MDL_SIMT_EACH (b, t)
        {
          guint64 x = (guint64) b->idx_x * MDL_GPU_TILE + t % 32;
          guint64 y = (guint64) b->idx_y * MDL_GPU_TILE + t / 32 + r;
          from[t] = a->in + 4 * (y * a->side + x);
          to[t] = a->out + 4 * (x * a->side + y);
        }
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, from, v);
      mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, to, v);
    }
  mdl_simt_alu (b, 1);
}

static void
transpose_shared_kernel (MdlSimtBlock *b, void *p)
{
  const TransposeArgs *a = p;
  guint64 *ga = mdl_simt_reg (b, 1), *sa = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint row = MDL_GPU_TILE + a->pad;   /* words per tile row */
  mdl_simt_alu (b, 31);
  for (guint r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    {
      MDL_SIMT_EACH (b, t)
        {
          guint64 x = (guint64) b->idx_x * MDL_GPU_TILE + t % 32;
          guint64 y = (guint64) b->idx_y * MDL_GPU_TILE + t / 32 + r;
          ga[t] = a->in + 4 * (y * a->side + x);
          sa[t] = 4 * ((guint64) (t / 32 + r) * row + t % 32);
        }
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, ga, v);
      mdl_simt_st (b, MDL_SPACE_SHARED, 4, sa, v);
    }
  mdl_simt_sync (b);
  for (guint r = 0; r < MDL_GPU_TILE; r += MDL_GPU_TILE_ROWS)
    {
      MDL_SIMT_EACH (b, t)
        {
          guint64 x = (guint64) b->idx_y * MDL_GPU_TILE + t % 32;
          guint64 y = (guint64) b->idx_x * MDL_GPU_TILE + t / 32 + r;
          sa[t] = 4 * ((guint64) (t % 32) * row + t / 32 + r);
          ga[t] = a->out + 4 * (y * a->side + x);
        }
      mdl_simt_ld (b, MDL_SPACE_SHARED, 4, sa, v);
      mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, ga, v);
    }
  mdl_simt_alu (b, 1);
}

static gboolean
transpose_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                guint64 *checksum, GError **error)
{
  const char *algo = "gpu/transpose";
  g_auto (Micro) m = { 0 };
  TransposeArgs a = { 0 };
  gboolean shared = mdl_params_choice (params, "variant") == 1;
  gsize bytes;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_TILE, .block_y = MDL_GPU_TILE_ROWS };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 26, error))
    return FALSE;
  a.side = (guint) round_up ((guint64) ceil (sqrt ((double) n)), MDL_GPU_TILE);
  a.pad = (guint) mdl_params_uint (params, "pad");
  bytes = (gsize) a.side * a.side * 4;
  if (!micro_setup (&m, rec, bytes, bytes, seed, error))
    return FALSE;
  a.in = m.in_addr;
  a.out = m.out_addr;
  for (gsize y = 0; y < a.side; y++)
    for (gsize x = 0; x < a.side; x++)
      memcpy (m.want + 4 * (x * a.side + y), m.in + 4 * (y * a.side + x), 4);
  shape.grid_x = shape.grid_y = a.side / MDL_GPU_TILE;
  shape.shared_bytes = shared ? MDL_GPU_TILE * (MDL_GPU_TILE + a.pad) * 4 : 0;
  return micro_launch_check (&m, algo, &shape,
                             shared ? transpose_shared_kernel : transpose_naive_kernel, &a,
                             checksum, error);
}

MDL_SIMT_ENTRY_POINTS (transpose, transpose_body)

/* ---- reduce ---- */

const MdlParamSpec mdl_gpu_reduce_params[] = {
  { "variant", MDL_PARAM_CHOICE, "sequential", NULL, 0, 0, "interleaved|divergent|sequential", 0,
    "interleaved: s[2dt] += s[2dt+d]; divergent: t multiple of 2d adds s[t+d]; sequential: "
    "t < h adds s[t+h]" },
  { NULL }
};

enum { RED_INTERLEAVED, RED_DIVERGENT, RED_SEQUENTIAL };

typedef struct {
  guint64 in, out;
  guint variant;
} ReduceArgs;

/* ALU instructions per stretch of the SASS between barriers: the stretch before the first
 * barrier, then one per tree level (nvcc unrolls the loop and predicates each level's body). */
static const guint reduce_alu[3][9] = {
  [RED_INTERLEAVED] = { 16, 2, 4, 4, 4, 4, 3, 2, 2 },
  [RED_DIVERGENT] = { 14, 1, 2, 2, 2, 2, 2, 2, 2 },
  [RED_SEQUENTIAL] = { 13, 1, 2, 2, 2, 2, 2, 2, 1 },
};

static void
reduce_kernel (MdlSimtBlock *b, void *p)
{
  const ReduceArgs *a = p;
  guint64 *x = mdl_simt_reg (b, 1), *y = mdl_simt_reg (b, 1), *at = mdl_simt_reg (b, 1);
  guint64 *at2 = mdl_simt_reg (b, 1);
  guint8 *cond;
  guint level = 0;

  mdl_simt_alu (b, reduce_alu[a->variant][0]);
  MDL_SIMT_EACH (b, t)
    {
      at[t] = a->in + 4 * ((guint64) b->idx_x * MDL_GPU_REDUCE_BLOCK + t);
      at2[t] = 4 * (guint64) t;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_st (b, MDL_SPACE_SHARED, 4, at2, x);
  mdl_simt_sync (b);
  for (guint d = 1; d < MDL_GPU_REDUCE_BLOCK; d *= 2)
    {
      /* distance d of the interleaved and divergent trees; h of the sequential one */
      guint h = MDL_GPU_REDUCE_BLOCK / 2 / d;
      level++;
      mdl_simt_alu (b, reduce_alu[a->variant][level]);
      cond = mdl_simt_cond (b);
      MDL_SIMT_EACH (b, t)
        {
          guint64 k = a->variant == RED_INTERLEAVED ? 2 * (guint64) d * t
                    : t;   /* the word this thread adds into */
          guint64 other = a->variant == RED_SEQUENTIAL ? k + h : k + d;
          cond[t] = a->variant == RED_INTERLEAVED ? k < MDL_GPU_REDUCE_BLOCK
                  : a->variant == RED_DIVERGENT ? (t & (2 * d - 1)) == 0 : t < h;
          at[t] = 4 * k;
          at2[t] = 4 * other;
        }
      mdl_simt_pred_begin (b);
      if (a->variant == RED_INTERLEAVED && d == 1)
        {
          /* nvcc merges s[2t] and s[2t + 1] into one 8-byte load (LDS.64) */
          mdl_simt_ld (b, MDL_SPACE_SHARED, 8, at, x);
          MDL_SIMT_EACH (b, t)
            x[t] = ((x[t] & 0xffffffffu) + (x[t] >> 32)) & 0xffffffffu;
        }
      else
        {
          mdl_simt_ld (b, MDL_SPACE_SHARED, 4, at, x);
          mdl_simt_ld (b, MDL_SPACE_SHARED, 4, at2, y);
          MDL_SIMT_EACH (b, t)
            x[t] = (x[t] + y[t]) & 0xffffffffu;
        }
      mdl_simt_st (b, MDL_SPACE_SHARED, 4, at, x);
      mdl_simt_pred_end (b);
      mdl_simt_sync (b);
    }
  /* if (t == 0) out[block] = s[0]: nvcc makes it an EXIT of the other threads */
  cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = t != 0;
  mdl_simt_pred_begin (b);
  mdl_simt_exit (b);
  mdl_simt_pred_end (b);
  MDL_SIMT_EACH (b, t)
    {
      at[t] = 0;
      at2[t] = a->out + 4 * (guint64) b->idx_x;
    }
  mdl_simt_ld (b, MDL_SPACE_SHARED, 4, at, x);
  mdl_simt_alu (b, 2);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at2, x);
  mdl_simt_alu (b, 1);
}

static gboolean
reduce_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             guint64 *checksum, GError **error)
{
  const char *algo = "gpu/reduce";
  g_auto (Micro) m = { 0 };
  ReduceArgs a = { .variant = mdl_params_choice (params, "variant") };
  gsize blocks;
  MdlSimtLaunch shape = { .block_x = MDL_GPU_REDUCE_BLOCK, .shared_bytes = 4 * MDL_GPU_REDUCE_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 24, error))
    return FALSE;
  blocks = round_up (n, MDL_GPU_REDUCE_BLOCK) / MDL_GPU_REDUCE_BLOCK;
  if (!micro_setup (&m, rec, blocks * MDL_GPU_REDUCE_BLOCK * 4, blocks * 4, seed, error))
    return FALSE;
  a.in = m.in_addr;
  a.out = m.out_addr;
  for (gsize blk = 0; blk < blocks; blk++)
    {
      guint32 sum = 0, w;
      for (gsize t = 0; t < MDL_GPU_REDUCE_BLOCK; t++)
        {
          memcpy (&w, m.in + 4 * (blk * MDL_GPU_REDUCE_BLOCK + t), 4);
          sum += w;
        }
      memcpy (m.want + 4 * blk, &sum, 4);
    }
  shape.grid_x = (guint32) blocks;
  return micro_launch_check (&m, algo, &shape, reduce_kernel, &a, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (reduce, reduce_body)

/* ---- branch ---- */

const MdlParamSpec mdl_gpu_branch_params[] = {
  { "variant", MDL_PARAM_CHOICE, "half", NULL, 0, 0, "half|if|nested|uniform|loop", 0,
    "half: if/else split at lane 16; if: no else; nested: lanes 0..15 split again at 8; uniform: "
    "on the block index; loop: lane % 4 + 1 trips" },
  { NULL }
};

enum { BR_HALF, BR_IF, BR_NESTED, BR_UNIFORM, BR_LOOP };

typedef struct {
  guint64 in, out;
  guint variant;
} BranchArgs;

/* The SASS instructions of one mixing chain (4 per round). */
#define MIX_INSTS (4 * MDL_MIX_ROUNDS)

static void
mix_lanes (MdlSimtBlock *b, guint64 *v, guint which)
{
  MDL_SIMT_EACH (b, t)
    v[t] = mdl_mix ((mdl_mix_u32) v[t], which);
  mdl_simt_alu (b, MIX_INSTS);
}

/* Sets the condition "lane >= @from" (the side nvcc lays out first falls through). */
static void
cond_lane_at_least (MdlSimtBlock *b, guint from)
{
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = t % 32 >= from;
}

/* Mirrors the SASS layout of each kernel: which side falls through (and so ends in the jump), the
 * BSSY/BSYNC pair around a branch that may diverge, and the ALU counts of each stretch (see the
 * head of the file); the comment of each case gives the SASS stretches. */
static void
branch_kernel (MdlSimtBlock *b, void *p)
{
  const BranchArgs *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint8 *cond;
  MDL_SIMT_EACH (b, t)
    at[t] = a->in + 4 * ((guint64) b->idx_x * b->n_threads + t);
  mdl_simt_alu (b, a->variant == BR_UNIFORM ? 10 : 8);
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
  switch (a->variant)
    {
    case BR_HALF:   /* 9 ALU, LDG, BSSY | BRA | mix 1, BRA (lanes 16..31) | mix 0, BSYNC x2 | 5 */
      mdl_simt_alu (b, 1);
      mdl_simt_bssy (b);
      cond_lane_at_least (b, 16);
      mdl_simt_if (b);
      mix_lanes (b, v, 1);
      mdl_simt_else (b);
      mix_lanes (b, v, 0);
      mdl_simt_endif (b);
      break;
    case BR_IF:     /* 9 ALU, LDG, BSSY | BRA (lanes 16..31 to the join) | mix 0, BSYNC x2 | 5 */
      mdl_simt_alu (b, 1);
      mdl_simt_bssy (b);
      cond = mdl_simt_cond (b);
      MDL_SIMT_EACH (b, t)
        cond[t] = t % 32 < 16;
      mdl_simt_if (b);
      mix_lanes (b, v, 0);
      mdl_simt_endif (b);
      break;
    case BR_NESTED: /* 9 ALU, LDG, BSSY | ISETP, BRA | mix 1, BRA | mix 0, ISETP, BRA | mix 3, BRA
                     * to the outer join | mix 2, BSYNC (x3: 16..31, 8..15, 0..7) | 5 */
      mdl_simt_alu (b, 1);
      mdl_simt_bssy (b);
      mdl_simt_alu (b, 1);
      cond_lane_at_least (b, 16);
      mdl_simt_if (b);
      mix_lanes (b, v, 1);
      mdl_simt_else (b);
      mix_lanes (b, v, 0);
      mdl_simt_alu (b, 1);
      cond_lane_at_least (b, 8);
      mdl_simt_join_outer (b);
      mdl_simt_if (b);
      mix_lanes (b, v, 3);
      mdl_simt_else (b);
      mix_lanes (b, v, 2);
      mdl_simt_endif (b);
      mdl_simt_endif (b);
      break;
    case BR_UNIFORM: /* 10 ALU, LDG, BRA | mix 0, BRA (odd blocks) | mix 1 | 5; no BSSY */
      cond = mdl_simt_cond (b);
      MDL_SIMT_EACH (b, t)
        cond[t] = b->idx_x & 1;
      mdl_simt_if (b);
      mix_lanes (b, v, 0);
      mdl_simt_else (b);
      mix_lanes (b, v, 1);
      mdl_simt_endif (b);
      break;
    case BR_LOOP:   /* 8 ALU, LDG, BSSY, 2 ALU | loop: mix 0 + 2 ALU, BRA back | BSYNC per exit | 5 */
      {
        guint64 *k = mdl_simt_reg (b, 1);
        mdl_simt_bssy (b);
        mdl_simt_alu (b, 2);
        mdl_simt_loop_begin (b);
        do
          {
            mix_lanes (b, v, 0);
            mdl_simt_alu (b, 2);
            cond = mdl_simt_cond (b);
            MDL_SIMT_EACH (b, t)
              cond[t] = ++k[t] < (t & 3) + 1;
          }
        while (mdl_simt_loop_test (b));
        break;
      }
    }
  MDL_SIMT_EACH (b, t)
    at[t] = a->out + 4 * ((guint64) b->idx_x * b->n_threads + t);
  mdl_simt_alu (b, 3);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_alu (b, 1);
}

static gboolean
branch_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
             guint64 *checksum, GError **error)
{
  const char *algo = "gpu/branch";
  g_auto (Micro) m = { 0 };
  BranchArgs a = { .variant = mdl_params_choice (params, "variant") };
  MdlSimtLaunch shape = { .block_x = MDL_GPU_BRANCH_BLOCK };

  if (!mdl_simt_algo_size_ok (algo, n, 1 << 22, error))
    return FALSE;
  n = round_up (n, MDL_GPU_BRANCH_BLOCK);
  if (!micro_setup (&m, rec, n * 4, n * 4, seed, error))
    return FALSE;
  a.in = m.in_addr;
  a.out = m.out_addr;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 v, lane = (guint32) (i % MDL_GPU_BRANCH_BLOCK) & 31;
      guint64 block = i / MDL_GPU_BRANCH_BLOCK;
      memcpy (&v, m.in + 4 * i, 4);
      switch (a.variant)
        {
        case BR_HALF: v = mdl_mix (v, lane < 16 ? 0 : 1); break;
        case BR_IF: v = lane < 16 ? mdl_mix (v, 0) : v; break;
        case BR_NESTED: v = lane < 16 ? mdl_mix (mdl_mix (v, 0), lane < 8 ? 2 : 3) : mdl_mix (v, 1); break;
        case BR_UNIFORM: v = mdl_mix (v, (block & 1) ? 0 : 1); break;
        default:
          for (guint k = 0; k <= (lane & 3); k++)
            v = mdl_mix (v, 0);
          break;
        }
      memcpy (m.want + 4 * i, &v, 4);
    }
  shape.grid_x = (guint32) (n / MDL_GPU_BRANCH_BLOCK);
  return micro_launch_check (&m, algo, &shape, branch_kernel, &a, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (branch, branch_body)
