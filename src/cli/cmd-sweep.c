/* `models sweep`: a grid of algorithms × sizes × seeds × engine specs, from a sweep file or the
 * command line, run on every core into a resumable SQLite table (include/models/sweep.h), which
 * it exports as CSV or JSON; --slurm writes the same grid as a Slurm job array, and --merge joins
 * the array's tables. The count is printed before the work starts, so a grid that expanded to
 * more than was meant can be stopped at once. */
#include "cli/cli.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

static int sweep_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_sweep = {
  .name = "sweep",
  .args = "[FILE]",
  .summary = "run a grid of algorithms, sizes and engine specs on every core",
  .description =
    "Runs every configuration of a grid (algorithms × sizes × seeds, and trace files, × engine\n"
    "specs) and keeps one row per configuration in an SQLite table (--db, default sweep.db).\n"
    "The grid comes from a sweep FILE (a key file with a [sweep] group: algos, traces, n,\n"
    "seeds, engines, machine) and from the options. Inside a spec, key=a,b,c is a list of\n"
    "values and key=lo..hi a range that doubles: lo, 2lo, 4lo, ... up to hi\n"
    "(vat:policy=lru,islru,W=4..4096 is 22 specs); --n and --seed take the same lists\n"
    "(--n 1k..1M). Each algorithm run is made once (by a fresh `models run`, so that its arrays\n"
    "lie where they always do) and fed to all of its engines, spread over --threads worker\n"
    "threads. Rows are committed as they finish: a rerun of the same grid skips what the table\n"
    "holds, so an interrupted sweep goes on where it stopped. --format csv|json prints the\n"
    "whole table (sorted by algorithm, n, seed and spec; the same bytes whatever the threads);\n"
    "with no grid, only the export is done. --slurm writes a Slurm job array of --shards tasks\n"
    "into --slurm-dir, and --merge DB... -o OUT joins the tasks' tables.\n"
    "\n"
    "Examples:\n"
    "  models sweep --algo scan/seq,scan/random --n 1k..4k --engine vat:policy=lru,islru,W=8..32\n"
    "  models sweep --db sweep.db --format csv\n"
    "  models sweep --algo scan/seq --n 1k --engine count --dry-run",
  .main = sweep_main,
};

typedef struct {
  MdlCliProgress *progress;
} SweepWatch;

static gboolean
on_progress (const MdlSweepProgress *p, void *data)
{
  SweepWatch *w = data;
  mdl_cli_progress_items (w->progress, p->skipped, p->done, p->total, "configurations");
  return mdl_cli_interrupted () == NULL;
}

/* The shard files and the sbatch script of a Slurm job array over @sweep, in @dir. */
static int
write_slurm (MdlSweep *sweep, const char *dir, guint shards, guint threads)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *abs_dir = NULL, *script_path = NULL;
  g_autoptr (GString) script = g_string_new (NULL);
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      mdl_cli_warn ("%s: cannot create: %s", dir, g_strerror (errno));
      return MDL_CLI_BAD_INPUT;
    }
  abs_dir = g_canonicalize_filename (dir, NULL);
  for (guint i = 0; i < shards; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/shard-%u.ini", abs_dir, i);
      if (!mdl_sweep_set_shard (sweep, i, shards, &error) || !mdl_sweep_save (sweep, path, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
    }
  /* Each task runs its shard into its own table, resumable like any sweep: resubmitting the
   * array after a failure redoes only what is missing. */
  g_string_append_printf (script,
                          "#!/bin/sh\n"
                          "#SBATCH --job-name=models-sweep\n"
                          "#SBATCH --array=0-%u\n"
                          "#SBATCH --cpus-per-task=%u\n"
                          "#SBATCH --output=%s/shard-%%a.log\n"
                          "set -eu\n"
                          "cd '%s'\n"
                          "exec '%s' sweep \"shard-$SLURM_ARRAY_TASK_ID.ini\" \\\n"
                          "  --db \"shard-$SLURM_ARRAY_TASK_ID.db\" "
                          "--threads \"${SLURM_CPUS_PER_TASK:-%u}\"\n",
                          shards - 1, threads, abs_dir, abs_dir, self ? self : "models", threads);
  script_path = g_strdup_printf ("%s/sweep.sbatch", abs_dir);
  if (!mdl_cli_output_write (script_path, script, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  g_chmod (script_path, 0755);
  printf ("%s: a job array of %u shards (%s/shard-*.ini)\n"
          "submit: sbatch %s\n"
          "then:   models sweep --merge %s/shard-*.db -o sweep.db\n",
          script_path, shards, abs_dir, script_path, abs_dir);
  return MDL_CLI_OK;
}

static int
merge (char **inputs, const char *output)
{
  g_autoptr (GError) error = NULL;
  if (output == NULL || strcmp (output, "-") == 0)
    return mdl_cli_usage (&mdl_cli_cmd_sweep, "--merge needs -o OUT.db");
  if (inputs[0] == NULL)
    return mdl_cli_usage (&mdl_cli_cmd_sweep, "--merge needs the tables to join (DB...)");
  if (!mdl_sweep_merge (output, (const char *const *) inputs, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return MDL_CLI_OK;
}

static int
export (const char *db, const char *format_name, gboolean times, const char *output)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  MdlFormat format;
  if (!mdl_format_from_name (format_name, &format, &error)
      || !mdl_sweep_export (db, format, times, text, &error)
      || !mdl_cli_output_write (output, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return MDL_CLI_OK;
}

static int
sweep_main (int argc, char **argv)
{
  gboolean help = FALSE, dry_run = FALSE, slurm = FALSE, do_merge = FALSE, times = FALSE;
  g_auto (GStrv) algos = NULL, traces = NULL, engines = NULL, sizes = NULL, seeds = NULL;
  g_autofree char *machine = NULL, *format_name = NULL, *output = NULL, *db = NULL;
  g_autofree char *slurm_dir = NULL;
  gint threads = 0, shards = 0;
  const GOptionEntry entries[] = {
    { "algo", 'a', 0, G_OPTION_ARG_STRING_ARRAY, &algos,
      "Algorithm specs, a grid (repeat for several)", "SPEC" },
    { "trace", 't', 0, G_OPTION_ARG_FILENAME_ARRAY, &traces,
      "A trace file as a source, read once (repeat for several)", "FILE" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &engines,
      "Engine specs, a grid (repeat for several)", "SPEC" },
    { "n", 'n', 0, G_OPTION_ARG_STRING_ARRAY, &sizes,
      "Sizes: a list, lo..hi doubles (default 1M)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_STRING_ARRAY, &seeds, "Input seeds, a list (default 1)", "S" },
    { "machine", 'm', 0, G_OPTION_ARG_STRING, &machine,
      "Add machine=NAME to every engine spec that does not choose one", "NAME" },
    { "db", 'd', 0, G_OPTION_ARG_FILENAME, &db, "The SQLite table (default sweep.db)", "FILE" },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads,
      "Worker threads (default: the processors)", "T" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &dry_run,
      "Only count the configurations and their sources", NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      "Print the table as csv or json after the run", "FORMAT" },
    { "times", 0, 0, G_OPTION_ARG_NONE, &times,
      "Add the wall times and each job's timeline to the export (they differ run to run)", NULL },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the export (with --merge: the joined table) to FILE", "FILE" },
    { "slurm", 0, 0, G_OPTION_ARG_NONE, &slurm,
      "Write a Slurm job array over the grid instead of running it", NULL },
    { "shards", 0, 0, G_OPTION_ARG_INT, &shards, "Array tasks of --slurm (default 4)", "K" },
    { "slurm-dir", 0, 0, G_OPTION_ARG_FILENAME, &slurm_dir,
      "Where --slurm writes (default sweep-slurm)", "DIR" },
    { "merge", 0, 0, G_OPTION_ARG_NONE, &do_merge,
      "Join the tables DB... given as arguments into -o OUT", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_sweep, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlSweep) sweep = NULL;
  g_autoptr (MdlCliProgress) progress = NULL;
  MdlSweepProgress stats = { 0 };
  SweepWatch watch;
  const char *stop;
  guint count, n_sources = 0;
  gboolean ok;
  int rc;

  /* Any number of arguments until the options are known: --merge takes the tables to join. */
  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_sweep, &help, &argc, &argv, 0, -1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (do_merge)
    return merge (argv + 1, output);
  if (argc > 2)
    return mdl_cli_usage (&mdl_cli_cmd_sweep, "unexpected argument \"%s\" (expected one sweep "
                          "FILE; --merge takes several tables)", argv[2]);
  if (threads < 0 || shards < 0)
    return mdl_cli_usage (&mdl_cli_cmd_sweep, "--threads and --shards take a positive number");
  if (threads == 0)
    threads = (gint) g_get_num_processors ();
  if (db == NULL)
    db = g_strdup ("sweep.db");
  if (argc < 2 && !algos && !traces && !engines)
    {
      if (format_name == NULL)
        return mdl_cli_usage (&mdl_cli_cmd_sweep, "nothing to do: give a grid (FILE, --algo, "
                              "--engine) or --format to export %s", db);
      return export (db, format_name, times, output);
    }

  if (argc == 2)
    sweep = mdl_sweep_load (argv[1], &error);
  else
    sweep = mdl_sweep_new ();
  if (sweep == NULL || !mdl_cli_machine_check (machine, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  for (char **s = algos; s && *s; s++)
    mdl_sweep_add_algo (sweep, *s);
  for (char **s = traces; s && *s; s++)
    mdl_sweep_add_trace (sweep, *s);
  for (char **s = engines; s && *s; s++)
    mdl_sweep_add_engine (sweep, *s);
  for (char **s = sizes; s && *s; s++)
    mdl_sweep_add_sizes (sweep, *s);
  for (char **s = seeds; s && *s; s++)
    mdl_sweep_add_seeds (sweep, *s);
  if (machine)
    mdl_sweep_set_machine (sweep, machine);
  /* Every source in a fresh process of this very program, named so that a rebuild of the file
   * during a long sweep changes nothing (the link names the running program's inode). */
  mdl_sweep_set_runner (sweep, "/proc/self/exe");
  count = mdl_sweep_count (sweep, &n_sources, &error);
  if (count == 0)
    return mdl_cli_fail (g_steal_pointer (&error));
  /* A source is one algorithm run (algorithm, n, seed) or one trace file. */
  fprintf (stderr, "models sweep: %u configuration%s of %u source%s\n", count,
           count == 1 ? "" : "s", n_sources, n_sources == 1 ? "" : "s");
  if (dry_run)
    return MDL_CLI_OK;
  if (slurm)
    return write_slurm (sweep, slurm_dir ? slurm_dir : "sweep-slurm", shards ? (guint) shards : 4,
                        (guint) threads);

  progress = mdl_cli_progress_new ("sweep", 0);
  watch.progress = progress;
  mdl_cli_catch_interrupts ();
  ok = mdl_sweep_run (sweep, db, (guint) threads, on_progress, &watch, &stats, &error);
  g_clear_pointer (&progress, mdl_cli_progress_free);
  stop = mdl_cli_interrupted ();
  fprintf (stderr, "models sweep: %s: %u run now, %u done before, %u left\n", db, stats.done,
           stats.skipped, stats.total - stats.done - stats.skipped);
  if (stop)
    {
      mdl_cli_warn ("%s: the table keeps the %u configurations done; run the same sweep again "
                    "to finish it", stop, stats.done + stats.skipped);
      return mdl_cli_interrupted_status ();
    }
  if (!ok)
    return mdl_cli_fail (g_steal_pointer (&error));
  if (format_name)
    return export (db, format_name, times, output);
  return MDL_CLI_OK;
}
