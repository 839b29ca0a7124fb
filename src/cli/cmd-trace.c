/* `models trace`: runs a program under `valgrind --tool=lackey --trace-mem=yes` and streams the
 * trace straight into the engines, with no temporary file: Lackey writes to a pipe (--log-fd) that
 * the Lackey reader reads as it fills, so a run of any length needs no disk. Standard output is the
 * report's (unless --output moves it), so the program's standard output goes to our standard error,
 * or with --program-output both its output streams go to a file: a report with the program's
 * lines in it cannot be parsed as JSON or CSV. With --fetches the instruction addresses are kept
 * for instruction caches (and for matching Cachegrind's unified last level); --save also writes
 * the trace. Valgrind follows children (--trace-children=yes): a launcher script or a shim that
 * execs the real program (pyenv's python3) would otherwise be all that is traced. The report's
 * source names every program traced, from Valgrind's "Command:" lines. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

static int trace_main (int argc, char **argv);

/* Records per pump: Lackey under Valgrind delivers some 100 k records/s, so the 1 M of the other
 * commands kept Ctrl-C waiting for 14 s; at 16 k the flag is seen within a fraction of a second
 * (a read still waits for the reader's buffer to fill, up to 1 MiB of text). */
#define TRACE_PUMP_RECORDS ((guint64) 1 << 14)

const MdlCliCommand mdl_cli_cmd_trace = {
  .name = "trace",
  .args = "[--] PROGRAM [ARG…]",
  .summary = "run a program under Valgrind Lackey and feed its memory trace to the engines",
  .description =
    "Runs PROGRAM under valgrind --tool=lackey --trace-mem=yes and feeds every access to each\n"
    "engine as Lackey prints it (through a pipe: nothing is written to disk unless --save is\n"
    "given). Without --engine: count and footprint. Put \"--\" before PROGRAM when it has\n"
    "options of its own. Standard output carries only the report: PROGRAM's standard output\n"
    "goes to standard error (its standard error stays there), or both go to the file named by\n"
    "--program-output; its standard input is left alone. A nonzero exit status of PROGRAM is\n"
    "reported on stderr; the counts cover what it ran.\n"
    "\n"
    "Valgrind follows children (--trace-children=yes): the counts cover PROGRAM and every\n"
    "program it starts (a wrapper script and the program it execs), and the report's source\n"
    "names each program traced, as Valgrind's Command: lines give them.\n"
    "\n"
    "Instruction fetches are RAM operations only, unless --fetches keeps their addresses for an\n"
    "instruction cache (cache:icache=...), as Cachegrind simulates one.\n"
    "\n"
    "Examples:\n"
    "  models trace -e vat:machine=x86-64 -- ./sort 100000\n"
    "  models trace -e cache:machine=x86-64,depth=2 -e tlb:machine=x86-64 -- ls -l /\n"
    "  models trace --fetches -e cache:levels=32k:8:64/1M:16:64,icache=32k:8:64,cachegrind=1 \\\n"
    "      -- ./prog\n"
    "  models trace --save prog.bin -- ./prog      then: models analyze -e ... prog.bin\n"
    "  models trace -f json -P prog.out -- ./prog > report.json",
  .main = trace_main,
};

GSubprocess *
mdl_cli_spawn_lackey (const char *valgrind, char **program, const char *program_output, int *read_fd,
              GError **error)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  GSubprocess *proc;
  int fds[2], out_fd;

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, error))
    return NULL;
  g_ptr_array_add (argv, (gpointer) valgrind);
  g_ptr_array_add (argv, (gpointer) "--tool=lackey");
  g_ptr_array_add (argv, (gpointer) "--trace-mem=yes");
  g_ptr_array_add (argv, (gpointer) "--log-fd=3");
  g_ptr_array_add (argv, (gpointer) "--trace-children=yes");
  for (char **a = program; *a; a++)
    g_ptr_array_add (argv, *a);
  g_ptr_array_add (argv, NULL);
  out_fd = program_output ? g_open (program_output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)
                          : dup (STDERR_FILENO);
  if (out_fd < 0)
    {
      int saved = errno;
      close (fds[0]);
      close (fds[1]);
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "cannot send the program's output to %s: %s",
                   program_output ? program_output : "standard error", g_strerror (saved));
      return NULL;
    }
  launcher = g_subprocess_launcher_new (program_output ? G_SUBPROCESS_FLAGS_STDERR_MERGE
                                                       : G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_take_stdout_fd (launcher, out_fd);
  g_subprocess_launcher_take_fd (launcher, fds[1], 3);
  proc = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, error);
  /* Freeing the launcher closes our copy of the write end, so the reader sees the end of the
   * trace when valgrind exits. */
  g_clear_object (&launcher);
  if (proc == NULL)
    {
      close (fds[0]);
      g_prefix_error (error, "cannot run %s (install Valgrind: `make deps`, or apt-get install "
                      "valgrind; --valgrind names another binary): ", valgrind);
      return NULL;
    }
  *read_fd = fds[0];
  return proc;
}

/* The programs Valgrind traced, "a; b; c" in the order they started, or NULL when it named none. */
static char *
traced_programs (const MdlTraceReader *reader)
{
  const char *commands = g_hash_table_lookup (mdl_trace_reader_meta (reader), "commands");
  g_auto (GStrv) lines = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  if (commands == NULL || *commands == '\0')
    return NULL;
  lines = g_strsplit (commands, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l)
      g_string_append_printf (out, "%s%s", out->len ? "; " : "", *l);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static int
trace_main (int argc, char **argv)
{
  gboolean help = FALSE, fetches = FALSE, done = FALSE;
  g_auto (GStrv) engines = NULL;
  g_autofree char *machine = NULL, *format_name = NULL, *output = NULL, *save = NULL;
  g_autofree char *valgrind = NULL, *program_output = NULL;
  const GOptionEntry entries[] = {
    MDL_CLI_ENGINE_OPTIONS (engines, machine, format_name, output),
    { "fetches", 0, 0, G_OPTION_ARG_NONE, &fetches,
      "Keep instruction fetch addresses (for cache:icache=...)", NULL },
    { "save", 's', 0, G_OPTION_ARG_FILENAME, &save,
      "Also write the trace to FILE (binary; .lackey or .din by name; .gz compresses)", "FILE" },
    { "program-output", 'P', 0, G_OPTION_ARG_FILENAME, &program_output,
      "Write PROGRAM's standard output and error to FILE (default: its output to stderr)", "FILE" },
    { "valgrind", 0, 0, G_OPTION_ARG_FILENAME, &valgrind,
      "The valgrind binary (default: valgrind from PATH)", "PATH" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_trace, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipeline = NULL;
  g_autoptr (MdlTraceWriter) writer = NULL;
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (MdlCliProgress) progress = NULL;
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autofree char *name = NULL, *traced = NULL;
  MdlFormat format;
  MdlSourceInfo source;
  MdlSink sink, save_sink;
  gint64 start_us;
  int rc, read_fd = -1, status;

  /* Options end at PROGRAM: its own options must not be taken for ours. */
  g_option_context_set_strict_posix (ctx, TRUE);
  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_trace, &help, &argc, &argv, 1, -1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (!mdl_cli_format_parse (format_name, &format, &error)
      || !mdl_cli_machine_check (machine, &error)
      || !(pipeline = mdl_cli_pipeline_new ((const char *const *) engines, machine, &error)))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (save && fetches && !g_str_has_suffix (save, ".din") && !g_str_has_suffix (save, ".din.gz"))
    return mdl_cli_usage (&mdl_cli_cmd_trace, "--save with --fetches needs a .din file: only din "
                          "text stores instruction fetches");
  if (program_output
      && ((output && strcmp (program_output, output) == 0)
          || (save && strcmp (program_output, save) == 0)))
    return mdl_cli_usage (&mdl_cli_cmd_trace, "--program-output %s is also the %s file",
                          program_output, save && strcmp (program_output, save) == 0
                                            ? "--save" : "--output");
  if (save)
    {
      if (!(writer = mdl_trace_writer_open (save, MDL_TRACE_AUTO, &error)))
        return mdl_cli_fail (g_steal_pointer (&error));
      mdl_trace_writer_set_meta (writer, "producer", "libmodels " MDL_VERSION_STRING
                                 " (models trace, valgrind lackey)");
      save_sink = mdl_trace_writer_sink (writer);
      mdl_pipeline_add_sink (pipeline, &save_sink);
    }

  name = g_strdup_printf ("lackey:%s", argv[1]);
  start_us = g_get_monotonic_time ();
  proc = mdl_cli_spawn_lackey (valgrind ? valgrind : "valgrind", argv + 1, program_output, &read_fd,
                       &error);
  if (proc == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  in = g_unix_input_stream_new (read_fd, TRUE);
  reader = mdl_trace_reader_new (in, name, MDL_TRACE_LACKEY, &error);
  if (reader == NULL)
    {
      g_subprocess_force_exit (proc);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  mdl_trace_reader_set_fetches (reader, fetches);
  progress = mdl_cli_progress_new (argv[1], 0);
  sink = mdl_pipeline_sink (pipeline);
  mdl_cli_catch_interrupts ();
  while (!done)
    {
      if (mdl_cli_interrupted ())
        {
          /* Stop Valgrind (Ctrl-C on a terminal reached it too), and keep what was read. */
          g_subprocess_force_exit (proc);
          break;
        }
      if (!mdl_trace_reader_pump (reader, &sink, TRACE_PUMP_RECORDS, &done, &error))
        {
          g_clear_pointer (&progress, mdl_cli_progress_free);
          g_subprocess_force_exit (proc);
          g_subprocess_wait (proc, NULL, NULL);
          return mdl_cli_fail (g_steal_pointer (&error));
        }
      mdl_cli_progress_update (progress, mdl_trace_reader_n_records (reader),
                               mdl_trace_reader_n_bytes (reader));
    }
  g_clear_pointer (&progress, mdl_cli_progress_free);
  if (!g_subprocess_wait (proc, NULL, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  status = g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
  if (mdl_trace_reader_n_records (reader) == 0 && !mdl_cli_interrupted ())
    {
      g_set_error (&error, MDL_ERROR, MDL_ERROR_IO, "%s: Valgrind produced no trace (exit status "
                   "%d); run valgrind --tool=lackey %s to see why", argv[1], status, argv[1]);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  if (status != 0 && !mdl_cli_interrupted ())
    mdl_cli_warn ("%s %s (under Valgrind); the counts cover what it ran", argv[1],
                  status < 0 ? "was killed by a signal" : "exited with a nonzero status");
  if (writer
      && !(mdl_cli_interrupted () ? mdl_trace_writer_abandon (writer, &error)
                                  : mdl_trace_writer_close (writer, &error)))
    return mdl_cli_fail (g_steal_pointer (&error));
  traced = traced_programs (reader);
  if (traced)
    {
      g_free (name);
      name = g_strdup_printf ("lackey:%s (traced: %s)", argv[1], traced);
    }
  source = (MdlSourceInfo) {
    .name = name,
    .events = mdl_pipeline_n_events (pipeline),
    .seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC,
  };
  if (!mdl_cli_write_reports (pipeline, &source, format, output, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (mdl_cli_interrupted ())
    {
      mdl_cli_warn ("%s after %" G_GUINT64_FORMAT " records of %s's trace: the report is "
                    "partial%s%s%s", mdl_cli_interrupted (), mdl_trace_reader_n_records (reader),
                    argv[1], save ? "; " : "", save ? save : "",
                    save ? " ends without its end record (models convert --salvage recovers it)"
                         : "");
      return mdl_cli_interrupted_status ();
    }
  return MDL_CLI_OK;
}
