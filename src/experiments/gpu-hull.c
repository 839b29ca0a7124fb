/* The hull's part of a GPU experiment's report (docs/experiments/hull.md): every measured case of
 * the hull problem (hull/... and the quickhull baseline) by point distribution and n, with its
 * time over the quickhull's on the same distribution and n, and the time the fits predict for it:
 * each fit made over every fitted case, the hull's among them, and made without the hull (leave
 * one algorithm out: what the GPU experiment predicts for an algorithm it was not fitted on); a
 * row per case, then the hulls side by side, then each fit's errors on the hull. Two gnuplot
 * figures: time against n, one panel per distribution and one series per hull (its label: the
 * name and the parameters less dist), log-log; and each fit's predictions against the measured
 * time, one colour per distribution. A hull is labelled by its name and parameters less dist; a
 * case that names no dist ran on the disc, the default of both twins and of the baseline. */
#include "experiments/gpu-experiment-private.h"
#include "experiments/output.h"

#include "algos/points.h"

#include <math.h>
#include <string.h>

#define DEFAULT_DIST "disc"
#define PANEL_COLUMNS 3
/* The fits whose prediction the figure shows: every fit of predicted costs (the last fit takes
 * Nsight Compute's counts, which no hull case has). */
#define PREDICTED_FITS (GPU_FIT_COUNTERS + 1)

static const char *const dist_names[] = {
#define NAME_OF(name, what) name,
  MDL_POINT_DISTS (NAME_OF)
#undef NAME_OF
  "other"
};
#define N_DISTS (G_N_ELEMENTS (dist_names) - 1)

gboolean
mdl_gpu_is_hull (const char *algorithm)
{
  return g_str_has_prefix (algorithm, "hull/") || strcmp (algorithm, MDL_GPU_QUICKHULL) == 0;
}

/* A measured hull point with its distribution and label. */
typedef struct {
  const GpuPoint *p;
  char *label;
  guint dist;                /* index in dist_names; N_DISTS for a name points.h lacks */
} HullRow;

static void
hull_row_clear (gpointer data)
{
  g_free (((HullRow *) data)->label);
}

static gint
hull_row_order (gconstpointer a, gconstpointer b)
{
  const HullRow *x = a, *y = b;
  if (x->dist != y->dist)
    return x->dist < y->dist ? -1 : 1;
  if (x->p->pub.n != y->p->pub.n)
    return x->p->pub.n < y->p->pub.n ? -1 : 1;
  return strcmp (x->label, y->label);
}

/* The measured hull points of @exp, by distribution, n and label. */
static GArray *
hull_rows (const MdlGpuExperiment *exp)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (HullRow));
  g_array_set_clear_func (rows, hull_row_clear);
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      g_autofree char *dist = NULL;
      HullRow r = { p, NULL, 0 };
      if (!p->pub.measured || !mdl_gpu_is_hull (p->algorithm))
        continue;
      dist = mdl_gpu_param (p->params, "dist", DEFAULT_DIST);
      while (r.dist < N_DISTS && strcmp (dist_names[r.dist], dist) != 0)
        r.dist++;
      r.label = mdl_gpu_label (p->algorithm, p->params);
      g_array_append_val (rows, r);
    }
  g_array_sort (rows, hull_row_order);
  return rows;
}

/* @row's time over the quickhull's on the same distribution and n; NaN when not measured. */
static double
quickhull_ratio (GArray *rows, const HullRow *row)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const HullRow *q = &g_array_index (rows, HullRow, i);
      if (q->dist == row->dist && q->p->pub.n == row->p->pub.n
          && strcmp (q->p->algorithm, MDL_GPU_QUICKHULL) == 0)
        return row->p->pub.median_us / q->p->pub.median_us;
    }
  return NAN;
}

/* The median and the largest relative error of fit @f's predictions of the hull's fitted cases,
 * left out (@loao) or fitted with them; the cases it predicted in @count. */
static void
hull_errors (GArray *rows, guint f, gboolean loao, guint *count, double *median, double *max)
{
  g_autoptr (GArray) rel = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < rows->len; i++)
    {
      const GpuPoint *p = g_array_index (rows, HullRow, i).p;
      double t = loao ? p->loao_us[f] : p->fit_us[f];
      if (p->pub.fitted && isfinite (t))
        {
          double e = fabs (t - p->pub.median_us) / p->pub.median_us;
          g_array_append_val (rel, e);
        }
    }
  *count = rel->len;
  mdl_gpu_median_max (rel, median, max);
}

static gint
cmp_label (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The labels of @rows, in label order, each once. */
static GPtrArray *
hull_labels (GArray *rows)
{
  GPtrArray *labels = g_ptr_array_new ();
  for (guint i = 0; i < rows->len; i++)
    {
      char *label = g_array_index (rows, HullRow, i).label;
      if (!g_ptr_array_find_with_equal_func (labels, label, g_str_equal, NULL))
        g_ptr_array_add (labels, label);
    }
  g_ptr_array_sort (labels, cmp_label);
  return labels;
}

/* The row of @rows at distribution @dist, size @n and label @label, or NULL. */
static const HullRow *
row_at (GArray *rows, guint dist, guint64 n, const char *label)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const HullRow *r = &g_array_index (rows, HullRow, i);
      if (r->dist == dist && r->p->pub.n == n && strcmp (r->label, label) == 0)
        return r;
    }
  return NULL;
}

/* The table by distribution and n: each hull's time, its ratio to the quickhull's and its LOAO
 * prediction side by side, in ms. */
static void
write_side_by_side (GArray *rows, GPtrArray *labels, GString *out)
{
  g_string_append (out, "\n### Hulls side by side (ms)\n\nMeasured median time, time over the "
                   "quickhull's (x), and the counters fit's prediction without the hull's cases "
                   "(LOAO).\n\n| dist | n");
  for (guint a = 0; a < labels->len; a++)
    {
      const char *label = g_ptr_array_index (labels, a);
      g_string_append_printf (out, " | %s", label);
      if (strcmp (label, MDL_GPU_QUICKHULL) != 0)
        g_string_append (out, " | x | LOAO");
    }
  g_string_append (out, " |\n|---|--:");
  for (guint a = 0; a < labels->len; a++)
    g_string_append (out, strcmp (g_ptr_array_index (labels, a), MDL_GPU_QUICKHULL) == 0
                          ? "|--:" : "|--:|--:|--:");
  g_string_append (out, "|\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const HullRow *first = &g_array_index (rows, HullRow, i);
      if (i > 0 && first->dist == g_array_index (rows, HullRow, i - 1).dist
          && first->p->pub.n == g_array_index (rows, HullRow, i - 1).p->pub.n)
        continue;
      g_string_append_printf (out, "| %s | ", dist_names[first->dist]);
      mdl_gpu_append_n (out, first->p->pub.n);
      for (guint a = 0; a < labels->len; a++)
        {
          const char *label = g_ptr_array_index (labels, a);
          const HullRow *r = row_at (rows, first->dist, first->p->pub.n, label);
          mdl_gpu_cell (out, "%.2f", r ? r->p->pub.median_us / 1000 : NAN);
          if (strcmp (label, MDL_GPU_QUICKHULL) == 0)
            continue;
          mdl_gpu_cell (out, "%.2f", r ? quickhull_ratio (rows, r) : NAN);
          mdl_gpu_cell (out, "%.2f", r ? r->p->loao_us[GPU_FIT_COUNTERS] / 1000 : NAN);
        }
      g_string_append (out, " |\n");
    }
}

void
mdl_gpu_hull_write_markdown (const MdlGpuExperiment *exp, GString *out)
{
  g_autoptr (GArray) rows = hull_rows (exp);
  g_autoptr (GPtrArray) labels = NULL;
  if (rows->len == 0)
    return;
  labels = hull_labels (rows);
  g_string_append (out, "\n## Hulls\n\nEvery measured hull by point distribution and n: median "
                   "time, M points per second (n / time), time over the quickhull baseline's on "
                   "the same distribution and n (xquickhull), and the time the counters fit "
                   "predicts: fitted on every case, the hull's among them (fit), and on the other "
                   "algorithms only (LOAO: the hull left out), with the LOAO error. Launches: "
                   "those of one run, measured / the SIMT twin's (its points are another draw of "
                   "the same distribution).\n\n"
                   "| hull | dist | n | time us | M points/s | xquickhull | launches | "
                   "counters fit us | LOAO us | LOAO error |\n"
                   "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const HullRow *r = &g_array_index (rows, HullRow, i);
      const GpuPoint *p = r->p;
      double loao = p->loao_us[GPU_FIT_COUNTERS];
      g_string_append_printf (out, "| %s | %s | ", r->label, dist_names[r->dist]);
      mdl_gpu_append_n (out, p->pub.n);
      mdl_gpu_cell (out, "%.2f", p->pub.median_us);
      if (!p->pub.cuda_check)
        g_string_append (out, " FAILED CHECK");
      mdl_gpu_cell (out, "%.1f", (double) p->pub.n / p->pub.median_us);
      mdl_gpu_cell (out, "%.3f", quickhull_ratio (rows, r));
      g_string_append_printf (out, " | %u", p->pub.launches);
      if (p->pub.predicted)
        g_string_append_printf (out, " / %.0f", p->cost[GPU_COST_LAUNCHES]);
      mdl_gpu_cell (out, "%.2f", p->fit_us[GPU_FIT_COUNTERS]);
      mdl_gpu_cell (out, "%.2f", loao);
      mdl_gpu_cell (out, "%+.0f%%", 100 * (loao - p->pub.median_us) / p->pub.median_us);
      g_string_append (out, " |\n");
    }
  write_side_by_side (rows, labels, out);
  g_string_append (out, "\n### Each fit's error on the hull's fitted cases\n\n"
                   "Relative error |predicted - measured| / measured, median and largest, of the "
                   "fit made with the hull's cases and of the fit made without them (LOAO).\n\n"
                   "| fit | cases | median error | max error | LOAO cases | LOAO median error | "
                   "LOAO max error |\n|---|--:|--:|--:|--:|--:|--:|\n");
  for (guint f = 0; f < PREDICTED_FITS; f++)
    {
      guint count, loao_count;
      double median, max, loao_median, loao_max;
      hull_errors (rows, f, FALSE, &count, &median, &max);
      hull_errors (rows, f, TRUE, &loao_count, &loao_median, &loao_max);
      g_string_append_printf (out, "| %s | %u", exp->fits[f].pub.name, count);
      mdl_gpu_cell (out, "%.1f%%", 100 * median);
      mdl_gpu_cell (out, "%.1f%%", 100 * max);
      g_string_append_printf (out, " | %u", loao_count);
      mdl_gpu_cell (out, "%.1f%%", 100 * loao_median);
      mdl_gpu_cell (out, "%.1f%%", 100 * loao_max);
      g_string_append (out, " |\n");
    }
}

/* The distributions of @rows, ascending, each once. */
static GArray *
hull_dists (GArray *rows)
{
  GArray *dists = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < rows->len; i++)
    {
      guint d = g_array_index (rows, HullRow, i).dist;
      if (dists->len == 0 || g_array_index (dists, guint, dists->len - 1) != d)
        g_array_append_val (dists, d);
    }
  return dists;
}

/* TRUE when fit @f predicts hull case @p, with its cases or without them. */
static gboolean
fit_predicts (const GpuPoint *p, guint f)
{
  return p->pub.fitted && (isfinite (p->loao_us[f]) || isfinite (p->fit_us[f]));
}

/* The smallest and the largest time, measured or predicted by fit @f, of the hull's cases it
 * predicts. */
static void
fit_range (GArray *rows, guint f, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const GpuPoint *p = g_array_index (rows, HullRow, i).p;
      const double v[] = { p->pub.median_us, p->loao_us[f], p->fit_us[f] };
      for (guint k = 0; k < G_N_ELEMENTS (v) && fit_predicts (p, f); k++)
        if (isfinite (v[k]))
          {
            *lo = MIN (*lo, v[k]);
            *hi = MAX (*hi, v[k]);
          }
    }
}

/* The GPU that ran @exp's cases, or its machine preset. */
static const char *
device_of (const MdlGpuExperiment *exp)
{
  return exp->measured && *exp->measured->device ? exp->measured->device : exp->machine;
}

/* gpu-hull-time.dat, block (distribution k, label a) = k x labels + a: n, median, fastest,
 * slowest; and its panels. */
static void
time_figure (const MdlGpuExperiment *exp, GArray *rows, GArray *dists, GPtrArray *labels,
             GString *dat, GString *gp)
{
  guint block = 0, panel_rows = MAX (1, (dists->len + PANEL_COLUMNS - 1) / PANEL_COLUMNS);
  for (guint k = 0; k < dists->len; k++)
    for (guint a = 0; a < labels->len; a++)
      {
        guint d = g_array_index (dists, guint, k);
        const char *label = g_ptr_array_index (labels, a);
        g_string_append_printf (dat, "%s# %s %s: n median_us min_us max_us\n? ? ? ?\n",
                                block++ ? "\n\n" : "", label, dist_names[d]);
        for (guint i = 0; i < rows->len; i++)
          {
            const HullRow *r = &g_array_index (rows, HullRow, i);
            const double v[] = { r->p->pub.median_us, r->p->pub.min_us, r->p->pub.max_us };
            if (r->dist != d || strcmp (r->label, label) != 0)
              continue;
            g_string_append_printf (dat, "%" G_GUINT64_FORMAT, r->p->pub.n);
            for (guint j = 0; j < G_N_ELEMENTS (v); j++)
              {
                g_string_append_c (dat, ' ');
                mdl_experiment_append_real (dat, v[j], "?");
              }
            g_string_append_c (dat, '\n');
          }
      }
  g_string_append_printf (gp, "set multiplot layout %u,%u title \"Hulls on %s: median time (us) "
                          "against n, log-log; bars: fastest to slowest\" font \",11\"\n",
                          panel_rows, MIN (dists->len, PANEL_COLUMNS), device_of (exp));
  /* the figures before this one in gpu.gp leave their axes set */
  g_string_append (gp, "set datafile missing \"?\"\nunset logscale\nset autoscale xy\n"
                   "set xtics autofreq\nset logscale x 2\nset logscale y\nset grid\n"
                   "set offsets graph 0.03, graph 0.03, 0, 0\n"
                   "set key top left font \",8\" samplen 2\nset xlabel \"n\"\nset ylabel \"us\"\n"
                   "set format x \"2^{%L}\"\nnames = \"");
  for (guint a = 0; a < labels->len; a++)
    g_string_append_printf (gp, "%s%s", a ? " " : "", (const char *) g_ptr_array_index (labels, a));
  g_string_append (gp, "\"\n");
  for (guint k = 0; k < dists->len; k++)
    g_string_append_printf (gp, "set title \"%s\" font \",10\"\nplot for [a=0:%u] "
                            "'gpu-hull-time.dat' index %u + a using 1:2:3:4 with yerrorlines "
                            "pt (a %% 13 + 5) ps 0.7 title word(names, a + 1)\n",
                            dist_names[g_array_index (dists, guint, k)], labels->len - 1,
                            k * labels->len);
  g_string_append (gp, "unset multiplot\n");
}

/* Appends to @gp the title of fit @f's panel: its median relative errors on the hull's cases. */
static void
fit_title (const MdlGpuExperiment *exp, GArray *rows, guint f, GString *gp)
{
  guint count;
  double median, max;
  g_string_append_printf (gp, "set title \"%s:", exp->fits[f].pub.name);
  hull_errors (rows, f, TRUE, &count, &median, &max);
  if (count)
    g_string_append_printf (gp, " LOAO %.0f%%,", 100 * median);
  hull_errors (rows, f, FALSE, &count, &median, &max);
  if (count)
    g_string_append_printf (gp, " fitted with the hull %.0f%%", 100 * median);
  g_string_append (gp, "\" font \",10\"\n");
}

/* gpu-hull-fit.dat, block (fit f, distribution k) = f x distributions + k: measured, the
 * prediction of the fit without the hull's cases (LOAO) and with them, n; and its panels, one per
 * fit: LOAO filled, with the hull open, a colour per distribution. */
static void
fit_figure (const MdlGpuExperiment *exp, GArray *rows, GArray *dists, GString *dat, GString *gp)
{
  guint block = 0, panel_rows = (PREDICTED_FITS + PANEL_COLUMNS - 1) / PANEL_COLUMNS;
  for (guint f = 0; f < PREDICTED_FITS; f++)
    for (guint k = 0; k < dists->len; k++)
      {
        guint d = g_array_index (dists, guint, k);
        g_string_append_printf (dat, "%s# fit %s, %s: measured_us loao_us fit_us n\n? ? ? ?\n",
                                block++ ? "\n\n" : "", exp->fits[f].pub.name, dist_names[d]);
        for (guint i = 0; i < rows->len; i++)
          {
            const HullRow *r = &g_array_index (rows, HullRow, i);
            const double v[] = { r->p->pub.median_us, r->p->loao_us[f], r->p->fit_us[f] };
            if (r->dist != d || !fit_predicts (r->p, f))
              continue;
            for (guint j = 0; j < G_N_ELEMENTS (v); j++)
              {
                mdl_experiment_append_real (dat, v[j], "?");
                g_string_append_c (dat, ' ');
              }
            g_string_append_printf (dat, "%" G_GUINT64_FORMAT "\n", r->p->pub.n);
          }
      }
  g_string_append_printf (gp, "set multiplot layout %u,%u title \"Hulls on %s: each fit's "
                          "predicted against the measured median time (us), titles: median errors\\nfilled: fitted "
                          "without the hull's cases (LOAO); open: with them; the diagonal is a "
                          "perfect prediction\" font \",11\"\n", panel_rows, PANEL_COLUMNS,
                          device_of (exp));
  g_string_append (gp, "set datafile missing \"?\"\nset autoscale xy\nset logscale xy\n"
                   "set format x \"%g\"\nset grid\nset offsets 0, 0, 0, 0\n"
                   "set key top left font \",8\" samplen 1\n"
                   "set xlabel \"measured us\"\nset ylabel \"predicted us\"\nnames = \"");
  for (guint k = 0; k < dists->len; k++)
    g_string_append_printf (gp, "%s%s", k ? " " : "", dist_names[g_array_index (dists, guint, k)]);
  g_string_append (gp, "\"\n");
  for (guint f = 0; f < PREDICTED_FITS; f++)
    {
      double lo, hi;
      fit_title (exp, rows, f, gp);
      fit_range (rows, f, &lo, &hi);
      /* gnuplot cannot autoscale a log axis over no point at all */
      if (!(lo <= hi))
        {
          g_string_append (gp, "plot [1:10] [1:10] x title \"no prediction\"\n");
          continue;
        }
      /* one range for both axes, so that the diagonal is the diagonal */
      g_string_append_printf (gp, "plot [%.6g:%.6g] [%.6g:%.6g] for [k=0:%u] 'gpu-hull-fit.dat' "
                              "index %u + k using 1:2 with points pt 7 ps 0.6 lc k + 1 notitle, "
                              "for [k=0:%u] '' index %u + k using 1:3 with points pt 6 ps 0.8 "
                              "lc k + 1 title word(names, k + 1), x with lines lc rgb "
                              "\"gray\" notitle\n", lo / 1.5, hi * 1.5, lo / 1.5, hi * 1.5,
                              dists->len - 1, f * dists->len, dists->len - 1, f * dists->len);
    }
  g_string_append (gp, "unset multiplot\n");
}

gboolean
mdl_gpu_hull_write_files (const MdlGpuExperiment *exp, const char *dir, GString *gp,
                          GError **error)
{
  g_autoptr (GArray) rows = hull_rows (exp);
  g_autoptr (GArray) dists = NULL;
  g_autoptr (GPtrArray) labels = NULL;
  g_autoptr (GString) time_dat = g_string_new (NULL), time_gp = g_string_new (NULL);
  g_autoptr (GString) fit_dat = g_string_new (NULL), fit_gp = g_string_new (NULL);
  guint time_rows, fit_rows = (PREDICTED_FITS + PANEL_COLUMNS - 1) / PANEL_COLUMNS;
  if (rows->len == 0)
    return TRUE;
  dists = hull_dists (rows);
  labels = hull_labels (rows);
  time_rows = MAX (1, (dists->len + PANEL_COLUMNS - 1) / PANEL_COLUMNS);
  time_figure (exp, rows, dists, labels, time_dat, time_gp);
  fit_figure (exp, rows, dists, fit_dat, fit_gp);
  g_string_append_printf (gp, "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-hull-time.png'\nload 'gpu-hull-time-panels.gp'\n"
                          "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-hull-fit.png'\nload 'gpu-hull-fit-panels.gp'\n"
                          "unset output\n", MIN (dists->len, PANEL_COLUMNS) * 440,
                          time_rows * 400 + 40, PANEL_COLUMNS * 400, fit_rows * 380 + 60);
  return mdl_experiment_write_file (dir, "gpu-hull-time.dat", time_dat, error)
         && mdl_experiment_write_file (dir, "gpu-hull-fit.dat", fit_dat, error)
         && mdl_experiment_write_file (dir, "gpu-hull-time-panels.gp", time_gp, error)
         && mdl_experiment_write_file (dir, "gpu-hull-fit-panels.gp", fit_gp, error);
}
