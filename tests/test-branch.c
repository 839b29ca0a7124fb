/* The branch engine (src/models/branch.c) and branch records in the CPU stream: hand-derived
 * predictor sequences, agreement with the slow reference (tests/ref/branch-ref.c), the exact
 * branch counts of the instrumented searches, and every memory engine blind to branch records. */
#include "helpers.h"
#include "ref/branch-ref.h"

#include <string.h>

/* A branch stream written as "pc:outcome" words, outcome T or N ("0:T 1:N"). */
static GArray *
parse_branches (const char *text)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  for (guint i = 0; words[i]; i++)
    {
      char *colon = strchr (words[i], ':');
      MdlCpuEvent e = { .kind = MDL_CPU_BRANCH };
      g_assert (colon && (colon[1] == 'T' || colon[1] == 'N'));
      e.addr = g_ascii_strtoull (words[i], NULL, 10);
      e.flags = colon[1] == 'T' ? MDL_CPU_FLAG_TAKEN : 0;
      g_array_append_val (out, e);
    }
  return out;
}

/* Each row's expected string is worked out by hand from the rules of docs/models/branch.md:
 * counters start at 1 (weakly not taken), predict taken at 2 or 3, step toward the outcome;
 * gshare XORs the last `history` outcomes (newest in bit 0) into the pc. M: mispredicted, H: hit. */
static const struct {
  const char *name;
  const char *spec;
  const char *branches;
  const char *expect;
} rows[] = {
  /* 1 -> 2 on the first taken, then predicted taken for good */
  { "bimodal learns an always-taken branch", "branch:predictor=bimodal,bits=2", "0:T 0:T 0:T 0:T",
    "MHHH" },
  /* 1 -> 2 -> 1 -> 2 -> 1: always on the wrong side */
  { "bimodal misses every step of an alternation", "branch:predictor=bimodal,bits=2",
    "0:T 0:N 0:T 0:N", "MMMM" },
  /* 1(N)T->2, 2(T)T->3, 3(T)N->2, 2(T)T->3, 3(T)T->3, 3(T)N->2: a loop of three, exit missed */
  { "bimodal misses each exit of a three-trip loop", "branch:predictor=bimodal,bits=2",
    "0:T 0:T 0:N 0:T 0:T 0:N", "MHMHHM" },
  /* pcs 0 and 2 share counter 0 of 2: T raises it to 2, then pc 2 is predicted T and goes N... */
  { "bimodal: aliased branches fight over one counter", "branch:predictor=bimodal,bits=1",
    "0:T 2:N 0:T 2:N", "MMMM" },
  /* ... while pcs 0 and 1 have a counter each: pc 1's N is predicted from its initial 1 */
  { "bimodal: separate counters do not interfere", "branch:predictor=bimodal,bits=1",
    "0:T 1:N 0:T 1:N", "MHHH" },
  /* history h, index pc ^ h: h=00 c0=1 T miss; h=01 c1=1 N hit; h=10 c2=1 T miss; h=01 c1=0 N
   * hit; h=10 c2=2 T hit; h=01 N hit */
  { "gshare learns an alternation", "branch:predictor=gshare,bits=2,history=2",
    "0:T 0:N 0:T 0:N 0:T 0:N", "MHMHHH" },
  /* history 0 is bimodal: the same steps as the bimodal alternation */
  { "gshare without history is bimodal", "branch:predictor=gshare,bits=2,history=0",
    "0:T 0:N 0:T 0:N", "MMMM" },
  /* bits=2, history=1: pc 1 with h=0 -> c1: T miss (c1=2); pc 1 with h=1 -> c0: T miss (c0=2);
   * pc 1, h=1 -> c0=2: T hit; pc 1, h=1 -> c0=3: N miss (c0=2, h=0); pc 1, h=0 -> c1=2: T hit */
  { "gshare: history 1 XORs the last outcome into bit 0", "branch:predictor=gshare,bits=2,history=1",
    "1:T 1:T 1:T 1:N 1:T", "MMHMH" },
};

/* Ensure each hand-derived sequence gives its mispredictions, step by step. */
static void
test_branch_hand_derived_sequences (void **state)
{
  (void) state;
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autoptr (GArray) ev = parse_branches (rows[r].branches);
      g_autoptr (MdlEngine) e = test_engine_new (rows[r].spec);
      guint64 before = 0, taken = 0;
      assert_int_equal (ev->len, strlen (rows[r].expect));
      for (guint i = 0; i < ev->len; i++)
        {
          const MdlCpuEvent *one = &g_array_index (ev, MdlCpuEvent, i);
          guint64 now;
          test_feed_cpu (e, one, 1);
          now = test_engine_count (e, "mispredicts");
          taken += (one->flags & MDL_CPU_FLAG_TAKEN) != 0;
          if ((now > before ? 'M' : 'H') != rows[r].expect[i])
            fail_msg ("%s: step %u: expected %c, got %c", rows[r].name, i + 1, rows[r].expect[i],
                      now > before ? 'M' : 'H');
          before = now;
        }
      assert_int_equal (test_engine_count (e, "branches"), ev->len);
      assert_int_equal (test_engine_count (e, "branches_taken"), taken);
    }
}

/* Ensure the engine and the slow reference agree on every step of random streams: few or many
 * static branches, biased or fair outcomes, patterns, several table and history sizes, and
 * batches of every length with accesses and op counts between the branches. */
static void
test_branch_agrees_with_the_reference (void **state)
{
  static const struct { const char *predictor; guint bits, history; } configs[] = {
    { "bimodal", 1, 0 }, { "bimodal", 4, 0 }, { "bimodal", 10, 0 },
    { "gshare", 1, 1 }, { "gshare", 4, 2 }, { "gshare", 6, 6 }, { "gshare", 12, 8 },
    { "gshare", 16, 16 },
  };
  guint32 seed = test_seed (16);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 60; round++)
    {
      guint c = round % G_N_ELEMENTS (configs);
      g_autofree char *spec = g_strdup_printf ("branch:predictor=%s,bits=%u,history=%u",
                                               configs[c].predictor, configs[c].bits,
                                               configs[c].history);
      g_autoptr (MdlEngine) e = test_engine_new (spec);
      g_autoptr (GArray) ev = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
      RefBranch ref;
      guint n_pcs = (guint) g_rand_int_range (rand, 1, 40);
      guint bias = (guint) g_rand_int_range (rand, 0, 101);   /* % taken */
      guint n = (guint) g_rand_int_range (rand, 1, 3000);
      gsize fed = 0;
      ref_branch_init (&ref, configs[c].bits,
                       strcmp (configs[c].predictor, "gshare") == 0 ? configs[c].history : 0);
      for (guint i = 0; i < n; i++)
        {
          guint64 pc = (guint64) g_rand_int_range (rand, 0, (gint32) n_pcs) * 0x9E3779B1u;
          gboolean taken = round % 3 == 0 ? (i / (pc % 5 + 1)) % 2   /* a pattern per branch */
                                          : (guint) g_rand_int_range (rand, 0, 100) < bias;
          MdlCpuEvent b = { .kind = MDL_CPU_BRANCH, .flags = taken ? MDL_CPU_FLAG_TAKEN : 0,
                            .site = (guint16) i, .addr = pc };
          MdlCpuEvent read = { .kind = MDL_CPU_READ, .size = 8, .addr = pc };
          MdlCpuEvent ops = { .kind = MDL_CPU_OPS, .addr = 3 };
          g_array_append_val (ev, b);
          if (g_rand_boolean (rand))
            g_array_append_val (ev, read);
          if (g_rand_boolean (rand))
            g_array_append_val (ev, ops);
          ref_branch_step (&ref, pc, taken);
        }
      while (fed < ev->len)
        {
          gsize batch = (gsize) g_rand_int_range (rand, 1, 700), k = MIN (ev->len - fed, batch);
          test_feed_cpu (e, &g_array_index (ev, MdlCpuEvent, fed), k);
          fed += k;
        }
      if (test_engine_count (e, "mispredicts") != ref.mispredicts
          || test_engine_count (e, "branches") != ref.branches)
        fail_msg ("seed %u, round %u, %s: engine %" G_GUINT64_FORMAT " mispredicts of %"
                  G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                  seed, round, spec, test_engine_count (e, "mispredicts"),
                  test_engine_count (e, "branches"), ref.mispredicts, ref.branches);
      ref_branch_clear (&ref);
    }
  g_rand_free (rand);
}

/* Ensure a coin-flip branch is mispredicted about half the time by both predictors, and an
 * always-taken one only while its counter warms up: the two ends the cost model relies on. */
static void
test_branch_random_outcomes_miss_half_the_time (void **state)
{
  const char *const specs[] = { "branch", "branch:predictor=bimodal" };
  guint32 seed = test_seed (7);
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (specs); s++)
    {
      g_autoptr (MdlEngine) fair = test_engine_new (specs[s]);
      g_autoptr (MdlEngine) always = test_engine_new (specs[s]);
      GRand *rand = g_rand_new_with_seed (seed);
      for (guint i = 0; i < 100000; i++)
        {
          MdlCpuEvent b = { .kind = MDL_CPU_BRANCH, .addr = 5,
                            .flags = g_rand_boolean (rand) ? MDL_CPU_FLAG_TAKEN : 0 };
          MdlCpuEvent t = { .kind = MDL_CPU_BRANCH, .addr = 5, .flags = MDL_CPU_FLAG_TAKEN };
          test_feed_cpu (fair, &b, 1);
          test_feed_cpu (always, &t, 1);
        }
      g_rand_free (rand);
      /* 50000 +- 5 standard deviations (158 each) */
      if (test_engine_count (fair, "mispredicts") < 49200
          || test_engine_count (fair, "mispredicts") > 50800)
        fail_msg ("seed %u, %s: %" G_GUINT64_FORMAT " of 100000 coin flips mispredicted", seed,
                  specs[s], test_engine_count (fair, "mispredicts"));
      /* bimodal warms one counter (1 miss); gshare one counter per history value on the way to
       * all ones, each from 1 to 2: histories 0, 1, 11, ... up to 16 ones, 17 misses */
      assert_int_equal (test_engine_count (always, "mispredicts"), s == 0 ? 17 : 1);
    }
}

/* Ensure a history longer than the index is refused, naming both parameters. */
static void
test_branch_history_longer_than_index_is_refused (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (mdl_engine_new ("branch:bits=8,history=9", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "branch: history=9 is longer than the index (needs "
                    "history <= bits = 8)");
  error = NULL;
  assert_null (mdl_engine_new ("branch:bits=29", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "branch: bits=29 is out of range (valid: 1..28)");
}

/* Ensure the instrumented searches report exactly their compares: binsearch/sorted makes an
 * equality compare per probe and an order compare per probe but the last (every key is found),
 * binsearch/veb only the equality compare (its order compare is arithmetic, i = 2i + (v < key)),
 * taken once per search; one RAM operation per search and per probe gives the probes. */
static void
test_branch_searches_report_every_compare (void **state)
{
  const char *const engines[] = { "branch", "count", NULL };
  (void) state;
  for (guint64 n = 1; n <= 5000; n = n * 3 + 1)
    {
      g_autoptr (GPtrArray) sorted = test_run_algo_all ("binsearch/sorted", n, 3, engines, NULL);
      g_autoptr (GPtrArray) veb = test_run_algo_all ("binsearch/veb", n, 3, engines, NULL);
      guint64 probes_sorted = test_report_count (g_ptr_array_index (sorted, 1), "ram_ops") - n;
      guint64 probes_veb = test_report_count (g_ptr_array_index (veb, 1), "ram_ops") - n;
      assert_int_equal (test_report_count (g_ptr_array_index (sorted, 0), "branches"),
                        2 * probes_sorted - n);
      assert_int_equal (test_report_count (g_ptr_array_index (sorted, 1), "cpu_branches"),
                        2 * probes_sorted - n);
      assert_int_equal (test_report_count (g_ptr_array_index (veb, 0), "branches"), probes_veb);
      assert_int_equal (test_report_count (g_ptr_array_index (veb, 0), "branches_taken"), n);
    }
}

/* The engine specs whose counts must not see branch records: every engine of CPU memory, in its
 * main configurations (the cache engine's one-level fast loop and its general loop). */
static const char *const memory_specs[] = {
  "count", "footprint", "vat:P=64,K=16,W=8,d=4", "vat:policy=min,P=64,K=16,W=8,d=4", "em:M=1k,B=64",
  "em:M=1k,B=64,policy=opt", "cache:size=4k,assoc=2,line=64", "cache:size=4k,assoc=2,cachegrind=1",
  "cache:levels=4k:2:64/16k:4:64,classify=1", "tlb:machine=x86-64",
};

/* Ensure every memory engine gives the same report for a stream and for the same stream with
 * branch records between its events (count aside, whose cpu_branches counts them). */
static void
test_branch_records_are_invisible_to_memory_engines (void **state)
{
  guint32 seed = test_seed (11);
  GRand *rand = g_rand_new_with_seed (seed);
  g_autoptr (GArray) plain = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  g_autoptr (GArray) mixed = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  guint64 n_branches = 0;
  (void) state;
  for (guint i = 0; i < 20000; i++)
    {
      guint kind = (guint) g_rand_int_range (rand, 0, MDL_CPU_OPS + 1);
      MdlCpuEvent e = { .kind = (guint8) kind, .size = kind == MDL_CPU_OPS ? 0 : 8,
                        .addr = kind == MDL_CPU_OPS ? 2 : (guint64) g_rand_int_range (rand, 0, 1 << 16) * 8 };
      g_array_append_val (plain, e);
      g_array_append_val (mixed, e);
      while (g_rand_int_range (rand, 0, 3) == 0)
        {
          /* a branch whose addr looks like a hot address: an engine that took it for an access
           * would count a hit or a miss */
          MdlCpuEvent b = { .kind = MDL_CPU_BRANCH, .addr = e.addr + 4096,
                            .flags = g_rand_boolean (rand) ? MDL_CPU_FLAG_TAKEN : 0 };
          g_array_append_val (mixed, b);
          n_branches++;
        }
    }
  g_rand_free (rand);
  for (guint s = 0; s < G_N_ELEMENTS (memory_specs); s++)
    {
      g_autoptr (MdlEngine) a = test_engine_new (memory_specs[s]);
      g_autoptr (MdlEngine) b = test_engine_new (memory_specs[s]);
      g_autoptr (MdlReport) ra = NULL;
      g_autoptr (MdlReport) rb = NULL;
      test_feed_cpu (a, (const MdlCpuEvent *) (void *) plain->data, plain->len);
      test_feed_cpu (b, (const MdlCpuEvent *) (void *) mixed->data, mixed->len);
      ra = mdl_engine_report (a);
      rb = mdl_engine_report (b);
      assert_int_equal (mdl_report_n_counters (ra), mdl_report_n_counters (rb));
      for (guint i = 0; i < mdl_report_n_counters (ra); i++)
        {
          const MdlCounter *ca = mdl_report_counter (ra, i), *cb = mdl_report_counter (rb, i);
          gboolean same = ca->is_real ? ca->real == cb->real || (ca->real != ca->real && cb->real != cb->real)
                                      : ca->count == cb->count;
          if (strcmp (ca->name, "cpu_branches") == 0)
            {
              assert_int_equal (ca->count, 0);
              assert_int_equal (cb->count, n_branches);
              continue;
            }
          if (!same)
            fail_msg ("seed %u, %s: %s differs with branch records (%" G_GUINT64_FORMAT " against %"
                      G_GUINT64_FORMAT ")", seed, memory_specs[s], ca->name, ca->count, cb->count);
        }
    }
}

/* Ensure a binary trace keeps branch records exactly (identity, taken flag, thread, site), and
 * the text formats, which cannot say them, leave them out and count them as dropped. */
static void
test_branch_records_in_trace_files (void **state)
{
  MdlCpuEvent ev[4] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 },
    { .kind = MDL_CPU_BRANCH, .flags = MDL_CPU_FLAG_TAKEN, .thread = 2, .site = 9, .addr = 77 },
    { .kind = MDL_CPU_OPS, .addr = 3 },
    { .kind = MDL_CPU_BRANCH, .site = 9, .addr = 77 },
  };
  const MdlTraceFormat formats[] = { MDL_TRACE_BIN, MDL_TRACE_LACKEY, MDL_TRACE_DIN };
  (void) state;
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    {
      GOutputStream *out = g_memory_output_stream_new_resizable ();
      MdlTraceWriter *w = mdl_trace_writer_new (out, "mem", formats[f], FALSE);
      MdlSink sink = mdl_trace_writer_sink (w);
      TestCollector *back = test_collector_new ();
      MdlSink back_sink = test_collector_sink (back);
      GInputStream *in;
      MdlTraceReader *r;
      GBytes *bytes;
      GError *error = NULL;
      gboolean done = FALSE;
      guint64 branches = 0;
      assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = ev, .n_cpu = 4 }, &error));
      assert_true (mdl_trace_writer_close (w, &error));
      assert_int_equal (mdl_trace_writer_n_dropped (w), formats[f] == MDL_TRACE_BIN ? 0 : 2);
      mdl_trace_writer_free (w);
      bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
      g_object_unref (out);
      in = g_memory_input_stream_new_from_bytes (bytes);
      r = mdl_trace_reader_new (in, "mem", formats[f], &error);
      assert_non_null (r);
      while (!done)
        assert_true (mdl_trace_reader_pump (r, &back_sink, 100, &done, &error));
      for (guint i = 0; i < back->cpu->len; i++)
        branches += g_array_index (back->cpu, MdlCpuEvent, i).kind == MDL_CPU_BRANCH;
      if (formats[f] == MDL_TRACE_BIN)
        {
          assert_int_equal (back->cpu->len, 4);
          assert_memory_equal (back->cpu->data, ev, sizeof ev);
        }
      else
        assert_int_equal (branches, 0);
      mdl_trace_reader_free (r);
      g_object_unref (in);
      g_bytes_unref (bytes);
      test_collector_free (back);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_branch_hand_derived_sequences),
    cmocka_unit_test (test_branch_agrees_with_the_reference),
    cmocka_unit_test (test_branch_random_outcomes_miss_half_the_time),
    cmocka_unit_test (test_branch_history_longer_than_index_is_refused),
    cmocka_unit_test (test_branch_searches_report_every_compare),
    cmocka_unit_test (test_branch_records_are_invisible_to_memory_engines),
    cmocka_unit_test (test_branch_records_in_trace_files),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
