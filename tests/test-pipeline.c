/* Tests of the pipeline (include/models/pipeline.h, src/models/pipeline.c): several engines in one
 * pass report exactly what separate runs report, on seeded random streams mixing CPU batches, warp
 * batches and markers; extra sinks see everything in order; events are counted; an engine's error
 * comes back prefixed by its spec ("picky", tests/picky.h, rejects high addresses). */
#include "helpers.h"
#include "picky.h"

#include <string.h>

#define DEFAULT_SEED 7321u

/* The engines of the one-pass tests: every built-in, with differing parameters. */
static const char *const pass_specs[] = {
  "count",
  "footprint",
  "footprint:page_bytes=256,line_bytes=32,buckets=10",
  "count",
  "picky:limit=0x800000000000",
};

/* ---- a seeded random stream ---- */

/* Appends a random valid warp instruction, with its lane addresses when listed, to @w and @lanes. */
static void
random_warp (GRand *rng, GArray *w, GArray *lanes)
{
  MdlWarpEvent e = { .active = g_rand_int (rng) | 1, .launch = 1,
                     .block = (guint32) g_rand_int_range (rng, 0, 4),
                     .warp = (guint16) g_rand_int_range (rng, 0, 8),
                     .op = (guint8) g_rand_int_range (rng, 0, MDL_WARP_N_OPS) };
  if (mdl_warp_is_memory (&e))
    {
      e.space = (guint8) g_rand_int_range (rng, MDL_SPACE_GLOBAL, MDL_SPACE_N);
      e.width = (guint16) (1u << g_rand_int_range (rng, 0, 5));
      if (g_rand_boolean (rng))
        {
          e.flags = MDL_WARP_STRIDED;
          e.base = (guint64) g_rand_int_range (rng, 0, 1 << 24);
          e.stride = (gint64) e.width * g_rand_int_range (rng, -2, 3);
          e.base += 64 * 16; /* lanes below lane 0 stay above address 0 */
        }
      else
        {
          e.first_addr = lanes->len;
          for (guint64 m = e.active; m; m &= m - 1)
            {
              guint64 a = (guint64) g_rand_int_range (rng, 0, 1 << 24);
              g_array_append_val (lanes, a);
            }
        }
    }
  else if (e.op == MDL_WARP_BRANCH)
    e.taken = e.active & g_rand_int (rng);
  g_array_append_val (w, e);
}

/* A random stream of @n_items items (CPU batches, warp batches, markers), collected in order.
 * Phases nest properly and are all closed at the end. */
static TestCollector *
random_stream (guint32 seed, guint n_items)
{
  static const char *const phase_names[] = { "a", "b", "c", "partition pass 1" };
  g_autoptr (GRand) rng = g_rand_new_with_seed (seed);
  g_autoptr (GPtrArray) open = g_ptr_array_new ();
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  for (guint i = 0; i < n_items || open->len; i++)
    {
      guint what = i < n_items ? (guint) g_rand_int_range (rng, 0, 10) : 9;
      if (what < 5)
        {
          MdlCpuEvent ev[64];
          guint n = (guint) g_rand_int_range (rng, 1, 65);
          MdlEventBatch b = { .cpu = ev, .n_cpu = n };
          for (guint k = 0; k < n; k++)
            {
              static const guint16 sizes[] = { 1, 2, 4, 8, 8, 8, 16, 3, 64, 512 };
              ev[k] = (MdlCpuEvent) { .kind = (guint8) g_rand_int_range (rng, 0, MDL_CPU_N_KINDS),
                                      .site = (guint16) g_rand_int_range (rng, 0, 3) };
              if (!mdl_cpu_is_access (ev[k].kind))   /* an op count or a branch */
                ev[k].addr = (guint64) g_rand_int_range (rng, 1, 100);
              else
                {
                  ev[k].size = sizes[g_rand_int_range (rng, 0, G_N_ELEMENTS (sizes))];
                  ev[k].addr = g_rand_boolean (rng)
                                 ? (guint64) g_rand_int_range (rng, 0, 1 << 16) * 8
                                 : 0x7f0000000000ull + (guint64) g_rand_int_range (rng, 0, 1 << 30);
                }
            }
          assert_true (sink.batch (sink.data, &b, NULL));
        }
      else if (what < 7)
        {
          g_autoptr (GArray) w = g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent));
          g_autoptr (GArray) lanes = g_array_new (FALSE, FALSE, sizeof (guint64));
          MdlEventBatch b;
          for (guint k = (guint) g_rand_int_range (rng, 1, 12); k > 0; k--)
            random_warp (rng, w, lanes);
          b = (MdlEventBatch) { .warp = (const MdlWarpEvent *) (void *) w->data, .n_warp = w->len,
                                .lane_addrs = (const guint64 *) (void *) lanes->data,
                                .n_lane_addrs = lanes->len };
          for (guint k = 0; k < w->len; k++)
            assert_true (mdl_warp_event_check (&b, &g_array_index (w, MdlWarpEvent, k), 32, NULL));
          assert_true (sink.batch (sink.data, &b, NULL));
        }
      else
        {
          MdlMarker m = { 0 };
          guint kind = (guint) g_rand_int_range (rng, 0, MDL_MARK_N_KINDS);
          if (i >= n_items || (kind == MDL_MARK_PHASE_END && open->len))
            {
              m.kind = MDL_MARK_PHASE_END;
              m.name = g_ptr_array_steal_index (open, open->len - 1);
            }
          else if (kind == MDL_MARK_PHASE_BEGIN || kind == MDL_MARK_PHASE_END)
            {
              m.kind = MDL_MARK_PHASE_BEGIN;
              m.name = phase_names[g_rand_int_range (rng, 0, G_N_ELEMENTS (phase_names))];
              g_ptr_array_add (open, (gpointer) m.name);
            }
          else
            {
              m.kind = (MdlMarkerKind) kind;
              if (kind == MDL_MARK_BARRIER)
                m = (MdlMarker) { .kind = MDL_MARK_BARRIER, .launch = 1,
                                  .block = (guint32) g_rand_int_range (rng, 0, 4) };
              if (kind == MDL_MARK_LAUNCH)
                m = (MdlMarker) { .kind = MDL_MARK_LAUNCH, .launch = 1, .grid_blocks = 4,
                                  .block_threads = 256, .warp_width = 32 };
              if (kind == MDL_MARK_SITE)
                m = (MdlMarker) { .kind = MDL_MARK_SITE, .site = 1, .name = "loop body" };
            }
          assert_true (sink.marker (sink.data, &m, NULL));
        }
    }
  return c;
}

/* A sink feeding one engine, for the separate runs. */
static gboolean
engine_batch (void *data, const MdlEventBatch *b, GError **error)
{
  return mdl_engine_consume (data, b, error);
}

static gboolean
engine_marker (void *data, const MdlMarker *m, GError **error)
{
  return mdl_engine_marker (data, m, error);
}

static char *
report_json (MdlReport *r)
{
  MdlReport *one[] = { r };
  MdlSourceInfo src = { "s", 0, 0.0 };
  GString *out = g_string_new (NULL);
  mdl_reports_write (&src, one, 1, MDL_FORMAT_JSON, out);
  return g_string_free (out, FALSE);
}

/* Ensure a pipeline of several engines reports, for each engine, exactly what that engine reports
 * when run alone on the same stream (delivered in other batch sizes), on 20 seeded streams; and
 * that it counts every CPU record, warp instruction and marker. */
static void
test_one_pass_equals_separate_runs (void **state)
{
  guint32 seed = test_seed (DEFAULT_SEED);
  (void) state;
  for (guint s = 0; s < 20; s++)
    {
      TestCollector *stream = random_stream (seed + s, 150);
      g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
      g_autoptr (GError) error = NULL;
      MdlSink sink = mdl_pipeline_sink (p);
      MdlReport **reports;
      guint n;
      for (guint i = 0; i < G_N_ELEMENTS (pass_specs); i++)
        if (!mdl_pipeline_add_engine_spec (p, pass_specs[i], &error))
          fail_msg ("%s: %s", pass_specs[i], error->message);
      if (!test_collector_replay (stream, &sink, 7, &error))
        fail_msg ("seed %u (MODELS_TEST_SEED) + %u: pipeline: %s", seed, s, error->message);
      if (mdl_pipeline_n_events (p) != stream->order->len)
        fail_msg ("seed %u + %u: %" G_GUINT64_FORMAT " events counted, %" G_GSIZE_FORMAT " sent",
                  seed, s, mdl_pipeline_n_events (p), stream->order->len);
      reports = mdl_pipeline_reports (p, &n);
      assert_int_equal (n, G_N_ELEMENTS (pass_specs));
      assert_null (reports[n]);
      for (guint i = 0; i < n; i++)
        {
          g_autoptr (MdlEngine) alone = mdl_engine_new (pass_specs[i], NULL);
          MdlSink one = { engine_batch, engine_marker, alone };
          g_autoptr (MdlReport) want = NULL;
          g_autofree char *want_json = NULL, *got_json = NULL;
          assert_string_equal (mdl_engine_spec (mdl_pipeline_engine (p, i)),
                               mdl_engine_spec (alone));
          if (!test_collector_replay (stream, &one, 64, &error))
            fail_msg ("seed %u + %u: %s alone: %s", seed, s, pass_specs[i], error->message);
          want = mdl_engine_report (alone);
          want_json = report_json (want);
          got_json = report_json (reports[i]);
          if (strcmp (want_json, got_json) != 0)
            fail_msg ("seed %u (MODELS_TEST_SEED) + %u: %s in the pipeline:\n%s\nalone:\n%s", seed,
                      s, pass_specs[i], got_json, want_json);
          mdl_report_free (reports[i]);
        }
      g_free (reports);
      test_collector_free (stream);
    }
}

/* Ensure extra sinks receive every batch and marker, in order, after the engines. */
static void
test_extra_sinks_receive_everything_in_order (void **state)
{
  TestCollector *stream = random_stream (test_seed (DEFAULT_SEED) ^ 0x55, 200);
  TestCollector *first = test_collector_new ();
  TestCollector *second = test_collector_new ();
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  MdlSink s1 = test_collector_sink (first), s2 = test_collector_sink (second);
  MdlSink sink = mdl_pipeline_sink (p);
  (void) state;
  assert_true (mdl_pipeline_add_engine_spec (p, "count", NULL));
  mdl_pipeline_add_sink (p, &s1);
  mdl_pipeline_add_sink (p, &s2);
  assert_true (test_collector_replay (stream, &sink, 13, NULL));
  test_collector_assert_equal (stream, first);
  test_collector_assert_equal (stream, second);
  assert_int_equal (mdl_pipeline_n_events (p), stream->order->len);
  test_collector_free (stream);
  test_collector_free (first);
  test_collector_free (second);
}

/* Ensure an engine's error comes back prefixed by its full spec, that engines before it have
 * consumed the batch while extra sinks have not, and that a phase error names its engine too. */
static void
test_engine_error_is_prefixed_by_its_spec (void **state)
{
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  TestCollector *after = test_collector_new ();
  MdlSink extra = test_collector_sink (after);
  MdlSink sink;
  MdlCpuEvent ok = { .kind = MDL_CPU_READ, .size = 8, .addr = 0x80 };
  MdlCpuEvent bad = { .kind = MDL_CPU_WRITE, .size = 8, .addr = 0x200 };
  MdlEventBatch b_ok = { .cpu = &ok, .n_cpu = 1 }, b_bad = { .cpu = &bad, .n_cpu = 1 };
  MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "never" };
  GError *error = NULL;
  guint n;
  MdlReport **reports;
  (void) state;
  assert_true (mdl_pipeline_add_engine_spec (p, "count", NULL));
  assert_true (mdl_pipeline_add_engine_spec (p, "picky:limit=0x100", NULL));
  mdl_pipeline_add_sink (p, &extra);
  sink = mdl_pipeline_sink (p);
  assert_true (sink.batch (sink.data, &b_ok, NULL));
  assert_false (sink.batch (sink.data, &b_bad, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL,
                    "picky:limit=256,delay_us=0: address 0x200 is at or beyond the limit");
  assert_int_equal (after->cpu->len, 1);
  reports = mdl_pipeline_reports (p, &n);
  assert_int_equal (mdl_report_lookup (reports[0], "cpu_writes")->count, 1);
  assert_int_equal (mdl_report_lookup (reports[1], "seen")->count, 1);
  for (guint i = 0; i < n; i++)
    mdl_report_free (reports[i]);
  g_free (reports);

  /* The first engine to fail on a marker is named: here count, on an unmatched phase end. */
  assert_false (sink.marker (sink.data, &end, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT,
                    "count: phase end \"never\" does not match any open phase");
  assert_int_equal (after->markers->len, 0);
  test_collector_free (after);
}

/* Ensure a bad spec leaves the pipeline unchanged, and engines keep the order they were added in. */
static void
test_bad_spec_leaves_pipeline_unchanged (void **state)
{
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  GError *error = NULL;
  (void) state;
  assert_int_equal (mdl_pipeline_n_engines (p), 0);
  assert_true (mdl_pipeline_add_engine_spec (p, "footprint:buckets=4", NULL));
  assert_false (mdl_pipeline_add_engine_spec (p, "footprint:buckets=1", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "footprint: buckets=1 is out of range");
  assert_false (mdl_pipeline_add_engine_spec (p, "countt", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "(did you mean \"count\"?)");
  mdl_pipeline_add_engine (p, mdl_engine_new ("count", NULL));
  assert_int_equal (mdl_pipeline_n_engines (p), 2);
  assert_string_equal (mdl_engine_spec (mdl_pipeline_engine (p, 0)),
                       "footprint:page_bytes=4096,line_bytes=64,buckets=4");
  assert_string_equal (mdl_engine_name (mdl_pipeline_engine (p, 1)), "count");
  assert_int_equal (mdl_pipeline_n_events (p), 0);
}

static int
group_setup (void **state)
{
  g_autoptr (GError) error = NULL;
  (void) state;
  g_unsetenv ("MODELS_MACHINES");
  if (!mdl_engine_register (&test_picky_class, &error))
    {
      print_error ("cannot register picky: %s\n", error->message);
      return -1;
    }
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_one_pass_equals_separate_runs),
    cmocka_unit_test (test_extra_sinks_receive_everything_in_order),
    cmocka_unit_test (test_engine_error_is_prefixed_by_its_spec),
    cmocka_unit_test (test_bad_spec_leaves_pipeline_unchanged),
  };
  return cmocka_run_group_tests_name ("pipeline", tests, group_setup, NULL);
}
