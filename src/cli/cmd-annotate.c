/* `models annotate`: every count of every engine by source line and function, hottest first, and
 * the source with the counts in the margin (Cachegrind's cg_annotate, for any engine). Three
 * sources: an instrumented algorithm, whose MDL_READ/MDL_WRITE sites name their own lines; a
 * Lackey trace file with the binary it came from; or a program, traced under Lackey here as
 * `models trace` does. For the last two, each data access belongs to the instruction Lackey
 * printed before it, and instructions map to lines through the binary's DWARF (libdw). */
#include "cli/cli.h"

#include <models/dwarf.h>

#include <gio/gunixinputstream.h>
#include <string.h>

static int annotate_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_annotate = {
  .name = "annotate",
  .args = "ALGORITHM | --trace FILE --binary PROGRAM | -- PROGRAM [ARG…]",
  .summary = "break every engine's counts down by source line and function (like cg_annotate)",
  .description =
    "Attributes every count of every engine to the source line that caused it and prints the\n"
    "lines and functions hottest first, then the source with the counts in the margin. The\n"
    "source is an instrumented algorithm (its MDL_READ/MDL_WRITE lines), a Lackey trace FILE of\n"
    "PROGRAM (--trace, --binary), or PROGRAM itself, run under valgrind --tool=lackey (after\n"
    "\"--\"). A program must be built with -g; a position-independent one is looked up at the\n"
    "address Valgrind loads it at (0x108000; --load-base sets another). Rows under --threshold\n"
    "percent of the --sort counter's total are left out. Counters are named ENGINE.COUNTER\n"
    "(cache.l1_misses; a second engine of a class is cache2.); a bare counter name means the\n"
    "first engine's. Without --engine: count. A table leaves out counters that no line has\n"
    "(--show names any); JSON and CSV carry them all.\n"
    "\n"
    "Examples:\n"
    "  models annotate scan/random --n 4k -e vat:machine=x86-64\n"
    "  models annotate mergesort/bottom-up --n 1k -e cache:machine=x86-64 --sort misses\n"
    "  models annotate heap/sort --n 1k -f csv --threshold 1\n"
    "  models annotate -e cache:levels=32k:8:64,cachegrind=1 -- ./prog 1000\n"
    "  models annotate --trace prog.lackey --binary ./prog -e vat:machine=x86-64",
  .main = annotate_main,
};

typedef struct {
  char **engines;
  char *machine;
  char *format_name;
  char *output;
  char *n_text;
  char *trace;
  char *binary;
  char *load_base;
  char *sort;
  char *show;
  char *valgrind;
  char *program_output;
  char **source_dirs;
  double threshold;
  gint context;
  gboolean no_source;
  gboolean fetches;
} Options;

static void
options_clear (Options *o)
{
  g_strfreev (o->engines);
  g_free (o->machine);
  g_free (o->format_name);
  g_free (o->output);
  g_free (o->n_text);
  g_free (o->trace);
  g_free (o->binary);
  g_free (o->load_base);
  g_free (o->sort);
  g_free (o->show);
  g_free (o->valgrind);
  g_free (o->program_output);
  g_strfreev (o->source_dirs);
}

/* The engines with their counts broken down by site. */
static MdlPipeline *
pipeline_new (const Options *o, GError **error)
{
  static const char *const count_only[] = { "count", NULL };
  const char *const *specs = o->engines ? (const char *const *) o->engines : count_only;
  MdlPipeline *pipeline = mdl_cli_pipeline_new (specs, o->machine, error);
  if (pipeline)
    mdl_cli_pipeline_by_site (pipeline);
  return pipeline;
}

/* Runs the instrumented algorithm @spec; its call sites are the code-site table's. */
static gboolean
run_algorithm (const char *spec, guint64 n, MdlPipeline *pipeline, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assignments = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo;
  MdlSink sink = mdl_pipeline_sink (pipeline);
  return mdl_spec_split (spec, &name, &assignments, error)
         && (algo = mdl_algo_lookup (name, error)) != NULL
         && (params = mdl_params_parse (algo->name, algo->params,
                                        (const char *const *) assignments, error)) != NULL
         && mdl_algo_run_into (algo, params, n, 1, &sink, NULL, error);
}

/* Pumps @reader through the attributor into @pipeline to the end. */
static gboolean
pump_all (MdlTraceReader *reader, MdlAttributor *attributor, GError **error)
{
  MdlSink sink = mdl_attributor_sink (attributor);
  gboolean done = FALSE;
  mdl_trace_reader_set_fetches (reader, TRUE);
  while (!done)
    if (!mdl_trace_reader_pump (reader, &sink, MDL_CLI_PUMP_RECORDS, &done, error))
      return FALSE;
  return TRUE;
}

/* Fails unless some instruction of the trace fell in @binary's code: a trace of another program
 * (or of this one loaded elsewhere) would otherwise give a table of `???` only. */
static gboolean
check_resolved (const MdlAttributor *a, const char *binary, gboolean pie, GError **error)
{
  if (mdl_attributor_n_resolved (a) > 0)
    return TRUE;
  if (mdl_attributor_n_instructions (a) == 0)
    {
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_FORMAT, "the trace has no instruction "
                           "lines (\"I  addr,size\"), so no access has a line: annotate needs "
                           "the whole Lackey text (valgrind --tool=lackey --trace-mem=yes)");
      return FALSE;
    }
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "trace/binary mismatch: none of the %"
               G_GUINT64_FORMAT " instructions of the trace lies in a line of %s%s (is the trace "
               "of this program?%s)", mdl_attributor_n_instructions (a), binary,
               pie ? " as loaded" : "",
               pie ? " a position-independent program: --load-base gives where it was loaded" : "");
  return FALSE;
}

/* Traces argv[0..] under Lackey (or reads --trace) into @pipeline through an attributor. */
static gboolean
run_program (const Options *o, char **program, MdlSiteTable *sites, MdlPipeline *pipeline,
             GError **error)
{
  const char *binary = o->binary ? o->binary : program[0];
  g_autofree char *binary_path = NULL;
  g_autoptr (MdlDwarfLines) lines = NULL;
  g_autoptr (MdlAttributor) attributor = NULL;
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  guint64 base = MDL_DWARF_VALGRIND_PIE_BASE;
  MdlSink next = mdl_pipeline_sink (pipeline);
  gboolean ok;

  /* A bare name runs from PATH, as Valgrind finds it. */
  binary_path = strchr (binary, '/') ? g_strdup (binary) : g_find_program_in_path (binary);
  if (binary_path == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: no such program", binary);
      return FALSE;
    }
  if ((o->load_base && !mdl_params_parse_uint ("annotate", "load-base", o->load_base, 0, 0, 0,
                                               &base, error))
      || !(lines = mdl_dwarf_lines_open (binary_path, base, error)))
    return FALSE;
  attributor = mdl_attributor_new (sites, mdl_dwarf_lines_lookup, lines, o->fetches, &next);
  if (o->trace)
    {
      if (!(reader = mdl_trace_reader_open (o->trace, MDL_TRACE_LACKEY, error)))
        return FALSE;
      ok = pump_all (reader, attributor, error);
    }
  else
    {
      int fd = -1;
      g_autoptr (GInputStream) in = NULL;
      proc = mdl_cli_spawn_lackey (o->valgrind ? o->valgrind : "valgrind", program,
                                   o->program_output, &fd, error);
      if (proc == NULL)
        return FALSE;
      in = g_unix_input_stream_new (fd, TRUE);
      reader = mdl_trace_reader_new (in, program[0], MDL_TRACE_LACKEY, error);
      ok = reader && pump_all (reader, attributor, error);
      if (!ok)
        g_subprocess_force_exit (proc);
      g_subprocess_wait (proc, NULL, NULL);
      if (ok && g_subprocess_get_if_exited (proc) && g_subprocess_get_exit_status (proc) != 0)
        mdl_cli_warn ("%s exited with status %d (under Valgrind); the counts cover what it ran",
                      program[0], g_subprocess_get_exit_status (proc));
    }
  return ok && check_resolved (attributor, binary, mdl_dwarf_lines_is_pie (lines), error);
}

static int
annotate_main (int argc, char **argv)
{
  gboolean help = FALSE, after_dashes = FALSE;
  Options o = { .threshold = 0.1, .context = 3 };
  const GOptionEntry entries[] = {
    MDL_CLI_ENGINE_OPTIONS (o.engines, o.machine, o.format_name, o.output),
    { "n", 'n', 0, G_OPTION_ARG_STRING, &o.n_text,
      "ALGORITHM's problem size in elements (default 64k)", "N" },
    { "trace", 't', 0, G_OPTION_ARG_FILENAME, &o.trace, "A Lackey trace FILE of --binary", "FILE" },
    { "binary", 'b', 0, G_OPTION_ARG_FILENAME, &o.binary,
      "The program (built with -g) whose trace --trace is", "PROGRAM" },
    { "load-base", 0, 0, G_OPTION_ARG_STRING, &o.load_base,
      "Where a position-independent PROGRAM was loaded (default 0x108000, Valgrind's)", "ADDR" },
    { "threshold", 'T', 0, G_OPTION_ARG_DOUBLE, &o.threshold,
      "Leave out rows under PCT percent of the sort counter's total (default 0.1)", "PCT" },
    { "sort", 'S', 0, G_OPTION_ARG_STRING, &o.sort,
      "Order rows by COUNTER (default: the first with a nonzero total)", "COUNTER" },
    { "show", 0, 0, G_OPTION_ARG_STRING, &o.show,
      "Print only these counters (comma-separated)", "LIST" },
    { "context", 'C', 0, G_OPTION_ARG_INT, &o.context,
      "Source lines around each hot line (default 3)", "N" },
    { "no-source", 0, 0, G_OPTION_ARG_NONE, &o.no_source, "Leave out the annotated source", NULL },
    { "source-dir", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.source_dirs,
      "Also look for relative source files in DIR (repeat for several)", "DIR" },
    { "fetches", 0, 0, G_OPTION_ARG_NONE, &o.fetches,
      "Feed instruction fetches to the engines too (for cache:icache=...)", NULL },
    { "valgrind", 0, 0, G_OPTION_ARG_FILENAME, &o.valgrind,
      "The valgrind binary (default: valgrind from PATH)", "PATH" },
    { "program-output", 'P', 0, G_OPTION_ARG_FILENAME, &o.program_output,
      "Write PROGRAM's standard output and error to FILE", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_annotate, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = NULL;
  g_autoptr (MdlSiteTable) own_sites = NULL;
  g_autoptr (MdlAnnotation) annotation = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_auto (GStrv) show = NULL;
  MdlReport **reports = NULL;
  const MdlSiteTable *sites = mdl_code_sites ();
  MdlFormat format;
  MdlAnnotateOptions opts;
  guint64 n = 1 << 16;
  guint n_reports = 0;
  gboolean ok;
  int rc;

  for (int i = 1; i < argc && !after_dashes; i++)
    after_dashes = strcmp (argv[i], "--") == 0;
  g_option_context_set_strict_posix (ctx, after_dashes);
  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_annotate, &help, &argc, &argv, 0, -1);
  if (rc == MDL_CLI_CONTINUE && (o.trace != NULL) != (o.binary != NULL))
    rc = mdl_cli_usage (&mdl_cli_cmd_annotate, "--trace and --binary go together");
  else if (rc == MDL_CLI_CONTINUE && o.trace && argc > 1)
    rc = mdl_cli_usage (&mdl_cli_cmd_annotate, "--trace takes no ALGORITHM or PROGRAM");
  else if (rc == MDL_CLI_CONTINUE && !o.trace && argc < 2)
    rc = mdl_cli_usage (&mdl_cli_cmd_annotate, "missing argument: expected ALGORITHM, "
                        "--trace FILE --binary PROGRAM, or -- PROGRAM [ARG…]");
  else if (rc == MDL_CLI_CONTINUE && !o.trace && !after_dashes && argc > 2)
    rc = mdl_cli_usage (&mdl_cli_cmd_annotate, "one ALGORITHM; put \"--\" before a PROGRAM and "
                        "its arguments");
  else if (rc == MDL_CLI_CONTINUE && o.context < 0)
    rc = mdl_cli_usage (&mdl_cli_cmd_annotate, "--context %d: expected 0 or more", o.context);
  if (rc != MDL_CLI_CONTINUE)
    {
      options_clear (&o);
      return rc;
    }

  ok = mdl_cli_format_parse (o.format_name, &format, &error)
       && mdl_cli_machine_check (o.machine, &error)
       && (!o.n_text || mdl_params_parse_uint ("annotate", "n", o.n_text, 1, 0, 0, &n, &error))
       && (pipeline = pipeline_new (&o, &error)) != NULL;
  if (ok && (o.trace || after_dashes))
    {
      sites = own_sites = mdl_site_table_new ();
      ok = run_program (&o, argv + 1, own_sites, pipeline, &error);
    }
  else if (ok)
    ok = run_algorithm (argv[1], n, pipeline, &error);
  if (ok)
    {
      reports = mdl_pipeline_reports (pipeline, &n_reports);
      annotation = mdl_annotation_new (sites, reports, n_reports);
      show = o.show ? g_strsplit (o.show, ",", -1) : NULL;
      opts = (MdlAnnotateOptions) { .sort = o.sort, .show = (const char *const *) show,
                                    .threshold = o.threshold, .context = (guint) o.context,
                                    .source = !o.no_source,
                                    .source_dirs = (const char *const *) o.source_dirs };
      ok = mdl_annotation_write (annotation, &opts, format, text, &error)
           && mdl_cli_output_write (o.output, text, &error);
    }
  for (guint i = 0; i < n_reports; i++)
    mdl_report_free (reports[i]);
  g_free (reports);
  options_clear (&o);
  return ok ? MDL_CLI_OK : mdl_cli_fail (g_steal_pointer (&error));
}
