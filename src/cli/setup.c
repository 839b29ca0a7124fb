/* Steps that analyze, run and demo share: building the pipeline from --engine and --machine, and
 * reading sizes such as --n. Both go through the library's one parameter parser, so a value is
 * spelled the same on the command line as in an engine spec ("--n 64k" as "size=64k"). */
#include "cli/cli.h"

#include <glib/gstdio.h>
#include <string.h>

gboolean
mdl_cli_machine_check (const char *machine, GError **error)
{
  g_auto (GStrv) keys = NULL;
  if (machine == NULL)
    return TRUE;
  keys = mdl_machine_keys (machine, error);
  return keys != NULL;
}

MdlPipeline *
mdl_cli_pipeline_new (const char *const *specs, const char *machine, GError **error)
{
  static const char *const defaults[] = MDL_CLI_DEFAULT_ENGINES;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  if (specs == NULL || specs[0] == NULL)
    specs = defaults;
  mdl_pipeline_set_machine (pipeline, machine);
  for (const char *const *s = specs; *s; s++)
    if (!mdl_pipeline_add_engine_spec (pipeline, *s, error))
      return NULL;
  return g_steal_pointer (&pipeline);
}

gboolean
mdl_cli_pipeline_threads (MdlPipeline *pipeline, const char *command, const char *text,
                          GError **error)
{
  /* The default leaves a core to the source, which keeps producing on its own thread. */
  guint64 n = MIN (mdl_pipeline_n_engines (pipeline), (guint) MAX (g_get_num_processors () - 1, 1));
  if (text && !mdl_params_parse_uint (command, "threads", text, 0, 1024, 0, &n, error))
    return FALSE;
  mdl_pipeline_set_threads (pipeline, (guint) n);
  return TRUE;
}

MdlReport **
mdl_cli_run_algorithm (const char *algo_spec, guint64 n, const char *const *engines,
                       const char *machine, double *seconds, guint *n_reports, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assignments = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) pipeline = NULL;
  const MdlAlgo *algo;
  MdlSink sink;
  gint64 start_us;

  if (!mdl_spec_split (algo_spec, &name, &assignments, error)
      || !(algo = mdl_algo_lookup (name, error))
      || !(params = mdl_params_parse (algo->name, algo->params, (const char *const *) assignments,
                                      error))
      || !(pipeline = mdl_cli_pipeline_new (engines, machine, error)))
    return NULL;
  sink = mdl_pipeline_sink (pipeline);
  start_us = g_get_monotonic_time ();
  if (!mdl_algo_run_into (algo, params, n, 1, &sink, NULL, error))
    return NULL;
  *seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
  return mdl_pipeline_reports (pipeline, n_reports);
}

void
mdl_cli_pipeline_by_site (MdlPipeline *pipeline)
{
  for (guint i = 0; i < mdl_pipeline_n_engines (pipeline); i++)
    mdl_engine_set_site_phases (mdl_pipeline_engine (pipeline, i), TRUE);
}

guint64
mdl_cli_input_size (const char *path, const MdlTraceReader *reader)
{
  GStatBuf st;
  if (strcmp (path, "-") == 0 || mdl_trace_reader_compressed (reader) || g_stat (path, &st) != 0
      || !S_ISREG (st.st_mode))
    return 0;
  return (guint64) st.st_size;
}

void
mdl_cli_note_skipped (const MdlTraceReader *reader, const char *name)
{
  guint64 skipped = mdl_trace_reader_n_skipped (reader);
  if (skipped > 0)
    mdl_cli_warn ("%s: skipped %" G_GUINT64_FORMAT " %s", name, skipped,
                  mdl_trace_reader_format (reader) == MDL_TRACE_LACKEY
                    ? "lines (Valgrind banner lines)" : "records");
}
