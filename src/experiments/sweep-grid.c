/* The grid syntax of sweeps (include/models/sweep.h): value lists "a,b,c" and doubling ranges
 * "lo..hi", and specs whose keys take such lists ("vat:policy=lru,islru,W=4..64"). In a spec a
 * word without '=' is one more value of the key before it, so the spec parser's own comma
 * separates both keys and values and a plain spec is a grid of one. Before the ':' a comma
 * separates names that share the keys ("scan/nopad,scan/padding:k=32"). Ranges double because the
 * models' parameters (W, sizes, page and line bytes) are compared across orders of magnitude. */
#include "experiments/sweep-private.h"

#include <models/error.h>
#include <string.h>

/* Appends the values of "lo..hi" as decimal text. */
static gboolean
range_expand (const char *owner, const char *key, const char *text, const char *dots,
              GPtrArray *out, GError **error)
{
  g_autofree char *lo_text = g_strndup (text, (gsize) (dots - text));
  guint64 lo, hi;
  if (!mdl_params_parse_uint (owner, key, lo_text, 1, 0, 0, &lo, error)
      || !mdl_params_parse_uint (owner, key, dots + 2, 1, 0, 0, &hi, error))
    return FALSE;
  if (lo > hi)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: %s=%s: the range goes down (expected "
                   "lo..hi with lo <= hi)", owner, key, text);
      return FALSE;
    }
  for (guint64 v = lo; v <= hi; v *= 2)
    {
      g_ptr_array_add (out, g_strdup_printf ("%" G_GUINT64_FORMAT, v));
      if (v > G_MAXUINT64 / 2)
        break;
    }
  return TRUE;
}

/* Appends one value, or every value of a range, as text. */
static gboolean
value_expand (const char *owner, const char *key, const char *text, GPtrArray *out,
              GError **error)
{
  const char *dots = strstr (text, "..");
  if (dots)
    return range_expand (owner, key, text, dots, out, error);
  g_ptr_array_add (out, g_strdup (text));
  return TRUE;
}

gboolean
mdl_sweep_values_expand (const char *owner, const char *key, const char *values, GArray *out,
                         GError **error)
{
  g_auto (GStrv) words = g_strsplit (values, ",", -1);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (char **w = words; *w; w++)
    {
      g_strstrip (*w);
      if (!value_expand (owner, key, *w, texts, error))
        return FALSE;
    }
  for (guint i = 0; i < texts->len; i++)
    {
      guint64 v;
      if (!mdl_params_parse_uint (owner, key, g_ptr_array_index (texts, i), 0, 0, 0, &v, error))
        return FALSE;
      g_array_append_val (out, v);
    }
  return TRUE;
}

/* One key of a grid and its values. */
typedef struct {
  char *key;
  GPtrArray *values;   /* char *, owned */
} GridKey;

static void
grid_key_free (GridKey *k)
{
  g_free (k->key);
  g_ptr_array_unref (k->values);
  g_free (k);
}

/* Appends to @out every combination of @keys from @depth on, after the assignments in @prefix. */
static void
product (const char *name, GPtrArray *keys, guint depth, GString *prefix, GPtrArray *out)
{
  GridKey *k;
  if (depth == keys->len)
    {
      g_ptr_array_add (out, g_strdup_printf ("%s%s%s", name, prefix->len ? ":" : "",
                                             prefix->str));
      return;
    }
  k = g_ptr_array_index (keys, depth);
  for (guint i = 0; i < k->values->len; i++)
    {
      gsize len = prefix->len;
      g_string_append_printf (prefix, "%s%s=%s", len ? "," : "", k->key,
                              (const char *) g_ptr_array_index (k->values, i));
      product (name, keys, depth + 1, prefix, out);
      g_string_truncate (prefix, len);
    }
}

gboolean
mdl_sweep_grid_expand (const char *grid, GPtrArray *out, GError **error)
{
  const char *colon = strchr (grid, ':');
  g_autofree char *name = colon ? g_strndup (grid, (gsize) (colon - grid)) : g_strdup (grid);
  g_auto (GStrv) words = colon && colon[1] ? g_strsplit (colon + 1, ",", -1) : g_new0 (char *, 1);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) grid_key_free);
  g_autoptr (GString) prefix = g_string_new (NULL);
  g_auto (GStrv) names = g_strsplit (name, ",", -1);
  for (char **n = names; *n; n++)
    if (*g_strstrip (*n) == '\0')
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "grid \"%s\" has an empty name (expected "
                     "NAME[,NAME...] or NAME:key=values,...)", grid);
        return FALSE;
      }
  if (names[0] == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "grid \"%s\" has no name (expected NAME or "
                   "NAME:key=values,...)", grid);
      return FALSE;
    }
  for (char **w = words; *w; w++)
    {
      char *eq = strchr (*w, '=');
      GridKey *k;
      if (eq == *w || (eq == NULL && keys->len == 0))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "grid \"%s\": \"%s\" has no key "
                       "(expected key=value before it)", grid, *w);
          return FALSE;
        }
      if (eq)
        {
          k = g_new0 (GridKey, 1);
          k->key = g_strndup (*w, (gsize) (eq - *w));
          k->values = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (keys, k);
        }
      k = g_ptr_array_index (keys, keys->len - 1);
      if (!value_expand (name, k->key, eq ? eq + 1 : *w, k->values, error))
        {
          g_prefix_error (error, "grid \"%s\": ", grid);
          return FALSE;
        }
    }
  for (char **n = names; *n; n++)
    product (g_strstrip (*n), keys, 0, prefix, out);
  return TRUE;
}
