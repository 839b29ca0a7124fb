/* Tests of the instrumented algorithms (include/models/algo.h, src/algos/): both builds of every
 * algorithm agree, the scans emit exactly the events their source promises, and bad names and
 * sizes are errors. */
#include "helpers.h"

#include <string.h>

static MdlParams *
algo_params (const MdlAlgo *a)
{
  g_autoptr (GError) error = NULL;
  MdlParams *p = mdl_params_parse (a->name, a->params, NULL, &error);
  if (p == NULL)
    fail_msg ("%s: default parameters rejected: %s", a->name, error->message);
  return p;
}

/* Runs @a instrumented into a collector; returns the checksum. */
static guint64
run_collected (const MdlAlgo *a, guint64 n, guint64 seed, TestCollector *c, guint batch)
{
  g_autoptr (MdlParams) params = algo_params (a);
  g_autoptr (GError) error = NULL;
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, batch);
  guint64 sum = 0;
  if (!a->run (params, n, seed, rec, &sum, &error))
    fail_msg ("%s n=%" G_GUINT64_FORMAT ": %s", a->name, n, error->message);
  if (!mdl_recorder_finish (rec, &error))
    fail_msg ("%s: %s", a->name, error->message);
  return sum;
}

/* Ensure every algorithm's instrumented and native builds compute the same checksum, for several
 * sizes and seeds; and the scans, which sum the same array, agree with each other. */
static void
test_both_builds_agree (void **state)
{
  static const guint64 sizes[] = { 1, 2, 5, 100, 4097 };
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  assert_true (n_algos >= 2);
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint64 seed = 1; seed <= 3; seed++)
      {
        guint64 scan_sum[2] = { 0, 0 };
        for (guint i = 0; i < n_algos; i++)
          {
            g_autoptr (MdlParams) params = algo_params (&algos[i]);
            g_autoptr (GError) error = NULL;
            TestCollector *c = test_collector_new ();
            guint64 instrumented = run_collected (&algos[i], sizes[s], seed, c, 0);
            guint64 native = ~instrumented;
            if (!algos[i].run_native (params, sizes[s], seed, NULL, &native, &error))
              fail_msg ("%s native n=%" G_GUINT64_FORMAT ": %s", algos[i].name, sizes[s],
                        error->message);
            if (native != instrumented)
              fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": native %"
                        G_GUINT64_FORMAT " != instrumented %" G_GUINT64_FORMAT, algos[i].name,
                        sizes[s], seed, native, instrumented);
            if (strcmp (algos[i].name, "scan/seq") == 0)
              scan_sum[0] = native;
            if (strcmp (algos[i].name, "scan/random") == 0)
              scan_sum[1] = native;
            test_collector_free (c);
          }
        if (scan_sum[0] != scan_sum[1])
          fail_msg ("n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": scan/seq %" G_GUINT64_FORMAT
                    " != scan/random %" G_GUINT64_FORMAT, sizes[s], seed, scan_sum[0], scan_sum[1]);
      }
}

static const TestMarker *
marker_at (const TestCollector *c, guint i)
{
  return g_ptr_array_index (c->markers, i);
}

/* Ensure scan/seq with n=5 emits exactly: phase "scan" begins, then read A[i] (8 bytes) and one
 * operation for i = 0..4, A[i] at consecutive addresses 8 bytes apart, then phase "scan" ends. */
static void
test_scan_seq_emits_exact_sequence (void **state)
{
  const MdlAlgo *a = mdl_algo_lookup ("scan/seq", NULL);
  TestCollector *c = test_collector_new ();
  guint64 base;
  (void) state;
  assert_non_null (a);
  run_collected (a, 5, 42, c, 3);
  /* The two site markers name the MDL_READ and MDL_OPS lines before the first batch. */
  assert_string_equal (c->order->str, "mmmccccccccccm");
  assert_int_equal (c->markers->len, 4);
  assert_int_equal (marker_at (c, 0)->marker.kind, MDL_MARK_PHASE_BEGIN);
  assert_string_equal (marker_at (c, 0)->name, "scan");
  for (guint m = 1; m <= 2; m++)
    {
      assert_int_equal (marker_at (c, m)->marker.kind, MDL_MARK_SITE);
      assert_true (g_str_has_prefix (marker_at (c, m)->name, "src/algos/cpu/scan.c:"));
      assert_int_equal (marker_at (c, m)->marker.site,
                        g_array_index (c->cpu, MdlCpuEvent, m - 1).site);
    }
  assert_int_equal (marker_at (c, 3)->marker.kind, MDL_MARK_PHASE_END);
  assert_string_equal (marker_at (c, 3)->name, "scan");
  base = g_array_index (c->cpu, MdlCpuEvent, 0).addr;
  for (guint i = 0; i < 10; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (i % 2 == 0
          && (e->kind != MDL_CPU_READ || e->size != 8 || e->addr != base + 8 * (i / 2)))
        fail_msg ("event %u: expected read of 8 bytes at base+%u, got kind %s size %u at base%+"
                  G_GINT64_FORMAT, i, 8 * (i / 2), mdl_cpu_kind_name (e->kind), e->size,
                  (gint64) (e->addr - base));
      if (i % 2 == 1 && (e->kind != MDL_CPU_OPS || e->addr != 1 || e->size != 0))
        fail_msg ("event %u: expected ops 1, got kind %s addr %" G_GUINT64_FORMAT, i,
                  mdl_cpu_kind_name (e->kind), e->addr);
    }
  test_collector_free (c);
}

/* Ensure scan/random reads 2n times and counts n operations: it reads pi(i) sequentially from one
 * array, and A[pi(i)] from another, touching each of A's n elements exactly once. */
static void
test_scan_random_reads_2n (void **state)
{
  const guint64 n = 1000;
  const MdlAlgo *a = mdl_algo_lookup ("scan/random", NULL);
  TestCollector *c = test_collector_new ();
  g_autofree gboolean *seen = g_new0 (gboolean, n);
  guint64 perm_base, a_base = G_MAXUINT64, ops = 0, reads = 0;
  (void) state;
  assert_non_null (a);
  run_collected (a, n, 9, c, 0);
  assert_int_equal (c->markers->len, 2 + 3);   /* the phase, and its 3 MDL_ lines' names */
  perm_base = g_array_index (c->cpu, MdlCpuEvent, 0).addr;
  /* Pass 1: A's base is the lowest address read at odd read positions. */
  for (guint i = 0, r = 0; i < c->cpu->len; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (e->kind == MDL_CPU_READ && r++ % 2 == 1)
        a_base = MIN (a_base, e->addr);
    }
  for (guint i = 0; i < c->cpu->len; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (e->kind == MDL_CPU_OPS)
        {
          ops += e->addr;
          continue;
        }
      assert_int_equal (e->kind, MDL_CPU_READ);
      assert_int_equal (e->size, 8);
      if (reads % 2 == 0)
        {
          if (e->addr != perm_base + 8 * (reads / 2))
            fail_msg ("read %" G_GUINT64_FORMAT ": pi(%" G_GUINT64_FORMAT ") not sequential", reads,
                      reads / 2);
        }
      else
        {
          guint64 k = (e->addr - a_base) / 8;
          if ((e->addr - a_base) % 8 != 0 || k >= n || seen[k])
            fail_msg ("read %" G_GUINT64_FORMAT ": A element %" G_GUINT64_FORMAT " out of place or "
                      "read twice", reads, k);
          seen[k] = TRUE;
        }
      reads++;
    }
  assert_int_equal (reads, 2 * n);
  assert_int_equal (ops, n);
  test_collector_free (c);
}

/* Ensure an unknown algorithm is MDL_ERROR_UNKNOWN_NAME listing every algorithm. */
static void
test_lookup_error_lists_names (void **state)
{
  GError *error = NULL;
  guint n;
  const MdlAlgo *all = mdl_algos (&n);
  (void) state;
  for (guint i = 0; i < n; i++)
    {
      assert_ptr_equal (mdl_algo_lookup (all[i].name, NULL), &all[i]);
      assert_non_null (strchr (all[i].name, '/'));
      assert_non_null (all[i].summary);
      assert_non_null (all[i].run);
      assert_non_null (all[i].run_native);
    }
  /* The list grows with every algorithm: check its head and the suggestion at its tail. */
  assert_null (mdl_algo_lookup ("scan/sq", &error));
  assert_non_null (error);
  assert_non_null (strstr (error->message, "(did you mean \"scan/seq\"?)"));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown algorithm \"scan/sq\"; valid: scan/seq, scan/random, ");
  assert_null (mdl_algo_lookup ("sort", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "valid: scan/seq, scan/random");
}

/* Ensure n=0, and an n too large to allocate, are MDL_ERROR_PARAM in both builds, before any
 * event is emitted. */
static void
test_bad_sizes_are_param_errors (void **state)
{
  static const struct {
    guint64 n;
    const char *expect;
  } rows[] = {
    /* the element size is the algorithm's: 8 bytes, 4 for the sorts' 32-bit keys */
    { 0, "n=0: cannot allocate the array (0 elements of " },
    { G_MAXUINT64, "n=18446744073709551615: cannot allocate the array" },
  };
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  for (guint i = 0; i < n_algos; i++)
    for (guint r = 0; r < G_N_ELEMENTS (rows) && algos[i].run_timed != NULL; r++)
      {
        g_autoptr (MdlParams) params = algo_params (&algos[i]);
        TestCollector *c = test_collector_new ();
        MdlSink sink = test_collector_sink (c);
        g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 0);
        GError *error = NULL;
        guint64 sum = 0;
        if (algos[i].run (params, rows[r].n, 1, rec, &sum, &error))
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": accepted", algos[i].name, rows[r].n);
        if (rows[r].n == 0 && !g_str_has_suffix (error->message, " bytes); n must be at least 1"))
          fail_msg ("%s n=0: %s", algos[i].name, error->message);
        assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, rows[r].expect);
        assert_true (mdl_recorder_finish (rec, NULL));
        assert_int_equal (c->order->len, 0);
        if (algos[i].run_native (params, rows[r].n, 1, NULL, &sum, &error))
          fail_msg ("%s native n=%" G_GUINT64_FORMAT ": accepted", algos[i].name, rows[r].n);
        assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, rows[r].expect);
        test_collector_free (c);
      }
}

/* A sink that refuses every batch, as a full disk would. */
static gboolean
refuse_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  (void) data, (void) batch;
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "sink: disk full");
  return FALSE;
}

static gboolean
refuse_marker (void *data, const MdlMarker *marker, GError **error)
{
  return refuse_batch (data, NULL, error) && marker;
}

/* Ensure mdl_algo_run_into keeps one rule: the stream is finished even when the algorithm fails
 * (its events reach the sink), the algorithm's own error is reported when the sink took
 * everything, and a sink failure is reported before it. scan/leftright with mapping=literal runs
 * to the end and then fails its check past k^2 elements (64 > 4^2). */
static void
test_run_into_finishes_and_orders_errors (void **state)
{
  const MdlAlgo *a = mdl_algo_lookup ("scan/leftright", NULL);
  const char *const literal[] = { "mapping=literal", "k=4", NULL };
  g_autoptr (MdlParams) params = mdl_params_parse (a->name, a->params, literal, NULL);
  TestCollector *c = test_collector_new ();
  MdlSink collect = test_collector_sink (c);
  MdlSink refuse = { refuse_batch, refuse_marker, NULL };
  GError *error = NULL;
  guint64 sum = 7;
  (void) state;
  assert_false (mdl_algo_run_into (a, params, 64, 1, &collect, &sum, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "mapping=literal");
  assert_true (c->warp->len > 0);
  assert_int_equal (sum, 7);
  error = NULL;
  assert_false (mdl_algo_run_into (a, params, 64, 1, &refuse, NULL, &error));
  assert_mdl_error (error, MDL_ERROR_IO, "sink: disk full");
  test_collector_free (c);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_both_builds_agree),
    cmocka_unit_test (test_scan_seq_emits_exact_sequence),
    cmocka_unit_test (test_scan_random_reads_2n),
    cmocka_unit_test (test_lookup_error_lists_names),
    cmocka_unit_test (test_bad_sizes_are_param_errors),
    cmocka_unit_test (test_run_into_finishes_and_orders_errors),
  };
  return cmocka_run_group_tests_name ("algos", tests, NULL, NULL);
}
