/* Tests of the warpio engine (src/models/warpio.c) and of the warp-centric I/O lower bounds
 * (src/models/warpio-bound.c). Engine cases are warp streams built by hand, costed in the comment
 * above each row by the rules at the head of warpio.c; the bounds are checked against a slow exact
 * integer evaluation of the thesis's counting inequalities (spec vat-thesis-jurkiewicz.md §5.9)
 * and by the properties the thesis's derivation implies. */
#include "helpers.h"

#include <math.h>

/* One warp instruction: lane l of @active touches byte base + l * stride. */
typedef struct {
  guint32 block;
  guint16 warp;
  guint8 op, space, flags;
  guint16 width;
  guint64 base, stride;
  guint64 active;
} Ev;

#define ALL 0xffffffffull
#define GLD(block, warp, base, stride) { block, warp, MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 0, 4, base, \
                                         stride, ALL }
#define GST(block, warp, base, stride) { block, warp, MDL_WARP_STORE, MDL_SPACE_GLOBAL, 0, 4, \
                                         base, stride, ALL }
#define SYNC { 0, 0, 0xff, 0, 0, 0, 0, 0, 0 }   /* a global sync marker, not an instruction */

/* Feeds @n events to @e, one batch each, after a launch marker of @block_threads threads in
 * 32-lane warps. */
static void
feed (MdlEngine *e, const Ev *ev, guint n, guint32 block_threads)
{
  GError *error = NULL;
  MdlMarker launch = { .kind = MDL_MARK_LAUNCH, .block_threads = block_threads, .warp_width = 32 };
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  if (!mdl_engine_marker (e, &launch, &error))
    fail_msg ("launch marker: %s", error->message);
  for (guint i = 0; i < n; i++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES];
      guint na = 0;
      gboolean mem = ev[i].op <= MDL_WARP_ATOMIC;
      MdlWarpEvent w = { .active = ev[i].active, .block = ev[i].block, .warp = ev[i].warp,
                         .op = ev[i].op, .space = mem ? ev[i].space : 0,
                         .width = mem ? ev[i].width : 0, .flags = ev[i].flags };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
      if (ev[i].op == 0xff)
        {
          if (!mdl_engine_marker (e, &sync, &error))
            fail_msg ("sync marker: %s", error->message);
          continue;
        }
      if (mem)
        for (guint l = 0; l < 64; l++)
          if (ev[i].active >> l & 1)
            addrs[na++] = ev[i].base + l * ev[i].stride;
      b.n_lane_addrs = na;
      if (!mdl_engine_consume (e, &b, &error))
        fail_msg ("event %u: %s", i, error->message);
    }
}

/* Exchanges of one instruction under @spec. */
static guint64
exchanges_one (const char *spec, Ev ev)
{
  g_autoptr (MdlEngine) e = test_engine_new (spec);
  feed (e, &ev, 1, 32);
  return test_engine_count (e, "exchanges");
}

/* Ensure one instruction costs the distinct S-element blocks its lanes' bytes touch. */
static void
test_warpio_instruction_blocks (void **state)
{
  const struct {
    const char *spec;
    Ev ev;
    guint64 exchanges;
  } rows[] = {
    /* 32 lanes x 4 bytes from 0: bytes 0..127, one block of 32 x 4 bytes */
    { "warpio", GLD (0, 0, 0, 4), 1 },
    /* from byte 4: bytes 4..131 straddle blocks 0 and 1 */
    { "warpio", GLD (0, 0, 4, 4), 2 },
    /* every other element: bytes 0..251, blocks 0 and 1 */
    { "warpio", GLD (0, 0, 0, 8), 2 },
    /* one block apart: 32 blocks */
    { "warpio", GLD (0, 0, 0, 128), 32 },
    /* all lanes on one element: one block (a broadcast read) */
    { "warpio", GLD (0, 0, 1000, 0), 1 },
    /* S=8 of 4 bytes: 32-byte blocks, 128 bytes are 4 of them */
    { "warpio:S=8", GST (0, 0, 0, 4), 4 },
    /* elem=8, S=32: 256-byte blocks, 32 lanes x 8 bytes apart from 0 is one */
    { "warpio:elem=8", GLD (0, 0, 0, 8), 1 },
    /* one lane of 8 bytes at byte 124 with S=32, elem=4: bytes 124..131, blocks 0 and 1 */
    { "warpio", { 0, 0, MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 0, 8, 124, 0, 1 }, 2 },
    /* shared and local accesses, ALU and the machine's own instructions are free */
    { "warpio", { 0, 0, MDL_WARP_LOAD, MDL_SPACE_SHARED, 0, 4, 0, 128, ALL }, 0 },
    { "warpio", { 0, 0, MDL_WARP_STORE, MDL_SPACE_LOCAL, 0, 4, 0, 128, ALL }, 0 },
    { "warpio", { 0, 0, MDL_WARP_ALU, 0, 0, 0, 0, 0, ALL }, 0 },
    { "warpio", { 0, 0, MDL_WARP_LOAD, MDL_SPACE_GLOBAL, MDL_WARP_MACHINE, 4, 0, 128, ALL }, 0 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 got = exchanges_one (rows[i].spec, rows[i].ev);
      if (got != rows[i].exchanges)
        fail_msg ("row %u (%s): %" G_GUINT64_FORMAT " exchanges, expected %" G_GUINT64_FORMAT, i,
                  rows[i].spec, got, rows[i].exchanges);
    }
}

/* Ensure turns are the busiest processor's exchanges per epoch, summed over epochs, and that
 * warps map to processors by (block x warps per block + warp) mod P. */
static void
test_warpio_turns (void **state)
{
  /* Blocks of 64 threads: warp 1 of block 0 is processor 1, warp 0 of block 1 processor 2.
   * Epoch 1: processor 0 makes 1 + 2 = 3 exchanges, processor 1 makes 32, processor 2 makes 2.
   * Epoch 2: processor 2 makes 1. */
  const Ev ev[] = {
    GLD (0, 0, 0, 4), GST (0, 0, 4, 4),
    GLD (0, 1, 0, 128),
    GLD (1, 0, 0, 8),
    SYNC,
    GLD (1, 0, 0, 4),
  };
  const struct {
    const char *spec;
    guint64 turns, processors;
  } rows[] = {
    /* each warp its own processor: max(3, 32, 2) + 1 */
    { "warpio", 33, 3 },
    /* P=2: processor 2 is 0, 3 + 2 = 5 in epoch 1; epoch 2: 1 */
    { "warpio:P=2", 33, 2 },
    /* P=1: everything on one processor, 37 then 1 */
    { "warpio:P=1", 38, 1 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlEngine) e = test_engine_new (rows[i].spec);
      feed (e, ev, G_N_ELEMENTS (ev), 64);
      assert_int_equal (test_engine_count (e, "turns"), rows[i].turns);
      assert_int_equal (test_engine_count (e, "exchanges"), 38);
      assert_int_equal (test_engine_count (e, "epochs"), 2);
      assert_int_equal (test_engine_count (e, "processors"), rows[i].processors);
      mdl_engine_reset (e);
      assert_int_equal (test_engine_count (e, "turns"), 0);
    }
}

/* Ensure the turns of a real SIMT kernel: gpu/global-stride on n = 1024 runs 32 warps, each one
 * load of 32 lanes (lane i at element first + i x stride of width bytes) and one store of the
 * values to out[i], coalesced; the arrays start on 128-byte boundaries, one block of S = 32 4-byte
 * elements. Every warp is alike, so turns = its exchanges and exchanges = 32 x turns. */
static void
test_warpio_global_stride (void **state)
{
  const struct {
    const char *algo;
    guint64 turns;
  } rows[] = {
    /* load 1 block, store 1 */
    { "gpu/global-stride", 2 },
    /* elements 0..62: 2 blocks, store 1 */
    { "gpu/global-stride:stride=2", 3 },
    /* a block per lane: 32, store 1 */
    { "gpu/global-stride:stride=32", 33 },
    /* elements 1..32 straddle 2 blocks, store 1 */
    { "gpu/global-stride:misalign=1", 3 },
    /* 16-byte lanes: 512 bytes = 4 blocks loaded, 4 stored */
    { "gpu/global-stride:width=16", 8 },
    /* the strided side is the store: load 1, store 32 */
    { "gpu/global-stride:op=st,stride=32", 33 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, 1024, 1, "warpio", NULL);
      if (test_report_count (r, "turns") != rows[i].turns
          || test_report_count (r, "exchanges") != 32 * rows[i].turns
          || test_report_count (r, "processors") != 32)
        fail_msg ("%s: %" G_GUINT64_FORMAT " turns, %" G_GUINT64_FORMAT " exchanges, expected %"
                  G_GUINT64_FORMAT " and 32 x that", rows[i].algo, test_report_count (r, "turns"),
                  test_report_count (r, "exchanges"), rows[i].turns);
    }
}

/* The least t with base^(tP) >= outputs, by multiplying: the slow reference. */
static guint64
least_turns_ref (unsigned __int128 outputs, unsigned __int128 base, guint64 P)
{
  unsigned __int128 v = 1;
  guint64 k = 0;
  for (; v < outputs; k++)
    v *= base;
  return (k + P - 1) / P;
}

static unsigned __int128
factorial (guint64 n)
{
  unsigned __int128 f = 1;
  for (guint64 i = 2; i <= n; i++)
    f *= i;
  return f;
}

static unsigned __int128
binomial (guint64 m, guint64 k)
{
  unsigned __int128 b = 1;
  for (guint64 i = 1; i <= k; i++)
    b = b * (m - k + i) / i;   /* exact: b x (m-k+i) is i x C(m-k+i, i) */
  return b;
}

static MdlWarpioBound
bound (guint64 n, guint64 P, guint64 S, guint64 c, guint64 l)
{
  g_autoptr (GError) error = NULL;
  MdlWarpioBound b;
  if (!mdl_warpio_bound (n, P, S, c, l, &b, &error))
    fail_msg ("n=%" G_GUINT64_FORMAT ": %s", n, error->message);
  return b;
}

/* Ensure the worked example: n = 8, S = 2, c = 2, P = 1. The outputs are 8!/(2!)^4 = 2520.
 * Permuting: one turn reaches (2n/S) C(4, 2) = 8 x 6 = 48 results; 48^2 = 2304 < 2520 <= 48^3,
 * so t = 3. Sorting: 6^4 = 1296 < 2520 <= 6^5, so t = 5. With P = 2 they become 2 and 3. */
static void
test_warpio_bound_worked_example (void **state)
{
  MdlWarpioBound b = bound (8, 1, 2, 2, 1), b2 = bound (8, 2, 2, 2, 1);
  (void) state;
  assert_true (b.permute == 3 && b.sort == 5);
  assert_true (b2.permute == 2 && b2.sort == 3);
  /* the closed forms: 8 ln(2/e) / ln(8 (2e)^2) and 8 ln(2/e) / (2 ln(2e)), both negative here
   * (n < eS makes the relaxation vacuous) */
  assert_true (fabs (b.permute_relaxed - 8 * (log (4.0) - 1) / (log (8.0) + 2 * (log (2.0) + 1)))
               < 1e-12);
  assert_true (fabs (b.sort_relaxed - 8 * (log (4.0) - 1) / (2 * (log (2.0) + 1))) < 1e-12);
}

/* Ensure the lgamma evaluation gives the exact integer answer on every small case. */
static void
test_warpio_bound_matches_reference (void **state)
{
  (void) state;
  for (guint64 n = 1; n <= 24; n++)
    for (guint64 S = 1; S <= n; S++)
      for (guint64 c = 2; c <= 4; c++)
        for (guint64 P = 1; P <= 3; P++)
          {
            unsigned __int128 outputs, s = factorial (S);
            MdlWarpioBound b;
            if (n % S != 0 || (c * S > 40))
              continue;
            outputs = factorial (n);
            for (guint64 i = 0; i < n / S; i++)
              outputs /= s;
            b = bound (n, P, S, c, 1);
            if (b.permute != (double) least_turns_ref (outputs, 2 * n / S * binomial (c * S, S), P)
                || b.sort != (double) least_turns_ref (outputs, binomial (c * S, S), P))
              fail_msg ("n=%" G_GUINT64_FORMAT " S=%" G_GUINT64_FORMAT " c=%" G_GUINT64_FORMAT
                        " P=%" G_GUINT64_FORMAT ": permute %g sort %g, reference %" G_GUINT64_FORMAT
                        " %" G_GUINT64_FORMAT, n, S, c, P, b.permute, b.sort,
                        least_turns_ref (outputs, 2 * n / S * binomial (c * S, S), P),
                        least_turns_ref (outputs, binomial (c * S, S), P));
          }
}

/* Ensure the bounds grow with n, shrink with P and c, see l as a factor of c, sorting needs at
 * least what permuting does, and each relaxed form lies at or below its exact bound. */
static void
test_warpio_bound_properties (void **state)
{
  const guint64 Ss[] = { 1, 4, 32 }, cs[] = { 2, 8, 64 }, Ps[] = { 1, 7, 1024 };
  (void) state;
  for (guint si = 0; si < G_N_ELEMENTS (Ss); si++)
    for (guint ci = 0; ci < G_N_ELEMENTS (cs); ci++)
      for (guint pi = 0; pi < G_N_ELEMENTS (Ps); pi++)
        {
          guint64 S = Ss[si], c = cs[ci], P = Ps[pi];
          MdlWarpioBound prev = bound (S, P, S, c, 1);
          for (guint64 n = 2 * S; n <= ((guint64) 1 << 40); n += n / 3 + S)
            {
              MdlWarpioBound b = bound (n, P, S, c, 1), more_P = bound (n, 2 * P, S, c, 1),
                             more_c = bound (n, P, S, 2 * c, 1), as_l = bound (n, P, S, c / 2, 2);
              if (b.permute < prev.permute || b.sort < prev.sort
                  || more_P.permute > b.permute || more_P.sort > b.sort
                  || more_c.permute > b.permute || more_c.sort > b.sort
                  || b.sort < b.permute
                  || b.permute_relaxed > b.permute || b.sort_relaxed > b.sort
                  || as_l.permute != b.permute || as_l.sort != b.sort)
                fail_msg ("n=%" G_GUINT64_FORMAT " P=%" G_GUINT64_FORMAT " S=%" G_GUINT64_FORMAT
                          " c=%" G_GUINT64_FORMAT ": permute %g (relaxed %g), sort %g (relaxed %g)",
                          n, P, S, c, b.permute, b.permute_relaxed, b.sort, b.sort_relaxed);
              prev = b;
            }
        }
}

/* Ensure bad arguments name themselves, in the library and in an engine spec. */
static void
test_warpio_bound_errors (void **state)
{
  g_autoptr (GError) error = NULL;
  MdlWarpioBound b;
  (void) state;
  assert_false (mdl_warpio_bound (0, 1, 1, 2, 1, &b, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "n=0");
  assert_false (mdl_warpio_bound (8, 0, 1, 2, 1, &b, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "P=0");
  assert_false (mdl_warpio_bound (8, 1, 1, 1, 1, &b, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "c x l");
  assert_null (mdl_engine_new ("warpio:c=1", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "c x l");
}

/* Ensure the engine reports the library's bounds for its n, with P the processors it saw. */
static void
test_warpio_report_bounds (void **state)
{
  const Ev ev[] = { GLD (0, 0, 0, 4), GLD (0, 1, 128, 4), GLD (1, 0, 256, 4) };
  g_autoptr (MdlEngine) none = test_engine_new ("warpio");
  g_autoptr (MdlEngine) seen = test_engine_new ("warpio:n=4096,S=32,c=4");
  g_autoptr (MdlEngine) set = test_engine_new ("warpio:n=4096,S=32,c=4,P=16");
  MdlWarpioBound b3 = bound (4096, 3, 32, 4, 1), b16 = bound (4096, 16, 32, 4, 1);
  (void) state;
  assert_true (isnan (test_engine_real (none, "bound_sort")));
  feed (seen, ev, G_N_ELEMENTS (ev), 64);
  assert_true (test_engine_real (seen, "bound_permute") == b3.permute);
  assert_true (test_engine_real (seen, "bound_sort") == b3.sort);
  assert_true (test_engine_real (set, "bound_sort") == b16.sort);
  assert_true (test_engine_real (set, "bound_permute_relaxed") == b16.permute_relaxed);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_warpio_instruction_blocks),
    cmocka_unit_test (test_warpio_turns),
    cmocka_unit_test (test_warpio_global_stride),
    cmocka_unit_test (test_warpio_bound_worked_example),
    cmocka_unit_test (test_warpio_bound_matches_reference),
    cmocka_unit_test (test_warpio_bound_properties),
    cmocka_unit_test (test_warpio_bound_errors),
    cmocka_unit_test (test_warpio_report_bounds),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
