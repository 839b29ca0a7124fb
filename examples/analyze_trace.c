/* Reading a trace file (binary or Valgrind Lackey, gzip or not) into engines given on the command
 * line, as `models analyze` does, in a few lines of library calls.
 * Build: cc analyze_trace.c $(pkg-config --cflags --libs models)
 * Run:   ./analyze_trace trace.lackey footprint:machine=x86-64 count */
#include <models/models.h>

#include <stdio.h>

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree MdlReport **reports = NULL;
  gboolean done = FALSE;
  guint n_reports;

  if (argc < 3)
    {
      fprintf (stderr, "usage: %s TRACE ENGINE-SPEC...\n", argv[0]);
      return 2;
    }
  for (int i = 2; i < argc; i++)
    if (!mdl_pipeline_add_engine_spec (pipeline, argv[i], &error))
      goto fail;
  reader = mdl_trace_reader_open (argv[1], MDL_TRACE_AUTO, &error);
  if (reader == NULL)
    goto fail;
  MdlSink sink = mdl_pipeline_sink (pipeline);
  while (!done)
    if (!mdl_trace_reader_pump (reader, &sink, 1 << 20, &done, &error))
      goto fail;

  reports = mdl_pipeline_reports (pipeline, &n_reports);
  MdlSourceInfo source = { argv[1], mdl_pipeline_n_events (pipeline), 0.0 };
  mdl_reports_write (&source, reports, n_reports, MDL_FORMAT_TABLE, out);
  fputs (out->str, stdout);
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  return 0;

fail:
  fprintf (stderr, "analyze_trace: %s\n", error->message);
  return 1;
}
