/* The interleaved schedule of the SIMT layer (MdlSimtLaunch.resident >= 2): up to R blocks of a
 * launch resident at once, switched round robin after every global memory instruction (the only
 * instructions through which blocks see each other; simt.c's memory_op() calls the switch).
 *
 * Why fibers: a kernel is a plain C function that keeps its state on its stack, so a block that
 * has to stop in the middle (a spin on a lock another block holds) needs a stack of its own. Each
 * slot (a resident block) runs on a fiber (fiber.h), all on the launcher's thread; a yield
 * switches to the next live slot in slot order, so the order of the slots' turns, and with it the
 * event stream, depends on nothing but the launch. A slot's fiber runs the grid's blocks one after
 * another as its block ends (the next block takes the freed slot), and when none is left it
 * switches for good to the next live slot, the last one back to the launcher. A switch costs
 * tens of nanoseconds (bench/bench-simt-switch.c); the threads and baton it replaced cost some
 * 12-20 us a switch.
 *
 * The clocked schedule (MdlSimtLaunch.clock) replaces the round robin's "next slot" by "the slot
 * whose clock is earliest" (ties: the lowest slot, so equal latencies give the round robin's
 * order). A slot's clock starts at 0 with the launch and moves after each of its global memory
 * instructions by that instruction's latency on the slot's SM (slot mod SMs), plus the issue cost
 * of the other instructions it issued since its previous one: those are charged late, so a slot
 * with issue costs can take a turn up to that much early. A block that starts in a freed slot
 * goes on from the slot's clock, as the next block on that SM would. The live slots sit in a
 * binary heap ordered by (clock, slot), a total order, so its top is the one earliest slot; the
 * running slot is always the top (it was the earliest when it got the turn), so a turn costs one
 * sift down from the top: O(log R) against the O(R) of a scan (at 132 slots, the lock-free
 * queue's tube run: see docs/experiments/load-balancing.md, "Session 10").
 *
 * When the table's ops act at their arrival (MDL_SIMT_EFFECT_ARRIVE), a slot's clock is instead
 * when its pending memory instruction acts on memory: issue + half its latency on the slot's SM.
 * That is known only once the block has reached the instruction, so the switch moves before it
 * (mdl_simt_arrive(), from memory_op()): the slot sets its clock and waits until it is the
 * earliest, then acts, so the ops of all slots act in the order of their arrival and a load sees
 * what acted before it. The slot's next instruction issues a whole latency after this one
 * (ready_ps), and the other instructions before it are charged at it, not late. Arrivals never go
 * back in time: a slot's next arrival is at least a latency after its issue, past this one.
 * A table with a jitter scales each memory instruction's latency by a factor of its own, drawn
 * from one generator per launch in the order the instructions are timed (sensitivity only). */
#include "simt/clock.h"
#include "simt/simt-private.h"

/* The warp ops of the memory instructions are the latency table's rows. */
G_STATIC_ASSERT (MDL_WARP_LOAD == (int) MDL_SIMT_LAT_LOAD);
G_STATIC_ASSERT (MDL_WARP_STORE == (int) MDL_SIMT_LAT_STORE);
G_STATIC_ASSERT (MDL_WARP_ATOMIC == (int) MDL_SIMT_LAT_ATOMIC);

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

/* TRUE when @a's turn comes before @b's: the earlier clock, then the lower slot. */
static inline gboolean
before (const SimtClockSlot *a, const SimtClockSlot *b)
{
  return a->clock_ps < b->clock_ps || (a->clock_ps == b->clock_ps && a->slot < b->slot);
}

/* Restores the heap's order after its top's clock grew. */
static void
sift_down (SimtSchedule *sc)
{
  SimtClockSlot *h = sc->heap, top = h[0];
  guint n = sc->n_heap, i = 0;
  for (;;)
    {
      guint child = 2 * i + 1;
      if (child >= n)
        break;
      if (child + 1 < n && before (&h[child + 1], &h[child]))
        child++;
      if (!before (&h[child], &top))
        break;
      h[i] = h[child];
      i = child;
    }
  h[i] = top;
}

/* The slot to run after @slot (the running one): the round robin's, or the earliest clock's once
 * @slot's clock has moved (or @slot has ended: @live FALSE). G_MAXUINT when none is live. */
static guint
next_slot (MdlSimt *gpu, guint slot, gboolean live)
{
  SimtSchedule *sc = &gpu->sched;
  if (!sc->clock)
    return next_live (gpu, slot);
  if (!live)
    {
      sc->heap[0] = sc->heap[--sc->n_heap];
      if (sc->n_heap == 0)
        return G_MAXUINT;
    }
  sift_down (sc);
  return sc->heap[0].slot;
}

/* The latency @what of @sm, times the launch's next jitter factor when the table has one: a
 * xorshift64* draw (fast, and one generator per launch keeps the run deterministic). */
static inline guint64
latency (SimtSchedule *sc, guint sm, guint what)
{
  guint64 ps = mdl_simt_clock_ps (sc->clock, sm, what), x = sc->jitter_state;
  double u;
  if (G_LIKELY (x == 0))
    return ps;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  sc->jitter_state = x;
  u = (double) ((x * G_GUINT64_CONSTANT (0x2545F4914F6CDD1D)) >> 11) * 0x1.0p-53;
  return MAX ((guint64) ((double) ps * (1.0 + sc->clock->jitter_percent / 100.0 * (2 * u - 1))
                         + 0.5), 1);
}

/* Moves the clock of @blk (the running slot: the heap's top) past memory instruction @op and the
 * other instructions of its turn. */
static void
clock_advance (SimtBlock *blk, guint op)
{
  MdlSimt *gpu = blk->gpu;
  SimtSchedule *sc = &gpu->sched;
  guint sm = blk->slot % sc->clock->n_sms;
  /* The turn's events are its instructions times the warps that issued them, the memory
   * instruction's among them. */
  guint64 issued = (gpu->n_events - sc->turn_events) / MAX (blk->n_warps, 1);
  sc->heap[0].clock_ps += latency (sc, sm, op)
                          + (issued ? issued - 1 : 0)
                              * mdl_simt_clock_ps (sc->clock, sm, MDL_SIMT_LAT_ISSUE);
}

void
mdl_simt_arrive (SimtBlock *blk, guint op)
{
  MdlSimt *gpu = blk->gpu;
  SimtSchedule *sc = &gpu->sched;
  guint sm = blk->slot % sc->clock->n_sms, next;
  /* Since the slot's previous memory instruction (mdl_simt_yield() reset the count after it). */
  guint64 others = (gpu->n_events - sc->turn_events) / MAX (blk->n_warps, 1);
  guint64 op_ps = latency (sc, sm, op);
  guint64 issue = sc->ready_ps[blk->slot]
                  + others * mdl_simt_clock_ps (sc->clock, sm, MDL_SIMT_LAT_ISSUE);
  sc->heap[0].clock_ps = issue + op_ps / 2;
  sc->ready_ps[blk->slot] = issue + op_ps;
  next = next_slot (gpu, blk->slot, TRUE);
  sc->turn_events = gpu->n_events;
  if (next == blk->slot)
    return;
  mdl_simt_fiber_switch (&blk->fiber, &gpu->slots[next]->fiber);
  gpu->cur = blk;
}

void
mdl_simt_yield (SimtBlock *blk, guint op)
{
  MdlSimt *gpu = blk->gpu;
  guint next;
  if (gpu->sched.arrive)
    {
      /* The switch came before the instruction; count the next one's others from here. */
      gpu->sched.turn_events = gpu->n_events;
      return;
    }
  if (gpu->sched.clock)
    clock_advance (blk, op);
  next = next_slot (gpu, blk->slot, TRUE);
  gpu->sched.turn_events = gpu->n_events;
  if (next == blk->slot)
    return;   /* alone, or still the earliest: no switch */
  mdl_simt_fiber_switch (&blk->fiber, &gpu->slots[next]->fiber);
  gpu->cur = blk;
}

/* A slot's fiber: the grid's next block while there is one, each to its end; then the fiber to
 * run instead of this one. */
static SimtFiber *
slot_main (void *data)
{
  SimtBlock *blk = data;
  MdlSimt *gpu = blk->gpu;
  SimtSchedule *sc = &gpu->sched;
  guint next;
  gpu->cur = blk;
  /* After a fault no new block starts (as in a sequential launch); loops end at their next test. */
  while (sc->next_block < sc->n_blocks && !gpu->error)
    mdl_simt_block_run (blk, sc->next_block++, sc->kernel, sc->args);
  blk->live = FALSE;
  next = next_slot (gpu, blk->slot, FALSE);
  sc->turn_events = gpu->n_events;
  return next == G_MAXUINT ? &sc->launcher : &gpu->slots[next]->fiber;
}

void
mdl_simt_run_interleaved (MdlSimt *gpu, const MdlSimtLaunch *s, guint32 launch,
                          MdlSimtKernel kernel, void *args)
{
  SimtSchedule *sc = &gpu->sched;
  guint32 n_blocks = s->grid_x * s->grid_y;
  guint n = MIN (s->resident, n_blocks);
  g_autofree SimtClockSlot *heap = s->clock ? g_new (SimtClockSlot, n) : NULL;
  gboolean arrive = s->clock && s->clock->effect == MDL_SIMT_EFFECT_ARRIVE;
  g_autofree guint64 *ready_ps = arrive ? g_new0 (guint64, n) : NULL;
  if (n > gpu->n_slots)
    {
      gpu->slots = g_renew (SimtBlock *, gpu->slots, n);
      for (guint i = gpu->n_slots; i < n; i++)
        {
          gpu->slots[i] = g_new0 (SimtBlock, 1);
          gpu->slots[i]->arena = g_array_new (FALSE, FALSE, sizeof (SimtChunk));
        }
      gpu->n_slots = n;
    }
  sc->kernel = kernel;
  sc->args = args;
  sc->n_blocks = n_blocks;
  sc->next_block = 0;
  sc->clock = s->clock;
  sc->turn_events = gpu->n_events;
  /* Every clock starts at 0: the slots in order are a heap. */
  sc->heap = heap;
  sc->n_heap = heap ? n : 0;
  sc->arrive = arrive;
  sc->ready_ps = ready_ps;
  /* splitmix64 of the seed and the launch: a nonzero state (xorshift's 0 is a fixed point). */
  sc->jitter_state = 0;
  if (s->clock && s->clock->jitter_percent)
    {
      guint64 z = s->clock->jitter_seed + (launch + 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
      z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
      z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
      sc->jitter_state = (z ^ (z >> 31)) | 1;
    }
  for (guint i = 0; i < sc->n_heap; i++)
    heap[i] = (SimtClockSlot) { 0, i };
  gpu->n_slots_running = n;
  for (guint i = 0; i < n; i++)
    {
      SimtBlock *blk = gpu->slots[i];
      mdl_simt_block_setup (gpu, blk, s);
      blk->launch = launch;
      blk->slot = i;
      blk->live = TRUE;
      mdl_simt_fiber_start (&blk->fiber, slot_main, blk);
    }
  mdl_simt_fiber_switch (&sc->launcher, &gpu->slots[0]->fiber);
  gpu->n_slots_running = 0;
  gpu->cur = &gpu->blk;
  sc->heap = NULL;
  sc->arrive = FALSE;
  sc->ready_ps = NULL;
}
