/* The writers of the CPU cost models (cpu-model.c): a Markdown section for the table, an object
 * for the JSON, two CSV files (per model and algorithm, per point) and the gnuplot data and
 * scripts of two figures: predicted against measured time per element, one panel per model, and
 * the thesis's Fig. 2.1 (time per element against n for its seven programs, one panel each) with
 * each model's leave-one-algorithm-out prediction as a line. */
#include <models/experiment.h>

#include "core/bytes.h"
#include "core/json.h"
#include "experiments/output.h"
#include "experiments/vat-private.h"

#include <math.h>
#include <string.h>

/* The thesis's seven programs (§2.1), the panels of the Fig. 2.1 plot when they were run. */
static const char *const thesis_programs[] = {
  "scan/seq", "scan/random", "permute/fisher-yates", "binsearch/sorted", "heap/heapify",
  "heap/sort", "quicksort/intro",
};

/* Rows of the predicted-against-measured panels: at most six panels a row stay readable at
 * 1500 pixels. */
#define MODEL_ROWS ((VAT_CPU_MODELS + 5) / 6)

static const char *const model_colors[VAT_CPU_MODELS] = {
  "#7f7f7f", "#d62728", "#1f77b4", "#9467bd", "#ff7f0e", "#2ca02c", "#8c564b",
  "#e377c2", "#17becf", "#bcbd22", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
  "#000000",
};

static void
cell (GString *out, const char *format, double v)
{
  g_string_append (out, " | ");
  if (isnan (v))
    g_string_append (out, "-");
  else
    g_string_append_printf (out, format, v);
}

/* Per RAM operation of algorithm @name over its 4 KiB points: its mispredictions (what the
 * hierarchy model's mispredict term multiplies) in @mispredicts, and the share of the misses
 * no stream continues that are dependent loads', per level, in @dependent (NaN: no such miss). */
static void
per_algo_counts (const MdlVatExperiment *exp, const char *name, double *mispredicts,
                 double dependent[VAT_EM_LEVELS])
{
  guint64 n_mispredicts = 0, ops = 0, misses[VAT_EM_LEVELS] = { 0 }, dep[VAT_EM_LEVELS] = { 0 };
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      if (p->huge_pages || strcmp (p->algorithm, name) != 0)
        continue;
      n_mispredicts += p->mispredicts;
      ops += p->ram_ops;
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        misses[l] += p->random_misses[l], dep[l] += p->dependent_misses[l];
    }
  *mispredicts = ops ? (double) n_mispredicts / (double) ops : NAN;
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    dependent[l] = misses[l] ? (double) dep[l] / (double) misses[l] : NAN;
}

void
mdl_vat_cpu_write_table (const MdlVatExperiment *exp, GString *out)
{
  const VatCpuModel *h = &exp->cpu[VAT_CPU_MODELS - 1];
  g_autofree char *split = NULL;
  if (exp->cpu[0].algos == NULL)
    return;
  split = mdl_bytes_text (exp->split_bytes);
  g_string_append_printf (out, "\nCost models of time per element, one set of coefficients for "
                          "every algorithm (NNLS on ns per operation), validated on points the fit "
                          "never saw: leave one algorithm out (LOAO), and fit below %s to predict "
                          "the rest (split):\n\n", split);
  g_string_append (out, "| model | terms | R^2 fit | R^2 LOAO | R^2 split | LOAO median err | "
                   "LOAO worst err |\n|---|---|---|---|---|---|---|\n");
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    {
      const VatCpuModel *cm = &exp->cpu[m];
      g_string_append_printf (out, "| %s | %u", cm->name, cm->n_terms);
      cell (out, "%.3f", cm->r2_fit);
      cell (out, "%.3f", cm->r2_loao);
      cell (out, "%.3f", cm->r2_split);
      cell (out, "%.1f%%", 100 * cm->loao_median);
      cell (out, "%.0f%%", 100 * cm->loao_max);
      g_string_append (out, " |\n");
    }
  g_string_append (out, "\nPer algorithm, median / worst relative error of the LOAO prediction "
                   "(and of the split's, sizes at or above the split):\n\n| algorithm");
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    g_string_append_printf (out, " | %s", exp->cpu[m].name);
  g_string_append (out, " | hierarchy split | hierarchy: unexplained ns/op within L2 | "
                   "mispredicts per op | dependent share of L1 / L2 / L3 random misses |\n|---");
  for (guint m = 0; m <= VAT_CPU_MODELS + 3; m++)
    g_string_append (out, "|---");
  g_string_append (out, "|\n");
  for (guint a = 0; a < exp->n_algos; a++)
    {
      g_string_append_printf (out, "| %s", exp->algo_names[a]);
      for (guint m = 0; m < VAT_CPU_MODELS; m++)
        {
          const VatCpuAlgo *e = &exp->cpu[m].algos[a];
          g_string_append (out, " | ");
          if (isnan (e->loao_median))
            g_string_append (out, "-");
          else
            g_string_append_printf (out, "%.0f%% / %.0f%%", 100 * e->loao_median,
                                    100 * e->loao_max);
        }
      g_string_append (out, " | ");
      if (isnan (h->algos[a].split_median))
        g_string_append (out, "-");
      else
        g_string_append_printf (out, "%.0f%% / %.0f%%", 100 * h->algos[a].split_median,
                                100 * h->algos[a].split_max);
      {
        double mispredicts, dependent[VAT_EM_LEVELS];
        per_algo_counts (exp, exp->algo_names[a], &mispredicts, dependent);
        cell (out, "%+.3f", h->algos[a].unexplained_op_ns);
        cell (out, "%.3f", mispredicts);
        g_string_append (out, " |");
        for (guint l = 0; l < VAT_EM_LEVELS; l++)
          {
            g_string_append (out, l ? " / " : " ");
            if (isnan (dependent[l]))
              g_string_append (out, "-");
            else
              g_string_append_printf (out, "%.2f", dependent[l]);
          }
      }
      g_string_append (out, " |\n");
    }
  g_string_append (out, "\nThe hierarchy model's coefficients (fit on every point) beside what "
                   "the probe measured in the same run:\n\n| term | ns per event | probe | "
                   "probe ns | ratio |\n|---|---|---|---|---|\n");
  for (guint t = 0; t < h->n_terms; t++)
    {
      const char *what = NULL;
      double probe = mdl_vat_cpu_term_probe (exp, h->terms[t], &what);
      g_string_append_printf (out, "| %s", mdl_vat_cpu_term_name (h->terms[t]));
      cell (out, "%.3f", h->coef[t]);
      g_string_append_printf (out, " | %s", what);
      cell (out, "%.2f", probe);
      cell (out, "%.2f", probe > 0 ? h->coef[t] / probe : NAN);
      g_string_append (out, " |\n");
    }
  {
    static const char *const where[5] = { "L1", "L2", "L3", "memory, 2 MiB pages asked",
                                           "memory, 4 KiB pages" };
    g_string_append (out, "\nProbe, dependent chase:");
    for (guint i = 0; i < 5; i++)
      {
        g_autofree char *size = mdl_bytes_text (exp->probe.chase_bytes[i]);
        g_string_append_printf (out, "%s %.2f ns (%s, %s)", i ? "," : "", exp->probe.chase_ns[i],
                                where[i], size);
      }
    g_string_append (out, "; independent random loads (same buffers):");
    for (guint i = 0; i < 5; i++)
      g_string_append_printf (out, "%s %.2f ns (%s)", i ? "," : "", exp->probe.random_ns[i],
                              where[i]);
    g_string_append_printf (out, "; sequential read %.2f ns per line; branch misprediction "
                            "%.2f ns\n", exp->probe.stream_ns, exp->probe.mispredict_ns);
  }
  g_string_append (out, "\nSlopes of normalized time (ns per op per doubling of n) beyond the "
                   "TLB reach, measured and as the hierarchy model predicts it (LOAO):\n\n"
                   "| algorithm | measured | hierarchy | ratio |\n|---|---|---|---|\n");
  for (guint a = 0; a < exp->n_algos; a++)
    {
      const VatCpuAlgo *e = &h->algos[a];
      g_string_append_printf (out, "| %s", exp->algo_names[a]);
      cell (out, "%+.3f", e->slope_measured);
      cell (out, "%+.3f", e->slope_loao);
      cell (out, "%.2f", e->slope_loao / e->slope_measured);
      g_string_append (out, " |\n");
    }
}

static void
json_real (GString *out, const char *key, double v)
{
  g_string_append_printf (out, "\"%s\": ", key);
  mdl_experiment_append_real (out, v, "null");
}

void
mdl_vat_cpu_write_json (const MdlVatExperiment *exp, GString *out)
{
  g_string_append (out, "{\"split_bytes\": ");
  g_string_append_printf (out, "%" G_GUINT64_FORMAT ", \"probe\": {\"chase_ns\": [",
                          exp->split_bytes);
  for (guint i = 0; i < 5; i++)
    {
      g_string_append (out, i ? ", " : "");
      mdl_experiment_append_real (out, exp->probe.chase_ns[i], "null");
    }
  g_string_append (out, "], \"chase_bytes\": [");
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (out, "%s%" G_GUINT64_FORMAT, i ? ", " : "",
                            exp->probe.chase_bytes[i]);
  g_string_append (out, "], \"random_ns\": [");
  for (guint i = 0; i < 5; i++)
    {
      g_string_append (out, i ? ", " : "");
      mdl_experiment_append_real (out, exp->probe.random_ns[i], "null");
    }
  g_string_append (out, "], ");
  json_real (out, "stream_ns", exp->probe.stream_ns);
  g_string_append (out, ", ");
  json_real (out, "mispredict_ns", exp->probe.mispredict_ns);
  g_string_append (out, "},\n    \"models\": [");
  for (guint m = 0; m < VAT_CPU_MODELS && exp->cpu[m].algos; m++)
    {
      const VatCpuModel *cm = &exp->cpu[m];
      g_string_append (out, m ? ",\n      {\"name\": " : "\n      {\"name\": ");
      mdl_json_string (out, cm->name);
      g_string_append (out, ", \"description\": ");
      mdl_json_string (out, cm->description);
      g_string_append (out, ", \"terms\": [");
      for (guint t = 0; t < cm->n_terms; t++)
        {
          const char *what = NULL;
          double probe = mdl_vat_cpu_term_probe (exp, cm->terms[t], &what);
          g_string_append_printf (out, "%s{\"term\": \"%s\", ", t ? ", " : "",
                                  mdl_vat_cpu_term_name (cm->terms[t]));
          json_real (out, "ns", cm->coef[t]);
          g_string_append (out, ", \"probe\": ");
          mdl_json_string (out, what);
          g_string_append (out, ", ");
          json_real (out, "probe_ns", probe);
          g_string_append (out, "}");
        }
      g_string_append (out, "], ");
      json_real (out, "r2_fit", cm->r2_fit);
      g_string_append (out, ", ");
      json_real (out, "r2_loao", cm->r2_loao);
      g_string_append (out, ", ");
      json_real (out, "r2_split", cm->r2_split);
      g_string_append (out, ", ");
      json_real (out, "loao_median_rel_error", cm->loao_median);
      g_string_append (out, ", ");
      json_real (out, "loao_max_rel_error", cm->loao_max);
      g_string_append (out, ", \"algorithms\": [");
      for (guint a = 0; a < exp->n_algos; a++)
        {
          const VatCpuAlgo *e = &cm->algos[a];
          g_string_append (out, a ? ", {\"algorithm\": " : "{\"algorithm\": ");
          mdl_json_string (out, exp->algo_names[a]);
          g_string_append (out, ", ");
          json_real (out, "loao_median", e->loao_median);
          g_string_append (out, ", ");
          json_real (out, "loao_max", e->loao_max);
          g_string_append (out, ", ");
          json_real (out, "split_median", e->split_median);
          g_string_append (out, ", ");
          json_real (out, "split_max", e->split_max);
          g_string_append (out, ", ");
          json_real (out, "slope_large_measured", e->slope_measured);
          g_string_append (out, ", ");
          json_real (out, "slope_large_loao", e->slope_loao);
          g_string_append (out, ", ");
          json_real (out, "unexplained_op_ns", e->unexplained_op_ns);
          g_string_append (out, "}");
        }
      g_string_append (out, "]}");
    }
  g_string_append (out, "\n    ]}");
}

static void
csv_real (GString *out, double v)
{
  g_string_append_c (out, ',');
  mdl_experiment_append_real (out, v, "");
}

/* vat-models.csv: one row per model and algorithm, and a row "all" per model. */
static void
write_models_csv (const MdlVatExperiment *exp, GString *out)
{
  g_string_append (out, "model,algorithm,r2_fit,r2_loao,r2_split,loao_median_rel_error,"
                   "loao_max_rel_error,split_median_rel_error,split_max_rel_error,"
                   "slope_large_measured,slope_large_loao,unexplained_op_ns\n");
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    {
      const VatCpuModel *cm = &exp->cpu[m];
      g_string_append_printf (out, "%s,all", cm->name);
      csv_real (out, cm->r2_fit);
      csv_real (out, cm->r2_loao);
      csv_real (out, cm->r2_split);
      csv_real (out, cm->loao_median);
      csv_real (out, cm->loao_max);
      g_string_append (out, ",,,,,\n");
      for (guint a = 0; a < exp->n_algos; a++)
        {
          const VatCpuAlgo *e = &cm->algos[a];
          g_string_append_printf (out, "%s,%s,,,", cm->name, exp->algo_names[a]);
          csv_real (out, e->loao_median);
          csv_real (out, e->loao_max);
          csv_real (out, e->split_median);
          csv_real (out, e->split_max);
          csv_real (out, e->slope_measured);
          csv_real (out, e->slope_loao);
          csv_real (out, e->unexplained_op_ns);
          g_string_append_c (out, '\n');
        }
    }
}

/* vat-models-points.csv: per point of the main series, the pages its arrays asked for (2M: the
 * matrix products where the kernel grants them) and the share granted, measured ns per element
 * and each model's predictions. */
static void
write_points_csv (const MdlVatExperiment *exp, GString *out)
{
  g_string_append (out, "algorithm,n,bytes,pages,huge_granted,measured_ns_per_elem");
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    g_string_append_printf (out, ",%s_fit,%s_loao,%s_split", exp->cpu[m].name,
                            exp->cpu[m].name, exp->cpu[m].name);
  g_string_append_c (out, '\n');
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      if (p->huge_pages)
        continue;
      g_string_append_printf (out, "%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s",
                              p->algorithm, p->n, p->bytes, p->huge_asked ? "2M" : "4K");
      csv_real (out, p->huge_granted);
      csv_real (out, p->seconds * 1e9 / (double) p->n);
      for (guint m = 0; m < VAT_CPU_MODELS; m++)
        {
          csv_real (out, exp->cpu[m].fit_ns[i]);
          csv_real (out, exp->cpu[m].loao_ns[i]);
          csv_real (out, exp->cpu[m].split_ns[i]);
        }
      g_string_append_c (out, '\n');
    }
}

/* vat-models.dat: one block per algorithm: log2 n, measured ns per element, then each model's
 * LOAO prediction. */
static void
write_plot_data (const MdlVatExperiment *exp, GString *out)
{
  for (guint a = 0; a < exp->n_algos; a++)
    {
      g_string_append_printf (out, "%s# %s: log2_n measured", a ? "\n\n" : "", exp->algo_names[a]);
      for (guint m = 0; m < VAT_CPU_MODELS; m++)
        g_string_append_printf (out, " %s_loao", exp->cpu[m].name);
      g_string_append_c (out, '\n');
      for (guint i = 0; i < exp->points->len; i++)
        {
          const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
          if (p->huge_pages || strcmp (p->algorithm, exp->algo_names[a]) != 0)
            continue;
          mdl_experiment_append_real (out, log2 ((double) p->n), "?");
          g_string_append_c (out, ' ');
          mdl_experiment_append_real (out, p->seconds * 1e9 / (double) p->n, "?");
          for (guint m = 0; m < VAT_CPU_MODELS; m++)
            {
              g_string_append_c (out, ' ');
              mdl_experiment_append_real (out, exp->cpu[m].loao_ns[i], "?");
            }
          g_string_append_c (out, '\n');
        }
    }
}

/* The scripts: vat-models.png (predicted against measured, a panel per model, a colour per
 * algorithm) and vat-fig21.png (the thesis's programs against n, a line per model). */
static void
write_scripts (const MdlVatExperiment *exp, GString *gp)
{
  guint n_thesis = 0;
  g_string_append_printf (gp, "# Draws vat-models.png and vat-fig21.png from vat-models.dat: run "
                          "`gnuplot vat-models.gp` in this directory.\n"
                          "set datafile missing \"?\"\nset grid\nset logscale xy\n"
                          "set terminal pngcairo size 1500,%d font \"sans,9\"\n"
                          "set output 'vat-models.png'\n"
                          "set multiplot layout %d,%d title \"%s: predicted (leave one algorithm "
                          "out) against measured ns per element\"\n"
                          "set key off\nset xlabel \"measured ns / element\"\n"
                          "set ylabel \"predicted\"\n", 360 * MODEL_ROWS, MODEL_ROWS,
                          (VAT_CPU_MODELS + MODEL_ROWS - 1) / MODEL_ROWS, exp->cpu_model);
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    {
      g_string_append_printf (gp, "set title \"%s (LOAO R^2 %.3f)\"\nplot x with lines lc rgb "
                              "\"black\"", exp->cpu[m].name, exp->cpu[m].r2_loao);
      for (guint a = 0; a < exp->n_algos; a++)
        g_string_append_printf (gp, ", 'vat-models.dat' index %u using 2:%u with points pt 7 "
                                "ps 0.5", a, 3 + m);
      g_string_append_c (gp, '\n');
    }
  g_string_append (gp, "unset multiplot\nunset logscale\nset logscale y\n");
  for (guint t = 0; t < G_N_ELEMENTS (thesis_programs); t++)
    for (guint a = 0; a < exp->n_algos; a++)
      n_thesis += strcmp (exp->algo_names[a], thesis_programs[t]) == 0;
  if (n_thesis == 0)
    return;
  g_string_append_printf (gp, "set terminal pngcairo size %u,380 font \"sans,9\"\n"
                          "set output 'vat-fig21.png'\nset multiplot layout 1,%u title \"%s: "
                          "time per element against n (the thesis's Fig. 2.1), points measured, "
                          "lines each model's leave-one-algorithm-out prediction\"\n"
                          "set key top left font \",7\"\nset xlabel \"log2 n\"\n"
                          "set ylabel \"ns / element\"\n", 300 * n_thesis, n_thesis,
                          exp->cpu_model);
  for (guint t = 0; t < G_N_ELEMENTS (thesis_programs); t++)
    for (guint a = 0; a < exp->n_algos; a++)
      if (strcmp (exp->algo_names[a], thesis_programs[t]) == 0)
        {
          g_string_append_printf (gp, "set title \"%s\"\nplot 'vat-models.dat' index %u using 1:2 "
                                  "with points pt 7 ps 0.6 lc rgb \"black\" title \"measured\"",
                                  exp->algo_names[a], a);
          for (guint m = 0; m < VAT_CPU_MODELS; m++)
            g_string_append_printf (gp, ", '' index %u using 1:%u with lines lw 1.5 lc rgb \"%s\" "
                                    "title \"%s\"", a, 3 + m, model_colors[m], exp->cpu[m].name);
          g_string_append_c (gp, '\n');
        }
  g_string_append (gp, "unset multiplot\n");
}

gboolean
mdl_vat_cpu_write_files (const MdlVatExperiment *exp, const char *dir, GError **error)
{
  g_autoptr (GString) models_csv = g_string_new (NULL);
  g_autoptr (GString) points_csv = g_string_new (NULL);
  g_autoptr (GString) dat = g_string_new (NULL);
  g_autoptr (GString) gp = g_string_new (NULL);
  if (exp->cpu[0].algos == NULL)
    return TRUE;
  write_models_csv (exp, models_csv);
  write_points_csv (exp, points_csv);
  write_plot_data (exp, dat);
  write_scripts (exp, gp);
  return mdl_experiment_write_file (dir, "vat-models.csv", models_csv, error)
         && mdl_experiment_write_file (dir, "vat-models-points.csv", points_csv, error)
         && mdl_experiment_write_file (dir, "vat-models.dat", dat, error)
         && mdl_experiment_write_file (dir, "vat-models.gp", gp, error);
}
