/* Annotations (include/models/annotate.h): the per-site counts that the engines' site phases hold,
 * gathered into one matrix (site x column), and the site table's lines grouped by function. A
 * column is one exact, additive count of one engine: peaks (distinct pages, maxima) and reals
 * (ratios) have no share per line, as they have none per phase, and neither has a count that the
 * engine leaves out of its phases. A site phase is found by its name,
 * `FILE:LINE`, which is also the MDL_MARK_SITE name the sources give it; the stream's own phases
 * have other names and are passed over. Printing lives in write.c. */
#include <models/annotate.h>
#include <models/error.h>

#include "annotate/annotation-private.h"
#include "core/names.h"

#include <string.h>

/* The column label of report @k: the engine's name, numbered from its second occurrence. */
static char *
engine_label (MdlReport *const *reports, guint k)
{
  const char *name = mdl_report_engine (reports[k]);
  guint seen = 1;
  for (guint i = 0; i < k; i++)
    seen += strcmp (mdl_report_engine (reports[i]), name) == 0;
  return seen == 1 ? g_strdup (name) : g_strdup_printf ("%s%u", name, seen);
}

static gboolean
is_column (const MdlCounter *c)
{
  return !c->is_real && !c->is_peak;
}

/* TRUE when a site phase of @report holds counter @name: what an engine leaves out of its phases
 * (em's blocks cached at the end) is a state, not a sum, and has no share per line. */
static gboolean
in_site_phases (const MdlSiteTable *sites, const MdlReport *report, const char *name)
{
  for (guint p = 0; p < mdl_report_n_phases (report); p++)
    {
      const MdlReport *phase = mdl_report_phase (report, p);
      if (mdl_site_table_find (sites, mdl_report_engine (phase)) != 0
          && mdl_report_lookup (phase, name) != NULL)
        return TRUE;
    }
  return FALSE;
}

MdlAnnotation *
mdl_annotation_new (const MdlSiteTable *sites, MdlReport *const *reports, guint n_reports)
{
  MdlAnnotation *a;
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  g_return_val_if_fail (sites != NULL && (reports != NULL || n_reports == 0), NULL);
  a = g_new0 (MdlAnnotation, 1);
  a->sites = sites;
  a->n_sites = mdl_site_table_size (sites);
  a->columns = g_ptr_array_new_with_free_func (g_free);
  a->totals = g_array_new (FALSE, TRUE, sizeof (guint64));
  for (guint k = 0; k < n_reports; k++)
    {
      g_autofree char *label = engine_label (reports, k);
      for (guint c = 0; c < mdl_report_n_counters (reports[k]); c++)
        {
          const MdlCounter *counter = mdl_report_counter (reports[k], c);
          char *name;
          if (!is_column (counter) || !in_site_phases (sites, reports[k], counter->name))
            continue;
          name = g_strdup_printf ("%s.%s", label, counter->name);
          g_ptr_array_add (a->columns, name);
          g_array_append_val (a->totals, counter->count);
          g_hash_table_insert (by_name, name, GUINT_TO_POINTER (a->columns->len));
        }
    }
  a->counts = g_new0 (guint64, (gsize) (a->n_sites + 1) * MAX (a->columns->len, 1));
  for (guint k = 0; k < n_reports; k++)
    {
      g_autofree char *label = engine_label (reports, k);
      for (guint p = 0; p < mdl_report_n_phases (reports[k]); p++)
        {
          const MdlReport *phase = mdl_report_phase (reports[k], p);
          guint site = mdl_site_table_find (sites, mdl_report_engine (phase));
          if (site == 0 || site > a->n_sites)
            continue;
          for (guint c = 0; c < mdl_report_n_counters (phase); c++)
            {
              const MdlCounter *counter = mdl_report_counter (phase, c);
              g_autofree char *name = g_strdup_printf ("%s.%s", label, counter->name);
              guint col = GPOINTER_TO_UINT (g_hash_table_lookup (by_name, name));
              if (col != 0 && is_column (counter))
                a->counts[(gsize) site * a->columns->len + col - 1] += counter->count;
            }
        }
    }
  return a;
}

void
mdl_annotation_free (MdlAnnotation *annotation)
{
  if (annotation == NULL)
    return;
  g_ptr_array_unref (annotation->columns);
  g_array_unref (annotation->totals);
  g_free (annotation->counts);
  g_free (annotation);
}

guint
mdl_annotation_n_columns (const MdlAnnotation *annotation)
{
  g_return_val_if_fail (annotation != NULL, 0);
  return annotation->columns->len;
}

const char *
mdl_annotation_column (const MdlAnnotation *annotation, guint col)
{
  g_return_val_if_fail (annotation != NULL && col < annotation->columns->len, NULL);
  return g_ptr_array_index (annotation->columns, col);
}

gint
mdl_annotation_find_column (const MdlAnnotation *annotation, const char *name, GError **error)
{
  const MdlAnnotation *a = annotation;
  g_autoptr (GString) msg = NULL;
  g_return_val_if_fail (annotation != NULL && name != NULL, -1);
  for (guint i = 0; i < a->columns->len; i++)
    if (strcmp (g_ptr_array_index (a->columns, i), name) == 0)
      return (gint) i;
  /* A bare counter name: the first engine that has it. */
  for (guint i = 0; i < a->columns->len; i++)
    {
      const char *dot = strchr (g_ptr_array_index (a->columns, i), '.');
      if (dot && strcmp (dot + 1, name) == 0)
        return (gint) i;
    }
  msg = g_string_new (NULL);
  g_string_printf (msg, "unknown counter \"%s\"", name);
  mdl_names_append_choices (msg, name, (const char *const *) a->columns->pdata, a->columns->len);
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, msg->str);
  return -1;
}

guint64
mdl_annotation_total (const MdlAnnotation *annotation, guint col)
{
  g_return_val_if_fail (annotation != NULL && col < annotation->columns->len, 0);
  return g_array_index (annotation->totals, guint64, col);
}

guint64
mdl_annotation_count (const MdlAnnotation *annotation, guint site, guint col)
{
  g_return_val_if_fail (annotation != NULL && col < annotation->columns->len, 0);
  if (site == 0 || site > annotation->n_sites)
    return 0;
  return annotation->counts[(gsize) site * annotation->columns->len + col];
}
