/* The bitonic sorting network in SIMT C (Capannini's thesis §3.2; Koike & Sadakane §7.1.1) on
 * 32-bit keys, cut into passes by src/algos/bitonic.h: global passes (one step, a pair of keys per
 * thread, straight from global memory) and tile passes (consecutive steps over the parts of a
 * Γ-sequence, each part of `tile` keys in one block's shared memory). The layout parameter picks
 * the cut: global (every step a pass), stage (shared-memory stages of a tile of consecutive keys)
 * greedy (Capannini's greedy pass merging with the k-coalesced fix) or formula (the cut the thesis's
 * closed-form pass count describes).
 *
 * n need not be a power of two: the network runs on 2^L >= n keys, the first pass reading the
 * input's n keys and taking MDL_BITONIC_PAD (the largest key) for the others, so that the first n
 * keys of the output are the sort. The output has 2^L words.
 *
 * Memory instructions are the CUDA twin's (src/algos/cuda/bitonic.cu), one for one:
 *   tile pass   tile/block rounds of (global load, shared store), a barrier; per step
 *               tile/(2 block) rounds of (shared load p, shared load q, shared store p, shared
 *               store q), a barrier; tile/block rounds of (shared load, global store). Thread t
 *               moves local keys t, t + block, ...; does pairs j = t, t + block, ..., with
 *               p = InsAt(j, 0, c'), q = p + 2^c' (c': the rank of c in Γ).
 *   global pass pair j = blockIdx·block + t: global loads of p = InsAt(j, 0, c) and q = p + 2^c,
 *               global stores of both.
 * The first pass's loads are predicated on index < n (the pads are not read). The compare and
 * exchange is two ALU instructions (min, max); index arithmetic and loop control issue nothing,
 * as in the thesis's cost tables. There are no branches: the network is data-independent.
 * Spec: kmodel-capannini.md §3.2-3.4, V9-V11; agpu-koike-sadakane.md §5.2, V10;
 * docs/models/sort-bitonic.md. */
#include "algos/simt/simt-algo.h"

#include "algos/bitonic.h"
#include "algos/keys.h"
#include "core/clones.h"

/* The largest input the SIMT twin takes (2^26 keys: 256 MiB of keys in and out). */
#define MAX_N (G_GUINT64_CONSTANT (1) << 26)
/* The most keys a thread holds in registers (regs). */
#define MAX_REGS 16

const MdlParamSpec mdl_sort_bitonic_params[] = {
  { "layout", MDL_PARAM_CHOICE, "greedy", NULL, 0, 0, MDL_BITONIC_LAYOUT_CHOICES, 0,
    "global: every step a pass over global memory; stage: shared-memory stages of a tile of "
    "consecutive keys, the steps of larger distance as global passes; greedy: Capannini's greedy "
    "passes over Γ-sequences that keep the log k low bits; formula: the passes the thesis's closed "
    "form counts (no pass crosses a stage)" },
  { "tile", MDL_PARAM_UINT, "2048", NULL, 2, 32768, NULL, MDL_PARAM_POW2,
    "keys of a part (σ), sorted in one block's shared memory (up to 128 KiB)" },
  { "block", MDL_PARAM_UINT, "512", NULL, 1, 1024, NULL, MDL_PARAM_POW2,
    "threads per block (at most tile/2 are used by a tile pass)" },
  { "k", MDL_PARAM_UINT, "16", NULL, 1, 8192, NULL, MDL_PARAM_POW2,
    "greedy and formula: every Γ-sequence holds the log k low bits, so parts are runs of k keys (coalesced)" },
  { "regs", MDL_PARAM_UINT, "2", NULL, 2, MAX_REGS, NULL, MDL_PARAM_POW2,
    "keys a thread holds in registers in a tile pass: 2 is Algorithm 4 (a pair per step, every "
    "step through shared memory); 2^m runs up to m consecutive steps between shared round trips" },
  { "pad", MDL_PARAM_UINT, "0", NULL, 0, 1, NULL, 0,
    "1: local key e at shared word e + e/32 (keys 2^m apart, m <= 5, on distinct banks)" },
  MDL_KEYS_DIST_ROW,
  MDL_KEYS_TYPE_ROW,
  { NULL }
};

typedef struct {
  guint64 src, dst;            /* device addresses: the pass reads src, writes dst */
  guint64 n_src;               /* keys at src: n for the first pass (the rest are pads), else N */
  guint64 n_keys;              /* N = 2^L */
  const MdlBitonicPlan *plan;
  const MdlBitonicPass *pass;
  guint tile;                  /* keys of a part (tile passes) */
  guint log_regs;              /* log2 of the keys a thread holds in a register group */
  guint pad;                   /* 1: shared word e + e/32 for local key e */
  guint n_groups;              /* the pass's register groups (mdl_bitonic_groups) */
  guint32 group_mask[MDL_BITONIC_MAX_STEPS], group_steps[MDL_BITONIC_MAX_STEPS];
} PassArgs;

/* @dst[t] = the key at global index @idx[t] of the pass's source, MDL_BITONIC_PAD beyond n_src
 * (the load predicated on idx < n_src); @at is scratch. */
static void
load_keys (MdlSimtBlock *blk, const PassArgs *a, const guint64 *idx, guint64 *at, guint64 *dst)
{
  guint8 *cond = mdl_simt_cond (blk);
  gboolean all = TRUE;
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = a->src + 4 * idx[t];
      dst[t] = MDL_BITONIC_PAD;
      cond[t] = idx[t] < a->n_src;
      all = all && cond[t];
    }
  if (all)
    {
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, dst);
      return;
    }
  mdl_simt_pred_begin (blk);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, dst);
  mdl_simt_pred_end (blk);
}

/* The compare and exchange of the keys @x (at p) and @y (at q), smaller first where a lane's
 * direction bit (mdl_simt_algo_exchange(): from @dir, @keep, @bits, @shift) is 0, larger first
 * where it is 1: two ALU instructions, min and max. */
MDL_CLONES static void
compare_exchange (MdlSimtBlock *blk, guint64 *x, guint64 *y, const guint64 *dir, guint64 keep,
                  guint64 bits, guint shift)
{
  mdl_simt_alu (blk, 2);
  mdl_simt_algo_exchange (blk, x, y, dir, keep, bits, shift);
}

/* Lanes 0..@n-1 of a run: @dst[i] = (@src[i] | @bits) << @shift (a register's shared slots, the
 * tile's units); vectorizes for a whole warp as mdl_simt_algo_exchange(). */
static inline __attribute__ ((always_inline)) void
or_shift_run (guint64 *restrict dst, const guint64 *restrict src, guint64 bits, guint shift, guint n)
{
  for (guint i = 0; i < n; i++)
    dst[i] = (src[i] | bits) << shift;
}

/* @dst[t] = (@src[t] | @bits) << @shift for every active thread t. */
MDL_CLONES static void
or_shift (MdlSimtBlock *blk, guint64 *dst, const guint64 *src, guint64 bits, guint shift)
{
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      or_shift_run (dst + t, src + t, bits, shift, 32);
    else
      or_shift_run (dst + t, src + t, bits, shift, n);
}

static void
tile_kernel (MdlSimtBlock *blk, void *p)
{
  const PassArgs *a = p;
  const MdlBitonicPlan *plan = a->plan;
  guint32 gamma = a->pass->gamma, rest = (guint32) (a->n_keys - 1) & ~gamma;
  guint32 base = mdl_bitonic_deposit (blk->idx_x, rest), regs = 1u << a->log_regs;
  guint b = blk->n_threads, st = a->pass->first;
  guint64 *idx = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1), *at2 = mdl_simt_reg (blk, 1);
  guint64 *unit = mdl_simt_reg (blk, 1), *others_dep = mdl_simt_reg (blk, 1);
  guint64 *v[MAX_REGS], *slot[MAX_REGS];
  guint32 dep[MDL_SIMT_MAX_THREADS];
  for (guint x = 0; x < regs; x++)
    {
      v[x] = mdl_simt_reg (blk, 1);
      slot[x] = mdl_simt_reg (blk, 1);
    }

  mdl_bitonic_deposits (b, gamma, dep);
  for (guint i = 0; i < a->tile / b; i++)
    {
      guint32 round = base | mdl_bitonic_deposit (i * b, gamma);
      MDL_SIMT_EACH (blk, t)
        {
          idx[t] = round | dep[t];
          at2[t] = 4 * (guint64) mdl_bitonic_slot (t + i * b, a->pad);
        }
      load_keys (blk, a, idx, at, v[0]);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at2, v[0]);
    }
  mdl_simt_sync (blk);
  for (guint gi = 0; gi < a->n_groups; gi++)
    {
      guint32 gm = a->group_mask[gi], others = (a->tile - 1) & ~gm;
      mdl_bitonic_deposits (b, others, dep);
      for (guint t = 0; t < b; t++)   /* widened once per group, for the rounds' vector loops */
        others_dep[t] = dep[t];
      for (guint i = 0; i < (a->tile >> a->log_regs) / b; i++)
        {
          guint32 round = mdl_bitonic_deposit (i * b, others);
          if (a->pad)
            or_shift (blk, unit, others_dep, round, 0);
          for (guint x = 0; x < regs; x++)
            {
              guint32 reg_bits = mdl_bitonic_deposit (x, gm);
              if (a->pad)
                MDL_SIMT_EACH (blk, t)
                  slot[x][t] = 4 * (guint64) mdl_bitonic_slot ((guint32) unit[t] | reg_bits, 1);
              else   /* the slot is 4 x the key's local index: no unit vector, no test per lane */
                or_shift (blk, slot[x], others_dep, round | reg_bits, 2);
              mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, slot[x], v[x]);
            }
          for (guint k = st; k < st + a->group_steps[gi]; k++)
            {
              guint32 s = plan->step_s[k], c = mdl_bitonic_rank (gamma, plan->step_c[k]);
              guint32 rc = mdl_bitonic_rank (gm, c);
              gboolean s_local = s < 32 && (gamma >> s & 1);
              guint32 ls = s_local ? mdl_bitonic_rank (gamma, s) : 0;
              for (guint x = 0; x < regs; x++)
                {
                  guint y = x | 1u << rc;
                  guint32 reg_bits = mdl_bitonic_deposit (x, gm);
                  if (y == x)
                    continue;
                  /* The direction: bit ls of the key's local index (unit | reg_bits, or its
                   * slot / 4 without padding), or bit s of the tile's base, the same for every
                   * lane (any vector then; its bits are masked off). */
                  if (s_local && a->pad)
                    compare_exchange (blk, v[x], v[y], unit, G_MAXUINT64, reg_bits, ls);
                  else if (s_local)
                    compare_exchange (blk, v[x], v[y], slot[x], G_MAXUINT64, 0, ls + 2);
                  else
                    compare_exchange (blk, v[x], v[y], slot[x], 0, (guint64) base >> s & 1, 0);
                }
            }
          for (guint x = 0; x < regs; x++)
            mdl_simt_st (blk, MDL_SPACE_SHARED, 4, slot[x], v[x]);
        }
      st += a->group_steps[gi];
      mdl_simt_sync (blk);
    }
  mdl_bitonic_deposits (b, gamma, dep);
  for (guint i = 0; i < a->tile / b; i++)
    {
      guint64 round = a->dst + 4 * (guint64) (base | mdl_bitonic_deposit (i * b, gamma));
      MDL_SIMT_EACH (blk, t)
        {
          at[t] = 4 * (guint64) mdl_bitonic_slot (t + i * b, a->pad);
          at2[t] = round + 4 * (guint64) dep[t];
        }
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v[0]);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at2, v[0]);
    }
}

static void
global_kernel (MdlSimtBlock *blk, void *p)
{
  const PassArgs *a = p;
  guint32 s = a->plan->step_s[a->pass->first], c = a->plan->step_c[a->pass->first];
  guint64 *idx = mdl_simt_reg (blk, 1), *idx2 = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  guint64 *x = mdl_simt_reg (blk, 1), *y = mdl_simt_reg (blk, 1);

  MDL_SIMT_EACH (blk, t)
    {
      guint32 q = mdl_bitonic_ins_at (blk->idx_x * blk->n_threads + t, 0, c);
      idx[t] = q;
      idx2[t] = q | 1u << c;
    }
  load_keys (blk, a, idx, at, x);
  load_keys (blk, a, idx2, at, y);
  /* The direction: bit s of the pair's lower index (none past 32 bits). */
  compare_exchange (blk, x, y, idx, s < 32 ? G_MAXUINT64 : 0, 0, s < 32 ? s : 0);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->dst + 4 * idx[t];
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->dst + 4 * idx2[t];
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, y);
}

/* n = 1: no step; one thread copies the key (the CUDA twin's bitonic_copy). */
static void
copy_kernel (MdlSimtBlock *blk, void *p)
{
  const PassArgs *a = p;
  guint64 *at = mdl_simt_reg (blk, 1), *x = mdl_simt_reg (blk, 1);
  at[0] = a->src;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
  at[0] = a->dst;
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
}

/* Runs the passes of @plan from the input at @in (@n keys) into @out (2^L keys). */
static gboolean
run_passes (MdlSimt *gpu, const MdlBitonicPlan *plan, guint block, guint log_regs, guint pad,
            guint64 in, guint64 n, guint64 out, GError **error)
{
  guint64 n_keys = (guint64) 1 << plan->log_n;
  guint tile = 1u << plan->log_tile;
  g_autofree PassArgs *a = g_new0 (PassArgs, 1);
  a->src = in, a->dst = out, a->n_src = n, a->n_keys = n_keys, a->plan = plan, a->tile = tile;
  a->log_regs = MIN (log_regs, plan->log_tile), a->pad = pad;
  if (plan->n_steps == 0)
    {
      MdlSimtLaunch one = { .grid_x = 1, .block_x = 1 };
      return mdl_simt_launch (gpu, &one, copy_kernel, a, error);
    }
  for (guint i = 0; i < plan->n_passes; i++)
    {
      MdlSimtLaunch shape = { 0 };
      a->pass = &plan->pass[i];
      if (a->pass->gamma)
        {
          shape.block_x = MIN (block, tile >> a->log_regs);
          shape.grid_x = (guint32) (n_keys / tile);
          shape.shared_bytes = 4 * mdl_bitonic_slot (tile, pad);
          a->n_groups = mdl_bitonic_groups (plan, a->pass, a->log_regs, a->group_mask, a->group_steps);
        }
      else
        {
          shape.block_x = (guint32) MIN (block, n_keys / 2);
          shape.grid_x = (guint32) (n_keys / 2 / shape.block_x);
        }
      if (!mdl_simt_launch (gpu, &shape, a->pass->gamma ? tile_kernel : global_kernel, a, error))
        return FALSE;
      a->src = out;
      a->n_src = n_keys;
    }
  return TRUE;
}

static gboolean
bitonic_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
              guint64 *checksum, GError **error)
{
  MdlBitonicLayout layout = (MdlBitonicLayout) mdl_params_choice (params, "layout");
  guint tile = (guint) mdl_params_uint (params, "tile"), block = (guint) mdl_params_uint (params, "block");
  guint k = (guint) mdl_params_uint (params, "k");
  guint log_regs = mdl_bitonic_log_ceil (mdl_params_uint (params, "regs"));
  guint pad = (guint) mdl_params_uint (params, "pad");
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  gboolean f32 = mdl_params_choice (params, "keys") == 1;
  g_autofree guint32 *copy = NULL;
  g_autofree MdlBitonicPlan *plan = g_new (MdlBitonicPlan, 1);
  g_autoptr (MdlSimt) gpu = NULL;
  guint64 in, out, n_keys, bad, first = 0;
  guint32 *keys;
  if (!mdl_simt_algo_size_ok ("sort/bitonic", n, MAX_N, error))
    return FALSE;
  mdl_bitonic_plan (plan, mdl_bitonic_log_ceil (n), mdl_bitonic_log_ceil (tile),
                    mdl_bitonic_log_ceil (k), layout);
  n_keys = (guint64) 1 << plan->log_n;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(in = mdl_simt_alloc (gpu, 4 * n, error)) || !(out = mdl_simt_alloc (gpu, 4 * n_keys, error)))
    return FALSE;
  keys = mdl_simt_host (gpu, in);
  if (!mdl_keys_fill_typed (keys, n, dist, seed, f32))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/bitonic: n=%" G_GUINT64_FORMAT
                   ": out of memory drawing the keys", n);
      return FALSE;
    }
  copy = g_memdup2 (keys, 4 * n);
  if ((f32 && !mdl_simt_keys_order (gpu, in, in, n, FALSE, error))
      || !run_passes (gpu, plan, block, log_regs, pad, in, n, out, error)
      || (f32 && !mdl_simt_keys_order (gpu, out, out, n, TRUE, error)))
    return FALSE;
  bad = mdl_keys_check_typed (copy, mdl_simt_host (gpu, out), n, f32, &first);
  if (bad != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/bitonic: n=%" G_GUINT64_FORMAT ": %"
                   G_GUINT64_FORMAT " keys out of place, the first at %" G_GUINT64_FORMAT, n, bad,
                   first);
      return FALSE;
    }
  *checksum = mdl_simt_algo_checksum (mdl_simt_host (gpu, out), 4 * n);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (sort_bitonic, bitonic_body)
