/* Benchmark: binary trace files (targets: >= 100 M CPU records/s written, and read from the page
 * cache into the `count` engine, on one core).
 *
 * Writes 64 M random CPU records through the trace writer's sink, in batches of 4096 taken from a
 * pre-generated pool (so that the random generator is not timed), to a temporary file; then reads
 * the file back, still in the page cache, through mdl_trace_reader_pump() into a pipeline with the
 * `count` engine. Baselines in the same run: write(2) of the same pool in 1 MiB blocks, and read(2)
 * of the file in 1 MiB blocks summing the address fields, which is the least any reader must do.
 * For context: the reader into a sink that drops everything, and gzip and Lackey rates on a
 * smaller trace. Best of REPS runs each. The files go where bench/bench.h says. `bench-trace read`
 * times only the reads (read+count, plain read+sum, the reader alone), READ_REPS rounds of them
 * alternated, the file written once untimed: the read row in a fraction of the time.
 * Both modes end with the parts of read+count by CPU time: read(2) alone (the copy out of the page
 * cache), the reader alone, and the `count` engine alone over records already in L2. The reader
 * maps the file (src/traces/reader-map.c) where the baselines copy it with read(2): its parts are
 * the page tables of the mapping and the records from memory, not that copy. */
#include <models/models.h>

#include "bench.h"

#include <glib/gstdio.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_RECORDS ((gsize) 64 << 20)
#define POOL ((gsize) 1 << 20)         /* records generated once and written over and over */
#define BATCH 4096
#define SMALL_RECORDS ((gsize) 4 << 20) /* for the gzip and Lackey rates */
#define REPS 2
#define READ_REPS 5

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "bench-trace: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

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

/* Writes @n records from @pool to @path; returns the seconds taken. */
static double
write_trace (const char *path, const MdlCpuEvent *pool, gsize n)
{
  GError *error = NULL;
  double t0 = bench_now ();
  MdlTraceWriter *w = mdl_trace_writer_open (path, MDL_TRACE_AUTO, &error);
  MdlSink sink;
  if (w == NULL)
    die ("open for writing", error);
  sink = mdl_trace_writer_sink (w);
  for (gsize done = 0; done < n; done += BATCH)
    {
      MdlEventBatch b = { .cpu = pool + done % POOL, .n_cpu = MIN (BATCH, n - done) };
      if (!sink.batch (sink.data, &b, &error))
        die ("write", error);
    }
  if (!mdl_trace_writer_close (w, &error))
    die ("close", error);
  mdl_trace_writer_free (w);
  return bench_now () - t0;
}

/* Reads @path into @sink; returns the seconds taken, and the thread's CPU seconds in @cpu. */
static double
read_trace (const char *path, const MdlSink *sink, guint64 expect, double *cpu)
{
  GError *error = NULL;
  double t0 = bench_now (), c0 = bench_cpu_now ();
  MdlTraceReader *r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  gboolean done = FALSE;
  if (r == NULL)
    die ("open for reading", error);
  while (!done)
    if (!mdl_trace_reader_pump (r, sink, 0, &done, &error))
      die ("read", error);
  if (mdl_trace_reader_n_records (r) != expect)
    die ("read: wrong record count", NULL);
  mdl_trace_reader_free (r);
  *cpu = bench_cpu_now () - c0;
  return bench_now () - t0;
}

static double
plain_write (const char *path, const MdlCpuEvent *pool, gsize n)
{
  double t0 = bench_now ();
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const gsize block = ((gsize) 1 << 20) / sizeof (MdlCpuEvent);
  if (fd < 0)
    die ("plain write: open", NULL);
  for (gsize done = 0; done < n; done += block)
    if (write (fd, pool + done % POOL, block * sizeof (MdlCpuEvent)) < 0)
      die ("plain write", NULL);
  close (fd);
  return bench_now () - t0;
}

/* read(2) of @path in 1 MiB blocks into one buffer; with @sum, the address fields summed into
 * *@sum as well (the least any reader must do), without, the copy out of the page cache alone. */
static double
plain_read (const char *path, gboolean sum, guint64 *out, double *cpu)
{
  double t0 = bench_now (), c0 = bench_cpu_now ();
  int fd = open (path, O_RDONLY);
  guint8 *buf = g_malloc ((gsize) 1 << 20);
  ssize_t got;
  guint64 s = 0;
  if (fd < 0)
    die ("plain read: open", NULL);
  while ((got = read (fd, buf, (gsize) 1 << 20)) > 0)
    for (ssize_t i = 0; sum && i + 16 <= got; i += 16)
      {
        guint64 addr;
        memcpy (&addr, buf + i + 8, 8);
        s += addr;
      }
  close (fd);
  g_free (buf);
  *out = s;
  *cpu = bench_cpu_now () - c0;
  return bench_now () - t0;
}

/* The CPU seconds of the `count` engine alone over @n records: the first COUNT_SPAN of @pool (1
 * MiB, in L2 as the reader's buffer is) over and over, in the reader's batches of 1024. */
#define COUNT_SPAN ((gsize) 1 << 16)
static double
count_alone (const MdlCpuEvent *pool, gsize n)
{
  GError *error = NULL;
  MdlEngine *e = mdl_engine_new ("count", &error);
  double c0;
  if (e == NULL)
    die ("count engine", error);
  c0 = bench_cpu_now ();
  for (gsize done = 0; done < n; done += 1024)
    {
      MdlEventBatch b = { .cpu = pool + done % COUNT_SPAN, .n_cpu = MIN (1024, n - done) };
      if (!mdl_engine_consume (e, &b, &error))
        die ("count", error);
    }
  c0 = bench_cpu_now () - c0;
  mdl_engine_free (e);
  return c0;
}

static double
best (double a, double b)
{
  return a < b ? a : b;
}

/* Writes and reads back SMALL_RECORDS records of @pool in the compressed and text formats. */
static void
small_formats (const char *dir, const MdlCpuEvent *pool)
{
  GError *error = NULL;
  guint64 dropped = 0;
  static const char *const names[] = { "bench.bin.gz", "bench.lackey", "bench.lackey.gz" };
  double smrec = (double) SMALL_RECORDS / 1e6;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *p = g_build_filename (dir, names[i], NULL);
      MdlSink drop = { drop_batch, drop_marker, &dropped };
      double tw = write_trace (p, pool, SMALL_RECORDS);
      /* Lackey merges consecutive op counts, so it reads back fewer records than written */
      MdlTraceReader *r = mdl_trace_reader_open (p, MDL_TRACE_AUTO, &error);
      gboolean done = FALSE;
      double t0 = bench_now (), tr;
      GStatBuf st;
      if (r == NULL)
        die ("open", error);
      while (!done)
        if (!mdl_trace_reader_pump (r, &drop, 0, &done, &error))
          die ("read", error);
      tr = bench_now () - t0;
      mdl_trace_reader_free (r);
      g_stat (p, &st);
      printf ("%-16s write %6.1f M rec/s, read %6.1f M rec/s, %.1f bytes/record\n", names[i],
              smrec / tw, smrec / tr, (double) st.st_size / (double) SMALL_RECORDS);
      g_unlink (p);
    }
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = bench_make_dir ("bench-trace", 4 * N_RECORDS * sizeof (MdlCpuEvent));
  g_autofree char *path = g_build_filename (dir, "bench.bin", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain.raw", NULL);
  MdlCpuEvent *pool = g_new (MdlCpuEvent, POOL);
  GRand *rand = g_rand_new_with_seed (1);
  double t_write = 1e9, t_plain_write = 1e9, t_read = 1e9, t_plain_read = 1e9, t_drop = 1e9;
  double c_read = 1e9, c_plain_read = 1e9, c_drop = 1e9, c;   /* CPU seconds of the same runs */
  double c_copy = 1e9, c_count = 1e9;   /* read(2) alone, count alone (CPU seconds) */
  double mrec = (double) N_RECORDS / 1e6;
  gboolean only_reads = argc == 2 && strcmp (argv[1], "read") == 0;
  guint64 sum = 0, no_sum, dropped = 0;
  GError *error = NULL;

  for (gsize i = 0; i < POOL; i++)
    {
      guint kind = (guint) g_rand_int_range (rand, 0, 4);
      pool[i] = (MdlCpuEvent) { .kind = (guint8) kind };
      if (kind == MDL_CPU_OPS)
        pool[i].addr = (guint64) g_rand_int_range (rand, 1, 9);
      else
        {
          pool[i].size = (guint16) (1u << g_rand_int_range (rand, 0, 4));
          pool[i].addr = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
        }
    }
  if (argc > 2 || (argc == 2 && !only_reads))
    {
      fprintf (stderr, "usage: bench-trace [read]   (read: only the read rows)\n");
      return 2;
    }
  for (int rep = 0; rep < (only_reads ? 1 : REPS); rep++)
    {
      if (!only_reads)
        {
          t_plain_write = best (t_plain_write, plain_write (plain, pool, N_RECORDS));
          g_unlink (plain);
        }
      t_write = best (t_write, write_trace (path, pool, N_RECORDS));
    }
  if (!only_reads)
    printf ("write:      %7.1f M rec/s (%.2fx of plain write(2) %.1f M rec/s), %zu M records\n",
            mrec / t_write, t_plain_write / t_write, mrec / t_plain_write, N_RECORDS >> 20);

  for (int rep = 0; rep < (only_reads ? READ_REPS : REPS); rep++)
    {
      MdlPipeline *p = mdl_pipeline_new ();
      MdlSink sink;
      MdlSink drop = { drop_batch, drop_marker, &dropped };
      if (!mdl_pipeline_add_engine_spec (p, "count", &error))
        die ("count engine", error);
      sink = mdl_pipeline_sink (p);
      t_plain_read = best (t_plain_read, plain_read (path, TRUE, &sum, &c));
      c_plain_read = best (c_plain_read, c);
      plain_read (path, FALSE, &no_sum, &c);
      c_copy = best (c_copy, c);
      c_count = best (c_count, count_alone (pool, N_RECORDS));
      t_read = best (t_read, read_trace (path, &sink, N_RECORDS, &c));
      c_read = best (c_read, c);
      t_drop = best (t_drop, read_trace (path, &drop, N_RECORDS, &c));
      c_drop = best (c_drop, c);
      mdl_pipeline_free (p);
    }
  printf ("read+count: %7.1f M rec/s (%.2fx of plain read+sum %.1f M rec/s; checksum %016"
          G_GINT64_MODIFIER "x)\n", mrec / t_read, t_plain_read / t_read, mrec / t_plain_read, sum);
  printf ("  by CPU time %.1f M rec/s (%.2fx of plain read+sum %.1f M rec/s)\n", mrec / c_read,
          c_plain_read / c_read, mrec / c_plain_read);
  printf ("read alone: %7.1f M rec/s (cpu %.1f; into a sink that drops everything)\n", mrec / t_drop,
          mrec / c_drop);
  /* Where read+count's time goes, by CPU time: the copy out of the page cache that every reader
   * pays, the reader's own work beyond it, and count's loop alone; their sum against the run. */
  printf ("  parts, CPU time: read(2) alone %.2f ns/rec, plain read+sum %.2f, reader alone %.2f,"
          " count alone (records in L2) %.2f; reader + count %.2f ns/rec against read+count's %.2f"
          " (%.2fx of plain read+sum)\n", 1e9 * c_copy / (double) N_RECORDS,
          1e9 * c_plain_read / (double) N_RECORDS, 1e9 * c_drop / (double) N_RECORDS,
          1e9 * c_count / (double) N_RECORDS, 1e9 * (c_drop + c_count) / (double) N_RECORDS,
          1e9 * c_read / (double) N_RECORDS, c_plain_read / (c_drop + c_count));
  g_unlink (path);

  if (!only_reads)
    small_formats (dir, pool);
  g_rmdir (dir);
  g_rand_free (rand);
  g_free (pool);
  return 0;
}
