/* The octree partitioning of Cederman's load-balancing benchmark (thesis §3.6) in SIMT C: the split
 * of one task, the blocks' loop (get a task, split it, put its children) that every balancer
 * shares, and the host's launches (the root's turn, then the static list's levels or the
 * persistent kernel, until the termination counter reaches n).
 *
 * Splitting a task (the released benchmark's scheme, notes §3.6): every thread loads the task's
 * record; pass 1 reads the task's particles (16 bytes, coalesced, thread i taking i, i + T, ...) and
 * counts them per child with shared atomic adds on 8 counters; thread 0 turns the counts into the
 * children's first particles (a serial prefix of 8); lanes 0..7 then handle one child each: a child
 * above the threshold gets a task record (numbers taken by one atomic add on the pool's top), a
 * non-empty one below it a leaf record and an atomic add of its count to the termination counter;
 * pass 2 reads the particles again and scatters each to its child's next slot (a shared atomic
 * add on the child's cursor) in the other buffer. Then thread 0 puts the children through the
 * balancer. The interleaving and the choices where the thesis is silent are in
 * docs/models/balance-octree.md. Spec: ../shared/spec/gpu-quicksort-cederman.md §3. */
#include "algos/simt/octree.h"

#include <string.h>

/* Shared memory: the task of the turn (number + 1), the 8 counters, the 8 cursors, the 8
 * children's task numbers + 1. */
enum { SH_TASK = 0, SH_COUNT = 4, SH_CURSOR = 36, SH_KIDS = 68, SH_BYTES = 128 };

/* Lane vectors of one turn. */
typedef struct {
  guint64 *at, *v, *i, *rec, *part, *sel, *old;
} Regs;

typedef struct {
  MdlOctreeRun *run;
  Regs r;
} Turn;

/* Thread 0's instructions read and write lane 0 only (the only lane active), so one-word locals
 * serve as their lane vectors: on the block's own stack, which matters when blocks interleave. */
guint32
mdl_octree_t0_ld (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSpace space, guint64 addr)
{
  guint64 v = 0;
  (void) run;
  mdl_simt_ld (blk, space, 4, &addr, &v);
  return (guint32) v;
}

void
mdl_octree_t0_st (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSpace space, guint64 addr, guint32 v)
{
  guint64 value = v;
  (void) run;
  mdl_simt_st (blk, space, 4, &addr, &value);
}

guint32
mdl_octree_t0_atom (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSimtAtomOp op, guint64 addr,
                    guint32 v, guint32 compare)
{
  guint64 operand = v, cmp = compare, old = 0;
  mdl_simt_atom (blk, MDL_SPACE_GLOBAL, op, 4, &addr, &operand, &cmp, &old);
  if (op == MDL_SIMT_ATOM_CAS)
    {
      run->st->cas_attempts++;
      run->st->cas_failures += (guint32) old != compare;
    }
  return (guint32) old;
}

gboolean
mdl_octree_t0_loop (MdlSimtBlock *blk, gboolean again)
{
  mdl_simt_cond (blk)[0] = (guint8) again;
  return mdl_simt_loop_test (blk);
}

/* Every active thread loads the 4-byte shared word at @off into @dst. */
static void
ld_shared_uniform (MdlSimtBlock *blk, Regs *r, guint64 off, guint64 *dst)
{
  MDL_SIMT_EACH (blk, t)
    r->at[t] = off;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, dst);
}

/* One pass over the task's particles: thread i loads particles start + i, start + i + T, ...
 * from buffer @src and adds 1 to the shared word of its child among @shared_words (the counters
 * in pass 1, the cursors in pass 2, whose old value is then its slot); pass 2 stores the particle
 * at that slot of buffer @dst. */
static void
particle_pass (MdlSimtBlock *blk, Turn *turn, guint64 start, guint64 count, guint32 depth,
               guint64 src, guint64 shared_words, guint64 dst)
{
  Regs *r = &turn->r;
  guint T = blk->n_threads;
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    r->i[t] = t;
  mdl_simt_loop_begin (blk);
  for (;;)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = r->i[t] < count;
      if (!mdl_simt_loop_test (blk))
        break;
      MDL_SIMT_EACH (blk, t)
        r->at[t] = src + 16 * (start + r->i[t]);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 16, r->at, r->part);
      /* The octant: three shifts, three masks, two shifts and two ors. */
      mdl_simt_alu (blk, 10);
      MDL_SIMT_EACH (blk, t)
        {
          guint32 p[3] = { (guint32) r->part[2 * t], (guint32) (r->part[2 * t] >> 32),
                           (guint32) r->part[2 * t + 1] };
          r->at[t] = shared_words + 4 * mdl_octree_octant (p, depth);
          r->v[t] = 1;
        }
      mdl_simt_atom (blk, MDL_SPACE_SHARED, MDL_SIMT_ATOM_ADD, 4, r->at, r->v, NULL,
                     dst ? r->old : NULL);
      if (dst)
        {
          MDL_SIMT_EACH (blk, t)
            r->at[t] = dst + 16 * r->old[t];
          mdl_simt_st (blk, MDL_SPACE_GLOBAL, 16, r->at, r->part);
        }
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        r->i[t] += T;
    }
}

/* The active lanes (0..7) whose @want holds take consecutive numbers, in lane order, from the
 * global counter @top: a ballot, one atomic add by lane 0, a shuffle of its old value; each lane's
 * number is left in r->v. */
static void
take_numbers (MdlSimtBlock *blk, Regs *r, const guint8 *want, guint64 top)
{
  guint64 mask, first = 0;
  MDL_SIMT_EACH (blk, t)
    r->sel[t] = want[t];
  mdl_simt_vote (blk, MDL_SIMT_VOTE_BALLOT, r->sel, r->sel);
  mask = r->sel[0];
  if (mask == 0)
    return;
  mdl_simt_algo_pred_below (blk, 1);
  r->at[0] = top;
  r->v[0] = (guint64) __builtin_popcountll (mask);
  mdl_simt_atom (blk, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_ADD, 4, r->at, r->v, NULL, r->old);
  first = r->old[0];
  mdl_simt_pred_end (blk);
  MDL_SIMT_EACH (blk, t)
    r->sel[t] = 0;
  mdl_simt_shfl (blk, MDL_SIMT_SHFL_IDX, blk->warp_width, r->old, r->sel, r->old);
  mdl_simt_alu (blk, 2);
  MDL_SIMT_EACH (blk, t)
    r->v[t] = first + (guint64) __builtin_popcountll (mask & ((G_GUINT64_CONSTANT (1) << t) - 1));
}

/* Splits task @task (its number) of the turn's block. */
static void
split (MdlSimtBlock *blk, Turn *turn, guint32 task)
{
  MdlOctreeRun *run = turn->run;
  Regs *r = &turn->r;
  guint64 start, count, path;
  guint32 depth;
  guint8 want[8], *cond;

  /* Every thread reads the task's record (one 16-byte broadcast load). */
  MDL_SIMT_EACH (blk, t)
    r->at[t] = run->tasks + 16 * (guint64) task;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 16, r->at, r->rec);
  start = (guint32) r->rec[0];
  count = r->rec[0] >> 32;
  path = r->rec[1];
  depth = mdl_octree_depth (path);

  mdl_simt_algo_pred_below (blk, 8);
  MDL_SIMT_EACH (blk, t)
    {
      r->at[t] = SH_COUNT + 4 * t;
      r->v[t] = 0;
    }
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->v);
  mdl_simt_pred_end (blk);
  mdl_simt_sync (blk);

  particle_pass (blk, turn, start, count, depth, run->buf[depth % 2], SH_COUNT, 0);
  mdl_simt_sync (blk);

  /* Thread 0: the children's first particles, a serial prefix of the 8 counts. */
  mdl_simt_algo_if_thread0 (blk);
  {
    guint32 at = (guint32) start;
    for (guint c = 0; c < 8; c++)
      {
        guint32 k = mdl_octree_t0_ld (blk, run, MDL_SPACE_SHARED, SH_COUNT + 4 * c);
        mdl_octree_t0_st (blk, run, MDL_SPACE_SHARED, SH_CURSOR + 4 * c, at);
        mdl_simt_alu (blk, 1);
        at += k;
      }
  }
  mdl_simt_endif (blk);
  mdl_simt_sync (blk);

  /* Lanes 0..7: child c's count and first particle. */
  mdl_simt_algo_pred_below (blk, 8);
  MDL_SIMT_EACH (blk, t)
    r->at[t] = SH_COUNT + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->i);
  MDL_SIMT_EACH (blk, t)
    r->at[t] = SH_CURSOR + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->part);
  mdl_simt_alu (blk, 3);
  for (guint c = 0; c < 8; c++)
    want[c] = (guint8) mdl_octree_splits (r->i[c], depth + 1, run->threshold);

  /* Children that split: task records, numbered from the pool's top. */
  take_numbers (blk, r, want, run->ctl + 4 * CTL_TASKS);
  cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = want[t];
  mdl_simt_pred_begin (blk);
  MDL_SIMT_EACH (blk, t)
    {
      r->rec[2 * t] = r->part[t] | r->i[t] << 32;
      r->rec[2 * t + 1] = 8 * path + t;
      r->at[t] = run->tasks + 16 * r->v[t];
      r->sel[t] = r->v[t] + 1;
    }
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 16, r->at, r->rec);
  mdl_simt_pred_end (blk);
  MDL_SIMT_EACH (blk, t)
    {
      if (!want[t])
        r->sel[t] = 0;
      r->at[t] = SH_KIDS + 4 * t;
    }
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->sel);

  /* Children that are leaves: leaf records, and their counts added to the termination counter. */
  for (guint c = 0; c < 8; c++)
    want[c] = !want[c] && r->i[c] > 0;
  take_numbers (blk, r, want, run->ctl + 4 * CTL_LEAVES);
  cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = want[t];
  mdl_simt_pred_begin (blk);
  MDL_SIMT_EACH (blk, t)
    {
      r->rec[2 * t] = 8 * path + t;
      r->rec[2 * t + 1] = r->part[t] | r->i[t] << 32;
      r->at[t] = run->leaves + 16 * r->v[t];
    }
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 16, r->at, r->rec);
  MDL_SIMT_EACH (blk, t)
    r->at[t] = run->ctl + 4 * CTL_DONE;
  mdl_simt_atom (blk, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_ADD, 4, r->at, r->i, NULL, r->old);
  mdl_simt_alu (blk, 2);
  cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = r->old[t] + r->i[t] == run->n;
  mdl_simt_pred_begin (blk);
  MDL_SIMT_EACH (blk, t)
    {
      r->at[t] = run->ctl + 4 * CTL_FINISHERS;
      r->v[t] = 1;
    }
  mdl_simt_atom (blk, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_ADD, 4, r->at, r->v, NULL, NULL);
  mdl_simt_pred_end (blk);
  mdl_simt_pred_end (blk);
  mdl_simt_pred_end (blk);

  particle_pass (blk, turn, start, count, depth, run->buf[depth % 2], SH_CURSOR,
                 run->buf[(depth + 1) % 2]);
  mdl_simt_sync (blk);
  run->st->tasks++;
  run->per_block[blk->idx_x]++;
}

/* What thread 0 hands its block when the build is over for it. */
#define TASK_EXIT 0xffffffffu

/* The blocks' loop (the CUDA twin's run_turns): thread 0 gets a task (when it finds none and the
 * termination counter is at n, or the launch's one turn is done: exit), the block splits it and
 * thread 0 puts the children; a block that got no task goes round again. run->turns = 0 loops
 * until the counter reaches n (the persistent kernel), 1 makes one turn (the root's launch, the
 * static list's launches). */
static void
turns_kernel (MdlSimtBlock *blk, void *args)
{
  Turn turn = { .run = args };
  MdlOctreeRun *run = turn.run;
  guint32 task, turns = 0;
  guint8 *cond;
  turn.r = (Regs) { mdl_simt_reg (blk, 1), mdl_simt_reg (blk, 1), mdl_simt_reg (blk, 1),
                    mdl_simt_reg (blk, 2), mdl_simt_reg (blk, 2), mdl_simt_reg (blk, 1),
                    mdl_simt_reg (blk, 1) };
  mdl_simt_loop_begin (blk);
  do
    {
      mdl_simt_algo_if_thread0 (blk);
      task = run->bal->get (blk, run);
      mdl_simt_alu (blk, 1);
      if (task == 0)
        {
          run->st->idle_turns++;
          if (run->turns
              || mdl_octree_t0_ld (blk, run, MDL_SPACE_GLOBAL, run->ctl + 4 * CTL_DONE) == run->n)
            task = TASK_EXIT;
        }
      mdl_octree_t0_st (blk, run, MDL_SPACE_SHARED, SH_TASK, task);
      mdl_simt_endif (blk);
      mdl_simt_sync (blk);
      ld_shared_uniform (blk, &turn.r, SH_TASK, turn.r.v);
      task = (guint32) turn.r.v[0];
      mdl_simt_sync (blk);
      mdl_simt_alu (blk, 2);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = task != 0 && task != TASK_EXIT;
      mdl_simt_if (blk);
      if (task != 0 && task != TASK_EXIT)
        {
          split (blk, &turn, task - 1);
          mdl_simt_algo_if_thread0 (blk);
          for (guint c = 0; c < 8; c++)
            {
              guint32 kid = mdl_octree_t0_ld (blk, run, MDL_SPACE_SHARED, SH_KIDS + 4 * c);
              if (kid)
                run->bal->put (blk, run, kid - 1);
            }
          mdl_simt_endif (blk);
        }
      mdl_simt_endif (blk);
      turns++;
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = task != TASK_EXIT && (run->turns == 0 || turns < run->turns);
    }
  while (mdl_simt_loop_test (blk));
}

/* ---- the host ---- */

static gboolean
fail (GError **error, GQuark domain, int code, const char *name, const char *what)
{
  g_set_error (error, domain, code, "%s: %s", name, what);
  return FALSE;
}

/* The rules every tree must keep: each leaf at most the threshold (unless at the deepest level),
 * its particles in its cell, the counts summing to n. */
static gboolean
check_leaves (MdlSimt *gpu, const MdlOctreeRun *run, const MdlOctreeLeaf *leaves, guint64 nl,
              GError **error)
{
  guint64 sum = 0;
  for (guint64 l = 0; l < nl; l++)
    {
      const MdlOctreeLeaf *leaf = &leaves[l];
      guint32 depth = mdl_octree_depth (leaf->path);
      const guint32 *p = mdl_simt_host (gpu, run->buf[depth % 2]);
      if (leaf->count > run->threshold && depth < MDL_OCTREE_MAX_DEPTH)
        return fail (error, MDL_ERROR, MDL_ERROR_MODEL, run->bal->name,
                     "a leaf holds more particles than the threshold");
      if ((guint64) leaf->start + leaf->count > run->n)
        return fail (error, MDL_ERROR, MDL_ERROR_MODEL, run->bal->name,
                     "a leaf's particles lie outside the buffer");
      for (guint32 i = leaf->start; i < leaf->start + leaf->count; i++)
        {
          guint64 path = 1;
          for (guint32 d = 0; d < depth; d++)
            path = 8 * path + mdl_octree_octant (p + MDL_PARTICLE_WORDS * (guint64) i, d);
          if (path != leaf->path)
            return fail (error, MDL_ERROR, MDL_ERROR_MODEL, run->bal->name,
                         "a particle lies outside its leaf's cell");
        }
      sum += leaf->count;
    }
  if (sum != run->n)
    return fail (error, MDL_ERROR, MDL_ERROR_MODEL, run->bal->name,
                 "the leaves' counts do not sum to n");
  return TRUE;
}

gboolean
mdl_octree_build (MdlSimt *gpu, const MdlBalancer *bal, guint64 particles, guint64 n,
                  guint threads, guint blocks, guint resident, const MdlSimtClock *clock,
                  guint threshold, guint lazy, MdlOctreeLeaf **leaves, guint64 *n_leaves, MdlOctreeStats *st, GError **error)
{
  MdlOctreeRun run = { .bal = bal, .threads = threads, .blocks = blocks, .threshold = threshold,
                       .lazy = lazy, .n = n, .st = st };
  guint64 task_cap = mdl_octree_task_bound (n, threshold);
  g_autofree guint64 *per_block = NULL;
  guint32 *q, grid = 1;
  *st = (MdlOctreeStats) { 0 };
  *leaves = NULL;
  *n_leaves = 0;
  if (threads < 8 || threads > MDL_SIMT_MAX_THREADS)
    return fail (error, MDL_ERROR, MDL_ERROR_PARAM, bal->name, "threads must be 8..1024");
  if (blocks < 1 || blocks > 65535 || threshold < 1 || lazy < 1)
    return fail (error, MDL_ERROR, MDL_ERROR_PARAM, bal->name,
                 "blocks must be 1..65535, threshold and lazy at least 1");
  if (resident == 0)
    resident = blocks;
  if (resident > MDL_SIMT_MAX_RESIDENT)
    return fail (error, MDL_ERROR, MDL_ERROR_PARAM, bal->name,
                 "more blocks than can be resident at once (" G_STRINGIFY (MDL_SIMT_MAX_RESIDENT)
                 "): give resident");
  if (n < 1 || n > (G_GUINT64_CONSTANT (1) << 26))
    return fail (error, MDL_ERROR, MDL_ERROR_PARAM, bal->name, "n must be 1..2^26");
  run.per_block = per_block = g_new0 (guint64, MAX (blocks, mdl_octree_level_bound (n, threshold)));
  run.buf[0] = particles;
  if (!(run.buf[1] = mdl_simt_alloc (gpu, 16 * n, error))
      || !(run.tasks = mdl_simt_alloc (gpu, 16 * task_cap, error))
      || !(run.leaves = mdl_simt_alloc (gpu, 16 * n, error))
      || !(run.ctl = mdl_simt_alloc (gpu, 4 * CTL_WORDS, error)))
    return FALSE;
  run.q_words = bal->words (&run);
  if (!(run.q = mdl_simt_alloc (gpu, 4 * run.q_words, error)))
    return FALSE;
  run.host_ctl = mdl_simt_host (gpu, run.ctl);
  q = run.host_q = mdl_simt_host (gpu, run.q);

  if (!mdl_octree_splits (n, 0, threshold))
    {
      /* The root is the only leaf: no task, no launch. */
      MdlOctreeLeaf root = { 1, 0, (guint32) n };
      run.host_ctl[CTL_DONE] = (guint32) n;
      run.host_ctl[CTL_FINISHERS] = 1;
      run.host_ctl[CTL_LEAVES] = 1;
      memcpy (mdl_simt_host (gpu, run.leaves), &root, sizeof root);
    }
  else
    {
      guint32 *root = mdl_simt_host (gpu, run.tasks);
      root[TASK_START] = 0;
      root[TASK_COUNT] = (guint32) n;
      root[TASK_PATH_LO] = 1;
      run.host_ctl[CTL_TASKS] = 1;
      bal->seed (&run, q);
      /* The first launch is the root's turn on one block (the thesis's single initial
       * iteration); then the static list's launches, or the persistent kernel's one. */
      run.turns = 1;
      while (grid > 0)
        {
          MdlSimtLaunch shape = { .grid_x = grid, .block_x = threads, .shared_bytes = SH_BYTES,
                                  .resident = run.turns ? 1 : resident, .clock = clock };
          guint64 before = st->tasks;
          if (!mdl_simt_launch (gpu, &shape, turns_kernel, &run, error))
            return FALSE;
          st->rounds++;
          if (st->tasks == before)
            return fail (error, MDL_ERROR, MDL_ERROR_MODEL, bal->name,
                         "a launch split no task before the counter reached n (tasks lost)");
          if (run.host_ctl[CTL_TASKS] > task_cap || run.overflow)
            return fail (error, MDL_ERROR, MDL_ERROR_MODEL, bal->name,
                         "the task pool or a deque overflowed");
          if (run.host_ctl[CTL_DONE] == n)
            break;
          if (!bal->dynamic)
            grid = bal->next (&run, q);
          else if (run.turns)
            {
              grid = blocks;
              run.turns = 0;
            }
          else
            return fail (error, MDL_ERROR, MDL_ERROR_MODEL, bal->name,
                         "the persistent kernel ended before the counter reached n");
        }
      st->rounds--;
    }
  st->finishers = run.host_ctl[CTL_FINISHERS];
  st->leaves = run.host_ctl[CTL_LEAVES];
  for (guint b = 0; b < blocks; b++)
    st->max_tasks_block = MAX (st->max_tasks_block, per_block[b]);
  if (run.host_ctl[CTL_DONE] != n || st->finishers != 1)
    return fail (error, MDL_ERROR, MDL_ERROR_MODEL, bal->name,
                 "the termination counter did not reach n exactly once");
  *leaves = g_new (MdlOctreeLeaf, st->leaves);
  *n_leaves = st->leaves;
  memcpy (*leaves, mdl_simt_host (gpu, run.leaves), st->leaves * sizeof **leaves);
  qsort (*leaves, st->leaves, sizeof **leaves, mdl_octree_leaf_cmp);
  if (!check_leaves (gpu, &run, *leaves, st->leaves, error))
    {
      g_clear_pointer (leaves, g_free);
      *n_leaves = 0;
      return FALSE;
    }
  return TRUE;
}

gboolean
mdl_octree_clock (const MdlParams *params, MdlSimtClock **clock, GError **error)
{
  const char *how = mdl_params_string (params, "clock");
  *clock = NULL;
  if (strcmp (how, "off") == 0)
    {
      if (mdl_params_choice (params, "clock_effect") == 0)
        return TRUE;
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM,
                   "clock_effect=arrive needs latencies: clock=spread or a latency CSV, not "
                   "clock=off");
      return FALSE;
    }
  /* A synthetic table's memory latency is a unit: only the ratios between SMs matter. */
  if (strcmp (how, "spread") == 0)
    *clock = mdl_simt_clock_new ((guint) mdl_params_uint (params, "clock_sms"), 1000, 0);
  else if (!(*clock = mdl_simt_clock_load (how, mdl_params_string (params, "clock_mode"),
                                           error)))
    return FALSE;
  if (mdl_params_uint (params, "clock_issue_ps"))
    for (guint sm = 0; sm < mdl_simt_clock_n_sms (*clock); sm++)
      mdl_simt_clock_set (*clock, sm, MDL_SIMT_LAT_ISSUE, mdl_params_uint (params, "clock_issue_ps"));
  mdl_simt_clock_spread (*clock, (guint) mdl_params_uint (params, "clock_spread"),
                         mdl_params_uint (params, "clock_seed"));
  mdl_simt_clock_set_effect (*clock, mdl_params_choice (params, "clock_effect")
                                       ? MDL_SIMT_EFFECT_ARRIVE : MDL_SIMT_EFFECT_ISSUE);
  mdl_simt_clock_set_jitter (*clock, (guint) mdl_params_uint (params, "clock_jitter"),
                             mdl_params_uint (params, "clock_seed"));
  return TRUE;
}

gboolean
mdl_octree_body (const MdlBalancer *bal, const MdlParams *params, guint64 n, guint64 seed,
                 MdlRecorder *rec, guint64 *checksum, GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree MdlOctreeLeaf *leaves = NULL;
  g_autoptr (MdlSimtClock) clock = NULL;
  MdlOctreeLeaf *want = NULL;
  MdlOctreeShape shape;
  MdlOctreeStats st;
  guint64 addr, nl = 0, n_want = 0;
  guint threshold = (guint) mdl_params_uint (params, "threshold");
  guint blocks = bal->dynamic ? (guint) mdl_params_uint (params, "blocks") : 1;
  guint lazy = bal->lazy ? (guint) mdl_params_uint (params, "lazy") : 1;
  guint resident = bal->dynamic ? (guint) mdl_params_uint (params, "resident") : 1;
  gboolean same;
  if (!mdl_simt_algo_size_ok (bal->name, n, G_GUINT64_CONSTANT (1) << 26, error))
    return FALSE;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(addr = mdl_simt_alloc (gpu, 16 * n, error)))
    return FALSE;
  mdl_particles_fill (mdl_simt_host (gpu, addr), n,
                      (MdlParticleDist) mdl_params_choice (params, "dist"), seed);
  if (!mdl_octree_reference (mdl_simt_host (gpu, addr), n, threshold, &want, &n_want, &shape))
    return fail (error, MDL_ERROR, MDL_ERROR_PARAM, bal->name, "out of memory");
  if (bal->dynamic && !mdl_octree_clock (params, &clock, error))
    {
      g_prefix_error (error, "%s: ", bal->name);
      free (want);
      return FALSE;
    }
  if (!mdl_octree_build (gpu, bal, addr, n, (guint) mdl_params_uint (params, "threads"), blocks,
                         resident, clock, threshold, lazy, &leaves, &nl, &st, error))
    {
      free (want);
      return FALSE;
    }
  same = nl == n_want && memcmp (leaves, want, nl * sizeof *want) == 0;
  free (want);
  if (!same)
    return fail (error, MDL_ERROR, MDL_ERROR_MODEL, bal->name,
                 "the leaves differ from the sequential reference's");
  *checksum = mdl_simt_algo_checksum (leaves, nl * sizeof *leaves);
  return TRUE;
}
