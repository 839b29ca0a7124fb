/* Tests of the matrix-based algorithms (src/algos/simt/matrix.c) under the agpu engine:
 * scan/matrix (Koike & Sadakane Algorithms 7-8, cleaned) and reduce/matrix (§5.2.1). Expected
 * numbers come from the validation cases V4, V7, V8 and V9 of ../shared/spec/agpu-koike-sadakane.md
 * or are worked out by hand in the comment above them, from the kernels' instruction lists and
 * the engine's rules (src/models/agpu.c): a global access costs its distinct b-word blocks (time
 * and io), a shared access its largest number of lanes on one bank, an ALU instruction (an
 * operator application, or a memory instruction with every lane predicated off) 1. */
#include "helpers.h"
#include "algos/simt/simt-algo.h"

#include <math.h>
#include <string.h>

/* ---- running an algorithm ---- */




/* The error of running @algo_spec natively on @n elements (transfer full; fails if it succeeds). */
static GError *
run_error (const char *algo_spec, guint64 n)
{
  GError *error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo = NULL;
  guint64 sum;
  if (!mdl_spec_split (algo_spec, &name, &assigns, &error) || !(algo = mdl_algo_lookup (name, &error))
      || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error)))
    return error;
  if (algo->run_native (params, n, 1, NULL, &sum, &error))
    fail_msg ("%s n=%" G_GUINT64_FORMAT ": ran, expected an error", algo_spec, n);
  return error;
}

/* ---- scan/matrix: I/O (V8) ---- */

/* V8's I/O for n a multiple of k·α·b: local reduction n/b row reads + k writes of C; global scan
 * ⌈k/b⌉ reads + ⌈k/b⌉ writes; local scan n/b reads + n/b writes + k carry reads. */
static guint64
v8_io (guint64 n, guint64 b, guint64 k)
{
  return 3 * n / b + 2 * k + 2 * ((k + b - 1) / b);
}

/* Ensure V8's paper case is what the formula below gives: n = 2^27, b = 32, k = 16:
 * 3 x 4194304 + 32 + 2 = 12582946. The run itself takes minutes and tens of GiB under agpu (the
 * engine keeps every touched global word), so it is recorded in docs/models/agpu.md; the rows of
 * test_scan_io check the same formula by running the algorithm at smaller n. */
static void
test_scan_v8_paper_case (void **state)
{
  (void) state;
  assert_int_equal (v8_io (G_GUINT64_CONSTANT (1) << 27, 32, 16), 12582946);
}

/* Ensure scan/matrix's I/O is V8's, phase by phase, in 3 launches, and that its global memory is
 * V8's 2n + k words (input, output, C), a run-wide count that the phases do not split. Rows (n a multiple of k·α·b unless noted):
 *  n = 2^20, b = 32, k = 16, α = 16 or 8: n/b = 32768: 32784 + 2 + 65552 = 98338 (α does not
 *    change the I/O);
 *  n = 2^15, b = 16, k = 8, α = 4: n/b = 2048: 2056 + 2 + 4104 = 6162;
 *  n = 61440 = 128 x 480, b = 8, k = 20, α = 3: n/b = 7680: 7700 + (3 + 3) + 15380 = 23086 (the
 *    global scan reads rows 0, 1 and the 4-word row 2 of C, each one block);
 *  n = 3200 = 10 x 320, b = 4, k = 40, α = 2: n/b = 800: 840 + (10 + 10) + 1640 = 2500 (the
 *    global scan runs 5 matrices of 8 values, the carry moving between them);
 *  n = 1000, b = 32, k = 16, α = 16: padded with zeros to 8192: 256 + 16, 2, 512 + 16: 802. */
static void
test_scan_io (void **state)
{
  static const struct {
    const char *algo;
    guint64 n, padded;
    const char *engine;
    guint64 b, k;
  } rows[] = {
    { "scan/matrix:b=32,k=16,alpha=16", 1048576, 1048576, "agpu:b=32,k=16", 32, 16 },
    { "scan/matrix:b=32,k=16,alpha=8", 1048576, 1048576, "agpu:b=32,k=16", 32, 16 },
    { "scan/matrix:b=16,k=8,alpha=4", 32768, 32768, "agpu:b=16,k=8", 16, 8 },
    { "scan/matrix:b=8,k=20,alpha=3", 61440, 61440, "agpu:b=8,k=20", 8, 20 },
    { "scan/matrix:b=4,k=40,alpha=2", 3200, 3200, "agpu:b=4,k=40", 4, 40 },
    { "scan/matrix:b=32,k=16,alpha=16", 1000, 8192, "agpu:b=32,k=16", 32, 16 },
  };
  static const guint64 totals[] = { 98338, 98338, 6162, 23086, 2500, 802 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, rows[i].n, 7, rows[i].engine, NULL);
      guint64 n = rows[i].padded, b = rows[i].b, k = rows[i].k, kb = (k + b - 1) / b;
      guint64 got[] = { test_report_count (r, "io"), test_phase_count (r, "local-reduction", "io"),
                        test_phase_count (r, "global-scan", "io"),
                        test_phase_count (r, "local-scan", "io"),
                        test_report_count (r, "launches"), test_report_count (r, "global_words") };
      guint64 want[] = { totals[i], n / b + k, 2 * kb, 2 * n / b + k, 3, 2 * n + k };
      const MdlReport *local_scan = mdl_report_phase (r, 2);
      assert_int_equal (v8_io (n, b, k), totals[i]);
      /* A maximum and a distinct count have no per-phase share: the phases leave them out. */
      assert_string_equal (mdl_report_engine (local_scan), "local-scan");
      assert_null (mdl_report_lookup (local_scan, "shared_words"));
      assert_null (mdl_report_lookup (local_scan, "global_words"));
      for (guint j = 0; j < G_N_ELEMENTS (got); j++)
        if (got[j] != want[j])
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": value %u (io, the three phases' io, launches, "
                    "global_words) is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
                    rows[i].algo, rows[i].n, j, got[j], want[j]);
    }
}

/* ---- scan/matrix: time (V4, V8) ---- */

/* Ensure the time of one BlockPrefixScan matrix is the hand sum below, with V4's sums of
 * conflict degrees for the transposed load and store. One matrix of α rows of b = 32 (log b = 5),
 * every lane inside the segment, in kernel order:
 *   (1) α global loads (1 block each) + α shared stores m[e mod α][⌊e/α⌋]: V4's sum S(α);
 *   (2) load m[0][ε], α−1 x (load m[j][ε], add), carry add: padded rows, degree 1: 2α;
 *   (3) store row 0, log b x (load m[0][ε−d], add, store), predicated, degree 1: 1 + 3 log b;
 *   the rotated load m[0][(ε−1) mod b] (a permutation of words 0..b−1): 1;
 *   (4) α stores, α−1 loads and α−1 adds down the columns: 3α − 2;
 *   (5) α shared loads (S(α) again, the same addresses) + α global stores.
 * T(α) = 2 S(α) + 7α + 3 log b. V4: S(1) = 1, S(7) = 38, S(11) = 42, S(32) = 32:
 * T(1) = 2 + 7 + 15 = 24, T(7) = 76 + 49 + 15 = 140, T(11) = 84 + 77 + 15 = 176,
 * T(32) = 64 + 224 + 15 = 303. With n = k·α·b every block scans one matrix: local-scan time =
 * 1 (lane 0's carry load) + T(α); the global scan of k = 16 values is one matrix too, its rows
 * past C's end being loads and stores with every lane predicated off, 1 each: T(α); the local
 * reduction reads α rows per block: 2α + 1 (store x) + 4 log b (tree) + 2 (lane 0's write).
 * b = 8, α = 3 (Fig. 11), k = 2: S(3) = 9 (V4), T(3) = 18 + 21 + 9 = 48. */
static void
test_scan_matrix_time (void **state)
{
  static const struct { guint b, k, alpha; guint64 t; } rows[] = {
    { 32, 16, 1, 24 }, { 32, 16, 7, 140 }, { 32, 16, 11, 176 }, { 32, 16, 32, 303 },
    { 8, 2, 3, 48 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint b = rows[i].b, k = rows[i].k, alpha = rows[i].alpha, log_b = (guint) __builtin_ctz (b);
      g_autofree char *algo = g_strdup_printf ("scan/matrix:b=%u,k=%u,alpha=%u", b, k, alpha);
      g_autofree char *engine = g_strdup_printf ("agpu:b=%u,k=%u", b, k);
      g_autoptr (MdlReport) r = test_run_algo (algo, (guint64) k * alpha * b, 3, engine, NULL);
      guint64 lr = 2 * alpha + 1 + 4 * log_b + 2, t = rows[i].t;
      guint64 got[] = { test_phase_count (r, "local-scan", "time"), test_phase_count (r, "global-scan", "time"),
                        test_phase_count (r, "local-reduction", "time"), test_report_count (r, "time") };
      guint64 want[] = { 1 + t, t, lr, lr + t + 1 + t };
      for (guint j = 0; j < G_N_ELEMENTS (got); j++)
        if (got[j] != want[j])
          fail_msg ("%s: value %u (local-scan, global-scan, local-reduction, total time) is %"
                    G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, algo, j, got[j], want[j]);
    }
}

/* Ensure V8's last test: the model's time factor min{⌈b/α⌉, α} + log b/α is smallest at α = b,
 * and so is the engine's time per element of the local scan (one matrix per block, n = k·α·b),
 * for b = 8 and b = 32 over every α in 1..b. */
static void
test_scan_time_factor_smallest_at_b (void **state)
{
  (void) state;
  for (guint b = 8; b <= 32; b *= 4)
    {
      guint k = 4, best_model = 0, best_engine = 0;
      double model_min = INFINITY, engine_min = INFINITY;
      g_autofree char *engine = g_strdup_printf ("agpu:b=%u,k=%u", b, k);
      for (guint alpha = 1; alpha <= b; alpha++)
        {
          g_autofree char *algo = g_strdup_printf ("scan/matrix:b=%u,k=%u,alpha=%u", b, k, alpha);
          g_autoptr (MdlReport) r = test_run_algo (algo, (guint64) k * alpha * b, 5, engine, NULL);
          double model = MIN ((b + alpha - 1) / alpha, alpha) + log2 (b) / alpha;
          double per_element = (double) test_phase_count (r, "local-scan", "time") / (alpha * b);
          if (model < model_min)
            model_min = model, best_model = alpha;
          if (per_element < engine_min)
            engine_min = per_element, best_engine = alpha;
        }
      if (best_model != b || best_engine != b)
        fail_msg ("b=%u: smallest model factor at alpha=%u, engine time per element at alpha=%u",
                  b, best_model, best_engine);
    }
}

/* ---- scan/matrix: memory (V8, V9) ---- */

/* Ensure shared memory is α(b+1) words and the multiplicity M/(α(b+1)) (V8), giving V9's warps
 * per SM, min(cap, ⌊M/m⌋), at b = 32. The engine reports M/m uncapped (docs/models/agpu.md), so
 * the cap is applied here. K20c: M = 48 KiB = 12288 words, cap 64: α = 6, 7, 8, 18, 32 give
 * ⌊12288/198⌋ = 62, ⌊12288/231⌋ = 53, ⌊12288/264⌋ = 46, ⌊12288/594⌋ = 20, ⌊12288/1056⌋ = 11,
 * and α = 2..5 at least ⌊12288/165⌋ = 74, so the cap 64 (the paper: maximal for α < 6).
 * C1060: M = 16 KiB = 4096 words, cap 16: α = 7 gives ⌊4096/231⌋ = 17, so 16; α = 8 gives 15
 * (the paper: maximal for α < 8). α = 1: 33 words are fewer than the local reduction's 3b/2 = 48
 * (Algorithm 3's tree), so m = 48 there. */
static void
test_scan_multiplicity (void **state)
{
  static const struct { guint alpha; guint64 M, cap, m, warps; } rows[] = {
    { 1, 12288, 64, 48, 64 }, { 2, 12288, 64, 66, 64 }, { 5, 12288, 64, 165, 64 },
    { 6, 12288, 64, 198, 62 }, { 7, 12288, 64, 231, 53 }, { 8, 12288, 64, 264, 46 },
    { 18, 12288, 64, 594, 20 }, { 32, 12288, 64, 1056, 11 },
    { 7, 4096, 16, 231, 16 }, { 8, 4096, 16, 264, 15 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *algo = g_strdup_printf ("scan/matrix:b=32,k=16,alpha=%u", rows[i].alpha);
      g_autofree char *engine = g_strdup_printf ("agpu:b=32,k=16,M=%" G_GUINT64_FORMAT, rows[i].M);
      g_autoptr (MdlReport) r = test_run_algo (algo, 16 * 32 * rows[i].alpha, 1, engine, NULL);
      double mult = mdl_report_lookup (r, "multiplicity")->real;
      guint64 warps = MIN (rows[i].cap, (guint64) floor (mult));
      if (test_report_count (r, "shared_words") != rows[i].m || warps != rows[i].warps
          || fabs (mult - (double) rows[i].M / (double) rows[i].m) > 1e-9)
        fail_msg ("alpha=%u M=%" G_GUINT64_FORMAT ": m %" G_GUINT64_FORMAT ", multiplicity %g, "
                  "warps %" G_GUINT64_FORMAT "; expected m %" G_GUINT64_FORMAT ", warps %"
                  G_GUINT64_FORMAT, rows[i].alpha, rows[i].M, test_report_count (r, "shared_words"), mult,
                  warps, rows[i].m, rows[i].warps);
    }
}

/* ---- scan/matrix: phases, correctness, errors ---- */

/* Ensure the phase markers enclose exactly their launch: every warp event of launch i lies
 * between the begin and end of phase i (local-reduction, global-scan, local-scan), with the
 * launch and sync markers inside too. */
static void
test_scan_phase_markers (void **state)
{
  static const char *const names[] = { "local-reduction", "global-scan", "local-scan" };
  g_autoptr (GError) error = NULL;
  const MdlAlgo *algo = mdl_algo_lookup ("scan/matrix", NULL);
  const char *assigns[] = { "b=8", "k=3", "alpha=2", NULL };
  g_autoptr (MdlParams) params = mdl_params_parse ("scan/matrix", algo->params, assigns, NULL);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  MdlRecorder *rec = mdl_recorder_new (&sink, 0);
  guint iw = 0, im = 0, closed = 0;
  int open = -1;
  guint64 sum;
  (void) state;
  if (!algo->run (params, 500, 2, rec, &sum, &error) || !mdl_recorder_finish (rec, &error))
    fail_msg ("%s", error->message);
  for (const char *o = c->order->str; *o; o++)
    if (*o == 'w')
      {
        const MdlWarpEvent *e = &g_array_index (c->warp, MdlWarpEvent, iw++);
        if (open < 0 || e->launch != (guint) open)
          fail_msg ("warp event %u of launch %u outside phase %s", iw - 1, e->launch,
                    open < 0 ? "(none)" : names[open]);
      }
    else if (*o == 'm')
      {
        const MdlMarker *m = &((const TestMarker *) g_ptr_array_index (c->markers, im++))->marker;
        if (m->kind == MDL_MARK_PHASE_BEGIN)
          {
            assert_true (open < 0 && closed < 3);
            assert_string_equal (m->name, names[closed]);
            open = (int) closed;
          }
        else if (m->kind == MDL_MARK_PHASE_END)
          {
            assert_true (open >= 0);
            assert_string_equal (m->name, names[open]);
            open = -1;
            closed++;
          }
        else if (m->kind == MDL_MARK_LAUNCH || m->kind == MDL_MARK_SYNC)
          assert_true (open >= 0);
      }
  assert_int_equal (closed, 3);
  assert_true (iw > 0);
  mdl_recorder_free (rec);
  test_collector_free (c);
}

/* Σ of the exclusive prefix sums of the first @n inputs of @seed: the checksum scan/matrix
 * returns, computed here from the inputs alone. */
static guint64
scan_reference (guint64 n, guint64 seed)
{
  guint64 state = seed, total = 0;
  guint32 run = 0;
  for (guint64 i = 0; i < n; i++)
    {
      total += run;
      run += (guint32) mdl_splitmix64 (&state);
    }
  return total;
}

/* Ensure scan/matrix is an exclusive scan on fresh random inputs, for both entry points (each
 * also checks every output word against a sequential scan), at sizes that need padding, partial
 * global-scan matrices and several matrices per block. */
static void
test_scan_random (void **state)
{
  static const struct { const char *algo; const char *engine; } rows[] = {
    { "scan/matrix", "agpu" },
    { "scan/matrix:b=8,k=3,alpha=3", "agpu:b=8,k=3" },
    { "scan/matrix:b=4,k=40,alpha=2", "agpu:b=4,k=40" },
    { "scan/matrix:b=16,k=5,alpha=16", "agpu:b=16,k=5" },
    { "scan/matrix:b=64,k=2,alpha=5", "agpu:b=64,k=2" },
  };
  guint32 seed = test_seed (20240611);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint it = 0; it < 4; it++)
    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      {
        guint64 n = (guint64) g_rand_int_range (rand, 1, 20000), s = g_rand_int (rand), got;
        g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, n, s, rows[i].engine, &got);
        guint64 native = test_native_checksum (rows[i].algo, n, s), want = scan_reference (n, s);
        if (got != want || native != want)
          fail_msg ("seed %u: %s n=%" G_GUINT64_FORMAT ": checksums %" G_GUINT64_FORMAT " (run) %"
                    G_GUINT64_FORMAT " (native), reference %" G_GUINT64_FORMAT, seed, rows[i].algo,
                    n, got, native, want);
      }
}

/* Ensure Algorithm 8's printed carry (never advanced) is only right while every block scans a
 * single matrix: n = k·α·b passes, 2·k·α·b fails its check. */
static void
test_scan_printed_carry (void **state)
{
  GError *error;
  (void) state;
  test_native_checksum ("scan/matrix:b=8,k=2,alpha=2,carry=printed", 32, 4);
  error = run_error ("scan/matrix:b=8,k=2,alpha=2,carry=printed", 64);
  assert_mdl_error (error, MDL_ERROR_MODEL, "the sequential exclusive scan has");
}

/* Ensure unusable parameters are MDL_ERROR_PARAM naming them. */
static void
test_scan_bad_params (void **state)
{
  (void) state;
  assert_mdl_error (run_error ("scan/matrix:alpha=40", 100), MDL_ERROR_PARAM,
                    "alpha=40 must be at most b=32");
  assert_mdl_error (run_error ("scan/matrix:alpha=0", 100), MDL_ERROR_PARAM, "alpha");
  assert_mdl_error (run_error ("scan/matrix:b=512,alpha=512", 100), MDL_ERROR_PARAM,
                    "alpha=512 and b=512 need alpha x (b+1) = 262656 shared words");
  assert_mdl_error (run_error ("scan/matrix:b=512,k=65535,alpha=32", 100), MDL_ERROR_PARAM,
                    "multiple of k x alpha x b = 1073725440");
  assert_mdl_error (run_error ("scan/matrix", 0), MDL_ERROR_PARAM, "n=0");
  assert_mdl_error (run_error ("reduce/matrix:b=512", 100), MDL_ERROR_PARAM, "b");
}

/* ---- reduce/matrix ---- */

/* Ensure reduce/matrix's I/O and time are the head of matrix.c's: io = n/b + k + TreeIO₂(k)
 * (Algorithm 6: 2 per block per level); time = per MP 4b per tile step x n/(kb²) steps + 3 + 4 log b
 * (store the product, log b x (load, load, combine, store), lane 0's load and write), plus per
 * Algorithm 6 level 4 + 4 log b (read, store, the same combine) when its blocks fit the k MPs:
 *  n = 2^20, b = 32, k = 16: 64 steps: io 32768 + 16 + 2 = 32786 (V7's pipeline value);
 *    time 128 x 64 + 23 = 8215, + 24 = 8239; 2 launches;
 *  n = 512, b = 4, k = 2: 16 steps: io 128 + 2 + 2 = 132; time 16 x 16 + 11 = 267, + 12 = 279;
 *  n = 1024, b = 4, k = 8: 8 steps: io 256 + 8 + (4 + 2) = 270 (Algorithm 6: 2 blocks, then 1);
 *    time 16 x 8 + 11 = 139, + 12 + 12 = 163; 3 launches;
 *  n = 1000, b = 32, k = 16: padded with the identity to 16384, 1 step: io 512 + 16 + 2 = 530;
 *    time 128 + 23 + 24 = 175. */
static void
test_reduce_matrix_costs (void **state)
{
  static const struct {
    const char *algo;
    guint64 n;
    const char *engine;
    guint64 io, time, launches;
  } rows[] = {
    { "reduce/matrix:b=32,k=16", 1048576, "agpu:b=32,k=16", 32786, 8239, 2 },
    { "reduce/matrix:b=4,k=2", 512, "agpu:b=4,k=2", 132, 279, 2 },
    { "reduce/matrix:b=4,k=8", 1024, "agpu:b=4,k=8", 270, 163, 3 },
    { "reduce/matrix:b=32,k=16", 1000, "agpu:b=32,k=16", 530, 175, 2 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, rows[i].n, 7, rows[i].engine, NULL);
      if (test_report_count (r, "io") != rows[i].io || test_report_count (r, "time") != rows[i].time
          || test_report_count (r, "launches") != rows[i].launches || test_report_count (r, "stale_shared_reads") != 0)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": io %" G_GUINT64_FORMAT " time %" G_GUINT64_FORMAT
                  " launches %" G_GUINT64_FORMAT " stale %" G_GUINT64_FORMAT ", expected %"
                  G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " 0", rows[i].algo,
                  rows[i].n, test_report_count (r, "io"), test_report_count (r, "time"), test_report_count (r, "launches"),
                  test_report_count (r, "stale_shared_reads"), rows[i].io, rows[i].time, rows[i].launches);
    }
}

/* Ensure reduce/matrix uses b(b+1) shared words, multiplicity M/(b(b+1)) (V7: O(M/b²)), and that
 * Table 1's ordering holds: its multiplicity is below the cascading algorithm's (3b/2 words) at
 * every b. */
static void
test_reduce_matrix_multiplicity (void **state)
{
  (void) state;
  for (guint b = 4; b <= 32; b *= 2)
    {
      g_autofree char *matrix = g_strdup_printf ("reduce/matrix:b=%u,k=4", b);
      g_autofree char *cascade = g_strdup_printf ("reduce/cascade:b=%u,k=4", b);
      g_autofree char *engine = g_strdup_printf ("agpu:b=%u,k=4", b);
      g_autoptr (MdlReport) rm = test_run_algo (matrix, 4 * b * b, 1, engine, NULL);
      g_autoptr (MdlReport) rc = test_run_algo (cascade, 4 * b * b, 1, engine, NULL);
      double mm = mdl_report_lookup (rm, "multiplicity")->real;
      double mc = mdl_report_lookup (rc, "multiplicity")->real;
      assert_int_equal (test_report_count (rm, "shared_words"), b * (b + 1));
      if (fabs (mm - 12288.0 / (b * (b + 1))) > 1e-9 || !(mm < mc))
        fail_msg ("b=%u: multiplicity %g (matrix), %g (cascade)", b, mm, mc);
    }
}

/* The sequential in-order product of the first @n inputs of @seed under "f, then g" on affine
 * maps x -> a x + c (mod 2^16), packed (a << 16 | c), a made odd (the inputs of affine_input
 * in reduce.c); @reversed folds from the last input. */
static guint64
affine_reference (guint64 n, guint64 seed, gboolean reversed)
{
  guint64 state = seed;
  guint32 a = 1, c = 0;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 w = (guint32) mdl_splitmix64 (&state) | 0x10000u;
      guint32 wa = w >> 16 & 0xffff, wc = w & 0xffff;
      if (reversed)   /* w, then the product so far */
        {
          c = (a * wc + c) & 0xffff;
          a = (a * wa) & 0xffff;
        }
      else            /* the product so far, then w */
        {
          c = (wa * c + wc) & 0xffff;
          a = (a * wa) & 0xffff;
        }
    }
  return (guint64) a << 16 | c;
}

/* Ensure reduce/matrix computes the in-order product on fresh random inputs for both entry
 * points, and that these inputs are order-sensitive (the reversed fold differs). */
static void
test_reduce_matrix_random (void **state)
{
  static const struct { const char *algo; const char *engine; } rows[] = {
    { "reduce/matrix", "agpu" },
    { "reduce/matrix:b=4,k=3", "agpu:b=4,k=3" },
    { "reduce/matrix:b=8,k=20", "agpu:b=8,k=20" },
    { "reduce/matrix:b=64,k=2", "agpu:b=64,k=2" },
  };
  guint32 seed = test_seed (777);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint it = 0; it < 4; it++)
    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      {
        guint64 n = (guint64) g_rand_int_range (rand, 2, 30000), s = g_rand_int (rand), got;
        g_autoptr (MdlReport) r = test_run_algo (rows[i].algo, n, s, rows[i].engine, &got);
        guint64 native = test_native_checksum (rows[i].algo, n, s), want = affine_reference (n, s, FALSE);
        if (got != want || native != want || want == affine_reference (n, s, TRUE))
          fail_msg ("seed %u: %s n=%" G_GUINT64_FORMAT ": products 0x%" G_GINT64_MODIFIER "x (run)"
                    " 0x%" G_GINT64_MODIFIER "x (native), reference 0x%" G_GINT64_MODIFIER "x",
                    seed, rows[i].algo, n, got, native, want);
      }
}

/* ---- the command ---- */

/* Ensure `models run scan/matrix ... --format json` prints the V8 counts and the phases:
 * n = 65536, b = 32, k = 16, α = 8: io 3 x 2048 + 32 + 2 = 6178, local scan 4096 + 16 = 4112;
 * 16 matrices of T(8) = 2 x 32 + 56 + 15 = 135 per block: local-scan time 1 + 2160 = 2161. */
static void
test_scan_cli (void **state)
{
  const char *bin = g_getenv ("MODELS_BIN");
  const char *argv[] = { bin && *bin ? bin : "build/bin/models", "run", "scan/matrix", "--n",
                         "65536", "--param", "alpha=8", "--engine", "agpu:b=32,k=16", "--format",
                         "json", NULL };
  static const char *const needles[] = {
    "\"io\": 6178,", "\"launches\": 3,", "\"multiplicity\": 46.545454",
    "\"local-scan\": {\"time\": 2161, \"io\": 4112,", "\"global-scan\": {\"time\": 135, \"io\": 2,",
  };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;
  (void) state;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                     &error))
    fail_msg ("cannot run %s: %s", argv[0], error->message);
  if (!g_spawn_check_wait_status (status, &error))
    fail_msg ("%s: %s\n%s", argv[0], error->message, err);
  for (guint i = 0; i < G_N_ELEMENTS (needles); i++)
    if (strstr (out, needles[i]) == NULL)
      fail_msg ("expected %s in:\n%s", needles[i], out);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_scan_v8_paper_case),
    cmocka_unit_test (test_scan_io),
    cmocka_unit_test (test_scan_matrix_time),
    cmocka_unit_test (test_scan_time_factor_smallest_at_b),
    cmocka_unit_test (test_scan_multiplicity),
    cmocka_unit_test (test_scan_phase_markers),
    cmocka_unit_test (test_scan_random),
    cmocka_unit_test (test_scan_printed_carry),
    cmocka_unit_test (test_scan_bad_params),
    cmocka_unit_test (test_reduce_matrix_costs),
    cmocka_unit_test (test_reduce_matrix_multiplicity),
    cmocka_unit_test (test_reduce_matrix_random),
    cmocka_unit_test (test_scan_cli),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
