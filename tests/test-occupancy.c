/* Tests of the occupancy engine (src/models/gpu/occupancy.c): the occupancy calculator against every
 * distinct launch Nsight Compute measured on the H100 (tests/data/h100-occupancy.csv), limits
 * worked out by hand where the H100 data never binds (registers, block-granular allocation on
 * compute capability 1.x), and load rounds on hand-built warp streams. */
#include "helpers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TABLE "tests/data/h100-occupancy.csv"

/* A new engine of @spec; fails the test on a bad spec. */
static MdlEngine *
engine (const char *spec)
{
  g_autoptr (GError) error = NULL;
  MdlEngine *e = mdl_engine_new (spec, &error);
  if (e == NULL)
    fail_msg ("%s: %s", spec, error->message);
  return e;
}

static void
launch (MdlEngine *e, guint32 id, guint32 grid, guint32 threads, guint32 shared)
{
  g_autoptr (GError) error = NULL;
  MdlMarker m = { .kind = MDL_MARK_LAUNCH, .launch = id, .grid_blocks = grid,
                  .block_threads = threads, .shared_bytes = shared, .warp_width = 32 };
  if (!mdl_engine_marker (e, &m, &error))
    fail_msg ("launch marker: %s", error->message);
}

static void
sync_all (MdlEngine *e)
{
  MdlMarker m = { .kind = MDL_MARK_SYNC };
  assert_true (mdl_engine_marker (e, &m, NULL));
}

/* Every row of the measured table: the engine, told the kernel's registers, gives Nsight
 * Compute's theoretical occupancy exactly and its waves to the 2 decimals ncu prints. */
static void
test_h100_table (void **state)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  guint rows = 0;
  (void) state;
  assert_true (g_file_get_contents (TABLE, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      const char *rest = strrchr (*l, '"');
      guint threads, shared, regs, grid;
      double waves, pct;
      if (**l != '"' || rest == NULL)
        continue;
      if (sscanf (rest + 1, ",%u,%u,%u,%u,%lf,%lf", &threads, &shared, &regs, &grid, &waves, &pct)
          != 6)
        fail_msg ("%s: bad row: %s", TABLE, *l);
      {
        g_autofree char *spec = g_strdup_printf ("occupancy:machine=h100,regs=%u", regs);
        g_autoptr (MdlEngine) e = engine (spec);
        launch (e, 0, grid, threads, shared);
        sync_all (e);
        if (fabs (test_engine_real (e, "occupancy_pct") - pct) > 0.01
            || fabs (test_engine_real (e, "waves") - waves) > 0.005 + 1e-9)
          fail_msg ("%s: predicted %.2f%% and %.4f waves, measured %.2f%% and %.2f", *l,
                    test_engine_real (e, "occupancy_pct"), test_engine_real (e, "waves"), pct,
                    waves);
        assert_int_equal (test_engine_count (e, "blocks"), grid);
        assert_int_equal (test_engine_count (e, "threads"), (guint64) grid * threads);
      }
      rows++;
    }
  assert_int_equal (rows, 176);
}

typedef struct {
  const char *spec;
  guint32 threads, shared;
  double pct;
  const char *limit;
} Calc;

/* Limits the H100 table never reaches, worked out in each comment. */
static const Calc calcs[] = {
  /* 64 regs x 32 lanes = 2048 per warp (a multiple of 256); 8 warps: 16384 a block; 65536 / 16384
   * = 4 blocks = 32 warps of 64. */
  { "occupancy:machine=h100,regs=64", 256, 0, 50.0, "registers" },
  /* 33 regs: 1056 per warp rounds up to 1280; 65536 / (32 x 1280) = 1 block of 1024 threads. */
  { "occupancy:machine=h100,regs=33", 1024, 0, 50.0, "registers" },
  /* 100 KiB + 1 KiB reserved: 2 blocks in 228 KiB; 2 x 4 warps = 8 of 64. */
  { "occupancy:machine=h100", 128, 102400, 12.5, "shared" },
  /* a block of 228 KiB + 1 KiB fits nowhere */
  { "occupancy:machine=h100", 32, 233472, 0, "shared" },
  /* G80: 10 regs x 8 warps x 32 = 2560, a multiple of 256 per block: 8192 / 2560 = 3 blocks;
   * 24 / 8 warps = 3 too, and the warps limit comes first among equals: 24 of 24 warps. */
  { "occupancy:machine=g80,regs=10", 256, 4096, 100.0, "warps" },
  /* 16 regs x 256 threads = 4096 per block: 2 blocks, 16 of 24 warps. */
  { "occupancy:machine=g80,regs=16", 256, 4096, 100.0 * 16 / 24, "registers" },
  /* 6 KiB rounded to 512: 16 KiB holds 2 blocks of 2 warps: 4 of 32 warps on a GT200. */
  { "occupancy:machine=gt200", 64, 6000, 12.5, "shared" },
  /* 1024 threads on a GT200: 32 warps would fit its 32 warp slots, but a block may have at most
   * 512 threads: unplaceable, under the warps limit. */
  { "occupancy:machine=gt200", 1024, 0, 0, "warps" },
  /* Kepler: one-warp blocks, 16 blocks per SM: 16 of 64 warps. */
  { "occupancy:machine=kepler", 32, 0, 25.0, "blocks" },
};

static void
test_limits (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (calcs); i++)
    {
      g_autoptr (MdlEngine) e = engine (calcs[i].spec);
      g_autofree char *counter = g_strdup_printf ("limited_by_%s", calcs[i].limit);
      double pct;
      launch (e, 0, 1000, calcs[i].threads, calcs[i].shared);
      sync_all (e);
      pct = test_engine_real (e, "occupancy_pct");
      if (calcs[i].pct == 0)
        {
          assert_int_equal (test_engine_count (e, "unplaceable"), 1);
          assert_true (isnan (pct));
        }
      else if (fabs (pct - calcs[i].pct) > 1e-9)
        fail_msg ("row %u (%s): %.4f%%, want %.4f%%", i, calcs[i].spec, pct, calcs[i].pct);
      assert_int_equal (test_engine_count (e, counter), 1);
    }
}

/* One instruction of warp @warp of block @block. */
static void
event (MdlEngine *e, guint32 block, guint16 warp, guint8 op, guint8 space)
{
  guint64 addrs[1] = { 0 };
  gboolean mem = op <= MDL_WARP_ATOMIC;
  MdlWarpEvent w = { .active = 1, .block = block, .warp = warp, .op = op,
                     .space = mem ? space : MDL_SPACE_NONE, .width = mem ? 4 : 0 };
  MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs, .n_lane_addrs = mem };
  assert_true (mdl_engine_consume (e, &b, NULL));
}

#define GLD(e, blk, w) event (e, blk, w, MDL_WARP_LOAD, MDL_SPACE_GLOBAL)
#define SLD(e, blk, w) event (e, blk, w, MDL_WARP_LOAD, MDL_SPACE_SHARED)
#define GST(e, blk, w) event (e, blk, w, MDL_WARP_STORE, MDL_SPACE_GLOBAL)
#define ALU(e, blk, w) event (e, blk, w, MDL_WARP_ALU, MDL_SPACE_NONE)

static void
test_rounds (void **state)
{
  g_autoptr (MdlEngine) e = engine ("occupancy:machine=h100");
  (void) state;
  /* Launch 1: 2 blocks of 64 threads (2 warps each), all 4 warps resident at once.
   * block 0 warp 0: ld ld ld alu ld       -> rounds 2 (the alu ends the first run)
   * block 0 warp 1: ld, warp 0's alu between them does not break warp 1's run: ld -> 1
   * block 1 warp 0: ld st ld sld ld       -> 3 (a store and a shared load end runs)
   * block 1 warp 1: alu only              -> 0 */
  launch (e, 0, 2, 64, 0);
  GLD (e, 0, 0);
  GLD (e, 0, 1);
  GLD (e, 0, 0);
  GLD (e, 0, 0);
  ALU (e, 0, 0);
  GLD (e, 0, 1);
  GLD (e, 0, 0);
  GLD (e, 1, 0);
  GST (e, 1, 0);
  GLD (e, 1, 0);
  SLD (e, 1, 0);
  GLD (e, 1, 0);
  ALU (e, 1, 1);
  sync_all (e);
  assert_int_equal (test_engine_count (e, "load_rounds"), 6);
  assert_true (fabs (test_engine_real (e, "latency_rounds") - 6.0 / 4) < 1e-12);
  /* Launch 2: 132 x 32 x 2 blocks of one warp: 4224 resident of 8448, one round each: 8448 /
   * 4224 = 2 latency rounds, 2 waves. The open launch counts before its sync. */
  launch (e, 1, 8448, 32, 0);
  for (guint32 b = 0; b < 8448; b++)
    GLD (e, b, 0);
  assert_int_equal (test_engine_count (e, "load_rounds"), 6 + 8448);
  assert_true (fabs (test_engine_real (e, "latency_rounds") - (1.5 + 2)) < 1e-12);
  assert_true (fabs (test_engine_real (e, "waves") - (2.0 / 4224 + 2)) < 1e-12);
  assert_int_equal (test_engine_count (e, "launches"), 2);
  /* Launch 3: 2 blocks of one warp whose events interleave (the SIMT layer's resident blocks):
   * block 0: ld ld ld, block 1's events between them -> 1 round; block 1: ld alu ld -> 2. */
  launch (e, 2, 2, 32, 0);
  GLD (e, 0, 0);
  GLD (e, 1, 0);
  GLD (e, 0, 0);
  ALU (e, 1, 0);
  GLD (e, 0, 0);
  GLD (e, 1, 0);
  sync_all (e);
  assert_int_equal (test_engine_count (e, "load_rounds"), 6 + 8448 + 3);
  assert_true (fabs (test_engine_real (e, "latency_rounds") - (1.5 + 2 + 1.5)) < 1e-12);
}

/* Cederman's octree kernel on the 8800 GT (thesis §3.7, notes §5.4 item 28): resident blocks per
 * SM fall from 3 to 1 when a block passes 64 threads, because of registers. With 40 registers a
 * thread (the thesis gives no count; 33..42 all give the knee): up to 64 threads a block is two
 * warps' worth, 40 x 64 = 2560 registers, 3 blocks in 8192; from 65 threads the 3 warps round up
 * to 4, 5120 registers, 1 block. So 14 SMs hold 42 blocks below the knee (the thesis's "42 blocks
 * that can run concurrently") and 14 above it; the 9600 GT's 8 SMs hold 24 and 8. */
static void
test_octree_register_knee_on_8800gt (void **state)
{
  static const struct { const char *machine; guint32 threads; guint64 per_sm, resident; } rows[] = {
    { "8800gt", 32, 3, 42 }, { "8800gt", 48, 3, 42 }, { "8800gt", 64, 3, 42 },
    { "8800gt", 72, 1, 14 }, { "8800gt", 128, 1, 14 }, { "9600gt", 32, 3, 24 },
    { "9600gt", 72, 1, 8 },
  };
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *spec = g_strdup_printf ("occupancy:machine=%s,regs=40", rows[i].machine);
      g_autoptr (MdlEngine) e = engine (spec);
      launch (e, 0, 100, rows[i].threads, 128);
      sync_all (e);
      assert_int_equal (test_engine_count (e, "blocks_per_sm_max"), rows[i].per_sm);
      assert_int_equal (test_engine_count (e, "blocks_per_sm_min"), rows[i].per_sm);
      assert_int_equal (test_engine_count (e, "resident_blocks_max"), rows[i].resident);
      assert_int_equal (test_engine_count (e, "limited_by_registers"), 1);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_h100_table),
    cmocka_unit_test (test_limits),
    cmocka_unit_test (test_rounds),
    cmocka_unit_test (test_octree_register_knee_on_8800gt),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
