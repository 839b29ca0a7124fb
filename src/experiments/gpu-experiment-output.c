/* The writers of a GPU experiment's results: a Markdown table like the papers' for people (the
 * fits, then per case the models' costs, the counters predicted / measured and the time measured /
 * predicted), CSV and JSON for programs, and the data and scripts for gnuplot (predicted against
 * measured time per fit, time against n per algorithm, both log-log). The scripts are written, not
 * run: the library starts no processes; `models experiment gpu` runs gnuplot when installed. */
#include "core/json.h"
#include "experiments/gpu-experiment-private.h"
#include "experiments/output.h"

#include <math.h>
#include <string.h>

#define PLOT_COLUMNS 4

/* The hardware counters the table shows predicted / measured. */
static const guint table_counters[] = { GPU_COST_SECTORS, GPU_COST_WAVEFRONTS,
                                        GPU_COST_WARP_INSTS };
/* The seed models' costs the table shows. */
static const guint table_models[] = { GPU_COST_AGPU_TIME, GPU_COST_AGPU_IO, GPU_COST_KMODEL_T,
                                      GPU_COST_KMODEL_W, GPU_COST_KMODEL_G, GPU_COST_MSIMD };

static const char *
cost_name (guint k)
{
  return mdl_gpu_experiment_costs (NULL)[k].name;
}

void
mdl_gpu_append_n (GString *out, guint64 n)
{
  guint k = n ? 63 - (guint) __builtin_clzll (n) : 0;
  guint64 rest = n - ((guint64) 1 << k);
  if (n >= 1024 && rest == 0)
    g_string_append_printf (out, "2^%u", k);
  else if (n >= 1024 && rest < 1024)
    g_string_append_printf (out, "2^%u+%" G_GUINT64_FORMAT, k, rest);
  else
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, n);
}

/* @v after a space in @format, or " -" when it is not finite. */
static void
cell_text (GString *out, const char *format, double v)
{
  g_string_append_c (out, ' ');
  if (isfinite (v))
    g_string_append_printf (out, format, v);
  else
    g_string_append_c (out, '-');
}

void
mdl_gpu_cell (GString *out, const char *format, double v)
{
  g_string_append (out, " |");
  cell_text (out, format, v);
}

/* ---- Markdown ---- */

static void
write_fits_table (const MdlGpuExperiment *exp, GString *out)
{
  g_string_append_printf (out, "## Fits of the median time over the cases with n >= ");
  mdl_gpu_append_n (out, exp->min_fit_n);
  g_string_append (out, "\n\nNon-negative least squares; coefficients in ns per unit. LOAO: each "
                   "algorithm predicted by the fit on the others.\n\n"
                   "| fit | coefficients (ns) | points | algorithms | R² | median error | max "
                   "error | LOAO R² | LOAO median error | LOAO max error |\n"
                   "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (guint f = 0; f < GPU_N_FITS; f++)
    {
      const MdlGpuFitInfo *fit = &exp->fits[f].pub;
      g_string_append_printf (out, "| %s | ", fit->name);
      if (fit->why)
        g_string_append_printf (out, "no fit: %s", fit->why);
      for (guint t = 0; t < fit->n_terms && !fit->why; t++)
        g_string_append_printf (out, "%s%s %.4g", t ? ", " : "", fit->terms[t],
                                1000 * fit->coef[t]);
      g_string_append_printf (out, " | %u | %u", fit->n_points, fit->n_algorithms);
      mdl_gpu_cell (out, "%.4f", fit->r2);
      mdl_gpu_cell (out, "%.1f%%", 100 * fit->median_rel_error);
      mdl_gpu_cell (out, "%.1f%%", 100 * fit->max_rel_error);
      mdl_gpu_cell (out, "%.4f", fit->loao_r2);
      mdl_gpu_cell (out, "%.1f%%", 100 * fit->loao_median_rel_error);
      mdl_gpu_cell (out, "%.1f%%", 100 * fit->loao_max_rel_error);
      g_string_append (out, " |\n");
    }
  g_string_append (out, "\n");
  for (guint f = 0; f < GPU_N_FITS; f++)
    g_string_append_printf (out, "- %s: %s\n", exp->fits[f].pub.name,
                            exp->fits[f].pub.description);
}

static void
write_points_table (const MdlGpuExperiment *exp, GString *out)
{
  g_string_append (out, "\n## Cases\n\nCounters: predicted / measured (Nsight Compute, profiled "
                   "cases). Time: median (fastest-slowest) in us, then as each fit predicts it. "
                   "xCUB: time over CUB's at the same n; copy: bandwidth (input and output words "
                   "x 4 / time) over the device copy's.\n\n| algorithm | params | n");
  for (guint k = 0; k < G_N_ELEMENTS (table_models); k++)
    g_string_append_printf (out, " | %s", cost_name (table_models[k]));
  for (guint k = 0; k < G_N_ELEMENTS (table_counters); k++)
    g_string_append_printf (out, " | %s", cost_name (table_counters[k]));
  g_string_append (out, " | launches | time us");
  for (guint f = 0; f < GPU_FIT_COUNTERS + 1; f++)
    g_string_append_printf (out, " | %s us", exp->fits[f].pub.name);
  g_string_append (out, " | xCUB | copy |\n|---|---|--:");
  /* after algorithm, params and n: the models, the counters, launches, time, the fits, the two
   * ratios */
  for (guint k = 0; k < G_N_ELEMENTS (table_models) + G_N_ELEMENTS (table_counters) + 2
                         + GPU_FIT_COUNTERS + 1 + 2; k++)
    g_string_append (out, "|--:");
  g_string_append (out, "|\n");
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      g_string_append_printf (out, "| %s | %s | ", p->algorithm, *p->params ? p->params : "-");
      mdl_gpu_append_n (out, p->pub.n);
      for (guint k = 0; k < G_N_ELEMENTS (table_models); k++)
        mdl_gpu_cell (out, "%.0f", p->cost[table_models[k]]);
      for (guint k = 0; k < G_N_ELEMENTS (table_counters); k++)
        {
          guint c = table_counters[k];
          mdl_gpu_cell (out, "%.0f", p->cost[c]);
          if (isfinite (p->cost_measured[c]))
            g_string_append_printf (out, " / %.0f", p->cost_measured[c]);
        }
      mdl_gpu_cell (out, "%.0f", p->pub.measured ? (double) p->pub.launches : p->cost[GPU_COST_LAUNCHES]);
      mdl_gpu_cell (out, "%.2f", p->pub.median_us);
      if (isfinite (p->pub.min_us) && isfinite (p->pub.max_us))
        g_string_append_printf (out, " (%.2f-%.2f)", p->pub.min_us, p->pub.max_us);
      if (p->pub.measured && !p->pub.cuda_check)
        g_string_append (out, " FAILED CHECK");
      for (guint f = 0; f < GPU_FIT_COUNTERS + 1; f++)
        mdl_gpu_cell (out, "%.2f", p->fit_us[f]);
      mdl_gpu_cell (out, "%.2f", p->pub.cub_ratio);
      mdl_gpu_cell (out, "%.0f%%", 100 * p->pub.copy_fraction);
      g_string_append (out, " |\n");
    }
}

static void
write_markdown (const MdlGpuExperiment *exp, GString *out)
{
  g_string_append_printf (out, "# GPU experiment: the models on %s", exp->machine);
  if (exp->measured && *exp->measured->device)
    g_string_append_printf (out, ", measured on %s", exp->measured->device);
  g_string_append (out, "\n\n");
  write_fits_table (exp, out);
  write_points_table (exp, out);
  mdl_gpu_sorting_write_markdown (exp, out);
  mdl_gpu_hull_write_markdown (exp, out);
  g_string_append (out, "\n## Notes\n\n");
  {
    g_auto (GStrv) lines = g_strsplit (exp->notes->str, "\n", -1);
    for (guint i = 0; lines[i]; i++)
      if (*lines[i])
        g_string_append_printf (out, "- %s\n", lines[i]);
  }
}

/* ---- CSV ---- */

static void
append_csv_reals (GString *out, const double *v, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (out, ',');
      mdl_experiment_append_real (out, v[i], "");
    }
}

static gboolean
measurable (guint k)
{
  return mdl_gpu_experiment_costs (NULL)[k].measured_by != NULL;
}

static void
write_csv (const MdlGpuExperiment *exp, GString *out)
{
  g_string_append (out, "case,algorithm,params,n,baseline,predicted,measured,profiled,cuda_check,"
                   "fitted,launches,median_us,min_us,max_us,cub_ratio,bytes,copy_fraction");
  for (guint k = 0; k < GPU_N_COSTS; k++)
    g_string_append_printf (out, ",%s", cost_name (k));
  for (guint k = 0; k < GPU_N_COSTS; k++)
    if (measurable (k))
      g_string_append_printf (out, ",%s_measured", cost_name (k));
  for (guint f = 0; f < GPU_N_FITS; f++)
    g_string_append_printf (out, ",fit_%s_us", exp->fits[f].pub.name);
  for (guint f = 0; f < GPU_N_FITS; f++)
    g_string_append_printf (out, ",loao_%s_us", exp->fits[f].pub.name);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      const MdlGpuPoint *q = &p->pub;
      const double times[] = { q->median_us, q->min_us, q->max_us, q->cub_ratio, q->bytes,
                               q->copy_fraction };
      g_string_append_printf (out, "\"%s\",%s,\"%s\",%" G_GUINT64_FORMAT ",%d,%d,%d,%d,%d,%d,%u",
                              p->spec, p->algorithm, p->params, q->n, q->baseline, q->predicted,
                              q->measured, q->profiled, q->cuda_check, q->fitted, q->launches);
      append_csv_reals (out, times, G_N_ELEMENTS (times));
      append_csv_reals (out, p->cost, GPU_N_COSTS);
      for (guint k = 0; k < GPU_N_COSTS; k++)
        if (measurable (k))
          append_csv_reals (out, &p->cost_measured[k], 1);
      append_csv_reals (out, p->fit_us, GPU_N_FITS);
      append_csv_reals (out, p->loao_us, GPU_N_FITS);
      g_string_append_c (out, '\n');
    }
}

static void
write_fits_csv (const MdlGpuExperiment *exp, GString *out)
{
  g_string_append (out, "fit,coefficients_ns,points,algorithms,r2,median_rel_error,"
                   "max_rel_error,loao_r2,loao_median_rel_error,loao_max_rel_error,why,"
                   "description\n");
  for (guint f = 0; f < GPU_N_FITS; f++)
    {
      const MdlGpuFitInfo *fit = &exp->fits[f].pub;
      const double v[] = { fit->r2, fit->median_rel_error, fit->max_rel_error, fit->loao_r2,
                           fit->loao_median_rel_error, fit->loao_max_rel_error };
      g_string_append_printf (out, "%s,\"", fit->name);
      for (guint t = 0; t < fit->n_terms; t++)
        {
          g_string_append_printf (out, "%s%s=", t ? ";" : "", fit->terms[t]);
          mdl_experiment_append_real (out, 1000 * fit->coef[t], "");
        }
      g_string_append_printf (out, "\",%u,%u", fit->n_points, fit->n_algorithms);
      append_csv_reals (out, v, G_N_ELEMENTS (v));
      g_string_append_printf (out, ",\"%s\",\"%s\"\n", fit->why ? fit->why : "",
                              fit->description);
    }
}

/* ---- JSON ---- */

/* Appends "KEY": {"NAME": VALUE, ...} for the @n values, names from @name_of (NaN as null; with
 * @only, the values @only accepts). */
static void
json_object (GString *out, const char *key, const double *v, guint n,
             const char *(*name_of) (const MdlGpuExperiment *, guint), gboolean (*only) (guint),
             const MdlGpuExperiment *exp)
{
  gboolean first = TRUE;
  g_string_append_printf (out, ", \"%s\": {", key);
  for (guint i = 0; i < n; i++)
    if (only == NULL || only (i))
      {
        g_string_append_printf (out, "%s\"%s\": ", first ? "" : ", ", name_of (exp, i));
        mdl_experiment_append_real (out, v[i], "null");
        first = FALSE;
      }
  g_string_append_c (out, '}');
}

static const char *
json_cost_name (const MdlGpuExperiment *exp, guint k)
{
  (void) exp;
  return cost_name (k);
}

static const char *
json_fit_name (const MdlGpuExperiment *exp, guint f)
{
  return exp->fits[f].pub.name;
}

static void
json_bool (GString *out, const char *key, gboolean v)
{
  g_string_append_printf (out, ", \"%s\": %s", key, v ? "true" : "false");
}

/* Appends , "KEY": "VALUE", or null for a NULL @value. */
static void
json_string (GString *out, const char *key, const char *value)
{
  g_string_append_printf (out, ", \"%s\": ", key);
  if (value)
    mdl_json_string (out, value);
  else
    g_string_append (out, "null");
}

static void
json_real (GString *out, const char *key, double v)
{
  g_string_append_printf (out, ", \"%s\": ", key);
  mdl_experiment_append_real (out, v, "null");
}

static void
write_json_fits (const MdlGpuExperiment *exp, GString *out)
{
  for (guint f = 0; f < GPU_N_FITS; f++)
    {
      const MdlGpuFitInfo *fit = &exp->fits[f].pub;
      g_string_append (out, f ? ",\n    {\"name\": " : "\n    {\"name\": ");
      mdl_json_string (out, fit->name);
      g_string_append (out, ", \"description\": ");
      mdl_json_string (out, fit->description);
      g_string_append (out, ", \"coefficients_ns\": {");
      for (guint t = 0; t < fit->n_terms; t++)
        {
          g_string_append_printf (out, "%s\"%s\": ", t ? ", " : "", fit->terms[t]);
          mdl_experiment_append_real (out, 1000 * fit->coef[t], "null");
        }
      g_string_append_printf (out, "}, \"points\": %u, \"algorithms\": %u", fit->n_points,
                              fit->n_algorithms);
      json_real (out, "r2", fit->r2);
      json_real (out, "median_rel_error", fit->median_rel_error);
      json_real (out, "max_rel_error", fit->max_rel_error);
      json_real (out, "loao_r2", fit->loao_r2);
      json_real (out, "loao_median_rel_error", fit->loao_median_rel_error);
      json_real (out, "loao_max_rel_error", fit->loao_max_rel_error);
      json_string (out, "why", fit->why);
      g_string_append_c (out, '}');
    }
}

static void
write_json_point (const MdlGpuExperiment *exp, const GpuPoint *p, GString *out)
{
  const MdlGpuPoint *q = &p->pub;
  g_string_append (out, "{\"case\": ");
  mdl_json_string (out, p->spec);
  g_string_append (out, ", \"algorithm\": ");
  mdl_json_string (out, p->algorithm);
  g_string_append (out, ", \"params\": ");
  mdl_json_string (out, p->params);
  g_string_append_printf (out, ", \"n\": %" G_GUINT64_FORMAT, q->n);
  json_bool (out, "baseline", q->baseline);
  json_bool (out, "predicted", q->predicted);
  json_bool (out, "measured", q->measured);
  json_bool (out, "profiled", q->profiled);
  json_bool (out, "cuda_check", q->cuda_check);
  json_bool (out, "fitted", q->fitted);
  g_string_append_printf (out, ", \"launches\": %u", q->launches);
  json_real (out, "median_us", q->median_us);
  json_real (out, "min_us", q->min_us);
  json_real (out, "max_us", q->max_us);
  json_real (out, "cub_ratio", q->cub_ratio);
  json_real (out, "bytes", q->bytes);
  json_real (out, "copy_fraction", q->copy_fraction);
  json_object (out, "cost", p->cost, GPU_N_COSTS, json_cost_name, NULL, exp);
  json_object (out, "measured_cost", p->cost_measured, GPU_N_COSTS, json_cost_name, measurable,
               exp);
  json_object (out, "fit_us", p->fit_us, GPU_N_FITS, json_fit_name, NULL, exp);
  json_object (out, "loao_us", p->loao_us, GPU_N_FITS, json_fit_name, NULL, exp);
  json_real (out, "simt_seconds", p->reports ? p->seconds : NAN);
  g_string_append (out, ", \"counters\": [");
  for (guint k = 0; p->rows && k < p->rows->len; k++)
    {
      g_string_append (out, k ? ", " : "");
      mdl_gpu_row_write_json (&g_array_index (p->rows, MdlGpuRow, k), out);
    }
  g_string_append (out, "]}");
}

static void
write_json (const MdlGpuExperiment *exp, GString *out)
{
  guint n_costs;
  const MdlGpuCost *table = mdl_gpu_experiment_costs (&n_costs);
  g_string_append (out, "{\n  \"experiment\": \"gpu\",\n  \"machine\": ");
  mdl_json_string (out, exp->machine);
  json_string (out, "measured", exp->measured ? exp->measured->dir : NULL);
  json_string (out, "device", exp->measured ? exp->measured->device : NULL);
  g_string_append_printf (out, ",\n  \"min_fit_n\": %" G_GUINT64_FORMAT ",\n  \"weights\": "
                          "\"%s\",\n  \"notes\": [", exp->min_fit_n,
                          mdl_gpu_fit_weights_name (exp->weights));
  mdl_experiment_json_lines (out, exp->notes->str);
  g_string_append (out, "\n  ],\n  \"costs\": [");
  for (guint k = 0; k < n_costs; k++)
    {
      g_string_append (out, k ? ",\n    {\"name\": " : "\n    {\"name\": ");
      mdl_json_string (out, table[k].name);
      json_string (out, "engine", table[k].engine);
      json_string (out, "counters", table[k].counters);
      json_string (out, "measured_by", table[k].measured_by);
      g_string_append (out, ", \"description\": ");
      mdl_json_string (out, table[k].description);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "\n  ],\n  \"fits\": [");
  write_json_fits (exp, out);
  g_string_append (out, "\n  ],\n  \"points\": [");
  for (guint i = 0; i < exp->points->len; i++)
    {
      g_string_append (out, i ? ",\n    " : "\n    ");
      write_json_point (exp, GPU_POINT (exp, i), out);
    }
  g_string_append (out, "\n  ]\n}\n");
}

void
mdl_gpu_experiment_write (const MdlGpuExperiment *exp, MdlFormat format, GString *out)
{
  /* in MdlFormat order */
  static void (*const writers[]) (const MdlGpuExperiment *, GString *) = {
    write_markdown, write_json, write_csv,
  };
  g_return_if_fail (exp != NULL && out != NULL && (guint) format < G_N_ELEMENTS (writers));
  writers[format] (exp, out);
}

/* ---- gnuplot ---- */

/* The algorithms (names, in results order) of the points that some fit was made on. */
static GPtrArray *
fitted_algorithms (const MdlGpuExperiment *exp)
{
  GPtrArray *names = g_ptr_array_new ();
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      if (p->pub.fitted
          && !g_ptr_array_find_with_equal_func (names, p->algorithm, g_str_equal, NULL))
        g_ptr_array_add (names, p->algorithm);
    }
  return names;
}

/* gpu-fit.dat: block f x algorithms + a holds algorithm a's points of fit f: measured, predicted
 * and leave-one-algorithm-out time, n. */
static void
fit_data (const MdlGpuExperiment *exp, GPtrArray *algos, GString *dat)
{
  for (guint f = 0; f < GPU_N_FITS; f++)
    for (guint a = 0; a < algos->len; a++)
      {
        const char *name = g_ptr_array_index (algos, a);
        g_string_append_printf (dat, "%s# fit %s, %s: measured_us predicted_us loao_us n\n",
                                f + a ? "\n\n" : "", exp->fits[f].pub.name, name);
        /* a block with no point of its own: gnuplot skips "?" rows, and the index stays valid */
        g_string_append (dat, "? ? ? ?\n");
        for (guint i = 0; i < exp->points->len; i++)
          {
            const GpuPoint *p = GPU_POINT (exp, i);
            const double v[] = { p->pub.median_us, p->fit_us[f], p->loao_us[f] };
            if (!p->pub.fitted || !isfinite (p->fit_us[f]) || strcmp (p->algorithm, name) != 0)
              continue;
            for (guint k = 0; k < G_N_ELEMENTS (v); k++)
              {
                mdl_experiment_append_real (dat, v[k], "?");
                g_string_append_c (dat, ' ');
              }
            g_string_append_printf (dat, "%" G_GUINT64_FORMAT "\n", p->pub.n);
          }
      }
}

static void
fit_panels (const MdlGpuExperiment *exp, GPtrArray *algos, GString *gp)
{
  guint rows = (GPU_N_FITS + PLOT_COLUMNS - 1) / PLOT_COLUMNS;
  g_string_append_printf (gp, "set multiplot layout %u,%u title \"GPU experiment on %s: "
                          "predicted against measured median time (us), points fitted; the "
                          "diagonal is a perfect prediction\" font \",11\"\n", rows,
                          PLOT_COLUMNS, exp->machine);
  g_string_append (gp, "set datafile missing \"?\"\nset logscale xy\nset grid\n"
                   "set key top left font \",7\" samplen 1\nset xlabel \"measured us\"\n"
                   "set ylabel \"predicted us\"\nnames = \"");
  for (guint a = 0; a < algos->len; a++)
    g_string_append_printf (gp, "%s%s", a ? " " : "", (const char *) g_ptr_array_index (algos, a));
  g_string_append (gp, "\"\n");
  for (guint f = 0; f < GPU_N_FITS; f++)
    {
      const MdlGpuFitInfo *fit = &exp->fits[f].pub;
      g_string_append_printf (gp, "set title \"%s: R²", fit->name);
      cell_text (gp, "%.3f", fit->r2);
      g_string_append (gp, ", LOAO R²");
      cell_text (gp, "%.3f", fit->loao_r2);
      g_string_append (gp, "\" font \",10\"\n");
      /* gnuplot cannot autoscale a log axis over no point at all */
      if (fit->why || algos->len == 0)
        {
          g_string_append_printf (gp, "plot [1:10] [1:10] x title \"no fit: %s\"\n",
                                  fit->why ? fit->why : "no fitted points");
          continue;
        }
      g_string_append_printf (gp, "plot for [a=0:%u] 'gpu-fit.dat' index %u + a using 1:2 with "
                              "points pt 7 ps 0.5 title word(names, a + 1), x with lines lc rgb "
                              "\"gray\" notitle\n", algos->len - 1, f * algos->len);
    }
  g_string_append (gp, "unset multiplot\n");
}

/* gpu-time.dat: one block per group (algorithm and parameters, baselines left out): n, median,
 * fastest, slowest, the counters fit's time, CUB's time. */
static guint
time_data (const MdlGpuExperiment *exp, GString *dat, GPtrArray *titles)
{
  guint group = 0;
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      const double v[] = { p->pub.median_us, p->pub.min_us, p->pub.max_us,
                           p->fit_us[GPU_FIT_COUNTERS], p->pub.median_us / p->pub.cub_ratio };
      if (p->pub.baseline || !p->pub.measured)
        continue;
      if (group != p->group)
        {
          group = p->group;
          g_string_append_printf (dat, "%s# %s %s: n median_us min_us max_us counters_us "
                                  "cub_us\n", titles->len ? "\n\n" : "", p->algorithm, p->params);
          g_ptr_array_add (titles, g_strdup_printf ("%s%s%s", p->algorithm, *p->params ? " " : "",
                                                    p->params));
        }
      g_string_append_printf (dat, "%" G_GUINT64_FORMAT, p->pub.n);
      for (guint k = 0; k < G_N_ELEMENTS (v); k++)
        {
          g_string_append_c (dat, ' ');
          mdl_experiment_append_real (dat, v[k], "?");
        }
      g_string_append_c (dat, '\n');
    }
  return titles->len;
}

static void
time_panels (const MdlGpuExperiment *exp, GPtrArray *titles, GString *gp)
{
  guint n = titles->len, rows = MAX (1, (n + PLOT_COLUMNS - 1) / PLOT_COLUMNS);
  g_string_append_printf (gp, "set multiplot layout %u,%u title \"GPU experiment on %s: median "
                          "time (us) against n, log-log; bars: fastest to slowest\" font "
                          "\",11\"\n", rows, MAX (1, MIN (n, PLOT_COLUMNS)), exp->machine);
  g_string_append (gp, "set datafile missing \"?\"\nset logscale x 2\nset logscale y\n"
                   "set grid\nset offsets graph 0.03, graph 0.03, 0, 0\n"
                   "set key top left font \",7\" samplen 2\nset xlabel \"n\"\n"
                   "set ylabel \"us\"\nset format x \"2^{%L}\"\n");
  if (n == 0)
    g_string_append (gp, "set title \"no measured algorithm\"\nplot [1:10] [1:10] x notitle\n");
  for (guint g = 0; g < n; g++)
    g_string_append_printf (gp, "set title \"%s\" font \",10\"\n"
                            "plot 'gpu-time.dat' index %u using 1:2:3:4 with yerrorbars pt 7 "
                            "ps 0.5 lc rgb \"black\" title \"measured\", \\\n"
                            "     '' index %u using 1:5 with lines lw 2 lc rgb \"#d62728\" "
                            "title \"counters fit\", \\\n"
                            "     '' index %u using 1:6 with lines dt 2 lc rgb \"#1f77b4\" "
                            "title \"CUB\"\n", (const char *) g_ptr_array_index (titles, g), g,
                            g, g);
  g_string_append (gp, "unset multiplot\n");
}

gboolean
mdl_gpu_experiment_write_files (const MdlGpuExperiment *exp, const char *dir, GError **error)
{
  g_autoptr (GString) md = g_string_new (NULL), csv = g_string_new (NULL);
  g_autoptr (GString) fits = g_string_new (NULL), json = g_string_new (NULL);
  g_autoptr (GString) fit_dat = g_string_new (NULL), fit_gp = g_string_new (NULL);
  g_autoptr (GString) time_dat = g_string_new (NULL), time_gp = g_string_new (NULL);
  g_autoptr (GString) gp = g_string_new (NULL);
  g_autoptr (GPtrArray) algos = NULL;
  g_autoptr (GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  guint fit_rows = (GPU_N_FITS + PLOT_COLUMNS - 1) / PLOT_COLUMNS, time_rows;

  g_return_val_if_fail (exp != NULL && dir != NULL, FALSE);
  if (!mdl_experiment_make_dir (dir, error))
    return FALSE;
  write_markdown (exp, md);
  write_csv (exp, csv);
  write_fits_csv (exp, fits);
  write_json (exp, json);
  algos = fitted_algorithms (exp);
  fit_data (exp, algos, fit_dat);
  fit_panels (exp, algos, fit_gp);
  time_rows = time_data (exp, time_dat, titles);
  time_rows = MAX (1, (time_rows + PLOT_COLUMNS - 1) / PLOT_COLUMNS);
  time_panels (exp, titles, time_gp);
  g_string_append_printf (gp, "# Draws gpu-fit.png, gpu-time.png and their .svg twins from "
                          "gpu-fit.dat and gpu-time.dat: run `gnuplot gpu.gp` in this directory.\n"
                          "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-fit.png'\nload 'gpu-fit-panels.gp'\n"
                          "set terminal svg size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-fit.svg'\nload 'gpu-fit-panels.gp'\n"
                          "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-time.png'\nload 'gpu-time-panels.gp'\n"
                          "set terminal svg size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-time.svg'\nload 'gpu-time-panels.gp'\nunset output\n",
                          PLOT_COLUMNS * 420, fit_rows * 360 + 40, PLOT_COLUMNS * 420,
                          fit_rows * 360 + 40, PLOT_COLUMNS * 420, time_rows * 320 + 40,
                          PLOT_COLUMNS * 420, time_rows * 320 + 40);
  if (!mdl_gpu_sorting_write_files (exp, dir, gp, error)
      || !mdl_gpu_hull_write_files (exp, dir, gp, error))
    return FALSE;
  return mdl_experiment_write_file (dir, "gpu.md", md, error)
         && mdl_experiment_write_file (dir, "gpu.csv", csv, error)
         && mdl_experiment_write_file (dir, "gpu-fits.csv", fits, error)
         && mdl_experiment_write_file (dir, "gpu.json", json, error)
         && mdl_experiment_write_file (dir, "gpu-fit.dat", fit_dat, error)
         && mdl_experiment_write_file (dir, "gpu-time.dat", time_dat, error)
         && mdl_experiment_write_file (dir, "gpu-fit-panels.gp", fit_gp, error)
         && mdl_experiment_write_file (dir, "gpu-time-panels.gp", time_gp, error)
         && mdl_experiment_write_file (dir, "gpu.gp", gp, error);
}
