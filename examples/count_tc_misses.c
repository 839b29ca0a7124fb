/* Counting the translation-cache misses of your own code under the VAT model: two ways to sum an
 * array, instrumented with the MDL_* macros, fed in one pass to four vat engines (lru, islru, min,
 * ismin) on the x86-64 tree (4 KiB pages, K = 512, d = 4) with a TC of 64 nodes.
 *
 * The sequential sum touches each page once in order: about one miss per page, a cost the RAM work
 * hides (a CAT in the thesis's terms). The random-order sum misses the leaf of nearly every access
 * whatever the policy, and for arrays larger than K pages inner nodes too: about d - log_K W per
 * access (Lemma 2.27). There translation, not arithmetic, is the real cost.
 *
 * Build: cc count_tc_misses.c $(pkg-config --cflags --libs models)   (or `make`, which builds every
 * example). With -DMDL_NATIVE the macros vanish and the same functions run at full speed. */
#include <models/models.h>

#include <stdio.h>
#include <stdlib.h>

static const char *const policies[] = { "lru", "islru", "min", "ismin" };

static gint64
sum_in_order (MdlRecorder *rec, const gint64 *a, gsize n)
{
  gint64 sum = 0;
  (void) rec; /* unused when built with -DMDL_NATIVE */
  for (gsize i = 0; i < n; i++)
    {
      MDL_READ (rec, &a[i]);
      MDL_OPS (rec, 1);
      sum += a[i];
    }
  return sum;
}

static gint64
sum_in_random_order (MdlRecorder *rec, const gint64 *a, const guint32 *order, gsize n)
{
  gint64 sum = 0;
  (void) rec;
  for (gsize i = 0; i < n; i++)
    {
      MDL_READ (rec, &order[i]);
      MDL_READ (rec, &a[order[i]]);
      MDL_OPS (rec, 2);
      sum += a[order[i]];
    }
  return sum;
}

/* The count @name of @r. A name the report lacks is a bug of this program (a typo, an engine
 * that was not added): say which and stop, never print a zero. */
static guint64
count (const MdlReport *r, const char *name)
{
  g_autoptr (GError) error = NULL;
  const MdlCounter *c = mdl_report_get (r, name, &error);
  if (c == NULL)
    {
      fprintf (stderr, "count_tc_misses: %s\n", error->message);
      exit (1);
    }
  return c->count;
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  gsize n = 1 << 21;   /* 16 MiB of gint64: 4096 pages */
  g_autofree gint64 *a = g_new (gint64, n);
  g_autofree guint32 *order = g_new (guint32, n);
  g_autofree MdlReport **reports = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (2013);
  MdlSink sink;
  g_autoptr (MdlRecorder) rec = NULL;
  guint n_reports;
  gint64 s1, s2;

  for (gsize i = 0; i < n; i++)
    {
      a[i] = (gint64) i;
      order[i] = (guint32) i;
    }
  for (gsize i = n - 1; i > 0; i--)   /* Fisher-Yates */
    {
      gsize j = (gsize) g_rand_int_range (rand, 0, (gint32) i + 1);
      guint32 t = order[i];
      order[i] = order[j];
      order[j] = t;
    }

  for (guint p = 0; p < G_N_ELEMENTS (policies); p++)
    {
      g_autofree char *spec = g_strdup_printf ("vat:machine=x86-64,policy=%s,W=64", policies[p]);
      if (!mdl_pipeline_add_engine_spec (pipeline, spec, &error))
        {
          fprintf (stderr, "count_tc_misses: %s\n", error->message);
          return 1;
        }
    }
  sink = mdl_pipeline_sink (pipeline);
  rec = mdl_recorder_new (&sink, 0);
  MDL_PHASE_BEGIN (rec, "in order");
  s1 = sum_in_order (rec, a, n);
  MDL_PHASE_END (rec, "in order");
  MDL_PHASE_BEGIN (rec, "random order");
  s2 = sum_in_random_order (rec, a, order, n);
  MDL_PHASE_END (rec, "random order");
  if (!mdl_recorder_finish (rec, &error))
    {
      fprintf (stderr, "count_tc_misses: %s\n", error->message);
      return 1;
    }

  reports = mdl_pipeline_reports (pipeline, &n_reports);
  printf ("sums %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " over %zu elements; TC misses with "
          "P=4096, K=512, d=4, W=64:\n\n", s1, s2, n);
  printf ("%-7s %14s %10s %14s %10s %14s\n", "policy", "in order", "per acc.", "random order",
          "per acc.", "total cost");
  for (guint i = 0; i < n_reports; i++)
    {
      const MdlReport *seq = mdl_report_phase (reports[i], 0);
      const MdlReport *rnd = mdl_report_phase (reports[i], 1);
      printf ("%-7s %14" G_GUINT64_FORMAT " %10.3f %14" G_GUINT64_FORMAT " %10.3f %14"
              G_GUINT64_FORMAT "\n", policies[i], count (seq, "tc_misses"),
              (double) count (seq, "tc_misses") / (double) count (seq, "accesses"),
              count (rnd, "tc_misses"),
              (double) count (rnd, "tc_misses") / (double) count (rnd, "accesses"),
              count (reports[i], "cost"));
    }
  printf ("\n(cost = RAM operations + tau * TC misses, tau = 1; the random-order loop reads the\n"
          "permutation sequentially too, so half of its accesses are cheap)\n");
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  return 0;
}
