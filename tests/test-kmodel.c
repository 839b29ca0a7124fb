/* Tests of the kmodel engine (src/models/kmodel.c): warp streams built by hand, costed by the
 * rules at the head of kmodel.c. Expected values are the validation cases V1 and V2 of
 * ../shared/spec/kmodel-capannini.md, or are worked out in the comment above them. Addresses are
 * in 4-byte words. */
#include "helpers.h"
#include "ref/bank-queue.h"

#include <math.h>
#include <string.h>

typedef struct {
  guint8 op, space;
  guint64 base, stride;   /* words */
  guint64 active;
} Ev;

static void
feed (MdlEngine *e, const Ev *ev, guint n)
{
  GError *error = NULL;
  for (guint i = 0; i < n; i++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES];
      guint na = 0;
      gboolean mem = ev[i].op <= MDL_WARP_ATOMIC;
      MdlWarpEvent w = { .active = ev[i].active, .op = ev[i].op, .space = mem ? ev[i].space : 0,
                         .width = mem ? 4 : 0 };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
      if (mem)
        for (guint l = 0; l < 64; l++)
          if (ev[i].active >> l & 1)
            addrs[na++] = 4 * (ev[i].base + l * ev[i].stride);
      b.n_lane_addrs = na;
      if (!mdl_engine_consume (e, &b, &error))
        fail_msg ("event %u: %s", i, error->message);
    }
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

static double
real (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  return mdl_report_lookup (r, name)->real;
}

#define HALF 0xffffull
#define SH MDL_SPACE_SHARED
#define GL MDL_SPACE_GLOBAL

/* Ensure the stride law of V1: k = 16 requests a0 + i*s have latency gcd(s, k); identical
 * addresses queue k deep unless broadcast; segments: s = 1 aligned 1, misaligned 2, s >= k k. */
static void
test_kmodel_stride_law (void **state)
{
  static const struct { const char *spec; Ev ev; const char *counter; guint64 expect; } rows[] = {
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 1, HALF }, "T", 1 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 2, HALF }, "T", 2 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 3, HALF }, "T", 1 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 4, HALF }, "T", 4 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 8, HALF }, "T", 8 },
    { "kmodel:k=16", { MDL_WARP_STORE, SH, 0, 16, HALF }, "T", 16 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 5, 17, HALF }, "T", 1 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 7, 0, HALF }, "T", 16 },
    { "kmodel:k=16,broadcast=1", { MDL_WARP_LOAD, SH, 7, 0, HALF }, "T", 1 },
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 32, 1, HALF }, "G", 1 },
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 33, 1, HALF }, "G", 2 },
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 0, 16, HALF }, "G", 16 },
    { "kmodel:k=16", { MDL_WARP_STORE, GL, 0, 40, HALF }, "G", 16 },
    /* 1 < s < k, aligned: s segments. */
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 0, 4, HALF }, "G", 4 },
    /* A 32-lane warp at k = 16 is two half-warp instructions: T 2, W 32, l 2. */
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 1, 0xffffffffull }, "T", 2 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 1, 0xffffffffull }, "W", 32 },
    { "kmodel:k=16", { MDL_WARP_LOAD, SH, 0, 1, 0xffffffffull }, "instructions", 2 },
    /* An external access is in G only: T, W and l stay 0. */
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 0, 1, HALF }, "T", 0 },
    { "kmodel:k=16", { MDL_WARP_LOAD, GL, 0, 1, HALF }, "W", 0 },
    /* Arithmetic: latency 1, length = active units (5 of them). */
    { "kmodel:k=16", { MDL_WARP_ALU, 0, 0, 0, 0x1f }, "T", 1 },
    { "kmodel:k=16", { MDL_WARP_ALU, 0, 0, 0, 0x1f }, "W", 5 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (rows[i].spec, NULL);
      guint64 got;
      feed (e, &rows[i].ev, 1);
      got = count (e, rows[i].counter);
      if (got != rows[i].expect)
        fail_msg ("row %u (%s, stride %" G_GUINT64_FORMAT "): %s is %" G_GUINT64_FORMAT
                  ", expected %" G_GUINT64_FORMAT, i, rows[i].spec, rows[i].ev.stride,
                  rows[i].counter, got, rows[i].expect);
    }
}

/* The toy reduction (Algorithm 1, k = 4, n = 8): x is read from external memory (8 words: two
 * aligned 4-word segments), reduced in internal memory, and x[7] written back (1 segment): G = 3.
 * Step d, operation j on unit j (lane j): reads x[2^(d+1) j + 2^(d+1) - 1] and x[2^(d+1) j + 2^d - 1],
 * adds, stores the first. Lengths 4, 2, 1. Bank = word mod 4:
 *  d=0: reads 1,3,5,7 and 0,2,4,6: banks 1,3,1,3 + 0,2,0,2: queue 2; store 1,3,5,7: 2;
 *  d=1: reads 3,7 and 1,5: banks 3,3,1,1: 2; store 3,7: 2;
 *  d=2: reads 7 and 3: banks 3,3: 2; store 7: 1.
 * Fused reads: T = (2+1+2) + (2+1+2) + (2+1+1) = 14, W = 3 x (4+2+1) = 21, l = 9,
 * efficiency = 21 / (4 x 14) = 0.375 (V2).
 * Separate reads: d=0: 2 + 2 + 1 + 2 = 7 (banks 1,3,1,3 then 0,2,0,2); d=1: 2 + 2 + 1 + 2 = 7
 * (3,7 -> banks 3,3; 1,5 -> 1,1); d=2: 1 + 1 + 1 + 1 = 4: T = 18, W = 4 x 7 = 28, l = 12
 * (V2 note). */
static const Ev toy[] = {
  { MDL_WARP_LOAD, GL, 0, 1, 0xff },
  { MDL_WARP_LOAD, SH, 1, 2, 0xf }, { MDL_WARP_LOAD, SH, 0, 2, 0xf },
  { MDL_WARP_ALU, 0, 0, 0, 0xf }, { MDL_WARP_STORE, SH, 1, 2, 0xf },
  { MDL_WARP_LOAD, SH, 3, 4, 0x3 }, { MDL_WARP_LOAD, SH, 1, 4, 0x3 },
  { MDL_WARP_ALU, 0, 0, 0, 0x3 }, { MDL_WARP_STORE, SH, 3, 4, 0x3 },
  { MDL_WARP_LOAD, SH, 7, 8, 0x1 }, { MDL_WARP_LOAD, SH, 3, 8, 0x1 },
  { MDL_WARP_ALU, 0, 0, 0, 0x1 }, { MDL_WARP_STORE, SH, 7, 8, 0x1 },
  { MDL_WARP_STORE, GL, 7, 0, 0x1 },
};

/* Ensure the toy reduction gives T = 14, W = 21, G = 3 with fused reads. */
static void
test_kmodel_toy_reduction_fused (void **state)
{
  g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=4", NULL);
  (void) state;
  feed (e, toy, G_N_ELEMENTS (toy));
  assert_int_equal (count (e, "T"), 14);
  assert_int_equal (count (e, "W"), 21);
  assert_int_equal (count (e, "G"), 3);
  assert_int_equal (count (e, "instructions"), 9);
  assert_true (fabs (real (e, "efficiency") - 0.375) < 1e-12);
}

/* Ensure separate reads give T = 18, W = 28, l = 12 (G unchanged). */
static void
test_kmodel_toy_reduction_separate (void **state)
{
  g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=4,fuse=0", NULL);
  (void) state;
  feed (e, toy, G_N_ELEMENTS (toy));
  assert_int_equal (count (e, "T"), 18);
  assert_int_equal (count (e, "W"), 28);
  assert_int_equal (count (e, "G"), 3);
  assert_int_equal (count (e, "instructions"), 12);
}

/* Ensure T and W split by class and the classes add up: the toy reduction with fused reads has
 * loads 2 + 2 + 2 = 6 (lengths 4 + 2 + 1), stores 2 + 2 + 1 = 5, adds 3 (length 7 each class); a
 * branch of 3 lanes adds T_control 1, W_control 3; a local access of 2 lanes is register-like:
 * T_arith 1, W_arith 2. */
static void
test_kmodel_class_split (void **state)
{
  static const Ev extra[] = {
    { MDL_WARP_BRANCH, 0, 0, 0, 0x7 },
    { MDL_WARP_LOAD, MDL_SPACE_LOCAL, 0, 1, 0x3 },
  };
  static const struct { const char *counter; guint64 expect; } rows[] = {
    { "T_shared_loads", 6 }, { "T_shared_stores", 5 }, { "T_arith", 3 + 1 }, { "T_control", 1 },
    { "W_shared_loads", 7 }, { "W_shared_stores", 7 }, { "W_arith", 7 + 2 }, { "W_control", 3 },
    { "T", 14 + 2 }, { "W", 21 + 5 },
  };
  g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=4", NULL);
  (void) state;
  feed (e, toy, G_N_ELEMENTS (toy));
  feed (e, extra, G_N_ELEMENTS (extra));
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    if (count (e, rows[i].counter) != rows[i].expect)
      fail_msg ("%s is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].counter,
                count (e, rows[i].counter), rows[i].expect);
}

/* Ensure a lone shared load waiting to fuse is counted when the report is taken, and that taking
 * the report does not change later counts: one load of 16 lanes stride 2 at k = 16: T 2, W 16;
 * a second, different-mask load then issues both separately: T 2 + 1, W 16 + 8. */
static void
test_kmodel_pending_load (void **state)
{
  static const Ev a = { MDL_WARP_LOAD, SH, 0, 2, HALF }, b = { MDL_WARP_LOAD, SH, 0, 1, 0xff };
  g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=16", NULL);
  (void) state;
  feed (e, &a, 1);
  assert_int_equal (count (e, "T"), 2);
  assert_int_equal (count (e, "W"), 16);
  feed (e, &b, 1);
  assert_int_equal (count (e, "T"), 3);
  assert_int_equal (count (e, "W"), 24);
  assert_int_equal (count (e, "instructions"), 2);
}

/* Ensure a stream element that uses more than sigma words is an error naming sigma. */
static void
test_kmodel_sigma (void **state)
{
  GError *error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=16,sigma=64,fuse=0", NULL);
  g_autoptr (MdlEngine) f = mdl_engine_new ("kmodel:sigma=64", NULL);
  guint64 addr = 400;
  MdlWarpEvent w = { .active = 1, .op = MDL_WARP_LOAD, .space = SH, .width = 4 };
  MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = &addr, .n_lane_addrs = 1 };
  MdlMarker m = { .kind = MDL_MARK_LAUNCH, .launch = 2, .shared_bytes = 4 * 65, .warp_width = 32 };
  (void) state;
  assert_false (mdl_engine_consume (e, &b, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "word 100, beyond sigma=64");
  error = NULL;
  assert_false (mdl_engine_marker (f, &m, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "launch 2 gives each stream element 65 words of "
                    "internal memory, more than sigma=64");
}

/* Ensure the sigma check's one-pass common case agrees with the word lists: random shared
 * accesses (widths 1 to 16, any alignment, some lanes past sigma, some wrapping past the top of
 * the address space, which touch no word) fail exactly when a listed word reaches sigma, naming
 * the first one in group and lane order, as the lists do. */
static void
test_kmodel_sigma_random (void **state)
{
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  guint32 seed = test_seed (6464);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 400; round++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new ("kmodel:k=16,sigma=64,fuse=0", NULL);
      GError *error = NULL;
      guint64 addrs[32];
      guint n = 0;
      gint64 first_beyond = -1;
      MdlWarpEvent w = { .active = g_rand_int (rand) | 1u, .op = MDL_WARP_LOAD, .space = SH,
                         .width = (guint16) widths[g_rand_int_range (rand, 0, 5)] };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
      /* Lane order is group order here: 32 lanes, groups of 16. */
      for (guint l = 0; l < 32; l++)
        if (w.active >> l & 1)
          {
            guint64 a = round % 4 == 0 && g_rand_int_range (rand, 0, 8) == 0
                        ? G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 4)
                        : (guint64) g_rand_int_range (rand, 0, round % 2 ? 256 : 262);
            guint64 last = a + w.width - 1;
            addrs[n++] = a;
            if (last >= a && first_beyond < 0)
              for (guint64 word = a / 4; word <= last / 4; word++)
                if (word >= 64)
                  {
                    first_beyond = (gint64) word;
                    break;
                  }
          }
      b.n_lane_addrs = n;
      if (first_beyond < 0)
        {
          if (!mdl_engine_consume (e, &b, &error))
            fail_msg ("seed %u round %u: %s", seed, round, error->message);
        }
      else
        {
          g_autofree char *want = g_strdup_printf ("word %" G_GINT64_FORMAT ", beyond sigma=64",
                                                   first_beyond);
          assert_false (mdl_engine_consume (e, &b, &error));
          if (strstr (error->message, want) == NULL)
            fail_msg ("seed %u round %u: %s, not %s", seed, round, error->message, want);
          g_error_free (error);
        }
    }
}

/* The naive longest bank queue of the words that lanes @group of @loads (each lanes of @width
 * bytes from @addrs[load][lane]) touch: per bank (word mod @k) the requests, or with @broadcast
 * the distinct words. */
static guint64
naive_queue (guint64 addrs[2][32], guint n_loads, guint64 group, guint width, guint k,
             gboolean broadcast)
{
  guint64 words[2 * 32 * 2];
  guint n = 0;
  for (guint i = 0; i < n_loads; i++)
    for (guint l = 0; l < 32; l++)
      if (group >> l & 1)
        for (guint64 w = addrs[i][l] / 4; w <= (addrs[i][l] + width - 1) / 4; w++)
          words[n++] = w;
  return ref_bank_queue (words, n, k, broadcast);
}

/* Ensure fused shared-load pairs and lone shared loads cost the naive bank queue: random masks,
 * lanes of 4 and 8 bytes at random 4-byte-aligned addresses or one word apart (the strided
 * form), k = 4 to 32, broadcast off and on; a pair's masks differ now and then, so that each
 * load goes alone. */
static void
test_kmodel_fused_queues_random (void **state)
{
  static const guint ks[] = { 4, 8, 16, 32 };
  guint32 seed = test_seed (1616);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 800; round++)
    {
      guint k = ks[round % 4], width = round % 3 ? 4 : 8, span = MIN (k, 32u);
      gboolean broadcast = round / 4 % 2, fused = round % 5 != 0;
      g_autofree char *spec = g_strdup_printf ("kmodel:k=%u,broadcast=%d", k, broadcast);
      g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
      guint64 addrs[2][32], lanes[64], want = 0;
      MdlWarpEvent w[2];
      guint n = 0;
      GError *error = NULL;
      for (guint i = 0; i < 2; i++)
        {
          gboolean strided = width == 4 && g_rand_int_range (rand, 0, 3) == 0;
          guint64 base = 4 * (guint64) g_rand_int_range (rand, 0, 128);
          w[i] = (MdlWarpEvent) { .active = (i == 1 && fused ? w[0].active : g_rand_int (rand)) | 1u,
                                  .op = MDL_WARP_LOAD, .space = SH, .width = (guint16) width,
                                  .first_addr = n };
          if (strided)
            {
              w[i].flags = MDL_WARP_STRIDED;
              w[i].base = base;
              w[i].stride = 4;
            }
          for (guint l = 0; l < 32; l++)
            {
              addrs[i][l] = strided ? base + 4 * l : 4 * (guint64) g_rand_int_range (rand, 0, 256);
              if (!strided && (w[i].active >> l & 1))
                lanes[n++] = addrs[i][l];
            }
        }
      for (guint g = 0; g < 32; g += span)
        {
          guint64 group = (G_GUINT64_CONSTANT (1) << span) - 1;
          if (fused && (w[0].active & group << g))
            want += naive_queue (addrs, 2, w[0].active & group << g, width, k, broadcast);
          for (guint i = 0; i < 2 && !fused; i++)
            if (w[i].active & group << g)
              {
                guint64 one[2][32];
                memcpy (one[0], addrs[i], sizeof one[0]);
                want += naive_queue (one, 1, w[i].active & group << g, width, k, broadcast);
              }
        }
      MdlEventBatch b = { .warp = w, .n_warp = 2, .lane_addrs = lanes, .n_lane_addrs = n };
      if (!mdl_engine_consume (e, &b, &error))
        fail_msg ("seed %u round %u: %s", seed, round, error->message);
      if (count (e, "T_shared_loads") != want)
        fail_msg ("seed %u round %u (%s, width %u, %s): T_shared_loads %" G_GUINT64_FORMAT
                  ", naive %" G_GUINT64_FORMAT, seed, round, spec, width,
                  fused ? "fused" : "alone", count (e, "T_shared_loads"), want);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kmodel_stride_law),
    cmocka_unit_test (test_kmodel_toy_reduction_fused),
    cmocka_unit_test (test_kmodel_toy_reduction_separate),
    cmocka_unit_test (test_kmodel_class_split),
    cmocka_unit_test (test_kmodel_pending_load),
    cmocka_unit_test (test_kmodel_sigma),
    cmocka_unit_test (test_kmodel_sigma_random),
    cmocka_unit_test (test_kmodel_fused_queues_random),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
