/* Reports (include/models/report.h): counters in insertion order, phase sub-reports, and the three
 * output formats. The JSON shape is a contract with scripts and later tools: keep it stable. */
#include <models/error.h>
#include <models/report.h>

#include "core/dtoa.h"
#include "core/json.h"
#include "core/ledger.h"   /* mdl_report_new_values, the ledger's snapshots */
#include "core/names.h"

#include <math.h>
#include <string.h>

struct MdlReport {
  char *engine;
  char *spec;
  GArray *counters;   /* MdlCounter, strings owned through `strings` */
  GHashTable *index;  /* counter name -> its position + 1: curves have thousands of counters */
  GStringChunk *strings;
  GPtrArray *phases;  /* MdlReport *, owned */
};

MdlReport *
mdl_report_new_values (const char *engine)
{
  MdlReport *r = g_new0 (MdlReport, 1);
  g_return_val_if_fail (engine != NULL, NULL);
  r->engine = g_strdup (engine);
  r->spec = g_strdup (engine);
  r->counters = g_array_new (FALSE, TRUE, sizeof (MdlCounter));
  r->phases = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  return r;
}

gboolean
mdl_report_keeps_names (const MdlReport *report)
{
  return report->index != NULL;
}

void
mdl_report_values_clear (MdlReport *report)
{
  g_return_if_fail (report->index == NULL);
  g_array_set_size (report->counters, 0);
}

MdlReport *
mdl_report_new (const char *engine, const char *spec)
{
  MdlReport *r = g_new0 (MdlReport, 1);
  g_return_val_if_fail (engine != NULL, NULL);
  r->engine = g_strdup (engine);
  r->spec = g_strdup (spec ? spec : engine);
  r->counters = g_array_new (FALSE, TRUE, sizeof (MdlCounter));
  r->index = g_hash_table_new (g_str_hash, g_str_equal);
  r->strings = g_string_chunk_new (256);
  r->phases = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  return r;
}

void
mdl_report_free (MdlReport *report)
{
  if (report == NULL)
    return;
  g_free (report->engine);
  g_free (report->spec);
  g_array_unref (report->counters);
  if (report->index)
    g_hash_table_unref (report->index);
  if (report->strings)
    g_string_chunk_free (report->strings);
  g_ptr_array_unref (report->phases);
  g_free (report);
}

/* Appends a counter with the value and kind of @value (its strings are ignored); a second
 * counter of the same name is a caller bug. A values-only report keeps no strings. */
static void
counter_append (MdlReport *r, const char *name, const char *unit, const char *description,
                const char *metric, const MdlCounter *value)
{
  MdlCounter c = *value;
  g_return_if_fail (r != NULL && name != NULL && unit != NULL);
  if (r->index == NULL)
    {
      c.name = c.unit = c.description = "";
      c.metric = NULL;
      g_array_append_val (r->counters, c);
      return;
    }
  g_return_if_fail (mdl_report_lookup (r, name) == NULL);
  c.name = g_string_chunk_insert_const (r->strings, name);
  c.unit = g_string_chunk_insert_const (r->strings, unit);
  c.description = g_string_chunk_insert_const (r->strings, description ? description : "");
  c.metric = metric ? g_string_chunk_insert_const (r->strings, metric) : NULL;
  g_array_append_val (r->counters, c);
  g_hash_table_insert (r->index, (gpointer) c.name, GUINT_TO_POINTER (r->counters->len));
}

void
mdl_report_add_count (MdlReport *report, const char *name, const char *unit,
                      const char *description, const char *metric, guint64 value)
{
  counter_append (report, name, unit, description, metric, &(MdlCounter) { .count = value });
}

void
mdl_report_add_peak (MdlReport *report, const char *name, const char *unit,
                     const char *description, const char *metric, guint64 value)
{
  counter_append (report, name, unit, description, metric,
                  &(MdlCounter) { .count = value, .is_peak = TRUE });
}

void
mdl_report_add_real (MdlReport *report, const char *name, const char *unit,
                     const char *description, const char *metric, double value)
{
  counter_append (report, name, unit, description, metric,
                  &(MdlCounter) { .real = value, .is_real = TRUE });
}

const char *
mdl_report_engine (const MdlReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  return report->engine;
}

const char *
mdl_report_spec (const MdlReport *report)
{
  g_return_val_if_fail (report != NULL, NULL);
  return report->spec;
}

guint
mdl_report_n_counters (const MdlReport *report)
{
  g_return_val_if_fail (report != NULL, 0);
  return report->counters->len;
}

const MdlCounter *
mdl_report_counter (const MdlReport *report, guint i)
{
  g_return_val_if_fail (report != NULL && i < report->counters->len, NULL);
  return &g_array_index (report->counters, MdlCounter, i);
}

const MdlCounter *
mdl_report_lookup (const MdlReport *report, const char *name)
{
  guint at;
  g_return_val_if_fail (report != NULL && name != NULL, NULL);
  if (report->index == NULL)
    return NULL;
  at = GPOINTER_TO_UINT (g_hash_table_lookup (report->index, name));
  return at ? &g_array_index (report->counters, MdlCounter, at - 1) : NULL;
}

/* Beyond this many counters (a VAT curve has thousands) the message names the closest one only. */
#define REPORT_GET_MAX_LISTED 40

const MdlCounter *
mdl_report_get (const MdlReport *report, const char *name, GError **error)
{
  const MdlCounter *c;
  g_return_val_if_fail (report != NULL && name != NULL, NULL);
  c = mdl_report_lookup (report, name);
  if (c == NULL)
    {
      guint n = report->index ? report->counters->len : 0;
      g_autofree const char **names = g_new (const char *, n + 1);
      g_autoptr (GString) msg = g_string_new (NULL);
      for (guint i = 0; i < n; i++)
        names[i] = g_array_index (report->counters, MdlCounter, i).name;
      g_string_printf (msg, "report \"%s\" has no counter \"%s\"", report->spec, name);
      if (n == 0)
        g_string_append (msg, "; it has no named counters");
      else if (n <= REPORT_GET_MAX_LISTED)
        mdl_names_append_choices (msg, name, names, n);
      else
        {
          const char *close = mdl_names_closest (name, names, n);
          g_string_append_printf (msg, "; it has %u counters (`models list --engine` with this "
                                  "spec lists them)", n);
          if (close)
            g_string_append_printf (msg, " (did you mean \"%s\"?)", close);
        }
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, msg->str);
    }
  return c;
}

void
mdl_report_add_phase (MdlReport *report, MdlReport *phase)
{
  g_return_if_fail (report != NULL && phase != NULL);
  g_ptr_array_add (report->phases, phase);
}

guint
mdl_report_n_phases (const MdlReport *report)
{
  g_return_val_if_fail (report != NULL, 0);
  return report->phases->len;
}

const MdlReport *
mdl_report_phase (const MdlReport *report, guint i)
{
  g_return_val_if_fail (report != NULL && i < report->phases->len, NULL);
  return g_ptr_array_index (report->phases, i);
}

gboolean
mdl_format_from_name (const char *name, MdlFormat *format, GError **error)
{
  static const char *const names[] = { "table", "json", "csv" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      {
        *format = (MdlFormat) i;
        return TRUE;
      }
  g_autoptr (GString) msg = g_string_new (NULL);
  g_string_printf (msg, "unknown output format \"%s\"", name ? name : "");
  mdl_names_append_choices (msg, name, names, G_N_ELEMENTS (names));
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, msg->str);
  return FALSE;
}

/* ---- formatting ---- */


/* A real as JSON/CSV text: shortest round-trip form; NaN (not applicable) as @nan_text. */
static void
real_text (GString *out, double v, const char *nan_text)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (v))
    {
      g_string_append (out, nan_text);
      return;
    }
  g_string_append (out, mdl_dtoa_shortest (v, buf));
}

static void
value_text (GString *out, const MdlCounter *c, const char *nan_text)
{
  if (c->is_real)
    real_text (out, c->real, nan_text);
  else
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, c->count);
}

static void
json_counters (GString *out, const MdlReport *r)
{
  g_string_append_c (out, '{');
  for (guint i = 0; i < r->counters->len; i++)
    {
      const MdlCounter *c = &g_array_index (r->counters, MdlCounter, i);
      if (i)
        g_string_append (out, ", ");
      mdl_json_string (out, c->name);
      g_string_append (out, ": ");
      value_text (out, c, "null");
    }
  g_string_append_c (out, '}');
}

static void
json_string_map (GString *out, const MdlReport *r, gboolean metrics)
{
  gboolean first = TRUE;
  g_string_append_c (out, '{');
  for (guint i = 0; i < r->counters->len; i++)
    {
      const MdlCounter *c = &g_array_index (r->counters, MdlCounter, i);
      const char *v = metrics ? c->metric : c->unit;
      if (v == NULL)
        continue;
      g_string_append (out, first ? "" : ", ");
      first = FALSE;
      mdl_json_string (out, c->name);
      g_string_append (out, ": ");
      mdl_json_string (out, v);
    }
  g_string_append_c (out, '}');
}

static void
write_json (const MdlSourceInfo *src, const char *partial, MdlReport *const *reports, guint n,
            GString *out)
{
  g_string_append (out, "{\"source\": {\"name\": ");
  mdl_json_string (out, src->name ? src->name : "");
  g_string_append_printf (out, ", \"events\": %" G_GUINT64_FORMAT ", \"seconds\": ", src->events);
  real_text (out, src->seconds, "null");
  if (partial)
    {
      g_string_append (out, ", \"partial\": ");
      mdl_json_string (out, partial);
    }
  g_string_append (out, "},\n \"reports\": [");
  for (guint i = 0; i < n; i++)
    {
      const MdlReport *r = reports[i];
      g_string_append (out, i ? ",\n  {" : "\n  {");
      g_string_append (out, "\"engine\": ");
      mdl_json_string (out, r->engine);
      g_string_append (out, ", \"spec\": ");
      mdl_json_string (out, r->spec);
      g_string_append (out, ",\n   \"counters\": ");
      json_counters (out, r);
      g_string_append (out, ",\n   \"units\": ");
      json_string_map (out, r, FALSE);
      g_string_append (out, ",\n   \"metrics\": ");
      json_string_map (out, r, TRUE);
      g_string_append (out, ",\n   \"phases\": {");
      for (guint p = 0; p < r->phases->len; p++)
        {
          const MdlReport *ph = g_ptr_array_index (r->phases, p);
          g_string_append (out, p ? ",\n     " : "\n     ");
          mdl_json_string (out, ph->engine);
          g_string_append (out, ": ");
          json_counters (out, ph);
        }
      g_string_append (out, "}}");
    }
  g_string_append (out, "\n ]}\n");
}

static void
csv_rows (GString *out, const MdlReport *top, const MdlReport *r, const char *phase)
{
  for (guint i = 0; i < r->counters->len; i++)
    {
      const MdlCounter *c = &g_array_index (r->counters, MdlCounter, i);
      mdl_csv_append_field (out, top->engine);
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, top->spec);
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, phase);
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, c->name);
      g_string_append_c (out, ',');
      value_text (out, c, "");
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, c->unit);
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, c->metric);
      g_string_append_c (out, '\n');
    }
}

static void
write_csv (MdlReport *const *reports, guint n, GString *out)
{
  g_string_append (out, "engine,spec,phase,counter,value,unit,metric\n");
  for (guint i = 0; i < n; i++)
    {
      csv_rows (out, reports[i], reports[i], "");
      for (guint p = 0; p < reports[i]->phases->len; p++)
        {
          const MdlReport *ph = g_ptr_array_index (reports[i]->phases, p);
          csv_rows (out, reports[i], ph, ph->engine);
        }
    }
}

/* Counts get thousands separators in tables: miss counts are read by people in the millions. */
static void
table_value (GString *out, const MdlCounter *c)
{
  if (c->is_real)
    {
      if (!isfinite (c->real))
        g_string_append (out, "n/a");
      else
        g_string_append_printf (out, "%.4g", c->real);
      return;
    }
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, c->count);
  gsize len = strlen (digits);
  for (gsize i = 0; i < len; i++)
    {
      if (i && (len - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
}

/* A series in a table: a run of more than this many counters named PREFIX_wN (the vat curve,
 * one counter per W) is summarized, since a curve to W = 2^20 is a million lines on a terminal.
 * CSV and JSON keep every point: they are for programs and plots. */
#define TABLE_SERIES_MAX MDL_REPORT_TABLE_SERIES_MAX

/* The length of PREFIX in a name PREFIX_wN (N decimal), with N in *@w; 0 when not such a name. */
static gsize
series_prefix (const char *name, guint64 *w)
{
  const char *at = strrchr (name, '_');
  if (at == NULL || at[1] != 'w' || !g_ascii_isdigit (at[2]))
    return 0;
  for (const char *p = at + 2; *p; p++)
    if (!g_ascii_isdigit (*p))
      return 0;
  *w = g_ascii_strtoull (at + 2, NULL, 10);
  return (gsize) (at - name);
}

/* The number of counters from @i on that form one series with counter @i (1 when none). */
static guint
series_run (const MdlReport *r, guint i)
{
  const char *first = g_array_index (r->counters, MdlCounter, i).name;
  guint64 w;
  gsize len = series_prefix (first, &w);
  guint n = 1;
  if (len == 0)
    return 1;
  while (i + n < r->counters->len)
    {
      const char *next = g_array_index (r->counters, MdlCounter, i + n).name;
      if (series_prefix (next, &w) != len || strncmp (next, first, len) != 0)
        break;
      n++;
    }
  return n;
}

/* The longest series in @r (its counters only). */
static guint
longest_series (const MdlReport *r)
{
  guint longest = 0;
  for (guint i = 0; i < r->counters->len;)
    {
      guint n = series_run (r, i);
      guint64 w;
      if (n > 1 || series_prefix (g_array_index (r->counters, MdlCounter, i).name, &w))
        longest = MAX (longest, n);
      i += n;
    }
  return longest;
}

guint
mdl_reports_longest_series (MdlReport *const *reports, guint n_reports)
{
  guint longest = 0;
  g_return_val_if_fail (reports != NULL || n_reports == 0, 0);
  for (guint i = 0; i < n_reports; i++)
    {
      longest = MAX (longest, longest_series (reports[i]));
      for (guint p = 0; p < reports[i]->phases->len; p++)
        longest = MAX (longest, longest_series (g_ptr_array_index (reports[i]->phases, p)));
    }
  return longest;
}

static void
table_block (GString *out, const MdlReport *r, const char *indent)
{
  guint name_w = 4, value_w = 5, unit_w = 4;
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_autofree gboolean *shown = g_new (gboolean, r->counters->len + 1);
  g_autofree guint *summary = g_new0 (guint, r->counters->len + 1); /* at a series' start: its length */
  for (guint i = 0; i < r->counters->len; i++)
    shown[i] = TRUE;
  for (guint i = 0; i < r->counters->len;)
    {
      guint n = series_run (r, i);
      if (n > TABLE_SERIES_MAX)
        summary[i] = n;
      if (n > TABLE_SERIES_MAX)
        for (guint k = 0; k < n; k++)
          {
            guint64 w = 0;
            series_prefix (g_array_index (r->counters, MdlCounter, i + k).name, &w);
            shown[i + k] = k == 0 || k == n - 1 || (w & (w - 1)) == 0;
          }
      i += n;
    }
  for (guint i = 0; i < r->counters->len; i++)
    {
      const MdlCounter *c = &g_array_index (r->counters, MdlCounter, i);
      GString *v = g_string_new (NULL);
      table_value (v, c);
      name_w = MAX (name_w, (guint) strlen (c->name));
      value_w = MAX (value_w, (guint) v->len);
      unit_w = MAX (unit_w, (guint) strlen (c->unit));
      g_ptr_array_add (values, g_string_free (v, FALSE));
    }
  for (guint i = 0; i < r->counters->len; i++)
    {
      const MdlCounter *c = &g_array_index (r->counters, MdlCounter, i);
      guint n = summary[i];
      if (n)
        {
          const MdlCounter *last = &g_array_index (r->counters, MdlCounter, i + n - 1);
          g_string_append_printf (out, "%s  (%u points from %s to %s; the table shows the ends "
                                  "and the powers of two, --format csv or json every point)\n",
                                  indent, n, c->name, last->name);
        }
      if (!shown[i])
        continue;
      g_string_append_printf (out, "%s  %-*s %*s %-*s  %s\n", indent, (int) name_w, c->name,
                              (int) value_w, (const char *) g_ptr_array_index (values, i),
                              (int) unit_w, c->unit, c->description);
    }
}

static void
write_table (const MdlSourceInfo *src, const char *partial, MdlReport *const *reports, guint n,
             GString *out)
{
  g_string_append_printf (out, "source: %s  (%" G_GUINT64_FORMAT " events, %.3f s)\n",
                          src->name ? src->name : "", src->events, src->seconds);
  if (partial)
    g_string_append_printf (out, "PARTIAL: %s; the counts cover only the events above\n",
                            partial);
  for (guint i = 0; i < n; i++)
    {
      const MdlReport *r = reports[i];
      g_string_append_printf (out, "\n%s\n", r->spec);
      table_block (out, r, "");
      for (guint p = 0; p < r->phases->len; p++)
        {
          const MdlReport *ph = g_ptr_array_index (r->phases, p);
          g_string_append_printf (out, "  phase %s\n", ph->engine);
          table_block (out, ph, "  ");
        }
    }
}

void
mdl_reports_write_partial (const MdlSourceInfo *source, const char *partial,
                           MdlReport *const *reports, guint n_reports, MdlFormat format,
                           GString *out)
{
  g_return_if_fail (source != NULL && (reports != NULL || n_reports == 0) && out != NULL);
  switch (format)
    {
    case MDL_FORMAT_JSON:
      write_json (source, partial, reports, n_reports, out);
      break;
    case MDL_FORMAT_CSV:
      write_csv (reports, n_reports, out);
      break;
    case MDL_FORMAT_TABLE:
    default:
      write_table (source, partial, reports, n_reports, out);
      break;
    }
}

void
mdl_reports_write (const MdlSourceInfo *source, MdlReport *const *reports, guint n_reports,
                   MdlFormat format, GString *out)
{
  mdl_reports_write_partial (source, NULL, reports, n_reports, format, out);
}
