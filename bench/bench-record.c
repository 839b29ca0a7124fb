/* Benchmark: writing a trace from an instrumented run (target: >= 100 M records/s on one core).
 *
 * The instrumented loop is the sequential scan's: MDL_READ of each 8-byte element through an
 * MdlRecorder whose sink is a binary trace writer on a temporary file. Baseline in the same run:
 * the same loop filling 16-byte records by hand and write(2)-ing them in 64 KiB blocks, which is
 * what any trace writer has to do at least. For context, the recorder into a sink that drops
 * everything (the cost of instrumentation alone) and the native loop. Best of three runs each.
 * The files go where bench/bench.h says. */
#include <models/models.h>

#include "bench.h"

#include <glib/gstdio.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N_RECORDS (32u << 20)
#define REPS 3

static gboolean
drop_batch (void *data, const MdlEventBatch *b, GError **error)
{
  (void) error;
  *(guint64 *) data += b->n_cpu;
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) data, (void) m, (void) error;
  return TRUE;
}

static guint64
scan (MdlRecorder *rec, const guint64 *a, gsize n)
{
  guint64 sum = 0;
  (void) rec;
  for (gsize i = 0; i < n; i++)
    {
      MDL_READ (rec, &a[i]);
      sum += a[i];
    }
  return sum;
}

static guint64 __attribute__ ((noinline))
scan_native (const guint64 *a, gsize n)
{
  guint64 sum = 0;
  for (gsize i = 0; i < n; i++)
    sum += a[i];
  return sum;
}

/* Seconds to record the scan into @sink. */
static double
run_recorded (const MdlSink *sink, const guint64 *a, guint64 *sum)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (sink, 0);
  double t0 = bench_now ();
  *sum = scan (rec, a, N_RECORDS);
  if (!mdl_recorder_finish (rec, &error))
    g_error ("bench-record: %s", error->message);
  return bench_now () - t0;
}

static double
run_writer (const char *path, const guint64 *a, guint64 *sum)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_open (path, MDL_TRACE_BIN, &error);
  double t0 = bench_now (), t;
  if (w == NULL)
    g_error ("bench-record: %s", error->message);
  MdlSink sink = mdl_trace_writer_sink (w);
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 0);
  *sum = scan (rec, a, N_RECORDS);
  if (!mdl_recorder_finish (rec, &error) || !mdl_trace_writer_close (w, &error))
    g_error ("bench-record: %s", error->message);
  t = bench_now () - t0;
  if (mdl_trace_writer_n_records (w) < N_RECORDS)
    g_error ("bench-record: only %" G_GUINT64_FORMAT " records written",
             mdl_trace_writer_n_records (w));
  return t;
}

static double
run_baseline (const char *path, const guint64 *a, guint64 *sum)
{
  MdlCpuEvent block[4096];
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  double t0 = bench_now (), t;
  guint len = 0;
  if (fd < 0)
    g_error ("bench-record: cannot open %s", path);
  *sum = 0;
  for (gsize i = 0; i < N_RECORDS; i++)
    {
      block[len++] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = (guint64) (uintptr_t) &a[i] };
      *sum += a[i];
      if (len == G_N_ELEMENTS (block) || i + 1 == N_RECORDS)
        {
          if (write (fd, block, len * sizeof block[0]) != (ssize_t) (len * sizeof block[0]))
            g_error ("bench-record: write failed");
          len = 0;
        }
    }
  close (fd);
  t = bench_now () - t0;
  return t;
}

int
main (void)
{
  g_autofree guint64 *a = g_new (guint64, N_RECORDS);
  g_autofree char *dir = bench_make_dir ("bench-record", 2 * (guint64) N_RECORDS * sizeof (MdlCpuEvent));
  g_autofree char *path = g_build_filename (dir, "scan.bin", NULL);
  g_autofree char *base_path = g_build_filename (dir, "baseline.raw", NULL);
  double best_writer = 1e9, best_base = 1e9, best_drop = 1e9, best_native = 1e9;
  guint64 sum = 0, check = 0, dropped = 0;
  MdlSink drop = { drop_batch, drop_marker, &dropped };

  for (gsize i = 0; i < N_RECORDS; i++)
    a[i] = i * 2654435761u;
  for (int r = 0; r < REPS; r++)
    {
      double t0 = bench_now ();
      check = scan_native (a, N_RECORDS);
      best_native = MIN (best_native, bench_now () - t0);
      best_drop = MIN (best_drop, run_recorded (&drop, a, &sum));
      best_base = MIN (best_base, run_baseline (base_path, a, &sum));
      best_writer = MIN (best_writer, run_writer (path, a, &sum));
      if (sum != check)
        g_error ("bench-record: sums differ");
    }
  printf ("bench-record: %u M records of 16 bytes, best of %d\n", N_RECORDS >> 20, REPS);
  printf ("  recorder -> binary trace file      : %7.1f M rec/s (%.2fx of the baseline)\n",
          N_RECORDS / best_writer / 1e6, best_base / best_writer);
  printf ("  baseline: records by hand + write(2): %7.1f M rec/s\n", N_RECORDS / best_base / 1e6);
  printf ("  recorder -> sink that drops        : %7.1f M rec/s (instrumentation alone)\n",
          N_RECORDS / best_drop / 1e6);
  printf ("  native scan, no events             : %7.1f M elements/s\n", N_RECORDS / best_native / 1e6);
  g_unlink (path);
  g_unlink (base_path);
  g_rmdir (dir);
  return 0;
}
