/* balance/blocking: Cederman's blocking dynamic task queue (thesis §3.3, Algorithm 5) under the
 * octree partitioning (octree.c). One array and one lock word: thread 0 spins on
 * atomicCAS (lock, 0, 1), moves beg or end (pre-increment: beg is the last slot taken, end the
 * last filled; empty when they are equal), reads or writes the slot, and releases the lock with a
 * plain store. Every failed CAS of the spin is an atomic instruction of its own (counted in the
 * build's cas_failures). Spec: ../shared/spec/gpu-quicksort-cederman.md §3.3. */
#include "algos/simt/octree.h"

enum { BQ_LOCK, BQ_BEG, BQ_END, BQ_DATA = 4 };

static guint64
blocking_words (const MdlOctreeRun *run)
{
  /* Each task is enqueued once; slot 0 is never used (pre-increment). */
  return BQ_DATA + 1 + mdl_octree_task_bound (run->n, run->threshold);
}

static void
blocking_seed (MdlOctreeRun *run, guint32 *q)
{
  (void) run;
  q[BQ_END] = 1;
  q[BQ_DATA + 1] = 1;
}

/* while (atomicCAS (&q.lock, 0, 1) == 1) {} */
static void
lock (MdlSimtBlock *blk, MdlOctreeRun *run)
{
  mdl_simt_loop_begin (blk);
  while (mdl_octree_t0_loop (blk, mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS,
                                                      run->q + 4 * BQ_LOCK, 1, 0) == 1))
    ;
}

static guint32
blocking_get (MdlSimtBlock *blk, MdlOctreeRun *run)
{
  guint32 beg, end, task = 0;
  lock (blk, run);
  beg = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_BEG);
  end = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_END);
  mdl_simt_alu (blk, 2);
  if (beg != end)
    {
      mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_BEG, ++beg);
      task = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * (BQ_DATA + (guint64) beg));
    }
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_LOCK, 0);
  return task;
}

static void
blocking_put (MdlSimtBlock *blk, MdlOctreeRun *run, guint32 task)
{
  guint32 end;
  lock (blk, run);
  end = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_END) + 1;
  mdl_simt_alu (blk, 1);
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_END, end);
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * (BQ_DATA + (guint64) end), task + 1);
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * BQ_LOCK, 0);
}

const MdlBalancer mdl_balancer_blocking = {
  "balance/blocking", TRUE, FALSE, blocking_words, blocking_seed, blocking_get, blocking_put, NULL
};

const MdlParamSpec mdl_balance_blocking_params[] = {
  MDL_OCTREE_COMMON_ROWS, MDL_OCTREE_BLOCKS_ROW, { NULL }
};

MDL_OCTREE_ENTRY_POINTS (balance_blocking, mdl_balancer_blocking)
