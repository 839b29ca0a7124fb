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

/* Sums over every event, split by op; the report derives each mode's counters from them, so the
 * loop has no test per event. */
typedef struct {
  guint64 events;
  guint64 lanes;            /* active lanes summed over every event */
  guint64 per_op[256];      /* events by op: every value of the byte, none out of range */
  guint64 jump_lanes;       /* active lanes of the jumps (count=source leaves them out) */
  guint64 divergent;
  guint mode;
  guint warp_width;
} Divergence;

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
  Divergence *d = state;
  (void) error;
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *e = &b->warp[i];
      guint64 lanes = gpu_popcount (e->active);
      d->lanes += lanes;
      d->per_op[e->op]++;
      d->jump_lanes += e->op == MDL_WARP_JUMP ? lanes : 0;
      d->divergent += (e->op == MDL_WARP_BRANCH) & (e->taken != 0) & (e->taken != e->active);
    }
  d->events += b->n_warp;
  return TRUE;
}

static void
divergence_report (void *state, MdlReport *out)
{
  Divergence *d = state;
  gboolean sass = d->mode == COUNT_SASS;
  /* count=source: jumps are neither branches nor instructions. */
  guint64 jumps = d->per_op[MDL_WARP_JUMP];
  guint64 branches = d->per_op[MDL_WARP_BRANCH] + (sass ? jumps : 0);
  guint64 insts = d->events - (sass ? 0 : jumps);
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
                        d->per_op[MDL_WARP_SHFL]);
  mdl_report_add_count (out, "vote_insts", "count", "warp votes executed (VOTE: ballot, any, all)",
                        NULL, d->per_op[MDL_WARP_VOTE]);
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
