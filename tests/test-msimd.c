/* Tests of the msimd engine (src/models/msimd.c): warp streams built by hand, costed by the rules
 * at the head of msimd.c. Expected values are the validation cases V1 and V2 of
 * ../shared/spec/msimd-jurkiewicz-danilewski.md, or are worked out in the comment above them.
 * Addresses are in 4-byte cells; warp w of block 0 is SIMD-processor w (S = 32, 32-lane warps). */
#include "helpers.h"

#include <string.h>

typedef struct {
  guint16 warp;
  guint8 op;             /* MdlWarpOp; 255 is a global sync marker */
  guint64 base, stride;  /* cells */
  guint64 active;
} Ev;

#define ALL 0xffffffffull
#define SYNC { 0, 255, 0, 0, 0 }

static gboolean
feed (MdlEngine *e, const Ev *ev, guint n, GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES];
      guint na = 0;
      gboolean mem = ev[i].op <= MDL_WARP_ATOMIC;
      MdlWarpEvent w = { .active = ev[i].active, .warp = ev[i].warp, .op = ev[i].op,
                         .space = mem ? MDL_SPACE_GLOBAL : 0, .width = mem ? 4 : 0 };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
      if (ev[i].op == 255)
        {
          MdlMarker m = { .kind = MDL_MARK_SYNC };
          if (!mdl_engine_marker (e, &m, error))
            return FALSE;
          continue;
        }
      if (mem)
        for (guint l = 0; l < 64; l++)
          if (ev[i].active >> l & 1)
            addrs[na++] = 4 * (ev[i].base + l * ev[i].stride);
      b.n_lane_addrs = na;
      if (!mdl_engine_consume (e, &b, error))
        return FALSE;
    }
  return TRUE;
}

static guint64
count (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  const MdlCounter *c = mdl_report_lookup (r, name);
  if (c == NULL)
    fail_msg ("no counter %s", name);
  return c->count;
}

/* Ensure the chunk-charging table of V1 (S = 32), under policy=chunk (reading (a)) and
 * policy=serial (reading (b): one operation unless one chunk, else one per lane). */
static void
test_msimd_chunk_charging (void **state)
{
  static const struct { const char *name; Ev ev; const char *counter; guint64 chunk, serial; } rows[] = {
    { "0..31", { 0, MDL_WARP_LOAD, 0, 1, ALL }, "reads", 1, 1 },
    { "16..47", { 0, MDL_WARP_LOAD, 16, 1, ALL }, "reads", 2, 32 },
    { "0,2,..,62", { 0, MDL_WARP_LOAD, 0, 2, ALL }, "reads", 2, 32 },
    { "0,32,..,992", { 0, MDL_WARP_LOAD, 0, 32, ALL }, "reads", 32, 32 },
    { "all read cell 5", { 0, MDL_WARP_LOAD, 5, 0, ALL }, "reads", 1, 1 },
    { "write 100..131", { 0, MDL_WARP_STORE, 100, 1, ALL }, "writes", 2, 32 },
    /* An atomic reads and writes: 0..31 is one chunk: 1 read and 1 write. */
    { "atomic reads", { 0, MDL_WARP_ATOMIC, 0, 1, ALL }, "reads", 1, 1 },
    { "atomic writes", { 0, MDL_WARP_ATOMIC, 0, 1, ALL }, "writes", 1, 1 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint serial = 0; serial < 2; serial++)
      {
        g_autoptr (MdlEngine) e = mdl_engine_new (serial ? "msimd:S=32,policy=serial" : "msimd:S=32",
                                                  NULL);
        guint64 expect = serial ? rows[i].serial : rows[i].chunk;
        assert_true (feed (e, &rows[i].ev, 1, NULL));
        if (count (e, rows[i].counter) != expect)
          fail_msg ("%s (%s): %s is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                    rows[i].name, serial ? "serial" : "chunk", rows[i].counter,
                    count (e, rows[i].counter), expect);
      }
}

/* Ensure the race detector of V2: processor 0 reads cell 7, processor 1 writes it in the same
 * epoch: a race; with a global sync between: none; processor 0 reading and writing it: none.
 * Write-write by two processors is a race only with ww=1. */
static void
test_msimd_race_detector (void **state)
{
  static const Ev race[] = { { 0, MDL_WARP_LOAD, 7, 0, 0x1 }, { 1, MDL_WARP_STORE, 7, 0, 0x1 } };
  static const Ev synced[] = { { 0, MDL_WARP_LOAD, 7, 0, 0x1 }, SYNC, { 1, MDL_WARP_STORE, 7, 0, 0x1 } };
  static const Ev own[] = { { 0, MDL_WARP_LOAD, 7, 0, 0x1 }, { 0, MDL_WARP_STORE, 7, 0, 0x1 } };
  static const Ev both_write[] = { { 0, MDL_WARP_STORE, 7, 0, 0x1 }, { 1, MDL_WARP_STORE, 7, 0, 0x1 } };
  static const struct { const char *name, *spec; const Ev *ev; guint n; guint64 races; } rows[] = {
    { "read then foreign write", "msimd", race, 2, 1 },
    { "sync between", "msimd", synced, 3, 0 },
    { "own read and write", "msimd", own, 2, 0 },
    { "write-write, ww=0", "msimd", both_write, 2, 0 },
    { "write-write, ww=1", "msimd:ww=1", both_write, 2, 1 },
  };
  GError *error = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (rows[i].spec, NULL);
      assert_true (feed (e, rows[i].ev, rows[i].n, NULL));
      if (count (e, "races") != rows[i].races)
        fail_msg ("%s: races %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].name,
                  count (e, "races"), rows[i].races);
    }
  /* race=error names the cell, both processors and the epoch (epoch 1: after one sync). */
  {
    static const Ev late[] = { SYNC, { 0, MDL_WARP_LOAD, 7, 0, 0x1 }, { 1, MDL_WARP_STORE, 7, 0, 0x1 } };
    g_autoptr (MdlEngine) e = mdl_engine_new ("msimd:race=error", NULL);
    assert_false (feed (e, late, 3, &error));
    assert_mdl_error (error, MDL_ERROR_MODEL, "race on cell 7 (byte 28): written by SIMD-processor "
                      "1 and read by SIMD-processor 0 in epoch 1");
  }
}

/* Ensure T: per epoch the largest M (reads + writes) + steps, summed over epochs.
 * Epoch 0: processor 0: 1 read (cells 0..31) + 2 steps = 1024 + 2 = 1026; processor 1: 3 steps.
 * Epoch 1: processor 1: 2 reads (cells 16..47) = 2048. cost = 1026 + 2048 = 3074; steps 5,
 * reads 3, syncs 1. Barrier arrivals are not steps. */
static void
test_msimd_cost (void **state)
{
  static const Ev ev[] = {
    { 0, MDL_WARP_LOAD, 0, 1, ALL }, { 0, MDL_WARP_ALU, 0, 0, ALL }, { 0, MDL_WARP_ALU, 0, 0, 0x1 },
    { 1, MDL_WARP_ALU, 0, 0, ALL }, { 1, MDL_WARP_BRANCH, 0, 0, ALL }, { 1, MDL_WARP_JUMP, 0, 0, ALL },
    { 1, MDL_WARP_BARRIER, 0, 0, ALL },
    SYNC,
    { 1, MDL_WARP_LOAD, 16, 1, ALL },
  };
  g_autoptr (MdlEngine) e = mdl_engine_new ("msimd:M=1024", NULL);
  (void) state;
  assert_true (feed (e, ev, G_N_ELEMENTS (ev), NULL));
  assert_int_equal (count (e, "cost"), 3074);
  assert_int_equal (count (e, "steps"), 5);
  assert_int_equal (count (e, "reads"), 3);
  assert_int_equal (count (e, "syncs"), 1);
}

/* Ensure warps fold onto P processors: with P = 2, warps 0 and 2 are processor 0: its 2 steps
 * make the epoch cost 2; and S = 16 cuts a 32-lane warp into two processors of 16 lanes, each
 * reading its own chunk (cells 0..15 and 16..31): reads 2, cost M = 1024. */
static void
test_msimd_processors (void **state)
{
  static const Ev fold[] = { { 0, MDL_WARP_ALU, 0, 0, ALL }, { 1, MDL_WARP_ALU, 0, 0, ALL },
                             { 2, MDL_WARP_ALU, 0, 0, ALL } };
  static const Ev split[] = { { 0, MDL_WARP_LOAD, 0, 1, ALL } };
  g_autoptr (MdlEngine) e = mdl_engine_new ("msimd:P=2", NULL);
  g_autoptr (MdlEngine) f = mdl_engine_new ("msimd:S=16,M=1024", NULL);
  (void) state;
  assert_true (feed (e, fold, 3, NULL));
  assert_int_equal (count (e, "cost"), 2);
  assert_true (feed (f, split, 1, NULL));
  assert_int_equal (count (f, "reads"), 2);
  assert_int_equal (count (f, "cost"), 1024);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_msimd_chunk_charging),
    cmocka_unit_test (test_msimd_race_detector),
    cmocka_unit_test (test_msimd_cost),
    cmocka_unit_test (test_msimd_processors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
