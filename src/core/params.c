/* The one parser of engine and algorithm parameters (include/models/params.h). Values are checked
 * against the table's rows here, once; engines and algorithms only read typed values. Normalized
 * text is kept for every parameter so that reports can print the full spec that was run. */
#include <models/error.h>
#include <models/machine.h>
#include <models/params.h>

#include "core/dtoa.h"
#include "core/names.h"
#include "core/preset.h"

#include <math.h>
#include <string.h>

typedef struct {
  const MdlParamSpec *row;
  char *text;          /* normalized value */
  gboolean explicit_;  /* given in the spec */
  guint64 u;
  double d;
} ParamValue;

struct MdlParams {
  char *owner;
  char *machine;       /* NULL when none selected */
  guint n;
  ParamValue *values;
};

static const char *const type_names[] = {
  "an unsigned integer", "a number", "a boolean (1/0, true/false, yes/no, on/off)", "a choice",
  "text",
};

void
mdl_params_free (MdlParams *params)
{
  if (params == NULL)
    return;
  for (guint i = 0; i < params->n; i++)
    g_free (params->values[i].text);
  g_free (params->values);
  g_free (params->machine);
  g_free (params->owner);
  g_free (params);
}

gboolean
mdl_spec_split (const char *spec, char **name, char ***assignments, GError **error)
{
  const char *colon;
  g_auto (GStrv) parts = NULL;
  g_return_val_if_fail (spec != NULL && name != NULL && assignments != NULL, FALSE);
  colon = strchr (spec, ':');
  if ((colon ? colon - spec : (gssize) strlen (spec)) == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "spec \"%s\" has no name (expected NAME or "
                   "NAME:key=value,...)", spec);
      return FALSE;
    }
  parts = colon && colon[1] ? g_strsplit (colon + 1, ",", -1) : g_new0 (char *, 1);
  for (char **p = parts; *p; p++)
    if (strchr (*p, '=') == NULL || **p == '=')
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "spec \"%s\": expected key=value, got \"%s\"",
                     spec, *p);
        return FALSE;
      }
  *name = colon ? g_strndup (spec, (gsize) (colon - spec)) : g_strdup (spec);
  *assignments = g_steal_pointer (&parts);
  return TRUE;
}

/* Parses an unsigned integer with optional 0x prefix and k/M/G (1024-based) suffix. Digits are
 * read here rather than by strtoull, which would take a leading 0 as octal ("010" is ten) and
 * accept a sign or spaces after the prefix. */
static gboolean
parse_uint (const char *text, guint64 *out)
{
  const char *end = text;
  guint base = 10;
  guint64 v = 0, scale = 1;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    base = 16, end += 2;
  if (!(base == 16 ? g_ascii_isxdigit (*end) : g_ascii_isdigit (*end)))
    return FALSE;
  for (; base == 16 ? g_ascii_isxdigit (*end) : g_ascii_isdigit (*end); end++)
    {
      guint digit = (guint) g_ascii_xdigit_value (*end);
      if (v > (G_MAXUINT64 - digit) / base)
        return FALSE;
      v = v * base + digit;
    }
  if (*end == 'k' || *end == 'K')
    scale = 1024, end++;
  else if (*end == 'M')
    scale = 1024 * 1024, end++;
  else if (*end == 'G')
    scale = 1024 * 1024 * 1024, end++;
  if (*end != '\0' || (v != 0 && scale > G_MAXUINT64 / v))
    return FALSE;
  *out = v * scale;
  return TRUE;
}

static gboolean
parse_bool (const char *text, guint64 *out)
{
  static const char *const yes[] = { "1", "true", "yes", "on", NULL };
  static const char *const no[] = { "0", "false", "no", "off", NULL };
  for (guint i = 0; yes[i]; i++)
    if (g_ascii_strcasecmp (text, yes[i]) == 0)
      return *out = 1, TRUE;
  for (guint i = 0; no[i]; i++)
    if (g_ascii_strcasecmp (text, no[i]) == 0)
      return *out = 0, TRUE;
  return FALSE;
}

/* Checks @text for @row and stores the typed and normalized value; @origin says where the text came
 * from for the message ("" for the spec, " (from machine x86-64, key page_bytes)" for a preset). */
static gboolean
value_set (const char *owner, ParamValue *v, const char *text, const char *origin, GError **error)
{
  const MdlParamSpec *row = v->row;
  g_autofree char *norm = NULL;
  switch (row->type)
    {
    case MDL_PARAM_UINT:
      if (!parse_uint (text, &v->u))
        goto bad_type;
      if (v->u < row->min || (row->max && v->u > row->max))
        {
          g_autofree char *range = row->max
            ? g_strdup_printf ("%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, row->min, row->max)
            : g_strdup_printf (">= %" G_GUINT64_FORMAT, row->min);
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: %s=%s%s is out of range (valid: %s)",
                       owner, row->key, text, origin, range);
          return FALSE;
        }
      if ((row->flags & MDL_PARAM_POW2) && (v->u & (v->u - 1)) != 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: %s=%s%s is not a power of two",
                       owner, row->key, text, origin);
          return FALSE;
        }
      norm = g_strdup_printf ("%" G_GUINT64_FORMAT, v->u);
      break;
    case MDL_PARAM_DOUBLE:
      {
        char *end = NULL;
        v->d = g_ascii_strtod (text, &end);
        if (end == text || *end != '\0' || !isfinite (v->d))
          goto bad_type;
        {
          char buf[G_ASCII_DTOSTR_BUF_SIZE];
          norm = g_strdup (mdl_dtoa_shortest (v->d, buf));
        }
        break;
      }
    case MDL_PARAM_BOOL:
      if (!parse_bool (text, &v->u))
        goto bad_type;
      norm = g_strdup (v->u ? "1" : "0");
      break;
    case MDL_PARAM_CHOICE:
      {
        g_auto (GStrv) words = g_strsplit (row->choices, "|", -1);
        guint n = g_strv_length (words);
        for (guint i = 0; i < n; i++)
          if (strcmp (words[i], text) == 0)
            {
              v->u = i;
              norm = g_strdup (text);
            }
        if (norm == NULL)
          {
            g_autoptr (GString) msg = g_string_new (NULL);
            g_string_printf (msg, "%s: bad value \"%s\" for %s%s", owner, text, row->key, origin);
            mdl_names_append_choices (msg, text, (const char *const *) words, n);
            g_set_error_literal (error, MDL_ERROR, MDL_ERROR_PARAM, msg->str);
            return FALSE;
          }
        break;
      }
    case MDL_PARAM_STRING:
      norm = g_strdup (text);
      break;
    }
  g_free (v->text);
  v->text = g_steal_pointer (&norm);
  return TRUE;

bad_type:
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: bad value \"%s\" for %s%s: expected %s (%s)",
               owner, text, row->key, origin, type_names[row->type], row->help);
  return FALSE;
}

static ParamValue *
value_find (const MdlParams *params, const char *key)
{
  for (guint i = 0; i < params->n; i++)
    if (strcmp (params->values[i].row->key, key) == 0)
      return &params->values[i];
  return NULL;
}

static gboolean
reject_unknown_key (const char *owner, const MdlParamSpec *table, const char *key, GError **error)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  g_autoptr (GString) msg = g_string_new (NULL);
  for (const MdlParamSpec *r = table; r->key; r++)
    g_ptr_array_add (keys, (gpointer) r->key);
  g_ptr_array_add (keys, (gpointer) "machine");
  g_string_printf (msg, "%s: unknown parameter \"%s\"", owner, key);
  mdl_names_append_choices (msg, key, (const char *const *) keys->pdata, keys->len);
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_PARAM, msg->str);
  return FALSE;
}

/* TRUE when preset @machine has every key in @keys. The preset is opened once for all of them:
 * each mdl_machine_get() checks the MODELS_MACHINES file again (fuzz-machines spent a third of
 * its time there, on presets that lack an engine's keys). */
static gboolean
machine_has_keys (const char *machine, GPtrArray *keys)
{
  g_autoptr (GKeyFile) preset = mdl_preset_open (machine, NULL);
  for (guint i = 0; preset && i < keys->len; i++)
    {
      g_autofree char *value = mdl_preset_get (preset, machine, keys->pdata[i]);
      if (value == NULL)
        return FALSE;
    }
  return preset != NULL;
}

/* Checks that the selected preset has a value for every row that takes its default from a preset
 * and is not given in @given. A preset that lacks them is an error rather than a silent fall back
 * to the row's built-in default: vat:machine=h100 would otherwise run on x86-64's tree. The
 * message lists the missing keys, the parameters that would set them, and the presets that have
 * them all. */
static gboolean
check_preset_has_keys (const MdlParams *params, GKeyFile *preset, GHashTable *given,
                       GError **error)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  g_autoptr (GPtrArray) missing = g_ptr_array_new ();
  g_autoptr (GString) msg = g_string_new (NULL);
  g_auto (GStrv) names = NULL;
  guint n_fit = 0;

  for (guint i = 0; i < params->n; i++)
    {
      const MdlParamSpec *row = params->values[i].row;
      g_autofree char *value = NULL;
      if (row->machine_key == NULL || g_hash_table_contains (given, row->key))
        continue;
      g_ptr_array_add (keys, (gpointer) row->machine_key);
      value = mdl_preset_get (preset, params->machine, row->machine_key);
      if (value == NULL)
        g_ptr_array_add (missing, (gpointer) row);
    }
  if (missing->len == 0)
    return TRUE;

  g_string_printf (msg, "%s: machine %s lacks key%s", params->owner, params->machine,
                   missing->len > 1 ? "s" : "");
  for (guint i = 0; i < missing->len; i++)
    {
      const MdlParamSpec *row = missing->pdata[i];
      g_string_append_printf (msg, "%s %s", i ? "," : "", row->machine_key);
      if (strcmp (row->key, row->machine_key) != 0)
        g_string_append_printf (msg, " (parameter %s)", row->key);
    }
  g_string_append (msg, "; give ");
  for (guint i = 0; i < missing->len; i++)
    g_string_append_printf (msg, "%s%s=...", i ? ", " : "",
                            ((const MdlParamSpec *) missing->pdata[i])->key);
  g_string_append (msg, " in the spec");
  names = mdl_machine_names (NULL);
  for (char **m = names; m && *m; m++)
    if (machine_has_keys (*m, keys))
      g_string_append_printf (msg, "%s%s", n_fit++ ? ", " : ", or a machine that has them: ", *m);
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_PARAM, msg->str);
  return FALSE;
}

MdlParams *
mdl_params_parse (const char *owner, const MdlParamSpec *table, const char *const *assignments,
                  GError **error)
{
  g_autoptr (MdlParams) params = g_new0 (MdlParams, 1);
  g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal); /* key -> value */
  g_autoptr (GPtrArray) splits = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr (GKeyFile) preset = NULL;

  g_return_val_if_fail (owner != NULL && table != NULL, NULL);
  params->owner = g_strdup (owner);
  for (const MdlParamSpec *r = table; r->key; r++)
    params->n++;
  params->values = g_new0 (ParamValue, params->n);
  for (guint i = 0; i < params->n; i++)
    params->values[i].row = &table[i];

  for (const char *const *a = assignments; a && *a; a++)
    {
      char **kv = g_strsplit (*a, "=", 2);
      g_ptr_array_add (splits, kv);
      if (kv[0] == NULL || kv[1] == NULL || kv[0][0] == '\0') /* "" splits into no parts */
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: expected key=value, got \"%s\"",
                       owner, *a);
          return NULL;
        }
      if (strcmp (kv[0], "machine") != 0 && value_find (params, kv[0]) == NULL)
        {
          reject_unknown_key (owner, table, kv[0], error);
          return NULL;
        }
      if (g_hash_table_contains (given, kv[0]))
        {
          /* Why an error: with "last one wins", W=64,W=32 runs W=32 while the reader of the command
           * line sees 64 first. */
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: parameter %s is given twice (%s=%s, "
                       "then %s=%s); give each key once", owner, kv[0], kv[0],
                       (const char *) g_hash_table_lookup (given, kv[0]), kv[0], kv[1]);
          return NULL;
        }
      g_hash_table_insert (given, kv[0], kv[1]);
    }

  /* The preset is read once, here: every key below comes from this one reading. */
  if (g_hash_table_contains (given, "machine"))
    {
      const char *m = g_hash_table_lookup (given, "machine");
      preset = mdl_preset_open (m, error);
      if (preset == NULL)
        {
          g_prefix_error (error, "%s: ", owner);
          return NULL;
        }
      params->machine = g_strdup (m);
    }

  if (params->machine && !check_preset_has_keys (params, preset, given, error))
    return NULL;

  for (guint i = 0; i < params->n; i++)
    {
      ParamValue *v = &params->values[i];
      const char *text = g_hash_table_lookup (given, v->row->key);
      g_autofree char *from_preset = NULL;
      g_autofree char *origin = NULL;
      if (text)
        v->explicit_ = TRUE;
      else if (params->machine && v->row->machine_key)
        {
          from_preset = mdl_preset_get (preset, params->machine, v->row->machine_key);
          g_assert (from_preset != NULL); /* Why: check_preset_has_keys saw every such key. */
          text = from_preset;
          origin = g_strdup_printf (" (from machine %s, key %s)", params->machine,
                                    v->row->machine_key);
        }
      if (text == NULL)
        text = v->row->default_value;
      if (text == NULL)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM,
                       "%s: missing parameter %s (%s)%s", owner, v->row->key, v->row->help,
                       v->row->machine_key ? "; give it, or a machine= that sets it" : "");
          return NULL;
        }
      if (!value_set (owner, v, text, origin ? origin : "", error))
        return NULL;
    }
  return g_steal_pointer (&params);
}

static const ParamValue *
value_of (const MdlParams *params, const char *key, MdlParamType type)
{
  const ParamValue *v;
  g_return_val_if_fail (params != NULL && key != NULL, NULL);
  v = value_find (params, key);
  g_return_val_if_fail (v != NULL, NULL);
  g_return_val_if_fail (v->row->type == type, NULL);
  return v;
}

guint64
mdl_params_uint (const MdlParams *params, const char *key)
{
  const ParamValue *v = value_of (params, key, MDL_PARAM_UINT);
  return v ? v->u : 0;
}

double
mdl_params_double (const MdlParams *params, const char *key)
{
  const ParamValue *v = value_of (params, key, MDL_PARAM_DOUBLE);
  return v ? v->d : 0.0;
}

gboolean
mdl_params_bool (const MdlParams *params, const char *key)
{
  const ParamValue *v = value_of (params, key, MDL_PARAM_BOOL);
  return v ? v->u != 0 : FALSE;
}

guint
mdl_params_choice (const MdlParams *params, const char *key)
{
  const ParamValue *v = value_of (params, key, MDL_PARAM_CHOICE);
  return v ? (guint) v->u : 0;
}

const char *
mdl_params_string (const MdlParams *params, const char *key)
{
  const ParamValue *v;
  g_return_val_if_fail (params != NULL && key != NULL, NULL);
  v = value_find (params, key);
  g_return_val_if_fail (v != NULL, NULL);
  return v->text;
}

gboolean
mdl_params_is_set (const MdlParams *params, const char *key)
{
  const ParamValue *v;
  g_return_val_if_fail (params != NULL && key != NULL, FALSE);
  v = value_find (params, key);
  g_return_val_if_fail (v != NULL, FALSE);
  return v->explicit_;
}

const char *
mdl_params_machine (const MdlParams *params)
{
  g_return_val_if_fail (params != NULL, NULL);
  return params->machine;
}

char *
mdl_params_normalized (const MdlParams *params)
{
  GString *s = g_string_new (NULL);
  g_return_val_if_fail (params != NULL, NULL);
  if (params->machine)
    g_string_append_printf (s, "machine=%s", params->machine);
  for (guint i = 0; i < params->n; i++)
    g_string_append_printf (s, "%s%s=%s", s->len ? "," : "", params->values[i].row->key,
                            params->values[i].text);
  return g_string_free (s, FALSE);
}

gboolean
mdl_params_parse_uint (const char *owner, const char *key, const char *text, guint64 min,
                       guint64 max, guint flags, guint64 *out, GError **error)
{
  const MdlParamSpec table[] = {
    { key, MDL_PARAM_UINT, NULL, NULL, min, max, NULL, flags,
      "decimal, 0x hex, or a k, M or G suffix for powers of 1024" },
    { NULL, 0, NULL, NULL, 0, 0, NULL, 0, NULL }
  };
  g_autofree char *assignment = g_strdup_printf ("%s=%s", key, text);
  const char *const assignments[] = { assignment, NULL };
  g_autoptr (MdlParams) params = mdl_params_parse (owner, table, assignments, error);
  if (params == NULL)
    return FALSE;
  *out = mdl_params_uint (params, key);
  return TRUE;
}
