/* `models measure`: the GPU micro-kernels predicted and measured, side by side.
 *
 * The measured half runs on a machine with an NVIDIA GPU: tools/gpu-measure.sh builds the CUDA
 * twins (src/algos/cuda), checks and times them, and profiles them with Nsight Compute, leaving
 * timings.csv, profile-cases.csv and ncu.csv (the raw page: one row per kernel launch, one column
 * per metric, launch k being case k) in a directory. Without --measured, this command runs that
 * script itself (from the source tree) and then reads its directory; with --measured DIR it reads
 * a directory made earlier, anywhere (so the committed H100 results in docs/results/ can be joined
 * again on a machine without a GPU).
 *
 * The predicted half runs each case's SIMT twin (the case is written as an algorithm spec,
 * `gpu/FAMILY:key=value,...`) through coalesce, banks and divergence for --machine (h100), and
 * joins every counter that names a Nsight Compute metric with that metric's column. Counters that
 * name the same metric are added first (global lines: loads, stores and atomics share the L1 tag
 * counter). A real with no value (uniformity without branches) matches a measured 0, which is how
 * ncu prints it. Differences are reported, not hidden: docs/models/gpu.md explains each one. */
#include "cli/cli.h"
#include "core/json.h"
#include "algos/gpu-sizes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int measure_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_measure = {
  .name = "measure",
  .args = "[CASE…]",
  .summary = "GPU micro-kernels: predicted counters next to Nsight Compute's",
  .description =
    "Runs each micro-kernel case's SIMT twin through the coalesce, banks and divergence\n"
    "engines and prints every counter next to the Nsight Compute metric measured for its\n"
    "CUDA twin, with the difference. --measured DIR reads a directory written by\n"
    "tools/gpu-measure.sh (timings.csv, profile-cases.csv, ncu.csv); without it the command\n"
    "runs that script, which needs nvcc, ncu and an NVIDIA GPU, and says so when they are\n"
    "missing. CASE restricts the cases (a substring of the case spec).\n"
    "\n"
    "Examples:\n"
    "  models measure --measured docs/results/h100\n"
    "  models measure --measured docs/results/h100 --format csv --output h100.csv branch\n"
    "  models measure                      on a machine with an NVIDIA GPU",
  .main = measure_main,
};

/* ---- CSV ---- */

/* Splits one CSV line (RFC 4180 quoting, no newlines inside fields). */
static GPtrArray *
csv_fields (const char *line)
{
  GPtrArray *f = g_ptr_array_new_with_free_func (g_free);
  const char *p = line;
  for (;;)
    {
      GString *v = g_string_new (NULL);
      if (*p == '"')
        {
          for (p++; *p; p++)
            {
              if (*p == '"' && p[1] == '"')
                g_string_append_c (v, *p++);
              else if (*p == '"')
                {
                  p++;
                  break;
                }
              else
                g_string_append_c (v, *p);
            }
        }
      while (*p && *p != ',' && *p != '\r' && *p != '\n')
        g_string_append_c (v, *p++);
      g_ptr_array_add (f, g_string_free (v, FALSE));
      if (*p != ',')
        break;
      p++;
    }
  return f;
}

/* The lines of @path as field arrays; MDL_ERROR_IO/FORMAT naming the file. */
static GPtrArray *
csv_read (const char *path, guint min_rows, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *rows;
  if (!g_file_get_contents (path, &text, NULL, error))
    {
      g_prefix_error (error, "%s: ", path);
      (*error)->domain = MDL_ERROR;
      (*error)->code = MDL_ERROR_IO;
      return NULL;
    }
  rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l && **l != '=' && **l != '#')   /* ncu's "==PROF==" lines, comments */
      g_ptr_array_add (rows, csv_fields (*l));
  if (rows->len < min_rows)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: expected at least %u CSV rows, found %u",
                   path, min_rows, rows->len);
      g_ptr_array_unref (rows);
      return NULL;
    }
  return rows;
}

static const char *
field (GPtrArray *row, guint i)
{
  return i < row->len ? g_ptr_array_index (row, i) : "";
}

static gint
column (GPtrArray *header, const char *name)
{
  for (guint i = 0; i < header->len; i++)
    if (strcmp (g_ptr_array_index (header, i), name) == 0)
      return (gint) i;
  return -1;
}

/* A number as ncu prints it ("1,024", "50", "31.70"); FALSE for an empty or non-numeric cell. */
static gboolean
ncu_number (const char *text, double *value)
{
  g_autoptr (GString) s = g_string_new (NULL);
  char *end;
  for (const char *p = text; *p; p++)
    if (*p != ',' && *p != ' ')
      g_string_append_c (s, *p);
  if (s->len == 0)
    return FALSE;
  *value = g_ascii_strtod (s->str, &end);
  return *end == '\0';
}

/* ---- one case ---- */

typedef struct {
  char *spec;          /* the case */
  char *kernel;        /* CUDA kernel */
  gboolean checked;    /* the CUDA output matched its reference */
  double median_us;
  GPtrArray *ncu_row;  /* the ncu raw row (borrowed from the table), or NULL */
} Case;

static guint64
default_n (const char *family)
{
  if (g_str_has_prefix (family, "global-"))
    return MDL_GPU_N_GLOBAL;
  if (g_str_has_prefix (family, "shared-"))
    return MDL_GPU_N_SHARED;
  if (strcmp (family, "transpose") == 0)
    return MDL_GPU_N_TRANSPOSE;
  if (strcmp (family, "reduce") == 0)
    return MDL_GPU_N_REDUCE;
  return MDL_GPU_N_BRANCH;
}

/* Runs the SIMT twin of @spec through the engines; returns their reports. */
static GPtrArray *
predict (const char *spec, const char *machine, GError **error)
{
  static const char *const engines[] = { "coalesce", "banks", "divergence", NULL };
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) pipeline = NULL;
  g_autoptr (MdlRecorder) rec = NULL;
  g_autofree MdlReport **reports = NULL;
  const MdlAlgo *algo;
  guint64 n = 0, checksum;
  guint n_reports;
  MdlSink sink;
  GPtrArray *out;

  if (!mdl_spec_split (spec, &name, &assigns, error) || !(algo = mdl_algo_lookup (name, error)))
    return NULL;
  n = default_n (name + (g_str_has_prefix (name, "gpu/") ? 4 : 0));
  for (char **a = assigns; *a; a++)
    if (g_str_has_prefix (*a, "n="))
      {
        if (!mdl_cli_parse_uint ("measure", "n", *a + 2, 1, &n, error))
          return NULL;
      }
    else
      g_ptr_array_add (rest, *a);
  g_ptr_array_add (rest, NULL);
  if (!(params = mdl_params_parse (algo->name, algo->params, (const char *const *) rest->pdata, error))
      || !(pipeline = mdl_cli_pipeline_new (engines, machine, error)))
    return NULL;
  sink = mdl_pipeline_sink (pipeline);
  rec = mdl_recorder_new (&sink, 0);
  if (!algo->run (params, n, 1, rec, &checksum, error) || !mdl_recorder_finish (rec, error))
    return NULL;
  reports = mdl_pipeline_reports (pipeline, &n_reports);
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  for (guint i = 0; i < n_reports; i++)
    g_ptr_array_add (out, reports[i]);
  return out;
}

typedef struct {
  char *counters;      /* "gld_lines+gst_lines" */
  const char *metric;  /* borrowed from a report */
  gboolean is_real;
  double predicted;    /* NaN: not applicable */
  gboolean have_measured;
  double measured;
} Row;

static void
row_free (Row *r)
{
  g_free (r->counters);
  g_free (r);
}

/* The predicted side of one case: one row per metric, counters sharing a metric added up. */
static GPtrArray *
rows_of (GPtrArray *reports)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  for (guint r = 0; r < reports->len; r++)
    {
      const MdlReport *rep = g_ptr_array_index (reports, r);
      for (guint i = 0; i < mdl_report_n_counters (rep); i++)
        {
          const MdlCounter *c = mdl_report_counter (rep, i);
          Row *row = NULL;
          double v = c->is_real ? c->real : (double) c->count;
          if (c->metric == NULL)
            continue;
          for (guint k = 0; k < rows->len && !row; k++)
            if (strcmp (((Row *) g_ptr_array_index (rows, k))->metric, c->metric) == 0)
              row = g_ptr_array_index (rows, k);
          if (row)
            {
              char *joined = g_strdup_printf ("%s+%s", row->counters, c->name);
              g_free (row->counters);
              row->counters = joined;
              row->predicted += v;
              continue;
            }
          row = g_new0 (Row, 1);
          row->counters = g_strdup (c->name);
          row->metric = c->metric;
          row->is_real = c->is_real;
          row->predicted = v;
          g_ptr_array_add (rows, row);
        }
    }
  return rows;
}

/* "match", "n/a" or "differs". Reals: ncu prints two decimals. */
static const char *
verdict (const Row *r)
{
  if (!r->have_measured)
    return "no column";
  if (isnan (r->predicted))
    return r->measured == 0 ? "n/a" : "differs";
  if (r->is_real)
    return fabs (r->predicted - r->measured) <= 0.006 ? "match" : "differs";
  return r->predicted == r->measured ? "match" : "differs";
}

static void
format_value (GString *s, double v, gboolean is_real)
{
  if (isnan (v))
    g_string_append (s, "n/a");
  else if (is_real)
    g_string_append_printf (s, "%.2f", v);
  else
    g_string_append_printf (s, "%.0f", v);
}

/* ---- the command ---- */

/* Runs tools/gpu-measure.sh into @dir; MDL_ERROR_UNSUPPORTED when no GPU toolchain is here. */
static gboolean
run_script (const char *dir, GError **error)
{
  g_autofree char *nvcc = g_find_program_in_path ("nvcc");
  g_autofree char *ncu = g_find_program_in_path ("ncu");
  g_autofree char *smi = g_find_program_in_path ("nvidia-smi");
  g_autofree char *out_env = g_strdup_printf ("OUT=%s", dir);
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
  env = g_environ_setenv (env, "MODELS", "/nonexistent", TRUE);   /* no recursion */
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

/* Reads the cases and their measurements from @dir. */
static GPtrArray *
load_cases (const char *dir, GPtrArray **ncu_keep, GPtrArray **ncu_header, GError **error)
{
  g_autofree char *timings_path = g_build_filename (dir, "timings.csv", NULL);
  g_autofree char *profile_path = g_build_filename (dir, "profile-cases.csv", NULL);
  g_autofree char *ncu_path = g_build_filename (dir, "ncu.csv", NULL);
  g_autoptr (GPtrArray) timings = csv_read (timings_path, 2, error);
  g_autoptr (GPtrArray) profile = NULL;
  GPtrArray *ncu, *cases;
  gint id_col;
  if (timings == NULL || !(profile = csv_read (profile_path, 2, error))
      || !(ncu = csv_read (ncu_path, 2, error)))
    return NULL;
  *ncu_keep = ncu;
  *ncu_header = g_ptr_array_index (ncu, 0);
  id_col = column (*ncu_header, "ID");
  cases = g_ptr_array_new ();
  for (guint i = 1; i < timings->len; i++)
    {
      GPtrArray *t = g_ptr_array_index (timings, i);
      Case *c = g_new0 (Case, 1);
      c->spec = g_strdup (field (t, 1));
      c->kernel = g_strdup (field (t, 2));
      c->checked = strcmp (field (t, 6), "0") == 0;
      c->median_us = g_ascii_strtod (field (t, 7), NULL);
      /* ncu row k (after the header and the units row) is launch k of the profile run */
      for (guint p = 1; p < profile->len; p++)
        if (strcmp (field (g_ptr_array_index (profile, p), 1), c->spec) == 0)
          for (guint r = 2; r < ncu->len; r++)
            {
              GPtrArray *row = g_ptr_array_index (ncu, r);
              if (id_col >= 0 && strcmp (field (row, (guint) id_col),
                                         field (g_ptr_array_index (profile, p), 0)) == 0
                  && strstr (field (row, (guint) column (*ncu_header, "Kernel Name")), c->kernel))
                c->ncu_row = row;
            }
      g_ptr_array_add (cases, c);
    }
  return cases;
}

static void
case_free (Case *c)
{
  g_free (c->spec);
  g_free (c->kernel);
  g_free (c);
}

static int
measure_main (int argc, char **argv)
{
  gboolean help = FALSE;
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
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_measure, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) cases = NULL;
  g_autoptr (GPtrArray) ncu = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *tmp = NULL;
  GPtrArray *header = NULL;
  MdlFormat format;
  guint n_match = 0, n_differ = 0, n_na = 0, n_cases = 0, n_failed = 0;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_measure, &help, &argc, &argv, 0, -1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (!mdl_cli_format_parse (format_name, &format, &error)
      || !mdl_cli_machine_check (machine ? machine : "h100", &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (measured == NULL)
    {
      tmp = g_dir_make_tmp ("models-measure-XXXXXX", &error);
      if (tmp == NULL || !run_script (tmp, &error))
        return mdl_cli_fail (g_steal_pointer (&error));
      measured = g_strdup (tmp);
    }
  cases = load_cases (measured, &ncu, &header, &error);
  if (cases == NULL)
    return mdl_cli_fail (g_steal_pointer (&error));
  g_ptr_array_set_free_func (cases, (GDestroyNotify) case_free);
  g_ptr_array_set_free_func (ncu, (GDestroyNotify) g_ptr_array_unref);

  if (format == MDL_FORMAT_CSV)
    g_string_append (text, "case,counters,metric,predicted,measured,difference,verdict,cuda_check,"
                           "median_us\n");
  else if (format == MDL_FORMAT_JSON)
    {
      g_string_append (text, "{\"measured\": ");
      mdl_json_string (text, measured);
      g_string_append (text, ", \"machine\": ");
      mdl_json_string (text, machine ? machine : "h100");
      g_string_append (text, ", \"cases\": [");
    }
  for (guint i = 0; i < cases->len; i++)
    {
      Case *c = g_ptr_array_index (cases, i);
      g_autoptr (GPtrArray) reports = NULL;
      g_autoptr (GPtrArray) rows = NULL;
      gboolean wanted = argc <= 1;
      for (int a = 1; a < argc && !wanted; a++)
        wanted = strstr (c->spec, argv[a]) != NULL;
      if (!wanted)
        continue;
      if (!(reports = predict (c->spec, machine ? machine : "h100", &error)))
        {
          g_prefix_error (&error, "case %s: ", c->spec);
          return mdl_cli_fail (g_steal_pointer (&error));
        }
      rows = rows_of (reports);
      n_cases++;
      n_failed += !c->checked;
      if (format == MDL_FORMAT_TABLE)
        g_string_append_printf (text, "%s  (%s, CUDA check %s, %.2f us)\n", c->spec, c->kernel,
                                c->checked ? "ok" : "FAILED", c->median_us);
      else if (format == MDL_FORMAT_JSON)
        {
          g_string_append (text, n_cases > 1 ? ",\n  {\"case\": " : "\n  {\"case\": ");
          mdl_json_string (text, c->spec);
          g_string_append (text, ", \"kernel\": ");
          mdl_json_string (text, c->kernel);
          g_string_append_printf (text, ", \"cuda_check\": %s, \"median_us\": %.3f, \"counters\": [",
                                  c->checked ? "true" : "false", c->median_us);
        }
      for (guint k = 0; k < rows->len; k++)
        {
          Row *r = g_ptr_array_index (rows, k);
          gint col = column (header, r->metric);
          const char *v;
          g_autoptr (GString) pv = g_string_new (NULL), mv = g_string_new (NULL), dv = g_string_new (NULL);
          r->have_measured = c->ncu_row && col >= 0
                             && ncu_number (field (c->ncu_row, (guint) col), &r->measured);
          v = verdict (r);
          n_match += strcmp (v, "match") == 0;
          n_na += strcmp (v, "n/a") == 0;
          n_differ += strcmp (v, "differs") == 0;
          format_value (pv, r->predicted, r->is_real);
          if (r->have_measured)
            format_value (mv, r->measured, r->is_real);
          if (r->have_measured && !isnan (r->predicted))
            format_value (dv, r->measured - r->predicted, r->is_real);
          switch (format)
            {
            case MDL_FORMAT_CSV:
              g_string_append_printf (text, "\"%s\",%s,%s,%s,%s,%s,%s,%s,%.3f\n", c->spec,
                                      r->counters, r->metric, pv->str, mv->str, dv->str, v,
                                      c->checked ? "ok" : "failed", c->median_us);
              break;
            case MDL_FORMAT_JSON:
              g_string_append (text, k ? ", {\"counters\": " : "{\"counters\": ");
              mdl_json_string (text, r->counters);
              g_string_append (text, ", \"metric\": ");
              mdl_json_string (text, r->metric);
              g_string_append_printf (text, ", \"predicted\": %s, \"measured\": %s, \"verdict\": \"%s\"}",
                                      isnan (r->predicted) ? "null" : pv->str,
                                      r->have_measured ? mv->str : "null", v);
              break;
            default:
              g_string_append_printf (text, "  %-32s %12s %12s %10s  %-8s %s\n", r->counters,
                                      pv->str, mv->str, dv->str, v, r->metric);
              break;
            }
        }
      if (format == MDL_FORMAT_JSON)
        g_string_append (text, "]}");
    }
  if (format == MDL_FORMAT_JSON)
    g_string_append_printf (text, "\n], \"summary\": {\"cases\": %u, \"cuda_checks_failed\": %u, "
                            "\"match\": %u, \"not_applicable\": %u, \"differs\": %u}}\n", n_cases,
                            n_failed, n_match, n_na, n_differ);
  else if (format == MDL_FORMAT_TABLE)
    g_string_append_printf (text, "\n%u cases (%u CUDA checks failed): %u counters match, %u not "
                            "applicable, %u differ (docs/models/gpu.md explains each)\n", n_cases,
                            n_failed, n_match, n_na, n_differ);
  if (!mdl_cli_output_write (output, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return n_failed ? MDL_CLI_BAD_INPUT : MDL_CLI_OK;
}
