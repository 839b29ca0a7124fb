/* Tests of the recorder (include/models/record.h, src/traces/recorder.c): batching at the producer,
 * merging of operation counts, markers flushing first, sink failures latched until finish, freeing
 * as good as finishing for the counts, the event count, the instrumentation macros, and batches a
 * sink holds left unchanged. */
#include "helpers.h"

#include <math.h>
#include <string.h>

typedef struct {
  TestCollector *got;
  MdlRecorder *rec;
} Fixture;

static int
fixture_setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  f->got = test_collector_new ();
  *state = f;
  return 0;
}

static int
fixture_teardown (void **state)
{
  Fixture *f = *state;
  mdl_recorder_free (f->rec);
  test_collector_free (f->got);
  g_free (f);
  return 0;
}

static MdlRecorder *
recorder_for (Fixture *f, guint batch_events)
{
  MdlSink sink = test_collector_sink (f->got);
  f->rec = mdl_recorder_new (&sink, batch_events);
  return f->rec;
}

static const MdlCpuEvent *
cpu_at (const TestCollector *c, guint i)
{
  return &g_array_index (c->cpu, MdlCpuEvent, i);
}

/* Ensure mapped regions are recorded from MDL_RECORDER_MAP_BASE, one after the other at 2 MiB
 * boundaries in mapping order, accesses outside them unchanged, and a region mapped over an earlier
 * one's bytes replacing it (worked out by hand). */
static void
test_map_moves_accesses_to_simulated_addresses (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 4);
  const guint64 base = MDL_RECORDER_MAP_BASE, huge = 2u << 20;
  static guint8 a[100], b[3 << 20];
  guint64 outside = (guint64) (uintptr_t) &f->got;
  mdl_recorder_map (rec, a, sizeof a);
  mdl_recorder_map (rec, b, sizeof b);
  mdl_recorder_access (rec, MDL_CPU_READ, (guint64) (uintptr_t) &a[0], 8);
  mdl_recorder_access (rec, MDL_CPU_WRITE, (guint64) (uintptr_t) &b[5], 1);
  mdl_recorder_access (rec, MDL_CPU_READ, (guint64) (uintptr_t) &a[99], 1);
  mdl_recorder_access (rec, MDL_CPU_MODIFY, (guint64) (uintptr_t) &b[sizeof b - 1], 1);
  mdl_recorder_access (rec, MDL_CPU_READ, outside, 8);
  mdl_recorder_ops (rec, 7);
  mdl_recorder_map (rec, a + 50, 10);   /* replaces a: its other bytes are unmapped now */
  mdl_recorder_access (rec, MDL_CPU_READ, (guint64) (uintptr_t) &a[52], 1);
  mdl_recorder_access (rec, MDL_CPU_READ, (guint64) (uintptr_t) &a[0], 1);
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_int_equal (f->got->cpu->len, 8);
  assert_int_equal (cpu_at (f->got, 0)->addr, base);
  assert_int_equal (cpu_at (f->got, 1)->addr, base + huge + 5);
  assert_int_equal (cpu_at (f->got, 2)->addr, base + 99);
  assert_int_equal (cpu_at (f->got, 3)->addr, base + huge + sizeof b - 1);
  assert_int_equal (cpu_at (f->got, 4)->addr, outside);
  assert_int_equal (cpu_at (f->got, 5)->kind, MDL_CPU_OPS);
  assert_int_equal (cpu_at (f->got, 5)->addr, 7);   /* a count, not an address */
  assert_int_equal (cpu_at (f->got, 6)->addr, base + 3 * huge + 2);   /* b took two huge pages */
  assert_int_equal (cpu_at (f->got, 7)->addr, (guint64) (uintptr_t) &a[0]);
}

/* Ensure a recorder of 3 events per batch delivers 10 accesses as batches of 3, 3, 3 while
 * recording and the last 1 at finish, in order, with the event count including pending ones. */
static void
test_batches_of_three (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 3);
  for (guint i = 0; i < 10; i++)
    {
      mdl_recorder_access (rec, MDL_CPU_READ, 0x1000 + 8 * i, 8);
      /* A batch leaves as soon as the third event of it arrives. */
      assert_int_equal (f->got->n_batches, (i + 1) / 3);
      assert_int_equal (mdl_recorder_n_events (rec), i + 1);
    }
  assert_int_equal (f->got->cpu->len, 9);
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_int_equal (f->got->n_batches, 4);
  assert_int_equal (f->got->cpu->len, 10);
  for (guint i = 0; i < 10; i++)
    {
      const MdlCpuEvent *e = cpu_at (f->got, i);
      if (e->kind != MDL_CPU_READ || e->size != 8 || e->addr != 0x1000 + 8 * i || e->flags != 0)
        fail_msg ("event %u: kind %u size %u addr 0x%" G_GINT64_MODIFIER "x", i, e->kind, e->size,
                  e->addr);
    }
  /* Finishing again with nothing pending delivers nothing more. */
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_int_equal (f->got->n_batches, 4);
}

/* Ensure batch_events=0 means batches of 4096. */
static void
test_default_batch_is_4096 (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 0);
  for (guint i = 0; i < 4095; i++)
    mdl_recorder_access (rec, MDL_CPU_WRITE, i, 1);
  assert_int_equal (f->got->n_batches, 0);
  mdl_recorder_access (rec, MDL_CPU_WRITE, 4095, 1);
  assert_int_equal (f->got->n_batches, 1);
  assert_int_equal (f->got->cpu->len, 4096);
}

/* Ensure consecutive operation counts merge into one record (counted once), and counts separated
 * by an access, or by a delivered batch, do not. With 3 per batch:
 *   ops 2, ops 3 -> one OPS(5); read; ops 1 -> batch [OPS 5, R, OPS 1] leaves on the third record;
 *   ops 4 then starts a new record (the previous one is gone); ops 6 merges -> OPS(10). */
static void
test_op_counts_merge (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 3);
  mdl_recorder_ops (rec, 2);
  mdl_recorder_ops (rec, 3);
  assert_int_equal (mdl_recorder_n_events (rec), 1);
  mdl_recorder_access (rec, MDL_CPU_READ, 0x40, 4);
  mdl_recorder_ops (rec, 1);
  assert_int_equal (f->got->n_batches, 1);
  mdl_recorder_ops (rec, 4);
  mdl_recorder_ops (rec, 6);
  assert_int_equal (mdl_recorder_n_events (rec), 4);
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_int_equal (f->got->cpu->len, 4);
  assert_int_equal (cpu_at (f->got, 0)->kind, MDL_CPU_OPS);
  assert_int_equal (cpu_at (f->got, 0)->addr, 5);
  assert_int_equal (cpu_at (f->got, 0)->size, 0);
  assert_int_equal (cpu_at (f->got, 1)->kind, MDL_CPU_READ);
  assert_int_equal (cpu_at (f->got, 2)->addr, 1);
  assert_int_equal (cpu_at (f->got, 3)->kind, MDL_CPU_OPS);
  assert_int_equal (cpu_at (f->got, 3)->addr, 10);
}

/* Ensure a marker flushes the pending events first, so the sink sees program order:
 * R W | sync | R | begin p | end p | R  ->  "cc" "m" "c" "m" "m" "c". */
static void
test_markers_flush_pending_events_first (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 100);
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  const TestMarker *m;
  mdl_recorder_access (rec, MDL_CPU_READ, 0x10, 8);
  mdl_recorder_access (rec, MDL_CPU_WRITE, 0x18, 8);
  mdl_recorder_marker (rec, &sync);
  mdl_recorder_access (rec, MDL_CPU_READ, 0x20, 8);
  mdl_recorder_phase_begin (rec, "p");
  mdl_recorder_phase_end (rec, "p");
  mdl_recorder_access (rec, MDL_CPU_MODIFY, 0x28, 8);
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_string_equal (f->got->order->str, "ccmcmmc");
  assert_int_equal (f->got->n_batches, 3);
  assert_int_equal (mdl_recorder_n_events (rec), 4); /* markers are not CPU records */
  m = g_ptr_array_index (f->got->markers, 1);
  assert_int_equal (m->marker.kind, MDL_MARK_PHASE_BEGIN);
  assert_string_equal (m->name, "p");
  m = g_ptr_array_index (f->got->markers, 2);
  assert_int_equal (m->marker.kind, MDL_MARK_PHASE_END);
  assert_string_equal (m->name, "p");
}

/* Ensure events carry the current site, and the instrumentation macros record the size of what
 * the pointer points to and its address. */
static void
test_sites_and_macros (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 8);
  guint8 byte = 0;
  guint32 word = 0;
  struct { char bytes[24]; } blob;
  guint modify_line;
  const MdlSite *site;
  mdl_recorder_set_site (rec, 7);
  MDL_READ (rec, &byte);
  MDL_WRITE (rec, &word);
  mdl_recorder_set_site (rec, 0);
  MDL_MODIFY (rec, &blob); modify_line = __LINE__;
  MDL_OPS (rec, 3);
  MDL_PHASE_BEGIN (rec, "m");
  MDL_PHASE_END (rec, "m");
  assert_true (mdl_recorder_finish (rec, NULL));
  assert_string_equal (f->got->order->str, "ccccmm");
  assert_int_equal (cpu_at (f->got, 0)->size, 1);
  assert_int_equal (cpu_at (f->got, 0)->addr, (guint64) (uintptr_t) &byte);
  assert_int_equal (cpu_at (f->got, 0)->site, 7);
  assert_int_equal (cpu_at (f->got, 1)->kind, MDL_CPU_WRITE);
  assert_int_equal (cpu_at (f->got, 1)->size, 4);
  assert_int_equal (cpu_at (f->got, 1)->site, 7);
  assert_int_equal (cpu_at (f->got, 2)->kind, MDL_CPU_MODIFY);
  assert_int_equal (cpu_at (f->got, 2)->size, 24);
  /* With no site set, a macro records its own call site (and this recorder, given sites by its
   * caller before, names none: no marker). */
  site = mdl_site_table_get (mdl_code_sites (), cpu_at (f->got, 2)->site);
  assert_non_null (site);
  assert_int_equal (site->line, modify_line);
  assert_true (g_str_has_suffix (site->file, "test-recorder.c"));
  assert_int_equal (cpu_at (f->got, 3)->kind, MDL_CPU_OPS);
  assert_int_equal (cpu_at (f->got, 3)->addr, 3);
}

/* Ensure the macros name their call sites: before the batch holding a site's first event, one
 * MDL_MARK_SITE marker per site, named FILE:LINE; a site already named is not named again. */
static void
test_macros_name_their_sites (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 4);
  guint64 x = 0, y = 0;
  guint first_line;
  const TestMarker *m;
  g_autofree char *want = NULL;
  for (guint i = 0; i < 3; i++)
    {
      MDL_READ (rec, &x); first_line = __LINE__;
      MDL_WRITE (rec, &y);
    }
  assert_true (mdl_recorder_finish (rec, NULL));
  /* 6 events in batches of 4: the first batch introduces both sites. */
  assert_string_equal (f->got->order->str, "mmcccccc");
  m = g_ptr_array_index (f->got->markers, 0);
  assert_int_equal (m->marker.kind, MDL_MARK_SITE);
  want = g_strdup_printf ("%s:%u", __FILE__, first_line);
  assert_string_equal (m->name, want);
  assert_int_equal (m->marker.site, cpu_at (f->got, 0)->site);
  m = g_ptr_array_index (f->got->markers, 1);
  assert_int_equal (m->marker.site, cpu_at (f->got, 1)->site);
  assert_int_not_equal (cpu_at (f->got, 0)->site, cpu_at (f->got, 1)->site);
}

/* A sink whose batch callback fails from its @fail_at-th call on; counts the calls it gets. */
typedef struct {
  guint batch_calls;
  guint marker_calls;
  guint fail_at;
  gboolean fail_markers;
} FailingSink;

static gboolean
failing_batch (void *data, const MdlEventBatch *b, GError **error)
{
  FailingSink *s = data;
  (void) b;
  if (++s->batch_calls >= s->fail_at)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "out.bin: disk full at call %u", s->batch_calls);
      return FALSE;
    }
  return TRUE;
}

static gboolean
failing_marker (void *data, const MdlMarker *m, GError **error)
{
  FailingSink *s = data;
  (void) m;
  s->marker_calls++;
  if (s->fail_markers)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "out.bin: marker refused");
      return FALSE;
    }
  return TRUE;
}

/* Ensure the first sink failure is kept: later batches and markers are dropped (the sink is not
 * called again), the count still includes them, and finish returns that first error. */
static void
test_sink_failure_is_latched_until_finish (void **state)
{
  FailingSink s = { .fail_at = 2 };
  MdlSink sink = { failing_batch, failing_marker, &s };
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 2);
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  GError *error = NULL;
  (void) state;
  for (guint i = 0; i < 7; i++)      /* batches at 2, 4 (fails), 6 (dropped); 1 pending */
    mdl_recorder_access (rec, MDL_CPU_READ, i, 4);
  mdl_recorder_marker (rec, &sync);  /* flushes the pending one (dropped); marker dropped */
  assert_int_equal (s.batch_calls, 2);
  assert_int_equal (s.marker_calls, 0);
  assert_int_equal (mdl_recorder_n_events (rec), 7);
  assert_false (mdl_recorder_finish (rec, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "out.bin: disk full at call 2");
}

/* Ensure a failing marker is latched the same way. */
static void
test_marker_failure_is_latched (void **state)
{
  FailingSink s = { .fail_at = G_MAXUINT, .fail_markers = TRUE };
  MdlSink sink = { failing_batch, failing_marker, &s };
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 4);
  GError *error = NULL;
  (void) state;
  mdl_recorder_access (rec, MDL_CPU_READ, 0, 4);
  mdl_recorder_phase_begin (rec, "a");   /* flushes one batch, then the marker fails */
  mdl_recorder_access (rec, MDL_CPU_READ, 8, 4);
  mdl_recorder_phase_end (rec, "a");     /* dropped, as is the pending access */
  assert_int_equal (s.batch_calls, 1);
  assert_int_equal (s.marker_calls, 1);
  assert_false (mdl_recorder_finish (rec, &error));
  assert_int_equal (s.batch_calls, 1);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_IO, "out.bin: marker refused");
}

/* Ensure freeing a recorder with pending events delivers them, in order, as one last batch, and
 * that freeing NULL does nothing. */
static void
test_free_delivers_pending_events (void **state)
{
  Fixture *f = *state;
  MdlRecorder *rec = recorder_for (f, 16);
  mdl_recorder_access (rec, MDL_CPU_READ, 0x40, 4);
  mdl_recorder_ops (rec, 3);
  mdl_recorder_free (rec);
  f->rec = NULL;
  assert_int_equal (f->got->n_batches, 1);
  assert_int_equal (f->got->cpu->len, 2);
  assert_int_equal (cpu_at (f->got, 0)->kind, MDL_CPU_READ);
  assert_int_equal (cpu_at (f->got, 0)->addr, 0x40);
  assert_int_equal (cpu_at (f->got, 1)->kind, MDL_CPU_OPS);
  assert_int_equal (cpu_at (f->got, 1)->addr, 3);
  mdl_recorder_free (NULL);
}

/* Records @n_pages reads of pseudo-random pages (a GRand seeded with @seed), each followed by one op,
 * into a fresh pipeline of vat LRU and count; finishes the recorder or only frees it. */
static MdlPipeline *
record_random_pages (guint n_pages, guint32 seed, gboolean finish)
{
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr (GError) error = NULL;
  MdlRecorder *rec;
  MdlSink sink;
  assert_true (mdl_pipeline_add_engine_spec (p, "vat:machine=x86-64,policy=lru,W=16", &error));
  assert_true (mdl_pipeline_add_engine_spec (p, "count", &error));
  sink = mdl_pipeline_sink (p);
  rec = mdl_recorder_new (&sink, 0);
  for (guint i = 0; i < n_pages; i++)
    {
      guint64 page = g_rand_int_range (rand, 0, 1 << 20);
      mdl_recorder_access (rec, MDL_CPU_READ, page << 12, 8);
      mdl_recorder_ops (rec, 1);
    }
  if (finish)
    assert_true (mdl_recorder_finish (rec, &error));
  mdl_recorder_free (rec);
  return g_steal_pointer (&p);
}

/* Ensure a recorder freed without mdl_recorder_finish() leaves the engines with the same counts as
 * a finished one (issue 20: the last batch was dropped). 5000 reads and 5000 op counts are 10000
 * records, two full batches of 4096 and 1808 pending at the end; the count engine must see all
 * 5000 reads and 5000 operations, and every counter of both engines must agree between the runs. */
static void
test_free_without_finish_equals_finish (void **state)
{
  const guint n = 5000;
  g_autoptr (MdlPipeline) finished = record_random_pages (n, 20, TRUE);
  g_autoptr (MdlPipeline) freed = record_random_pages (n, 20, FALSE);
  guint n_a, n_b;
  MdlReport **a = mdl_pipeline_reports (finished, &n_a);
  MdlReport **b = mdl_pipeline_reports (freed, &n_b);
  (void) state;
  assert_int_equal (n_a, 2);
  assert_int_equal (n_b, 2);
  assert_int_equal (mdl_report_lookup (b[1], "cpu_reads")->count, n);
  assert_int_equal (mdl_report_lookup (b[1], "ram_ops")->count, n);
  for (guint r = 0; r < n_a; r++)
    {
      assert_int_equal (mdl_report_n_counters (a[r]), mdl_report_n_counters (b[r]));
      for (guint i = 0; i < mdl_report_n_counters (a[r]); i++)
        {
          const MdlCounter *ca = mdl_report_counter (a[r], i);
          const MdlCounter *cb = mdl_report_lookup (b[r], ca->name);
          assert_non_null (cb);
          if (ca->is_real ? !(ca->real == cb->real || (isnan (ca->real) && isnan (cb->real)))
                          : ca->count != cb->count)
            fail_msg ("%s %s: finished %" G_GUINT64_FORMAT " (%g), freed %" G_GUINT64_FORMAT
                      " (%g)", mdl_report_engine (a[r]), ca->name, ca->count, ca->real, cb->count,
                      cb->real);
        }
      mdl_report_free (a[r]);
      mdl_report_free (b[r]);
    }
  g_free (a);
  g_free (b);
}

/* Captures the messages logged at warning level, so that a test can check one was logged. */
static void
log_capture (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data)
{
  (void) domain;
  if (level & G_LOG_LEVEL_WARNING)
    g_ptr_array_add (data, g_strdup (message));
}

/* Ensure a sink error that mdl_recorder_finish() never collected is not lost when the recorder is
 * freed: the last delivery fails, and free logs a warning that quotes the sink's message. */
static void
test_free_warns_of_an_uncollected_sink_error (void **state)
{
  FailingSink s = { .fail_at = 1 };
  MdlSink sink = { failing_batch, failing_marker, &s };
  MdlRecorder *rec = mdl_recorder_new (&sink, 8);
  g_autoptr (GPtrArray) logged = g_ptr_array_new_with_free_func (g_free);
  GLogFunc old_handler = g_log_set_default_handler (log_capture, logged);
  (void) state;
  mdl_recorder_access (rec, MDL_CPU_READ, 0, 4);
  mdl_recorder_free (rec);
  g_log_set_default_handler (old_handler, NULL);
  assert_int_equal (s.batch_calls, 1);
  assert_int_equal (logged->len, 1);
  assert_non_null (strstr (g_ptr_array_index (logged, 0), "mdl_recorder_finish"));
  assert_non_null (strstr (g_ptr_array_index (logged, 0), "out.bin: disk full at call 1"));
}

/* Ensure a recorder feeding a pipeline is the producer half of a run: a count engine behind it
 * sees every access and the phase (and the pipeline counts records and markers). */
static void
test_recorder_feeds_a_pipeline (void **state)
{
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (MdlRecorder) rec = NULL;
  g_autoptr (GError) error = NULL;
  MdlSink sink;
  guint n;
  MdlReport **reports;
  (void) state;
  assert_true (mdl_pipeline_add_engine_spec (p, "count", &error));
  sink = mdl_pipeline_sink (p);
  rec = mdl_recorder_new (&sink, 5);
  mdl_recorder_phase_begin (rec, "work");
  for (guint i = 0; i < 12; i++)
    {
      mdl_recorder_access (rec, MDL_CPU_READ, 8 * i, 8);
      mdl_recorder_ops (rec, 1);
    }
  mdl_recorder_phase_end (rec, "work");
  assert_true (mdl_recorder_finish (rec, &error));
  /* 24 records (12 reads, 12 op counts that never merge) and 2 markers. */
  assert_int_equal (mdl_recorder_n_events (rec), 24);
  assert_int_equal (mdl_pipeline_n_events (p), 26);
  reports = mdl_pipeline_reports (p, &n);
  assert_int_equal (n, 1);
  assert_int_equal (mdl_report_lookup (reports[0], "cpu_reads")->count, 12);
  assert_int_equal (mdl_report_lookup (reports[0], "ram_ops")->count, 12);
  assert_int_equal (mdl_report_lookup (mdl_report_phase (reports[0], 0), "cpu_reads")->count, 12);
  mdl_report_free (reports[0]);
  g_free (reports);
}

/* A sink that holds every other batch it is given (as a threaded pipeline holds them), with a
 * copy of each held batch's events as they were delivered. */
typedef struct {
  GPtrArray *holds;    /* MdlBatchKeep * */
  GPtrArray *views;    /* const MdlCpuEvent *, the held arrays */
  GPtrArray *copies;   /* GArray of MdlCpuEvent, what they held when delivered */
  guint n_batches;
} Holder;

static gboolean
holder_batch (void *data, const MdlEventBatch *b, GError **error)
{
  Holder *h = data;
  (void) error;
  if (h->n_batches++ % 2 == 0)
    {
      GArray *copy = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
      MdlBatchKeep *keep = mdl_event_batch_keep (b);
      assert_non_null (keep);
      g_array_append_vals (copy, b->cpu, (guint) b->n_cpu);
      g_ptr_array_add (h->holds, keep);
      g_ptr_array_add (h->views, (gpointer) b->cpu);
      g_ptr_array_add (h->copies, copy);
    }
  return TRUE;
}

static gboolean
holder_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) data, (void) m, (void) error;
  return TRUE;
}

/* Ensure a batch a sink holds (mdl_event_batch_keep()) stays as it was delivered while the
 * recorder goes on appending, through many later batches, and after the recorder is freed: the
 * recorder appends into a buffer no sink holds. */
static void
test_held_batches_stay_unchanged (void **state)
{
  Holder h = { g_ptr_array_new (), g_ptr_array_new (),
               g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref), 0 };
  MdlSink sink = { holder_batch, holder_marker, &h };
  MdlRecorder *rec = mdl_recorder_new (&sink, 7);
  (void) state;
  for (guint i = 0; i < 100; i++)
    mdl_recorder_access (rec, i % 2 ? MDL_CPU_WRITE : MDL_CPU_READ, 0x10000 + 24 * i, 8);
  assert_true (mdl_recorder_finish (rec, NULL));
  mdl_recorder_free (rec);
  /* 100 events in batches of 7: 15 batches, the 8 even ones held. */
  assert_int_equal (h.n_batches, 15);
  assert_int_equal (h.holds->len, 8);
  for (guint i = 0; i < h.holds->len; i++)
    {
      GArray *copy = g_ptr_array_index (h.copies, i);
      if (memcmp (g_ptr_array_index (h.views, i), copy->data, copy->len * sizeof (MdlCpuEvent)))
        fail_msg ("held batch %u changed after it was delivered", i);
      mdl_batch_keep_release (g_ptr_array_index (h.holds, i));
    }
  g_ptr_array_unref (h.holds);
  g_ptr_array_unref (h.views);
  g_ptr_array_unref (h.copies);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_batches_of_three, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown (test_default_batch_is_4096, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown (test_map_moves_accesses_to_simulated_addresses, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_op_counts_merge, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown (test_markers_flush_pending_events_first, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test_setup_teardown (test_macros_name_their_sites, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown (test_sites_and_macros, fixture_setup, fixture_teardown),
    cmocka_unit_test (test_sink_failure_is_latched_until_finish),
    cmocka_unit_test (test_marker_failure_is_latched),
    cmocka_unit_test_setup_teardown (test_free_delivers_pending_events, fixture_setup,
                                     fixture_teardown),
    cmocka_unit_test (test_free_without_finish_equals_finish),
    cmocka_unit_test (test_free_warns_of_an_uncollected_sink_error),
    cmocka_unit_test (test_recorder_feeds_a_pipeline),
    cmocka_unit_test (test_held_batches_stay_unchanged),
  };
  return cmocka_run_group_tests_name ("recorder", tests, NULL, NULL);
}
