/* `models experiment vat`: the VAT experiment (include/models/experiment.h) from the command line,
 * with a progress line on the terminal, the result on stdout in any format, and with --output-dir
 * every file plus the plot, drawn by gnuplot when it is installed (the CSV is written anyway). */
#include "cli/cli.h"

#include <models/experiment.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int experiment_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_experiment = {
  .name = "experiment",
  .args = "vat",
  .summary = "rerun the VAT thesis's experiment on this machine: measured against predicted",
  .description =
    "Times every algorithm of the VAT experiment natively at sizes growing by 1.4 from 2^10\n"
    "elements up to --max-bytes of arrays (minimum of --reps repetitions), runs each size once\n"
    "instrumented through the vat engine and ideal caches, and reports normalized time (ns per\n"
    "RAM operation) against log2 n, measured and predicted, the least-squares fit of the\n"
    "per-operation cost and tau with its R^2, and per algorithm the slope of normalized time\n"
    "against log2 n. Where transparent huge pages are available, permute and binsearch/sorted\n"
    "also run on 2 MiB pages against the model's huge=1 prediction. The default bound (1 GiB)\n"
    "takes hours on a small machine; docs/experiments/vat.md lists run times.\n"
    "\n"
    "--output-dir writes vat.txt, vat.csv, vat-fits.csv, vat-slopes.csv, vat.json, the gnuplot\n"
    "data and script, and vat.png and vat.svg when gnuplot is installed (tools/deps.sh --plot).\n"
    "\n"
    "Examples:\n"
    "  models experiment vat --max-bytes 64M --output-dir vat-out\n"
    "  models experiment vat --algos scan/random,permute,binsearch/sorted --reps 5\n"
    "  models experiment vat --max-bytes 16M --format csv > vat.csv",
  .main = experiment_main,
};

/* The progress line: the step, what runs, the share of the estimated work and an ETA. Drawn on
 * stderr only when it is a terminal, after a second, at most four times a second, and erased at
 * the end. */
void
mdl_cli_vat_progress_init (MdlCliVatProgress *pr)
{
  pr->enabled = isatty (STDERR_FILENO);
  pr->start_us = g_get_monotonic_time ();
  pr->next_draw_us = pr->start_us + G_USEC_PER_SEC;
  pr->drawn_len = 0;
}

void
mdl_cli_vat_progress (const MdlVatProgress *p, void *data)
{
  MdlCliVatProgress *pr = data;
  gint64 now = g_get_monotonic_time ();
  g_autoptr (GString) line = NULL;
  int len;
  if (!pr->enabled || p->algorithm == NULL || now < pr->next_draw_us)
    return;
  pr->next_draw_us = now + G_USEC_PER_SEC / 4;
  line = g_string_new (NULL);
  g_string_append_printf (line, "models: experiment vat: %u/%u %s n=2^%.1f %s", p->step + 1,
                          p->n_steps, p->algorithm, log2 ((double) p->n), p->stage);
  if (p->events)
    g_string_append_printf (line, " %.1fM events", (double) p->events / 1e6);
  if (p->work_done > 0.001)
    {
      double elapsed = (double) (now - pr->start_us) / G_USEC_PER_SEC;
      double left = elapsed * (1 - p->work_done) / p->work_done;
      g_string_append_printf (line, ", %.0f%%, ETA %d:%02d", 100 * p->work_done, (int) left / 60,
                              (int) left % 60);
    }
  len = (int) line->len;
  fprintf (stderr, "\r%s%*s", line->str, MAX (0, pr->drawn_len - len), "");
  fflush (stderr);
  pr->drawn_len = MAX (len, pr->drawn_len);
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
mdl_cli_run_gnuplot (const char *dir, char **why)
{
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  g_autoptr (GError) error = NULL;
  g_autofree char *err_text = NULL;
  char *argv[] = { NULL, (char *) "vat.gp", NULL };
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

static int
experiment_main (int argc, char **argv)
{
  gboolean help = FALSE, no_huge = FALSE;
  g_autofree char *machine = NULL, *max_bytes = NULL, *algos = NULL, *format_name = NULL;
  g_autofree char *output_dir = NULL, *tc_cells = NULL, *caches = NULL;
  int reps = 0;
  const GOptionEntry entries[] = {
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine, "Machine preset for P, K, d and the TLB "
      "sizes (default x86-64)", "NAME" },
    { "max-bytes", 0, 0, G_OPTION_ARG_STRING, &max_bytes, "Memory bound of one run's arrays "
      "(default 1G; k, M, G suffixes)", "B" },
    { "reps", 'r', 0, G_OPTION_ARG_INT, &reps, "Timed repetitions per size, at least (default 3; "
      "the minimum is kept)", "R" },
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

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_experiment, &help, &argc, &argv, 1, 1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (strcmp (argv[1], "vat") != 0)
    return mdl_cli_usage (&mdl_cli_cmd_experiment, "unknown experiment \"%s\" (valid: vat)",
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
  if (reps < 0)
    return mdl_cli_usage (&mdl_cli_cmd_experiment, "--reps must be at least 1, got %d", reps);
  if (reps > 0)
    cfg.reps = (guint) reps;
  if (algos)
    {
      algo_list = g_strsplit (algos, ",", -1);
      for (guint i = 0; algo_list[i]; i++)
        g_strstrip (algo_list[i]);
      cfg.algorithms = (const char *const *) algo_list;
    }
  cfg.huge = !no_huge;
  mdl_cli_vat_progress_init (&progress);
  cfg.progress = mdl_cli_vat_progress;
  cfg.progress_data = &progress;

  exp = mdl_vat_experiment_run (&cfg, &error);
  mdl_cli_vat_progress_clear (&progress);
  if (exp == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  mdl_vat_experiment_write (exp, format, out);
  if (!mdl_cli_output_write (NULL, out, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (output_dir)
    {
      g_autofree char *why = NULL;
      if (!mdl_vat_experiment_write_files (exp, output_dir, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
      if (mdl_cli_run_gnuplot (output_dir, &why))
        fprintf (stderr, "models: experiment vat: wrote %s/vat.png and vat.svg (and the CSV, JSON "
                 "and table)\n", output_dir);
      else
        fprintf (stderr, "models: experiment vat: no plot: %s; wrote the CSV, JSON, table and "
                 "%s/vat.gp (run \"gnuplot vat.gp\" there later)\n", why, output_dir);
    }
  return MDL_CLI_OK;
}
