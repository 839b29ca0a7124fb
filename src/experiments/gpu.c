/* The GPU comparison (include/models/experiment.h): measured CUDA twins next to their SIMT twins'
 * predictions.
 *
 * The measured half comes from a directory that tools/gpu-measure.sh wrote on a machine with an
 * NVIDIA GPU: timings.csv (per case: kernel, check, median time), profile-cases.csv (per case: the
 * number of its first kernel launch under Nsight Compute and how many it made) and ncu.csv (the
 * raw page: one row per kernel launch, one column per metric). A directory written before the
 * `launches` column existed has one launch per case.
 *
 * The predicted half runs each case's SIMT twin (the case is an algorithm spec, `NAME:key=value`,
 * with n defaulting to the row's DEFAULT_N) through the engines of the algorithm's checked_on list,
 * and joins every counter that names a Nsight Compute metric with that metric's column. A real
 * with no value (uniformity without branches) matches a measured 0, which is how ncu prints it.
 * Differences are reported, not hidden: docs/models/gpu.md explains each one. */
#include <models/algo.h>
#include <models/error.h>
#include <models/experiment.h>
#include <models/machine.h>
#include <models/pipeline.h>

#include "core/json.h"
#include "experiments/csv.h"

#include <math.h>
#include <string.h>

/* What ncu should collect besides the engines' metrics: the kernel's duration and the totals
 * that explain a difference (instructions executed, SASS-level memory operations and sectors). */
static const char *const explaining_metrics[] = {
  "gpu__time_duration.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
  "smsp__sass_branch_targets.sum",
  "smsp__sass_inst_executed.sum",
  "smsp__sass_thread_inst_executed.sum",
  "smsp__sass_inst_executed_op_global_ld.sum",
  "smsp__sass_inst_executed_op_global_st.sum",
  "smsp__sass_inst_executed_op_global_atom.sum",
  "smsp__sass_l1tex_tags_mem_global_op_ld.sum",
  "smsp__sass_l1tex_tags_mem_global_op_st.sum",
  "smsp__sass_sectors_mem_global_op_ld.sum",
  "smsp__sass_sectors_mem_global_op_st.sum",
};

typedef struct {
  MdlGpuCase pub;
  char *spec;
  char *kernel;
  GPtrArray *ncu_rows;  /* GPtrArray * (borrowed from the ncu table), one per launch */
  GArray *rows;         /* MdlGpuRow */
} Case;

struct MdlGpuComparison {
  char *dir;
  char *machine;
  GPtrArray *cases;     /* Case * */
};

static void
row_clear (MdlGpuRow *r)
{
  g_free ((char *) r->counters);
  g_free ((char *) r->metric);
}

static void
case_free (Case *c)
{
  g_free (c->spec);
  g_free (c->kernel);
  if (c->ncu_rows)
    g_ptr_array_unref (c->ncu_rows);
  if (c->rows)
    g_array_unref (c->rows);
  g_free (c);
}

/* ---- the measured half ---- */

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

/* The ncu rows of the launches of the case that profile-cases.csv lists as @profile_row: those
 * whose ID is one of its launches and whose kernel name contains the case's kernel (so that a
 * profile run cut short cannot pair a case with another's launch). */
static GPtrArray *
launch_rows (const MdlCsv *ncu, GPtrArray *profile_header, GPtrArray *profile_row,
             const char *kernel)
{
  GPtrArray *header = mdl_csv_row (ncu, 0);
  gint id_col = mdl_csv_column (header, "ID"), name_col = mdl_csv_column (header, "Kernel Name");
  gint launches_col = mdl_csv_column (profile_header, "launches");
  guint64 first = g_ascii_strtoull (mdl_csv_field (profile_row, 0), NULL, 10);
  guint64 n = launches_col >= 0
              ? g_ascii_strtoull (mdl_csv_field (profile_row, (guint) launches_col), NULL, 10) : 1;
  GPtrArray *rows = g_ptr_array_new ();
  if (id_col < 0 || name_col < 0)
    return rows;
  /* ncu's first two rows are the header and the units */
  for (guint r = 2; r < ncu->rows->len; r++)
    {
      GPtrArray *row = mdl_csv_row (ncu, r);
      guint64 id = g_ascii_strtoull (mdl_csv_field (row, (guint) id_col), NULL, 10);
      if (id >= first && id < first + n && strstr (mdl_csv_field (row, (guint) name_col), kernel))
        g_ptr_array_add (rows, row);
    }
  return rows;
}

/* The cases of @dir with their ncu rows. */
static GPtrArray *
load_cases (const char *dir, const char *const *filters, MdlCsv **ncu_out, GError **error)
{
  g_autofree char *timings_path = g_build_filename (dir, "timings.csv", NULL);
  g_autofree char *profile_path = g_build_filename (dir, "profile-cases.csv", NULL);
  g_autofree char *ncu_path = g_build_filename (dir, "ncu.csv", NULL);
  g_autoptr (MdlCsv) timings = mdl_csv_read (timings_path, 2, error);
  g_autoptr (MdlCsv) profile = NULL;
  g_autoptr (MdlCsv) ncu = NULL;
  GPtrArray *cases;
  if (timings == NULL || !(profile = mdl_csv_read (profile_path, 2, error))
      || !(ncu = mdl_csv_read (ncu_path, 2, error)))
    return NULL;
  cases = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  for (guint i = 1; i < timings->rows->len; i++)
    {
      GPtrArray *t = mdl_csv_row (timings, i);
      const char *spec = mdl_csv_field (t, 1);
      gboolean wanted = filters == NULL || filters[0] == NULL;
      Case *c;
      for (const char *const *f = filters; f && *f && !wanted; f++)
        wanted = strstr (spec, *f) != NULL;
      if (!wanted)
        continue;
      c = g_new0 (Case, 1);
      c->spec = g_strdup (spec);
      c->kernel = g_strdup (mdl_csv_field (t, 2));
      c->pub.spec = c->spec;
      c->pub.kernel = c->kernel;
      c->pub.cuda_check = strcmp (mdl_csv_field (t, 6), "0") == 0;
      c->pub.median_us = g_ascii_strtod (mdl_csv_field (t, 7), NULL);
      for (guint p = 1; p < profile->rows->len && c->ncu_rows == NULL; p++)
        if (strcmp (mdl_csv_field (mdl_csv_row (profile, p), 1), c->spec) == 0)
          c->ncu_rows = launch_rows (ncu, mdl_csv_row (profile, 0), mdl_csv_row (profile, p),
                                     c->kernel);
      g_ptr_array_add (cases, c);
    }
  *ncu_out = g_steal_pointer (&ncu);
  return cases;
}

/* The case's measured value of @metric: the sum over its launches of a `.sum` metric, the value
 * of any metric when it made one launch; FALSE when there is none. */
static gboolean
measured_value (const Case *c, GPtrArray *ncu_header, const char *metric, double *value)
{
  gint col = mdl_csv_column (ncu_header, metric);
  *value = 0;
  if (col < 0 || c->ncu_rows == NULL || c->ncu_rows->len == 0
      || (c->ncu_rows->len > 1 && !g_str_has_suffix (metric, ".sum")))
    return FALSE;
  for (guint i = 0; i < c->ncu_rows->len; i++)
    {
      double v;
      if (!ncu_number (mdl_csv_field (g_ptr_array_index (c->ncu_rows, i), (guint) col), &v))
        return FALSE;
      *value += v;
    }
  return TRUE;
}

/* ---- the predicted half ---- */

/* The reports of @spec's SIMT twin through its checked_on engines for @machine. */
static GPtrArray *
predict (const char *spec, const char *machine, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_auto (GStrv) engines = NULL;
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autofree MdlReport **reports = NULL;
  MdlSink sink;
  const MdlAlgo *algo;
  guint64 n;
  guint n_reports;
  GPtrArray *out;

  if (!mdl_spec_split (spec, &name, &assigns, error) || !(algo = mdl_algo_lookup (name, error)))
    return NULL;
  if (algo->gpu == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, "%s is not a GPU algorithm", name);
      return NULL;
    }
  n = algo->gpu->default_n;
  for (char **a = assigns; *a; a++)
    if (g_str_has_prefix (*a, "n="))
      {
        if (!mdl_params_parse_uint (algo->name, "n", *a + 2, 1, 0, 0, &n, error))
          return NULL;
      }
    else
      g_ptr_array_add (rest, *a);
  g_ptr_array_add (rest, NULL);
  if (!(params = mdl_params_parse (algo->name, algo->params, (const char *const *) rest->pdata,
                                   error)))
    return NULL;
  engines = g_strsplit (algo->gpu->checked_on, ",", -1);
  mdl_pipeline_set_machine (pipeline, machine);
  for (char **e = engines; *e; e++)
    if (!mdl_pipeline_add_engine_spec (pipeline, *e, error))
      return NULL;
  sink = mdl_pipeline_sink (pipeline);
  if (!mdl_algo_run_into (algo, params, n, 1, &sink, NULL, error))
    return NULL;
  reports = mdl_pipeline_reports (pipeline, &n_reports);
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  for (guint i = 0; i < n_reports; i++)
    g_ptr_array_add (out, reports[i]);
  return out;
}

static MdlGpuVerdict
verdict (const MdlGpuRow *r)
{
  if (!r->have_measured)
    return MDL_GPU_NO_COLUMN;
  if (isnan (r->predicted))
    return r->measured == 0 ? MDL_GPU_NOT_APPLICABLE : MDL_GPU_DIFFERS;
  if (r->is_real)
    return fabs (r->predicted - r->measured) <= 0.006 ? MDL_GPU_MATCH : MDL_GPU_DIFFERS;
  return r->predicted == r->measured ? MDL_GPU_MATCH : MDL_GPU_DIFFERS;
}

/* The rows of case @c: one per metric of the reports, counters sharing a metric added up, each
 * with its measured value and verdict. */
static GArray *
join (const Case *c, GPtrArray *reports, GPtrArray *ncu_header)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (MdlGpuRow));
  g_array_set_clear_func (rows, (GDestroyNotify) row_clear);
  for (guint r = 0; r < reports->len; r++)
    {
      const MdlReport *rep = g_ptr_array_index (reports, r);
      for (guint i = 0; i < mdl_report_n_counters (rep); i++)
        {
          const MdlCounter *k = mdl_report_counter (rep, i);
          double v = k->is_real ? k->real : (double) k->count;
          MdlGpuRow *row = NULL;
          if (k->metric == NULL)
            continue;
          for (guint j = 0; j < rows->len && !row; j++)
            if (strcmp (g_array_index (rows, MdlGpuRow, j).metric, k->metric) == 0)
              row = &g_array_index (rows, MdlGpuRow, j);
          if (row)
            {
              char *joined = g_strdup_printf ("%s+%s", row->counters, k->name);
              g_free ((char *) row->counters);
              row->counters = joined;
              row->predicted += v;
              continue;
            }
          g_array_append_val (rows, ((MdlGpuRow) { .counters = g_strdup (k->name),
                                                   .metric = g_strdup (k->metric),
                                                   .is_real = k->is_real,
                                                   .predicted = v }));
        }
    }
  for (guint j = 0; j < rows->len; j++)
    {
      MdlGpuRow *row = &g_array_index (rows, MdlGpuRow, j);
      row->have_measured = measured_value (c, ncu_header, row->metric, &row->measured);
      row->verdict = verdict (row);
    }
  return rows;
}

MdlGpuComparison *
mdl_gpu_compare (const char *dir, const char *machine, const char *const *filters, GError **error)
{
  g_autoptr (MdlGpuComparison) cmp = g_new0 (MdlGpuComparison, 1);
  g_autoptr (MdlCsv) ncu = NULL;
  g_auto (GStrv) machine_keys = NULL;
  g_return_val_if_fail (dir != NULL && machine != NULL, NULL);
  if (!(machine_keys = mdl_machine_keys (machine, error)))
    return NULL;
  cmp->dir = g_strdup (dir);
  cmp->machine = g_strdup (machine);
  if (!(cmp->cases = load_cases (dir, filters, &ncu, error)))
    return NULL;
  for (guint i = 0; i < cmp->cases->len; i++)
    {
      Case *c = g_ptr_array_index (cmp->cases, i);
      g_autoptr (GPtrArray) reports = NULL;
      /* A baseline (CUB, the device copy) is measured only: it has no SIMT twin to predict it. */
      if (g_str_has_prefix (c->spec, "baseline/"))
        reports = g_ptr_array_new ();
      else if (!(reports = predict (c->spec, machine, error)))
        {
          g_prefix_error (error, "case %s: ", c->spec);
          return NULL;
        }
      c->rows = join (c, reports, mdl_csv_row (ncu, 0));
      c->pub.n_rows = c->rows->len;
      /* The ncu table goes with this function; the case keeps no row of it. */
      g_clear_pointer (&c->ncu_rows, g_ptr_array_unref);
    }
  return g_steal_pointer (&cmp);
}

void
mdl_gpu_comparison_free (MdlGpuComparison *cmp)
{
  if (cmp == NULL)
    return;
  g_free (cmp->dir);
  g_free (cmp->machine);
  if (cmp->cases)
    g_ptr_array_unref (cmp->cases);
  g_free (cmp);
}

guint
mdl_gpu_comparison_n_cases (const MdlGpuComparison *cmp)
{
  g_return_val_if_fail (cmp != NULL, 0);
  return cmp->cases->len;
}

const MdlGpuCase *
mdl_gpu_comparison_case (const MdlGpuComparison *cmp, guint i)
{
  g_return_val_if_fail (cmp != NULL && i < cmp->cases->len, NULL);
  return &((const Case *) g_ptr_array_index (cmp->cases, i))->pub;
}

const MdlGpuRow *
mdl_gpu_comparison_row (const MdlGpuComparison *cmp, guint i, guint k)
{
  const Case *c;
  g_return_val_if_fail (cmp != NULL && i < cmp->cases->len, NULL);
  c = g_ptr_array_index (cmp->cases, i);
  g_return_val_if_fail (k < c->rows->len, NULL);
  return &g_array_index (c->rows, MdlGpuRow, k);
}

guint
mdl_gpu_comparison_count (const MdlGpuComparison *cmp, gint verdict_wanted)
{
  guint n = 0;
  g_return_val_if_fail (cmp != NULL, 0);
  for (guint i = 0; i < cmp->cases->len; i++)
    {
      const Case *c = g_ptr_array_index (cmp->cases, i);
      if (verdict_wanted < 0)
        n += !c->pub.cuda_check;
      for (guint k = 0; verdict_wanted >= 0 && k < c->rows->len; k++)
        n += g_array_index (c->rows, MdlGpuRow, k).verdict == (MdlGpuVerdict) verdict_wanted;
    }
  return n;
}

/* ---- output ---- */

static const char *const verdict_names[] = { "match", "n/a", "differs", "no column" };

static void
append_value (GString *s, double v, gboolean is_real)
{
  if (isnan (v))
    g_string_append (s, "n/a");
  else if (is_real)
    g_string_append_printf (s, "%.2f", v);
  else
    g_string_append_printf (s, "%.0f", v);
}

/* One row as the format writes it: predicted, measured and measured - predicted as text. */
static void
write_row (const MdlGpuCase *c, const MdlGpuRow *r, guint k, MdlFormat format, GString *out)
{
  g_autoptr (GString) pv = g_string_new (NULL), mv = g_string_new (NULL), dv = g_string_new (NULL);
  const char *v = verdict_names[r->verdict];
  append_value (pv, r->predicted, r->is_real);
  if (r->have_measured)
    append_value (mv, r->measured, r->is_real);
  if (r->have_measured && !isnan (r->predicted))
    append_value (dv, r->measured - r->predicted, r->is_real);
  switch (format)
    {
    case MDL_FORMAT_CSV:
      g_string_append_printf (out, "\"%s\",%s,%s,%s,%s,%s,%s,%s,%.3f\n", c->spec, r->counters,
                              r->metric, pv->str, mv->str, dv->str, v,
                              c->cuda_check ? "ok" : "failed", c->median_us);
      break;
    case MDL_FORMAT_JSON:
      g_string_append (out, k ? ", {\"counters\": " : "{\"counters\": ");
      mdl_json_string (out, r->counters);
      g_string_append (out, ", \"metric\": ");
      mdl_json_string (out, r->metric);
      g_string_append_printf (out, ", \"predicted\": %s, \"measured\": %s, \"verdict\": \"%s\"}",
                              isnan (r->predicted) ? "null" : pv->str,
                              r->have_measured ? mv->str : "null", v);
      break;
    default:
      g_string_append_printf (out, "  %-32s %12s %12s %10s  %-8s %s\n", r->counters, pv->str,
                              mv->str, dv->str, v, r->metric);
      break;
    }
}

void
mdl_gpu_comparison_write (const MdlGpuComparison *cmp, MdlFormat format, GString *out)
{
  guint n_cases = cmp->cases->len, n_failed = mdl_gpu_comparison_count (cmp, -1);
  guint n_match = mdl_gpu_comparison_count (cmp, MDL_GPU_MATCH);
  guint n_na = mdl_gpu_comparison_count (cmp, MDL_GPU_NOT_APPLICABLE);
  guint n_differ = mdl_gpu_comparison_count (cmp, MDL_GPU_DIFFERS);
  if (format == MDL_FORMAT_CSV)
    g_string_append (out, "case,counters,metric,predicted,measured,difference,verdict,cuda_check,"
                          "median_us\n");
  else if (format == MDL_FORMAT_JSON)
    {
      g_string_append (out, "{\"measured\": ");
      mdl_json_string (out, cmp->dir);
      g_string_append (out, ", \"machine\": ");
      mdl_json_string (out, cmp->machine);
      g_string_append (out, ", \"cases\": [");
    }
  for (guint i = 0; i < n_cases; i++)
    {
      const MdlGpuCase *c = mdl_gpu_comparison_case (cmp, i);
      if (format == MDL_FORMAT_TABLE)
        g_string_append_printf (out, "%s  (%s, CUDA check %s, %.2f us)\n", c->spec, c->kernel,
                                c->cuda_check ? "ok" : "FAILED", c->median_us);
      else if (format == MDL_FORMAT_JSON)
        {
          g_string_append (out, i ? ",\n  {\"case\": " : "\n  {\"case\": ");
          mdl_json_string (out, c->spec);
          g_string_append (out, ", \"kernel\": ");
          mdl_json_string (out, c->kernel);
          g_string_append_printf (out, ", \"cuda_check\": %s, \"median_us\": %.3f, \"counters\": [",
                                  c->cuda_check ? "true" : "false", c->median_us);
        }
      for (guint k = 0; k < c->n_rows; k++)
        write_row (c, mdl_gpu_comparison_row (cmp, i, k), k, format, out);
      if (format == MDL_FORMAT_JSON)
        g_string_append (out, "]}");
    }
  if (format == MDL_FORMAT_JSON)
    g_string_append_printf (out, "\n], \"summary\": {\"cases\": %u, \"cuda_checks_failed\": %u, "
                            "\"match\": %u, \"not_applicable\": %u, \"differs\": %u}}\n", n_cases,
                            n_failed, n_match, n_na, n_differ);
  else if (format == MDL_FORMAT_TABLE)
    g_string_append_printf (out, "\n%u cases (%u CUDA checks failed): %u counters match, %u not "
                            "applicable, %u differ (docs/models/gpu.md explains each)\n", n_cases,
                            n_failed, n_match, n_na, n_differ);
}

/* ---- what to profile ---- */

/* Adds the metrics that the counters of engine @spec on @machine name to @metrics (once each);
 * nothing when @machine lacks what the engine needs. */
static void
add_engine_metrics (const char *spec, const char *machine, GPtrArray *metrics)
{
  g_autoptr (MdlEngine) engine = mdl_engine_new_on (spec, machine, NULL);
  g_autoptr (MdlReport) report = NULL;
  if (engine == NULL)
    return;
  report = mdl_engine_report (engine);
  for (guint i = 0; i < mdl_report_n_counters (report); i++)
    {
      const char *m = mdl_report_counter (report, i)->metric;
      if (m && !g_ptr_array_find_with_equal_func (metrics, m, g_str_equal, NULL))
        g_ptr_array_add (metrics, g_strdup (m));
    }
}

char **
mdl_gpu_profile_metrics (const char *machine)
{
  GPtrArray *metrics = g_ptr_array_new ();
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  for (guint i = 0; i < n_algos; i++)
    if (algos[i].gpu && algos[i].gpu->cuda_family)
      {
        g_auto (GStrv) engines = g_strsplit (algos[i].gpu->checked_on, ",", -1);
        for (char **e = engines; *e; e++)
          add_engine_metrics (*e, machine, metrics);
      }
  for (guint i = 0; i < G_N_ELEMENTS (explaining_metrics); i++)
    if (!g_ptr_array_find_with_equal_func (metrics, explaining_metrics[i], g_str_equal, NULL))
      g_ptr_array_add (metrics, g_strdup (explaining_metrics[i]));
  g_ptr_array_add (metrics, NULL);
  return (char **) g_ptr_array_free (metrics, FALSE);
}
