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
        if (test_engine_count (e, rows[i].counter) != expect)
          fail_msg ("%s (%s): %s is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                    rows[i].name, serial ? "serial" : "chunk", rows[i].counter,
                    test_engine_count (e, rows[i].counter), expect);
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
      if (test_engine_count (e, "races") != rows[i].races)
        fail_msg ("%s: races %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].name,
                  test_engine_count (e, "races"), rows[i].races);
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

/* The reference race detector: per cell and epoch the sets of readers and writers (P <= 64, as
 * bitmaps), a cell flagged at most once per epoch when a reader and a different writer meet (ww:
 * or two different writers). Fed the same touches in the same order as the engine. */
typedef struct {
  guint64 readers, writers;
  gboolean flagged;
} RefCell;

/* Ensure the race detector agrees with the reference on random streams: 6 warps on P = 4
 * processors (warp w is processor w mod 4) loading, storing and adding atomically at cells near 0,
 * across a page boundary of the engine's table (cell 4096) and far away (2^40), with global syncs
 * between; races counted (ww=0 and ww=1), and race=error naming the first cell the reference
 * flags. */
static void
test_msimd_races_match_reference (void **state)
{
  static const guint64 regions[] = { 0, 4096 - 40, G_GUINT64_CONSTANT (1) << 40 };
  guint32 seed = test_seed (1234);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 200; round++)
    for (guint ww = 0; ww < 2; ww++)
      {
        g_autoptr (MdlEngine) e = mdl_engine_new (ww ? "msimd:P=4,ww=1" : "msimd:P=4", NULL);
        g_autoptr (MdlEngine) stop = mdl_engine_new (ww ? "msimd:P=4,ww=1,race=error"
                                                        : "msimd:P=4,race=error", NULL);
        g_autoptr (GHashTable) cells = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                              g_free);
        g_autoptr (GError) error = NULL;
        guint n = (guint) g_rand_int_range (rand, 1, 40);
        Ev *ev = g_new0 (Ev, n);
        guint64 races = 0, first = G_MAXUINT64;
        for (guint i = 0; i < n; i++)
          {
            static const guint8 ops[] = { MDL_WARP_LOAD, MDL_WARP_STORE, MDL_WARP_ATOMIC, 255 };
            guint64 mask = (guint64) g_rand_int (rand) & ALL;
            ev[i] = (Ev) { (guint16) g_rand_int_range (rand, 0, 6),
                           ops[g_rand_int_range (rand, 0, 4)],
                           regions[g_rand_int_range (rand, 0, 3)]
                             + (guint64) g_rand_int_range (rand, 0, 80),
                           (guint64) g_rand_int_range (rand, 0, 3), mask ? mask : 1 };
            if (ev[i].op == 255)
              {
                g_hash_table_remove_all (cells);
                continue;
              }
            for (guint l = 0; l < 32; l++)
              if (ev[i].active >> l & 1)
                for (guint write = ev[i].op == MDL_WARP_STORE; write <= (ev[i].op != MDL_WARP_LOAD);
                     write++)
                  {
                    gint64 key = (gint64) (ev[i].base + l * ev[i].stride);
                    guint64 me = G_GUINT64_CONSTANT (1) << (ev[i].warp % 4);
                    RefCell *c = g_hash_table_lookup (cells, &key);
                    gboolean clash;
                    if (c == NULL)
                      {
                        c = g_new0 (RefCell, 1);
                        g_hash_table_insert (cells, g_memdup2 (&key, sizeof key), c);
                      }
                    clash = write ? (c->readers & ~me) || (ww && (c->writers & ~me))
                                  : (c->writers & ~me) != 0;
                    if (clash && !c->flagged)
                      {
                        c->flagged = TRUE;
                        races++;
                        if (first == G_MAXUINT64)
                          first = (guint64) key;
                      }
                    *(write ? &c->writers : &c->readers) |= me;
                  }
          }
        assert_true (feed (e, ev, n, NULL));
        if (test_engine_count (e, "races") != races)
          fail_msg ("seed %u, round %u, ww=%u: races %" G_GUINT64_FORMAT ", the reference has %"
                    G_GUINT64_FORMAT, seed, round, ww, test_engine_count (e, "races"), races);
        if (first == G_MAXUINT64)
          assert_true (feed (stop, ev, n, NULL));
        else
          {
            g_autofree char *needle = g_strdup_printf ("race on cell %" G_GUINT64_FORMAT " ",
                                                       first);
            if (feed (stop, ev, n, &error) || strstr (error->message, needle) == NULL)
              fail_msg ("seed %u, round %u, ww=%u: expected \"%s\", got \"%s\"", seed, round, ww,
                        needle, error ? error->message : "no error");
          }
        g_free (ev);
      }
  g_rand_free (rand);
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
  assert_int_equal (test_engine_count (e, "cost"), 3074);
  assert_int_equal (test_engine_count (e, "steps"), 5);
  assert_int_equal (test_engine_count (e, "reads"), 3);
  assert_int_equal (test_engine_count (e, "syncs"), 1);
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
  assert_int_equal (test_engine_count (e, "cost"), 2);
  assert_true (feed (f, split, 1, NULL));
  assert_int_equal (test_engine_count (f, "reads"), 2);
  assert_int_equal (test_engine_count (f, "cost"), 1024);
}

/* The cross-product snippet of the hull's step 7 (A.3), S = 2 lanes, one SIMD-processor:
 *   j := (i even) ? i+1 : i-1;  reg[i] := v_i.y;  reg[i] := v_i.x · reg[j];  reg[i] := reg[i] − reg[j]
 * v_i is loaded from global memory (x then y) and the result stored back. */
typedef struct {
  guint64 v, out;
} CrossArgs;

static void
cross_kernel (MdlSimtBlock *blk, void *p)
{
  const CrossArgs *a = p;
  guint64 *addr = mdl_simt_reg (blk, 1), *x = mdl_simt_reg (blk, 1), *y = mdl_simt_reg (blk, 1);
  guint64 *j = mdl_simt_reg (blk, 1), *r = mdl_simt_reg (blk, 1), *rj = mdl_simt_reg (blk, 1);
  guint8 *even = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    addr[t] = a->v + 8 * (guint64) t;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, addr, x);
  MDL_SIMT_EACH (blk, t)
    addr[t] += 4;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, addr, y);
  MDL_SIMT_EACH (blk, t)
    even[t] = t % 2 == 0;
  mdl_simt_if (blk);                                         /* line 2 */
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    j[t] = 4 * ((guint64) t + 1);
  mdl_simt_else (blk);                                       /* line 4 */
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    j[t] = 4 * ((guint64) t - 1);
  mdl_simt_endif (blk);
  MDL_SIMT_EACH (blk, t)
    addr[t] = 4 * (guint64) t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, addr, y);           /* line 6 */
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, j, rj);             /* line 7 */
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    r[t] = (x[t] * rj[t]) & 0xffffffffu;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, addr, r);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, addr, r);           /* line 8 */
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, j, rj);
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    r[t] = (r[t] - rj[t]) & 0xffffffffu;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, addr, r);
  MDL_SIMT_EACH (blk, t)
    addr[t] = a->out + 4 * (guint64) t;
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, addr, r);
}

/* Ensure V3: in lock step (all lanes read before any writes) the snippet gives [−2, 2] =
 * [cross(v0, v1), cross(v1, v0)] for v0 = (1, 2), v1 = (3, 4); running lane 0's line 7 and then
 * lane 1's would give reg[1] = 3 · 4 = 12 (lane 0 already overwrote reg[0] with 1 · 4).
 * Cost under msimd:S=2,M=10: the vectors are stored as (x, y) pairs, so the load of v.x touches
 * cells 0 and 2, two chunks of S = 2 cells, and so does v.y: reads 4; the result (cells 0, 1) is
 * one chunk: writes 1; steps 12 (branch, if-side alu, jump over the else side, else-side alu;
 * store; load, alu, store; load, load, alu, store); cost 10 · (4 + 1) + 12 = 62. */
static void
test_msimd_lockstep_cross_product (void **state)
{
  static const gint32 v[] = { 1, 2, 3, 4 };
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree MdlReport **reports = NULL;
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 2, .shared_bytes = 8 };
  CrossArgs a;
  MdlSink sink;
  gint32 got[2];
  guint nr;
  (void) state;
  assert_true (mdl_pipeline_add_engine_spec (p, "msimd:S=2,M=10", &error));
  sink = mdl_pipeline_sink (p);
  gpu = mdl_simt_new (&sink, 32);
  assert_true ((a.v = mdl_simt_alloc (gpu, sizeof v, &error)) != 0);
  assert_true ((a.out = mdl_simt_alloc (gpu, sizeof got, &error)) != 0);
  memcpy (mdl_simt_host (gpu, a.v), v, sizeof v);
  assert_true (mdl_simt_launch (gpu, &shape, cross_kernel, &a, &error));
  memcpy (got, mdl_simt_host (gpu, a.out), sizeof got);
  assert_int_equal (got[0], -2);
  assert_int_equal (got[1], 2);
  reports = mdl_pipeline_reports (p, &nr);
  assert_int_equal (nr, 1);
  assert_int_equal (test_report_count (reports[0], "reads"), 4);
  assert_int_equal (test_report_count (reports[0], "writes"), 1);
  assert_int_equal (test_report_count (reports[0], "steps"), 12);
  assert_int_equal (test_report_count (reports[0], "cost"), 62);
  mdl_report_free (reports[0]);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_msimd_chunk_charging),
    cmocka_unit_test (test_msimd_race_detector),
    cmocka_unit_test (test_msimd_races_match_reference),
    cmocka_unit_test (test_msimd_cost),
    cmocka_unit_test (test_msimd_processors),
    cmocka_unit_test (test_msimd_lockstep_cross_product),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
