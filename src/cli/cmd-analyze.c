/* `models analyze`: a trace file (or standard input) through any number of engines in one pass.
 * The reader is pumped in chunks so that progress can be shown between them; the reported seconds
 * cover opening, reading and simulating, which is what a rate (events per second) should divide. */
#include "cli/cli.h"

#include <string.h>

static int analyze_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_analyze = {
  .name = "analyze",
  .args = "FILE|-",
  .summary = "run model engines over a trace file (bin, lackey, din, raw or warp)",
  .description =
    "Reads FILE (\"-\": standard input; gzip-compressed files are detected) once and feeds every\n"
    "event to each engine. Without --engine: count and footprint. An engine spec is\n"
    "NAME:key=value,... (see \"models list\"). Skipped input (Valgrind's \"==pid==\"\n"
    "banner lines) is counted and noted on stderr.\n"
    "\n"
    "Examples:\n"
    "  valgrind --tool=lackey --trace-mem=yes --log-file=prog.lackey ./prog\n"
    "  models analyze prog.lackey\n"
    "  models analyze --engine footprint:page_bytes=2M --format json prog.lackey\n"
    "  models analyze --machine x86-64 --format csv --output out.csv trace.bin\n"
    "  zcat prog.lackey.gz | models analyze --trace-format lackey -",
  .main = analyze_main,
};

static int
analyze_main (int argc, char **argv)
{
  gboolean help = FALSE, done = FALSE, by_site = FALSE;
  g_auto (GStrv) engines = NULL;
  g_autofree char *machine = NULL, *format_name = NULL, *trace_format_name = NULL;
  g_autofree char *output = NULL, *threads_text = NULL;
  const GOptionEntry entries[] = {
    MDL_CLI_ENGINE_OPTIONS (engines, machine, format_name, output),
    { "trace-format", 't', 0, G_OPTION_ARG_STRING, &trace_format_name,
      "Input format: auto (default), bin, lackey, din, raw or warp", "FORMAT" },
    { "by-site", 0, 0, G_OPTION_ARG_NONE, &by_site,
      "Also break every count down by site id (named by site markers)", NULL },
    MDL_CLI_THREADS_OPTION (threads_text),
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_analyze, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = NULL;
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (MdlCliProgress) progress = NULL;
  MdlTraceFormat trace_format = MDL_TRACE_AUTO;
  MdlFormat format;
  MdlSourceInfo source;
  MdlSink sink;
  const char *path, *name;
  gint64 start_us;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_analyze, &help, &argc, &argv, 1, 1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  path = argv[1];
  name = strcmp (path, "-") == 0 ? "<stdin>" : path;
  if (!mdl_cli_format_parse (format_name, &format, &error)
      || (trace_format_name
          && !mdl_trace_format_from_name (trace_format_name, &trace_format, &error))
      || !mdl_cli_machine_check (machine, &error)
      || !(pipeline = mdl_cli_pipeline_new ((const char *const *) engines, machine, &error))
      || !mdl_cli_pipeline_threads (pipeline, "analyze", threads_text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (by_site)
    mdl_cli_pipeline_by_site (pipeline);

  start_us = g_get_monotonic_time ();
  reader = mdl_trace_reader_open (path, trace_format, &error);
  if (reader == NULL)
    {
      mdl_cli_error_name (&error, name);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  progress = mdl_cli_progress_new (name, mdl_cli_input_size (path, reader));
  sink = mdl_pipeline_sink (pipeline);
  mdl_cli_catch_interrupts ();
  while (!done && !mdl_cli_interrupted ())
    {
      if (!mdl_trace_reader_pump (reader, &sink, MDL_CLI_PUMP_RECORDS, &done, &error))
        {
          g_clear_pointer (&progress, mdl_cli_progress_free);
          mdl_cli_error_name (&error, name);
          return mdl_cli_fail (g_steal_pointer (&error));
        }
      mdl_cli_progress_update (progress, mdl_trace_reader_n_records (reader),
                               mdl_trace_reader_n_bytes (reader));
    }
  if (!mdl_pipeline_flush (pipeline, &error))
    {
      g_clear_pointer (&progress, mdl_cli_progress_free);
      mdl_cli_error_name (&error, name);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  source = (MdlSourceInfo) {
    .name = name,
    .events = mdl_pipeline_n_events (pipeline),
    .seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC,
  };
  g_clear_pointer (&progress, mdl_cli_progress_free);

  mdl_cli_note_skipped (reader, name);

  if (!mdl_cli_write_reports (pipeline, &source, format, output, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (mdl_cli_interrupted ())
    {
      mdl_cli_warn ("%s after %" G_GUINT64_FORMAT " records of %s: the report is partial",
                    mdl_cli_interrupted (), mdl_trace_reader_n_records (reader), name);
      return mdl_cli_interrupted_status ();
    }
  return MDL_CLI_OK;
}
