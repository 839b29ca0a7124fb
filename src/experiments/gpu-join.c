/* What the GPU comparison and the GPU experiment share (gpu-private.h): reading a measured
 * directory, naming a case, running its SIMT twin, and the join by metric name.
 *
 * A measured directory holds timings.csv (the CUDA harness, src/algos/cuda/harness.cu: per case
 * its kernel, check and times), profile-cases.csv (the same harness under Nsight Compute: per case
 * the ID of its first kernel launch and how many it made) and ncu.csv (ncu's raw page: one row per
 * kernel launch, one column per metric, a second row of units). Columns are found by their header
 * names, so that the harness may append columns; a directory written before the `launches` column
 * existed has one launch per case.
 *
 * The join pairs every counter that names a Nsight Compute metric with that metric's column. A
 * real with no value (uniformity without branches) matches a measured 0, which is how ncu prints
 * it. */
#include <models/error.h>
#include <models/pipeline.h>

#include "experiments/gpu-private.h"

#include <math.h>
#include <string.h>

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

/* The column @name of @csv's header, or -1 with MDL_ERROR_FORMAT naming @path when @required. */
static gint
column (const MdlCsv *csv, const char *path, const char *name, gboolean required, GError **error)
{
  gint col = mdl_csv_column (mdl_csv_row (csv, 0), name);
  if (col < 0 && required)
    g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: no column \"%s\" in the header",
                 path, mdl_csv_line (csv, 0), name);
  return col;
}

/* Field @col of row @r of @csv as a number (an unsigned integer with @integer); @col < 0 leaves
 * *@value as it is. MDL_ERROR_FORMAT names the file, the line and the column. */
static gboolean
field_number (const MdlCsv *csv, const char *path, guint r, gint col, gboolean integer,
              double *value, GError **error)
{
  const char *text;
  char *end;
  double v;
  if (col < 0)
    return TRUE;
  text = mdl_csv_field (mdl_csv_row (csv, r), (guint) col);
  v = integer ? (double) g_ascii_strtoull (text, &end, 10) : g_ascii_strtod (text, &end);
  if (*text == '\0' || *end != '\0' || (integer && *text == '-') || !isfinite (v) || v < 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: %s is \"%s\", expected a%s number",
                   path, mdl_csv_line (csv, r), (const char *) g_ptr_array_index (
                     mdl_csv_row (csv, 0), (guint) col), text,
                   integer ? " non-negative whole" : " non-negative");
      return FALSE;
    }
  *value = v;
  return TRUE;
}

static void
measured_case_free (MdlGpuMeasuredCase *c)
{
  g_free (c->spec);
  g_free (c->kernel);
  if (c->ncu_rows)
    g_ptr_array_unref (c->ncu_rows);
  g_free (c);
}

void
mdl_gpu_measured_free (MdlGpuMeasured *m)
{
  if (m == NULL)
    return;
  g_free (m->dir);
  g_free (m->device);
  if (m->cases)
    g_ptr_array_unref (m->cases);
  mdl_csv_free (m->ncu);
  g_free (m);
}

/* The cases of timings.csv (@path), filtered. */
static gboolean
read_timings (MdlGpuMeasured *m, const MdlCsv *t, const char *path, const char *const *filters,
              GError **error)
{
  gint c_case = column (t, path, "case", TRUE, error), c_kernel, c_mismatch, c_median;
  gint c_min, c_max, c_reps, c_launches, c_device;
  if (c_case < 0 || (c_kernel = column (t, path, "kernel", TRUE, error)) < 0
      || (c_mismatch = column (t, path, "mismatches", TRUE, error)) < 0
      || (c_median = column (t, path, "median_us", TRUE, error)) < 0)
    return FALSE;
  c_min = column (t, path, "min_us", FALSE, NULL);
  c_max = column (t, path, "max_us", FALSE, NULL);
  c_reps = column (t, path, "reps", FALSE, NULL);
  c_launches = column (t, path, "launches", FALSE, NULL);
  c_device = column (t, path, "device", FALSE, NULL);
  for (guint r = 1; r < t->rows->len; r++)
    {
      GPtrArray *row = mdl_csv_row (t, r);
      const char *spec = mdl_csv_field (row, (guint) c_case);
      double mismatches = 0, reps = 0, launches = 1;
      MdlGpuMeasuredCase *c;
      if (!mdl_gpu_spec_wanted (filters, spec))
        continue;
      c = g_new0 (MdlGpuMeasuredCase, 1);
      g_ptr_array_add (m->cases, c);
      c->spec = g_strdup (spec);
      c->kernel = g_strdup (mdl_csv_field (row, (guint) c_kernel));
      c->line = mdl_csv_line (t, r);
      c->min_us = c->max_us = NAN;
      if (!field_number (t, path, r, c_mismatch, TRUE, &mismatches, error)
          || !field_number (t, path, r, c_median, FALSE, &c->median_us, error)
          || !field_number (t, path, r, c_min, FALSE, &c->min_us, error)
          || !field_number (t, path, r, c_max, FALSE, &c->max_us, error)
          || !field_number (t, path, r, c_reps, TRUE, &reps, error)
          || !field_number (t, path, r, c_launches, TRUE, &launches, error))
        return FALSE;
      c->cuda_check = mismatches == 0;
      c->reps = (guint) reps;
      c->launches = (guint) launches;
      if (c_device >= 0 && *m->device == '\0')
        {
          g_free (m->device);
          m->device = g_strdup (mdl_csv_field (row, (guint) c_device));
        }
    }
  return TRUE;
}

/* Pairs each case that profile-cases.csv (@profile, at @path) lists with the ncu rows of its
 * launches: those whose ID is one of its launches, when the first of them is the case's kernel (its
 * name contains the case's; so that a profile run cut short cannot pair a case with another's
 * launches). The later launches may be other kernels: reduce/cascade's second is reduce/tree's. */
static gboolean
pair_launches (MdlGpuMeasured *m, const MdlCsv *profile, const char *path, const char *ncu_path,
               GError **error)
{
  gint p_launch = column (profile, path, "launch", TRUE, error), p_case, p_launches;
  gint id_col, name_col;
  if (p_launch < 0 || (p_case = column (profile, path, "case", TRUE, error)) < 0
      || (id_col = column (m->ncu, ncu_path, "ID", TRUE, error)) < 0
      || (name_col = column (m->ncu, ncu_path, "Kernel Name", TRUE, error)) < 0)
    return FALSE;
  p_launches = column (profile, path, "launches", FALSE, NULL);
  for (guint i = 0; i < m->cases->len; i++)
    {
      MdlGpuMeasuredCase *c = g_ptr_array_index (m->cases, i);
      for (guint p = 1; p < profile->rows->len && c->ncu_rows == NULL; p++)
        {
          double first = 0, n = 1;
          if (strcmp (mdl_csv_field (mdl_csv_row (profile, p), (guint) p_case), c->spec) != 0)
            continue;
          if (!field_number (profile, path, p, p_launch, TRUE, &first, error)
              || !field_number (profile, path, p, p_launches, TRUE, &n, error))
            return FALSE;
          gboolean first_is_its = FALSE;
          c->ncu_rows = g_ptr_array_new ();
          /* ncu's first two rows are the header and the units */
          for (guint r = 2; r < m->ncu->rows->len; r++)
            {
              GPtrArray *row = mdl_csv_row (m->ncu, r);
              double id = (double) g_ascii_strtoull (mdl_csv_field (row, (guint) id_col), NULL, 10);
              if (id < first || id >= first + n)
                continue;
              if (id == first)
                first_is_its = strstr (mdl_csv_field (row, (guint) name_col), c->kernel) != NULL;
              g_ptr_array_add (c->ncu_rows, row);
            }
          if (!first_is_its)
            g_ptr_array_set_size (c->ncu_rows, 0);
        }
    }
  return TRUE;
}

MdlGpuMeasured *
mdl_gpu_measured_read (const char *dir, const char *const *filters, gboolean need_profile,
                       GError **error)
{
  g_autofree char *timings_path = g_build_filename (dir, "timings.csv", NULL);
  g_autofree char *profile_path = g_build_filename (dir, "profile-cases.csv", NULL);
  g_autofree char *ncu_path = g_build_filename (dir, "ncu.csv", NULL);
  g_autoptr (MdlGpuMeasured) m = g_new0 (MdlGpuMeasured, 1);
  g_autoptr (MdlCsv) timings = mdl_csv_read (timings_path, 2, error);
  g_autoptr (MdlCsv) profile = NULL;
  if (timings == NULL)
    return NULL;
  m->dir = g_strdup (dir);
  m->device = g_strdup ("");
  m->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) measured_case_free);
  if (!read_timings (m, timings, timings_path, filters, error))
    return NULL;
  if (!need_profile && !(g_file_test (profile_path, G_FILE_TEST_EXISTS)
                         && g_file_test (ncu_path, G_FILE_TEST_EXISTS)))
    return g_steal_pointer (&m);
  if (!(profile = mdl_csv_read (profile_path, 2, error))
      || !(m->ncu = mdl_csv_read (ncu_path, 2, error))
      || !pair_launches (m, profile, profile_path, ncu_path, error))
    return NULL;
  return g_steal_pointer (&m);
}

/* ---- cases and the predicted half ---- */

gboolean
mdl_gpu_spec_wanted (const char *const *filters, const char *spec)
{
  if (filters == NULL || filters[0] == NULL)
    return TRUE;
  for (const char *const *f = filters; *f; f++)
    if (strstr (spec, *f))
      return TRUE;
  return FALSE;
}

char *
mdl_gpu_case_parse (const char *spec, const MdlAlgo **algo_out, char **name_out, guint64 *n_out,
                    char **params_out, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (GPtrArray) rest = g_ptr_array_new ();
  g_autofree char *params = NULL;
  const MdlAlgo *algo = NULL;
  gboolean baseline = g_str_has_prefix (spec, MDL_GPU_BASELINE_PREFIX);
  guint64 n = 0;

  if (!mdl_spec_split (spec, &name, &assigns, error)
      || (!baseline && !(algo = mdl_algo_lookup (name, error))))
    return NULL;
  if (algo && algo->gpu == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, "%s is not a GPU algorithm", name);
      return NULL;
    }
  if (algo)
    n = algo->gpu->default_n;
  for (char **a = assigns; *a; a++)
    if (g_str_has_prefix (*a, "n="))
      {
        if (!mdl_params_parse_uint (name, "n", *a + 2, 1, 0, 0, &n, error))
          return NULL;
      }
    else
      g_ptr_array_add (rest, *a);
  g_ptr_array_add (rest, NULL);
  params = g_strjoinv (",", (char **) rest->pdata);
  if (algo_out)
    *algo_out = algo;
  if (n_out)
    *n_out = n;
  if (name_out)
    *name_out = g_strdup (name);
  if (params_out)
    *params_out = g_strdup (params);
  return g_strdup_printf ("%s:n=%" G_GUINT64_FORMAT "%s%s", name, n, *params ? "," : "", params);
}

GPtrArray *
mdl_gpu_predict (const char *spec, const char *machine, const char *const *engines,
                 const MdlSink *tap, guint64 *events, GError **error)
{
  g_autofree char *key = NULL, *params_text = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autofree MdlReport **reports = NULL;
  MdlSink sink;
  const MdlAlgo *algo;
  guint64 n;
  guint n_reports;
  GPtrArray *out;

  if (!(key = mdl_gpu_case_parse (spec, &algo, NULL, &n, &params_text, error)))
    return NULL;
  if (algo == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "%s is a baseline: it has no SIMT twin "
                   "to predict it", spec);
      return NULL;
    }
  assigns = *params_text ? g_strsplit (params_text, ",", -1) : g_new0 (char *, 1);
  if (!(params = mdl_params_parse (algo->name, algo->params, (const char *const *) assigns,
                                   error)))
    return NULL;
  mdl_pipeline_set_machine (pipeline, machine);
  for (const char *const *e = engines; *e; e++)
    if (!mdl_pipeline_add_engine_spec (pipeline, *e, error))
      return NULL;
  if (tap)
    mdl_pipeline_add_sink (pipeline, tap);
  sink = mdl_pipeline_sink (pipeline);
  if (!mdl_algo_run_into (algo, params, n, 1, &sink, NULL, error))
    return NULL;
  if (events)
    *events = mdl_pipeline_n_events (pipeline);
  reports = mdl_pipeline_reports (pipeline, &n_reports);
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  for (guint i = 0; i < n_reports; i++)
    g_ptr_array_add (out, reports[i]);
  return out;
}

/* ---- the join ---- */

/* The case's measured value of @metric: the sum over its launches of a `.sum` metric, the value
 * of any metric when it made one launch; FALSE when there is none. */
static gboolean
measured_value (const MdlGpuMeasuredCase *c, const MdlCsv *ncu, const char *metric, double *value)
{
  gint col;
  *value = 0;
  if (ncu == NULL || c == NULL || c->ncu_rows == NULL || c->ncu_rows->len == 0
      || (c->ncu_rows->len > 1 && !g_str_has_suffix (metric, ".sum")))
    return FALSE;
  if ((col = mdl_csv_column (mdl_csv_row (ncu, 0), metric)) < 0)
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

static void
row_clear (MdlGpuRow *r)
{
  g_free ((char *) r->counters);
  g_free ((char *) r->metric);
}

GArray *
mdl_gpu_join (GPtrArray *reports, const MdlCsv *ncu, const MdlGpuMeasuredCase *measured)
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
      row->have_measured = measured_value (measured, ncu, row->metric, &row->measured);
      row->verdict = verdict (row);
    }
  return rows;
}
