/* Tests of the threaded pipeline (mdl_pipeline_set_threads, src/models/pipeline-threads.c): every
 * built-in engine reports byte for byte what the serial pipeline reports, on a CPU and a GPU
 * source, on 1, 2 and 7 threads and with queues down to one chunk of one item; each engine sees the
 * same items in the same order ("trail", a test engine, hashes everything it is given); the
 * producer never runs more than the queue ahead of the slowest engine (and its stats count the
 * waits); an engine failing mid-stream or on a marker and a sink failing stop the run with their
 * own message. */
#include "helpers.h"
#include "picky.h"
#include "models/pipeline-threads.h"

#include <string.h>

/* ---- test engines ---- */

/* "trail": a running hash of every batch (its boundaries and bytes) and marker (every field and
 * the name's text), in order. Unequal trails mean an engine was shown a different stream. */
typedef struct {
  guint64 hash, n_batches, n_markers;
} Trail;

static void
trail_mix (Trail *t, const void *data, gsize bytes)
{
  const guint8 *p = data;
  for (gsize i = 0; i < bytes; i++)
    t->hash = (t->hash ^ p[i]) * 0x100000001b3ull;   /* FNV-1a */
}

/* Field by field: a struct's padding bytes are not part of what it says. */
#define MIX(t, field) trail_mix ((t), &(field), sizeof (field))

static gboolean
trail_init (void *state, const MdlParams *params, GError **error)
{
  Trail *t = state;
  (void) params;
  (void) error;
  t->hash = 0xcbf29ce484222325ull;
  return TRUE;
}

static gboolean
trail_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Trail *t = state;
  (void) error;
  t->n_batches++;
  trail_mix (t, &b->n_cpu, sizeof b->n_cpu);
  trail_mix (t, &b->n_warp, sizeof b->n_warp);
  trail_mix (t, b->cpu, b->n_cpu * sizeof *b->cpu);   /* 16 bytes, no padding */
  /* Each instruction and its lanes' addresses, not where the batch keeps them (first_addr). */
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *w = &b->warp[i];
      guint64 addrs[MDL_WARP_MAX_LANES];
      MIX (t, w->active);
      MIX (t, w->taken);
      MIX (t, w->base);
      MIX (t, w->stride);
      MIX (t, w->launch);
      MIX (t, w->block);
      MIX (t, w->warp);
      MIX (t, w->width);
      MIX (t, w->site);
      MIX (t, w->op);
      MIX (t, w->space);
      MIX (t, w->flags);
      if (mdl_warp_is_memory (w))
        {
          mdl_warp_addrs (b, w, addrs);
          for (guint64 m = w->active; m; m &= m - 1)
            MIX (t, addrs[__builtin_ctzll (m)]);
        }
    }
  return TRUE;
}

static gboolean
trail_marker (void *state, const MdlMarker *m, GError **error)
{
  Trail *t = state;
  (void) error;
  t->n_markers++;
  MIX (t, m->kind);
  MIX (t, m->launch);
  MIX (t, m->block);
  MIX (t, m->grid_blocks);
  MIX (t, m->block_threads);
  MIX (t, m->shared_bytes);
  MIX (t, m->warp_width);
  MIX (t, m->site);
  if (m->name)
    trail_mix (t, m->name, strlen (m->name) + 1);
  return TRUE;
}

static void
trail_report (void *state, MdlReport *out)
{
  Trail *t = state;
  mdl_report_add_count (out, "hash", "hash", "FNV-1a of everything seen, in order", NULL, t->hash);
  mdl_report_add_count (out, "batches", "count", "batches seen", NULL, t->n_batches);
  mdl_report_add_count (out, "markers", "count", "markers seen", NULL, t->n_markers);
}

static const MdlParamSpec no_params[] = { { NULL } };

static const MdlEngineClass trail_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "trail",
  .summary = "hashes the stream it is shown (test engine)",
  .params = no_params,
  .state_size = sizeof (Trail),
  .init = trail_init,
  .consume = trail_consume,
  .marker = trail_marker,
  .report = trail_report,
};

/* ---- runs ---- */

/* The sources: a CPU algorithm with phases and a GPU one with a launch, barriers and phases every
 * few hundred events (bitonic), and the data-dependent GPU-Quicksort. */
static const struct {
  const char *algo;
  guint64 n;
} sources[] = {
  { "heap/sort", 1000 },
  { "sort/bitonic", 2048 },
  { "sort/gpu-quicksort", 1000 },
};

/* Every built-in engine with its defaults, and trail; NULL-terminated (transfer container). */
static const char **
all_specs (guint *n_specs)
{
  guint n;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n);
  const char **specs = g_new0 (const char *, n + 1);
  *n_specs = 0;
  for (guint i = 0; i < n; i++)
    if (strcmp (classes[i]->name, "picky") != 0)
      specs[(*n_specs)++] = classes[i]->name;
  return specs;
}

typedef struct {
  guint n_threads;      /* 0: serial */
  guint n_chunks;       /* 0: the default queue */
  gsize chunk_bytes;
  gboolean by_site;
} Setup;

/* A pipeline of the NULL-terminated @specs, set up as @s. */
static MdlPipeline *
pipeline_new (const char *const *specs, const Setup *s)
{
  MdlPipeline *p = mdl_pipeline_new ();
  for (guint i = 0; specs[i]; i++)
    {
      g_autoptr (GError) error = NULL;
      if (!mdl_pipeline_add_engine_spec (p, specs[i], &error))
        fail_msg ("%s: %s", specs[i], error->message);
      if (s->by_site)
        mdl_engine_set_site_phases (mdl_pipeline_engine (p, i), TRUE);
    }
  mdl_pipeline_set_threads (p, s->n_threads);
  if (s->n_chunks)
    mdl_pipeline_set_queue (p, s->n_chunks, s->chunk_bytes);
  return p;
}

/* Every report of @p as one JSON document (transfer full). */
static char *
reports_json (MdlPipeline *p)
{
  guint n;
  MdlReport **r = mdl_pipeline_reports (p, &n);
  MdlSourceInfo src = { "s", mdl_pipeline_n_events (p), 0.0 };
  GString *out = g_string_new (NULL);
  mdl_reports_write (&src, r, n, MDL_FORMAT_JSON, out);
  for (guint i = 0; i < n; i++)
    mdl_report_free (r[i]);
  g_free (r);
  return g_string_free (out, FALSE);
}

/* The count @name of the report of @p's engine @i. */
static guint64
pipeline_count (MdlPipeline *p, guint i, const char *name)
{
  guint n;
  MdlReport **r = mdl_pipeline_reports (p, &n);
  guint64 count = test_report_count (r[i], name);
  for (guint k = 0; k < n; k++)
    mdl_report_free (r[k]);
  g_free (r);
  return count;
}

/* Runs algorithm @name on @n into a pipeline of @specs set up as @s, then flushes it; the
 * reports as JSON. */
static char *
run_algo (const char *name, guint64 n, const char *const *specs, const Setup *s)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) p = pipeline_new (specs, s);
  const MdlAlgo *algo = mdl_algo_lookup (name, &error);
  MdlSink sink = mdl_pipeline_sink (p);
  if (algo == NULL || (params = mdl_params_parse (algo->name, algo->params, NULL, &error)) == NULL
      || !mdl_algo_run_into (algo, params, n, 1, &sink, NULL, &error)
      || !mdl_pipeline_flush (p, &error))
    fail_msg ("%s on %u threads: %s", name, s->n_threads, error->message);
  return reports_json (p);
}

/* Runs source @k as run_algo() does. */
static char *
run_source (guint k, const char *const *specs, const Setup *s)
{
  return run_algo (sources[k].algo, sources[k].n, specs, s);
}

/* Ensure every built-in engine (and trail) reports byte for byte the same on 1, 2 and 7 threads,
 * with the default queue, one chunk of one item, and three small chunks, as without threads, on
 * a CPU and two GPU sources, with site phases off and on. */
static void
test_every_engine_reports_as_serial (void **state)
{
  static const Setup setups[] = {
    { 1, 0, 0, FALSE }, { 2, 0, 0, FALSE }, { 7, 0, 0, FALSE },
    { 2, 1, 0, FALSE }, { 7, 3, 4096, FALSE }, { 2, 0, 0, TRUE }, { 7, 2, 1024, TRUE },
  };
  guint n_specs;
  g_autofree const char **specs = all_specs (&n_specs);
  (void) state;
  assert_true (n_specs >= 16);   /* the 15 built-ins and trail */
  for (guint k = 0; k < G_N_ELEMENTS (sources); k++)
    for (guint by_site = 0; by_site < 2; by_site++)
      {
        Setup serial = { 0, 0, 0, by_site };
        g_autofree char *want = run_source (k, specs, &serial);
        for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
          {
            g_autofree char *got = NULL;
            if (setups[i].by_site != (gboolean) by_site)
              continue;
            got = run_source (k, specs, &setups[i]);
            if (strcmp (want, got) != 0)
              fail_msg ("%s, %u threads, queue %u x %" G_GSIZE_FORMAT " bytes, by site %d: the "
                        "reports differ from the serial pipeline's:\n%s\nserial:\n%s",
                        sources[k].algo, setups[i].n_threads, setups[i].n_chunks,
                        setups[i].chunk_bytes, by_site, got, want);
          }
      }
}

/* Ensure each sort's SIMT twin (issue 13's sources) gets the same reports from the six GPU
 * engines on worker threads as from the serial pipeline: one worker per engine, two workers, and
 * a queue of small chunks, at sizes that are not powers of two. */
static void
test_sorts_through_six_engines_report_as_serial (void **state)
{
  static const char *const six[] = { "coalesce:machine=h100", "banks:machine=h100",
                                     "divergence:machine=h100", "agpu", "kmodel", "msimd", NULL };
  static const char *const sorts[] = { "sort/bitonic", "sort/warpsort", "sort/dway-merge",
                                       "sort/gpu-quicksort", "sort/msimd-quicksort" };
  static const Setup setups[] = { { 6, 0, 0, FALSE }, { 2, 0, 0, FALSE }, { 6, 4, 8192, FALSE } };
  const Setup serial = { 0, 0, 0, FALSE };
  (void) state;
  for (guint k = 0; k < G_N_ELEMENTS (sorts); k++)
    {
      g_autofree char *want = run_algo (sorts[k], 3000, six, &serial);
      for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
        {
          g_autofree char *got = run_algo (sorts[k], 3000, six, &setups[i]);
          if (strcmp (want, got) != 0)
            fail_msg ("%s, %u threads, queue %u x %" G_GSIZE_FORMAT " bytes: the reports differ "
                      "from the serial pipeline's:\n%s\nserial:\n%s", sorts[k],
                      setups[i].n_threads, setups[i].n_chunks, setups[i].chunk_bytes, got, want);
        }
    }
}

/* Ensure the further sinks see the whole stream in order on the producer's thread, and each
 * engine the same batches and markers as a lone trail fed by a serial pipeline. */
static void
test_sinks_and_engines_see_the_same_stream (void **state)
{
  static const char *const specs[] = { "trail", "count", "trail", "agpu", "trail", NULL };
  static const char *const one[] = { "trail", NULL };
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) p = NULL, alone = NULL;
  g_autoptr (GError) error = NULL;
  TestCollector *stream = test_collector_new ();
  TestCollector *seen = test_collector_new ();
  MdlSink record = test_collector_sink (stream), extra = test_collector_sink (seen);
  const Setup tiny = { 2, 2, 64, FALSE }, serial = { 0, 0, 0, FALSE };
  const MdlAlgo *algo = mdl_algo_lookup ("sort/bitonic", NULL);
  MdlSink sink, alone_sink;
  MdlReport **got, **want;
  guint n, n_want;
  (void) state;
  params = mdl_params_parse (algo->name, algo->params, NULL, NULL);
  assert_true (mdl_algo_run_into (algo, params, 2048, 3, &record, NULL, NULL));

  p = pipeline_new (specs, &tiny);
  mdl_pipeline_add_sink (p, &extra);
  sink = mdl_pipeline_sink (p);
  /* Batches of 7: many more items than the two chunks of the queue hold. */
  if (!test_collector_replay (stream, &sink, 7, &error) || !mdl_pipeline_flush (p, &error))
    fail_msg ("%s", error->message);
  test_collector_assert_equal (stream, seen);

  alone = pipeline_new (one, &serial);
  alone_sink = mdl_pipeline_sink (alone);
  assert_true (test_collector_replay (stream, &alone_sink, 7, NULL));
  want = mdl_pipeline_reports (alone, &n_want);
  assert_int_equal (test_report_count (want[0], "markers"), stream->markers->len);
  got = mdl_pipeline_reports (p, &n);
  for (guint i = 0; i < n; i += 2)
    for (guint c = 0; c < 3; c++)
      {
        const char *name = mdl_report_counter (want[0], c)->name;
        if (test_report_count (got[i], name) != test_report_count (want[0], name))
          fail_msg ("engine %u: %s %" G_GUINT64_FORMAT ", alone %" G_GUINT64_FORMAT, i, name,
                    test_report_count (got[i], name), test_report_count (want[0], name));
      }
  for (guint i = 0; i < n; i++)
    mdl_report_free (got[i]);
  g_free (got);
  mdl_report_free (want[0]);
  g_free (want);
  test_collector_free (stream);
  test_collector_free (seen);
}

/* A batch of 16 reads of 8 bytes from @base. */
static MdlEventBatch
reads_at (MdlCpuEvent ev[16], guint64 base)
{
  for (guint i = 0; i < 16; i++)
    ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = base + 8 * i };
  return (MdlEventBatch) { .cpu = ev, .n_cpu = 16 };
}

/* Ensure the producer waits while the queue is full: with a queue of @n_chunks chunks of one
 * item each, once the k-th batch is in, the slow engine (picky with a delay) has accepted at
 * least k - n_chunks batches, for 1 and 3 chunks. */
static void
test_producer_waits_for_a_full_queue (void **state)
{
  (void) state;
  for (guint n_chunks = 1; n_chunks <= 3; n_chunks += 2)
    {
      static const char *const specs[] = { "count", "picky:limit=0x100000,delay_us=200", NULL };
      const Setup s = { 2, n_chunks, 0, FALSE };
      g_autoptr (MdlPipeline) p = pipeline_new (specs, &s);
      MdlPipelineStats stats;
      MdlSink sink;
      sink = mdl_pipeline_sink (p);
      g_atomic_int_set (&test_picky_batches, 0);
      for (guint k = 1; k <= 100; k++)
        {
          MdlCpuEvent ev[16];
          MdlEventBatch b = reads_at (ev, 64 * k);
          assert_true (sink.batch (sink.data, &b, NULL));
          if ((guint) g_atomic_int_get (&test_picky_batches) + n_chunks < k)
            fail_msg ("%u chunks: batch %u is in, the engine has taken only %d", n_chunks, k,
                      g_atomic_int_get (&test_picky_batches));
        }
      assert_true (mdl_pipeline_flush (p, NULL));
      assert_int_equal (g_atomic_int_get (&test_picky_batches), 100);
      assert_int_equal (pipeline_count (p, 0, "cpu_reads"), 1600);
      /* The stats say so too: a chunk a batch, and a producer that waited (the engine takes
       * 200 us a batch, the producer microseconds), with the workers' time per engine. */
      mdl_pipeline_stats (p, &stats);
      assert_int_equal (stats.n_chunks, 100);
      assert_int_equal (stats.n_engines, 2);
      assert_true (stats.producer_waits >= 1);
      assert_true (stats.engine_cpu_s[0] > 0 && stats.engine_cpu_s[1] > 0);
    }
}

/* Ensure an engine that fails mid-stream stops a threaded run with its own message, prefixed by
 * its spec: the producer learns it at a later event or at the flush, every call after that fails
 * with the same message, the failing engine took exactly the batches before the bad one, and the
 * other engines can still be reported. */
static void
test_engine_failing_mid_stream_stops_the_run (void **state)
{
  (void) state;
  for (guint threads = 1; threads <= 7; threads += 6)
    {
      static const char *const specs[] = { "count", "picky:limit=0x10000", "trail", NULL };
      const Setup s = { threads, 4, 0, FALSE };
      g_autoptr (MdlPipeline) p = pipeline_new (specs, &s);
      GError *error = NULL;
      MdlSink sink;
      guint k;
      sink = mdl_pipeline_sink (p);
      g_atomic_int_set (&test_picky_batches, 0);
      /* Batch 50 reads at 0x10000 and beyond; the source goes on until it is told. */
      for (k = 1; k <= 1000; k++)
        {
          MdlCpuEvent ev[16];
          MdlEventBatch b = reads_at (ev, k == 50 ? 0x10000 : 64 * k);
          if (!sink.batch (sink.data, &b, &error))
            break;
        }
      if (k > 1000)
        assert_false (mdl_pipeline_flush (p, &error));
      assert_true (k > 50);
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL,
                        "picky:limit=65536,delay_us=0: address 0x10000 is at or beyond the limit");
      assert_false (mdl_pipeline_flush (p, &error));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL, "picky:limit=65536");
      {
        MdlMarker sync = { .kind = MDL_MARK_SYNC };
        assert_false (sink.marker (sink.data, &sync, &error));
        assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL, "address 0x10000");
      }
      assert_int_equal (g_atomic_int_get (&test_picky_batches), 49);
      assert_true (pipeline_count (p, 0, "cpu_reads") >= 49 * 16);
    }
}

/* Ensure an engine failing on a marker is named as in the serial pipeline: of count and trail,
 * which both refuse a phase end that matches no phase, the first added; at the flush, when the
 * marker was the last event. */
static void
test_engine_failing_on_a_marker_is_named (void **state)
{
  static const char *const specs[] = { "count", "trail", NULL };
  const Setup s = { 2, 0, 0, FALSE };
  g_autoptr (MdlPipeline) p = pipeline_new (specs, &s);
  MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "never" };
  MdlCpuEvent ev[16];
  MdlEventBatch b = reads_at (ev, 0);
  GError *error = NULL;
  MdlSink sink;
  (void) state;
  sink = mdl_pipeline_sink (p);
  assert_true (sink.batch (sink.data, &b, NULL));
  /* Queued, not yet consumed: the default chunk holds far more than this. */
  assert_true (sink.marker (sink.data, &end, NULL));
  assert_false (mdl_pipeline_flush (p, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT,
                    "count: phase end \"never\" does not match any open phase");
}

typedef struct {
  guint left;       /* batches to accept before failing */
  guint n_batches;
} FailingSink;

static gboolean
failing_batch (void *data, const MdlEventBatch *b, GError **error)
{
  FailingSink *f = data;
  (void) b;
  if (f->left == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "out.bin: no space left on device");
      return FALSE;
    }
  f->left--;
  f->n_batches++;
  return TRUE;
}

static gboolean
failing_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) data;
  (void) m;
  (void) error;
  return TRUE;
}

/* Ensure a further sink that fails (a trace writer on a full disk) stops the source at once with
 * its own message, and that the engines then report what the serial pipeline's engines report
 * after the same failure (they took the batch the sink refused, as serial engines do). */
static void
test_failing_sink_stops_the_source (void **state)
{
  static const Setup setups[] = { { 0, 0, 0, FALSE }, { 1, 0, 0, FALSE }, { 7, 2, 0, FALSE } };
  g_autofree char *serial = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (setups); i++)
    {
      static const char *const specs[] = { "count", "trail", "footprint", NULL };
      g_autoptr (MdlPipeline) p = pipeline_new (specs, &setups[i]);
      g_autofree char *json = NULL;
      FailingSink f = { 30, 0 };
      MdlSink extra = { failing_batch, failing_marker, &f }, sink;
      GError *error = NULL;
      guint k;
      mdl_pipeline_add_sink (p, &extra);
      sink = mdl_pipeline_sink (p);
      for (k = 1; k <= 100; k++)
        {
          MdlCpuEvent ev[16];
          MdlEventBatch b = reads_at (ev, 4096 * k);
          if (!sink.batch (sink.data, &b, &error))
            break;
        }
      assert_int_equal (k, 31);
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "out.bin: no space left on device");
      assert_true (mdl_pipeline_flush (p, NULL));
      assert_int_equal (pipeline_count (p, 0, "cpu_reads"), 31 * 16);
      json = reports_json (p);
      if (serial == NULL)
        serial = g_steal_pointer (&json);
      else
        assert_string_equal (json, serial);
    }
}

static int
group_setup (void **state)
{
  g_autoptr (GError) error = NULL;
  (void) state;
  g_unsetenv ("MODELS_MACHINES");
  if (!mdl_engine_register (&trail_class, &error) || !mdl_engine_register (&test_picky_class, &error))
    {
      print_error ("cannot register the test engines: %s\n", error->message);
      return -1;
    }
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_engine_reports_as_serial),
    cmocka_unit_test (test_sorts_through_six_engines_report_as_serial),
    cmocka_unit_test (test_sinks_and_engines_see_the_same_stream),
    cmocka_unit_test (test_producer_waits_for_a_full_queue),
    cmocka_unit_test (test_engine_failing_mid_stream_stops_the_run),
    cmocka_unit_test (test_engine_failing_on_a_marker_is_named),
    cmocka_unit_test (test_failing_sink_stops_the_source),
  };
  return cmocka_run_group_tests_name ("pipeline-threads", tests, group_setup, NULL);
}
