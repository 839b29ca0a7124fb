/* The `branch` engine: a branch direction predictor run over the stream's branch records
 * (MDL_CPU_BRANCH: the data-dependent branches an instrumented algorithm reports), counting
 * branches and mispredictions. Everything else in the stream is ignored.
 *
 * A table of 2^bits two-bit saturating counters (0, 1 predict not taken; 2, 3 taken), each starting
 * at 1 (weakly not taken), moved one step toward the outcome after every branch (Smith 1981).
 *   bimodal: indexed by the branch's identity (the record's addr) modulo 2^bits;
 *   gshare:  indexed by that identity XOR the global history, the outcomes of the last `history`
 *            branches (newest in bit 0, 1 = taken), modulo 2^bits (McFarling 1993).
 * The history starts all not-taken and is shared by all threads. The stream holds only the
 * branches the algorithm reports, not its loop control, so the history is that of the
 * data-dependent branches alone: loop branches, which a real core predicts almost perfectly,
 * would dilute it there. The defaults (gshare, 2^16 counters, 16 outcomes of history) are about
 * the storage of a current core's direction tables; on a branch whose direction is a coin flip
 * every such predictor misses half the time, which is what the CPU cost model needs. */
#include <models/error.h>

#include "models/engines.h"

#include <string.h>

enum { PREDICT_BIMODAL, PREDICT_GSHARE };

typedef struct {
  guint8 *counters;        /* [1 << bits], 0..3 */
  guint64 index_mask;      /* (1 << bits) - 1 */
  guint64 history_mask;    /* (1 << history) - 1; 0 for bimodal */
  guint64 history;         /* the last outcomes, newest in bit 0 */
  guint64 branches;
  guint64 taken;
  guint64 mispredicts;
} Branch;

static const MdlParamSpec branch_params[] = {
  { "predictor", MDL_PARAM_CHOICE, "gshare", NULL, 0, 0, "bimodal|gshare", 0,
    "bimodal: counters indexed by branch; gshare: by branch XOR global history" },
  { "bits", MDL_PARAM_UINT, "16", NULL, 1, 28, NULL, 0,
    "log2 of the number of 2-bit counters (16: 64 Ki counters, 16 KiB)" },
  { "history", MDL_PARAM_UINT, "16", NULL, 0, 28, NULL, 0,
    "gshare: outcomes of global history XORed into the index (at most bits)" },
  { .key = NULL }
};

static gboolean
branch_init (void *state, const MdlParams *params, GError **error)
{
  Branch *b = state;
  guint bits = (guint) mdl_params_uint (params, "bits");
  guint history = (guint) mdl_params_uint (params, "history");
  gboolean gshare = mdl_params_choice (params, "predictor") == PREDICT_GSHARE;
  if (gshare && history > bits)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM,
                   "branch: history=%u is longer than the index (needs history <= bits = %u)",
                   history, bits);
      return FALSE;
    }
  b->index_mask = (G_GUINT64_CONSTANT (1) << bits) - 1;
  b->history_mask = gshare ? (G_GUINT64_CONSTANT (1) << history) - 1 : 0;
  b->counters = g_malloc ((gsize) b->index_mask + 1);
  memset (b->counters, 1, (gsize) b->index_mask + 1);
  return TRUE;
}

static gboolean
branch_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  Branch *b = state;
  (void) error;
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      guint8 *c;
      guint taken;
      if (e->kind != MDL_CPU_BRANCH)
        continue;
      taken = (e->flags & MDL_CPU_FLAG_TAKEN) != 0;
      c = &b->counters[(e->addr ^ b->history) & b->index_mask];
      b->branches++;
      b->taken += taken;
      b->mispredicts += (*c >= 2) != taken;
      /* Saturating step toward the outcome: up unless at 3, down unless at 0. */
      if (taken)
        *c += *c < 3;
      else
        *c -= *c > 0;
      b->history = ((b->history << 1) | taken) & b->history_mask;
    }
  return TRUE;
}

static void
branch_report (void *state, MdlReport *out)
{
  Branch *b = state;
  mdl_report_add_count (out, "branches", "count", "data-dependent branches executed", NULL,
                        b->branches);
  mdl_report_add_count (out, "branches_taken", "count", "branches that were taken", NULL,
                        b->taken);
  mdl_report_add_count (out, "mispredicts", "count", "branches whose direction was mispredicted",
                        NULL, b->mispredicts);
}

static void
branch_finalize (void *state)
{
  Branch *b = state;
  g_clear_pointer (&b->counters, g_free);
}

const MdlEngineClass mdl_branch_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "branch",
  .summary = "branch direction predictor (bimodal, gshare): branches and mispredictions",
  .params = branch_params,
  .state_size = sizeof (Branch),
  .init = branch_init,
  .consume = branch_consume,
  .report = branch_report,
  .finalize = branch_finalize,
};
