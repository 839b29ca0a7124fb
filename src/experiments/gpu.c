/* The GPU comparison (include/models/experiment.h): measured CUDA twins next to their SIMT twins'
 * predictions, counter by counter.
 *
 * The measured half is a directory that tools/gpu-measure.sh wrote on a machine with an NVIDIA
 * GPU; the predicted half runs each case's SIMT twin (the case is an algorithm spec,
 * `NAME:key=value`, with n defaulting to the row's DEFAULT_N) through the engines of the
 * algorithm's checked_on list. Reading, running and joining by metric name are gpu-join.c's,
 * shared with the GPU experiment; this file owns the comparison's results and their output.
 * Differences are reported, not hidden: docs/models/gpu.md explains each one. */
#include <models/engine.h>
#include <models/machine.h>

#include "core/json.h"
#include "experiments/gpu-private.h"

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
  GArray *rows;         /* MdlGpuRow */
} Case;

struct MdlGpuComparison {
  char *dir;
  char *machine;
  MdlGpuMeasured *measured;
  GPtrArray *cases;     /* Case * */
};

static void
case_free (Case *c)
{
  if (c->rows)
    g_array_unref (c->rows);
  g_free (c);
}

MdlGpuComparison *
mdl_gpu_compare (const char *dir, const char *machine, const char *const *filters, GError **error)
{
  g_autoptr (MdlGpuComparison) cmp = g_new0 (MdlGpuComparison, 1);
  g_auto (GStrv) machine_keys = NULL;
  g_return_val_if_fail (dir != NULL && machine != NULL, NULL);
  if (!(machine_keys = mdl_machine_keys (machine, error)))
    return NULL;
  cmp->dir = g_strdup (dir);
  cmp->machine = g_strdup (machine);
  cmp->cases = g_ptr_array_new_with_free_func ((GDestroyNotify) case_free);
  if (!(cmp->measured = mdl_gpu_measured_read (dir, filters, TRUE, error)))
    return NULL;
  for (guint i = 0; i < cmp->measured->cases->len; i++)
    {
      const MdlGpuMeasuredCase *m = g_ptr_array_index (cmp->measured->cases, i);
      Case *c = g_new0 (Case, 1);
      g_autoptr (GPtrArray) reports = NULL;
      g_ptr_array_add (cmp->cases, c);
      c->pub.spec = m->spec;
      c->pub.kernel = m->kernel;
      c->pub.cuda_check = m->cuda_check;
      c->pub.median_us = m->median_us;
      /* A baseline (CUB, the device copy) is measured only: it has no SIMT twin to predict it. */
      if (g_str_has_prefix (m->spec, MDL_GPU_BASELINE_PREFIX))
        reports = g_ptr_array_new ();
      else
        {
          const MdlAlgo *algo = NULL;
          g_autofree char *key = mdl_gpu_case_parse (m->spec, &algo, NULL, NULL, NULL, error);
          g_auto (GStrv) engines = key ? g_strsplit (algo->gpu->checked_on, ",", -1) : NULL;
          if (!key || !(reports = mdl_gpu_predict (m->spec, machine, (const char *const *) engines,
                                                   NULL, NULL, error)))
            {
              g_prefix_error (error, "case %s: ", m->spec);
              return NULL;
            }
        }
      c->rows = mdl_gpu_join (reports, cmp->measured->ncu, m);
      c->pub.n_rows = c->rows->len;
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
  mdl_gpu_measured_free (cmp->measured);
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

void
mdl_gpu_row_write_json (const MdlGpuRow *r, GString *out)
{
  g_autoptr (GString) pv = g_string_new (NULL), mv = g_string_new (NULL);
  append_value (pv, r->predicted, r->is_real);
  if (r->have_measured)
    append_value (mv, r->measured, r->is_real);
  g_string_append (out, "{\"counters\": ");
  mdl_json_string (out, r->counters);
  g_string_append (out, ", \"metric\": ");
  mdl_json_string (out, r->metric);
  g_string_append_printf (out, ", \"predicted\": %s, \"measured\": %s, \"verdict\": \"%s\"}",
                          isnan (r->predicted) ? "null" : pv->str,
                          r->have_measured ? mv->str : "null", verdict_names[r->verdict]);
}

/* The table's columns, for the header and every row alike. */
#define TABLE_ROW "  %-32s %12s %12s %10s  %-9s %s\n"

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
      g_string_append (out, k ? ", " : "");
      mdl_gpu_row_write_json (r, out);
      break;
    default:
      g_string_append_printf (out, TABLE_ROW, r->counters, pv->str, mv->str, dv->str, v,
                              r->metric);
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
        {
          /* The header under every case: a case lists about twenty rows, and a table of many
           * cases scrolls past a header printed once. */
          g_string_append_printf (out, "%s%s  (%s, CUDA check %s, %.2f us)\n", i ? "\n" : "",
                                  c->spec, c->kernel, c->cuda_check ? "ok" : "FAILED",
                                  c->median_us);
          g_string_append_printf (out, TABLE_ROW, "counter (SIMT twin)", "predicted", "measured",
                                  "difference", "verdict", "Nsight Compute metric");
        }
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
