/* `models run`: an instrumented algorithm straight into the engines, without a trace file in
 * between (the recorder's sink is the pipeline), optionally also writing the stream to a trace;
 * or, with --native, the uninstrumented build of the same source, timed. The source name of the
 * report is written like a spec ("scan/seq:n=1024,seed=1") so a run can be repeated from it.
 * Ctrl-C stops the recording: the report covers the events delivered so far and says it is partial,
 * and the trace is left without its end record (truncated at its last record, for
 * `convert --salvage`); the algorithm itself runs to its end unrecorded, at native speed. */
#include "cli/cli.h"
#include "core/json.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static int run_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_run = {
  .name = "run",
  .args = "ALGORITHM",
  .summary = "run an instrumented algorithm through model engines",
  .description =
    "Runs ALGORITHM (see \"models list\") on N elements built from SEED, feeding its accesses to\n"
    "the engines as it runs (default engines: count, footprint). Sizes take k, M and G suffixes\n"
    "(powers of 1024). --trace-out also writes the event stream to a trace file (\".lackey\"\n"
    "for Lackey text, \".gz\" to compress, binary otherwise), which \"models analyze\" reads\n"
    "back into the same counters. Ctrl-C stops the recording: the report of what was recorded\n"
    "is printed marked PARTIAL (exit status 130), and the trace is left truncated at its last\n"
    "record (\"models convert --salvage\" recovers it). --native times the uninstrumented build\n"
    "instead and prints its wall time and checksum. Algorithm parameters go after the name like an engine's\n"
    "(scan/leftright:k=32) or in --param KEY=VALUE; a --param given later wins. --threads N runs\n"
    "the engines on N worker threads while the algorithm runs on its own; the reports are the same\n"
    "for every N. The default, a worker per engine but at most the cores less one, is the fastest\n"
    "measured: the engines are independent of one another and most of a run's time (six GPU\n"
    "engines behind a SIMT sort), and the algorithm needs a core of its own.\n"
    "\n"
    "Examples:\n"
    "  models run scan/random --n 1M --engine count\n"
    "  models run scan/leftright:k=32 --n 1M --engine kmodel:k=32 --engine banks:machine=h100\n"
    "  models run scan/seq --n 64k --machine x86-64 --format json\n"
    "  models run scan/random --n 4M --trace-out random.bin\n"
    "  models run sort/bitonic --n 64k --engine agpu --engine kmodel --engine msimd --threads 3\n"
    "  models run scan/random --n 16M --native",
  .main = run_main,
};

/* Header metadata of a trace written by run: what produced it, and enough to run it again. */
static gboolean
set_trace_meta (MdlTraceWriter *writer, const MdlAlgo *algo, const char *params, guint64 n,
                guint64 seed, const char *machine, GError **error)
{
  g_autofree char *producer = g_strdup_printf ("models %s", MDL_VERSION_STRING);
  g_autofree char *n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  g_autofree char *seed_text = g_strdup_printf ("%" G_GUINT64_FORMAT, seed);
  g_auto (GStrv) keys = NULL;
  mdl_trace_writer_set_meta (writer, "producer", producer);
  mdl_trace_writer_set_meta (writer, "algorithm", algo->name);
  mdl_trace_writer_set_meta (writer, "params", params);
  mdl_trace_writer_set_meta (writer, "seed", seed_text);
  mdl_trace_writer_set_meta (writer, "n", n_text);
  if (machine == NULL)
    return TRUE;
  keys = mdl_machine_keys (machine, error);
  if (keys == NULL)
    return FALSE;
  for (char **k = keys; *k; k++)
    {
      g_autofree char *value = NULL;
      g_autofree char *key = g_strdup_printf ("machine.%s", *k);
      if (!mdl_machine_get (machine, *k, &value, error))
        return FALSE;
      if (value)
        mdl_trace_writer_set_meta (writer, key, value);
    }
  return TRUE;
}

static int
run_native (const MdlAlgo *algo, const MdlParams *params, const char *source_name, guint64 n,
            guint64 seed, MdlFormat format, const char *output)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  guint64 checksum = 0;
  gint64 start_us = g_get_monotonic_time ();
  double seconds;
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!algo->run_native (params, n, seed, NULL, &checksum, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
  g_ascii_dtostr (buf, sizeof buf, seconds);
  switch (format)
    {
    case MDL_FORMAT_JSON:
      /* The shape of a report document, so that scripts find source.seconds in both. */
      g_string_append (text, "{\"source\": {\"name\": ");
      mdl_json_string (text, source_name);
      g_string_append_printf (text, ", \"events\": 0, \"seconds\": %s},\n \"native\": true, "
                              "\"checksum\": %" G_GUINT64_FORMAT ", \"reports\": []}\n", buf,
                              checksum);
      break;
    case MDL_FORMAT_CSV:
      g_string_append_printf (text, "source,seconds,checksum\n\"%s\",%s,%" G_GUINT64_FORMAT "\n",
                              source_name, buf, checksum);
      break;
    default:
      g_string_append_printf (text, "source: %s  (native)\n  seconds   %.6f\n  checksum  %"
                              G_GUINT64_FORMAT "\n", source_name, seconds, checksum);
      break;
    }
  if (!mdl_cli_output_write (output, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return MDL_CLI_OK;
}

/* @first then @second (either may be NULL) as one NULL-terminated array that borrows their
 * strings. */
static GPtrArray *
join_params (char **first, char **second)
{
  GPtrArray *joined = g_ptr_array_new ();
  for (char **p = first; p && *p; p++)
    {
      /* A --param overrides the same key of the spec: the two are separate layers, like a spec
       * over a preset. A key repeated within one layer reaches the parser twice, which refuses it. */
      const char *eq = strchr (*p, '=');
      gsize key_len = eq ? (gsize) (eq - *p) : strlen (*p);
      gboolean overridden = FALSE;
      for (char **q = second; q && *q && !overridden; q++)
        overridden = strncmp (*q, *p, key_len) == 0 && (*q)[key_len] == '=';
      if (!overridden)
        g_ptr_array_add (joined, *p);
    }
  for (char **p = second; p && *p; p++)
    g_ptr_array_add (joined, *p);
  g_ptr_array_add (joined, NULL);
  return joined;
}

static int
run_main (int argc, char **argv)
{
  gboolean help = FALSE, native = FALSE, by_site = FALSE;
  g_auto (GStrv) engines = NULL, param_list = NULL;
  g_autofree char *n_text = NULL, *seed_text = NULL, *machine = NULL, *format_name = NULL;
  g_autofree char *output = NULL, *trace_out = NULL, *threads_text = NULL;
  const GOptionEntry entries[] = {
    MDL_CLI_ENGINE_OPTIONS (engines, machine, format_name, output),
    { "n", 'n', 0, G_OPTION_ARG_STRING, &n_text,
      "Problem size in elements (default 1M = 1048576)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_STRING, &seed_text, "Input seed (default 1)", "S" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &param_list,
      "An algorithm parameter (repeat for several)", "KEY=VALUE" },
    { "trace-out", 'w', 0, G_OPTION_ARG_FILENAME, &trace_out,
      "Also write the event stream to trace FILE", "FILE" },
    { "native", 0, 0, G_OPTION_ARG_NONE, &native,
      "Time the native (uninstrumented) build; no engines", NULL },
    { "by-site", 0, 0, G_OPTION_ARG_NONE, &by_site,
      "Also break every count down by site id (named by site markers)", NULL },
    MDL_CLI_THREADS_OPTION (threads_text),
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_run, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlTraceWriter) writer = NULL;   /* before the pipeline: it must outlive it */
  g_autoptr (MdlPipeline) pipeline = NULL;
  g_autoptr (MdlCliProgress) progress = NULL;
  g_autofree char *params_text = NULL, *source_name = NULL, *algo_name = NULL;
  g_auto (GStrv) spec_params = NULL;
  g_autoptr (GPtrArray) all_params = NULL;
  MdlCliProgressRelay relay;
  MdlSink pipe_sink, sink;
  const MdlAlgo *algo;
  MdlFormat format;
  MdlSourceInfo source;
  guint64 n = 1 << 20, seed = 1;
  gboolean ok;
  gint64 start_us;
  const char *stopped;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_run, &help, &argc, &argv, 1, 1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (native && (engines || trace_out || machine))
    return mdl_cli_usage (&mdl_cli_cmd_run, "--native runs no engines: it takes no --engine, "
                          "--machine or --trace-out");
  if (trace_out && strcmp (trace_out, "-") == 0 && (output == NULL || strcmp (output, "-") == 0))
    return mdl_cli_usage (&mdl_cli_cmd_run, "--trace-out - needs --output FILE for the report");

  /* ALGORITHM may carry its parameters as a spec (scan/leftright:k=32), before any --param. */
  if (!mdl_spec_split (argv[1], &algo_name, &spec_params, &error)
      || !(algo = mdl_algo_lookup (algo_name, &error))
      || (n_text && !mdl_params_parse_uint ("run", "n", n_text, 1, 0, 0, &n, &error))
      || (seed_text
          && !mdl_params_parse_uint ("run", "seed", seed_text, 0, 0, 0, &seed, &error))
      || !(params = mdl_params_parse (algo->name, algo->params,
                                      (const char *const *) (all_params = join_params (
                                        spec_params, param_list))->pdata, &error))
      || !mdl_cli_format_parse (format_name, &format, &error)
      || !mdl_cli_machine_check (machine, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  params_text = mdl_params_normalized (params);
  source_name = g_strdup_printf ("%s:n=%" G_GUINT64_FORMAT ",seed=%" G_GUINT64_FORMAT "%s%s",
                                 algo->name, n, seed, *params_text ? "," : "", params_text);
  if (native)
    return run_native (algo, params, source_name, n, seed, format, output);

  pipeline = mdl_cli_pipeline_new ((const char *const *) engines, machine, &error);
  if (pipeline == NULL || !mdl_cli_pipeline_threads (pipeline, "run", threads_text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (by_site)
    mdl_cli_pipeline_by_site (pipeline);
  if (trace_out)
    {
      MdlSink trace_sink;
      writer = mdl_trace_writer_open (trace_out, MDL_TRACE_AUTO, &error);
      if (writer == NULL || !set_trace_meta (writer, algo, params_text, n, seed, machine, &error))
        {
          mdl_cli_error_name (&error, trace_out);
          return mdl_cli_fail (g_steal_pointer (&error));
        }
      trace_sink = mdl_trace_writer_sink (writer);
      mdl_pipeline_add_sink (pipeline, &trace_sink);
    }

  progress = mdl_cli_progress_new (algo->name, 0);
  pipe_sink = mdl_pipeline_sink (pipeline);
  sink = mdl_cli_progress_relay (&relay, progress, &pipe_sink);
  start_us = g_get_monotonic_time ();
  mdl_cli_catch_interrupts ();
  ok = mdl_algo_run_into (algo, params, n, seed, &sink, NULL, &error);
  /* Interrupted: the relay refused the rest of the stream, and that refusal is the error. */
  stopped = mdl_cli_interrupted ();
  if (stopped && !ok && g_error_matches (error, MDL_ERROR, MDL_ERROR_IO)
      && strcmp (error->message, stopped) == 0)
    {
      g_clear_error (&error);
      ok = TRUE;
    }
  ok = ok && mdl_pipeline_flush (pipeline, &error);
  if (ok && writer
      && !(stopped ? mdl_trace_writer_abandon (writer, &error)
                   : mdl_trace_writer_close (writer, &error)))
    {
      mdl_cli_error_name (&error, trace_out);
      ok = FALSE;
    }
  source = (MdlSourceInfo) {
    .name = source_name,
    .events = mdl_pipeline_n_events (pipeline),
    .seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC,
  };
  relay.progress = NULL;
  g_clear_pointer (&progress, mdl_cli_progress_free);
  if (!ok)
    {
      /* A trace cut short is worse than none: nothing could tell it from a complete one. */
      if (writer && strcmp (trace_out, "-") != 0)
        {
          g_clear_pointer (&pipeline, mdl_pipeline_free);
          g_clear_pointer (&writer, mdl_trace_writer_free);
          g_unlink (trace_out);
        }
      return mdl_cli_fail (g_steal_pointer (&error));
    }

  if (!mdl_cli_write_reports (pipeline, &source, format, output, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (stopped)
    {
      mdl_cli_warn ("%s after %" G_GUINT64_FORMAT " events: the report is partial%s%s%s", stopped,
                    source.events, trace_out ? "; " : "", trace_out ? trace_out : "",
                    trace_out ? " ends without its end record (models convert --salvage "
                                "recovers it)" : "");
      return mdl_cli_interrupted_status ();
    }
  return MDL_CLI_OK;
}
