/* Printing an annotation (mdl_annotation_write): the per-function and per-line tables, hottest
 * first by the sort column, rows under the threshold left out (cg_annotate's rule: a row is kept
 * when it holds at least THRESHOLD percent of the sort column's total), then the source files with
 * the counts of each line in the margin: only the lines above the threshold, with a few lines of
 * context around them, as cg_annotate prints them. JSON and CSV carry the same rows, no source. */
#include <models/annotate.h>
#include <models/error.h>

#include "annotate/annotation-private.h"
#include "core/json.h"

#include <string.h>

typedef struct {
  const char *file;
  guint line;          /* 0 for a function row */
  const char *function;
  guint64 *counts;     /* one per column; borrowed (lines) or owned by the function table */
} Row;

typedef struct {
  const MdlAnnotation *a;
  guint sort;
  gboolean table;      /* printing for people */
  GArray *shown;       /* guint column indices */
} View;

static int
row_cmp (gconstpointer pa, gconstpointer pb, gpointer data)
{
  const Row *x = pa, *y = pb;
  const View *v = data;
  guint64 cx = x->counts[v->sort], cy = y->counts[v->sort];
  int by_name;
  if (cx != cy)
    return cx > cy ? -1 : 1;
  if ((by_name = strcmp (x->file, y->file)) != 0)
    return by_name;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return strcmp (x->function, y->function);
}

static gboolean
any_count (const MdlAnnotation *a, const guint64 *counts)
{
  for (guint c = 0; c < a->columns->len; c++)
    if (counts[c])
      return TRUE;
  return FALSE;
}

/* Every site with a count, as a line row. */
static GArray *
line_rows (const MdlAnnotation *a)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  for (guint s = 1; s <= a->n_sites; s++)
    {
      const MdlSite *site = mdl_site_table_get (a->sites, s);
      Row r = { site->file, site->line, site->function, a->counts + (gsize) s * a->columns->len };
      if (any_count (a, r.counts))
        g_array_append_val (rows, r);
    }
  return rows;
}

/* The line rows summed by function (and file: two static functions may share a name). */
static GArray *
function_rows (const MdlAnnotation *a, const GArray *lines)
{
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  for (guint i = 0; i < lines->len; i++)
    {
      const Row *l = &g_array_index (lines, Row, i);
      char *key = g_strconcat (l->function, "\n", l->file, NULL);
      gpointer at = g_hash_table_lookup (index, key);
      Row *f;
      if (at == NULL)
        {
          Row r = { l->file, 0, l->function, g_new0 (guint64, MAX (a->columns->len, 1)) };
          g_array_append_val (rows, r);
          g_hash_table_insert (index, key, GUINT_TO_POINTER (rows->len));
          at = GUINT_TO_POINTER (rows->len);
        }
      else
        g_free (key);
      f = &g_array_index (rows, Row, GPOINTER_TO_UINT (at) - 1);
      for (guint c = 0; c < a->columns->len; c++)
        f->counts[c] += l->counts[c];
    }
  return rows;
}

static void
function_rows_free (GArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    g_free (g_array_index (rows, Row, i).counts);
  g_array_unref (rows);
}

static gboolean
above (const View *v, const Row *r, double threshold)
{
  guint64 total = mdl_annotation_total (v->a, v->sort);
  if (threshold <= 0 || total == 0)
    return TRUE;
  return (double) r->counts[v->sort] * 100.0 >= threshold * (double) total;
}

/* Sorts @rows hottest first and drops those under the threshold, freeing the counts of the
 * dropped ones when the rows own them (function rows). */
static void
select_rows (const View *v, GArray *rows, double threshold, gboolean own_counts)
{
  guint kept = 0;
  g_array_sort_with_data (rows, row_cmp, (gpointer) v);
  for (guint i = 0; i < rows->len; i++)
    if (above (v, &g_array_index (rows, Row, i), threshold))
      g_array_index (rows, Row, kept++) = g_array_index (rows, Row, i);
    else if (own_counts)
      g_free (g_array_index (rows, Row, i).counts);
  g_array_set_size (rows, kept);
}

static char *
grouped (guint64 v)
{
  g_autofree char *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
  GString *s = g_string_new (NULL);
  gsize n = strlen (digits);
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (s, ',');
      g_string_append_c (s, digits[i]);
    }
  return g_string_free (s, FALSE);
}

/* The width of each shown column: its name, or its widest number. */
static guint *
column_widths (const View *v)
{
  guint *w = g_new0 (guint, MAX (v->shown->len, 1));
  for (guint i = 0; i < v->shown->len; i++)
    {
      guint col = g_array_index (v->shown, guint, i);
      g_autofree char *total = grouped (mdl_annotation_total (v->a, col));
      w[i] = MAX (strlen (mdl_annotation_column (v->a, col)), strlen (total));
    }
  return w;
}

/* The counts of @counts in the shown columns, right-aligned; "." for a line with none. */
static void
margin (GString *out, const View *v, const guint *widths, const guint64 *counts)
{
  for (guint i = 0; i < v->shown->len; i++)
    {
      guint col = g_array_index (v->shown, guint, i);
      g_autofree char *n = counts ? grouped (counts[col]) : g_strdup (".");
      g_string_append_printf (out, "%*s  ", (int) widths[i], n);
    }
}

static void
header (GString *out, const View *v, const guint *widths, const char *last)
{
  for (guint i = 0; i < v->shown->len; i++)
    g_string_append_printf (out, "%*s  ", (int) widths[i],
                            mdl_annotation_column (v->a, g_array_index (v->shown, guint, i)));
  if (*last == '\0')
    g_string_truncate (out, out->len - 2);
  g_string_append_printf (out, "%s\n", last);
}

/* Reads @file, or a relative @file under one of @dirs. */
static gboolean
read_source (const char *file, const char *const *dirs, char **text)
{
  if (g_file_get_contents (file, text, NULL, NULL))
    return TRUE;
  for (const char *const *d = dirs; d && *d && !g_path_is_absolute (file); d++)
    {
      g_autofree char *path = g_build_filename (*d, file, NULL);
      if (g_file_get_contents (path, text, NULL, NULL))
        return TRUE;
    }
  return FALSE;
}

/* The source of @file around its rows in @hot (those above the threshold), with the counts of
 * every line of @all in the margin. */
static void
source_listing (GString *out, const View *v, const guint *widths, const GArray *hot,
                const GArray *all, const char *file, guint context,
                const char *const *source_dirs)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) src = NULL;
  g_autofree gboolean *wanted = NULL;
  g_autofree const guint64 **at = NULL;
  guint n, last = 0;
  g_string_append_printf (out, "\n-- source: %s\n", file);
  if (!read_source (file, source_dirs, &text))
    {
      g_string_append (out, "   (not found; --source-dir names where to look)\n");
      return;
    }
  src = g_strsplit (text, "\n", -1);
  n = g_strv_length (src);
  wanted = g_new0 (gboolean, n + 2);
  at = g_new0 (const guint64 *, n + 2);
  for (guint i = 0; i < all->len; i++)
    {
      const Row *r = &g_array_index (all, Row, i);
      if (strcmp (r->file, file) == 0 && r->line >= 1 && r->line <= n)
        at[r->line] = r->counts;
    }
  for (guint i = 0; i < hot->len; i++)
    {
      const Row *r = &g_array_index (hot, Row, i);
      if (strcmp (r->file, file) != 0 || r->line == 0 || r->line > n)
        continue;
      for (guint l = r->line > context ? r->line - context : 1; l <= MIN (n, r->line + context); l++)
        wanted[l] = TRUE;
    }
  header (out, v, widths, "line  source");
  for (guint l = 1; l <= n; l++)
    {
      if (!wanted[l])
        continue;
      if (last && l != last + 1)
        g_string_append (out, "-- ...\n");
      margin (out, v, widths, at[l]);
      g_string_append_printf (out, "%4u  %s\n", l, src[l - 1]);
      last = l;
    }
}

static void
write_table (GString *out, const View *v, const GArray *functions, const GArray *lines,
             const GArray *all_lines, const MdlAnnotateOptions *o)
{
  g_autofree guint *widths = column_widths (v);
  g_autoptr (GHashTable) files = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree guint64 *totals = g_new0 (guint64, MAX (v->a->columns->len, 1));
  for (guint c = 0; c < v->a->columns->len; c++)
    totals[c] = mdl_annotation_total (v->a, c);
  g_string_append_printf (out, "-- totals (sorted by %s, threshold %g%%)\n",
                          mdl_annotation_column (v->a, v->sort), o->threshold);
  header (out, v, widths, "");
  margin (out, v, widths, totals);
  g_string_append (out, "PROGRAM TOTALS\n\n-- by function\n");
  header (out, v, widths, "function  file");
  for (guint i = 0; i < functions->len; i++)
    {
      const Row *r = &g_array_index (functions, Row, i);
      margin (out, v, widths, r->counts);
      g_string_append_printf (out, "%s  %s\n", r->function, r->file);
    }
  g_string_append (out, "\n-- by line\n");
  header (out, v, widths, "file:line  function");
  for (guint i = 0; i < lines->len; i++)
    {
      const Row *r = &g_array_index (lines, Row, i);
      margin (out, v, widths, r->counts);
      g_string_append_printf (out, "%s:%u  %s\n", r->file, r->line, r->function);
    }
  if (!o->source)
    return;
  for (guint i = 0; i < lines->len; i++)
    {
      const Row *r = &g_array_index (lines, Row, i);
      if (r->line == 0 || g_hash_table_contains (files, r->file))
        continue;
      g_hash_table_add (files, (gpointer) r->file);
      source_listing (out, v, widths, lines, all_lines, r->file, o->context, o->source_dirs);
    }
}

static void
json_counts (GString *out, const View *v, const guint64 *counts)
{
  g_string_append_c (out, '{');
  for (guint i = 0; i < v->shown->len; i++)
    {
      guint col = g_array_index (v->shown, guint, i);
      if (i)
        g_string_append (out, ", ");
      mdl_json_string (out, mdl_annotation_column (v->a, col));
      g_string_append_printf (out, ": %" G_GUINT64_FORMAT, counts[col]);
    }
  g_string_append_c (out, '}');
}

static void
json_rows (GString *out, const View *v, const GArray *rows, const char *key)
{
  g_string_append_printf (out, ",\n \"%s\": [", key);
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      g_string_append (out, i ? ",\n  {\"file\": " : "\n  {\"file\": ");
      mdl_json_string (out, r->file);
      if (r->line)
        g_string_append_printf (out, ", \"line\": %u", r->line);
      g_string_append (out, ", \"function\": ");
      mdl_json_string (out, r->function);
      g_string_append (out, ", \"counts\": ");
      json_counts (out, v, r->counts);
      g_string_append_c (out, '}');
    }
  g_string_append (out, rows->len ? "\n ]" : "]");
}

static void
write_json (GString *out, const View *v, const GArray *functions, const GArray *lines,
            const MdlAnnotateOptions *o)
{
  g_autofree guint64 *totals = g_new0 (guint64, MAX (v->a->columns->len, 1));
  for (guint c = 0; c < v->a->columns->len; c++)
    totals[c] = mdl_annotation_total (v->a, c);
  g_string_append (out, "{\"sort\": ");
  mdl_json_string (out, mdl_annotation_column (v->a, v->sort));
  g_string_append_printf (out, ", \"threshold\": %g,\n \"totals\": ", o->threshold);
  json_counts (out, v, totals);
  json_rows (out, v, functions, "functions");
  json_rows (out, v, lines, "lines");
  g_string_append (out, "}\n");
}

static void
csv_rows (GString *out, const View *v, const GArray *rows, const char *kind)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      g_string_append_printf (out, "%s,", kind);
      mdl_csv_append_field (out, r->file);
      if (r->line)
        g_string_append_printf (out, ",%u,", r->line);
      else
        g_string_append (out, ",,");
      mdl_csv_append_field (out, r->function);
      for (guint c = 0; c < v->shown->len; c++)
        g_string_append_printf (out, ",%" G_GUINT64_FORMAT,
                                r->counts[g_array_index (v->shown, guint, c)]);
      g_string_append_c (out, '\n');
    }
}

static void
write_csv (GString *out, const View *v, const GArray *functions, const GArray *lines)
{
  g_autofree guint64 *totals = g_new0 (guint64, MAX (v->a->columns->len, 1));
  Row total = { "", 0, "", totals };
  g_autoptr (GArray) one = g_array_new (FALSE, FALSE, sizeof (Row));
  for (guint c = 0; c < v->a->columns->len; c++)
    totals[c] = mdl_annotation_total (v->a, c);
  g_array_append_val (one, total);
  g_string_append (out, "kind,file,line,function");
  for (guint c = 0; c < v->shown->len; c++)
    {
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, mdl_annotation_column (v->a, g_array_index (v->shown, guint, c)));
    }
  g_string_append_c (out, '\n');
  csv_rows (out, v, one, "total");
  csv_rows (out, v, functions, "function");
  csv_rows (out, v, lines, "line");
}

static gboolean
column_has_lines (const MdlAnnotation *a, guint col)
{
  for (guint s = 1; s <= a->n_sites; s++)
    if (a->counts[(gsize) s * a->columns->len + col])
      return TRUE;
  return FALSE;
}

/* Resolves the sort and show columns of @o into @v. */
static gboolean
view_init (View *v, const MdlAnnotation *a, const MdlAnnotateOptions *o, GError **error)
{
  gint col;
  v->a = a;
  v->shown = g_array_new (FALSE, FALSE, sizeof (guint));
  if (a->columns->len == 0)
    {
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_PARAM,
                           "annotate: the engines have no count to split by line");
      return FALSE;
    }
  if (o->threshold < 0 || o->threshold > 100 || o->threshold != o->threshold)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "annotate: threshold %g%% is not between 0 "
                   "and 100", o->threshold);
      return FALSE;
    }
  v->sort = 0;
  if (o->sort)
    {
      if ((col = mdl_annotation_find_column (a, o->sort, error)) < 0)
        return FALSE;
      v->sort = (guint) col;
    }
  else
    for (guint c = a->columns->len; c-- > 0;)
      if (mdl_annotation_total (a, c) != 0)
        v->sort = c;
  for (const char *const *s = o->show; s && *s; s++)
    {
      guint u;
      if ((col = mdl_annotation_find_column (a, *s, error)) < 0)
        return FALSE;
      u = (guint) col;
      g_array_append_val (v->shown, u);
    }
  /* A table for people leaves out the counters that no line has (count's warp counters under a
   * CPU algorithm, its marker counts); programs reading JSON or CSV get every column. */
  for (guint c = 0; o->show == NULL && c < a->columns->len; c++)
    if (!v->table || column_has_lines (a, c))
      g_array_append_val (v->shown, c);
  return TRUE;
}

gboolean
mdl_annotation_write (const MdlAnnotation *annotation, const MdlAnnotateOptions *options,
                      MdlFormat format, GString *out, GError **error)
{
  View v = { .table = format == MDL_FORMAT_TABLE };
  GArray *all_lines, *lines, *functions;
  g_return_val_if_fail (annotation != NULL && options != NULL && out != NULL, FALSE);
  if (!view_init (&v, annotation, options, error))
    {
      g_array_unref (v.shown);
      return FALSE;
    }
  all_lines = line_rows (annotation);
  lines = g_array_copy (all_lines);
  functions = function_rows (annotation, lines);
  select_rows (&v, lines, options->threshold, FALSE);
  select_rows (&v, functions, options->threshold, TRUE);
  if (format == MDL_FORMAT_JSON)
    write_json (out, &v, functions, lines, options);
  else if (format == MDL_FORMAT_CSV)
    write_csv (out, &v, functions, lines);
  else
    write_table (out, &v, functions, lines, all_lines, options);
  function_rows_free (functions);
  g_array_unref (lines);
  g_array_unref (all_lines);
  g_array_unref (v.shown);
  return TRUE;
}
