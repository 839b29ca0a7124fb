/* balance/abp: task stealing with a deque per block (Arora, Blumofe and Plaxton; Cederman's thesis
 * §3.5) under the octree partitioning (octree.c). The owner pushes and pops at the tail with plain
 * loads and stores and a CAS only for the last task; a block whose deque is empty steals from the
 * head of another's: block i tries i+1, i+2, ... round robin (the thesis's rule; the released
 * code picks victims at random), reading head, tail and the task and taking it by a CAS on head.
 * Head only grows, so a CAS cannot be fooled by a head that came back (ABA: the released code's
 * tag does the same job); slots are used modulo DEQ_CAP, the released code's deque length. The
 * owner's pop is the Chase-Lev order of ABP's: publish the lowered tail, then read head. Spec:
 * ../shared/spec/gpu-quicksort-cederman.md §3.5. */
#include "algos/simt/octree.h"

/* A deque: head, tail, then DEQ_CAP slots (task numbers + 1). A depth-first owner holds at most
 * 7 tasks per level plus 8, 155 for 21 levels, so 256 slots never wrap onto a live task. */
enum { DQ_HEAD, DQ_TAIL, DQ_SLOTS = 2, DEQ_CAP = 256, DQ_WORDS = DQ_SLOTS + DEQ_CAP };

static guint64
deque (const MdlOctreeRun *run, guint b, guint word)
{
  return run->q + 4 * ((guint64) b * DQ_WORDS + word);
}

static guint64
deque_slot (const MdlOctreeRun *run, guint b, guint32 i)
{
  return deque (run, b, DQ_SLOTS + i % DEQ_CAP);
}

static guint64
abp_words (const MdlOctreeRun *run)
{
  return (guint64) run->blocks * DQ_WORDS;
}

static void
abp_seed (MdlOctreeRun *run, guint32 *q)
{
  (void) run;
  q[DQ_TAIL] = 1;
  q[DQ_SLOTS] = 1;
}

/* The owner's pop: the task number + 1, or 0 when its deque is empty. */
static guint32
pop (MdlSimtBlock *blk, MdlOctreeRun *run, guint b)
{
  guint32 tail = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL)), head, task;
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL), --tail);
  head = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_HEAD));
  mdl_simt_alu (blk, 2);
  if ((gint32) (tail - head) < 0)
    {
      mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL), head);
      return 0;
    }
  task = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque_slot (run, b, tail));
  if (tail != head)
    return task;
  /* The last task: thieves may want it too. */
  if (mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS, deque (run, b, DQ_HEAD), head + 1, head)
      != head)
    task = 0;
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL), head + 1);
  return task;
}

/* A thief's try on block @v: the task number + 1, or 0. */
static guint32
steal (MdlSimtBlock *blk, MdlOctreeRun *run, guint v)
{
  guint32 head = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque (run, v, DQ_HEAD));
  guint32 tail = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque (run, v, DQ_TAIL)), task;
  mdl_simt_alu (blk, 2);
  if ((gint32) (tail - head) <= 0)
    return 0;
  task = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque_slot (run, v, head));
  if (mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS, deque (run, v, DQ_HEAD), head + 1, head)
      != head)
    return 0;
  run->st->steals++;
  return task;
}

static guint32
abp_get (MdlSimtBlock *blk, MdlOctreeRun *run)
{
  guint32 task = pop (blk, run, blk->idx_x);
  guint tries = 1;
  mdl_simt_loop_begin (blk);
  while (mdl_octree_t0_loop (blk, task == 0 && tries < run->blocks))
    task = steal (blk, run, (blk->idx_x + tries++) % run->blocks);
  return task;
}

static void
abp_put (MdlSimtBlock *blk, MdlOctreeRun *run, guint32 task)
{
  guint b = blk->idx_x;
  guint32 tail = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL));
  /* The bound's check, on the host's view (no instruction). */
  if (tail - run->host_q[(guint64) b * DQ_WORDS + DQ_HEAD] >= DEQ_CAP)
    run->overflow = TRUE;
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, deque_slot (run, b, tail), task + 1);
  mdl_octree_t0_st (blk, run, MDL_SPACE_GLOBAL, deque (run, b, DQ_TAIL), tail + 1);
}

const MdlBalancer mdl_balancer_abp = {
  "balance/abp", TRUE, FALSE, abp_words, abp_seed, abp_get, abp_put, NULL
};

const MdlParamSpec mdl_balance_abp_params[] = {
  MDL_OCTREE_COMMON_ROWS, MDL_OCTREE_BLOCKS_ROW, { NULL }
};

MDL_OCTREE_ENTRY_POINTS (balance_abp, mdl_balancer_abp)
