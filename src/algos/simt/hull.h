/* Private to src/algos/simt/hull.c and its tests: what one run of the MSIMD convex hull did, the
 * numbers of the paper's A.4 table that are not memory counts (those come from the msimd engine). */
#ifndef MDL_SIMT_HULL_H
#define MDL_SIMT_HULL_H

#include <models/algo.h>
#include <models/params.h>

typedef struct {
  guint64 h;                /* hull vertices */
  guint64 quad_kept;        /* points above an edge of the primary quadrilateral (in the bins) */
  guint64 collab_rounds;    /* collaborative-stage iterations (A.4 "Collab. iter.") */
  guint64 collab_launches;  /* kernel launches of the collaborative stage */
  guint64 collab_failed;    /* partitions redone: pivot l or r, or a child without a processor */
  guint64 indep_min, indep_max, indep_total;   /* independent-stage iterations per processor */
  guint64 indep_retries;    /* of those, pivots that came out as l or r (retried on lr's normal) */
  guint64 pruned;           /* points dropped by pair pruning (Algorithm 4 lines 3-4) */
  guint64 max_stack;        /* deepest stack of a processor in the independent stage */
  guint64 max_share;        /* the largest problem one processor took into the independent stage */
} MdlHullStats;

/* Runs hull/msimd (parameters of mdl_hull_msimd_params) on @n points for @seed into @rec (NULL:
 * no events), checks the hull against the monotone chain and fills @st. n = 0 is allowed here. */
gboolean mdl_hull_msimd_run_stats (const MdlParams *params, guint64 n, guint64 seed,
                                   MdlRecorder *rec, MdlHullStats *st, guint64 *checksum,
                                   GError **error);

#endif
