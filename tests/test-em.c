/* Tests of the `em` engine (src/models/em.c): hand-derived block transfers for lru and opt, dirty
 * write-backs, phases, agreement with the slow reference (tests/ref/) and the paging inequalities on
 * random traces, and the external-memory cost of a random scan against the reference curve of the
 * thesis's Fig. 2.2 parameters (spec vat-thesis §3.1, §6.4). */
#include "helpers.h"
#include "ref/cache-ref.h"

#include <math.h>
#include <string.h>

/* "WA RB MC" -> events on 64-byte blocks A=0, B=1, ... (W write, R read, M modify), 8 bytes each. */
static GArray *
parse_blocks (const char *text)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (MdlCpuEvent));
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  for (char **w = words; *w; w++)
    {
      MdlCpuEvent e = { .size = 8 };
      e.kind = (*w)[0] == 'W' ? MDL_CPU_WRITE : (*w)[0] == 'M' ? MDL_CPU_MODIFY : MDL_CPU_READ;
      e.addr = (guint64) ((*w)[1] - 'A') * 64;
      g_array_append_val (a, e);
    }
  return a;
}

/* Rows: fast memory of 2 blocks (M=128, B=64).
 *   lru, A B C A B: every reference misses (C evicts A, A evicts B, B evicts C).
 *   opt, same: C evicts B (next used at 5, after A at 4); A hits; B misses: 4.
 *   lru, WA RB RC RA: C evicts A, dirty: one write-back; A evicts B, clean.
 *   lru, WA WB RA RC: A hits; C evicts B (least recent), dirty: one write-back; A is left dirty.
 *   opt, WA RB RA RC RB: C evicts A (never used again) rather than B: A was dirty, one write-back;
 *     B hits.
 *   lru, MA RB RC: the modify dirties A; C evicts it: one write-back. */
static const struct {
  const char *name;
  const char *policy;
  const char *trace;
  guint64 misses, hits, writebacks, dirty_at_end;
} rows[] = {
  { "lru misses all", "lru", "RA RB RC RA RB", 5, 0, 0, 0 },
  { "opt keeps the sooner", "opt", "RA RB RC RA RB", 4, 1, 0, 0 },
  { "lru writes back dirty", "lru", "WA RB RC RA", 4, 0, 1, 0 },
  { "lru dirty stays", "lru", "WA WB RA RC", 3, 1, 1, 1 },
  { "opt evicts the unused", "opt", "WA RB RA RC RB", 3, 2, 1, 0 },
  { "modify dirties", "lru", "MA RB RC", 3, 0, 1, 0 },
};

/* Ensure the hand-derived rows above. */
static void
test_hand_derived_rows (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *spec = g_strdup_printf ("em:M=128,B=64,policy=%s", rows[i].policy);
      g_autoptr (MdlEngine) e = test_engine_new (spec);
      g_autoptr (GArray) ev = parse_blocks (rows[i].trace);
      g_autoptr (MdlReport) r = NULL;
      test_feed_cpu (e, (const MdlCpuEvent *) (void *) ev->data, ev->len);
      r = mdl_engine_report (e);
      if (test_report_count (r, "misses") != rows[i].misses
          || test_report_count (r, "hits") != rows[i].hits
          || test_report_count (r, "writebacks") != rows[i].writebacks
          || test_report_count (r, "dirty_at_end") != rows[i].dirty_at_end)
        fail_msg ("%s: expected misses/hits/writebacks/dirty %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                  "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT "/%"
                  G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT, rows[i].name,
                  rows[i].misses, rows[i].hits, rows[i].writebacks, rows[i].dirty_at_end,
                  test_report_count (r, "misses"), test_report_count (r, "hits"),
                  test_report_count (r, "writebacks"),
                  test_report_count (r, "dirty_at_end"));
      assert_int_equal (test_report_count (r, "transfers"), rows[i].misses + rows[i].writebacks);
    }
}

/* Ensure an access across a block boundary references both blocks, and fetches are skipped. */
static void
test_straddle_and_fetch (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("em:M=256,B=64");
  MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 60 },
    { .kind = MDL_CPU_READ, .size = 4, .addr = 0x1000, .flags = MDL_CPU_FLAG_FETCH },
    { .kind = MDL_CPU_OPS, .addr = 3 },
  };
  (void) state;
  test_feed_cpu (e, ev, G_N_ELEMENTS (ev));
  assert_int_equal (test_engine_count (e, "block_refs"), 2);
  assert_int_equal (test_engine_count (e, "misses"), 2);
  assert_int_equal (test_engine_count (e, "fetches_ignored"), 1);
  assert_int_equal (test_engine_count (e, "distinct_blocks"), 2);
}

/* Ensure phases count their own part, for the online and the offline policy alike: a warm-up
 * A B C, then phase "p" with A B C again (times 0-2, 3-5). With 4 blocks of room nothing misses in
 * the phase. With 2: lru misses all three. opt: at time 2, C evicts B (next used at 4, after A at
 * 3); in the phase A hits, B evicts A (never used again, C is used at 5), C hits: 1 miss. */
static void
test_phases_own_counts (void **state)
{
  static const struct { const char *spec; guint64 phase_misses; } cases[] = {
    { "em:M=256,B=64,policy=lru", 0 },
    { "em:M=256,B=64,policy=opt", 0 },
    { "em:M=128,B=64,policy=lru", 3 },
    { "em:M=128,B=64,policy=opt", 1 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (MdlEngine) e = test_engine_new (cases[i].spec);
      g_autoptr (GArray) warm = parse_blocks ("RA RB RC");
      MdlMarker begin = { .kind = MDL_MARK_PHASE_BEGIN, .name = "p" };
      MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "p" };
      g_autoptr (MdlReport) r = NULL;
      const MdlReport *p;
      test_feed_cpu (e, (const MdlCpuEvent *) (void *) warm->data, warm->len);
      assert_true (mdl_engine_marker (e, &begin, NULL));
      test_feed_cpu (e, (const MdlCpuEvent *) (void *) warm->data, warm->len);
      assert_true (mdl_engine_marker (e, &end, NULL));
      r = mdl_engine_report (e);
      assert_int_equal (mdl_report_n_phases (r), 1);
      p = mdl_report_phase (r, 0);
      assert_string_equal (mdl_report_engine (p), "p");
      if (test_report_count (p, "misses") != cases[i].phase_misses)
        fail_msg ("%s: phase misses: expected %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT,
                  cases[i].spec, cases[i].phase_misses, test_report_count (p, "misses"));
      assert_int_equal (test_report_count (p, "block_refs"), 3);
    }
}

/* Ensure a phase end that does not match is refused. */
static void
test_phase_mismatch_refused (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("em:policy=opt");
  MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "x" };
  GError *error = NULL;
  (void) state;
  assert_false (mdl_engine_marker (e, &end, &error));
  assert_mdl_error (error, MDL_ERROR_FORMAT, "phase end \"x\"");
}

/* Ensure bad parameters are named. */
static void
test_bad_specs (void **state)
{
  static const struct { const char *spec; const char *needle; } bad[] = {
    { "em:M=100,B=64", "multiple of B=64" },
    { "em:M=1024G,B=2", "at most" },
    { "em:B=48", "power of two" },
    { "em:policy=min", "bad value \"min\"" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (bad[i].spec, &error);
      if (e)
        fail_msg ("%s: accepted", bad[i].spec);
      assert_mdl_error (error, MDL_ERROR_PARAM, bad[i].needle);
    }
}

/* Ensure lru and opt agree with the reference (lru: misses and write-backs; opt: misses, which
 * do not depend on how ties break) and that the paging inequalities hold: opt <= lru at the same
 * size, and lru with k blocks <= k/(k-h+1) * opt with h <= k blocks, plus k (Sleator and Tarjan's
 * bound, with both memories starting empty). */
static void
test_agrees_and_bounds (void **state)
{
  guint32 seed = test_seed (99);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 300; iter++)
    {
      guint n = (guint) g_rand_int_range (rand, 10, 1500);
      guint64 k = (guint64) g_rand_int_range (rand, 1, 24);
      guint64 h = (guint64) g_rand_int_range (rand, 1, (gint32) k + 1);
      guint64 span = (guint64) g_rand_int_range (rand, 2, 64);
      g_autofree MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
      g_autofree guint64 *blocks = g_new (guint64, n);
      g_autofree gboolean *writes = g_new (gboolean, n);
      RefEmCounts lru_ref, opt_ref;
      guint64 lru_k, opt_h;
      for (guint t = 0; t < n; t++)
        {
          /* Some locality: half the references near the previous one. */
          if (t > 0 && g_rand_boolean (rand))
            blocks[t] = (blocks[t - 1] + (guint64) g_rand_int_range (rand, 0, 3)) % span;
          else
            blocks[t] = (guint64) g_rand_int_range (rand, 0, (gint32) span);
          writes[t] = g_rand_int_range (rand, 0, 3) == 0;
          ev[t] = (MdlCpuEvent) { .kind = writes[t] ? MDL_CPU_WRITE : MDL_CPU_READ, .size = 4,
                                  .addr = blocks[t] * 32 + 4 };
        }
      ref_em_run (blocks, writes, n, k, FALSE, &lru_ref);
      ref_em_run (blocks, writes, n, k, TRUE, &opt_ref);
      {
        g_autofree char *s_lru = g_strdup_printf ("em:M=%" G_GUINT64_FORMAT ",B=32", 32 * k);
        g_autofree char *s_opt = g_strdup_printf ("em:M=%" G_GUINT64_FORMAT ",B=32,policy=opt",
                                                  32 * k);
        g_autofree char *s_opt_h = g_strdup_printf ("em:M=%" G_GUINT64_FORMAT ",B=32,policy=opt",
                                                    32 * h);
        g_autoptr (MdlEngine) el = test_engine_new (s_lru);
        g_autoptr (MdlEngine) eo = test_engine_new (s_opt);
        g_autoptr (MdlEngine) eh = test_engine_new (s_opt_h);
        test_feed_cpu (el, ev, n);
        test_feed_cpu (eo, ev, n);
        test_feed_cpu (eh, ev, n);
        if (test_engine_count (el, "misses") != lru_ref.misses
            || test_engine_count (el, "writebacks") != lru_ref.writebacks)
          fail_msg ("seed %u, iteration %u, k %" G_GUINT64_FORMAT ": lru misses/writebacks %"
                    G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT "/%"
                    G_GUINT64_FORMAT, seed, iter, k, test_engine_count (el, "misses"),
                    test_engine_count (el, "writebacks"), lru_ref.misses, lru_ref.writebacks);
        if (test_engine_count (eo, "misses") != opt_ref.misses)
          fail_msg ("seed %u, iteration %u, k %" G_GUINT64_FORMAT ": opt misses %" G_GUINT64_FORMAT
                    ", reference %" G_GUINT64_FORMAT, seed, iter, k, test_engine_count (eo, "misses"),
                    opt_ref.misses);
        lru_k = test_engine_count (el, "misses");
        opt_h = test_engine_count (eh, "misses");
        if (test_engine_count (eo, "misses") > lru_k)
          fail_msg ("seed %u, iteration %u: opt > lru", seed, iter);
        if ((double) lru_k > (double) k / (double) (k - h + 1) * (double) opt_h + (double) k)
          fail_msg ("seed %u, iteration %u: lru(%" G_GUINT64_FORMAT ")=%" G_GUINT64_FORMAT
                    " > k/(k-h+1) opt(%" G_GUINT64_FORMAT ")=%" G_GUINT64_FORMAT " + k", seed, iter,
                    k, lru_k, h, opt_h);
      }
    }
  g_rand_free (rand);
}

/* Ensure the EM cost of a random scan matches the thesis's curve (spec §6.4). Three ideal caches
 * of s = 2^12, 2^15 and 1,572,864 8-byte elements (the L1, L2 and L3 of Fig. 2.2) see the same
 * uniform random accesses to n elements, after a sequential pass that fills them; an access costs
 * c_i (4080, 4575, 9937 ps) at the first level that holds it and c_3 = 38746 ps otherwise, which is
 * T_EM(n)/n = c_3 - sum_i (hits_i / accesses) (c_{i+1} - c_i) since the LRU contents nest. The
 * expected values are the §6.4 table, itself from the formula; sampling allows 0.6 %. */
static void
test_random_scan_matches_em_curve (void **state)
{
  static const guint64 s[3] = { 4096, 32768, 1572864 };
  static const double c[4] = { 4080, 4575, 9937, 38746 };
  static const struct { guint log_n; double per_element; } table[] = {
    { 10, 4080.0 }, { 12, 4080.0 }, { 13, 4327.5 }, { 15, 4513.1 }, { 16, 7225.1 },
    { 18, 9259.0 }, { 20, 9767.5 },
  };
  guint32 seed = test_seed (64);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint row = 0; row < G_N_ELEMENTS (table); row++)
    {
      guint64 n = G_GUINT64_CONSTANT (1) << table[row].log_n;
      guint64 accesses = 1u << 20;
      guint64 chunk = MIN (n, 4096);   /* so that the phase starts exactly after the pass */
      MdlEngine *level[3];
      MdlMarker begin = { .kind = MDL_MARK_PHASE_BEGIN, .name = "scan" };
      MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "scan" };
      MdlCpuEvent buf[4096];
      double cost, formula;
      guint l = 0;
      /* The formula, as the spec writes it: T_EM(n) = n c_{l+1} - sum_{i<=l} s_i (c_{i+1} - c_i)
       * with s_l < n <= s_{l+1}; here l counts the levels smaller than n, and c[l] is c_{l+1}. */
      while (l < 3 && s[l] < n)
        l++;
      formula = c[l];
      for (guint i = 0; i < l; i++)
        formula -= (double) s[i] / (double) n * (c[i + 1] - c[i]);
      if (fabs (formula - table[row].per_element) > 0.1)
        fail_msg ("log n = %u: formula gives %.1f, the table %.1f", table[row].log_n, formula,
                  table[row].per_element);
      for (guint i = 0; i < 3; i++)
        {
          g_autofree char *spec = g_strdup_printf ("em:M=%" G_GUINT64_FORMAT ",B=8", 8 * s[i]);
          level[i] = test_engine_new (spec);
        }
      for (guint64 t = 0; t < n + accesses; t += chunk)
        {
          for (guint k = 0; k < chunk; k++)
            {
              guint64 x = t + k < n ? t + k : (guint64) g_rand_int_range (rand, 0, (gint32) n);
              buf[k] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = 8 * x };
            }
          for (guint i = 0; i < 3; i++)
            {
              if (t == n)
                assert_true (mdl_engine_marker (level[i], &begin, NULL));
              test_feed_cpu (level[i], buf, chunk);
            }
        }
      cost = c[3];
      for (guint i = 0; i < 3; i++)
        {
          g_autoptr (MdlReport) r = NULL;
          assert_true (mdl_engine_marker (level[i], &end, NULL));
          r = mdl_engine_report (level[i]);
          cost -= (double) test_report_count (mdl_report_phase (r, 0), "hits") / (double) accesses
                  * (c[i + 1] - c[i]);
          mdl_engine_free (level[i]);
        }
      if (fabs (cost - table[row].per_element) > 0.006 * table[row].per_element)
        fail_msg ("seed %u: log n = %u: simulated %.1f ps per element, the curve says %.1f",
                  seed, table[row].log_n, cost, table[row].per_element);
      print_message ("em curve: log2 n = %2u: simulated %8.1f ps, §6.4 table %8.1f ps\n",
                     table[row].log_n, cost, table[row].per_element);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hand_derived_rows),
    cmocka_unit_test (test_straddle_and_fetch),
    cmocka_unit_test (test_phases_own_counts),
    cmocka_unit_test (test_phase_mismatch_refused),
    cmocka_unit_test (test_bad_specs),
    cmocka_unit_test (test_agrees_and_bounds),
    cmocka_unit_test (test_random_scan_matches_em_curve),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
