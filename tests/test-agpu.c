/* Tests of the agpu engine (src/models/agpu.c): warp streams built by hand, costed by the rules at
 * the head of agpu.c. Expected values come from the validation cases V1, V2, V4 and V9 of
 * ../shared/spec/agpu-koike-sadakane.md (worked there from the paper's rules and checked by script)
 * or are worked out in the comment above the row. Addresses below are in words of 4 bytes (w=32). */
#include "helpers.h"

#include <math.h>
#include <string.h>

/* One warp instruction: lane l of @active touches word base + l * stride. */
typedef struct {
  guint32 launch, block;
  guint16 warp;
  guint8 op, space;
  guint16 width;          /* bytes per lane; 0 means 4 for memory ops */
  guint64 base, stride;   /* words */
  guint64 active;
} Ev;

#define ALL 0xffffffffull
#define LD(sp, base, stride, mask) { 0, 0, 0, MDL_WARP_LOAD, sp, 4, base, stride, mask }
#define ST(sp, base, stride, mask) { 0, 0, 0, MDL_WARP_STORE, sp, 4, base, stride, mask }
#define G MDL_SPACE_GLOBAL
#define S MDL_SPACE_SHARED

/* Feeds @n events to @e, one batch each; a launch marker (32-lane warps, @shared_bytes) opens
 * every new launch id. */
static void
feed (MdlEngine *e, const Ev *ev, guint n, guint32 shared_bytes)
{
  GError *error = NULL;
  gboolean have = FALSE;
  guint32 cur = 0;
  for (guint i = 0; i < n; i++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES];
      guint na = 0;
      gboolean mem = ev[i].op <= MDL_WARP_ATOMIC;
      MdlWarpEvent w = { .active = ev[i].active, .launch = ev[i].launch, .block = ev[i].block,
                         .warp = ev[i].warp, .op = ev[i].op, .space = mem ? ev[i].space : 0,
                         .width = mem ? (ev[i].width ? ev[i].width : 4) : 0 };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
      if (!have || cur != ev[i].launch)
        {
          MdlMarker m = { .kind = MDL_MARK_LAUNCH, .launch = ev[i].launch, .grid_blocks = 0,
                          .block_threads = 32, .shared_bytes = shared_bytes, .warp_width = 32 };
          if (!mdl_engine_marker (e, &m, &error))
            fail_msg ("launch marker: %s", error->message);
          have = TRUE;
          cur = ev[i].launch;
        }
      if (mem)
        for (guint l = 0; l < 64; l++)
          if (ev[i].active >> l & 1)
            addrs[na++] = 4 * (ev[i].base + l * ev[i].stride);
      b.n_lane_addrs = na;
      if (!mdl_engine_consume (e, &b, &error))
        fail_msg ("event %u: %s", i, error->message);
    }
}


/* Cost (time) of one instruction under @spec; also checks that io equals it for global ones. */
static guint64
cost_one (const char *spec, Ev ev)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new (spec, &error);
  guint64 t;
  if (e == NULL)
    fail_msg ("%s: %s", spec, error->message);
  feed (e, &ev, 1, 0);
  t = test_engine_count (e, "time");
  if (ev.space == G && test_engine_count (e, "io") != t)
    fail_msg ("%s: io %" G_GUINT64_FORMAT " differs from time %" G_GUINT64_FORMAT, spec,
              test_engine_count (e, "io"), t);
  if (ev.space == S && test_engine_count (e, "io") != 0)
    fail_msg ("%s: a shared access did I/O", spec);
  return t;
}

typedef struct {
  const char *name;
  const char *spec;
  Ev ev;
  guint64 expect;
} Row;

static const Row rows[] = {
  /* V1, Fig. 3(a): b contiguous words from an aligned base: one block. */
  { "V1 aligned b=32", "agpu:b=32", LD (G, 64, 1, ALL), 1 },
  { "V1 aligned b=16", "agpu:b=16", LD (G, 32, 1, 0xffff), 1 },
  { "V1 aligned b=4", "agpu:b=4", LD (G, 8, 1, 0xf), 1 },
  /* V1, §3.5: base = 1 mod b: the b words straddle two blocks. */
  { "V1 unaligned b=32", "agpu:b=32", LD (G, 65, 1, ALL), 2 },
  { "V1 unaligned b=16", "agpu:b=16", LD (G, 33, 1, 0xffff), 2 },
  { "V1 unaligned b=4", "agpu:b=4", LD (G, 9, 1, 0xf), 2 },
  /* V1, Fig. 3(b): 4 lanes of b=4 spread over 4 blocks (stride 4). */
  { "V1 Fig 3b", "agpu:b=4", LD (G, 0, 4, 0xf), 4 },
  /* V1: every lane one word; one active lane (the `if ε==0` result write). */
  { "V1 same word", "agpu:b=32", LD (G, 100, 0, ALL), 1 },
  { "V1 one lane", "agpu:b=32", ST (G, 100, 1, 0x1), 1 },
  /* V1: stride s, base 0: min(s, b) blocks. */
  { "V1 s=3 b=32", "agpu:b=32", LD (G, 0, 3, ALL), 3 },
  { "V1 s=7 b=32", "agpu:b=32", LD (G, 0, 7, ALL), 7 },
  { "V1 s=33 b=32", "agpu:b=32", LD (G, 0, 33, ALL), 32 },
  { "V1 s=17 b=16", "agpu:b=16", LD (G, 0, 17, 0xffff), 16 },
  { "V1 s=5 b=4", "agpu:b=4", LD (G, 0, 5, 0xf), 4 },
  /* V1: base b/2. */
  { "V1 s=2 base 16 b=32", "agpu:b=32", LD (G, 16, 2, ALL), 3 },
  { "V1 s=8 base 8 b=16", "agpu:b=16", LD (G, 8, 8, 0xffff), 9 },
  { "V1 s=16 base 16 b=32", "agpu:b=32", LD (G, 16, 16, ALL), 17 },
  { "V1 s=4 base 2 b=4", "agpu:b=4", LD (G, 2, 4, 0xf), 4 },
  /* 8-byte lanes, w=32: 32 lanes cover words 0..63: two blocks of 32. */
  { "wide lanes", "agpu:b=32", { 0, 0, 0, MDL_WARP_LOAD, G, 8, 0, 2, ALL, }, 2 },
  /* A 32-lane warp with b=16 is two MP instructions of 16 cores: words 0..15 and 16..31, one
   * block each. */
  { "warp split b=16", "agpu:b=16", LD (G, 0, 1, ALL), 2 },
  /* V2: shared stride s, base 0: degree gcd(s, b). */
  { "V2 s=1", "agpu:b=32", LD (S, 0, 1, ALL), 1 },
  { "V2 s=2", "agpu:b=32", LD (S, 0, 2, ALL), 2 },
  { "V2 s=3", "agpu:b=32", LD (S, 0, 3, ALL), 1 },
  { "V2 s=4", "agpu:b=32", LD (S, 0, 4, ALL), 4 },
  { "V2 s=8", "agpu:b=32", ST (S, 0, 8, ALL), 8 },
  { "V2 s=16", "agpu:b=32", LD (S, 0, 16, ALL), 16 },
  { "V2 s=17", "agpu:b=32", LD (S, 0, 17, ALL), 1 },
  { "V2 s=32", "agpu:b=32", LD (S, 0, 32, ALL), 32 },
  { "V2 s=33", "agpu:b=32", LD (S, 0, 33, ALL), 1 },
  { "V2 s=64", "agpu:b=32", LD (S, 0, 64, ALL), 32 },
  { "V2 b=16 s=4", "agpu:b=16", LD (S, 0, 4, 0xffff), 4 },
  { "V2 b=16 s=16", "agpu:b=16", LD (S, 0, 16, 0xffff), 16 },
  { "V2 b=16 s=17", "agpu:b=16", LD (S, 0, 17, 0xffff), 1 },
  /* V2, s=0: literal AGPU serialises b lanes on one bank; broadcast=1 serves them at once. */
  { "V2 s=0 literal", "agpu:b=32", LD (S, 5, 0, ALL), 32 },
  { "V2 s=0 broadcast", "agpu:b=32,broadcast=1", LD (S, 5, 0, ALL), 1 },
  /* V2, padded row walk: lane ε reads m[ε][j] of a (b+1)-wide array, j = 3: degree 1;
   * unpadded b x b column walk: degree b. */
  { "V2 padded walk", "agpu:b=32", LD (S, 3, 33, ALL), 1 },
  { "V2 unpadded walk", "agpu:b=32", LD (S, 3, 32, ALL), 32 },
  /* V2, Algorithm 1: x[ε+δ] for δ = 16: words 16..47, contiguous: 1. */
  { "V2 tree step", "agpu:b=32", LD (S, 16, 1, ALL), 1 },
  /* Fig. 4(b): two lanes on one bank: b=4, lanes 0 and 1 at words 1 and 5, both bank 1: 2. */
  { "Fig 4b", "agpu:b=4", LD (S, 1, 4, 0x3), 2 },
  /* Local (a core's private variables) and ALU instructions cost 1, barrier arrivals 0. */
  { "local", "agpu:b=32", { 0, 0, 0, MDL_WARP_LOAD, MDL_SPACE_LOCAL, 4, 0, 32, ALL }, 1 },
  { "alu", "agpu:b=32", { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, 0x1 }, 1 },
  { "barrier", "agpu:b=32", { 0, 0, 0, MDL_WARP_BARRIER, 0, 0, 0, 0, ALL }, 0 },
  { "alu b=8", "agpu:b=8", { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL }, 4 },
};

/* Ensure single instructions cost what V1, V2 and the comments derive. */
static void
test_agpu_instruction_rows (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 got = cost_one (rows[i].spec, rows[i].ev);
      if (got != rows[i].expect)
        fail_msg ("%s: time is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].name,
                  got, rows[i].expect);
    }
}

/* Ensure the Algorithm 8 transposed load costs V4's sums: load j, lane ε reads element
 * e = jb + ε of an α x (b+1) matrix at row e mod α, column floor(e / α); the α loads of one
 * matrix cost the sum of their degrees. */
static void
test_agpu_transposed_load (void **state)
{
  /* V4, b = 32, α = 1..32 (16..31: 2α). */
  static const guint sum32[33] = { 0, 1, 4, 9, 16, 25, 36, 38, 32, 36, 40, 42, 36, 39, 42, 45,
                                   32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62,
                                   32 };
  /* V4, b = 8, α = 1..8. */
  static const guint sum8[9] = { 0, 1, 4, 9, 8, 10, 12, 14, 8 };
  (void) state;
  for (guint b = 8; b <= 32; b *= 4)
    for (guint alpha = 1; alpha <= b; alpha++)
      {
        g_autofree char *spec = g_strdup_printf ("agpu:b=%u", b);
        g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
        guint64 expect = b == 32 ? sum32[alpha] : sum8[alpha];
        for (guint j = 0; j < alpha; j++)
          {
            guint64 addrs[32];
            MdlWarpEvent w = { .active = (1ull << b) - 1, .op = MDL_WARP_LOAD,
                               .space = MDL_SPACE_SHARED, .width = 4 };
            MdlEventBatch batch = { .warp = &w, .n_warp = 1, .lane_addrs = addrs, .n_lane_addrs = b };
            for (guint eps = 0; eps < b; eps++)
              {
                guint el = j * b + eps;
                addrs[eps] = 4 * ((el % alpha) * (b + 1) + el / alpha);
              }
            assert_true (mdl_engine_consume (e, &batch, NULL));
          }
        if (test_engine_count (e, "time") != expect)
          fail_msg ("b=%u alpha=%u: time %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, b,
                    alpha, test_engine_count (e, "time"), expect);
      }
}

/* Two launches, the events of test_agpu_launch_time and test_agpu_launch_cost: launch 0 runs
 * three blocks of 1, 3 and 1 ALU instructions, launch 1 one block with one global load of 32
 * aligned words. */
static const Ev two_launches[] = {
  { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL },
  { 0, 1, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL },
  { 0, 1, 0, MDL_WARP_ALU, 0, 0, 0, 0, 0x1 },
  { 0, 1, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL },
  { 0, 2, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL },
  { 1, 0, 0, MDL_WARP_LOAD, G, 4, 0, 1, ALL },
};

/* Ensure a launch costs its slowest MP, blocks fold onto k MPs round robin, launches add up,
 * and virtual=1 gives Theorem 4.9's ceil(G/k) x slowest block. */
static void
test_agpu_launch_time (void **state)
{
  /* Launch 0, k = 2: block 0: 1 ALU, block 1: 3 ALU, block 2: 1 ALU.
   * Folded: MP0 runs blocks 0 and 2 (2), MP1 runs block 1 (3): 3.
   * Virtual: G = 3 blocks, ceil(3/2) = 2 rounds x slowest block 3 = 6.
   * Launch 1: one block, one global load of 32 aligned words: 1 (and 1 I/O).
   * Totals: folded 3 + 1 = 4, virtual 6 + 1 = 7; launches 2; io 1. */
  g_autoptr (MdlEngine) fold = mdl_engine_new ("agpu:b=32,k=2", NULL);
  g_autoptr (MdlEngine) virt = mdl_engine_new ("agpu:p=64,b=32,virtual=1", NULL);
  (void) state;
  feed (fold, two_launches, G_N_ELEMENTS (two_launches), 0);
  feed (virt, two_launches, G_N_ELEMENTS (two_launches), 0);
  assert_int_equal (test_engine_count (fold, "time"), 4);
  assert_int_equal (test_engine_count (virt, "time"), 7);
  assert_int_equal (test_engine_count (fold, "launches"), 2);
  assert_int_equal (test_engine_count (fold, "io"), 1);
  /* Two warps of one block are two MP instructions on one MP: 2, not the max 1. */
  {
    static const Ev two[] = { { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, ALL },
                              { 0, 0, 1, MDL_WARP_ALU, 0, 0, 0, 0, ALL } };
    g_autoptr (MdlEngine) e = mdl_engine_new ("agpu", NULL);
    feed (e, two, 2, 0);
    assert_int_equal (test_engine_count (e, "time"), 2);
  }
}

/* Ensure launch_ns charges every launch the same, on top of the launches' MP time: a two-launch
 * program costs its body + 2 x the launch cost, and launch_time reports the 2 x.
 * b = 32, k = 16, w = 32: an MP instruction stands for moving one 128-byte block at 1/16 of
 * dram_bytes_per_us = 2048 bytes/us, i.e. 128 x 16 / 2048 us = 1000 ns; launch_ns = 5000 is
 * 5 instructions, 5001 rounds up to 6. The body (test_agpu_launch_time's events, k = 16: blocks 0,
 * 1, 2 on MPs 0, 1, 2): launch 0 costs block 1's 3, launch 1 its load's 1: 4. So 4 + 2 x 5 = 14
 * and 4 + 2 x 6 = 16. The 8800 GT preset: 10 us at 57.6 GB/s over 14 MPs of 32 4-byte words,
 * 10000 x 57600 / (1000 x 14 x 128) = 321.4, rounded up to 322 a launch; the H100's, 13.61 us at
 * 3.35 TB/s over 132 MPs, 2698.5, rounded up to 2699. */
static void
test_agpu_launch_cost (void **state)
{
  static const struct {
    const char *spec;
    guint64 launch_time, time;
  } costs[] = {
    { "agpu:b=32,k=16", 0, 4 },
    { "agpu:b=32,k=16,launch_ns=5000,dram_bytes_per_us=2048", 10, 14 },
    { "agpu:b=32,k=16,launch_ns=5001,dram_bytes_per_us=2048", 12, 16 },
    { "agpu:machine=8800gt", 2 * 322, 4 + 2 * 322 },   /* k = 14: the body is still 4 */
    { "agpu:machine=h100", 2 * 2699, 4 + 2 * 2699 },   /* 13610 x 3350000 / (1000 x 132 x 128) */
  };
  GError *error = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (costs); i++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (costs[i].spec, &error);
      if (e == NULL)
        fail_msg ("%s: %s", costs[i].spec, error->message);
      feed (e, two_launches, G_N_ELEMENTS (two_launches), 0);
      if (test_engine_count (e, "launch_time") != costs[i].launch_time
          || test_engine_count (e, "time") != costs[i].time)
        fail_msg ("%s: launch_time %" G_GUINT64_FORMAT ", time %" G_GUINT64_FORMAT "; expected %"
                  G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT, costs[i].spec,
                  test_engine_count (e, "launch_time"), test_engine_count (e, "time"),
                  costs[i].launch_time, costs[i].time);
    }
  assert_null (mdl_engine_new ("agpu:launch_ns=5000", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "launch_ns=5000 needs dram_bytes_per_us > 0");
}

/* Ensure divergent paths all count: branch, if side, jump, else side = 4 instructions. */
static void
test_agpu_divergence_counts_both_paths (void **state)
{
  static const Ev ev[] = {
    { 0, 0, 0, MDL_WARP_BRANCH, 0, 0, 0, 0, ALL },
    { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, 0x0000ffff },
    { 0, 0, 0, MDL_WARP_JUMP, 0, 0, 0, 0, 0x0000ffff },
    { 0, 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, 0xffff0000 },
  };
  g_autoptr (MdlEngine) e = mdl_engine_new ("agpu", NULL);
  (void) state;
  feed (e, ev, G_N_ELEMENTS (ev), 0);
  assert_int_equal (test_engine_count (e, "time"), 4);
}

/* Ensure Algorithm 1's per-chunk I/O is 3: two aligned b-word reads and the one-lane write;
 * global_words counts the distinct words: 64 read + 1 written. */
static void
test_agpu_tree_chunk_io (void **state)
{
  static const Ev ev[] = {
    LD (G, 0, 1, ALL), LD (G, 32, 1, ALL),
    ST (S, 0, 1, ALL), LD (S, 16, 1, ALL),
    ST (G, 4096, 1, 0x1),
  };
  g_autoptr (MdlEngine) e = mdl_engine_new ("agpu:b=32,k=16", NULL);
  (void) state;
  feed (e, ev, G_N_ELEMENTS (ev), 256);
  assert_int_equal (test_engine_count (e, "io"), 3);
  assert_int_equal (test_engine_count (e, "time"), 5);
  assert_int_equal (test_engine_count (e, "global_words"), 65);
  /* 256 bytes = 64 words of shared memory; M = 12288: multiplicity 192. */
  assert_int_equal (test_engine_count (e, "shared_words"), 64);
  {
    g_autoptr (MdlReport) r = mdl_engine_report (e);
    assert_true (fabs (mdl_report_lookup (r, "multiplicity")->real - 192.0) < 1e-9);
  }
}

/* Ensure the multiplicity thresholds of V9: warps = floor(M/m) below the hardware cap.
 * K20c: M = 48 KiB = 12288 words; scan m = 132α bytes; sort m = 128(d-1) bytes.
 * C1060: M = 16 KiB = 4096 words. */
static void
test_agpu_multiplicity_v9 (void **state)
{
  static const struct { guint64 M; guint32 m_bytes; guint floor_; } cases[] = {
    { 12288, 132 * 6, 62 }, { 12288, 132 * 7, 53 }, { 12288, 132 * 8, 46 },
    { 12288, 132 * 18, 20 }, { 12288, 132 * 32, 11 }, { 4096, 132 * 8, 15 },
    { 12288, 128 * 7, 54 }, { 12288, 128 * 15, 25 }, { 12288, 128 * 31, 12 },
    { 12288, 128 * 63, 6 }, { 12288, 128 * 127, 3 }, { 12288, 128 * 255, 1 },
  };
  GError *error = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *spec = g_strdup_printf ("agpu:M=%" G_GUINT64_FORMAT, cases[i].M);
      g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
      g_autoptr (MdlReport) r = NULL;
      MdlMarker m = { .kind = MDL_MARK_LAUNCH, .shared_bytes = cases[i].m_bytes, .warp_width = 32 };
      assert_true (mdl_engine_marker (e, &m, NULL));
      r = mdl_engine_report (e);
      if ((guint) floor (mdl_report_lookup (r, "multiplicity")->real) != cases[i].floor_)
        fail_msg ("case %u: multiplicity %g, expected floor %u", i,
                  mdl_report_lookup (r, "multiplicity")->real, cases[i].floor_);
    }
  /* V9, sort with d = 512: m = 128 x 511 bytes = 16352 words > M: does not fit. */
  {
    g_autoptr (MdlEngine) e = mdl_engine_new ("agpu:M=12288", NULL);
    MdlMarker m = { .kind = MDL_MARK_LAUNCH, .launch = 3, .shared_bytes = 128 * 511, .warp_width = 32 };
    assert_false (mdl_engine_marker (e, &m, &error));
    assert_mdl_error (error, MDL_ERROR_MODEL, "launch 3 uses m=16352 shared words per block, more than M=12288");
  }
}

/* Ensure volatile shared memory: words stored in launch 0 and read in launch 1 are stale
 * (32 of them) under AGPU, and fine under AGPU' (volatile=0). */
static void
test_agpu_volatile (void **state)
{
  static const Ev ev[] = {
    { 0, 0, 0, MDL_WARP_STORE, S, 4, 0, 1, ALL },
    { 0, 0, 0, MDL_WARP_LOAD, S, 4, 0, 1, ALL },
    { 1, 0, 0, MDL_WARP_LOAD, S, 4, 0, 1, ALL },
  };
  g_autoptr (MdlEngine) vol = mdl_engine_new ("agpu", NULL);
  g_autoptr (MdlEngine) non = mdl_engine_new ("agpu:volatile=0", NULL);
  (void) state;
  feed (vol, ev, G_N_ELEMENTS (ev), 128);
  feed (non, ev, G_N_ELEMENTS (ev), 128);
  assert_int_equal (test_engine_count (vol, "stale_shared_reads"), 32);
  assert_int_equal (test_engine_count (non, "stale_shared_reads"), 0);
  assert_int_equal (test_engine_count (vol, "time"), 3);
}

/* Ensure stale_shared_reads and global_words agree with a reference (sets of the words stored in
 * each launch, or ever with volatile=0, and of the global words touched) on random streams of
 * shared and global loads, stores and atomics of 5 blocks over 3 launches, lanes at strides of
 * -2 to 3 words (the rising, falling and repeated lists of agpu's row-at-a-time shared path and of
 * its word-at-a-time one): words up to 213 with a
 * launch shared size of 128 words (so both the engine's per-launch pages and its map for words
 * beyond the shared size are used) or of none (the map alone), global words across a page of
 * the engine's bitmaps and far away. An instruction's reads are checked before its writes. */
static void
test_agpu_word_sets_match_reference (void **state)
{
  static const guint64 regions[] = { 0, (1u << 15) - 40, G_GUINT64_CONSTANT (1) << 30 };
  guint32 seed = test_seed (4321);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 100; round++)
    for (guint variant = 0; variant < 4; variant++)
      {
        gboolean is_volatile = variant < 2;
        guint32 shared_bytes = variant % 2 ? 0 : 512;
        g_autoptr (MdlEngine) e = mdl_engine_new (is_volatile ? "agpu" : "agpu:volatile=0", NULL);
        g_autoptr (GHashTable) stored = g_hash_table_new (g_str_hash, g_str_equal);
        g_autoptr (GHashTable) touched = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                                NULL);
        g_autoptr (GStringChunk) keys = g_string_chunk_new (1024);
        guint n = (guint) g_rand_int_range (rand, 1, 60);
        Ev *ev = g_new0 (Ev, n);
        guint64 stale = 0;
        guint32 launch = 0;
        for (guint i = 0; i < n; i++)
          {
            static const guint8 ops[] = { MDL_WARP_LOAD, MDL_WARP_STORE, MDL_WARP_ATOMIC };
            guint64 mask = (guint64) g_rand_int (rand) & ALL;
            gboolean global = g_rand_int_range (rand, 0, 3) == 0;
            if (g_rand_int_range (rand, 0, 20) == 0)
              {
                launch++;
                if (is_volatile)
                  g_hash_table_remove_all (stored);
              }
            /* strides of -2 and -1 words as well (lane 0 then has the highest word, and the
             * others reach into the row below its row), from a base high enough to stay >= 0 */
            gint64 stride = g_rand_int_range (rand, -2, 4);
            ev[i] = (Ev) { launch, (guint32) g_rand_int_range (rand, 0, 5), 0,
                           ops[g_rand_int_range (rand, 0, 3)], global ? G : S, 4,
                           (global ? regions[g_rand_int_range (rand, 0, 3)] : 0)
                             + (guint64) g_rand_int_range (rand, 0, 120) + (stride < 0 ? 62 : 0),
                           (guint64) stride, mask ? mask : 1 };
            for (guint l = 0; l < 32; l++)
              {
                guint64 word = ev[i].base + l * ev[i].stride;
                if (!(ev[i].active >> l & 1))
                  continue;
                if (global)
                  {
                    if (!g_hash_table_contains (touched, &word))
                      g_hash_table_add (touched, g_memdup2 (&word, sizeof word));
                  }
                else if (ev[i].op != MDL_WARP_STORE)
                  {
                    g_autofree char *key = g_strdup_printf ("%u.%" G_GUINT64_FORMAT, ev[i].block,
                                                            word);
                    stale += !g_hash_table_contains (stored, key);
                  }
              }
            for (guint l = 0; l < 32 && !global && ev[i].op != MDL_WARP_LOAD; l++)
              if (ev[i].active >> l & 1)
                {
                  g_autofree char *key = g_strdup_printf ("%u.%" G_GUINT64_FORMAT, ev[i].block,
                                                          ev[i].base + l * ev[i].stride);
                  g_hash_table_add (stored, g_string_chunk_insert_const (keys, key));
                }
          }
        feed (e, ev, n, shared_bytes);
        if (test_engine_count (e, "stale_shared_reads") != stale
            || test_engine_count (e, "global_words") != g_hash_table_size (touched))
          fail_msg ("seed %u, round %u, variant %u: stale_shared_reads %" G_GUINT64_FORMAT
                    " (reference %" G_GUINT64_FORMAT "), global_words %" G_GUINT64_FORMAT
                    " (reference %u)", seed, round, variant,
                    test_engine_count (e, "stale_shared_reads"), stale,
                    test_engine_count (e, "global_words"), g_hash_table_size (touched));
        g_free (ev);
      }
  g_rand_free (rand);
}

/* Ensure p, b and k are checked against each other, and the spec lists every switch. */
static void
test_agpu_params (void **state)
{
  GError *error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new ("agpu:b=32,k=16", NULL);
  (void) state;
  assert_non_null (e);
  assert_non_null (strstr (mdl_engine_spec (e), "broadcast=0"));
  assert_non_null (strstr (mdl_engine_spec (e), "volatile=1"));
  assert_non_null (strstr (mdl_engine_spec (e), "virtual=0"));
  assert_null (mdl_engine_new ("agpu:p=48,b=32", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "p=48 must be a multiple of b=32");
  error = NULL;
  assert_null (mdl_engine_new ("agpu:p=64,b=32,k=3", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "k=3 disagrees with p=64 and b=32");
  error = NULL;
  assert_null (mdl_engine_new ("agpu:b=24", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "b");
  {
    g_autoptr (MdlEngine) h = mdl_engine_new ("agpu:machine=h100", NULL);
    assert_non_null (h);
    assert_non_null (strstr (mdl_engine_spec (h), "k=132"));
  }
}


/* Ensure reduce/tree (Algorithm 1) has V5's I/O: Σ_i 3 ⌈d_(i-1)/2b⌉, and the time derived from
 * the kernel: per block 2 global reads (1 each) + add + store x + log b x (load x[ε], load
 * x[ε+δ], add, store) + load x[0] + global write = 6 + 4 log b, and a level of c chunks costs
 * ⌈c/k⌉ blocks on the busiest MP.
 *  n = 2^20, b = 32, k = 16: chunks 16384, 256, 4, 1: io 3 x 16641 = 49935; per block 26:
 *    time 26 x (1024 + 16 + 1 + 1) = 27092; 4 launches.
 *  n = 512, b = 4, k = 2: chunks 64, 8, 1: io 3 x 73 = 219; per block 14: 14 x (32 + 4 + 1) = 518.
 *  n = 4096, b = 4, k = 2: chunks 512, 64, 8, 1: io 3 x 585 = 1755.
 * And reduce/cascade (Algorithms 2-3), V6: io = n/b row reads + k writes of W + tree I/O of the k
 * values; time: each of the k blocks (one per MP) runs n/p rows of (global read, add), then
 * store x + log b x 4 + load x[0] + global write, then reduce/tree on k values (one chunk):
 *  n = 2^20, b = 32, k = 16: io 32768 + 16 + 3 = 32787; time 2048 x 2 + 1 + 20 + 2 = 4119,
 *    + 26 = 4145; 2 launches.
 *  n = 512, b = 4, k = 2: io 128 + 2 + 3 = 133; time 64 x 2 + 1 + 8 + 2 = 139, + 14 = 153.
 * And reduce/pipeline (Algorithms 4-6), V7: io = n/b rows + k writes + 2 per b-value chunk of
 * Algorithm 6 (one chunk when k <= b); time per pipeline block: 2 identity stores + per row and
 * per drain step 6 conflict-free instructions (global read or identity ALU, store i_s, load i_1,
 * load i_2, combine, store i_r; V3: degree 1) + load slot 3b/2-1 + global write; Algorithm 6 on
 * one chunk: read + store + log b x (load 2ε, load 2ε+1, combine, store; degree 1, V2) + 2:
 *  n = 2^20, b = 32, k = 16: io 32768 + 16 + 2 = 32786; time 2 + 6 x (2048 + 5) + 2 = 12322,
 *    + 2 + 20 + 2 = 24: 12346.
 *  n = 512, b = 4, k = 2: io 128 + 2 + 2 = 132; time 2 + 6 x (64 + 2) + 2 = 400, + 12 = 412. */
static void
test_agpu_reductions (void **state)
{
  static const struct { const char *algo; guint64 n; const char *engine; guint64 io, time, launches; } tree_rows[] = {
    { "reduce/tree:b=32", 1048576, "agpu:b=32,k=16", 49935, 27092, 4 },
    { "reduce/tree:b=4", 512, "agpu:b=4,k=2", 219, 518, 3 },
    { "reduce/tree:b=4", 4096, "agpu:b=4,k=2", 1755, 14 * (256 + 32 + 4 + 1), 4 },
    { "reduce/cascade:b=32,k=16", 1048576, "agpu:b=32,k=16", 32787, 4119 + 26, 2 },
    { "reduce/cascade:b=4,k=2", 512, "agpu:b=4,k=2", 133, 139 + 14, 2 },
    { "reduce/pipeline:b=32,k=16", 1048576, "agpu:b=32,k=16", 32786, 12322 + 24, 2 },
    { "reduce/pipeline:b=4,k=2", 512, "agpu:b=4,k=2", 132, 400 + 12, 2 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (tree_rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (tree_rows[i].algo, tree_rows[i].n, 7,
                                               tree_rows[i].engine, NULL);
      guint64 io = mdl_report_lookup (r, "io")->count, time = mdl_report_lookup (r, "time")->count;
      guint64 launches = mdl_report_lookup (r, "launches")->count;
      if (io != tree_rows[i].io || time != tree_rows[i].time || launches != tree_rows[i].launches)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": io %" G_GUINT64_FORMAT " time %" G_GUINT64_FORMAT
                  " launches %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                  " %" G_GUINT64_FORMAT, tree_rows[i].algo, tree_rows[i].n, io, time, launches, tree_rows[i].io,
                  tree_rows[i].time, tree_rows[i].launches);
    }
}

/* Ensure reduce/pipeline is order-preserving with the notes' fix (the run checks the affine-map
 * product against a sequential fold) and that Algorithm 5 as printed (root (+) accumulator)
 * fails that check, as the notes predict: the rows come out reversed. */
static void
test_agpu_pipeline_order (void **state)
{
  g_autoptr (GError) error = NULL;
  const MdlAlgo *algo = mdl_algo_lookup ("reduce/pipeline", NULL);
  const char *printed[] = { "order=printed", NULL }, *fixed[] = { "b=8", "k=3", NULL };
  g_autoptr (MdlParams) pp = mdl_params_parse ("reduce/pipeline", algo->params, printed, NULL);
  g_autoptr (MdlParams) pf = mdl_params_parse ("reduce/pipeline", algo->params, fixed, NULL);
  guint64 sum;
  (void) state;
  assert_true (algo->run_native (pf, 1000, 3, NULL, &sum, &error));
  assert_false (algo->run_native (pp, 4096, 1, NULL, &sum, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL, "sequential reference");
}

/* The kernel of the atomic chain test: in each of 2 blocks of 4 threads, every thread CASes the
 * word at @lock from 0 to 1 (lane 0 of block 0 wins: the other 7 lanes find 1), then adds 1 to the
 * word at @count; thread 0 of block 1 also adds 1 to the word at @other. */
typedef struct {
  guint64 lock, count, other;
} ChainArgs;

static void
chain_kernel (MdlSimtBlock *blk, void *args)
{
  const ChainArgs *a = args;
  guint64 *at = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *c = mdl_simt_reg (blk, 1);
  guint64 *old = mdl_simt_reg (blk, 1);
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = a->lock;
      v[t] = 1;
      c[t] = 0;
    }
  mdl_simt_atom (blk, MDL_SPACE_GLOBAL, MDL_SIMT_ATOM_CAS, 4, at, v, c, old);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->count;
  mdl_simt_atom_add (blk, MDL_SPACE_GLOBAL, 4, at, v, NULL);
  if (blk->idx_x == 1)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = t == 0;
      mdl_simt_pred_begin (blk);
      MDL_SIMT_EACH (blk, t)
        at[t] = a->other;
      mdl_simt_atom_add (blk, MDL_SPACE_GLOBAL, 4, at, v, NULL);
      mdl_simt_pred_end (blk);
    }
}

/* Ensure atomics chain across a launch: 8 CAS lanes on one word (7 fail: the SIMT layer marks
 * them in the event's taken mask), then 8 adds on another, 1 on a third. AGPU's rule (k = 2 MPs,
 * one block each) charges each MP 4 (CAS, 4 lanes on one word) + 4 (add) + block 1's extra add 1:
 * time 9. The busiest address has 8 lane updates, all blocks together: atomic_chain 8; with
 * atomics=serial a launch lasts at least that, less than 9 here. With 4 blocks on 2 MPs, MP 0 runs
 * blocks 0 and 2 (16), MP 1 blocks 1 and 3 (17), the chain is 16: 17 either way. On 4 MPs the
 * slowest takes 9, but the 16 updates of one word follow one another: 16 with atomics=serial.
 * atomic_ps prices an update: at b = 32, k = 4, w = 32 and dram_bytes_per_us = 512 an MP
 * instruction stands for 128 x 4 / 512 us = 1000 ns, so 2500 ns makes the chain of 16 last 40,
 * 1001 ns 16.016, rounded up to 17, and 250 ns 4, under the slowest MP's 9. On 2 MPs an MP's
 * share is half the bandwidth, an instruction 500 ns: 2 blocks' chain of 8 at 2500 ns lasts 40. */
static void
test_agpu_atomic_chain (void **state)
{
  static const struct { const char *spec; guint32 grid; guint64 time, chain, cas, failed; } chains[] = {
    { "agpu:k=2", 2, 9, 8, 8, 7 },
    { "agpu:k=2,atomics=serial", 2, 9, 8, 8, 7 },
    { "agpu:k=2", 4, 17, 16, 16, 15 },
    { "agpu:k=2,atomics=serial", 4, 17, 16, 16, 15 },
    { "agpu:k=4,atomics=serial", 4, 16, 16, 16, 15 },
    { "agpu:k=4", 4, 9, 16, 16, 15 },
    { "agpu:k=4,atomics=serial,atomic_ps=2500000,dram_bytes_per_us=512", 4, 40, 16, 16, 15 },
    { "agpu:k=4,atomics=serial,atomic_ps=1001000,dram_bytes_per_us=512", 4, 17, 16, 16, 15 },
    { "agpu:k=4,atomics=serial,atomic_ps=250000,dram_bytes_per_us=512", 4, 9, 16, 16, 15 },
    { "agpu:k=2,atomics=serial,atomic_ps=2500000,dram_bytes_per_us=512", 2, 40, 8, 8, 7 },
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (chains); r++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
      g_autoptr (MdlSimt) gpu = NULL;
      g_autofree MdlReport **reports = NULL;
      MdlSimtLaunch shape = { .grid_x = chains[r].grid, .block_x = 4 };
      ChainArgs a;
      MdlSink sink;
      guint nr;
      assert_true (mdl_pipeline_add_engine_spec (p, chains[r].spec, &error));
      sink = mdl_pipeline_sink (p);
      gpu = mdl_simt_new (&sink, 32);
      assert_true ((a.lock = mdl_simt_alloc (gpu, 4, &error)) != 0);
      assert_true ((a.count = mdl_simt_alloc (gpu, 4, &error)) != 0);
      assert_true ((a.other = mdl_simt_alloc (gpu, 4, &error)) != 0);
      assert_true (mdl_simt_launch (gpu, &shape, chain_kernel, &a, &error));
      assert_int_equal (*(guint32 *) mdl_simt_host (gpu, a.count), 4 * chains[r].grid);
      reports = mdl_pipeline_reports (p, &nr);
      assert_int_equal (nr, 1);
      if (test_report_count (reports[0], "time") != chains[r].time)
        fail_msg ("%s grid %u: time %" G_GUINT64_FORMAT, chains[r].spec, chains[r].grid,
                  test_report_count (reports[0], "time"));
      assert_int_equal (test_report_count (reports[0], "atomic_chain"), chains[r].chain);
      assert_int_equal (test_report_count (reports[0], "cas_lanes"), chains[r].cas);
      assert_int_equal (test_report_count (reports[0], "cas_failed_lanes"), chains[r].failed);
      mdl_report_free (reports[0]);
    }
}

/* Ensure atomic_ps is refused where it would price nothing (atomics=lanes charges no chain) or
 * could not be read in MP instructions (no dram_bytes_per_us). */
static void
test_agpu_atomic_ps_errors (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (mdl_engine_new ("agpu:atomic_ps=100,dram_bytes_per_us=512", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "only atomics=serial charges");
  error = NULL;
  assert_null (mdl_engine_new ("agpu:atomics=serial,atomic_ps=100", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "atomic_ps=100 needs dram_bytes_per_us > 0");
}

/* Ensure the H100 preset's atomic_ps (757 ps, data/machines.ini) prices a chain with
 * atomics=serial and is ignored, not refused, with atomics=lanes. One launch of 132 blocks, each
 * one warp's 32-lane atomic add on word 0: every MP costs 32 (32 lanes on one word), the chain is
 * 132 x 32 = 4224 lane updates. An MP instruction of the preset is 10^6 x 132 x 128 / 3,350,000
 * = 5043.6 ps, so the chain lasts 4224 x 757 / 5043.6 = 633.98, rounded up to 634; at one MP
 * instruction an update (atomic_ps=0 given) 4224. Each adds the launch's 2699 (see
 * test_agpu_launch_cost). */
static void
test_agpu_atomic_ps_preset (void **state)
{
  static const struct { const char *spec; guint64 time; } presets[] = {
    { "agpu:machine=h100", 32 + 2699 },
    { "agpu:machine=h100,atomics=serial", 634 + 2699 },
    { "agpu:machine=h100,atomics=serial,atomic_ps=0", 4224 + 2699 },
  };
  Ev ev[132];
  (void) state;
  for (guint b = 0; b < G_N_ELEMENTS (ev); b++)
    ev[b] = (Ev) { 0, b, 0, MDL_WARP_ATOMIC, G, 4, 0, 0, ALL };
  for (gsize r = 0; r < G_N_ELEMENTS (presets); r++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MdlEngine) e = mdl_engine_new (presets[r].spec, &error);
      if (e == NULL)
        fail_msg ("%s: %s", presets[r].spec, error->message);
      feed (e, ev, G_N_ELEMENTS (ev), 0);
      assert_int_equal (test_engine_count (e, "atomic_chain"), 4224);
      if (test_engine_count (e, "time") != presets[r].time)
        fail_msg ("%s: time %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, presets[r].spec,
                  test_engine_count (e, "time"), presets[r].time);
    }
}

/* Ensure agpu, kmodel and msimd count the same chain and CAS lanes: gpu/atomic with every warp's
 * 32 lanes CASing (from 0) 8 words, 4 lanes a word, the same 8 words for all 32 warps of n = 1024:
 * 1024 / 8 = 128 updates of each word, and only the first lane of each word succeeds (8 of 1024). */
static void
test_atomic_chain_in_every_model (void **state)
{
  static const char *const engines[] = { "agpu", "kmodel", "msimd" };
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (engines); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo ("gpu/atomic:op=cas,k=4,warps=together", 1024, 1,
                                               engines[i], NULL);
      assert_int_equal (test_report_count (r, "atomic_chain"), 128);
      assert_int_equal (test_report_count (r, "cas_lanes"), 1024);
      assert_int_equal (test_report_count (r, "cas_failed_lanes"), 1016);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_agpu_instruction_rows),
    cmocka_unit_test (test_agpu_transposed_load),
    cmocka_unit_test (test_agpu_launch_time),
    cmocka_unit_test (test_agpu_launch_cost),
    cmocka_unit_test (test_agpu_divergence_counts_both_paths),
    cmocka_unit_test (test_agpu_tree_chunk_io),
    cmocka_unit_test (test_agpu_multiplicity_v9),
    cmocka_unit_test (test_agpu_volatile),
    cmocka_unit_test (test_agpu_word_sets_match_reference),
    cmocka_unit_test (test_agpu_params),
    cmocka_unit_test (test_agpu_reductions),
    cmocka_unit_test (test_agpu_pipeline_order),
    cmocka_unit_test (test_agpu_atomic_chain),
    cmocka_unit_test (test_agpu_atomic_ps_errors),
    cmocka_unit_test (test_agpu_atomic_ps_preset),
    cmocka_unit_test (test_atomic_chain_in_every_model),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
