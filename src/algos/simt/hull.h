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
  /* Lemma 2 (V12): partitions of problems of at least 8 points on a random pair (retries on
     lr's normal left out), and of those the ones leaving both children at most 7/8 of the
     problem, and the left child at most 3/4 (§3.2); a pivot that came out as l or r counts as
     a trial that fails both. */
  guint64 lemma_trials, lemma_78, lemma_left_34;
  /* part=alg5 only (Algorithm 5's invariants, V13): */
  guint64 parted;           /* points of the problems partitioned in the independent stage */
  guint64 loop_reads;       /* points the partition loops read (each point once: = parted) */
  guint64 stores;           /* storeChunks inside the loop (lines 18 and 22) */
  guint64 store_min, store_max;   /* points per such storeChunk (the paper: ⌊S/2⌋..S) */
  guint64 flush_max;        /* points of the largest final storeChunk (lines 27 and 30) */
} MdlHullStats;

/* Runs hull/msimd (parameters of mdl_hull_msimd_params) on @n points for @seed into @rec (NULL:
 * no events), checks the hull against the monotone chain and fills @st. n = 0 is allowed here. */
gboolean mdl_hull_msimd_run_stats (const MdlParams *params, guint64 n, guint64 seed,
                                   MdlRecorder *rec, MdlHullStats *st, guint64 *checksum,
                                   GError **error);

#endif
