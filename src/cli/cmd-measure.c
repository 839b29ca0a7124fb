/* `models measure`: the GPU algorithms' CUDA twins measured, next to their SIMT twins'
 * predictions (the join is the library's mdl_gpu_compare(); this command parses, runs the
 * measuring script when asked to, and prints).
 *
 * The measured half runs on a machine with an NVIDIA GPU: tools/gpu-measure.sh builds the CUDA
 * twins (src/algos/cuda), checks and times them, and profiles them with Nsight Compute, leaving
 * timings.csv, profile-cases.csv and ncu.csv in a directory. Without --measured, this command runs
 * that script itself (from the source tree) and then reads its directory; with --measured DIR it
 * reads a directory made earlier, anywhere (so the committed H100 results in docs/results/ can be
 * joined again on a machine without a GPU). */
#include "cli/cli.h"

#include <string.h>

static int measure_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_measure = {
  .name = "measure",
  .args = "[CASE…]",
  .summary = "GPU algorithms: predicted counters next to Nsight Compute's",
  .description =
    "Runs each measured case's SIMT twin through the engines its algorithm is checked on\n"
    "(coalesce, banks, divergence) and prints every counter next to the Nsight Compute\n"
    "metric measured for its CUDA twin, with the difference. --measured DIR reads a directory written by\n"
    "tools/gpu-measure.sh (timings.csv, profile-cases.csv, ncu.csv); without it the command\n"
    "runs that script, which needs nvcc, ncu and an NVIDIA GPU, and says so when they are\n"
    "missing. CASE restricts the cases (a substring of the case spec). --metrics lists the\n"
    "metrics to profile (what tools/gpu-measure.sh asks Nsight Compute for).\n"
    "\n"
    "Examples:\n"
    "  models measure --measured docs/results/h100\n"
    "  models measure --measured docs/results/h100 --format csv --output h100.csv branch\n"
    "  models measure                      on a machine with an NVIDIA GPU",
  .main = measure_main,
};

/* Runs tools/gpu-measure.sh into @dir, profiling @metrics; MDL_ERROR_UNSUPPORTED when no GPU
 * toolchain is here. */
static gboolean
run_script (const char *dir, const char *metrics, GError **error)
{
  g_autofree char *nvcc = g_find_program_in_path ("nvcc");
  g_autofree char *ncu = g_find_program_in_path ("ncu");
  g_autofree char *smi = g_find_program_in_path ("nvidia-smi");
  const char *argv[] = { "bash", "tools/gpu-measure.sh", NULL };
  g_auto (GStrv) env = g_get_environ ();
  gint status = 0;

  if (nvcc == NULL && g_file_test ("/usr/local/cuda/bin/nvcc", G_FILE_TEST_IS_EXECUTABLE))
    nvcc = g_strdup ("/usr/local/cuda/bin/nvcc");
  if (ncu == NULL && g_file_test ("/usr/local/cuda/bin/ncu", G_FILE_TEST_IS_EXECUTABLE))
    ncu = g_strdup ("/usr/local/cuda/bin/ncu");
  if (nvcc == NULL || ncu == NULL || smi == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "no NVIDIA GPU toolchain here (%s%s%s "
                   "not found): measuring needs nvcc, ncu and an NVIDIA GPU; run "
                   "tools/gpu-measure.sh on such a machine and pass its directory with --measured",
                   nvcc ? "" : "nvcc ", ncu ? "" : "ncu ", smi ? "" : "nvidia-smi");
      return FALSE;
    }
  if (!g_file_test ("tools/gpu-measure.sh", G_FILE_TEST_EXISTS))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "tools/gpu-measure.sh not found: run "
                   "`models measure` from the libmodels source tree, or pass --measured DIR");
      return FALSE;
    }
  env = g_environ_setenv (env, "OUT", dir, TRUE);
  env = g_environ_setenv (env, "METRICS", metrics, TRUE);
  env = g_environ_setenv (env, "MODELS", "/nonexistent", TRUE);   /* no join there: it is ours */
  if (!g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_SEARCH_PATH | G_SPAWN_CHILD_INHERITS_STDIN,
                     NULL, NULL, NULL, NULL, &status, error)
      || !g_spawn_check_wait_status (status, error))
    {
      g_prefix_error (error, "tools/gpu-measure.sh failed (log in %s/log.txt): ", dir);
      (*error)->domain = MDL_ERROR;
      (*error)->code = MDL_ERROR_IO;
      return FALSE;
    }
  return TRUE;
}

static int
measure_main (int argc, char **argv)
{
  gboolean help = FALSE, list_metrics = FALSE;
  g_autofree char *measured = NULL, *machine = NULL, *format_name = NULL, *output = NULL;
  const GOptionEntry entries[] = {
    { "measured", 'd', 0, G_OPTION_ARG_FILENAME, &measured,
      "Read the measurements from DIR (written by tools/gpu-measure.sh)", "DIR" },
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine, "Machine preset of the engines (default h100)",
      "NAME" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      "Output format: table (default), json or csv", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write to FILE instead of standard output", "FILE" },
    { "metrics", 0, 0, G_OPTION_ARG_NONE, &list_metrics,
      "Only list the Nsight Compute metrics a profile should collect, one per line", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_measure, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *tmp = NULL;
  g_auto (GStrv) metrics = NULL;
  MdlFormat format;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_measure, &help, &argc, &argv, 0, -1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (machine == NULL)
    machine = g_strdup ("h100");
  if (!mdl_cli_format_parse (format_name, &format, &error)
      || !mdl_cli_machine_check (machine, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  metrics = mdl_gpu_profile_metrics (machine);
  if (list_metrics)
    {
      g_autofree char *lines = g_strjoinv ("\n", metrics);
      g_string_append_printf (text, "%s\n", lines);
    }
  else
    {
      if (measured == NULL)
        {
          g_autofree char *joined = g_strjoinv (",", metrics);
          tmp = g_dir_make_tmp ("models-measure-XXXXXX", &error);
          if (tmp == NULL || !run_script (tmp, joined, &error))
            return mdl_cli_fail (g_steal_pointer (&error));
          measured = g_strdup (tmp);
        }
      cmp = mdl_gpu_compare (measured, machine, (const char *const *) argv + 1, &error);
      if (cmp == NULL)
        return mdl_cli_fail (g_steal_pointer (&error));
      mdl_gpu_comparison_write (cmp, format, text);
    }
  if (!mdl_cli_output_write (output, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return cmp && mdl_gpu_comparison_count (cmp, -1) ? MDL_CLI_BAD_INPUT : MDL_CLI_OK;
}
