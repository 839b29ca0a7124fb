/* The engine registry: built-in classes in one constant table, user classes appended at run time.
 * `models list`, spec lookup and "did you mean" all walk the same list. The user list is the one
 * piece of process-wide mutable state in the library; like GLib's type registry it is guarded by a
 * lock and only ever grows. */
#include <models/error.h>

#include "models/engines.h"
#include "core/names.h"

#include <string.h>

#define ENGINE_ADDRESS(name) &mdl_##name##_class,
static const MdlEngineClass *const builtin_classes[] = { MDL_BUILTIN_ENGINES (ENGINE_ADDRESS) };

static GMutex user_lock;
static GPtrArray *user_classes; /* const MdlEngineClass *, not owned */

static gboolean
name_is_valid (const char *name)
{
  if (name == NULL || !g_ascii_islower (name[0]))
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

gboolean
mdl_engine_class_check (const MdlEngineClass *klass, GError **error)
{
  const char *name = klass->name ? klass->name : "(null)";
  if (klass->abi == 0 || klass->abi > MDL_ENGINE_ABI)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: ABI %u not supported (this "
                   "library has ABI %u)", name, klass->abi, MDL_ENGINE_ABI);
      return FALSE;
    }
  if (!name_is_valid (klass->name))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine name \"%s\" must start with a "
                   "lower-case letter and use only a-z, 0-9, '-' and '_'", name);
      return FALSE;
    }
  if (klass->init == NULL || klass->consume == NULL || klass->report == NULL
      || klass->params == NULL || klass->summary == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: summary, params, init, consume "
                   "and report are required", name);
      return FALSE;
    }
  if (klass->flags & ~(guint32) MDL_ENGINE_OWN_PHASES)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: unknown flags 0x%x", name,
                   klass->flags & ~(guint32) MDL_ENGINE_OWN_PHASES);
      return FALSE;
    }
  for (const MdlParamSpec *r = klass->params; r->key; r++)
    {
      g_autoptr (GError) local = NULL;
      MdlParamSpec one[2] = { *r, { 0 } };
      g_autoptr (MdlParams) parsed = NULL;
      if (strcmp (r->key, "machine") == 0 || r->help == NULL
          || (r->type == MDL_PARAM_CHOICE && r->choices == NULL) || r->type > MDL_PARAM_STRING)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: parameter row \"%s\" is "
                       "malformed (reserved key, no help, or a choice without choices)", name, r->key);
          return FALSE;
        }
      for (const MdlParamSpec *s = klass->params; s < r; s++)
        if (strcmp (s->key, r->key) == 0)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: parameter \"%s\" is "
                         "declared twice", name, r->key);
            return FALSE;
          }
      one[0].machine_key = NULL;
      if (r->default_value && !(parsed = mdl_params_parse (name, one, NULL, &local)))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine %s: bad default: %s", name,
                       local->message);
          return FALSE;
        }
    }
  return TRUE;
}

const MdlEngineClass *
mdl_engine_class_lookup (const char *name)
{
  const MdlEngineClass *found = NULL;
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (builtin_classes); i++)
    if (strcmp (builtin_classes[i]->name, name) == 0)
      return builtin_classes[i];
  g_mutex_lock (&user_lock);
  for (guint i = 0; user_classes && i < user_classes->len && !found; i++)
    if (strcmp (((const MdlEngineClass *) g_ptr_array_index (user_classes, i))->name, name) == 0)
      found = g_ptr_array_index (user_classes, i);
  g_mutex_unlock (&user_lock);
  return found;
}

const MdlEngineClass **
mdl_engine_classes (guint *n)
{
  GPtrArray *all = g_ptr_array_new ();
  for (guint i = 0; i < G_N_ELEMENTS (builtin_classes); i++)
    g_ptr_array_add (all, (gpointer) builtin_classes[i]);
  g_mutex_lock (&user_lock);
  for (guint i = 0; user_classes && i < user_classes->len; i++)
    g_ptr_array_add (all, g_ptr_array_index (user_classes, i));
  g_mutex_unlock (&user_lock);
  if (n)
    *n = all->len;
  return (const MdlEngineClass **) g_ptr_array_free (all, FALSE);
}

gboolean
mdl_engine_register (const MdlEngineClass *klass, GError **error)
{
  gboolean taken;
  g_return_val_if_fail (klass != NULL, FALSE);
  if (!mdl_engine_class_check (klass, error))
    return FALSE;
  g_mutex_lock (&user_lock);
  taken = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (builtin_classes); i++)
    taken |= strcmp (builtin_classes[i]->name, klass->name) == 0;
  for (guint i = 0; user_classes && i < user_classes->len; i++)
    taken |= strcmp (((const MdlEngineClass *) g_ptr_array_index (user_classes, i))->name,
                     klass->name) == 0;
  if (!taken)
    {
      if (user_classes == NULL)
        user_classes = g_ptr_array_new ();
      g_ptr_array_add (user_classes, (gpointer) klass);
    }
  g_mutex_unlock (&user_lock);
  if (taken)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "engine name \"%s\" is already registered",
                 klass->name);
  return !taken;
}

void
mdl_engine_append_names (GString *msg, const char *word)
{
  guint n;
  g_autofree const MdlEngineClass **all = mdl_engine_classes (&n);
  g_autofree const char **names = g_new (const char *, n);
  for (guint i = 0; i < n; i++)
    names[i] = all[i]->name;
  mdl_names_append_choices (msg, word, names, n);
}
