/* balance/lockfree: Cederman's lock-free dynamic task queue (thesis §3.4, Algorithm 6, after
 * Tsigas and Zhang) under the octree partitioning (octree.c). An array of slots and two lazy
 * pointers, beg and end. A slot is EMPTY (never filled), a task number + 1, or TAKEN: the two null
 * values of Tsigas and Zhang, so that an enqueue, which takes the first EMPTY slot at or after
 * end, never fills a slot that a dequeue has emptied (the skeleton's single NIL would let it put a
 * task behind beg). Dequeue: from beg, skip TAKEN slots; an EMPTY slot means no task; else CAS the
 * task to TAKEN, starting over when the CAS fails. Enqueue: from end, skip filled slots, CAS EMPTY
 * to the task, starting over on failure. Either moves its pointer by a CAS only when the slot's
 * index is a multiple of `lazy` (the thesis's x, whose value it does not give). The array is not
 * circular: every task is enqueued once, so it holds them all. Spec:
 * ../shared/spec/gpu-quicksort-cederman.md §3.4. */
#include "algos/simt/octree.h"

enum { LF_BEG, LF_END, LF_DATA = 4 };
#define LF_EMPTY 0u
#define LF_TAKEN 0xffffffffu

static guint64
lockfree_words (const MdlOctreeRun *run)
{
  /* One more slot than tasks, so that a scan always meets an EMPTY one. */
  return LF_DATA + 1 + mdl_octree_task_bound (run->n, run->threshold);
}

static void
lockfree_seed (MdlOctreeRun *run, guint32 *q)
{
  (void) run;
  q[LF_DATA] = 1;
}

static guint64
slot (const MdlOctreeRun *run, guint32 i)
{
  return run->q + 4 * (LF_DATA + (guint64) i);
}

/* From the pointer @which, the first slot that @skip does not pass over: its index in *@at, its
 * value returned (one load per slot, each with its loop test). */
static guint32
scan (MdlSimtBlock *blk, MdlOctreeRun *run, guint which, gboolean (*skip) (guint32),
      guint32 *from, guint32 *at)
{
  guint32 i = *from = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->q + 4 * which), v;
  mdl_simt_loop_begin (blk);
  do
    v = mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, slot (run, i++));
  while (mdl_octree_t0_loop (blk, skip (v)));
  *at = i - 1;
  return v;
}

static gboolean
is_taken (guint32 v)
{
  return v == LF_TAKEN;
}

static gboolean
is_filled (guint32 v)
{
  return v != LF_EMPTY;
}

/* The lazy pointer move: CAS @which from @from to @at when @at is a multiple of lazy. */
static void
move_lazily (MdlSimtBlock *blk, MdlOctreeRun *run, guint which, guint32 from, guint32 at)
{
  mdl_simt_alu (blk, 2);
  if (at % run->lazy == 0)
    mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS, run->q + 4 * which, at, from);
}

static guint32
lockfree_get (MdlSimtBlock *blk, MdlOctreeRun *run)
{
  guint32 from, at, task;
  gboolean retry;
  mdl_simt_loop_begin (blk);
  do
    {
      task = scan (blk, run, LF_BEG, is_taken, &from, &at);
      retry = task != LF_EMPTY
              && mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS, slot (run, at), LF_TAKEN, task)
                   != task;
      run->st->get_slots += at - from + 1;
      run->st->get_cas += task != LF_EMPTY;
      run->st->get_cas_failures += retry;
    }
  while (mdl_octree_t0_loop (blk, retry));
  if (task == LF_EMPTY)
    return 0;
  move_lazily (blk, run, LF_BEG, from, at);
  return task;
}

static void
lockfree_put (MdlSimtBlock *blk, MdlOctreeRun *run, guint32 task)
{
  guint32 from, at;
  gboolean retry;
  mdl_simt_loop_begin (blk);
  do
    {
      scan (blk, run, LF_END, is_filled, &from, &at);
      retry = mdl_octree_t0_atom (blk, run, MDL_SIMT_ATOM_CAS, slot (run, at), task + 1, LF_EMPTY)
              != LF_EMPTY;
      run->st->put_slots += at - from + 1;
      run->st->put_cas++;
      run->st->put_cas_failures += retry;
    }
  while (mdl_octree_t0_loop (blk, retry));
  move_lazily (blk, run, LF_END, from, at);
}

const MdlBalancer mdl_balancer_lockfree = {
  "balance/lockfree", TRUE, TRUE, lockfree_words, lockfree_seed, lockfree_get, lockfree_put, NULL
};

const MdlParamSpec mdl_balance_lockfree_params[] = {
  MDL_OCTREE_COMMON_ROWS, MDL_OCTREE_BLOCKS_ROW,
  { "lazy", MDL_PARAM_UINT, "8", NULL, 1, 1u << 20, NULL, 0,
    "x: beg and end move (by a CAS) only at slots whose index is a multiple of it" },
  { NULL }
};

MDL_OCTREE_ENTRY_POINTS (balance_lockfree, mdl_balancer_lockfree)
