/* Throughput of the GPU engines (issue 4's target: 10 M warp instructions per second through
 * coalesce + banks + divergence together, one core), next to a naive per-instruction hashing
 * baseline in the same run, and of the seed models' engines (agpu + kmodel + msimd) together.
 * The stream is recorded once from the SIMT micro-kernels (transposes, reductions, branches,
 * strided global and shared accesses: a realistic mix of memory, ALU and branch instructions),
 * then replayed REPEAT times; the baseline counts distinct sectors, lines
 * and bank words with a fresh GHashTable per instruction, and its global sector count must equal
 * the engine's (the program fails otherwise). Rates are by the thread's CPU time.
 * The three engines' row is given twice: the stream as one batch (issue 18's row as it has always
 * been measured: each engine reads all of it, megabytes, before the next starts), and in the
 * SIMT layer's batches of 4096 events, as a run delivers them (a batch stays in the core's cache
 * while the three engines read it); both must count the same sectors.
 *
 * Usage: bench-gpu-engines [REPEAT]   (default 40) */
#include <models/models.h>

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  GArray *events;   /* MdlWarpEvent, first_addr into addrs */
  GArray *addrs;    /* guint64 */
} Stream;

static gboolean
keep_batch (void *data, const MdlEventBatch *b, GError **error)
{
  Stream *s = data;
  (void) error;
  bench_keep_warps (s->events, s->addrs, b);
  return TRUE;
}

static gboolean
skip_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) data, (void) m, (void) error;
  return TRUE;
}

static void
record (Stream *s, const char *name, const char *assign, guint64 n)
{
  g_autoptr (GError) error = NULL;
  const MdlAlgo *a = mdl_algo_lookup (name, &error);
  const char *assigns[] = { assign, NULL };
  g_autoptr (MdlParams) p = a ? mdl_params_parse (name, a->params, assign ? assigns : NULL, &error) : NULL;
  MdlSink sink = { keep_batch, skip_marker, s };
  if (p == NULL || !mdl_algo_run_into (a, p, n, 1, &sink, NULL, &error))
    {
      fprintf (stderr, "bench-gpu-engines: %s\n", error->message);
      exit (1);
    }
}

/* The baseline: per instruction, a GHashTable of the sectors, lines or bank words it touches. */
static guint64
naive (const Stream *s, guint repeat, guint64 *branches)
{
  guint64 sectors = 0;
  MdlEventBatch b = { .lane_addrs = (const guint64 *) (void *) s->addrs->data,
                      .n_lane_addrs = s->addrs->len };
  *branches = 0;
  for (guint r = 0; r < repeat; r++)
    for (guint i = 0; i < s->events->len; i++)
      {
        const MdlWarpEvent *e = &g_array_index (s->events, MdlWarpEvent, i);
        guint64 a[MDL_WARP_MAX_LANES];
        GHashTable *units, *lines;
        if (e->op == MDL_WARP_BRANCH || e->op == MDL_WARP_JUMP)
          (*branches)++;
        if (!mdl_warp_is_memory (e))
          continue;
        mdl_warp_addrs (&b, e, a);
        units = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
        lines = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
        for (guint64 m = e->active; m; m &= m - 1)
          {
            guint64 x = a[__builtin_ctzll (m)];
            gint64 *unit = g_new (gint64, 1), *line = g_new (gint64, 1);
            *unit = (gint64) (e->space == MDL_SPACE_SHARED ? x >> 2 : x >> 5);
            *line = (gint64) (x >> 7);
            g_hash_table_add (units, unit);
            g_hash_table_add (lines, line);
          }
        if (e->space == MDL_SPACE_GLOBAL && r == 0)
          sectors += g_hash_table_size (units);
        g_hash_table_destroy (units);
        g_hash_table_destroy (lines);
      }
  return sectors;
}

/* The SIMT layer's batch (src/simt/simt.c's BATCH_EVENTS). */
#define LAYER_BATCH 4096

/* Replays @s @repeat times into a pipeline of the NULL-terminated @specs, in batches of @chunk
 * events (0: the whole stream as one); returns the thread's CPU seconds it took (a shared machine
 * moves them far less than the wall clock) and the pipeline (transfer full) in *@out. */
static double
replay (const Stream *s, guint repeat, guint chunk, const char *const *specs, MdlPipeline **out)
{
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  const MdlWarpEvent *events = (const MdlWarpEvent *) (void *) s->events->data;
  /* Every batch lends the whole address list: the events' first_addr index it. */
  MdlEventBatch b = { .lane_addrs = (const guint64 *) (void *) s->addrs->data,
                      .n_lane_addrs = s->addrs->len };
  MdlSink sink;
  double t0;
  if (chunk == 0)
    chunk = s->events->len;
  for (const char *const *e = specs; *e; e++)
    mdl_pipeline_add_engine_spec (p, *e, NULL);
  sink = mdl_pipeline_sink (p);
  t0 = bench_cpu_now ();
  for (guint r = 0; r < repeat; r++)
    for (guint at = 0; at < s->events->len; at += chunk)
      {
        b.warp = events + at;
        b.n_warp = MIN (chunk, s->events->len - at);
        if (!sink.batch (sink.data, &b, NULL))
          {
            fprintf (stderr, "bench-gpu-engines: %s refused the stream\n", specs[0]);
            exit (1);
          }
      }
  *out = g_steal_pointer (&p);
  return bench_cpu_now () - t0;
}

int
main (int argc, char **argv)
{
  guint repeat = argc > 1 ? (guint) atoi (argv[1]) : 40;
  Stream s = { g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent)), g_array_new (FALSE, FALSE, sizeof (guint64)) };
  static const char *const row[] = { "coalesce:machine=h100", "banks:machine=h100",
                                      "divergence:machine=h100", NULL };
  g_autoptr (MdlPipeline) p = NULL, batched = NULL, seeds = NULL;
  guint64 sectors[2] = { 0, 0 }, naive_sectors, naive_branches, insts;
  double t0, engine_s, batched_s, seed_s, naive_s;   /* CPU seconds */

  if (repeat == 0)
    repeat = 40;
  record (&s, "gpu/transpose", "variant=shared", 1 << 16);
  record (&s, "gpu/transpose", "variant=naive", 1 << 16);
  record (&s, "gpu/reduce", "variant=interleaved", 1 << 14);
  record (&s, "gpu/reduce", "variant=sequential", 1 << 14);
  record (&s, "gpu/branch", "variant=nested", 1 << 12);
  record (&s, "gpu/branch", "variant=loop", 1 << 12);
  record (&s, "gpu/global-stride", "stride=33", 1 << 12);
  record (&s, "gpu/shared-stride", "width=8", 1 << 12);
  insts = (guint64) s.events->len * repeat;

  engine_s = replay (&s, repeat, 0, row, &p);
  batched_s = replay (&s, repeat, LAYER_BATCH, row, &batched);
  seed_s = replay (&s, repeat, 0, (const char *const[]) { "agpu", "kmodel", "msimd", NULL }, &seeds);
  for (guint i = 0; i < 2; i++)
    {
      guint nr;
      MdlReport **reports = mdl_pipeline_reports (i ? batched : p, &nr);
      sectors[i] = mdl_report_lookup (reports[0], "gld_sectors")->count
                   + mdl_report_lookup (reports[0], "gst_sectors")->count
                   + mdl_report_lookup (reports[0], "gatom_sectors")->count;
      for (guint j = 0; j < nr; j++)
        mdl_report_free (reports[j]);
      g_free (reports);
    }

  t0 = bench_cpu_now ();
  naive_sectors = naive (&s, repeat, &naive_branches);
  naive_s = bench_cpu_now () - t0;
  printf ("stream: %u warp instructions from 8 micro-kernels, replayed %u times (%" G_GUINT64_FORMAT
          " in all)\n", s.events->len, repeat, insts);
  printf ("  coalesce+banks+divergence  %8.2f M warp instructions/s  (%.3f s)\n",
          (double) insts / engine_s / 1e6, engine_s);
  printf ("    in %u-event batches      %8.2f M warp instructions/s  (%.3f s)\n", LAYER_BATCH,
          (double) insts / batched_s / 1e6, batched_s);
  printf ("  naive per-instruction hash %8.2f M warp instructions/s  (%.3f s)\n",
          (double) insts / naive_s / 1e6, naive_s);
  printf ("  agpu+kmodel+msimd          %8.2f M warp instructions/s  (%.3f s)\n",
          (double) insts / seed_s / 1e6, seed_s);
  if (naive_sectors * repeat != sectors[0] || sectors[1] != sectors[0])
    {
      fprintf (stderr, "bench-gpu-engines: global sectors differ: engine %" G_GUINT64_FORMAT
               ", in batches %" G_GUINT64_FORMAT ", naive %" G_GUINT64_FORMAT "\n", sectors[0],
               sectors[1], naive_sectors * repeat);
      return 1;
    }
  g_array_unref (s.events);
  g_array_unref (s.addrs);
  return 0;
}
