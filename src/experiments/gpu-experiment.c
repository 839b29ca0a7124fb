/* The GPU experiment (include/models/experiment.h, docs/experiments/gpu.md): every case of the GPU
 * algorithms (algorithm x parameters x n) predicted by the seed models and the hardware engines,
 * joined with its CUDA twin's measured time and Nsight Compute counters, and measured time fitted
 * against each model's costs.
 *
 * Stages: collect the cases (the measured ones and a case list crossed with sizes); predict each
 * (its SIMT twin through agpu, kmodel, msimd and the engines its row is checked on), taking what
 * the predictions file has and appending what is run, cases in parallel on a thread pool; join
 * each with its measurement through gpu-join.c (the join of `models measure`); relate each kernel
 * to CUB and the device copy at its n; fit.
 *
 * The seed models' parameters come from the machine preset: AGPU b = warp width (its default
 * preset key), k = SMs, M = shared memory per SM in words; K-model k = shared banks, sigma = shared
 * memory per block in words; MSIMD S = warp width, P = SMs. Each fit is non-negative least squares
 * of the median time (us) on launches plus the model's costs: a launch, a sector or a K-model time
 * step cannot cost negative time. */
#include <models/engine.h>
#include <models/error.h>
#include <models/machine.h>

#include "experiments/fit.h"
#include "experiments/gpu-experiment-private.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_MIN_FIT_N 65536
/* How often the progress callback hears of a run between cases. */
#define PROGRESS_US (G_USEC_PER_SEC / 4)
/* The predictions file's header; one row per counter of a case's reports, then its SIMT run. */
#define PREDICTIONS_HEADER "case,spec,counter,kind,value,unit,metric\n"
#define SIMT_SPEC "simt"

static const MdlGpuCost costs[GPU_N_COSTS] = {
  { "launches", "agpu", "launches", "kernel launches (host synchronisations)", "harness" },
  { "agpu_time", "agpu", "time", "AGPU time: instructions of the busiest MP, summed over launches",
    NULL },
  { "agpu_io", "agpu", "io", "AGPU I/O: global b-word block accesses", NULL },
  { "kmodel_T", "kmodel", "T", "K-model time: sum of instruction latencies", NULL },
  { "kmodel_W", "kmodel", "W", "K-model work: sum of instruction lengths", NULL },
  { "kmodel_G", "kmodel", "G", "K-model external transactions (k-word segments)", NULL },
  { "msimd_cost", "msimd", "cost", "MSIMD cost: per epoch M x (global ops) + SIMD steps", NULL },
  { "sectors", "coalesce", "gld_sectors+gst_sectors+gatom_sectors",
    "global 32-byte sectors (loads, stores, atomics)", "ncu" },
  { "requests", "coalesce", "gld_requests+gst_requests+gatom_requests",
    "global memory requests (warp instructions)", "ncu" },
  { "wavefronts", "banks", "shld_wavefronts+shst_wavefronts", "shared-memory wavefronts",
    "ncu" },
  { "bank_conflicts", "banks", "shld_bank_conflicts+shst_bank_conflicts",
    "shared-memory bank conflicts (wavefronts beyond the ideal)", "ncu" },
  { "warp_insts", "divergence", "warp_insts", "warp instructions executed", "ncu" },
  { "divergent_branches", "divergence", "divergent_branches", "divergent branch targets", "ncu" },
  { "bytes", NULL, NULL, "bytes the problem must move: input and output words x 4", NULL },
  { "latency_rounds", "occupancy", "latency_rounds",
    "rounds of dependent global loads per resident warp, summed over launches", NULL },
};

/* The fits: terms are cost indices, -1 ends the list. The last fits Nsight Compute's counts. */
static const struct {
  const char *name, *description;
  int terms[GPU_MAX_TERMS + 1];
  gboolean measured;
} fit_specs[GPU_N_FITS] = {
  { "bytes", "launches and the bytes the problem must move (what every model should beat)",
    { GPU_COST_LAUNCHES, GPU_COST_BYTES, -1 }, FALSE },
  { "agpu", "AGPU: launches, time and I/O",
    { GPU_COST_LAUNCHES, GPU_COST_AGPU_TIME, GPU_COST_AGPU_IO, -1 }, FALSE },
  { "kmodel", "K-model: launches, T, W and G",
    { GPU_COST_LAUNCHES, GPU_COST_KMODEL_T, GPU_COST_KMODEL_W, GPU_COST_KMODEL_G, -1 }, FALSE },
  { "msimd", "MSIMD: launches and cost", { GPU_COST_LAUNCHES, GPU_COST_MSIMD, -1 }, FALSE },
  { "counters", "hardware counters predicted: launches, sectors, wavefronts, warp instructions, "
    "and the occupancy engine's latency rounds",
    { GPU_COST_LAUNCHES, GPU_COST_SECTORS, GPU_COST_WAVEFRONTS, GPU_COST_WARP_INSTS,
      GPU_COST_LATENCY, -1 }, FALSE },
  { "counters-measured", "the same counters as measured (launches by the harness, the rest by "
    "Nsight Compute; profiled cases only); latency rounds, which no counter measures, predicted",
    { GPU_COST_LAUNCHES, GPU_COST_SECTORS, GPU_COST_WAVEFRONTS, GPU_COST_WARP_INSTS,
      GPU_COST_LATENCY, -1 }, TRUE },
};

/* The problems whose minimal traffic and baselines are known: an algorithm NAME is of problem
 * FAMILY when NAME is "FAMILY/variant"; a baseline "baseline/IMPL-FAMILY" (or "baseline/FAMILY")
 * solves FAMILY, and so does the problem's @baseline, whose name says no family. The input is
 * in_per_n x n words; the output is out_per_n x n + out_words words. A hull's n points are 2n
 * words of f32; its output, h points, is left out: h is the input's, unknown here, and h << n. */
static const struct {
  const char *family;
  guint in_per_n, out_per_n, out_words;
  const char *baseline;
} problems[] = {
  { "reduce", 1, 0, 1, NULL },
  { "scan", 1, 1, 0, NULL },
  { "sort", 1, 1, 0, NULL },
  { "memcpy", 1, 1, 0, NULL },
  { "hull", 2, 0, 0, MDL_GPU_QUICKHULL },
};
#define CUB_PREFIX MDL_GPU_BASELINE_PREFIX "cub-"
#define COPY_BASELINE MDL_GPU_BASELINE_PREFIX "memcpy"

static const char *const weights_names[MDL_GPU_N_WEIGHTS] = { "balanced", "relative", "absolute" };
static const char *const weights_notes[MDL_GPU_N_WEIGHTS] = {
  "balanced errors (weights 1/t)", "relative errors (weights 1/t^2)", "absolute errors (weights 1)"
};

const char *
mdl_gpu_fit_weights_name (guint weights)
{
  return weights < MDL_GPU_N_WEIGHTS ? weights_names[weights] : NULL;
}

const MdlGpuCost *
mdl_gpu_experiment_costs (guint *n)
{
  if (n)
    *n = GPU_N_COSTS;
  return costs;
}

void
mdl_gpu_experiment_config_init (MdlGpuExperimentConfig *config)
{
  g_return_if_fail (config != NULL);
  memset (config, 0, sizeof *config);
  config->machine = "h100";
  config->compute = TRUE;
  config->min_fit_n = DEFAULT_MIN_FIT_N;
}

/* The problem family of algorithm @name ("reduce" for reduce/tree and baseline/cub-reduce, "hull"
 * for baseline/quickhull). */
static char *
family_of (const char *name)
{
  for (guint k = 0; k < G_N_ELEMENTS (problems); k++)
    if (problems[k].baseline && strcmp (name, problems[k].baseline) == 0)
      return g_strdup (problems[k].family);
  if (g_str_has_prefix (name, MDL_GPU_BASELINE_PREFIX))
    {
      const char *rest = name + strlen (MDL_GPU_BASELINE_PREFIX), *dash = strrchr (rest, '-');
      return g_strdup (dash ? dash + 1 : rest);
    }
  return g_strndup (name, strcspn (name, "/"));
}

/* ---- points ---- */

static void
point_free (GpuPoint *p)
{
  g_free (p->spec);
  g_free (p->algorithm);
  g_free (p->params);
  if (p->reports)
    g_ptr_array_unref (p->reports);
  if (p->rows)
    g_array_unref (p->rows);
  g_strfreev (p->engines);
  g_clear_error (&p->error);
  g_free (p);
}

void
mdl_gpu_experiment_free (MdlGpuExperiment *exp)
{
  if (exp == NULL)
    return;
  g_free (exp->machine);
  mdl_gpu_measured_free (exp->measured);
  if (exp->points)
    g_ptr_array_unref (exp->points);
  for (guint f = 0; f < GPU_N_FITS; f++)
    g_free (exp->fits[f].why);
  if (exp->pub_points)
    g_array_unref (exp->pub_points);
  if (exp->notes)
    g_string_free (exp->notes, TRUE);
  g_free (exp);
}

/* The seed models' engine specs on @machine (the file header says why these parameters). */
static char **
seed_engines (const char *machine, GError **error)
{
  /* @fixed: agpu's launch cost stays out (launch_ns=0): every fit has its own c0 x launches, and
   * the preset's cost would be that column again, collinear with it (docs/experiments/gpu.md). */
  static const struct {
    const char *engine, *param, *key;
    guint divisor;
    const char *fixed;
  } derived[] = {
    { "agpu", "M", "shared_bytes_per_sm", 4, ",launch_ns=0" },
    { "kmodel", "sigma", "shared_bytes_per_block", 4, "" },
    { "msimd", "P", "sm_count", 1, "" },
  };
  GPtrArray *specs = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (derived); i++)
    {
      g_autofree char *value = NULL;
      GString *spec = g_string_new (NULL);
      g_string_printf (spec, "%s:machine=%s", derived[i].engine, machine);
      if (!mdl_machine_get (machine, derived[i].key, &value, error))
        {
          g_string_free (spec, TRUE);
          g_ptr_array_unref (specs);
          return NULL;
        }
      if (value)
        g_string_append_printf (spec, ",%s=%" G_GUINT64_FORMAT, derived[i].param,
                                g_ascii_strtoull (value, NULL, 10) / derived[i].divisor);
      g_string_append (spec, derived[i].fixed);
      g_ptr_array_add (specs, g_string_free (spec, FALSE));
    }
  g_ptr_array_add (specs, NULL);
  return (char **) g_ptr_array_free (specs, FALSE);
}

/* The engine specs of @algo's prediction: its checked_on engines, occupancy, then the seed
 * models. */
static char **
point_engines (const MdlAlgo *algo, const char *machine, char *const *seed)
{
  g_auto (GStrv) hw = g_strsplit (algo->gpu->checked_on, ",", -1);
  GPtrArray *specs = g_ptr_array_new ();
  for (char **e = hw; *e; e++)
    g_ptr_array_add (specs, g_strdup_printf ("%s:machine=%s", *e, machine));
  g_ptr_array_add (specs, g_strdup_printf ("occupancy:machine=%s", machine));
  for (char *const *e = seed; *e; e++)
    g_ptr_array_add (specs, g_strdup (*e));
  g_ptr_array_add (specs, NULL);
  return (char **) g_ptr_array_free (specs, FALSE);
}

typedef struct {
  MdlGpuExperiment *exp;
  const MdlGpuExperimentConfig *cfg;
  GHashTable *by_key;        /* spec -> GpuPoint * (borrowed) */
  GHashTable *groups;        /* "algorithm:params" -> its group, numbered from 1 */
  char **seed;               /* the seed models' specs */
} Collect;

/* The point of case @spec, added if new; NULL with @error for a bad spec. */
static GpuPoint *
point_of (Collect *c, const char *spec, GError **error)
{
  g_autofree char *name = NULL, *params = NULL, *group = NULL;
  const MdlAlgo *algo = NULL;
  guint64 n = 0;
  char *key = mdl_gpu_case_parse (spec, &algo, &name, &n, &params, error);
  GpuPoint *p;
  if (key == NULL)
    return NULL;
  if ((p = g_hash_table_lookup (c->by_key, key)))
    {
      g_free (key);
      return p;
    }
  p = g_new0 (GpuPoint, 1);
  p->spec = key;
  p->algorithm = g_steal_pointer (&name);
  p->params = g_steal_pointer (&params);
  p->algo = algo;
  p->pub.n = n;
  p->pub.baseline = algo == NULL;
  if (algo)
    p->engines = point_engines (algo, c->exp->machine, c->seed);
  group = g_strdup_printf ("%s:%s", p->algorithm, p->params);
  if (!g_hash_table_contains (c->groups, group))
    g_hash_table_insert (c->groups, g_strdup (group),
                         GUINT_TO_POINTER (g_hash_table_size (c->groups) + 1));
  p->group = GPOINTER_TO_UINT (g_hash_table_lookup (c->groups, group));
  for (guint k = 0; k < GPU_N_COSTS; k++)
    p->cost[k] = p->cost_measured[k] = NAN;
  for (guint f = 0; f < GPU_N_FITS; f++)
    p->fit_us[f] = p->loao_us[f] = NAN;
  g_hash_table_insert (c->by_key, p->spec, p);
  g_ptr_array_add (c->exp->points, p);
  return p;
}

static gint
point_order (gconstpointer a, gconstpointer b)
{
  const GpuPoint *p = *(GpuPoint *const *) a, *q = *(GpuPoint *const *) b;
  if (p->group != q->group)
    return p->group < q->group ? -1 : 1;
  return p->pub.n < q->pub.n ? -1 : p->pub.n > q->pub.n;
}

/* The points: every measured case, then every listed case at each size, in results order. */
static gboolean
collect (Collect *c, GError **error)
{
  const MdlGpuExperimentConfig *cfg = c->cfg;
  MdlGpuMeasured *m = c->exp->measured;
  for (guint i = 0; m && i < m->cases->len; i++)
    {
      const MdlGpuMeasuredCase *mc = g_ptr_array_index (m->cases, i);
      g_autofree char *path = g_build_filename (m->dir, "timings.csv", NULL);
      GpuPoint *p = point_of (c, mc->spec, error);
      if (p == NULL)
        {
          g_prefix_error (error, "%s:%u: ", path, mc->line);
          return FALSE;
        }
      if (p->measured)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: case %s was measured already "
                       "(line %u)", path, mc->line, mc->spec, p->measured->line);
          return FALSE;
        }
      p->measured = mc;
    }
  for (const char *const *s = cfg->cases; s && *s; s++)
    {
      g_autofree char *name = NULL;
      g_auto (GStrv) assigns = NULL;
      gboolean sized = FALSE;
      if (g_str_has_prefix (*s, MDL_GPU_BASELINE_PREFIX) || !mdl_gpu_spec_wanted (cfg->filters, *s))
        continue;
      if (!mdl_spec_split (*s, &name, &assigns, error))
        return FALSE;
      for (char **a = assigns; *a; a++)
        sized = sized || g_str_has_prefix (*a, "n=");
      if (sized || cfg->n_sizes == 0)
        {
          if (!point_of (c, *s, error))
            return FALSE;
          continue;
        }
      for (guint k = 0; k < cfg->n_sizes; k++)
        {
          g_autofree char *spec = g_strdup_printf ("%s%sn=%" G_GUINT64_FORMAT, *s,
                                                   strchr (*s, ':') ? "," : ":", cfg->sizes[k]);
          if (!point_of (c, spec, error))
            return FALSE;
        }
    }
  g_ptr_array_sort (c->exp->points, point_order);
  return TRUE;
}

/* ---- the predictions file ---- */

typedef struct {
  GPtrArray *reports;        /* MdlReport * */
  guint64 events;
  double seconds;
  gboolean complete;         /* its simt seconds row, written last, was read */
} Cached;

static void
cached_free (Cached *k)
{
  g_ptr_array_unref (k->reports);
  g_free (k);
}

/* Reads one row of the predictions file into @cache. */
static gboolean
cache_row (GHashTable *cache, const MdlCsv *csv, const char *path, guint r, const gint *col,
           GError **error)
{
  GPtrArray *row = mdl_csv_row (csv, r);
  const char *spec = mdl_csv_field (row, (guint) col[1]);
  const char *counter = mdl_csv_field (row, (guint) col[2]);
  const char *kind = mdl_csv_field (row, (guint) col[3]);
  const char *text = mdl_csv_field (row, (guint) col[4]);
  const char *unit = mdl_csv_field (row, (guint) col[5]);
  const char *metric = mdl_csv_field (row, (guint) col[6]);
  gboolean real = strcmp (kind, "real") == 0;
  g_autofree char *key = mdl_gpu_case_parse (mdl_csv_field (row, (guint) col[0]), NULL, NULL, NULL,
                                             NULL, error);
  Cached *k;
  MdlReport *rep = NULL;
  double v = NAN;
  guint64 count = 0;
  char *end = NULL;
  if (key == NULL)
    {
      g_prefix_error (error, "%s:%u: ", path, mdl_csv_line (csv, r));
      return FALSE;
    }
  if (!real && strcmp (kind, "count") != 0 && strcmp (kind, "peak") != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: kind is \"%s\", expected count, "
                   "peak or real", path, mdl_csv_line (csv, r), kind);
      return FALSE;
    }
  if (real && *text)
    v = g_ascii_strtod (text, &end);
  else if (!real)
    count = g_ascii_strtoull (text, &end, 10);
  if ((end && *end) || (!real && (*text == '\0' || *text == '-')))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: value \"%s\" of %s is not a%s",
                   path, mdl_csv_line (csv, r), text, counter,
                   real ? " number" : " whole number");
      return FALSE;
    }
  if (!(k = g_hash_table_lookup (cache, key)))
    {
      k = g_new0 (Cached, 1);
      k->reports = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
      g_hash_table_insert (cache, g_strdup (key), k);
    }
  /* A case predicted again (its engines changed) was appended after the old one: the last wins. */
  if (k->complete && strcmp (spec, SIMT_SPEC) != 0)
    {
      g_ptr_array_set_size (k->reports, 0);
      k->complete = FALSE;
    }
  if (strcmp (spec, SIMT_SPEC) == 0)
    {
      if (strcmp (counter, "events") == 0)
        k->events = count;
      else if (strcmp (counter, "seconds") == 0)
        {
          k->seconds = v;
          k->complete = TRUE;
        }
      return TRUE;
    }
  if (k->reports->len)
    rep = g_ptr_array_index (k->reports, k->reports->len - 1);
  if (rep == NULL || strcmp (mdl_report_spec (rep), spec) != 0)
    {
      g_autofree char *engine = g_strndup (spec, strcspn (spec, ":"));
      rep = mdl_report_new (engine, spec);
      g_ptr_array_add (k->reports, rep);
    }
  if (mdl_report_lookup (rep, counter))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: counter %s of %s appears twice for "
                   "case %s", path, mdl_csv_line (csv, r), counter, spec, key);
      return FALSE;
    }
  if (real)
    mdl_report_add_real (rep, counter, unit, "", *metric ? metric : NULL, v);
  else if (strcmp (kind, "peak") == 0)
    mdl_report_add_peak (rep, counter, unit, "", *metric ? metric : NULL, count);
  else
    mdl_report_add_count (rep, counter, unit, "", *metric ? metric : NULL, count);
  return TRUE;
}

/* The cases of the predictions file @path (case key -> Cached *); an empty table when it does not
 * exist. A last line without its newline was cut by an interrupted run and is left out; with
 * @trim it is also cut from the file, so that appending starts on a line of its own. */
static GHashTable *
cache_load (const char *path, gboolean trim, GString *notes, GError **error)
{
  static const char *const columns[] = { "case", "spec", "counter", "kind", "value", "unit",
                                         "metric" };
  g_autoptr (GHashTable) cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                        (GDestroyNotify) cached_free);
  g_autofree char *text = NULL;
  g_autoptr (GError) io_error = NULL;
  g_autoptr (MdlCsv) csv = NULL;
  gsize len = 0;
  gint col[G_N_ELEMENTS (columns)];
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&cache);
  if (!g_file_get_contents (path, &text, &len, &io_error))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, io_error->message);
      return NULL;
    }
  if (len > 0 && text[len - 1] != '\n')
    {
      char *cut = strrchr (text, '\n');
      len = cut ? (gsize) (cut - text) + 1 : 0;
      text[len] = '\0';
      g_string_append_printf (notes, "predictions: %s ended in a cut line (an interrupted run), "
                              "left out\n", path);
      if (trim && !g_file_set_contents (path, text, (gssize) len, &io_error))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, io_error->message);
          return NULL;
        }
    }
  if (len == 0)
    return g_steal_pointer (&cache);
  if (!(csv = mdl_csv_parse (text, path, 1, error)))
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    if ((col[i] = mdl_csv_column (mdl_csv_row (csv, 0), columns[i])) < 0)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: no column \"%s\" in the header "
                     "(expected %s)", path, mdl_csv_line (csv, 0), columns[i], PREDICTIONS_HEADER);
        return NULL;
      }
  for (guint r = 1; r < csv->rows->len; r++)
    if (!cache_row (cache, csv, path, r, col, error))
      return NULL;
  return g_steal_pointer (&cache);
}

/* TRUE when @k holds the reports of exactly @engines, in that order. */
static gboolean
cache_fits (const Cached *k, char *const *engines)
{
  guint i = 0;
  if (!k->complete)
    return FALSE;
  for (; engines[i]; i++)
    if (i >= k->reports->len
        || strcmp (mdl_report_spec (g_ptr_array_index (k->reports, i)), engines[i]) != 0)
      return FALSE;
  return i == k->reports->len;
}

/* A field of the predictions file, quoted when it holds a comma. */
static void
append_field (GString *out, const char *text)
{
  if (strchr (text, ','))
    g_string_append_printf (out, "\"%s\",", text);
  else
    g_string_append_printf (out, "%s,", text);
}

/* Appends the rows of point @p's prediction to @out: its counters, then its run. */
static void
cache_rows (const GpuPoint *p, GString *out)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (guint r = 0; r < p->reports->len; r++)
    {
      const MdlReport *rep = g_ptr_array_index (p->reports, r);
      for (guint i = 0; i < mdl_report_n_counters (rep); i++)
        {
          const MdlCounter *k = mdl_report_counter (rep, i);
          append_field (out, p->spec);
          append_field (out, p->engines[r]);
          g_string_append_printf (out, "%s,%s,", k->name,
                                  k->is_real ? "real" : k->is_peak ? "peak" : "count");
          if (k->is_real && isfinite (k->real))
            g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.17g", k->real));
          else if (!k->is_real)
            g_string_append_printf (out, "%" G_GUINT64_FORMAT, k->count);
          g_string_append_printf (out, ",%s,%s\n", k->unit, k->metric ? k->metric : "");
        }
    }
  append_field (out, p->spec);
  g_string_append_printf (out, SIMT_SPEC ",events,count,%" G_GUINT64_FORMAT ",count,\n",
                          p->events);
  append_field (out, p->spec);
  g_string_append_printf (out, SIMT_SPEC ",seconds,real,%s,s,\n",
                          g_ascii_formatd (buf, sizeof buf, "%.3f", p->seconds));
}

/* Appends point @p to the predictions file @f (@path) in one write, flushed, so that a run cut
 * short leaves whole cases (and at most one cut line, which the next run leaves out). */
static gboolean
cache_append (FILE *f, const char *path, const GpuPoint *p, GError **error)
{
  g_autoptr (GString) rows = g_string_new (NULL);
  cache_rows (p, rows);
  if (fwrite (rows->str, 1, rows->len, f) != rows->len || fflush (f) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* ---- running the SIMT twins ---- */

typedef struct {
  const char *machine;
  GAsyncQueue *finished;     /* GpuPoint *, as their runs end */
  GMutex lock;
  guint64 events;            /* all runs so far, under @lock */
} Runs;

static gboolean
tap_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Runs *runs = data;
  (void) error;
  g_mutex_lock (&runs->lock);
  runs->events += batch->n_cpu + batch->n_warp;
  g_mutex_unlock (&runs->lock);
  return TRUE;
}

static gboolean
tap_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data;
  (void) marker;
  (void) error;
  return TRUE;
}

/* A thread pool's task: predicts one point (errors stay in the point). */
static void
predict_task (gpointer data, gpointer user_data)
{
  GpuPoint *p = data;
  Runs *runs = user_data;
  MdlSink tap = { tap_batch, tap_marker, runs };
  gint64 start = g_get_monotonic_time ();
  p->reports = mdl_gpu_predict (p->spec, runs->machine, (const char *const *) p->engines, &tap,
                                &p->events, &p->error);
  p->seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  g_async_queue_push (runs->finished, p);
}

static gint
larger_first (gconstpointer a, gconstpointer b)
{
  const GpuPoint *p = *(GpuPoint *const *) a, *q = *(GpuPoint *const *) b;
  return p->pub.n > q->pub.n ? -1 : p->pub.n < q->pub.n;
}

/* Predicts @todo (GpuPoint *) on @jobs threads, appending each to @f when given. A case whose run
 * fails keeps its error and the others go on (an hour of runs is not thrown away for one bad
 * case); a failure to write the file stops the queue and is returned once the runs in flight
 * end. */
static gboolean
predict_all (const MdlGpuExperimentConfig *cfg, GPtrArray *todo, FILE *f, GError **error)
{
  Runs runs = { .machine = cfg->machine, .finished = g_async_queue_new () };
  GError *first_error = NULL;
  GThreadPool *pool;
  guint done = 0, jobs = cfg->jobs ? cfg->jobs : g_get_num_processors ();
  double n_all = 0, n_done = 0;
  guint64 events_done = 0;
  gint64 next_us = 0;
  const char *last = todo->len ? ((GpuPoint *) g_ptr_array_index (todo, 0))->spec : NULL;

  g_mutex_init (&runs.lock);
  /* The largest first: the long runs start early and the short ones fill the gaps. */
  g_ptr_array_sort (todo, larger_first);
  pool = g_thread_pool_new (predict_task, &runs, (gint) MAX (jobs, 1), FALSE, NULL);
  for (guint i = 0; i < todo->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (todo, i);
      n_all += (double) p->pub.n;
      g_thread_pool_push (pool, p, NULL);
    }
  while (done < todo->len && first_error == NULL)
    {
      GpuPoint *p = g_async_queue_timeout_pop (runs.finished, PROGRESS_US);
      gint64 now = g_get_monotonic_time ();
      if (p)
        {
          done++;
          last = p->spec;
          n_done += (double) p->pub.n;
          events_done += p->events;
          if (p->error == NULL && f && !cache_append (f, cfg->predictions, p, &first_error))
            break;
        }
      if (cfg->progress && (p || now >= next_us))
        {
          MdlGpuExperimentProgress pr = { .spec = last, .done = done, .total = todo->len,
                                          .running = MIN (jobs, todo->len - done) };
          g_mutex_lock (&runs.lock);
          pr.events = runs.events;
          g_mutex_unlock (&runs.lock);
          if (n_done > 0)
            pr.work_done = MIN (done == todo->len ? 1.0 : 0.99,
                                (double) pr.events / ((double) events_done / n_done * n_all));
          cfg->progress (&pr, cfg->progress_data);
          next_us = now + PROGRESS_US;
        }
    }
  /* After a failure the queued cases are dropped; those in flight finish and are thrown away. */
  g_thread_pool_free (pool, first_error != NULL, TRUE);
  g_async_queue_unref (runs.finished);
  g_mutex_clear (&runs.lock);
  if (first_error)
    {
      g_propagate_error (error, first_error);
      return FALSE;
    }
  return TRUE;
}

/* Gives every point that needs one its prediction: from the file when it has it with the same
 * engines, else from a SIMT run (when allowed and n is small enough). */
static gboolean
predict (MdlGpuExperiment *exp, const MdlGpuExperimentConfig *cfg, GError **error)
{
  g_autoptr (GHashTable) cache = NULL;
  g_autoptr (GPtrArray) todo = g_ptr_array_new ();
  guint from_file = 0, skipped_n = 0, skipped_compute = 0;
  double file_seconds = 0;
  FILE *f = NULL;
  gboolean ok;

  if (cfg->predictions
      && !(cache = cache_load (cfg->predictions, cfg->compute, exp->notes, error)))
    return FALSE;
  for (guint i = 0; i < exp->points->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (exp->points, i);
      Cached *k = cache ? g_hash_table_lookup (cache, p->spec) : NULL;
      if (p->pub.baseline)
        continue;
      if (k && cache_fits (k, p->engines))
        {
          p->reports = g_ptr_array_ref (k->reports);
          p->events = k->events;
          p->seconds = k->seconds;
          p->from_file = TRUE;
          from_file++;
          file_seconds += k->seconds;
        }
      else if (!cfg->compute)
        skipped_compute++;
      else if (cfg->max_predict_n && p->pub.n > cfg->max_predict_n)
        skipped_n++;
      else
        g_ptr_array_add (todo, p);
    }
  if (cfg->predictions && todo->len)
    {
      gboolean fresh = !g_file_test (cfg->predictions, G_FILE_TEST_EXISTS)
                       || cache == NULL || g_hash_table_size (cache) == 0;
      if (!(f = g_fopen (cfg->predictions, fresh ? "w" : "a")))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", cfg->predictions,
                       g_strerror (errno));
          return FALSE;
        }
      if (fresh)
        fputs (PREDICTIONS_HEADER, f);
    }
  ok = predict_all (cfg, todo, f, error);
  if (f && fclose (f) != 0 && ok)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", cfg->predictions, g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    return FALSE;
  {
    double seconds = 0;
    guint64 events = 0;
    guint failed = 0;
    for (guint i = 0; i < todo->len; i++)
      {
        const GpuPoint *p = g_ptr_array_index (todo, i);
        seconds += p->seconds;
        events += p->events;
        failed += p->error != NULL;
      }
    g_string_append_printf (exp->notes, "predictions: %u run here (%u failed; %.1f s of SIMT "
                            "runs, %" G_GUINT64_FORMAT " events), %u from %s (%.1f s when they "
                            "ran)\n",
                            todo->len, failed, seconds, events, from_file,
                            cfg->predictions ? cfg->predictions : "no file", file_seconds);
    for (guint i = 0; i < todo->len; i++)
      {
        const GpuPoint *p = g_ptr_array_index (todo, i);
        if (p->error)
          g_string_append_printf (exp->notes, "predictions: case %s failed: %s\n", p->spec,
                                  p->error->message);
      }
  }
  if (skipped_compute || skipped_n)
    g_string_append_printf (exp->notes, "predictions: %u cases left unpredicted (%u not in the "
                            "file with these engines and computing off, %u above n = %"
                            G_GUINT64_FORMAT ")\n", skipped_compute + skipped_n, skipped_compute,
                            skipped_n, cfg->max_predict_n);
  return TRUE;
}

/* ---- the join ---- */

/* The sum of counters @counters ('+'-joined) of engine @engine's report in @reports; NaN when a
 * report or counter is missing. */
static double
report_sum (GPtrArray *reports, const char *engine, const char *counters)
{
  g_auto (GStrv) names = g_strsplit (counters, "+", -1);
  for (guint r = 0; r < reports->len; r++)
    if (strcmp (mdl_report_engine (g_ptr_array_index (reports, r)), engine) == 0)
      {
        double sum = 0;
        for (char **c = names; *c; c++)
          {
            const MdlCounter *k = mdl_report_lookup (g_ptr_array_index (reports, r), *c);
            if (k == NULL)
              return NAN;
            sum += k->is_real ? k->real : (double) k->count;
          }
        return sum;
      }
  return NAN;
}

/* The measured value of @counters: the sum of the measured values of the metric rows that name
 * them (each row once); NaN when one is missing or not measured. */
static double
rows_sum (GArray *rows, const char *counters)
{
  g_auto (GStrv) names = g_strsplit (counters, "+", -1);
  g_autofree gboolean *used = g_new0 (gboolean, rows->len);
  double sum = 0;
  for (char **c = names; *c; c++)
    {
      gboolean found = FALSE;
      for (guint j = 0; j < rows->len && !found; j++)
        {
          const MdlGpuRow *row = &g_array_index (rows, MdlGpuRow, j);
          g_auto (GStrv) parts = g_strsplit (row->counters, "+", -1);
          if (!g_strv_contains ((const char *const *) parts, *c))
            continue;
          if (!row->have_measured)
            return NAN;
          if (!used[j])
            sum += row->measured;
          used[j] = found = TRUE;
        }
      if (!found)
        return NAN;
    }
  return sum;
}

/* The measured point named @algorithm at @n, on the same input as parameters @params say
 * (mdl_gpu_same_input; NULL @params: any input), or NULL. */
static const GpuPoint *
measured_at (const MdlGpuExperiment *exp, const char *algorithm, guint64 n, const char *params)
{
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *q = GPU_POINT (exp, i);
      if (q->measured && q->pub.n == n && strcmp (q->algorithm, algorithm) == 0
          && (params == NULL || mdl_gpu_same_input (params, q->params)))
        return q;
    }
  return NULL;
}

/* Fills every point's costs, measured values, rows and baseline ratios. */
static void
join (MdlGpuExperiment *exp)
{
  guint launch_mismatches = 0;
  for (guint i = 0; i < exp->points->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (exp->points, i);
      const MdlGpuMeasuredCase *m = p->measured;
      g_autofree char *family = family_of (p->algorithm);
      MdlGpuPoint *pub = &p->pub;
      pub->spec = p->spec;
      pub->algorithm = p->algorithm;
      pub->params = p->params;
      pub->cost = p->cost;
      pub->cost_measured = p->cost_measured;
      pub->fit_us = p->fit_us;
      pub->loao_us = p->loao_us;
      pub->predicted = p->reports != NULL;
      pub->error = p->error ? p->error->message : NULL;
      pub->measured = m != NULL;
      pub->profiled = m && m->ncu_rows != NULL;
      pub->cuda_check = m && m->cuda_check;
      pub->launches = m ? m->launches : 0;
      pub->median_us = m ? m->median_us : NAN;
      pub->min_us = m ? m->min_us : NAN;
      pub->max_us = m ? m->max_us : NAN;
      pub->bytes = NAN;
      for (guint k = 0; k < G_N_ELEMENTS (problems); k++)
        if (strcmp (family, problems[k].family) == 0)
          pub->bytes = 4.0 * ((double) pub->n * (problems[k].in_per_n + problems[k].out_per_n)
                              + problems[k].out_words);
      p->cost[GPU_COST_BYTES] = pub->bytes;
      if (m)
        p->cost_measured[GPU_COST_LAUNCHES] = m->launches;
      if (p->reports)
        {
          p->rows = mdl_gpu_join (p->reports, exp->measured ? exp->measured->ncu : NULL, m);
          pub->n_rows = p->rows->len;
          for (guint k = 0; k < GPU_N_COSTS; k++)
            if (costs[k].engine)
              p->cost[k] = report_sum (p->reports, costs[k].engine, costs[k].counters);
          for (guint k = 0; k < GPU_N_COSTS && pub->profiled; k++)
            if (costs[k].measured_by && strcmp (costs[k].measured_by, "ncu") == 0)
              p->cost_measured[k] = rows_sum (p->rows, costs[k].counters);
          if (m && p->cost[GPU_COST_LAUNCHES] != m->launches)
            launch_mismatches++;
        }
    }
  /* Ratios need every point's measurement in place. */
  for (guint i = 0; i < exp->points->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (exp->points, i);
      g_autofree char *family = family_of (p->algorithm);
      g_autofree char *cub = g_strconcat (CUB_PREFIX, family, NULL);
      /* A sort is compared with CUB's on its own distribution and key type; the copy does not
       * depend on the input. */
      const GpuPoint *base = p->measured ? measured_at (exp, cub, p->pub.n, p->params) : NULL;
      const GpuPoint *copy = p->measured ? measured_at (exp, COPY_BASELINE, p->pub.n, NULL) : NULL;
      p->pub.cub_ratio = base ? p->pub.median_us / base->pub.median_us : NAN;
      p->pub.copy_fraction = copy ? (p->pub.bytes / p->pub.median_us)
                                    / (copy->pub.bytes / copy->pub.median_us) : NAN;
    }
  if (launch_mismatches)
    g_string_append_printf (exp->notes, "launches: %u measured cases launched another number of "
                            "kernels than their SIMT twin (compare the launches columns)\n",
                            launch_mismatches);
}

/* ---- the fits ---- */

static guint
n_terms (guint f)
{
  guint t = 0;
  while (t < GPU_MAX_TERMS && fit_specs[f].terms[t] >= 0)
    t++;
  return t;
}

/* Term @t of fit @f at point @p: the measured value for the measured fit where something measures
 * it, else the predicted. */
static double
term (const GpuPoint *p, guint f, guint t)
{
  int k = fit_specs[f].terms[t];
  return fit_specs[f].measured && costs[k].measured_by ? p->cost_measured[k] : p->cost[k];
}

/* TRUE when fit @f uses point @p. */
static gboolean
fit_uses (const GpuPoint *p, guint f)
{
  if (!p->pub.fitted)
    return FALSE;
  for (guint t = 0; t < n_terms (f); t++)
    if (!isfinite (term (p, f, t)))
      return FALSE;
  return TRUE;
}

/* Fits @f on its points except those of algorithm @leave_out (NULL: none). FALSE when they are
 * fewer than its terms. */
static gboolean
fit_solve (const MdlGpuExperiment *exp, guint f, const char *leave_out, MdlFit *fit)
{
  guint nt = n_terms (f);
  g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) y = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) w = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      double t = p->pub.median_us;
      double wi = exp->weights == MDL_GPU_WEIGHTS_RELATIVE ? 1 / (t * t)
                  : exp->weights == MDL_GPU_WEIGHTS_BALANCED ? 1 / t : 1;
      if (!fit_uses (p, f) || (leave_out && strcmp (p->algorithm, leave_out) == 0))
        continue;
      for (guint k = 0; k < nt; k++)
        {
          double v = term (p, f, k);
          g_array_append_val (x, v);
        }
      g_array_append_val (y, t);
      g_array_append_val (w, wi);
    }
  return y->len >= nt && mdl_fit_nnls ((double *) x->data, (double *) y->data,
                                       (double *) w->data, y->len, nt, fit, NULL);
}

static double
predict_time (const GpuPoint *p, guint f, const MdlFit *fit)
{
  double t = 0;
  for (guint k = 0; k < fit->n_coef; k++)
    t += fit->coef[k] * term (p, f, k);
  return t;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

void
mdl_gpu_median_max (GArray *values, double *median, double *max)
{
  *median = *max = NAN;
  if (values->len == 0)
    return;
  g_array_sort (values, cmp_double);
  *median = values->len % 2 ? g_array_index (values, double, values->len / 2)
                            : (g_array_index (values, double, values->len / 2 - 1)
                               + g_array_index (values, double, values->len / 2)) / 2;
  *max = g_array_index (values, double, values->len - 1);
}

/* R^2 and the median and largest relative error of fit @f's predictions (with @loao, those of
 * the fits without each point's algorithm) over the points it uses. */
static void
errors (const MdlGpuExperiment *exp, guint f, gboolean loao, double *r2, double *median,
        double *max)
{
  g_autoptr (GArray) rel = g_array_new (FALSE, FALSE, sizeof (double));
  double mean = 0, rss = 0, tss = 0;
  guint n = 0;
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < exp->points->len; i++)
      {
        const GpuPoint *p = GPU_POINT (exp, i);
        double y = p->pub.median_us;
        double yhat = loao ? p->loao_us[f] : p->fit_us[f];
        if (!fit_uses (p, f) || !isfinite (yhat))
          continue;
        if (pass == 0)
          {
            mean += y;
            n++;
            continue;
          }
        rss += (y - yhat) * (y - yhat);
        tss += (y - mean / n) * (y - mean / n);
        {
          double e = fabs (yhat - y) / y;
          g_array_append_val (rel, e);
        }
      }
  *r2 = rel->len && tss > 0 ? 1 - rss / tss : NAN;
  mdl_gpu_median_max (rel, median, max);
}

static void
fit_one (MdlGpuExperiment *exp, guint f)
{
  GpuFit *gf = &exp->fits[f];
  MdlGpuFitInfo *info = &gf->pub;
  g_autoptr (GPtrArray) algos = g_ptr_array_new ();
  MdlFit fit;
  info->name = fit_specs[f].name;
  info->description = fit_specs[f].description;
  info->n_terms = n_terms (f);
  info->terms = gf->terms;
  info->coef = gf->coef;
  for (guint t = 0; t < info->n_terms; t++)
    {
      gf->terms[t] = costs[fit_specs[f].terms[t]].name;
      gf->coef[t] = NAN;
    }
  info->r2 = info->median_rel_error = info->max_rel_error = NAN;
  info->loao_r2 = info->loao_median_rel_error = info->loao_max_rel_error = NAN;
  for (guint i = 0; i < exp->points->len; i++)
    {
      const GpuPoint *p = GPU_POINT (exp, i);
      if (fit_uses (p, f))
        {
          info->n_points++;
          if (!g_ptr_array_find_with_equal_func (algos, p->algorithm, g_str_equal, NULL))
            g_ptr_array_add (algos, p->algorithm);
        }
    }
  info->n_algorithms = algos->len;
  if (!fit_solve (exp, f, NULL, &fit))
    {
      gf->why = g_strdup_printf ("%u points for %u terms", info->n_points, info->n_terms);
      info->why = gf->why;
      return;
    }
  for (guint t = 0; t < info->n_terms; t++)
    gf->coef[t] = fit.coef[t];
  for (guint i = 0; i < exp->points->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (exp->points, i);
      gboolean have = TRUE;
      for (guint t = 0; t < info->n_terms; t++)
        have = have && isfinite (term (p, f, t));
      if (have)
        p->fit_us[f] = predict_time (p, f, &fit);
    }
  errors (exp, f, FALSE, &info->r2, &info->median_rel_error,
          &info->max_rel_error);
  if (algos->len < 2)
    return;
  for (guint a = 0; a < algos->len; a++)
    {
      const char *left = g_ptr_array_index (algos, a);
      MdlFit loao;
      if (!fit_solve (exp, f, left, &loao))
        continue;
      for (guint i = 0; i < exp->points->len; i++)
        {
          GpuPoint *p = g_ptr_array_index (exp->points, i);
          if (fit_uses (p, f) && strcmp (p->algorithm, left) == 0)
            p->loao_us[f] = predict_time (p, f, &loao);
        }
    }
  errors (exp, f, TRUE, &info->loao_r2,
          &info->loao_median_rel_error, &info->loao_max_rel_error);
}

/* ---- the run ---- */

static void
write_notes (MdlGpuExperiment *exp, const MdlGpuExperimentConfig *cfg, char *const *seed)
{
  guint measured = 0, profiled = 0, baselines = 0, failed = 0, fitted = 0;
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlGpuPoint *p = &GPU_POINT (exp, i)->pub;
      measured += p->measured;
      profiled += p->profiled;
      baselines += p->baseline;
      failed += p->measured && !p->cuda_check;
      fitted += p->fitted;
    }
  g_string_append_printf (exp->notes, "machine: %s; engines:", exp->machine);
  for (char *const *e = seed; *e; e++)
    {
      g_autoptr (MdlEngine) engine = mdl_engine_new (*e, NULL);
      g_string_append_printf (exp->notes, " %s", engine ? mdl_engine_spec (engine) : *e);
    }
  g_string_append (exp->notes,
                   ", occupancy and the hardware engines each algorithm is checked on\n");
  if (exp->measured)
    g_string_append_printf (exp->notes, "measured: %s (%s): %u cases, %u profiled, %u baselines, "
                            "%u failed their CUDA check\n", exp->measured->dir,
                            *exp->measured->device ? exp->measured->device : "device unnamed",
                            measured, profiled, baselines, failed);
  else
    g_string_append (exp->notes, "measured: nothing (predictions only)\n");
  g_string_append_printf (exp->notes, "fits: %u points (measured, checked, predicted, n >= %"
                          G_GUINT64_FORMAT ", no baselines), non-negative least squares of the "
                          "median time, %s\n", fitted, cfg->min_fit_n,
                          weights_notes[cfg->weights]);
}

MdlGpuExperiment *
mdl_gpu_experiment_run (const MdlGpuExperimentConfig *cfg, GError **error)
{
  g_autoptr (MdlGpuExperiment) exp = g_new0 (MdlGpuExperiment, 1);
  g_autoptr (GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) groups = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) seed = NULL;
  Collect c = { .cfg = cfg, .by_key = by_key, .groups = groups };

  g_return_val_if_fail (cfg != NULL && cfg->machine != NULL, NULL);
  exp->machine = g_strdup (cfg->machine);
  exp->points = g_ptr_array_new_with_free_func ((GDestroyNotify) point_free);
  exp->notes = g_string_new (NULL);
  exp->min_fit_n = cfg->min_fit_n;
  exp->weights = cfg->weights;
  if (!(seed = seed_engines (cfg->machine, error)))
    return NULL;
  if (cfg->measured
      && !(exp->measured = mdl_gpu_measured_read (cfg->measured, cfg->filters, FALSE, error)))
    return NULL;
  c.exp = exp;
  c.seed = seed;
  if (!collect (&c, error) || !predict (exp, cfg, error))
    return NULL;
  join (exp);
  for (guint i = 0; i < exp->points->len; i++)
    {
      GpuPoint *p = g_ptr_array_index (exp->points, i);
      p->pub.fitted = p->pub.measured && p->pub.cuda_check && p->pub.predicted
                      && !p->pub.baseline && p->pub.n >= cfg->min_fit_n;
    }
  for (guint f = 0; f < GPU_N_FITS; f++)
    fit_one (exp, f);
  write_notes (exp, cfg, seed);
  exp->pub_points = g_array_sized_new (FALSE, FALSE, sizeof (MdlGpuPoint), exp->points->len);
  for (guint i = 0; i < exp->points->len; i++)
    g_array_append_val (exp->pub_points, GPU_POINT (exp, i)->pub);
  for (guint f = 0; f < GPU_N_FITS; f++)
    exp->pub_fits[f] = exp->fits[f].pub;
  exp->results = (MdlGpuResults) {
    .points = (const MdlGpuPoint *) exp->pub_points->data, .n_points = exp->pub_points->len,
    .fits = exp->pub_fits, .n_fits = GPU_N_FITS, .costs = costs, .n_costs = GPU_N_COSTS,
  };
  return g_steal_pointer (&exp);
}

const MdlGpuResults *
mdl_gpu_experiment_results (const MdlGpuExperiment *exp)
{
  g_return_val_if_fail (exp != NULL, NULL);
  return &exp->results;
}

const MdlGpuRow *
mdl_gpu_experiment_row (const MdlGpuExperiment *exp, guint i, guint k)
{
  const GpuPoint *p;
  g_return_val_if_fail (exp != NULL && i < exp->points->len, NULL);
  p = GPU_POINT (exp, i);
  g_return_val_if_fail (p->rows != NULL && k < p->rows->len, NULL);
  return &g_array_index (p->rows, MdlGpuRow, k);
}

const char *
mdl_gpu_experiment_notes (const MdlGpuExperiment *exp)
{
  g_return_val_if_fail (exp != NULL, NULL);
  return exp->notes->str;
}
