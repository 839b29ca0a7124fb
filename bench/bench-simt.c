/* Throughput of the SIMT layer and of the GPU engines behind it (issue 18's row "SIMT reduce/tree
 * --n 4M: the layer alone (count) / through agpu / msimd / kmodel >= 30 / 20 / 20 / 20 M events/s;
 * all six GPU engines at once >= 10", and issue 13's ">= 20 M warp instructions/s through all six
 * GPU engines at once" for the sorts' SIMT twins).
 *
 * Each row runs the algorithm's instrumented build (mdl_algo_run_into, as `models run` does) into a
 * pipeline of the row's engines, and states its rate in warp events per second of CPU time (best
 * of REPEAT runs). Beside it, in the same run:
 *  - "drop": the layer into a sink that drops every batch, the floor that no engine can beat;
 *  - "replay": the row's engines alone, fed the stream recorded once from the layer (so the
 *    engines' share of a row is replay, the layer's is the rest).
 * Every run must deliver the same number of warp events, and each engine the same report when fed
 * by the layer and by the replay (the program fails otherwise).
 * Last, the six engines in wall-clock time: the serial pipeline against the threaded one
 * (mdl_pipeline_set_threads, THREADS workers beside the layer), whose reports must be the same.
 * CPU time cannot rate a threaded run (the workers' time is not the caller's), so these two rates
 * are by the wall clock, best of REPEAT, and depend on how idle the other cores are. After them,
 * each stage of the fastest threaded run in ns per warp event (the workers' CPU time per engine,
 * the producer's and the workers' waits: mdl_pipeline_stats()), and the hand-over alone: the
 * layer with count on one worker, the producer's CPU time against the dropping sink's.
 *
 * Usage: bench-simt [ALGO[:key=value,...] [N [REPEAT [THREADS [CHUNKS KIB]]]]]   (N 4194304,
 * REPEAT 3, THREADS one per engine up to the cores less one, by default; with no ALGO,
 * reduce/tree at 4M and the five sorts' SIMT twins at 64K, one after the other; CHUNKS KIB: the
 * threaded run's queue, mdl_pipeline_set_queue(), by default the library's) */
#include <models/models.h>

#include "bench.h"
#include "models/pipeline-threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GArray *events;   /* MdlWarpEvent, first_addr into addrs */
  GArray *addrs;    /* guint64 */
  GArray *marks;    /* Mark: the markers, each before the event it precedes */
  guint64 n_warp;
} Stream;

typedef struct {
  MdlMarker m;
  guint before;     /* index in events of the first event after the marker */
} Mark;

static gboolean
keep_batch (void *data, const MdlEventBatch *b, GError **error)
{
  Stream *s = data;
  (void) error;
  s->n_warp += b->n_warp;
  if (s->events == NULL)
    return TRUE;
  bench_keep_warps (s->events, s->addrs, b);
  return TRUE;
}

static gboolean
keep_marker (void *data, const MdlMarker *m, GError **error)
{
  Stream *s = data;
  Mark k = { *m, s->events ? s->events->len : 0 };
  (void) error;
  if (s->marks == NULL)
    return TRUE;
  k.m.name = m->name ? g_intern_string (m->name) : NULL;
  g_array_append_val (s->marks, k);
  return TRUE;
}

typedef struct {
  const MdlAlgo *algo;
  MdlParams *params;
  guint64 n;
} Source;

/* The threaded runs' queue (mdl_pipeline_set_queue()); 0 chunks: the library's default. */
static guint queue_chunks;
static gsize queue_bytes;

static void
run_source (const Source *src, const MdlSink *sink)
{
  g_autoptr (GError) error = NULL;
  if (!mdl_algo_run_into (src->algo, src->params, src->n, 1, sink, NULL, &error))
    {
      fprintf (stderr, "bench-simt: %s\n", error->message);
      exit (1);
    }
}

/* Replays @s into @sink, markers in place. */
static void
replay (const Stream *s, const MdlSink *sink)
{
  const MdlWarpEvent *ev = (const MdlWarpEvent *) (void *) s->events->data;
  guint at = 0;
  for (guint k = 0; k <= s->marks->len; k++)
    {
      guint end = k < s->marks->len ? g_array_index (s->marks, Mark, k).before : s->events->len;
      while (at < end)
        {
          guint len = MIN (end - at, 4096u);
          MdlEventBatch b = { .warp = ev + at, .n_warp = len,
                              .lane_addrs = (const guint64 *) (void *) s->addrs->data,
                              .n_lane_addrs = s->addrs->len };
          if (!sink->batch (sink->data, &b, NULL))
            {
              fprintf (stderr, "bench-simt: the replay was refused\n");
              exit (1);
            }
          at += len;
        }
      if (k < s->marks->len && !sink->marker (sink->data, &g_array_index (s->marks, Mark, k).m, NULL))
        {
          fprintf (stderr, "bench-simt: a replayed marker was refused\n");
          exit (1);
        }
    }
}

/* The reports of @p as one JSON string per engine, joined (transfer full). */
static char *
reports_text (MdlPipeline *p)
{
  guint n;
  MdlReport **r = mdl_pipeline_reports (p, &n);
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      for (guint c = 0; c < mdl_report_n_counters (r[i]); c++)
        {
          const MdlCounter *k = mdl_report_counter (r[i], c);
          g_string_append_printf (out, "%s=%" G_GUINT64_FORMAT "/%.17g ", k->name, k->count, k->real);
        }
      mdl_report_free (r[i]);
    }
  g_free (r);
  return g_string_free (out, FALSE);
}

/* Runs @specs (NULL-terminated; NULL itself: a dropping sink) @repeat times fed by the layer, or
 * by @replayed when not NULL, on @threads workers (0: serial); returns the best CPU seconds of the
 * calling thread, the best wall seconds in *@wall (when not NULL), the events in *@n_events, the
 * reports in *@text (transfer full) and the threaded pipeline's stats of the run with the best wall
 * time in *@stats (when not NULL). */
static double
measure (const Source *src, const Stream *replayed, const char *const *specs, guint threads,
         guint repeat, guint64 *n_events, char **text, double *wall, MdlPipelineStats *stats)
{
  double best = G_MAXDOUBLE, best_wall = G_MAXDOUBLE;
  for (guint r = 0; r < repeat; r++)
    {
      g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
      Stream count = { 0 };
      MdlSink sink = { keep_batch, keep_marker, &count };
      double t0, w0;
      mdl_pipeline_set_threads (p, threads);
      if (threads > 0 && queue_chunks > 0)
        mdl_pipeline_set_queue (p, queue_chunks, queue_bytes);
      if (specs)
        {
          for (const char *const *e = specs; *e; e++)
            if (!mdl_pipeline_add_engine_spec (p, *e, NULL))
              {
                fprintf (stderr, "bench-simt: bad engine spec %s\n", *e);
                exit (1);
              }
          sink = mdl_pipeline_sink (p);
        }
      w0 = bench_now ();
      t0 = bench_cpu_now ();
      if (replayed)
        replay (replayed, &sink);
      else
        run_source (src, &sink);
      if (!mdl_pipeline_flush (p, NULL))
        {
          fprintf (stderr, "bench-simt: an engine failed\n");
          exit (1);
        }
      best = MIN (best, bench_cpu_now () - t0);
      if (stats && bench_now () - w0 < best_wall)
        mdl_pipeline_stats (p, stats);
      best_wall = MIN (best_wall, bench_now () - w0);
      *n_events = specs ? mdl_pipeline_n_events (p) : count.n_warp;
      if (r == 0 && text)
        *text = specs ? reports_text (p) : g_strdup ("");
    }
  if (wall)
    *wall = best_wall;
  return best;
}

/* Benches @spec at @n, @repeat times a row, the threaded row on @threads workers; 0, or 1 when
 * the runs differ or @spec is bad. */
static int
bench_source (const char *spec, guint64 n, guint repeat, guint threads)
{
  static const char *const six[] = { "coalesce:machine=h100", "banks:machine=h100",
                                     "divergence:machine=h100", "agpu", "kmodel", "msimd", NULL };
  static const struct {
    const char *name;
    const char *specs[7];
  } rows[] = {
    { "count (the layer alone)", { "count", NULL } },
    { "agpu", { "agpu", NULL } },
    { "msimd", { "msimd", NULL } },
    { "kmodel", { "kmodel", NULL } },
    { "coalesce+banks+divergence", { "coalesce:machine=h100", "banks:machine=h100",
                                     "divergence:machine=h100", NULL } },
    /* One engine a row: on worker threads each is a stage of its own, and the slowest bounds
     * the run. */
    { "coalesce", { "coalesce:machine=h100", NULL } },
    { "banks", { "banks:machine=h100", NULL } },
    { "divergence", { "divergence:machine=h100", NULL } },
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  Source src = { 0 };
  Stream s = { g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent)),
               g_array_new (FALSE, FALSE, sizeof (guint64)), g_array_new (FALSE, FALSE, sizeof (Mark)),
               0 };
  MdlSink keep = { keep_batch, keep_marker, &s };
  guint64 n_drop, n_row, n_replay, n_markers, n_threaded;
  double drop_s, six_s = 0, serial_wall, threaded_wall, producer_s, handover_s, handover_wall;
  MdlPipelineStats stats = { 0 }, handover_stats;
  g_autofree char *serial_text = NULL, *threaded_text = NULL;

  if (!mdl_spec_split (spec, &name, &assigns, &error)
      || (src.algo = mdl_algo_lookup (name, &error)) == NULL
      || (src.params = mdl_params_parse (name, src.algo->params, (const char *const *) assigns,
                                         &error)) == NULL)
    {
      fprintf (stderr, "bench-simt: %s\n", error->message);
      return 1;
    }
  src.n = n;
  run_source (&src, &keep);
  n_markers = s.marks->len;
  drop_s = measure (&src, NULL, NULL, 0, repeat, &n_drop, NULL, NULL, NULL);
  printf ("%s --n %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " warp events, %" G_GUINT64_FORMAT
          " markers; M events/s of CPU time, best of %u\n", spec, n, s.n_warp, n_markers, repeat);
  if (queue_chunks > 0)
    printf ("  threaded queue: %u chunks of %" G_GSIZE_FORMAT " KiB\n", queue_chunks,
            queue_bytes >> 10);
  printf ("  %-28s %8.2f M/s  (%.3f s)\n", "layer into a dropping sink", (double) n_drop / drop_s / 1e6,
          drop_s);
  printf ("  %-28s %8s      %8s      %s\n", "engines", "layer+engines", "replay", "(engines alone)");
  for (guint i = 0; i <= G_N_ELEMENTS (rows); i++)
    {
      const char *label = i < G_N_ELEMENTS (rows) ? rows[i].name : "all six GPU engines";
      const char *const *specs = i < G_N_ELEMENTS (rows) ? rows[i].specs : six;
      g_autofree char *live = NULL, *again = NULL;
      double row_s = measure (&src, NULL, specs, 0, repeat, &n_row, &live, NULL, NULL);
      double replay_s = measure (&src, &s, specs, 0, repeat, &n_replay, &again, NULL, NULL);
      if (i == G_N_ELEMENTS (rows))
        six_s = row_s;
      printf ("  %-28s %8.2f M/s  %8.2f M/s  (%.3f s, %.3f s)\n", label,
              (double) s.n_warp / row_s / 1e6, (double) s.n_warp / replay_s / 1e6, row_s, replay_s);
      /* Equal counts: the pipeline counts markers too. */
      if (n_drop != s.n_warp || n_row != s.n_warp + n_markers || n_replay != n_row
          || strcmp (live, again) != 0)
        {
          fprintf (stderr, "bench-simt: %s: the runs differ (events %" G_GUINT64_FORMAT ", %"
                   G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " markers; reports %s)\n",
                   label, n_drop, n_row, n_replay, n_markers,
                   strcmp (live, again) ? "differ" : "agree");
          return 1;
        }
    }
  /* Issue 13's figure: warp instructions per second through all six, and the share of the
   * layer's own rate that they keep (a ratio within one run, steadier than the rate). */
  printf ("  %s: all six GPU engines %.2f M warp instructions/s, %.2fx the layer into a dropping "
          "sink\n", spec, (double) s.n_warp / six_s / 1e6, drop_s / six_s);
  /* The two wall-clock runs alternate, so that a load that comes and goes meets both. */
  serial_wall = threaded_wall = producer_s = G_MAXDOUBLE;
  for (guint r = 0; r < repeat; r++)
    {
      double w, producer;
      g_clear_pointer (&serial_text, g_free);
      g_clear_pointer (&threaded_text, g_free);
      MdlPipelineStats st;
      measure (&src, NULL, six, 0, 1, &n_row, &serial_text, &w, NULL);
      serial_wall = MIN (serial_wall, w);
      /* The calling thread's CPU time here is the producer's: the layer and the hand-over. */
      producer = measure (&src, NULL, six, threads, 1, &n_threaded, &threaded_text, &w, &st);
      producer_s = MIN (producer_s, producer);
      if (w < threaded_wall)
        stats = st;
      threaded_wall = MIN (threaded_wall, w);
      if (n_threaded != n_row || strcmp (serial_text, threaded_text) != 0)
        {
          fprintf (stderr, "bench-simt: %s: the threaded pipeline's reports differ from the serial "
                   "one's\n", spec);
          return 1;
        }
    }
  printf ("  %s: all six GPU engines by the wall clock: serial %.2f M/s (%.3f s), %u threads "
          "%.2f M/s (%.3f s), %.2fx; the CPU rate above: %.2f M/s; the threaded run's producer "
          "(layer and hand-over) %.2f M/s of its CPU time\n", spec,
          (double) s.n_warp / serial_wall / 1e6, serial_wall, threads,
          (double) s.n_warp / threaded_wall / 1e6, threaded_wall, serial_wall / threaded_wall,
          (double) s.n_warp / six_s / 1e6, (double) s.n_warp / producer_s / 1e6);
  /* Each stage of the fastest threaded run, in ns per warp event against issue 13's 50 (20 M/s):
   * the slowest bounds the wall clock, and the waits say who waited on whom. */
  printf ("  %s: the fastest threaded run's stages, ns per warp event of CPU time:", spec);
  for (guint e = 0; e < MIN (stats.n_engines, G_N_ELEMENTS (stats.engine_cpu_s)); e++)
    printf (" %s %.1f", six[e], stats.engine_cpu_s[e] * 1e9 / (double) s.n_warp);
  printf ("; %" G_GUINT64_FORMAT " chunks, the producer waited %" G_GUINT64_FORMAT " times, the "
          "workers %" G_GUINT64_FORMAT "\n", stats.n_chunks, stats.producer_waits, stats.worker_waits);
  /* The hand-over alone: the layer with the count engine (next to no work) on one worker, so the
   * producer's CPU time beyond the dropping sink's is what handing the batches over costs it. */
  handover_s = measure (&src, NULL, (const char *const[]) { "count", NULL }, 1, repeat, &n_threaded,
                        NULL, &handover_wall, &handover_stats);
  printf ("  %s: the hand-over: with count alone on a worker the producer ran %.2f M/s of its CPU "
          "time (%.1f ns per event, the dropping sink's %.1f), the wall clock %.2f M/s; %"
          G_GUINT64_FORMAT " chunks, the producer waited %" G_GUINT64_FORMAT " times\n", spec,
          (double) s.n_warp / handover_s / 1e6, handover_s * 1e9 / (double) s.n_warp,
          drop_s * 1e9 / (double) n_drop, (double) s.n_warp / handover_wall / 1e6,
          handover_stats.n_chunks, handover_stats.producer_waits);
  mdl_params_free (src.params);
  g_array_unref (s.events);
  g_array_unref (s.addrs);
  g_array_unref (s.marks);
  return 0;
}

int
main (int argc, char **argv)
{
  /* Without arguments (`make bench`): issue 18's reduce/tree row, then each sort's SIMT twin
   * (issue 13), at sizes that keep the whole program to about a minute on an idle core. */
  static const struct {
    const char *spec;
    guint64 n;
  } defaults[] = {
    { "reduce/tree", 4194304 },      { "sort/gpu-quicksort", 65536 }, { "sort/msimd-quicksort", 65536 },
    { "sort/bitonic", 65536 },       { "sort/warpsort", 65536 },      { "sort/dway-merge", 65536 },
  };
  guint repeat = argc > 3 ? (guint) atoi (argv[3]) : 3;
  /* As `models run` chooses by default: a worker per engine, a core left to the layer. */
  guint threads = argc > 4 ? (guint) atoi (argv[4])
                           : (guint) CLAMP (g_get_num_processors () - 1, 1, 6);
  int rc = 0;
  if (argc > 6)
    {
      queue_chunks = (guint) atoi (argv[5]);
      queue_bytes = (gsize) g_ascii_strtoull (argv[6], NULL, 0) << 10;
    }
  if (repeat == 0)
    repeat = 3;
  if (threads == 0)
    threads = 1;
  if (argc > 1)
    return bench_source (argv[1], argc > 2 ? g_ascii_strtoull (argv[2], NULL, 0) : 4194304, repeat,
                         threads);
  for (guint i = 0; i < G_N_ELEMENTS (defaults) && rc == 0; i++)
    rc = bench_source (defaults[i].spec, defaults[i].n, repeat, threads);
  return rc;
}
