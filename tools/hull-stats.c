/* hull-stats: one row of the A.4 table and the Lemma 2 counts (V12) of hull/msimd, for
 * docs/models/hull.md: the run's own statistics (src/algos/simt/hull.h) beside the msimd engine's
 * reads and writes of the same run.
 *
 *   hull-stats ASSIGNMENTS N SEED [RUNS]      e.g. hull-stats dist=disc,part=alg5 1000000 1
 *
 * RUNS > 1 repeats the run for seeds SEED .. SEED + RUNS − 1 and sums the Lemma 2 counts (the
 * table's other columns are of the last run). The msimd engine gets the run's P. */
#include "algos/simt/hull.h"
#include "algos/simt/simt-algo.h"

#include <models/models.h>

#include <stdio.h>
#include <stdlib.h>

static int
fail (const char *what, const GError *error)
{
  fprintf (stderr, "hull-stats: %s: %s\n", what, error->message);
  return 1;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) kv = NULL;
  g_autoptr (MdlParams) params = NULL;
  guint64 n, seed, runs, trials = 0, both = 0, left = 0, reads = 0, writes = 0;
  MdlHullStats st = { 0 };
  if (argc < 4 || argc > 5)
    {
      fprintf (stderr, "usage: hull-stats ASSIGNMENTS N SEED [RUNS]\n");
      return 2;
    }
  kv = g_strsplit (argv[1], ",", -1);
  n = g_ascii_strtoull (argv[2], NULL, 10), seed = g_ascii_strtoull (argv[3], NULL, 10);
  runs = argc == 5 ? g_ascii_strtoull (argv[4], NULL, 10) : 1;
  if (!(params = mdl_params_parse ("hull/msimd", mdl_hull_msimd_params, (const char *const *) kv,
                                   &error)))
    return fail (argv[1], error);
  for (guint64 k = 0; k < runs; k++)
    {
      g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
      g_autoptr (MdlRecorder) rec = NULL;
      g_autofree char *engine = g_strdup_printf ("msimd:P=%" G_GUINT64_FORMAT,
                                                 mdl_params_uint (params, "P"));
      g_autofree MdlReport **reports = NULL;
      MdlSink sink;
      guint64 sum;
      guint nr;
      if (!mdl_pipeline_add_engine_spec (p, engine, &error))
        return fail (engine, error);
      sink = mdl_pipeline_sink (p);
      rec = mdl_recorder_new (&sink, 0);
      if (!mdl_hull_msimd_run_stats (params, n, seed + k, rec, &st, &sum, &error)
          || !mdl_recorder_finish (rec, &error))
        return fail (argv[1], error);
      reports = mdl_pipeline_reports (p, &nr);
      reads = mdl_report_lookup (reports[0], "reads")->count;
      writes = mdl_report_lookup (reports[0], "writes")->count;
      for (guint i = 0; i < nr; i++)
        mdl_report_free (reports[i]);
      trials += st.lemma_trials, both += st.lemma_78, left += st.lemma_left_34;
    }
  printf ("h %" G_GUINT64_FORMAT "\ncollab_rounds %" G_GUINT64_FORMAT "\n", st.h,
          st.collab_rounds);
  printf ("indep min/max/avg/total %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT " / %.2f / %"
          G_GUINT64_FORMAT "\n", st.indep_min, st.indep_max,
          (double) st.indep_total / (double) mdl_params_uint (params, "P"), st.indep_total);
  printf ("indep_retries %" G_GUINT64_FORMAT "\nreads %" G_GUINT64_FORMAT "\nwrites %"
          G_GUINT64_FORMAT "\n", st.indep_retries, reads, writes);
  printf ("stores %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
          " points, final stores <= %" G_GUINT64_FORMAT "\n", st.stores, st.store_min,
          st.store_max, st.flush_max);
  printf ("lemma2 trials %" G_GUINT64_FORMAT " both<=7/8 %" G_GUINT64_FORMAT " left<=3/4 %"
          G_GUINT64_FORMAT "\n", trials, both, left);
  return 0;
}
