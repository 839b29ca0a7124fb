/* `models experiment vat`: the VAT experiment (include/models/experiment.h) from the command line,
 * with a progress line on the terminal, the result on stdout in any format, and with --output-dir
 * every file plus the plot, drawn by gnuplot when it is installed (the CSV is written anyway). */
#include "cli/cli.h"
#include "core/bytes.h"

#include <models/experiment.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int experiment_main (int argc, char **argv);
static int gpu_main (int argc, char **argv);

static const MdlCliCommand gpu_command;
static const MdlCliCommand *const subcommands[] = { &gpu_command, NULL };

const MdlCliCommand mdl_cli_cmd_experiment = {
  .name = "experiment",
  .args = "vat|gpu",
  .summary = "experiments: measured against predicted (VAT on this CPU, GPU from a GPU run)",
  .description =
    "Times every algorithm of the VAT experiment natively at sizes growing by 1.4 from 2^10\n"
    "elements up to --max-bytes of arrays (minimum of --reps repetitions), runs each size once\n"
    "instrumented through the vat engine and ideal caches, and reports normalized time (ns per\n"
    "RAM operation) against log2 n, measured and predicted, the least-squares fit of the\n"
    "per-operation cost and tau with its R^2, and per algorithm the slope of normalized time\n"
    "against log2 n. Where transparent huge pages are available, permute and binsearch/sorted\n"
    "also run on 2 MiB pages against the model's huge=1 prediction, and the matrix products run\n"
    "on them in every series (their L2 placement is then the one the model counts); each such\n"
    "repetition records what the kernel granted, and one that was refused pages is named in the\n"
    "warnings and left out of the point's time where others got them. The default bound (32 MiB)\n"
    "takes minutes; each doubling of it roughly doubles the time. The estimated time is printed\n"
    "before anything runs, and a warning when the bound is too small for the fits to mean\n"
    "anything (arrays under twice the TLB reach, a negative miss cost, negative predictions).\n"
    "\n"
    "Every point is timed first, alone; the instrumented runs follow, --jobs at once on as many\n"
    "threads (they take most of the time; the results do not depend on --jobs: each run places\n"
    "its arrays at canonical addresses). --progress writes a progress line every 15 s even into a\n"
    "log.\n"
    "\n"
    "--output-dir writes vat.txt, vat.csv, vat-fits.csv, vat-slopes.csv, vat.json, the gnuplot\n"
    "data and script, and vat.png and vat.svg when gnuplot is installed (tools/deps.sh --plot).\n"
    "It also gets vat-journal.csv as the run goes: a row per timing pass and per point's counts,\n"
    "flushed as each ends, so that a run cut short (a time limit, a kill) keeps every finished\n"
    "step: --resume DIR, with the same options, runs only what the journal lacks and writes the\n"
    "results into DIR; --from DIR refits the journal's measurements and runs nothing (for a\n"
    "changed model on stored data).\n"
    "\n"
    "`models experiment gpu --help` tells of the GPU experiment, which has options of its own.\n"
    "\n"
    "Examples:\n"
    "  models experiment vat --max-bytes 64M --output-dir vat-out\n"
    "  models experiment vat --algos scan/random,permute/fisher-yates,binsearch/sorted --reps 5\n"
    "  models experiment vat --max-bytes 16M --format csv > vat.csv\n"
    "  models experiment vat --max-bytes 256M --growth 2 --jobs 16 --progress -o vat-out\n"
    "  models experiment vat --max-bytes 256M --growth 2 --jobs 16 --progress --resume vat-out\n"
    "  models experiment vat --from vat-out",
  .main = experiment_main,
  .subcommands = subcommands,
};

static const MdlCliCommand gpu_command = {
  .name = "experiment gpu",
  .args = "[CASE…]",
  .summary = "the GPU algorithms: the models' costs and fitted times next to a GPU run's",
  .description =
    "Predicts every case (algorithm x parameters x n) with its SIMT twin through agpu,\n"
    "kmodel and msimd (parameters from the machine preset: AGPU b = warp width, k = SMs;\n"
    "K-model k = shared banks; MSIMD S = warp width, P = SMs) and through coalesce, banks\n"
    "and divergence; joins each with its CUDA twin's median time and Nsight Compute counters\n"
    "from --measured DIR (written by tools/gpu-experiment.sh on the GPU machine); fits the\n"
    "time against each model's costs (non-negative least squares, R^2, leave-one-algorithm-\n"
    "out error) over n >= --min-fit-n; and relates each kernel to CUB and the device copy.\n"
    "CASE keeps only the cases whose spec contains it.\n"
    "\n"
    "The SIMT runs take seconds to minutes each at large n: make them on a CPU machine first.\n"
    "--predict-only --cases FILE --n SIZES --predictions FILE runs them (in parallel, --jobs)\n"
    "and appends each case to FILE as it is done; a case already there (with the same\n"
    "engines) is not run again, so an interrupted run resumes. The join on the GPU machine\n"
    "then reads FILE with --no-compute. A case list is what `gpu-kernels --list` prints,\n"
    "one spec per line; SIZES is a list of N, 2^K, 2^K+J, or 2^A..2^B (every power of two).\n"
    "Without --predictions, the measured cases are predicted here and kept in memory.\n"
    "\n"
    "The table format is Markdown (the fits, then per case the models' costs, counters\n"
    "predicted / measured, time measured / predicted). --output-dir writes gpu.md, gpu.csv,\n"
    "gpu-fits.csv, gpu.json, the gnuplot data and script, and gpu-fit.png and gpu-time.png\n"
    "when gnuplot is installed. Method and reading: docs/experiments/gpu.md.\n"
    "\n"
    "Examples:\n"
    "  gpu-kernels --list > cases.txt     (or: nvcc ... -o gpu-kernels src/algos/cuda/*.cu)\n"
    "  models experiment gpu --predict-only --cases cases.txt --n 2^10..2^24 \\\n"
    "      --predictions predictions.csv --jobs 2\n"
    "  models experiment gpu --measured gpu-out --predictions predictions.csv -o gpu-results\n"
    "  models experiment gpu --measured gpu-out --predictions predictions.csv --no-compute \\\n"
    "      --format csv reduce/",
  .main = gpu_main,
};

/* The progress line: the step, what runs, the time elapsed, the share of the estimated work and
 * an ETA. Drawn on stderr only when it is a terminal, after a second, at most four times a
 * second, and erased at the end; or, for the log of a long run, written as a line of its own
 * every LOG_SECONDS (--progress). */
#define LOG_SECONDS 15

void
mdl_cli_vat_progress_init (MdlCliVatProgress *pr)
{
  pr->enabled = isatty (STDERR_FILENO);
  pr->start_us = g_get_monotonic_time ();
  pr->next_draw_us = pr->start_us + G_USEC_PER_SEC;
  pr->drawn_len = 0;
  pr->log_lines = FALSE;
}

/* Writes the progress as lines of a log, whether or not stderr is a terminal. */
static void
progress_log_lines (MdlCliVatProgress *pr)
{
  pr->enabled = TRUE;
  pr->log_lines = TRUE;
  pr->next_draw_us = pr->start_us + LOG_SECONDS * G_USEC_PER_SEC;
}

/* Draws @line, with the share @work_done and an ETA, when a draw is due. */
static void
progress_draw (MdlCliVatProgress *pr, GString *line, double work_done)
{
  gint64 now = g_get_monotonic_time ();
  double elapsed = (double) (now - pr->start_us) / G_USEC_PER_SEC;
  int len;
  g_string_append_printf (line, ", %d:%02d elapsed", (int) elapsed / 60, (int) elapsed % 60);
  if (work_done > 0.001)
    {
      double left = elapsed * (1 - work_done) / work_done;
      g_string_append_printf (line, ", %.0f%%, ETA %d:%02d", 100 * work_done, (int) left / 60,
                              (int) left % 60);
    }
  if (pr->log_lines)
    {
      fprintf (stderr, "%s\n", line->str);
      fflush (stderr);
      return;
    }
  len = (int) line->len;
  fprintf (stderr, "\r%s%*s", line->str, MAX (0, pr->drawn_len - len), "");
  fflush (stderr);
  pr->drawn_len = MAX (len, pr->drawn_len);
}

/* TRUE when the line is on and due (and then sets the next time). */
static gboolean
progress_due (MdlCliVatProgress *pr)
{
  gint64 now = g_get_monotonic_time ();
  if (!pr->enabled || now < pr->next_draw_us)
    return FALSE;
  pr->next_draw_us = now + (pr->log_lines ? LOG_SECONDS * G_USEC_PER_SEC : G_USEC_PER_SEC / 4);
  return TRUE;
}

void
mdl_cli_vat_progress (const MdlVatProgress *p, void *data)
{
  MdlCliVatProgress *pr = data;
  g_autoptr (GString) line = NULL;
  if (p->algorithm == NULL || !progress_due (pr))
    return;
  line = g_string_new (NULL);
  if (p->running)
    g_string_append_printf (line, "models: experiment vat: %u/%u model, %u running, %.0fM events, "
                            "last %s n=2^%.1f", p->step, p->n_steps, p->running,
                            (double) p->events / 1e6, p->algorithm, log2 ((double) p->n));
  else
    g_string_append_printf (line, "models: experiment vat: %u/%u %s n=2^%.1f %s", p->step + 1,
                            p->n_steps, p->algorithm, log2 ((double) p->n), p->stage);
  progress_draw (pr, line, p->work_done);
}

/* An MdlGpuExperimentProgressFunc; @data is an MdlCliVatProgress. */
static void
gpu_progress (const MdlGpuExperimentProgress *p, void *data)
{
  MdlCliVatProgress *pr = data;
  g_autoptr (GString) line = NULL;
  if (!progress_due (pr))
    return;
  line = g_string_new (NULL);
  g_string_append_printf (line, "models: experiment gpu: predicted %u/%u cases, %u running, "
                          "%.0fM events", p->done, p->total, p->running, (double) p->events / 1e6);
  if (p->spec && p->done)
    g_string_append_printf (line, ", last %s", p->spec);
  progress_draw (pr, line, p->work_done);
}

void
mdl_cli_vat_progress_clear (MdlCliVatProgress *pr)
{
  if (pr->drawn_len > 0)
    {
      fprintf (stderr, "\r%*s\r", pr->drawn_len, "");
      fflush (stderr);
      pr->drawn_len = 0;
    }
}

gboolean
mdl_cli_run_gnuplot (const char *dir, const char *script, char **why)
{
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  g_autoptr (GError) error = NULL;
  g_autofree char *err_text = NULL;
  char *argv[] = { NULL, (char *) script, NULL };
  int status = 0;
  if (gnuplot == NULL)
    {
      *why = g_strdup ("gnuplot is not installed (tools/deps.sh --plot installs gnuplot-nox)");
      return FALSE;
    }
  argv[0] = gnuplot;
  if (!g_spawn_sync (dir, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &err_text, &status,
                     &error)
      || !g_spawn_check_wait_status (status, &error))
    {
      *why = g_strdup_printf ("gnuplot failed: %s%s%s", error->message,
                              err_text && *err_text ? ": " : "",
                              err_text ? g_strstrip (err_text) : "");
      return FALSE;
    }
  return TRUE;
}

/* The end of an experiment's command: prints @out, and when @output_dir got the files, draws
 * @plots there with gnuplot (the script is EXPERIMENT.gp) or says why not. */
static int
print_and_plot (const char *experiment, const GString *out, const char *output_dir,
                const char *plots)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL, *script = g_strdup_printf ("%s.gp", experiment);
  if (!mdl_cli_output_write (NULL, out, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (output_dir == NULL)
    return MDL_CLI_OK;
  if (mdl_cli_run_gnuplot (output_dir, script, &why))
    fprintf (stderr, "models: experiment %s: wrote %s/%s (and the tables, CSV and JSON)\n",
             experiment, output_dir, plots);
  else
    fprintf (stderr, "models: experiment %s: no plot: %s; wrote the tables, CSV, JSON and %s/%s "
             "(run \"gnuplot %s\" there later)\n", experiment, why, output_dir, script, script);
  return MDL_CLI_OK;
}

static void
print_warnings (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      fprintf (stderr, "models: experiment vat: warning: %s\n", lines[i]);
}

/* Says on stderr, before anything runs, how long the run will take and whether its bound is too
 * small for the fits, so that a user can stop it at once. */
static gboolean
announce_plan (const MdlVatExperimentConfig *cfg, GError **error)
{
  MdlVatPlan plan;
  double minutes;
  g_autofree char *largest = NULL, *reach = NULL;
  if (!mdl_vat_experiment_plan (cfg, &plan, error))
    return FALSE;
  minutes = plan.seconds / 60;
  largest = mdl_bytes_text (plan.largest_bytes);
  reach = mdl_bytes_text (plan.tlb_reach_bytes);
  if (minutes < 1)
    fprintf (stderr, "models: experiment vat: %u points, arrays up to %s; estimated time "
             "under a minute\n", plan.n_points, largest);
  else
    fprintf (stderr, "models: experiment vat: %u points, arrays up to %s; estimated time "
             "%.0f minutes (on two cores of a virtual machine; --max-bytes sets the bound)\n",
             plan.n_points, largest, ceil (minutes));
  if (plan.largest_bytes < 2 * plan.tlb_reach_bytes)
    fprintf (stderr, "models: experiment vat: warning: the largest arrays stay under twice the "
             "TLB reach (%s): the fitted cost of a TC miss will mean little\n", reach);
  return TRUE;
}

/* Bounds of the counts given as options. An option that reads 0 is refused rather than taken as
 * "the default": --reps 0 used to run 3 repetitions without a word. */
#define MAX_REPS 1000
#define MAX_JOBS 4096

static int
experiment_main (int argc, char **argv)
{
  gboolean help = FALSE, no_huge = FALSE, log_progress = FALSE;
  g_autofree char *machine = NULL, *max_bytes = NULL, *algos = NULL, *format_name = NULL;
  g_autofree char *output_dir = NULL, *tc_cells = NULL, *caches = NULL, *reps = NULL;
  g_autofree char *growth = NULL, *jobs = NULL, *resume_dir = NULL, *from_dir = NULL;
  const GOptionEntry entries[] = {
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine, "Machine preset for P, K, d and the TLB "
      "sizes (default x86-64)", "NAME" },
    { "max-bytes", 0, 0, G_OPTION_ARG_STRING, &max_bytes, "Memory bound of one run's arrays "
      "(default 32M; k, M, G suffixes)", "B" },
    { "reps", 'r', 0, G_OPTION_ARG_STRING, &reps, "Timed repetitions per size, at least, 1 to "
      G_STRINGIFY (MAX_REPS) " (default 3; the minimum is kept)", "R" },
    { "algos", 'a', 0, G_OPTION_ARG_STRING, &algos, "Comma-separated algorithms (default: all "
      "the experiment knows)", "LIST" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "Output format: table, json or csv "
      "(default table)", "FORMAT" },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir, "Also write every file and the "
      "plot into DIR", "DIR" },
    { "tc-cells", 0, 0, G_OPTION_ARG_STRING, &tc_cells, "W of the main VAT model (default: the "
      "preset's TLB entries plus the paging-structure caches)", "W" },
    { "caches", 0, 0, G_OPTION_ARG_STRING, &caches, "Cache sizes L1,L2,L3 of the EM prediction "
      "(default: this machine's; an empty field keeps it), e.g. ,,32M", "SIZES" },
    { "no-huge", 0, 0, G_OPTION_ARG_NONE, &no_huge, "Skip the huge-page series", NULL },
    { "growth", 0, 0, G_OPTION_ARG_STRING, &growth, "Factor between sizes, 1.05 to 16 (default "
      "1.4, the thesis's; 2 halves the points)", "X" },
    { "jobs", 'j', 0, G_OPTION_ARG_STRING, &jobs, "Instrumented runs at once, after the timings, 1 "
      "to " G_STRINGIFY (MAX_JOBS) " (default 1; the results do not depend on it)", "N" },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &log_progress, "Write a progress line every "
      G_STRINGIFY (LOG_SECONDS) " s even when stderr is not a terminal (for a log)", NULL },
    { "resume", 0, 0, G_OPTION_ARG_FILENAME, &resume_dir, "Continue the run whose journal DIR "
      "holds (same options): run only what it lacks, write the results into DIR", "DIR" },
    { "from", 0, 0, G_OPTION_ARG_FILENAME, &from_dir, "Refit the measurements of the journal in "
      "DIR with its options; run nothing", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_experiment, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlVatExperiment) exp = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_auto (GStrv) algo_list = NULL;
  MdlVatExperimentConfig cfg;
  MdlFormat format;
  MdlCliVatProgress progress;
  int rc;

  if (argc >= 2 && strcmp (argv[1], "gpu") == 0)
    return gpu_main (argc - 1, argv + 1);
  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_experiment, &help, &argc, &argv, 1, 1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (strcmp (argv[1], "vat") != 0)
    return mdl_cli_usage (&mdl_cli_cmd_experiment, "unknown experiment \"%s\" (valid: vat, gpu)",
                          argv[1]);
  if (!mdl_cli_format_parse (format_name, &format, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  mdl_vat_experiment_config_init (&cfg);
  if (machine)
    {
      if (!mdl_cli_machine_check (machine, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
      cfg.machine = machine;
    }
  if (max_bytes && !mdl_params_parse_uint ("experiment", "max-bytes", max_bytes, 1, 0, 0,
                                           &cfg.max_bytes, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (tc_cells && !mdl_params_parse_uint ("experiment", "tc-cells", tc_cells, 1, 0, 0,
                                          &cfg.tc_cells, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (caches)
    {
      g_auto (GStrv) sizes = g_strsplit (caches, ",", -1);
      if (g_strv_length (sizes) > 3)
        return mdl_cli_usage (&mdl_cli_cmd_experiment, "--caches takes at most three sizes "
                              "(L1,L2,L3), got \"%s\"", caches);
      for (guint l = 0; sizes[l]; l++)
        if (*g_strstrip (sizes[l])
            && !mdl_params_parse_uint ("experiment", "caches", sizes[l], 64, 0, 0,
                                       &cfg.cache_bytes[l], &error))
          return mdl_cli_fail (g_steal_pointer (&error));
    }
  if (growth)
    {
      char *end = NULL;
      cfg.growth = g_ascii_strtod (growth, &end);
      if (end == growth || *end != '\0')
        return mdl_cli_usage (&mdl_cli_cmd_experiment, "--growth expects a number such as 1.4, "
                              "got \"%s\"", growth);
    }
  if (reps)
    {
      guint64 value;
      if (!mdl_params_parse_uint ("experiment", "reps", reps, 1, MAX_REPS, 0, &value, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
      cfg.reps = (guint) value;
    }
  if (jobs)
    {
      guint64 value;
      if (!mdl_params_parse_uint ("experiment", "jobs", jobs, 1, MAX_JOBS, 0, &value, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
      cfg.jobs = (guint) value;
    }
  if (algos)
    {
      algo_list = g_strsplit (algos, ",", -1);
      for (guint i = 0; algo_list[i]; i++)
        g_strstrip (algo_list[i]);
      cfg.algorithms = (const char *const *) algo_list;
    }
  cfg.huge = !no_huge;
  if (resume_dir && from_dir)
    return mdl_cli_usage (&mdl_cli_cmd_experiment, "--resume and --from exclude each other");
  if (from_dir && (machine || max_bytes || reps || algos || tc_cells || caches || no_huge || growth
                   || jobs))
    return mdl_cli_usage (&mdl_cli_cmd_experiment, "--from takes the options of its journal; "
                          "give only --format and --output-dir with it");
  if (resume_dir && output_dir == NULL)
    output_dir = g_strdup (resume_dir);
  cfg.journal_dir = resume_dir ? resume_dir : from_dir ? from_dir : output_dir;
  cfg.resume = resume_dir != NULL;
  cfg.refit_only = from_dir != NULL;
  if (!from_dir && !announce_plan (&cfg, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  mdl_cli_vat_progress_init (&progress);
  if (log_progress)
    progress_log_lines (&progress);
  cfg.progress = mdl_cli_vat_progress;
  cfg.progress_data = &progress;

  exp = mdl_vat_experiment_run (&cfg, &error);
  mdl_cli_vat_progress_clear (&progress);
  if (exp == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  print_warnings (mdl_vat_experiment_warnings (exp));
  mdl_vat_experiment_write (exp, format, out);
  if (output_dir && !mdl_vat_experiment_write_files (exp, output_dir, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return print_and_plot ("vat", out, output_dir, "vat.png and vat.svg");
}

/* ---- models experiment gpu ---- */

/* Appends to @sizes the sizes of @text (see gpu_command's help). */
static gboolean
parse_sizes (const char *text, GArray *sizes, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  for (char **item = items; *item; item++)
    {
      g_auto (GStrv) range = g_strsplit (g_strstrip (*item), "..", 2);
      guint64 bounds[2] = { 0, 0 };
      for (guint r = 0; range[r]; r++)
        {
          const char *t = range[r], *caret = strchr (t, '^');
          char *end = NULL;
          if (caret == NULL)
            {
              if (!mdl_params_parse_uint ("experiment gpu", "n", t, 1, 0, 0, &bounds[r], error))
                return FALSE;
              continue;
            }
          {
            guint64 k = g_ascii_strtoull (caret + 1, &end, 10);
            gint64 j = *end ? g_ascii_strtoll (end, &end, 10) : 0;
            if (caret != t + 1 || *t != '2' || k == 0 || k > 40 || *end
                || (j < 0 && (guint64) -j >= (guint64) 1 << k))
              {
                g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment gpu: size \"%s\" is "
                             "not N, 2^K (K = 1..40), 2^K+J or 2^A..2^B", t);
                return FALSE;
              }
            bounds[r] = ((guint64) 1 << k) + (guint64) j;
          }
        }
      if (range[1] == NULL)
        g_array_append_val (sizes, bounds[0]);
      else if (bounds[0] > bounds[1] || (bounds[0] & (bounds[0] - 1))
               || (bounds[1] & (bounds[1] - 1)))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment gpu: range \"%s\" must "
                       "run from a power of two up to a power of two", *item);
          return FALSE;
        }
      else
        for (guint64 n = bounds[0]; n <= bounds[1]; n *= 2)
          g_array_append_val (sizes, n);
    }
  return TRUE;
}

/* The case specs of the list @path ("-": standard input): one per line, blank lines and "#"
 * comments left out. */
static char **
read_cases (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) io_error = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *cases = g_ptr_array_new ();
  if (strcmp (path, "-") == 0)
    {
      GString *in = g_string_new (NULL);
      char buf[4096];
      size_t got;
      while ((got = fread (buf, 1, sizeof buf, stdin)) > 0)
        g_string_append_len (in, buf, (gssize) got);
      text = g_string_free (in, FALSE);
    }
  else if (!g_file_get_contents (path, &text, NULL, &io_error))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, io_error->message);
      g_ptr_array_unref (cases);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (*g_strstrip (*l) && **l != '#')
      g_ptr_array_add (cases, g_strdup (*l));
  g_ptr_array_add (cases, NULL);
  return (char **) g_ptr_array_free (cases, FALSE);
}

/* The fit weighting named @name (mdl_gpu_fit_weights_name's words); FALSE when none is. */
static gboolean
parse_weights (const char *name, MdlGpuFitWeights *weights)
{
  for (guint w = 0; w < MDL_GPU_N_WEIGHTS; w++)
    if (strcmp (name, mdl_gpu_fit_weights_name (w)) == 0)
      {
        *weights = (MdlGpuFitWeights) w;
        return TRUE;
      }
  return FALSE;
}

static int
gpu_main (int argc, char **argv)
{
  gboolean help = FALSE, predict_only = FALSE, no_compute = FALSE;
  g_autofree char *machine = NULL, *measured = NULL, *cases_path = NULL, *sizes_text = NULL;
  g_autofree char *predictions = NULL, *format_name = NULL, *output_dir = NULL;
  g_autofree char *max_predict_n = NULL, *min_fit_n = NULL, *weights = NULL;
  g_autofree char *jobs = NULL;
  const GOptionEntry entries[] = {
    { "measured", 'd', 0, G_OPTION_ARG_FILENAME, &measured, "The GPU run's directory "
      "(tools/gpu-experiment.sh: timings.csv, profile-cases.csv, ncu.csv)", "DIR" },
    { "cases", 'c', 0, G_OPTION_ARG_FILENAME, &cases_path, "Also predict the cases listed in "
      "FILE (gpu-kernels --list; - for standard input)", "FILE" },
    { "n", 'n', 0, G_OPTION_ARG_STRING, &sizes_text, "Sizes of the listed cases that name no n: "
      "N, 2^K, 2^K+J, 2^A..2^B, comma-separated", "SIZES" },
    { "predictions", 'p', 0, G_OPTION_ARG_FILENAME, &predictions, "Predictions file (CSV): read "
      "its cases, append the ones run here", "FILE" },
    { "predict-only", 0, 0, G_OPTION_ARG_NONE, &predict_only, "Only predict the listed cases "
      "into --predictions (no measurements)", NULL },
    { "no-compute", 0, 0, G_OPTION_ARG_NONE, &no_compute, "Run no SIMT twin: only what "
      "--predictions has (on the GPU machine)", NULL },
    { "jobs", 'j', 0, G_OPTION_ARG_STRING, &jobs, "Cases predicted at once, 1 to "
      G_STRINGIFY (MAX_JOBS) " (default: the "
      "processors; each takes about 150 bytes per element)", "N" },
    { "max-predict-n", 0, 0, G_OPTION_ARG_STRING, &max_predict_n, "Run no SIMT twin above this "
      "n (default: no limit)", "N" },
    { "min-fit-n", 0, 0, G_OPTION_ARG_STRING, &min_fit_n, "Smallest n the fits use (default "
      "65536 = 2^16)", "N" },
    { "weights", 0, 0, G_OPTION_ARG_STRING, &weights, "How the fits weigh a case of time t: "
      "balanced (1/t, the default), relative (1/t^2) or absolute (1)", "W" },
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine, "Machine preset of the engines and the "
      "models' parameters (default h100)", "NAME" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name, "Output format: table (Markdown), "
      "json or csv (default table)", "FORMAT" },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir, "Also write every file and the "
      "plots into DIR", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&gpu_command, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuExperiment) exp = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GArray) sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_auto (GStrv) cases = NULL;
  MdlGpuExperimentConfig cfg;
  MdlCliVatProgress progress;
  MdlFormat format;
  guint64 jobs_value = 0;
  int rc = mdl_cli_parse (ctx, &gpu_command, &help, &argc, &argv, 0, -1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (predict_only && (measured || !cases_path || !predictions))
    return mdl_cli_usage (&gpu_command, "--predict-only needs --cases and --predictions, and "
                          "takes no --measured");
  if (!predict_only && !measured)
    return mdl_cli_usage (&gpu_command, "give --measured DIR (a GPU run), or --predict-only");
  mdl_gpu_experiment_config_init (&cfg);
  if (machine && !mdl_cli_machine_check (machine, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (!mdl_cli_format_parse (format_name, &format, &error)
      || (sizes_text && !parse_sizes (sizes_text, sizes, &error))
      || (max_predict_n && !mdl_params_parse_uint ("experiment gpu", "max-predict-n",
                                                   max_predict_n, 1, 0, 0, &cfg.max_predict_n,
                                                   &error))
      || (min_fit_n && !mdl_params_parse_uint ("experiment gpu", "min-fit-n", min_fit_n, 1, 0,
                                               0, &cfg.min_fit_n, &error))
      || (jobs && !mdl_params_parse_uint ("experiment gpu", "jobs", jobs, 1, MAX_JOBS, 0,
                                          &jobs_value, &error))
      || (cases_path && !(cases = read_cases (cases_path, &error))))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (weights && !parse_weights (weights, &cfg.weights))
    return mdl_cli_usage (&gpu_command, "--weights is balanced, relative or absolute, not \"%s\"",
                          weights);
  if (machine)
    cfg.machine = machine;
  cfg.measured = measured;
  cfg.cases = (const char *const *) cases;
  cfg.sizes = (const guint64 *) sizes->data;
  cfg.n_sizes = sizes->len;
  cfg.predictions = predictions;
  cfg.compute = !no_compute;
  cfg.jobs = (guint) jobs_value; /* 0: the default */
  cfg.filters = (const char *const *) argv + 1;
  mdl_cli_vat_progress_init (&progress);
  cfg.progress = gpu_progress;
  cfg.progress_data = &progress;

  exp = mdl_gpu_experiment_run (&cfg, &error);
  mdl_cli_vat_progress_clear (&progress);
  if (exp == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  mdl_gpu_experiment_write (exp, format, out);
  if (output_dir && !mdl_gpu_experiment_write_files (exp, output_dir, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  rc = print_and_plot ("gpu", out, output_dir, "gpu-fit.png, gpu-time.png and their .svg");
  {
    const MdlGpuResults *r = mdl_gpu_experiment_results (exp);
    guint failed = 0;
    for (guint i = 0; i < r->n_points; i++)
      if (r->points[i].error)
        {
          mdl_cli_warn ("experiment gpu: case %s was not predicted: %s", r->points[i].spec,
                        r->points[i].error);
          failed++;
        }
    return failed ? MDL_CLI_BAD_INPUT : rc;
  }
}
