/* The sorts' part of a GPU experiment's report (docs/experiments/sorting.md): every measured case
 * of the sort problem (sort/... algorithms and the baseline/...-sort baselines, GPU and CPU) as
 * keys per second, time over CUB radix sort's on the same input (n, distribution and key type:
 * the join's cub_ratio) and bandwidth against the device copy's (copy_fraction: n keys read and n
 * written, 8n bytes, as the problems table of gpu-experiment.c says); a table of the sorts by
 * distribution at each n where several were measured; and two gnuplot figures, time against n per
 * sort (log-log, one panel per input) and time by distribution (one panel per such n).
 * A sort's input is its dist= and keys= parameters, "uniform" and "u32" when it names none; the
 * rest of its parameters are its configuration, and a sort is told apart by its name and
 * configuration (its label: `sort/bitonic:layout=global,block=256`), so that two configurations
 * measured on one input are two rows and two series, never one. */
#include "experiments/gpu-experiment-private.h"
#include "experiments/output.h"

#include "algos/keys.h"

#include <math.h>
#include <string.h>

#define PANEL_COLUMNS 3
/* Inputs with at least this many sizes measured get a panel of the time figure. */
#define MIN_PANEL_SIZES 3
/* An n at which one sort was measured on at least this many distributions gets a
 * by-distribution table and panel. */
#define MIN_DISTS 5

char *
mdl_gpu_param (const char *params, const char *key, const char *fallback)
{
  g_auto (GStrv) parts = g_strsplit (params ? params : "", ",", -1);
  gsize len = strlen (key);
  for (char **p = parts; *p; p++)
    if (strncmp (*p, key, len) == 0 && (*p)[len] == '=')
      return g_strdup (*p + len + 1);
  return g_strdup (fallback);
}

gboolean
mdl_gpu_same_input (const char *a, const char *b)
{
  static const char *const keys[][2] = { { "dist", "uniform" }, { "keys", "u32" } };
  for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
    {
      g_autofree char *x = mdl_gpu_param (a, keys[k][0], keys[k][1]);
      g_autofree char *y = mdl_gpu_param (b, keys[k][0], keys[k][1]);
      if (strcmp (x, y) != 0)
        return FALSE;
    }
  return TRUE;
}

gboolean
mdl_gpu_is_sort (const char *algorithm)
{
  return g_str_has_prefix (algorithm, "sort/")
         || (g_str_has_prefix (algorithm, MDL_GPU_BASELINE_PREFIX)
             && g_str_has_suffix (algorithm, "-sort"));
}

/* A measured sort point with its input spelled out. */
typedef struct {
  const GpuPoint *p;
  char *label;               /* the algorithm, then ":" and its configuration when it has one */
  char *keys;
  int dist;                  /* MdlKeyDist, or MDL_KEYS_N_DISTS for a name keys.h lacks */
} SortRow;

static void
sort_row_clear (gpointer data)
{
  g_free (((SortRow *) data)->label);
  g_free (((SortRow *) data)->keys);
}

static gint
sort_row_order (gconstpointer a, gconstpointer b)
{
  const SortRow *x = a, *y = b;
  int c = strcmp (x->label, y->label);
  if (c == 0)
    c = strcmp (x->keys, y->keys);
  if (c == 0)
    c = x->dist - y->dist;
  if (c == 0)
    c = x->p->pub.n < y->p->pub.n ? -1 : x->p->pub.n > y->p->pub.n;
  return c;
}

char *
mdl_gpu_label (const char *algorithm, const char *params)
{
  g_auto (GStrv) parts = g_strsplit (params ? params : "", ",", -1);
  GString *label = g_string_new (algorithm);
  char sep = ':';
  for (char **p = parts; *p; p++)
    if (**p && !g_str_has_prefix (*p, "dist=") && !g_str_has_prefix (*p, "keys="))
      {
        g_string_append_printf (label, "%c%s", sep, *p);
        sep = ',';
      }
  return g_string_free (label, FALSE);
}

/* The measured sort points of @exp, by sort (label), key type, distribution and n. */
static GArray *
sort_rows (const MdlGpuExperiment *exp)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (SortRow));
  g_array_set_clear_func (rows, sort_row_clear);
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      g_autofree char *dist = NULL;
      SortRow r;
      int d;
      if (!p->pub.measured || !mdl_gpu_is_sort (p->algorithm))
        continue;
      dist = mdl_gpu_param (p->params, "dist", "uniform");
      d = mdl_keys_dist_index (dist);
      r.p = p;
      r.label = mdl_gpu_label (p->algorithm, p->params);
      r.keys = mdl_gpu_param (p->params, "keys", "u32");
      r.dist = d < 0 ? (int) MDL_KEYS_N_DISTS : d;
      g_array_append_val (rows, r);
    }
  g_array_sort (rows, sort_row_order);
  return rows;
}

static const char *
dist_name (int d)
{
  static const char *const names[] = {
#define NAME_OF(name, what) name,
    MDL_KEY_DISTS (NAME_OF)
#undef NAME_OF
    "other"
  };
  return names[d];
}

/* The sorts (label and key type, "LABEL keys=K"), in row order, each once. */
static GPtrArray *
sort_series (GArray *rows)
{
  GPtrArray *series = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < rows->len; i++)
    {
      const SortRow *r = &g_array_index (rows, SortRow, i);
      g_autofree char *name = g_strdup_printf ("%s keys=%s", r->label, r->keys);
      if (!g_ptr_array_find_with_equal_func (series, name, g_str_equal, NULL))
        g_ptr_array_add (series, g_steal_pointer (&name));
    }
  return series;
}

static gboolean
row_in_series (const SortRow *r, const char *series)
{
  gsize len = strlen (r->label);
  return strncmp (series, r->label, len) == 0 && strncmp (series + len, " keys=", 6) == 0
         && strcmp (series + len + 6, r->keys) == 0;
}

static gint
cmp_size (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* The sizes (ascending) at which some sort was measured on at least MIN_DISTS distributions.
 * Quadratic in the rows: a sweep has a few thousand at most. */
static GArray *
dist_sizes (GArray *rows)
{
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < rows->len; i++)
    {
      const SortRow *r = &g_array_index (rows, SortRow, i);
      guint dists = 0;
      gboolean seen = FALSE;
      for (guint k = 0; k < sizes->len; k++)
        seen = seen || g_array_index (sizes, guint64, k) == r->p->pub.n;
      for (guint j = 0; j < rows->len && !seen; j++)
        {
          const SortRow *s = &g_array_index (rows, SortRow, j);
          dists += s->p->pub.n == r->p->pub.n && s->dist != (int) MDL_KEYS_N_DISTS
                   && strcmp (s->label, r->label) == 0 && strcmp (s->keys, r->keys) == 0;
        }
      if (!seen && dists >= MIN_DISTS)
        g_array_append_val (sizes, r->p->pub.n);
    }
  g_array_sort (sizes, cmp_size);
  return sizes;
}

/* n as 2^K when a power of two, else decimal. */
static void
append_size (GString *out, guint64 n)
{
  if (n >= 1024 && (n & (n - 1)) == 0)
    g_string_append_printf (out, "2^%d", 63 - __builtin_clzll (n));
  else
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, n);
}

/* G keys/s of @p: n over the median time. */
static double
gkeys_per_s (const GpuPoint *p)
{
  return (double) p->pub.n / p->pub.median_us / 1000.0;
}

void
mdl_gpu_sorting_write_markdown (const MdlGpuExperiment *exp, GString *out)
{
  g_autoptr (GArray) rows = sort_rows (exp);
  g_autoptr (GArray) sizes = NULL;
  g_autoptr (GPtrArray) series = NULL;
  if (rows->len == 0)
    return;
  g_string_append (out, "\n## Sorts\n\nEvery measured sort by key type, distribution and n: "
                   "median time, keys per second (n / time), time over CUB radix sort's on the "
                   "same n, distribution and key type (xCUB), and bandwidth (n keys read and "
                   "written: 8n bytes / time) over the device copy's at that n. The CPU sorts "
                   "(qsort, introsort) ran on one core of the GPU machine's host.\n\n"
                   "| sort | keys | dist | n | time us | G keys/s | xCUB | copy |\n"
                   "|---|---|---|--:|--:|--:|--:|--:|\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const SortRow *r = &g_array_index (rows, SortRow, i);
      g_autofree char *dist = mdl_gpu_param (r->p->params, "dist", "uniform");
      g_string_append_printf (out, "| %s | %s | %s | ", r->label, r->keys, dist);
      append_size (out, r->p->pub.n);
      mdl_gpu_cell (out, "%.2f", r->p->pub.median_us);
      if (!r->p->pub.cuda_check)
        g_string_append (out, " FAILED CHECK");
      mdl_gpu_cell (out, "%.4g", gkeys_per_s (r->p));
      mdl_gpu_cell (out, "%.3f", r->p->pub.cub_ratio);
      mdl_gpu_cell (out, "%.1f%%", 100 * r->p->pub.copy_fraction);
      g_string_append (out, " |\n");
    }
  sizes = dist_sizes (rows);
  series = sort_series (rows);
  for (guint k = 0; k < sizes->len; k++)
    {
      guint64 n = g_array_index (sizes, guint64, k);
      g_string_append (out, "\n### Sorts by distribution at n = ");
      append_size (out, n);
      g_string_append (out, " (G keys/s)\n\n| sort | keys");
      for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
        g_string_append_printf (out, " | %s", dist_name (d));
      g_string_append (out, " |\n|---|---");
      for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
        g_string_append (out, "|--:");
      g_string_append (out, "|\n");
      for (guint s = 0; s < series->len; s++)
        {
          const char *name = g_ptr_array_index (series, s);
          double v[MDL_KEYS_N_DISTS];
          gboolean any = FALSE;
          for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
            v[d] = NAN;
          for (guint i = 0; i < rows->len; i++)
            {
              const SortRow *r = &g_array_index (rows, SortRow, i);
              if (r->p->pub.n == n && r->dist < (int) MDL_KEYS_N_DISTS && row_in_series (r, name))
                {
                  v[r->dist] = gkeys_per_s (r->p);
                  any = TRUE;
                }
            }
          if (!any)
            continue;
          g_string_append_printf (out, "| %.*s | %s", (int) (strstr (name, " keys=") - name), name,
                                  strstr (name, " keys=") + 6);
          for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
            mdl_gpu_cell (out, "%.4g", v[d]);
          g_string_append (out, " |\n");
        }
    }
}

/* The inputs ("dist keys=K", in row order) measured at MIN_PANEL_SIZES sizes or more by a sort. */
static GPtrArray *
panel_inputs (GArray *rows)
{
  GPtrArray *inputs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < rows->len; i++)
    {
      const SortRow *r = &g_array_index (rows, SortRow, i);
      g_autofree char *name = g_strdup_printf ("%s keys=%s", dist_name (r->dist), r->keys);
      guint sizes = 0;
      for (guint j = i; j < rows->len; j++)
        {
          const SortRow *s = &g_array_index (rows, SortRow, j);
          sizes += s->p == r->p
                   || (strcmp (s->label, r->label) == 0 && s->dist == r->dist
                       && strcmp (s->keys, r->keys) == 0 && s->p->pub.n != r->p->pub.n);
        }
      if (sizes >= MIN_PANEL_SIZES
          && !g_ptr_array_find_with_equal_func (inputs, name, g_str_equal, NULL))
        g_ptr_array_add (inputs, g_steal_pointer (&name));
    }
  return inputs;
}

gboolean
mdl_gpu_sorting_write_files (const MdlGpuExperiment *exp, const char *dir, GString *gp,
                             GError **error)
{
  g_autoptr (GArray) rows = sort_rows (exp);
  g_autoptr (GArray) sizes = NULL;
  g_autoptr (GPtrArray) series = NULL, inputs = NULL, algos = NULL;
  g_autoptr (GString) time_dat = g_string_new (NULL), dist_dat = g_string_new (NULL);
  g_autoptr (GString) time_gp = g_string_new (NULL), dist_gp = g_string_new (NULL);
  guint time_rows, dist_rows, block = 0;
  if (rows->len == 0)
    return TRUE;
  sizes = dist_sizes (rows);
  series = sort_series (rows);
  inputs = panel_inputs (rows);
  algos = g_ptr_array_new ();
  for (guint i = 0; i < rows->len; i++)
    {
      const char *a = g_array_index (rows, SortRow, i).label;
      if (!g_ptr_array_find_with_equal_func (algos, a, g_str_equal, NULL))
        g_ptr_array_add (algos, (gpointer) a);
    }

  /* gpu-sort-time.dat: block (input i, sort a) = i x sorts + a: n, median us. */
  for (guint i = 0; i < inputs->len; i++)
    for (guint a = 0; a < algos->len; a++)
      {
        const char *input = g_ptr_array_index (inputs, i), *algo = g_ptr_array_index (algos, a);
        g_string_append_printf (time_dat, "%s# %s %s: n median_us\n? ?\n", block++ ? "\n\n" : "",
                                algo, input);
        for (guint k = 0; k < rows->len; k++)
          {
            const SortRow *r = &g_array_index (rows, SortRow, k);
            g_autofree char *name = g_strdup_printf ("%s keys=%s", dist_name (r->dist), r->keys);
            if (strcmp (r->label, algo) == 0 && strcmp (name, input) == 0)
              {
                g_string_append_printf (time_dat, "%" G_GUINT64_FORMAT " ", r->p->pub.n);
                mdl_experiment_append_real (time_dat, r->p->pub.median_us, "?");
                g_string_append_c (time_dat, '\n');
              }
          }
      }
  time_rows = MAX (1, (inputs->len + PANEL_COLUMNS - 1) / PANEL_COLUMNS);
  g_string_append_printf (time_gp, "set multiplot layout %u,%u title \"Sorts on %s: median time "
                          "(us) against n, log-log\" font \",11\"\n", time_rows, PANEL_COLUMNS,
                          exp->measured && *exp->measured->device ? exp->measured->device
                                                                  : exp->machine);
  g_string_append (time_gp, "set datafile missing \"?\"\nset logscale x 2\nset logscale y\n"
                   "set grid\nset key below left font \",7\" samplen 2 maxcols 2\n"
                   "set xlabel \"n\"\n"
                   "set ylabel \"us\"\nset format x \"2^{%L}\"\nnames = \"");
  for (guint a = 0; a < algos->len; a++)
    g_string_append_printf (time_gp, "%s%s", a ? " " : "",
                            (const char *) g_ptr_array_index (algos, a));
  g_string_append (time_gp, "\"\n");
  if (inputs->len == 0)
    g_string_append (time_gp, "set title \"no input at 3 sizes\"\nplot [1:10] [1:10] x notitle\n");
  for (guint i = 0; i < inputs->len; i++)
    g_string_append_printf (time_gp, "set title \"%s\" font \",10\"\nplot for [a=0:%u] "
                            "'gpu-sort-time.dat' index %u + a using 1:2 with linespoints "
                            "pt (a %% 13 + 1) ps 0.6 title word(names, a + 1)\n",
                            (const char *) g_ptr_array_index (inputs, i), algos->len - 1,
                            i * algos->len);
  g_string_append (time_gp, "unset multiplot\n");

  /* gpu-sort-dist.dat: block (size k, sort-and-keys s) = k x series + s: distribution index,
   * median us. */
  block = 0;
  for (guint k = 0; k < sizes->len; k++)
    for (guint s = 0; s < series->len; s++)
      {
        const char *name = g_ptr_array_index (series, s);
        guint64 n = g_array_index (sizes, guint64, k);
        g_string_append_printf (dist_dat, "%s# n=%" G_GUINT64_FORMAT " %s: dist median_us\n? ?\n",
                                block++ ? "\n\n" : "", n, name);
        for (guint i = 0; i < rows->len; i++)
          {
            const SortRow *r = &g_array_index (rows, SortRow, i);
            if (r->p->pub.n == n && r->dist < (int) MDL_KEYS_N_DISTS && row_in_series (r, name))
              {
                g_string_append_printf (dist_dat, "%d ", r->dist);
                mdl_experiment_append_real (dist_dat, r->p->pub.median_us, "?");
                g_string_append_c (dist_dat, '\n');
              }
          }
      }
  dist_rows = MAX (1, sizes->len);
  g_string_append_printf (dist_gp, "set multiplot layout %u,1 title \"Sorts by input "
                          "distribution: median time (us), log scale\" font \",11\"\n", dist_rows);
  g_string_append (dist_gp, "set datafile missing \"?\"\nunset logscale x\nset logscale y\n"
                   "set grid\nset key outside right font \",7\" samplen 2\nset ylabel \"us\"\n"
                   "set xlabel \"input distribution\"\n"
                   "set xrange [-0.5:7.5]\nset xtics (");
  for (int d = 0; d < (int) MDL_KEYS_N_DISTS; d++)
    g_string_append_printf (dist_gp, "%s\"%s\" %d", d ? ", " : "", dist_name (d), d);
  g_string_append (dist_gp, ")\nset format x \"%g\"\nnames = \"");
  for (guint s = 0; s < series->len; s++)
    {
      g_autofree char *label = g_strdelimit (g_strdup (g_ptr_array_index (series, s)), " ", ':');
      g_string_append_printf (dist_gp, "%s%s", s ? " " : "", label);
    }
  g_string_append (dist_gp, "\"\n");
  if (sizes->len == 0)
    g_string_append (dist_gp, "set title \"no n with 5 distributions\"\nplot [0:1] [1:10] x "
                     "notitle\n");
  for (guint k = 0; k < sizes->len; k++)
    {
      guint64 n = g_array_index (sizes, guint64, k);
      /* gnuplot's enhanced text: 2^{20} */
      if ((n & (n - 1)) == 0)
        g_string_append_printf (dist_gp, "set title \"n = 2^{%d}", 63 - __builtin_clzll (n));
      else
        g_string_append_printf (dist_gp, "set title \"n = %" G_GUINT64_FORMAT, n);
      g_string_append_printf (dist_gp, "\" font \",10\"\nplot for [s=0:%u] 'gpu-sort-dist.dat' "
                              "index %u + s using 1:2 with linespoints pt 7 ps 0.6 title "
                              "word(names, s + 1)\n", series->len - 1, k * series->len);
    }
  g_string_append (dist_gp, "unset multiplot\n");

  g_string_append_printf (gp, "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-sort-time.png'\nload 'gpu-sort-time-panels.gp'\n"
                          "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'gpu-sort-dist.png'\nload 'gpu-sort-dist-panels.gp'\n"
                          "unset output\n", PANEL_COLUMNS * 440, time_rows * 600 + 40, 1100,
                          dist_rows * 360 + 40);
  return mdl_experiment_write_file (dir, "gpu-sort-time.dat", time_dat, error)
         && mdl_experiment_write_file (dir, "gpu-sort-dist.dat", dist_dat, error)
         && mdl_experiment_write_file (dir, "gpu-sort-time-panels.gp", time_gp, error)
         && mdl_experiment_write_file (dir, "gpu-sort-dist-panels.gp", dist_gp, error);
}
