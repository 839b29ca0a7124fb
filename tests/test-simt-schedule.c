/* Tests of the SIMT layer's interleaved schedule (MdlSimtLaunch.resident, src/simt/schedule.c):
 * blocks resident at once switch after every global memory instruction, round robin, so a spin lock's
 * failed CASes between blocks are exact; the schedule is deterministic; a launch of blocks that do
 * not share words gives every block the events it has under the sequential default. The clocked
 * schedule (MdlSimtLaunch.clock): hand-run spin locks under unequal latencies, and equal latencies
 * giving the round robin's events exactly; ops acting at their arrival (MDL_SIMT_EFFECT_ARRIVE):
 * hand-run CAS races and loads. */
#include "helpers.h"

#include <string.h>

typedef struct {
  guint64 lock, counter;   /* device addresses of two words */
  guint64 data;            /* the independent kernel's words: 80 per block */
  guint32 bad_block;       /* the lock kernel: block bad_block - 1 reads its counter out of
                            * bounds (0: none) */
} Args;

/* Thread 0 of a one-thread block: while (atomicCAS (lock, 0, 1) == 1) {} counter++ (a load and
 * a store); lock = 0 (a store). Four memory instructions when the lock is free. */
static void
lock_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1), *cmp = mdl_simt_reg (b, 1);
  guint64 *old = mdl_simt_reg (b, 1);
  mdl_simt_loop_begin (b);
  do
    {
      at[0] = a->lock;
      v[0] = 1;
      cmp[0] = 0;
      mdl_simt_atom (b, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_CAS, 4, at, v, cmp, old);
      mdl_simt_cond (b)[0] = old[0] == 1;
    }
  while (mdl_simt_loop_test (b));
  at[0] = a->bad_block == b->idx_x + 1 ? 8 : a->counter;
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
  v[0]++;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  at[0] = a->lock;
  v[0] = 0;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
}

/* The blocks of the memory events of @c, one digit each, and the failed CAS lanes. */
static char *
memory_order (const TestCollector *c, guint64 *failed)
{
  GString *s = g_string_new (NULL);
  *failed = 0;
  for (guint i = 0; i < c->warp->len; i++)
    {
      const MdlWarpEvent *e = &g_array_index (c->warp, MdlWarpEvent, i);
      if (e->op != MDL_WARP_LOAD && e->op != MDL_WARP_STORE && e->op != MDL_WARP_ATOMIC)
        continue;
      g_string_append_c (s, (char) ('0' + e->block));
      if (e->op == MDL_WARP_ATOMIC && (e->flags & MDL_WARP_ATOM_CAS))
        *failed += (guint64) __builtin_popcountll (e->taken);
    }
  return g_string_free (s, FALSE);
}

/* Runs the lock kernel over @grid one-thread blocks with @resident of them at once under @clock
 * (NULL: round robin); returns the collector (test_collector_free) and the counter's final value
 * in *@counter. */
static TestCollector *
run_lock (guint grid, guint resident, const MdlSimtClock *clock, guint32 *counter)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  g_autoptr (GError) error = NULL;
  Args a = { .lock = mdl_simt_alloc (gpu, 4, NULL), .counter = mdl_simt_alloc (gpu, 4, NULL) };
  MdlSimtLaunch shape = { .grid_x = grid, .block_x = 1, .resident = resident, .clock = clock };
  if (!mdl_simt_launch (gpu, &shape, lock_kernel, &a, &error))
    fail_msg ("grid %u, resident %u: %s", grid, resident, error->message);
  *counter = *(guint32 *) mdl_simt_host (gpu, a.counter);
  return c;
}

/* Ensure two or three resident blocks contending for a spin lock fail exactly the CASes a
 * hand-run of the round robin gives. The holder needs 3 more memory instructions (load, store,
 * release) after its CAS, and every waiter fails one CAS per instruction of the holder, so with
 * two resident blocks each later block fails 3 times; with three, block 2 also waits through
 * block 1's critical section (3 + 3 failures) and fails once more between the release and block
 * 1's winning CAS. A finished block's slot takes the next block of the grid: with 3 blocks and 2
 * slots, block 2 starts in slot 0 right after block 0 ends, while block 1 holds the lock. */
static void
test_spin_lock_fails_hand_derived_cases (void **state)
{
  static const struct {
    guint grid, resident;
    const char *order;   /* the block of each memory event */
    guint64 failed;
  } rows[] = {
    { 3, 0, "000011112222", 0 },               /* the sequential default */
    { 3, 1, "000011112222", 0 },               /* one resident block: the same */
    { 2, 2, "01010101111", 3 },
    { 3, 2, "010101012121212222", 6 },
    { 3, 3, "012012012012121212222", 9 },
    { 2, 5, "01010101111", 3 },                /* resident above the grid: the grid */
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      guint32 counter;
      guint64 failed;
      TestCollector *c = run_lock (rows[r].grid, rows[r].resident, NULL, &counter);
      g_autofree char *order = memory_order (c, &failed);
      if (strcmp (order, rows[r].order) != 0 || failed != rows[r].failed)
        fail_msg ("grid %u, resident %u: order %s, %" G_GUINT64_FORMAT " failed; expected %s, %"
                  G_GUINT64_FORMAT, rows[r].grid, rows[r].resident, order, failed, rows[r].order,
                  rows[r].failed);
      assert_int_equal (counter, rows[r].grid);   /* the lock kept the increments apart */
      test_collector_free (c);
    }
}

/* Ensure the interleaved schedule is deterministic: the same launch twice gives the same events
 * and markers in the same order. */
static void
test_interleaved_launch_is_deterministic (void **state)
{
  guint32 c1, c2;
  TestCollector *a, *b;
  (void) state;
  a = run_lock (7, 4, NULL, &c1);
  b = run_lock (7, 4, NULL, &c2);
  test_collector_assert_equal (a, b);
  assert_int_equal (c1, 7);
  assert_int_equal (c2, 7);
  test_collector_free (a);
  test_collector_free (b);
}

/* Ensure the clocked schedule runs a spin lock as a hand-run of its rule gives: the earliest clock
 * takes the turn, ties go to the lower slot, a memory instruction moves its slot's clock by its
 * SM's latency, the other instructions of a turn (the loop's branch before a retried CAS or the
 * load after it) by the issue cost each. A block's instructions: CAS until it wins, load, store,
 * release (store).
 * - "fast, slow", slot 0 on SM 0 (1 ns an instruction), slot 1 on SM 1 (3 ns), 2 blocks: both CAS
 *   at 0 (slot 0 wins); slot 0 loads at 1, stores at 2 and, tied with slot 1 at 3, releases first;
 *   slot 1 then wins at 3: one failure where the round robin has 3.
 * - the same with 3 blocks: block 2 starts in slot 0 after block 0's release (at 4, the slot's
 *   clock) and fails at 4, 5, 6 (before block 1's load at 6: the tie goes to slot 0), 7, 8, 9, 10,
 *   11, 12 (before block 1's release at 12), then wins at 13: 1 + 9 failures.
 * - "issue", both SMs 1 ns a memory instruction, SM 1 2 ns an other instruction, 2 blocks: slot 1
 *   fails at 0; its retry at 1 also charges the branch before it, so it comes back at 4, after
 *   slot 0's load (1), store (2) and release (3): 2 failures. */
static void
test_clocked_spin_lock_hand_derived_cases (void **state)
{
  static const struct {
    const char *name;
    guint grid;
    guint64 memory_ps[2], issue_ps[2];
    const char *order;
    guint64 failed;
  } rows[] = {
    { "fast, slow", 2, { 1000, 3000 }, { 0, 0 }, "010001111", 1 },
    { "fast, slow, 3 blocks", 3, { 1000, 3000 }, { 0, 0 }, "0100012221222122212222", 10 },
    { "issue", 2, { 1000, 1000 }, { 0, 2000 }, "0101001111", 2 },
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autoptr (MdlSimtClock) clock = mdl_simt_clock_new (2, 1, 0);
      g_autofree char *order = NULL;
      guint32 counter;
      guint64 failed;
      TestCollector *c;
      for (guint sm = 0; sm < 2; sm++)
        {
          for (MdlSimtLatency k = MDL_SIMT_LAT_LOAD; k <= MDL_SIMT_LAT_ATOMIC; k++)
            mdl_simt_clock_set (clock, sm, k, rows[r].memory_ps[sm]);
          mdl_simt_clock_set (clock, sm, MDL_SIMT_LAT_ISSUE, rows[r].issue_ps[sm]);
        }
      c = run_lock (rows[r].grid, 2, clock, &counter);
      order = memory_order (c, &failed);
      if (strcmp (order, rows[r].order) != 0 || failed != rows[r].failed)
        fail_msg ("%s: order %s, %" G_GUINT64_FORMAT " failed; expected %s, %" G_GUINT64_FORMAT,
                  rows[r].name, order, failed, rows[r].order, rows[r].failed);
      assert_int_equal (counter, rows[r].grid);
      test_collector_free (c);
    }
}

/* Runs the lock kernel over 2 one-thread blocks, both resident, under a 2-SM table whose memory
 * latencies are @memory_ps (per SM; every op) and whose ops act at @effect; the collector. */
static TestCollector *
run_lock_2sms (const guint64 memory_ps[2], MdlSimtEffect effect, guint32 *counter)
{
  g_autoptr (MdlSimtClock) clock = mdl_simt_clock_new (2, 1, 0);
  for (guint sm = 0; sm < 2; sm++)
    for (MdlSimtLatency k = MDL_SIMT_LAT_LOAD; k <= MDL_SIMT_LAT_ATOMIC; k++)
      mdl_simt_clock_set (clock, sm, k, memory_ps[sm]);
  mdl_simt_clock_set_effect (clock, effect);
  return run_lock (2, 2, clock, counter);
}

/* Ensure, when ops act at their arrival (issue + half the latency), the CAS that arrives first
 * wins, whoever issued first or has the lower slot. Hand-run, slot i on SM i, no issue cost:
 * - "slow, fast" (4 ns, 2 ns): both CASes issue at 0; slot 1's arrives at 1 and wins, slot 0's
 *   at 2 fails. Slot 1 loads at 3 (issued at 2), stores at 5 and releases at 7; slot 0's retry
 *   (issued at 4) arrives at 6, before the release, and fails; its next (issued at 8) arrives at
 *   10 and wins. Issue order would give slot 0 the first CAS (the tie at 0 to the lower slot).
 * - "fast, slow" (2 ns, 4 ns): the mirror image: slot 0 wins at 1, loads at 3, stores at 5;
 *   slot 1 fails at 2 and at 6 (before the release at 7), wins at 10.
 * - "slow, fast" at issue: slot 0 wins the tie at 0 and moves at 4, 8, 12 (load, store,
 *   release; each tie its own); slot 1 fails at 0, 2, 4, 6, 8 and 10 and wins at 12. */
static void
test_arrival_decides_which_cas_wins (void **state)
{
  static const struct {
    const char *name;
    guint64 memory_ps[2];
    MdlSimtEffect effect;
    const char *order;
    guint64 failed;
  } rows[] = {
    { "slow, fast, arrive", { 4000, 2000 }, MDL_SIMT_EFFECT_ARRIVE, "1011010000", 2 },
    { "fast, slow, arrive", { 2000, 4000 }, MDL_SIMT_EFFECT_ARRIVE, "0100101111", 2 },
    { "slow, fast, issue", { 4000, 2000 }, MDL_SIMT_EFFECT_ISSUE, "01101101101111", 6 },
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autofree char *order = NULL;
      guint32 counter;
      guint64 failed;
      TestCollector *c = run_lock_2sms (rows[r].memory_ps, rows[r].effect, &counter);
      order = memory_order (c, &failed);
      if (strcmp (order, rows[r].order) != 0 || failed != rows[r].failed)
        fail_msg ("%s: order %s, %" G_GUINT64_FORMAT " failed; expected %s, %" G_GUINT64_FORMAT,
                  rows[r].name, order, failed, rows[r].order, rows[r].failed);
      assert_int_equal (counter, 2);
      test_collector_free (c);
    }
}

/* Thread 0 of a one-thread block: block 0 stores 1 to the flag (Args.lock); every other block
 * loads the flag and stores what it read to data[block]. */
static void
flag_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  at[0] = a->lock;
  v[0] = 1;
  if (b->idx_x == 0)
    {
      mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
      return;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
  at[0] = a->data + 4 * (guint64) b->idx_x;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
}

/* Ensure a load returns memory as of its arrival when ops act at arrival, and as of its issue
 * otherwise. Three blocks, slot i on SM i, all issuing their first op at 0: block 0's store of
 * the flag takes 6 ns (acts at 3 on arrival), block 1's load 4 ns (arrives at 2: reads 0), block
 * 2's 8 ns (arrives at 4: reads 1). At issue all three act at 0, in slot order: both read 1. */
static void
test_arrival_decides_what_a_load_returns (void **state)
{
  static const struct {
    MdlSimtEffect effect;
    guint32 read[2];   /* what blocks 1 and 2 read */
  } rows[] = {
    { MDL_SIMT_EFFECT_ARRIVE, { 0, 1 } },
    { MDL_SIMT_EFFECT_ISSUE, { 1, 1 } },
  };
  static const guint64 memory_ps[3] = { 6000, 4000, 8000 };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
      g_autoptr (MdlSimtClock) clock = mdl_simt_clock_new (3, 1, 0);
      g_autoptr (GError) error = NULL;
      Args a = { .lock = mdl_simt_alloc (gpu, 4, NULL), .data = mdl_simt_alloc (gpu, 12, NULL) };
      MdlSimtLaunch shape = { .grid_x = 3, .block_x = 1, .resident = 3, .clock = clock };
      const guint32 *read;
      for (guint sm = 0; sm < 3; sm++)
        for (MdlSimtLatency k = MDL_SIMT_LAT_LOAD; k <= MDL_SIMT_LAT_ATOMIC; k++)
          mdl_simt_clock_set (clock, sm, k, memory_ps[sm]);
      mdl_simt_clock_set_effect (clock, rows[r].effect);
      if (!mdl_simt_launch (gpu, &shape, flag_kernel, &a, &error))
        fail_msg ("row %" G_GSIZE_FORMAT ": %s", r, error->message);
      read = mdl_simt_host (gpu, a.data);
      if (read[1] != rows[r].read[0] || read[2] != rows[r].read[1])
        fail_msg ("row %" G_GSIZE_FORMAT ": blocks 1 and 2 read %u and %u; expected %u and %u", r,
                  read[1], read[2], rows[r].read[0], rows[r].read[1]);
    }
}

/* Ensure one GPU's interleaved launches one after another, with fewer and then as many resident
 * blocks as before, each give the hand-derived order and failures of a fresh GPU (the rows of
 * test_spin_lock_fails_hand_derived_cases): the slots and their stacks are kept between launches
 * and start over each time. */
static void
test_launches_reuse_their_slots (void **state)
{
  static const struct { guint grid, resident; } launches[] = { { 3, 3 }, { 3, 2 }, { 2, 2 } };
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  g_autoptr (GError) error = NULL;
  Args a = { .lock = mdl_simt_alloc (gpu, 4, NULL), .counter = mdl_simt_alloc (gpu, 4, NULL) };
  g_autofree char *order = NULL;
  guint64 failed;
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (launches); i++)
    {
      MdlSimtLaunch shape = { .grid_x = launches[i].grid, .block_x = 1,
                              .resident = launches[i].resident };
      if (!mdl_simt_launch (gpu, &shape, lock_kernel, &a, &error))
        fail_msg ("launch %" G_GSIZE_FORMAT ": %s", i, error->message);
    }
  order = memory_order (c, &failed);
  assert_string_equal (order, "012012012012121212222" "010101012121212222" "01010101111");
  assert_int_equal (failed, 9 + 6 + 3);
  assert_int_equal (*(guint32 *) mdl_simt_host (gpu, a.counter), 3 + 3 + 2);
  test_collector_free (c);
}

/* Thread 0 of a one-thread block: old = atomicAdd (counter, 1); data[block] = old. */
static void
ticket_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1), *old = mdl_simt_reg (b, 1);
  at[0] = a->counter;
  v[0] = 1;
  mdl_simt_atom (b, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_ADD, 4, at, v, NULL, old);
  at[0] = a->data + 4 * (guint64) b->idx_x;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, old);
}

/* Ensure the most resident blocks a launch may have all run at once, each on a stack of its own:
 * the first round of turns goes in slot order, so block i draws ticket i before any block's
 * store. */
static void
test_most_resident_blocks_run (void **state)
{
  const guint n = MDL_SIMT_MAX_RESIDENT;
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autoptr (GError) error = NULL;
  Args a = { .counter = mdl_simt_alloc (gpu, 4, NULL), .data = mdl_simt_alloc (gpu, 4 * n, NULL) };
  MdlSimtLaunch shape = { .grid_x = n, .block_x = 1, .resident = n };
  const guint32 *tickets = mdl_simt_host (gpu, a.data);
  (void) state;
  if (!mdl_simt_launch (gpu, &shape, ticket_kernel, &a, &error))
    fail_msg ("%s", error->message);
  assert_int_equal (*(guint32 *) mdl_simt_host (gpu, a.counter), n);
  for (guint i = 0; i < n; i++)
    if (tickets[i] != i)
      fail_msg ("block %u drew ticket %u", i, tickets[i]);
}

/* Each block of 40 threads (two warps, the second partial) on its own 80 words: a load, a branch
 * on odd values, a store of v + 1 or 2v, a shared store and load across a barrier, a store back. */
static void
independent_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 base = a->data + 4 * 80 * (guint64) b->idx_x;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint8 *cond;
  MDL_SIMT_EACH (b, t)
    at[t] = base + 4 * t;
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
  cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = v[t] & 1;
  mdl_simt_if (b);
  MDL_SIMT_EACH (b, t)
    v[t] += 1;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_else (b);
  MDL_SIMT_EACH (b, t)
    v[t] *= 2;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_endif (b);
  MDL_SIMT_EACH (b, t)
    at[t] = 4 * (b->n_threads - 1 - t);
  mdl_simt_st (b, MDL_SPACE_SHARED, 4, at, v);
  mdl_simt_sync (b);
  mdl_simt_ld (b, MDL_SPACE_SHARED, 4, at, v);
  mdl_simt_alu (b, 2);
  MDL_SIMT_EACH (b, t)
    at[t] = base + 4 * (t + 40);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
}

/* The independent kernel over 5 blocks with @resident at once under @clock (NULL: round robin):
 * its events, and the words. */
static TestCollector *
run_independent (guint resident, const MdlSimtClock *clock, guint32 *words)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  g_autoptr (GError) error = NULL;
  Args a = { .data = mdl_simt_alloc (gpu, 4 * 80 * 5, NULL) };
  MdlSimtLaunch shape = { .grid_x = 5, .block_x = 40, .shared_bytes = 160, .resident = resident,
                          .clock = clock };
  guint32 *w = mdl_simt_host (gpu, a.data);
  for (guint i = 0; i < 80 * 5; i++)
    w[i] = i * 7 + 3;
  if (!mdl_simt_launch (gpu, &shape, independent_kernel, &a, &error))
    fail_msg ("resident %u: %s", resident, error->message);
  memcpy (words, w, 4 * 80 * 5);
  return c;
}

/* The events of block @block in @c, in order; a memory event's lane addresses, which lie at
 * another index of the collected addresses when blocks interleave, are folded into its base. */
static GArray *
events_of_block (const TestCollector *c, guint block)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent));
  for (guint i = 0; i < c->warp->len; i++)
    {
      MdlWarpEvent e = g_array_index (c->warp, MdlWarpEvent, i);
      if (e.block != block)
        continue;
      if ((e.op == MDL_WARP_LOAD || e.op == MDL_WARP_STORE || e.op == MDL_WARP_ATOMIC)
          && !(e.flags & MDL_WARP_STRIDED))
        {
          for (guint l = 0; l < (guint) __builtin_popcountll (e.active); l++)
            e.base = e.base * 1000003 + g_array_index (c->lane_addrs, guint64, e.first_addr + l);
          e.first_addr = 0;
        }
      g_array_append_val (out, e);
    }
  return out;
}

/* Ensure blocks that share no words see the same thing under the interleaved schedule as under
 * the sequential default: the same results, and for every block the same events in the same
 * order (only the order between blocks changes); and that the sequential default is resident 0
 * or 1 alike. */
static void
test_independent_blocks_keep_their_events (void **state)
{
  guint32 w0[80 * 5], w1[80 * 5], w3[80 * 5];
  TestCollector *seq, *one, *inter;
  (void) state;
  seq = run_independent (0, NULL, w0);
  one = run_independent (1, NULL, w1);
  inter = run_independent (3, NULL, w3);
  test_collector_assert_equal (seq, one);
  assert_memory_equal (w0, w3, sizeof w0);
  assert_int_equal (seq->warp->len, inter->warp->len);
  assert_int_equal (seq->markers->len, inter->markers->len);
  for (guint b = 0; b < 5; b++)
    {
      g_autoptr (GArray) x = events_of_block (seq, b), y = events_of_block (inter, b);
      assert_int_equal (x->len, y->len);
      assert_memory_equal (x->data, y->data, x->len * sizeof (MdlWarpEvent));
    }
  /* Interleaved: block 1's first load comes right after block 0's. */
  assert_int_equal (g_array_index (inter->warp, MdlWarpEvent, 0).block, 0);
  assert_int_equal (g_array_index (inter->warp, MdlWarpEvent, 2).block, 1);
  test_collector_free (seq);
  test_collector_free (one);
  test_collector_free (inter);
}

/* Ensure equal latencies on every SM, with no issue cost, give the round robin's events and
 * markers exactly, whatever the latency and however many SMs the slots spread over: every slot's
 * clock moves by the same step, so the earliest, ties to the lowest slot, is always the next slot
 * in turn. Over the spin lock's shapes and the independent kernel (two warps, branches, shared
 * memory, barriers). */
static void
test_equal_latencies_are_the_round_robin (void **state)
{
  static const struct { guint grid, resident; } shapes[] = { { 2, 2 }, { 3, 2 }, { 3, 3 }, { 7, 4 } };
  static const guint n_sms[] = { 1, 2, 3, 132 };
  (void) state;
  for (gsize k = 0; k < G_N_ELEMENTS (n_sms); k++)
    {
      g_autoptr (MdlSimtClock) clock = mdl_simt_clock_new (n_sms[k], 700 + 100 * k, 0);
      for (gsize i = 0; i < G_N_ELEMENTS (shapes); i++)
        {
          guint32 c1, c2;
          TestCollector *rr = run_lock (shapes[i].grid, shapes[i].resident, NULL, &c1);
          TestCollector *clocked = run_lock (shapes[i].grid, shapes[i].resident, clock, &c2);
          test_collector_assert_equal (rr, clocked);
          assert_int_equal (c1, c2);
          test_collector_free (rr);
          test_collector_free (clocked);
        }
      {
        guint32 w0[80 * 5], w1[80 * 5];
        TestCollector *rr = run_independent (3, NULL, w0), *clocked = run_independent (3, clock, w1);
        test_collector_assert_equal (rr, clocked);
        assert_memory_equal (w0, w1, sizeof w0);
        test_collector_free (rr);
        test_collector_free (clocked);
      }
      /* Acting at arrival, half of one latency later for every op, keeps the memory
       * instructions' order; the other instructions' events come before the switch, not after. */
      mdl_simt_clock_set_effect (clock, MDL_SIMT_EFFECT_ARRIVE);
      for (gsize i = 0; i < G_N_ELEMENTS (shapes); i++)
        {
          guint32 c1, c2;
          guint64 f1, f2;
          TestCollector *rr = run_lock (shapes[i].grid, shapes[i].resident, NULL, &c1);
          TestCollector *arrive = run_lock (shapes[i].grid, shapes[i].resident, clock, &c2);
          g_autofree char *o1 = memory_order (rr, &f1), *o2 = memory_order (arrive, &f2);
          assert_string_equal (o1, o2);
          assert_int_equal (f1, f2);
          assert_int_equal (c1, c2);
          test_collector_free (rr);
          test_collector_free (arrive);
        }
    }
}

/* Ensure a fault in one resident block fails the launch naming that block, without hanging the
 * blocks that spin on the lock it would have released. */
static void
test_fault_in_a_resident_block_ends_the_launch (void **state)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  GError *error = NULL;
  Args a = { .lock = mdl_simt_alloc (gpu, 4, NULL), .counter = mdl_simt_alloc (gpu, 4, NULL) };
  MdlSimtLaunch shape = { .grid_x = 6, .block_x = 1, .resident = 3 };
  (void) state;
  a.bad_block = 2;
  assert_false (mdl_simt_launch (gpu, &shape, lock_kernel, &a, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "launch 0, block 1: thread 0: global load");
}

/* Ensure a resident count above the limit is a shape error that says so. */
static void
test_too_many_resident_blocks_is_a_param_error (void **state)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  GError *error = NULL;
  Args a = { 0 };
  MdlSimtLaunch shape = { .grid_x = 4, .block_x = 1, .resident = MDL_SIMT_MAX_RESIDENT + 1 };
  (void) state;
  assert_false (mdl_simt_launch (gpu, &shape, lock_kernel, &a, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "2049 resident blocks");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_spin_lock_fails_hand_derived_cases),
    cmocka_unit_test (test_interleaved_launch_is_deterministic),
    cmocka_unit_test (test_clocked_spin_lock_hand_derived_cases),
    cmocka_unit_test (test_equal_latencies_are_the_round_robin),
    cmocka_unit_test (test_arrival_decides_which_cas_wins),
    cmocka_unit_test (test_arrival_decides_what_a_load_returns),
    cmocka_unit_test (test_launches_reuse_their_slots),
    cmocka_unit_test (test_most_resident_blocks_run),
    cmocka_unit_test (test_independent_blocks_keep_their_events),
    cmocka_unit_test (test_fault_in_a_resident_block_ends_the_launch),
    cmocka_unit_test (test_too_many_resident_blocks_is_a_param_error),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
