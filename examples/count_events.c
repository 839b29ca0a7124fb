/* Counting the events of your own code: a sum over an array, instrumented with the MDL_* macros,
 * fed to two engines at once. Build: cc count_events.c $(pkg-config --cflags --libs models)
 * With -DMDL_NATIVE the macros vanish and the same loop runs at full speed. */
#include <models/models.h>

#include <stdio.h>

static guint64
sum_array (MdlRecorder *rec, const guint64 *a, gsize n)
{
  guint64 sum = 0;
  (void) rec; /* unused when built with -DMDL_NATIVE */
  for (gsize i = 0; i < n; i++)
    {
      MDL_READ (rec, &a[i]);
      MDL_OPS (rec, 1);
      sum += a[i];
    }
  return sum;
}

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  gsize n = 1 << 16;
  g_autofree guint64 *a = g_new (guint64, n);
  g_autofree MdlReport **reports = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  guint n_reports;
  guint64 sum;

  for (gsize i = 0; i < n; i++)
    a[i] = i;
  if (!mdl_pipeline_add_engine_spec (pipeline, "count", &error)
      || !mdl_pipeline_add_engine_spec (pipeline, "footprint:machine=x86-64", &error))
    {
      fprintf (stderr, "count_events: %s\n", error->message);
      return 1;
    }
  MdlSink sink = mdl_pipeline_sink (pipeline);
  g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 0);
  sum = sum_array (rec, a, n);
  if (!mdl_recorder_finish (rec, &error))
    {
      fprintf (stderr, "count_events: %s\n", error->message);
      return 1;
    }

  reports = mdl_pipeline_reports (pipeline, &n_reports);
  MdlSourceInfo source = { "sum_array", mdl_pipeline_n_events (pipeline), 0.0 };
  mdl_reports_write (&source, reports, n_reports, MDL_FORMAT_TABLE, out);
  printf ("sum = %" G_GUINT64_FORMAT "\n%s", sum, out->str);
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  return 0;
}
