/* Private to src/cli: what the subcommands of `models` share. Each subcommand lives in its own
 * cmd-*.c file and has the shape of a small main(); main.c dispatches on the first argument.
 * Everything a subcommand does goes through the public API, so a user program can do the same;
 * only option parsing, exit codes, output files and progress lines are the command's own. */
#ifndef MDL_CLI_H
#define MDL_CLI_H

#include <glib.h>
#include <gio/gio.h>
#include <models/models.h>

/* Exit codes (docs/cli.md): a script tells "fix the input" from "fix the command line". */
enum {
  MDL_CLI_OK = 0,
  MDL_CLI_BAD_INPUT = 1,   /* any GError from the library: spec, name, trace, I/O */
  MDL_CLI_USAGE = 2,       /* unknown command or option, missing or extra arguments */
  MDL_CLI_CONTINUE = -1,   /* mdl_cli_parse(): options are fine, go on */
};

/* The engines analyze and run use when no --engine is given. */
#define MDL_CLI_DEFAULT_ENGINES { "count", "footprint", NULL }

/* Records per mdl_trace_reader_pump() call: large enough that the call costs nothing, small enough
 * that progress redraws several times a second at reader speed (about 100 M records/s). */
#define MDL_CLI_PUMP_RECORDS ((guint64) 1 << 20)

/* One subcommand: the text of its --help and its entry point. */
typedef struct MdlCliCommand MdlCliCommand;
struct MdlCliCommand {
  const char *name;
  const char *args;         /* the positional arguments, as the usage line shows them */
  const char *summary;      /* one line, for `models --help` */
  const char *description;  /* the tail of --help: details and examples */
  int (*main) (int argc, char **argv);
  /* Commands reached as `models NAME WORD` that have options of their own (`experiment gpu`,
   * named "NAME WORD"), NULL-terminated; NULL for none. Only the man pages and completion read
   * it: main dispatches to them itself. */
  const MdlCliCommand *const *subcommands;
};

/* One per cmd-*.c file. */
extern const MdlCliCommand mdl_cli_cmd_list;
extern const MdlCliCommand mdl_cli_cmd_analyze;
extern const MdlCliCommand mdl_cli_cmd_run;
extern const MdlCliCommand mdl_cli_cmd_convert;
extern const MdlCliCommand mdl_cli_cmd_demo;
extern const MdlCliCommand mdl_cli_cmd_measure;
extern const MdlCliCommand mdl_cli_cmd_trace;
extern const MdlCliCommand mdl_cli_cmd_experiment;
extern const MdlCliCommand mdl_cli_cmd_sweep;
extern const MdlCliCommand mdl_cli_cmd_annotate;

/* ---- options and errors (main.c) ---- */

/* The description of -h, --help, which every command adds to its table (mdl_cli_context_new()). */
#define MDL_CLI_HELP_TEXT "Show this help and exit"

/* The commands `models --help` lists, in its order; @n: (out) how many. */
const MdlCliCommand *const *mdl_cli_commands (guint *n);
/* The command `models WORDS...` reaches: a command, or one of its subcommands when @words[1]
 * names one; *@n_used says how many words named it. NULL for an unknown command. */
const MdlCliCommand *mdl_cli_command_find (const char *const *words, guint n_words,
                                           guint *n_used);

/* The top level of `models` as its --help shows it: the options (-h, -V), the text after the
 * command list, and the environment variables the command and the library read. */
extern const GOptionEntry mdl_cli_top_options[];
extern const char mdl_cli_top_summary[];
extern const char mdl_cli_top_description[];
typedef struct {
  const char *name;
  const char *help;
} MdlCliEnvVar;
extern const MdlCliEnvVar mdl_cli_environment[];   /* ends with a NULL name */

/* Receives a command and its option table (the entries its main passes to
 * mdl_cli_context_new(), without --help); returns the exit status for main to return. */
typedef int (*MdlCliOptionsFunc) (const MdlCliCommand *cmd, const GOptionEntry *entries,
                                  void *data);
/* Enters the main of the command named by @words (as mdl_cli_command_find()) with those words
 * as its arguments, and calls @fn where the command would parse its options, instead of parsing
 * and running anything. Tables are local to each main, so this is how the man pages and the
 * completion see exactly what the parser sees. Returns @fn's status; MDL_CLI_BAD_INPUT when the
 * words name no command or the command never reached its parser. */
int mdl_cli_with_options (const char *const *words, guint n_words, MdlCliOptionsFunc fn,
                          void *data);

/* A GOption context for @cmd with @entries and a --help/-h of our own (GOption's built-in help
 * exits the process; ours returns, so every path ends in the subcommand's main). */
GOptionContext *mdl_cli_context_new (const MdlCliCommand *cmd, const GOptionEntry *entries,
                                     gboolean *help);
/* Parses the options of @cmd; --help prints the help on stdout. Leaves the positional arguments
 * in (*argv)[1..*argc-1] and checks there are @min_args to @max_args (-1: any number) of them.
 * Returns MDL_CLI_CONTINUE, or the exit code: 0 after --help, MDL_CLI_USAGE after a message. */
int mdl_cli_parse (GOptionContext *ctx, const MdlCliCommand *cmd, const gboolean *help,
                   int *argc, char ***argv, int min_args, int max_args);
/* Prints "models: MESSAGE" on stderr. */
void mdl_cli_warn (const char *format, ...) G_GNUC_PRINTF (1, 2);
/* Prints "models: MESSAGE" and returns MDL_CLI_BAD_INPUT; frees @error. */
int mdl_cli_fail (GError *error);
/* Prints "models CMD: MESSAGE" plus a pointer to --help, and returns MDL_CLI_USAGE. */
int mdl_cli_usage (const MdlCliCommand *cmd, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Adds "NAME: " in front of @error's message unless the library already named @name in it. */
void mdl_cli_error_name (GError **error, const char *name);

/* The options of the commands that feed engines (analyze, run, trace): --engine, --machine,
 * --format and --output, into the variables named. */
#define MDL_CLI_ENGINE_OPTIONS(engines, machine, format_name, output)                             \
  { "engine", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &(engines),                                     \
    "An engine spec NAME:key=value,... (repeat for several; default: count, footprint)", "SPEC" }, \
  { "machine", 'm', 0, G_OPTION_ARG_STRING, &(machine),                                          \
    "Add machine=NAME to every engine spec that does not choose one", "NAME" },                   \
  { "format", 'f', 0, G_OPTION_ARG_STRING, &(format_name),                                       \
    "Report format: table (default), json or csv", "FORMAT" },                                    \
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &(output),                                          \
    "Write the report to FILE instead of standard output", "FILE" }

/* --threads of the commands that feed a pipeline from one source (run, analyze). */
#define MDL_CLI_THREADS_OPTION(threads_text)                                                      \
  { "threads", 0, 0, G_OPTION_ARG_STRING, &(threads_text),                                       \
    "Engines on N worker threads (0: none; default: one per engine, at most the cores less one)",  \
    "N" }

/* ---- shared steps of analyze, run and demo (setup.c) ---- */

/* A pipeline with one engine per spec (@specs NULL or empty: the default engines); a non-NULL
 * @machine is added as machine=NAME to every spec that does not choose its own.
 * Returns: (transfer full) the pipeline, or NULL with the library's error. */
MdlPipeline *mdl_cli_pipeline_new (const char *const *specs, const char *machine, GError **error);
/* Sets @pipeline's worker threads from @command's --threads @text (NULL: the default, which needs
 * the engines added first); FALSE with MDL_ERROR_PARAM for a bad number. */
gboolean mdl_cli_pipeline_threads (MdlPipeline *pipeline, const char *command, const char *text,
                                   GError **error);
/* Runs the instrumented algorithm @algo_spec ("reduce/tree:b=32") on @n elements of seed 1 into
 * one engine per spec of @engines (as mdl_cli_pipeline_new()), and returns their reports
 * (transfer full: free each and the array), their number in *n_reports and the run's wall time in
 * *seconds; NULL with the library's or the algorithm's error. */
MdlReport **mdl_cli_run_algorithm (const char *algo_spec, guint64 n, const char *const *engines,
                                   const char *machine, double *seconds, guint *n_reports,
                                   GError **error);
/* Turns on the per-site phase breakdown of every engine of @pipeline (--by-site). */
void mdl_cli_pipeline_by_site (MdlPipeline *pipeline);
/* The size of the trace file @path when a share of it means something for progress: a regular,
 * uncompressed file (the reader counts decompressed bytes); 0 otherwise. */
guint64 mdl_cli_input_size (const char *path, const MdlTraceReader *reader);
/* Says on stderr what @reader skipped, if anything ("models: NAME: skipped 2 lines (...)"). */
void mdl_cli_note_skipped (const MdlTraceReader *reader, const char *name);
/* Checks @machine names a preset (MDL_ERROR_UNKNOWN_NAME listing them otherwise); NULL is fine. */
gboolean mdl_cli_machine_check (const char *machine, GError **error);

/* ---- man pages and completion (man.c, complete.c) ---- */

/* `models help --man DIR`: writes models.1 and models-CMD.1 for every command and subcommand
 * (models-experiment-gpu.1) into DIR, from the texts --help prints. */
int mdl_cli_man_main (const char *dir);
/* `models complete WORD...`: prints the candidates for the last WORD of `models WORD...`, one
 * per line, each a whole word; the line "@file" asks for file names instead (docs/cli.md). */
int mdl_cli_complete_main (int argc, char **argv);

/* ---- Valgrind (cmd-trace.c) ---- */

/* Starts @valgrind with Lackey on @program (argv, NULL-terminated) writing to the write end of a
 * pipe as its fd 3; sets *@read_fd to the read end. The program's standard output goes to our
 * standard error, or, when @program_output is not NULL, its standard output and error go to that
 * file (truncated). Returns NULL with @error set when it cannot start. (trace, annotate) */
GSubprocess *mdl_cli_spawn_lackey (const char *valgrind, char **program, const char *program_output,
                                   int *read_fd, GError **error);

/* ---- interrupts (interrupt.c) ---- */

/* From here on, the first SIGINT or SIGTERM only sets a flag (a second one ends the process). */
void mdl_cli_catch_interrupts (void);
/* NULL, or why the work must stop ("interrupted by SIGINT"): loops poll it between batches. */
const char *mdl_cli_interrupted (void);
/* The exit status of a run that was interrupted: 128 + the signal number, as shells report it. */
int mdl_cli_interrupted_status (void);

/* ---- demo (demo-gpu.c) ---- */

/* Appends the GPU models' side-by-side table of `models demo` to @text. */
gboolean mdl_cli_demo_gpu (GString *text, GError **error);

/* ---- output (output.c) ---- */

/* Writes @text to @path, or to stdout when @path is NULL or "-". Sets MDL_ERROR_IO naming it. */
gboolean mdl_cli_output_write (const char *path, const GString *text, GError **error);
/* Writes the pipeline's reports about @source in @format to @path (as mdl_cli_output_write());
 * after an interrupt (mdl_cli_interrupted()) the report is marked partial. */
gboolean mdl_cli_write_reports (MdlPipeline *pipeline, const MdlSourceInfo *source,
                                MdlFormat format, const char *path, GError **error);
/* Appends @rows (each a NULL-terminated string vector) to @out as a text table, each line after
 * @indent, columns two spaces apart: the first @left columns left-aligned, the others
 * right-aligned; the last cell of a row is not padded. */
void mdl_cli_text_table (GString *out, const char *indent, GPtrArray *rows, guint left);
/* @v with thousands separators ("1,048,576"): tables are read by people comparing magnitudes. */
char *mdl_cli_grouped (guint64 v);
/* The output formats, in MdlFormat order ({"table", "json", "csv"}). */
extern const char *const mdl_cli_format_names[];
#define MDL_CLI_N_FORMATS 3
/* `models list` writes the first two (table and json): a listing is not a table of counters. */
#define MDL_CLI_LIST_FORMATS 2
/* Parses --format (NULL: table); MDL_ERROR_UNKNOWN_NAME from the library otherwise. */
gboolean mdl_cli_format_parse (const char *name, MdlFormat *format, GError **error);

/* ---- the experiments' progress line and plot (cmd-experiment.c) ---- */

/* The state of the progress line of `models experiment vat` and `gpu` (and of the demo's short
 * version of vat). */
typedef struct {
  gboolean enabled;
  gint64 start_us;
  gint64 next_draw_us;
  int drawn_len;
  gboolean log_lines;   /* whole lines every few seconds (--progress), not one redrawn line */
} MdlCliVatProgress;
void mdl_cli_vat_progress_init (MdlCliVatProgress *p);
/* An MdlVatProgressFunc; @data is an MdlCliVatProgress. */
void mdl_cli_vat_progress (const MdlVatProgress *p, void *data);
void mdl_cli_vat_progress_clear (MdlCliVatProgress *p);

/* Runs `gnuplot SCRIPT` in @dir (written by mdl_vat_experiment_write_files() or
 * mdl_gpu_experiment_write_files()). Returns FALSE with @why (transfer full) saying so when gnuplot
 * is not installed or fails. */
gboolean mdl_cli_run_gnuplot (const char *dir, const char *script, char **why);

/* ---- progress (progress.c) ---- */

typedef struct MdlCliProgress MdlCliProgress;
/* A progress line on stderr for @label (a file name or algorithm). It stays silent unless stderr
 * is a terminal and the work has run for more than a second. @total_bytes: the input's size for a
 * percentage and ETA, or 0 when unknown. (transfer full) */
MdlCliProgress *mdl_cli_progress_new (const char *label, guint64 total_bytes);
/* Reports @records done and @bytes read so far; redraws at most a few times per second.
 * Cost: one clock read per call, so call it per chunk or batch, not per event. */
void mdl_cli_progress_update (MdlCliProgress *p, guint64 records, guint64 bytes);
/* Reports @before + @done of @total items (@unit: "configurations") as a bar, with an ETA at the
 * rate of the @done items of this run (the @before ones were found done); redraws at most a few
 * times per second, as mdl_cli_progress_update(). */
void mdl_cli_progress_items (MdlCliProgress *p, guint64 before, guint64 done, guint64 total,
                             const char *unit);
/* Clears the line if one was drawn and frees @p; NULL is fine. */
void mdl_cli_progress_free (MdlCliProgress *p);
/* A sink that counts what passes through, updates @p and hands everything on to @next (copied).
 * The returned sink's data is @relay, which must outlive its use. Once the command is interrupted
 * (mdl_cli_interrupted()) it refuses every event with MDL_ERROR_IO, whose message is the reason. */
typedef struct {
  MdlSink next;
  MdlCliProgress *progress;
  guint64 n_events;
} MdlCliProgressRelay;
MdlSink mdl_cli_progress_relay (MdlCliProgressRelay *relay, MdlCliProgress *p, const MdlSink *next);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlCliProgress, mdl_cli_progress_free)

#endif
