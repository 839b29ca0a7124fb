/* The interleaved schedule of the SIMT layer (MdlSimtLaunch.resident >= 2): up to R blocks of a
 * launch resident at once, switched round robin after every global memory instruction (the only
 * instructions through which blocks see each other; simt.c's memory_op() calls the switch).
 *
 * Why threads: a kernel is a plain C function that keeps its state on its stack, so a block that
 * has to stop in the middle (a spin on a lock another block holds) needs a stack of its own. Each
 * slot (a resident block) runs on a GThread; a baton, one GMutex, lets exactly one run: the
 * thread that holds it and whose slot is `turn`. A yield names the next live slot in slot order
 * and waits on its own GCond, so the order of the slots' turns, and with it the event stream,
 * depends on nothing but the launch. A slot's thread runs the grid's blocks one after another as
 * its block ends (the next block takes the freed slot), and gives up its turn for good when none
 * is left. ucontext would switch faster, but AddressSanitizer does not follow swapcontext.
 * Cost: two futex hand-overs per switch, a few microseconds. */
#include "simt/simt-private.h"

/* The live slot after @slot in slot order (@slot itself when it is the only one); G_MAXUINT when
 * none is live. */
static guint
next_live (MdlSimt *gpu, guint slot)
{
  for (guint k = 1; k <= gpu->n_slots_running; k++)
    {
      guint i = (slot + k) % gpu->n_slots_running;
      if (gpu->slots[i]->live)
        return i;
    }
  return G_MAXUINT;
}

/* Passes the baton from @slot to the next live slot (or to the launcher when none is). */
static void
pass_turn (MdlSimt *gpu, guint slot)
{
  guint next = next_live (gpu, slot);
  if (next == G_MAXUINT)
    {
      g_cond_signal (&gpu->sched.done);
      return;
    }
  gpu->sched.turn = next;
  g_cond_signal (&gpu->slots[next]->turn);
}

static void
wait_turn (MdlSimt *gpu, SimtBlock *blk)
{
  while (gpu->sched.turn != blk->slot)
    g_cond_wait (&blk->turn, &gpu->sched.baton);
  gpu->cur = blk;
}

void
mdl_simt_yield (SimtBlock *blk)
{
  MdlSimt *gpu = blk->gpu;
  if (next_live (gpu, blk->slot) == blk->slot)
    return;   /* alone: no hand-over */
  pass_turn (gpu, blk->slot);
  wait_turn (gpu, blk);
}

/* A slot's thread: the grid's next block while there is one, each to its end. */
static gpointer
slot_main (gpointer data)
{
  SimtBlock *blk = data;
  MdlSimt *gpu = blk->gpu;
  SimtSchedule *sc = &gpu->sched;
  g_mutex_lock (&sc->baton);
  wait_turn (gpu, blk);
  /* After a fault no new block starts (as in a sequential launch); loops end at their next test. */
  while (sc->next_block < sc->n_blocks && !gpu->error)
    mdl_simt_block_run (blk, sc->next_block++, sc->kernel, sc->args);
  blk->live = FALSE;
  sc->n_live--;
  pass_turn (gpu, blk->slot);
  g_mutex_unlock (&sc->baton);
  return NULL;
}

void
mdl_simt_run_interleaved (MdlSimt *gpu, const MdlSimtLaunch *s, guint32 launch,
                          MdlSimtKernel kernel, void *args)
{
  SimtSchedule *sc = &gpu->sched;
  guint32 n_blocks = s->grid_x * s->grid_y;
  guint n = MIN (s->resident, n_blocks);
  if (n > gpu->n_slots)
    {
      gpu->slots = g_renew (SimtBlock *, gpu->slots, n);
      for (guint i = gpu->n_slots; i < n; i++)
        {
          gpu->slots[i] = g_new0 (SimtBlock, 1);
          gpu->slots[i]->arena = g_array_new (FALSE, FALSE, sizeof (SimtChunk));
          g_cond_init (&gpu->slots[i]->turn);
        }
      gpu->n_slots = n;
    }
  g_mutex_lock (&sc->baton);
  sc->kernel = kernel;
  sc->args = args;
  sc->n_blocks = n_blocks;
  sc->next_block = 0;
  sc->turn = 0;
  sc->n_live = n;
  gpu->n_slots_running = n;
  for (guint i = 0; i < n; i++)
    {
      SimtBlock *blk = gpu->slots[i];
      mdl_simt_block_setup (gpu, blk, s);
      blk->launch = launch;
      blk->slot = i;
      blk->live = TRUE;
    }
  for (guint i = 0; i < n; i++)
    gpu->slots[i]->thread = g_thread_new ("simt-block", slot_main, gpu->slots[i]);
  while (sc->n_live > 0)
    g_cond_wait (&sc->done, &sc->baton);
  gpu->n_slots_running = 0;
  gpu->cur = &gpu->blk;
  g_mutex_unlock (&sc->baton);
  for (guint i = 0; i < n; i++)
    g_thread_join (gpu->slots[i]->thread);
}
