/* The `divergence` engine: branches, divergent branches, branch uniformity and active threads per
 * executed instruction. A branch is divergent when some but not all of its active lanes take it
 * (0 < taken < active); the warp then runs both paths one after the other (a serialized path).
 * Counting modes (docs/models/gpu.md has the evidence from the H100's SASS and counters):
 *  - count=sass (the default): machine branch instructions, as Nsight Compute counts them: every
 *    conditional branch (an if test, a loop test) and every jump (MDL_WARP_JUMP: nvcc's jump over
 *    the else side, executed by the lanes that ran the first side, always uniform). Every event is
 *    an executed instruction for threads_per_inst.
 *  - count=source: source-level branches only: jumps are not branches and not instructions.
 * Shuffles and votes are instructions of the warp with no memory traffic: counted as instructions
 * like any other, and apart (shfl_insts, vote_insts).
 * With no branch at all, the uniformity is not applicable (NaN; Nsight Compute prints 0). */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

#include <math.h>

enum { COUNT_SASS, COUNT_SOURCE };

/* Sums over every event; the report derives each mode's counters from them. */
typedef struct {
  guint64 events;
  guint64 lanes;            /* active lanes summed over every event */
  guint64 branches, jumps, shfl, vote;   /* events of those ops */
  guint64 jump_lanes;       /* active lanes of the jumps (count=source leaves them out) */
  guint64 divergent;
  guint mode;
  guint warp_width;
} Divergence;

/* The loop keeps its sums in registers, with no branch and no test per event (a count per op in
 * memory made every event wait on the last one of its op): what an event adds by its op is read
 * from tables indexed by the op byte (every value of it, none out of range). The ops counted
 * apart are 16-bit fields of one sum, unpacked every FIELDS_CHUNK events, before one overflows. */
enum { F_BRANCH, F_JUMP, F_SHFL, F_VOTE };
#define FIELD(f) (G_GUINT64_CONSTANT (1) << 16 * (f))
#define FIELDS_CHUNK 0xffff
static const guint64 op_field[256] = {
  [MDL_WARP_BRANCH] = FIELD (F_BRANCH), [MDL_WARP_JUMP] = FIELD (F_JUMP),
  [MDL_WARP_SHFL] = FIELD (F_SHFL),     [MDL_WARP_VOTE] = FIELD (F_VOTE),
};
/* All ones for that op, zeros for the others. */
static const guint64 jump_mask[256] = { [MDL_WARP_JUMP] = G_MAXUINT64 };
static const guint64 branch_mask[256] = { [MDL_WARP_BRANCH] = G_MAXUINT64 };

/* Adds the @n events @e to @d (@n at most FIELDS_CHUNK); @hw_popcnt: gpu_popcount_by()'s. */
static inline __attribute__ ((always_inline)) void
count_events (Divergence *d, const MdlWarpEvent *e, gsize n, gboolean hw_popcnt)
{
  guint64 lanes = 0, jump_lanes = 0, divergent = 0, fields = 0;
  for (const MdlWarpEvent *end = e + n; e < end; e++)
    {
      guint64 active = e->active, count = gpu_popcount_by (active, hw_popcnt);
      lanes += count;
      fields += op_field[e->op];
      jump_lanes += count & jump_mask[e->op];
      /* A branch diverges when 0 < taken < active (its taken lanes are active ones, so they are
       * all of them exactly when taken is not below active); taken - 1 wraps when it is 0. */
      divergent += ((e->taken & branch_mask[e->op]) - 1) < active - 1;
    }
  d->events += n;
  d->lanes += lanes;
  d->jump_lanes += jump_lanes;
  d->divergent += divergent;
  d->branches += (fields >> 16 * F_BRANCH) & 0xffff;
  d->jumps += (fields >> 16 * F_JUMP) & 0xffff;
  d->shfl += (fields >> 16 * F_SHFL) & 0xffff;
  d->vote += (fields >> 16 * F_VOTE) & 0xffff;
}

static const MdlParamSpec divergence_params[] = {
  { "count", MDL_PARAM_CHOICE, "sass", NULL, 0, 0, "sass|source", 0,
    "sass: machine branches, jumps over else sides included (as Nsight Compute); source: ifs and "
    "loop tests" },
  { "warp_width", MDL_PARAM_UINT, "32", "warp_width", 1, MDL_WARP_MAX_LANES, NULL, 0,
    "lanes per warp (for the active-lane percentage)" },
  { NULL }
};

static gboolean
divergence_init (void *state, const MdlParams *params, GError **error)
{
  Divergence *d = state;
  (void) error;
  d->mode = mdl_params_choice (params, "count");
  d->warp_width = (guint) mdl_params_uint (params, "warp_width");
  return TRUE;
}

static gboolean
divergence_consume (void *state, const MdlEventBatch *b, GError **error)
{
  (void) error;
  for (gsize at = 0; at < b->n_warp; at += FIELDS_CHUNK)
    {
      gsize n = MIN (FIELDS_CHUNK, b->n_warp - at);
      /* The loop twice, by the CPU's popcount, so that no event tests it. */
      if (gpu_has_popcnt ())
        count_events (state, b->warp + at, n, TRUE);
      else
        count_events (state, b->warp + at, n, FALSE);
    }
  return TRUE;
}

static void
divergence_report (void *state, MdlReport *out)
{
  Divergence *d = state;
  gboolean sass = d->mode == COUNT_SASS;
  /* count=source: jumps are neither branches nor instructions. */
  guint64 branches = d->branches + (sass ? d->jumps : 0);
  guint64 insts = d->events - (sass ? 0 : d->jumps);
  guint64 thread_insts = d->lanes - (sass ? 0 : d->jump_lanes);
  guint64 uniform = branches - d->divergent;
#define NCU(m) (sass ? (m) : NULL)
  mdl_report_add_count (out, "branches", "count",
                        sass ? "branch instructions executed by warps (conditional and jumps)"
                             : "conditional branches executed by warps (ifs, loop tests)",
                        NCU ("smsp__sass_inst_executed_op_branch.sum"), branches);
  mdl_report_add_count (out, "divergent_branches", "count",
                        "branches whose active lanes went both ways",
                        NCU ("smsp__sass_branch_targets_threads_divergent.sum"), d->divergent);
  mdl_report_add_count (out, "uniform_branches", "count", "branches whose active lanes all went one way",
                        NCU ("smsp__sass_branch_targets_threads_uniform.sum"), uniform);
  mdl_report_add_real (out, "branch_uniformity_pct", "percent",
                       "uniform branches in percent of branches (NaN: no branch)",
                       NCU ("smsp__sass_average_branch_targets_threads_uniform.pct"),
                       branches ? 100.0 * (double) uniform / (double) branches : NAN);
  mdl_report_add_count (out, "serialized_paths", "count",
                        "paths a warp ran one after the other because a branch diverged", NULL,
                        d->divergent);
  mdl_report_add_count (out, "warp_insts", "count", "warp instructions executed",
                        NCU ("smsp__inst_executed.sum"), insts);
  mdl_report_add_count (out, "thread_insts", "count", "active lanes summed over instructions",
                        NCU ("smsp__thread_inst_executed.sum"), thread_insts);
  mdl_report_add_real (out, "threads_per_inst", "ratio", "active threads per executed instruction",
                       NCU ("smsp__thread_inst_executed_per_inst_executed.ratio"),
                       insts ? (double) thread_insts / (double) insts : NAN);
  /* Nsight Compute 2025.3 has no shuffle or vote counter on sm_90 (docs/models/gpu.md). */
  mdl_report_add_count (out, "shfl_insts", "count", "warp shuffles executed (SHFL)", NULL,
                        d->shfl);
  mdl_report_add_count (out, "vote_insts", "count", "warp votes executed (VOTE: ballot, any, all)",
                        NULL, d->vote);
  mdl_report_add_real (out, "active_lanes_pct", "percent",
                       "active lanes in percent of warp_width, over instructions", NULL,
                       insts ? 100.0 * (double) thread_insts / ((double) insts * d->warp_width)
                             : NAN);
#undef NCU
}

const MdlEngineClass mdl_divergence_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "divergence",
  .summary = "GPU branches: divergent branches, uniformity, active threads per instruction",
  .params = divergence_params,
  .state_size = sizeof (Divergence),
  .init = divergence_init,
  .consume = divergence_consume,
  .report = divergence_report,
};
