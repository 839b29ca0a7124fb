/* The writers of a VAT experiment's results: a table for people, CSV and JSON for programs, and the
 * data and script for gnuplot (one panel per algorithm: measured normalized time as points, the VAT
 * and EM fits as curves; a last panel for the huge-page series). The script is written, not run:
 * the library starts no processes; `models experiment vat` runs gnuplot when it is installed. */
#include "core/bytes.h"
#include "core/json.h"
#include "experiments/output.h"
#include "experiments/vat-private.h"

#include <math.h>
#include <string.h>

#define PLOT_COLUMNS 4

/* "2^20.4": sizes grow by 1.4, so log2 n with one decimal is how the thesis's axis reads. */
static void
append_log2 (GString *out, guint64 n)
{
  g_string_append_printf (out, "%.1f", log2 ((double) n));
}

/* A number for a table: NaN as "-". */
static void
append_num (GString *out, int width, const char *format, double v)
{
  if (isfinite (v))
    {
      g_autofree char *s = g_strdup_printf (format, v);
      g_string_append_printf (out, " %*s", width, s);
    }
  else
    g_string_append_printf (out, " %*s", width, "-");
}

/* Appends each of the @n values after @sep: a run of CSV fields (missing "") or of gnuplot data
 * columns (missing "?"). */
static void
append_reals (GString *out, char sep, const double *v, guint n, const char *missing)
{
  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (out, sep);
      mdl_experiment_append_real (out, v[i], missing);
    }
}

static const MdlVatPoint *
point_at (const MdlVatExperiment *exp, guint i)
{
  return &g_array_index (exp->points, MdlVatPoint, i);
}

/* The 4 KiB point of the same algorithm and size as huge point @h, or NULL. */
static const MdlVatPoint *
small_twin (const MdlVatExperiment *exp, const MdlVatPoint *h)
{
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = point_at (exp, i);
      if (!p->huge_pages && p->n == h->n && strcmp (p->algorithm, h->algorithm) == 0)
        return p;
    }
  return NULL;
}

static const MdlVatSlope *
slope_of_algo (const MdlVatExperiment *exp, const char *algorithm)
{
  for (guint i = 0; i < exp->slopes->len; i++)
    if (strcmp (g_array_index (exp->slopes, MdlVatSlope, i).algorithm, algorithm) == 0)
      return &g_array_index (exp->slopes, MdlVatSlope, i);
  return NULL;
}

/* ---- table ---------------------------------------------------------------------------------- */

/* The fits, the slopes and the huge-page comparison (all sizes, or with @largest_only the largest
 * size of each algorithm). */
static void
write_summary (const MdlVatExperiment *exp, GString *out, guint n_fitted, gboolean any_huge,
               gboolean largest_only)
{
  g_autofree char *reach = NULL;
  g_string_append_printf (out, "\nFits of normalized time over %u points of %u algorithms "
                          "(least squares; tau = ns per TC miss / ns per operation):\n", n_fitted,
                          exp->slopes->len);
  g_string_append (out, "  model       params    R^2   per-op ns  ns/TC miss  tau (ops)  ns/miss "
                   "L1      L2      L3\n");
  for (guint i = 0; i < exp->fits->len; i++)
    {
      const MdlVatFitInfo *f = &g_array_index (exp->fits, MdlVatFitInfo, i);
      gboolean vat = g_str_has_prefix (f->model, "vat"), em = strstr (f->model, "em") != NULL;
      g_string_append_printf (out, "  %-11s %6u", f->model, f->n_params);
      append_num (out, 6, "%.3f", f->r2);
      append_num (out, 11, "%.3f", f->per_op_ns);
      append_num (out, 11, "%.3f", vat ? f->miss_ns : NAN);
      append_num (out, 10, "%.1f", vat ? f->tau : NAN);
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        append_num (out, l == 0 ? 10 : 7, "%.2f", em && exp->cache_bytes[l] ? f->level_ns[l] : NAN);
      g_string_append_printf (out, "\n      %s\n", f->description);
    }

  reach = mdl_bytes_text (exp->tc_cells * exp->page_bytes);
  g_string_append_printf (out, "\nSlopes of normalized time against log2 n (ns per operation per "
                          "doubling of n); \"large\": arrays beyond the TLB reach (W pages = "
                          "%s):\n", reach);
  g_string_append (out, "  algorithm            thesis (running time)               mean ns  "
                   "measured     VAT      EM | large: measured     VAT      EM\n");
  for (guint i = 0; i < exp->slopes->len; i++)
    {
      const MdlVatSlope *s = &g_array_index (exp->slopes, MdlVatSlope, i);
      g_string_append_printf (out, "  %-20s %-34s", s->algorithm, s->thesis);
      append_num (out, 8, "%.3f", s->mean_ns);
      append_num (out, 9, "%+.3f", s->measured);
      append_num (out, 7, "%+.3f", s->vat);
      append_num (out, 7, "%+.3f", s->em);
      g_string_append (out, " |        ");
      append_num (out, 8, "%+.3f", s->measured_large);
      append_num (out, 7, "%+.3f", s->vat_large);
      append_num (out, 7, "%+.3f", s->em_large);
      g_string_append_c (out, '\n');
    }

  if (any_huge)
    {
      g_string_append_printf (out, "\nHuge pages: time with 2 MiB pages / time with 4 KiB pages, "
                              "measured, and predicted by the VAT fit with huge=1 (P=%"
                              G_GUINT64_FORMAT " KiB, d=%" G_GUINT64_FORMAT "):\n",
                              (exp->page_bytes * exp->arity) >> 10, exp->depth - 1);
      g_string_append (out, "  algorithm            log2 n   measured %  predicted %   TC/op 4K  "
                       "TC/op 2M\n");
      for (guint i = 0; i < exp->points->len; i++)
        {
          const MdlVatPoint *h = point_at (exp, i), *s;
          g_autoptr (GString) l = g_string_new (NULL);
          if (!h->huge_pages || (s = small_twin (exp, h)) == NULL)
            continue;
          if (largest_only && i + 1 < exp->points->len && point_at (exp, i + 1)->huge_pages
              && strcmp (point_at (exp, i + 1)->algorithm, h->algorithm) == 0)
            continue;
          append_log2 (l, h->n);
          g_string_append_printf (out, "  %-20s %6s", h->algorithm, l->str);
          append_num (out, 12, "%.1f", 100 * h->seconds / s->seconds);
          append_num (out, 12, "%.1f", 100 * h->vat_ns / s->vat_ns);
          append_num (out, 10, "%.4f", (double) s->tc_misses / (double) s->ram_ops);
          append_num (out, 9, "%.4f", (double) h->tc_misses / (double) h->ram_ops);
          g_string_append_c (out, '\n');
        }
    }
}

/* The warnings, one "warning: " line each, where a reader of the table cannot miss them. */
static void
write_warnings (const MdlVatExperiment *exp, GString *out)
{
  g_auto (GStrv) lines = g_strsplit (exp->warnings->str, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      g_string_append_printf (out, "warning: %s\n", lines[i]);
}

static void
write_table (const MdlVatExperiment *exp, GString *out)
{
  const char *current = NULL;
  guint n_fitted = 0;
  gboolean any_huge = FALSE;

  g_string_append (out, "VAT experiment: normalized time (ns per RAM operation) against log2 n, "
                   "measured and predicted\n");
  g_string_append (out, exp->notes->str);
  write_warnings (exp, out);
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = point_at (exp, i);
      if (p->huge_pages)
        {
          any_huge = TRUE;
          continue;
        }
      n_fitted++;
      if (current == NULL || strcmp (current, p->algorithm) != 0)
        {
          const MdlVatSlope *s = slope_of_algo (exp, p->algorithm);
          current = p->algorithm;
          g_string_append_printf (out, "\n%s   (thesis: %s)\n", p->algorithm, s ? s->thesis : "-");
          g_string_append (out, "  log2 n          n   ops/n     time s   ns/op    TC/op  VAT ns"
                           "    L1/op    L2/op    L3/op   EM ns  reps\n");
        }
      g_string_append (out, "  ");
      {
        g_autoptr (GString) l = g_string_new (NULL);
        append_log2 (l, p->n);
        g_string_append_printf (out, "%6s %10" G_GUINT64_FORMAT, l->str, p->n);
      }
      append_num (out, 7, "%.2f", (double) p->ram_ops / (double) p->n);
      append_num (out, 10, "%.3e", p->seconds);
      append_num (out, 7, "%.3f", p->norm_ns);
      append_num (out, 8, "%.4f", p->ram_ops ? (double) p->tc_misses / (double) p->ram_ops : NAN);
      append_num (out, 7, "%.3f", p->vat_ns);
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        append_num (out, 8, "%.4f", exp->cache_bytes[l] && p->ram_ops
                                    ? (double) p->em_misses[l] / (double) p->ram_ops : NAN);
      append_num (out, 7, "%.3f", p->em_ns);
      g_string_append_printf (out, " %5u\n", p->reps);
    }
  write_summary (exp, out, n_fitted, any_huge, FALSE);
  mdl_vat_cpu_write_table (exp, out);
}

/* ---- CSV ---------------------------------------------------------------------------------- */

static void
write_csv (const MdlVatExperiment *exp, GString *out)
{
  g_string_append (out, "algorithm,n,log2_n,pages,bytes,reps,seconds_min,seconds_median,ram_ops,"
                   "accesses,tc_misses,tc_misses_small,em_misses_l1,em_misses_l2,em_misses_l3,"
                   "lines,norm_ns,vat_ns,em_ns,arrays_pages,huge_granted\n");
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = point_at (exp, i);
      const double times[] = { p->seconds, p->seconds_median };
      const double norm[] = { p->norm_ns, p->vat_ns, p->em_ns };
      g_string_append_printf (out, "%s,%" G_GUINT64_FORMAT ",", p->algorithm, p->n);
      mdl_experiment_append_real (out, log2 ((double) p->n), "");
      g_string_append_printf (out, ",%s,%" G_GUINT64_FORMAT ",%u", p->huge_pages ? "2M" : "4K",
                              p->bytes, p->reps);
      append_reals (out, ',', times, G_N_ELEMENTS (times), "");
      g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",", p->ram_ops, p->accesses, p->tc_misses);
      if (p->huge_pages)
        g_string_append (out, ",,,,");
      else
        {
          g_string_append_printf (out, "%" G_GUINT64_FORMAT, p->tc_misses_small);
          for (guint l = 0; l < VAT_EM_LEVELS; l++)
            if (exp->cache_bytes[l])
              g_string_append_printf (out, ",%" G_GUINT64_FORMAT, p->em_misses[l]);
            else
              g_string_append_c (out, ',');
          g_string_append_printf (out, ",%" G_GUINT64_FORMAT, p->lines);
        }
      append_reals (out, ',', norm, G_N_ELEMENTS (norm), "");
      g_string_append_printf (out, ",%s", p->huge_asked ? "2M" : "4K");
      append_reals (out, ',', &p->huge_granted, 1, "");
      g_string_append_c (out, '\n');
    }
}

/* The fits and the slopes are two tables of one shape, which one CSV and one JSON writer print: a
 * name, a text and a count, then reals, the last few of which JSON groups in an array. */
#define SUMMARY_REALS_MAX 8

typedef struct {
  const char *key;          /* JSON key */
  gsize at;                 /* offset in the record */
} SummaryField;

typedef struct {
  const char *csv_header;
  gboolean text_last;       /* CSV: the text is the last column, not the second */
  SummaryField name, text, count;         /* const char *, const char *, guint */
  SummaryField reals[SUMMARY_REALS_MAX];  /* doubles, in CSV order */
  guint n_reals;
  guint n_keyed;            /* JSON: reals[0..n_keyed-1] are members, the rest the array */
  const char *array_key;
} Summary;

#define FIT_FIELD(key, field) { key, G_STRUCT_OFFSET (MdlVatFitInfo, field) }
#define SLOPE_FIELD(key, field) { key, G_STRUCT_OFFSET (MdlVatSlope, field) }

static const Summary fit_summary = {
  .csv_header = "model,params,r2,per_op_ns,miss_ns,tau,level_ns_l1,level_ns_l2,level_ns_l3,"
                "description\n",
  .text_last = TRUE,
  .name = FIT_FIELD ("model", model),
  .text = FIT_FIELD ("description", description),
  .count = FIT_FIELD ("params", n_params),
  .reals = { FIT_FIELD ("r2", r2), FIT_FIELD ("per_op_ns", per_op_ns),
             FIT_FIELD ("miss_ns", miss_ns), FIT_FIELD ("tau", tau), FIT_FIELD (NULL, level_ns[0]),
             FIT_FIELD (NULL, level_ns[1]), FIT_FIELD (NULL, level_ns[2]) },
  .n_reals = 4 + VAT_EM_LEVELS,
  .n_keyed = 4,
  .array_key = "level_ns",
};

static const Summary slope_summary = {
  .csv_header = "algorithm,thesis,points,mean_ns,measured,vat,em,measured_large,vat_large,"
                "em_large\n",
  .name = SLOPE_FIELD ("algorithm", algorithm),
  .text = SLOPE_FIELD ("thesis", thesis),
  .count = SLOPE_FIELD ("points", n_points),
  .reals = { SLOPE_FIELD ("mean_ns", mean_ns), SLOPE_FIELD ("measured", measured),
             SLOPE_FIELD ("vat", vat), SLOPE_FIELD ("em", em),
             SLOPE_FIELD ("measured_large", measured_large), SLOPE_FIELD ("vat_large", vat_large),
             SLOPE_FIELD ("em_large", em_large) },
  .n_reals = 7,
  .n_keyed = 7,
};

/* Record @i of @table (an array of the records @s describes), read through @s. */
typedef struct {
  const char *name, *text;
  guint count;
  double v[SUMMARY_REALS_MAX];
} SummaryRow;

static SummaryRow
summary_row (const Summary *s, const GArray *table, guint i)
{
  const char *rec = table->data + (gsize) i * g_array_get_element_size ((GArray *) table);
  SummaryRow row;
  memcpy (&row.name, rec + s->name.at, sizeof row.name);
  memcpy (&row.text, rec + s->text.at, sizeof row.text);
  memcpy (&row.count, rec + s->count.at, sizeof row.count);
  for (guint j = 0; j < s->n_reals; j++)
    memcpy (&row.v[j], rec + s->reals[j].at, sizeof row.v[j]);
  return row;
}

static void
write_summary_csv (const Summary *s, const GArray *table, GString *out)
{
  g_string_append (out, s->csv_header);
  for (guint i = 0; i < table->len; i++)
    {
      SummaryRow row = summary_row (s, table, i);
      g_string_append (out, row.name);
      if (!s->text_last)
        g_string_append_printf (out, ",\"%s\"", row.text);
      g_string_append_printf (out, ",%u", row.count);
      append_reals (out, ',', row.v, s->n_reals, "");
      if (s->text_last)
        g_string_append_printf (out, ",\"%s\"", row.text);
      g_string_append_c (out, '\n');
    }
}

/* ---- JSON --------------------------------------------------------------------------------- */

/* Appends "KEY": VALUE for each of the @n reals, separated by ", " (NaN as null). */
static void
json_reals (GString *out, const char *const *keys, const double *v, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (out, "%s\"%s\": ", i ? ", " : "", keys[i]);
      mdl_experiment_append_real (out, v[i], "null");
    }
}

/* Opens object @i of an array with its first member, a string. */
static void
json_open (GString *out, guint i, const char *key, const char *value)
{
  g_string_append_printf (out, "%s{\"%s\": ", i ? ",\n    " : "\n    ", key);
  mdl_json_string (out, value);
}

/* The "KEY": [...] array of @table for JSON: its objects in the style of the points. */
static void
write_summary_json (const Summary *s, const GArray *table, GString *out)
{
  const char *keys[SUMMARY_REALS_MAX];
  for (guint j = 0; j < s->n_keyed; j++)
    keys[j] = s->reals[j].key;
  for (guint i = 0; i < table->len; i++)
    {
      SummaryRow row = summary_row (s, table, i);
      json_open (out, i, s->name.key, row.name);
      g_string_append_printf (out, ", \"%s\": ", s->text.key);
      mdl_json_string (out, row.text);
      g_string_append_printf (out, ", \"%s\": %u, ", s->count.key, row.count);
      json_reals (out, keys, row.v, s->n_keyed);
      if (s->array_key)
        {
          g_string_append_printf (out, ", \"%s\": [", s->array_key);
          for (guint j = s->n_keyed; j < s->n_reals; j++)
            {
              mdl_experiment_append_real (out, row.v[j], "null");
              g_string_append (out, j + 1 < s->n_reals ? ", " : "]");
            }
        }
      g_string_append_c (out, '}');
    }
}

static void
write_json (const MdlVatExperiment *exp, GString *out)
{
  static const char *const time_keys[] = { "seconds_min", "seconds_median" };
  static const char *const norm_keys[] = { "norm_ns", "vat_ns", "em_ns" };
  static const char *const granted_key[] = { "huge_granted" };
  g_string_append (out, "{\n  \"experiment\": \"vat\",\n  \"machine\": ");
  mdl_json_string (out, exp->machine);
  g_string_append_printf (out, ",\n  \"model\": {\"P\": %" G_GUINT64_FORMAT ", \"K\": %"
                          G_GUINT64_FORMAT ", \"d\": %" G_GUINT64_FORMAT ", \"W\": %"
                          G_GUINT64_FORMAT ", \"W_small\": %" G_GUINT64_FORMAT
                          ", \"cache_bytes\": [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %"
                          G_GUINT64_FORMAT "]},\n",
                          exp->page_bytes, exp->arity, exp->depth, exp->tc_cells, exp->tc_small,
                          exp->cache_bytes[0], exp->cache_bytes[1], exp->cache_bytes[2]);
  g_string_append (out, "  \"cpu\": ");
  mdl_json_string (out, exp->cpu_model);
  g_string_append (out, ",\n  \"notes\": [");
  mdl_experiment_json_lines (out, exp->notes->str);
  g_string_append (out, "\n  ],\n  \"warnings\": [");
  mdl_experiment_json_lines (out, exp->warnings->str);
  g_string_append (out, "\n  ],\n  \"points\": [");
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = point_at (exp, i);
      const double times[] = { p->seconds, p->seconds_median };
      const double norm[] = { p->norm_ns, p->vat_ns, p->em_ns };
      json_open (out, i, "algorithm", p->algorithm);
      g_string_append_printf (out, ", \"n\": %" G_GUINT64_FORMAT ", \"pages\": \"%s\", \"bytes\": %"
                              G_GUINT64_FORMAT ", \"reps\": %u, ", p->n, p->huge_pages ? "2M" : "4K",
                              p->bytes, p->reps);
      json_reals (out, time_keys, times, G_N_ELEMENTS (times));
      g_string_append_printf (out, ", \"ram_ops\": %" G_GUINT64_FORMAT ", \"accesses\": %"
                              G_GUINT64_FORMAT ", \"tc_misses\": %" G_GUINT64_FORMAT ", ",
                              p->ram_ops, p->accesses, p->tc_misses);
      if (!p->huge_pages)
        g_string_append_printf (out, "\"tc_misses_small\": %" G_GUINT64_FORMAT ", \"em_misses\": [%"
                                G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
                                "], \"lines\": %" G_GUINT64_FORMAT ", ", p->tc_misses_small,
                                p->em_misses[0], p->em_misses[1], p->em_misses[2], p->lines);
      json_reals (out, norm_keys, norm, G_N_ELEMENTS (norm));
      g_string_append_printf (out, ", \"arrays_pages\": \"%s\", ", p->huge_asked ? "2M" : "4K");
      json_reals (out, granted_key, &p->huge_granted, 1);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "\n  ],\n  \"fits\": [");
  write_summary_json (&fit_summary, exp->fits, out);
  g_string_append (out, "\n  ],\n  \"slopes\": [");
  write_summary_json (&slope_summary, exp->slopes, out);
  g_string_append (out, "\n  ],\n  \"cost_models\": ");
  mdl_vat_cpu_write_json (exp, out);
  g_string_append (out, "\n}\n");
}

void
mdl_vat_experiment_write (const MdlVatExperiment *exp, MdlFormat format, GString *out)
{
  g_return_if_fail (exp != NULL && out != NULL);
  switch (format)
    {
    case MDL_FORMAT_CSV:
      write_csv (exp, out);
      break;
    case MDL_FORMAT_JSON:
      write_json (exp, out);
      break;
    case MDL_FORMAT_TABLE:
    default:
      write_table (exp, out);
      break;
    }
}

void
mdl_vat_experiment_write_summary (const MdlVatExperiment *exp, GString *out)
{
  guint n_fitted = 0;
  gboolean any_huge = FALSE;
  g_return_if_fail (exp != NULL && out != NULL);
  for (guint i = 0; i < exp->points->len; i++)
    {
      if (point_at (exp, i)->huge_pages)
        any_huge = TRUE;
      else
        n_fitted++;
    }
  write_warnings (exp, out);
  write_summary (exp, out, n_fitted, any_huge, TRUE);
  mdl_vat_cpu_write_table (exp, out);
}

/* ---- gnuplot ------------------------------------------------------------------------------ */

static void
plot_data (const MdlVatExperiment *exp, GString *dat, GString *huge, guint *n_algos,
           GPtrArray *huge_algos)
{
  const char *current = NULL;
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = point_at (exp, i);
      const double norm[] = { p->norm_ns, p->vat_ns, p->em_ns };
      if (p->huge_pages)
        {
          const MdlVatPoint *s = small_twin (exp, p);
          const double v[] = { s ? 100 * p->seconds / s->seconds : NAN,
                               s ? 100 * p->vat_ns / s->vat_ns : NAN };
          if (huge_algos->len == 0
              || strcmp (g_ptr_array_index (huge_algos, huge_algos->len - 1), p->algorithm) != 0)
            {
              if (huge_algos->len)
                g_string_append (huge, "\n\n");
              g_string_append_printf (huge, "# %s: log2_n measured_percent predicted_percent\n",
                                      p->algorithm);
              g_ptr_array_add (huge_algos, (gpointer) p->algorithm);
            }
          mdl_experiment_append_real (huge, log2 ((double) p->n), "?");
          append_reals (huge, ' ', v, G_N_ELEMENTS (v), "?");
          g_string_append_c (huge, '\n');
          continue;
        }
      if (current == NULL || strcmp (current, p->algorithm) != 0)
        {
          if (current)
            g_string_append (dat, "\n\n");
          g_string_append_printf (dat, "# %s: log2_n measured_ns vat_ns em_ns n\n", p->algorithm);
          current = p->algorithm;
          (*n_algos)++;
        }
      mdl_experiment_append_real (dat, log2 ((double) p->n), "?");
      append_reals (dat, ' ', norm, G_N_ELEMENTS (norm), "?");
      g_string_append_printf (dat, " %" G_GUINT64_FORMAT "\n", p->n);
    }
}

static void
plot_panels (const MdlVatExperiment *exp, GString *gp, guint n_algos, GPtrArray *huge_algos)
{
  static const char *const colors[] = { "#d62728", "#2ca02c", "#9467bd", "#8c564b" };
  guint panels = n_algos + (huge_algos->len ? 1 : 0);
  guint rows = (panels + PLOT_COLUMNS - 1) / PLOT_COLUMNS;
  g_string_append_printf (gp, "set multiplot layout %u,%u title \"VAT experiment on %s: normalized "
                          "time (ns per RAM operation) against log2 n; points measured (minimum "
                          "of repetitions), curves fitted\" font \",11\"\n", rows,
                          MIN (panels, PLOT_COLUMNS), exp->cpu_model);
  g_string_append (gp, "set datafile missing \"?\"\nset grid\nset key top left font \",7\" "
                   "samplen 2\nset xlabel \"log2 n\" offset 0,0.7\nset ylabel \"ns / op\" "
                   "offset 1.5,0\nset yrange [0:*]\n");
  for (guint a = 0; a < n_algos; a++)
    {
      const MdlVatSlope *s = a < exp->slopes->len ? &g_array_index (exp->slopes, MdlVatSlope, a)
                                                   : NULL;
      g_string_append_printf (gp, "set title \"%s\" font \",10\"\n", s ? s->algorithm : "?");
      g_string_append_printf (gp, "plot 'vat-plot.dat' index %u using 1:2 with points pt 7 ps 0.6 "
                              "lc rgb \"black\" title \"measured\", \\\n"
                              "     '' index %u using 1:3 with lines lw 2 lc rgb \"#d62728\" title "
                              "\"VAT (W=%" G_GUINT64_FORMAT ")\", \\\n"
                              "     '' index %u using 1:4 with lines lw 1.5 dt 2 lc rgb \"#1f77b4\" "
                              "title \"EM (ideal caches)\"\n", a, a, exp->tc_cells, a);
    }
  if (huge_algos->len)
    {
      g_string_append (gp, "set title \"2 MiB pages: time as % of 4 KiB\" font \",10\"\n"
                       "set ylabel \"%\"\nset yrange [0:*]\nset key bottom left\nplot ");
      for (guint h = 0; h < huge_algos->len; h++)
        g_string_append_printf (gp, "%s'vat-huge.dat' index %u using 1:2 with points pt 7 ps 0.6 "
                                "lc rgb \"%s\" title \"%s measured\", \\\n"
                                "     '' index %u using 1:3 with lines lc rgb \"%s\" title "
                                "\"%s VAT huge=1\"", h ? ", \\\n     " : "", h,
                                colors[h % G_N_ELEMENTS (colors)],
                                (const char *) g_ptr_array_index (huge_algos, h), h,
                                colors[h % G_N_ELEMENTS (colors)],
                                (const char *) g_ptr_array_index (huge_algos, h));
      g_string_append_c (gp, '\n');
    }
  g_string_append (gp, "unset multiplot\n");
}

gboolean
mdl_vat_experiment_write_files (const MdlVatExperiment *exp, const char *dir, GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GString) csv = g_string_new (NULL);
  g_autoptr (GString) fits = g_string_new (NULL);
  g_autoptr (GString) slopes = g_string_new (NULL);
  g_autoptr (GString) json = g_string_new (NULL);
  g_autoptr (GString) dat = g_string_new (NULL);
  g_autoptr (GString) huge = g_string_new (NULL);
  g_autoptr (GString) panels = g_string_new (NULL);
  g_autoptr (GString) gp = g_string_new (NULL);
  g_autoptr (GPtrArray) huge_algos = g_ptr_array_new ();
  guint n_algos = 0, n_panels, rows, cols;

  g_return_val_if_fail (exp != NULL && dir != NULL, FALSE);
  if (!mdl_experiment_make_dir (dir, error))
    return FALSE;
  write_table (exp, text);
  write_csv (exp, csv);
  write_summary_csv (&fit_summary, exp->fits, fits);
  write_summary_csv (&slope_summary, exp->slopes, slopes);
  write_json (exp, json);
  plot_data (exp, dat, huge, &n_algos, huge_algos);
  plot_panels (exp, panels, n_algos, huge_algos);
  n_panels = n_algos + (huge_algos->len ? 1 : 0);
  cols = MIN (MAX (n_panels, 1), PLOT_COLUMNS);
  rows = (n_panels + PLOT_COLUMNS - 1) / PLOT_COLUMNS;
  g_string_append_printf (gp, "# Draws vat.png and vat.svg from vat-plot.dat and vat-huge.dat: run "
                          "`gnuplot vat.gp` in this directory.\n"
                          "set terminal pngcairo size %u,%u font \"sans,9\"\n"
                          "set output 'vat.png'\nload 'vat-panels.gp'\n"
                          "set terminal svg size %u,%u font \"sans,9\"\n"
                          "set output 'vat.svg'\nload 'vat-panels.gp'\nunset output\n"
                          "reset\nload 'vat-models.gp'\n",
                          cols * 420, MAX (rows, 1) * 320 + 40, cols * 420,
                          MAX (rows, 1) * 320 + 40);
  return mdl_experiment_write_file (dir, "vat.txt", text, error)
         && mdl_experiment_write_file (dir, "vat.csv", csv, error)
         && mdl_experiment_write_file (dir, "vat-fits.csv", fits, error)
         && mdl_experiment_write_file (dir, "vat-slopes.csv", slopes, error)
         && mdl_experiment_write_file (dir, "vat.json", json, error)
         && mdl_experiment_write_file (dir, "vat-plot.dat", dat, error)
         && mdl_experiment_write_file (dir, "vat-huge.dat", huge, error)
         && mdl_experiment_write_file (dir, "vat-panels.gp", panels, error)
         && mdl_experiment_write_file (dir, "vat.gp", gp, error)
         && mdl_vat_cpu_write_files (exp, dir, error);
}
