/* balance/static: Cederman's static task list (thesis §3.2, Algorithm 4) under the octree
 * partitioning (octree.c). Two arrays, in (read-only during a launch) and out, and a tail counter:
 * a launch runs one block per task of in, block i taking in[i] with a plain load; children are
 * appended to out by an atomic add on tail and a store. Between launches the host swaps the arrays
 * and resets tail (NEWTASKCNT, with the printed `blocks ←` read as `blockcnt ←`, notes §7.1); the
 * launches are the iterations, one per level of the tree. Spec:
 * ../shared/spec/gpu-quicksort-cederman.md §3.2. */
#include "algos/simt/octree.h"

/* The structure: tail, then two arrays of a level's tasks (numbers + 1); run->phase says which of
 * them is in. */
enum { ST_TAIL, ST_ARRAYS = 4 };

static guint64
static_cap (const MdlOctreeRun *run)
{
  return mdl_octree_level_bound (run->n, run->threshold);
}

static guint64
static_array (const MdlOctreeRun *run, guint which)
{
  return run->q + 4 * (ST_ARRAYS + which * static_cap (run));
}

static guint64
static_words (const MdlOctreeRun *run)
{
  return ST_ARRAYS + 2 * static_cap (run);
}

static void
static_seed (MdlOctreeRun *run, guint32 *q)
{
  run->phase = 0;
  q[ST_ARRAYS] = 1;
}

static guint32
static_get (MdlSimtBlock *blk, MdlOctreeRun *run)
{
  return mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, static_array (run, run->phase) + 4 * blk->idx_x);
}

static void
static_put (MdlSimtBlock *blk, MdlOctreeRun *run, guint32 task)
{
  guint32 slot = mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_ADD, run->q + 4 * ST_TAIL, 1, 0);
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, static_array (run, 1 - run->phase) + 4 * (guint64) slot,
                    task + 1);
}

static guint32
static_next (MdlOctreeRun *run, guint32 *q)
{
  guint32 blocks = q[ST_TAIL];
  q[ST_TAIL] = 0;
  run->phase = 1 - run->phase;
  return blocks;
}

const MdlBalancer mdl_balancer_static = {
  "balance/static", FALSE, FALSE, static_words, static_seed, static_get, static_put, static_next
};

const MdlParamSpec mdl_balance_static_params[] = { MDL_OCTREE_COMMON_ROWS, { NULL } };

MDL_OCTREE_ENTRY_POINTS (balance_static, mdl_balancer_static)
