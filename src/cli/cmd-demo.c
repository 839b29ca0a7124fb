/* `models demo`: the main job on built-in defaults, small enough to finish in a few seconds. Each
 * row of the table below is one instrumented run through the default engines on the x86-64
 * preset; the printed table compares them side by side; demo-gpu.c adds the GPU models' table.
 * Later capabilities add rows and columns to these tables, not code paths. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int demo_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_demo = {
  .name = "demo",
  .args = "",
  .summary = "run the shipped algorithms through the models and compare them (about a minute)",
  .description =
    "Runs scan/seq and scan/random at n = 2^16 and 2^20 through count and footprint on the\n"
    "x86-64 preset and prints one table: accesses and RAM operations (what the RAM model\n"
    "counts), distinct pages and lines, and the share of page touches that miss a 64-entry\n"
    "fully associative LRU TLB (the cost the RAM model leaves out).\n"
    "\n"
    "A second table runs a reduction and a scan once each through the GPU models (agpu,\n"
    "kmodel, msimd) and the engines that predict an H100's Nsight Compute counters\n"
    "(coalesce, banks, divergence), side by side.\n"
    "\n"
    "Then it runs the short version of \"models experiment vat\" (about a minute): the VAT\n"
    "thesis's seven programs timed natively at sizes doubling up to 16 MiB of arrays, normalized\n"
    "time against log2 n measured and predicted, with the fits, the slopes and a plot\n"
    "(gnuplot) in --output-dir (default: a new directory under the temporary directory).\n"
    "\n"
    "Examples:\n"
    "  models demo\n"
    "  models demo --output-dir demo-out\n"
    "  models demo --no-experiment      the scans table alone, in a second\n"
    "  make demo",
  .main = demo_main,
};

#define DEMO_MACHINE "x86-64"
/* The preset's L1 DTLB size (l1_dtlb_entries). A power of two, so that the footprint engine's
 * reuse-distance buckets (0, 1, 2-3, 4-7, ...) split exactly at it: an LRU TLB of C entries hits
 * exactly the reuses at stack distance < C. */
#define DEMO_TLB_ENTRIES 64

static const struct {
  const char *algorithm;
  guint64 n;
} demo_rows[] = {
  { "scan/seq", (guint64) 1 << 16 },
  { "scan/random", (guint64) 1 << 16 },
  { "scan/seq", (guint64) 1 << 20 },
  { "scan/random", (guint64) 1 << 20 },
};

typedef struct {
  guint64 accesses, ram_ops, pages, lines, page_touches, tlb_misses;
  double seconds;
} DemoResult;

static guint64
count_of (const MdlReport *r, const char *name)
{
  const MdlCounter *c = mdl_report_lookup (r, name);
  return c && !c->is_real ? c->count : 0;
}

/* Misses of an LRU TLB of DEMO_TLB_ENTRIES entries: first touches, plus reuses in the buckets
 * whose lower edge ("reuse_64_127" -> 64) is at least the TLB size. */
static guint64
tlb_misses (const MdlReport *footprint)
{
  guint64 misses = count_of (footprint, "reuse_cold");
  for (guint i = 0; i < mdl_report_n_counters (footprint); i++)
    {
      const MdlCounter *c = mdl_report_counter (footprint, i);
      const char *tail = c->name + strlen ("reuse_");
      if (g_str_has_prefix (c->name, "reuse_") && g_ascii_isdigit (*tail)
          && g_ascii_strtoull (tail, NULL, 10) >= DEMO_TLB_ENTRIES)
        misses += c->count;
    }
  return misses;
}

static gboolean
demo_run (const char *algorithm, guint64 n, DemoResult *out, GError **error)
{
  guint n_reports;
  MdlReport **reports = mdl_cli_run_algorithm (algorithm, n, NULL, DEMO_MACHINE, &out->seconds,
                                               &n_reports, error);
  if (reports == NULL)
    return FALSE;
  for (guint i = 0; i < n_reports; i++)
    {
      const MdlReport *r = reports[i];
      if (strcmp (mdl_report_engine (r), "count") == 0)
        {
          out->accesses = count_of (r, "cpu_reads") + count_of (r, "cpu_writes")
                          + count_of (r, "cpu_modifies");
          out->ram_ops = count_of (r, "ram_ops");
        }
      else if (strcmp (mdl_report_engine (r), "footprint") == 0)
        {
          out->pages = count_of (r, "pages");
          out->lines = count_of (r, "lines");
          out->page_touches = count_of (r, "page_accesses");
          out->tlb_misses = tlb_misses (r);
        }
      mdl_report_free (reports[i]);
    }
  g_free (reports);
  return TRUE;
}

/* The short version of `models experiment vat`: the thesis's seven programs (§2.1), sizes doubling
 * rather than growing by 1.4, arrays up to 16 MiB (two sizes past the TLB reach), in about a minute
 * on a small machine. It keeps every size, count, fit and cost model; it gives up the second timed
 * pass of the large sizes (small ones still repeat for DEMO_VAT_MIN_SECONDS) and the huge-page
 * series (about a third of the timings): `models experiment vat` has both. */
static const char *const demo_vat_algorithms[] = {
  "scan/seq", "scan/random", "permute/fisher-yates", "binsearch/sorted", "heap/heapify",
  "heap/sort", "quicksort/intro", NULL
};
#define DEMO_VAT_MAX_BYTES ((guint64) 16 << 20)
#define DEMO_VAT_GROWTH 2.0
#define DEMO_VAT_REPS 1
#define DEMO_VAT_MIN_SECONDS 0.01

static int
demo_vat (const char *output_dir)
{
  MdlVatExperimentConfig cfg;
  MdlCliVatProgress progress;
  g_autoptr (MdlVatExperiment) exp = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL, *why = NULL;

  /* One fixed folder, replaced by each run, rather than a new temporary one per run: the files
   * are there to be looked at after the run, and a new folder per run piled up in /tmp. Made
   * before the minute of work, so that a folder that cannot be made stops the demo at once. */
  dir = output_dir ? g_strdup (output_dir)
                   : g_build_filename (g_get_user_cache_dir (), "models", "demo", NULL);
  if (!output_dir && g_mkdir_with_parents (dir, 0755) != 0)
    {
      int saved = errno;
      g_set_error (&error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot create the demo's folder: %s "
                   "(give another with --output-dir DIR)", dir, g_strerror (saved));
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  mdl_vat_experiment_config_init (&cfg);
  cfg.algorithms = demo_vat_algorithms;
  cfg.max_bytes = DEMO_VAT_MAX_BYTES;
  cfg.growth = DEMO_VAT_GROWTH;
  cfg.reps = DEMO_VAT_REPS;
  cfg.min_seconds = DEMO_VAT_MIN_SECONDS;
  cfg.huge = FALSE;
  cfg.machine = DEMO_MACHINE;
  /* The instrumented runs on every core, as `models experiment vat` does by default: they come
   * after the timings, so they cannot disturb them, and on one core they were most of the demo. */
  cfg.jobs = MIN (g_get_num_processors (), 64u);
  mdl_cli_vat_progress_init (&progress);
  cfg.progress = mdl_cli_vat_progress;
  cfg.progress_data = &progress;
  printf ("\nThe VAT experiment, short version (models experiment vat has the full one):\n");
  fflush (stdout);
  exp = mdl_vat_experiment_run (&cfg, &error);
  mdl_cli_vat_progress_clear (&progress);
  if (exp == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  g_string_append (text, mdl_vat_experiment_notes (exp));
  mdl_vat_experiment_write_summary (exp, text);
  if (!mdl_vat_experiment_write_files (exp, dir, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (mdl_cli_run_gnuplot (dir, "vat.gp", &why))
    g_string_append_printf (text, "\nPlot: %s/vat.png (and vat.svg); the tables are in %s/vat.txt "
                            "and vat.csv.\n", dir, dir);
  else
    g_string_append_printf (text, "\nNo plot: %s. The tables are in %s/vat.txt and vat.csv.\n",
                            why, dir);
  if (!output_dir)
    g_string_append (text, "That folder is kept for you to look at; the next models demo "
                     "replaces its files (--output-dir DIR writes them elsewhere).\n");
  g_string_append (text, "Reading it: docs/experiments/vat.md. A longer run: models experiment vat "
                   "--max-bytes 64M --output-dir DIR (about ten minutes on two cores; it prints "
                   "its estimate before it starts)\n");
  if (!mdl_cli_output_write (NULL, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return MDL_CLI_OK;
}

static const char demo_explanation[] =
  "\n"
  "What it shows: both scans do one RAM operation per element, so the RAM model charges them the\n"
  "same per element at every n. Address translation disagrees. The sequential scan reaches a new\n"
  "page only every 512 elements (4 KiB pages of 8-byte elements), so it almost never misses the\n"
  "TLB, at any n. The random scan jumps to a random page of its array at every element: the more\n"
  "those pages outnumber the TLB's 64 entries, the more of the jumps miss (its other touches, the\n"
  "sequential reads of the permutation, hit). Its cost per element grows with n while its RAM\n"
  "cost does not: the gap that translation-aware models such as VAT put a number on.\n"
  "\n"
  "Try next:\n"
  "  models list                                     every engine, parameter and machine preset\n"
  "  models run scan/random --n 4M --machine x86-64  one run with every counter (--format json)\n"
  "  models run scan/random --n 1M --trace-out r.bin && models analyze r.bin\n"
  "  valgrind --tool=lackey --trace-mem=yes --log-file=p.lackey ./prog\n"
  "  models analyze p.lackey                         the same counters for any program\n";

static int
demo_main (int argc, char **argv)
{
  gboolean help = FALSE, no_experiment = FALSE;
  g_autofree char *output_dir = NULL;
  const GOptionEntry entries[] = {
    { "no-experiment", 0, 0, G_OPTION_ARG_NONE, &no_experiment, "Skip the short VAT experiment",
      NULL },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir, "Where the short VAT experiment "
      "writes its tables and plot (default: ~/.cache/models/demo, replaced by each run)", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_demo, entries, &help);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_demo, &help, &argc, &argv, 0, 0);
  if (rc != MDL_CLI_CONTINUE)
    return rc;

  g_ptr_array_add (rows, g_strsplit ("algorithm|n|accesses|ram_ops|pages|lines|TLB-64 miss|seconds",
                                     "|", -1));
  for (guint i = 0; i < G_N_ELEMENTS (demo_rows); i++)
    {
      DemoResult r = { 0 };
      char **row = g_new0 (char *, 9);
      if (!demo_run (demo_rows[i].algorithm, demo_rows[i].n, &r, &error))
        {
          g_strfreev (row);
          mdl_cli_error_name (&error, demo_rows[i].algorithm);
          return mdl_cli_fail (g_steal_pointer (&error));
        }
      row[0] = g_strdup (demo_rows[i].algorithm);
      row[1] = g_strdup_printf ("2^%d", g_bit_nth_msf (demo_rows[i].n, -1));
      row[2] = mdl_cli_grouped (r.accesses);
      row[3] = mdl_cli_grouped (r.ram_ops);
      row[4] = mdl_cli_grouped (r.pages);
      row[5] = mdl_cli_grouped (r.lines);
      row[6] = g_strdup_printf ("%.2f%%", r.page_touches
                                ? 100.0 * (double) r.tlb_misses / (double) r.page_touches : 0.0);
      row[7] = g_strdup_printf ("%.3f", r.seconds);
      g_ptr_array_add (rows, row);
    }

  g_string_append_printf (text, "libmodels demo: scans on machine=%s (4 KiB pages, 64-byte lines, "
                          "%d-entry LRU TLB)\n\n", DEMO_MACHINE, DEMO_TLB_ENTRIES);
  mdl_cli_text_table (text, "  ", rows, 1);
  g_string_append (text, demo_explanation);
  if (!mdl_cli_demo_gpu (text, &error) || !mdl_cli_output_write (NULL, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return no_experiment ? MDL_CLI_OK : demo_vat (output_dir);
}
