/* Machine presets (include/models/machine.h): the built-in data/machines.ini, compiled into the
 * library, plus an optional file named by MODELS_MACHINES whose groups add to or replace the
 * built-in ones. The files are a few KiB and read only when an engine is created, so they are
 * parsed on each call rather than cached in mutable global state. */
#include <models/error.h>
#include <models/machine.h>

#include <string.h>

extern const char mdl_machines_ini[];

/* The key file for @machine: the user's file if it has the group, else the built-in one. */
static GKeyFile *
machine_file (const char *machine, GError **error)
{
  g_autoptr (GKeyFile) builtin = g_key_file_new ();
  const char *user_path = g_getenv ("MODELS_MACHINES");
  gboolean ok = g_key_file_load_from_data (builtin, mdl_machines_ini, strlen (mdl_machines_ini),
                                           G_KEY_FILE_NONE, NULL);
  g_assert (ok); /* Why: the built-in file is checked by the tests at build time. */
  if (user_path && *user_path)
    {
      g_autoptr (GKeyFile) user = g_key_file_new ();
      g_autoptr (GError) local = NULL;
      if (!g_key_file_load_from_file (user, user_path, G_KEY_FILE_NONE, &local))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "MODELS_MACHINES=%s: %s", user_path,
                       local->message);
          return NULL;
        }
      if (machine == NULL || g_key_file_has_group (user, machine))
        return g_steal_pointer (&user);
    }
  return g_steal_pointer (&builtin);
}

char **
mdl_machine_names (GError **error)
{
  g_autoptr (GKeyFile) builtin = g_key_file_new ();
  g_autoptr (GKeyFile) user = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_auto (GStrv) groups = NULL;

  g_key_file_load_from_data (builtin, mdl_machines_ini, strlen (mdl_machines_ini), G_KEY_FILE_NONE,
                             NULL);
  groups = g_key_file_get_groups (builtin, NULL);
  for (char **g = groups; *g; g++)
    g_ptr_array_add (names, g_strdup (*g));
  user = machine_file (NULL, error);
  if (user == NULL)
    {
      g_ptr_array_set_free_func (names, g_free);
      return NULL;
    }
  if (g_getenv ("MODELS_MACHINES") && *g_getenv ("MODELS_MACHINES"))
    {
      g_auto (GStrv) extra = g_key_file_get_groups (user, NULL);
      for (char **g = extra; *g; g++)
        if (!g_strv_contains ((const char *const *) groups, *g))
          g_ptr_array_add (names, g_strdup (*g));
    }
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
}

static GKeyFile *
machine_group (const char *machine, GError **error)
{
  g_autoptr (GKeyFile) file = machine_file (machine, error);
  if (file == NULL)
    return NULL;
  if (!g_key_file_has_group (file, machine))
    {
      g_auto (GStrv) names = mdl_machine_names (NULL);
      g_autofree char *list = names ? g_strjoinv (", ", names) : g_strdup ("");
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, "unknown machine \"%s\"; valid: %s",
                   machine, list);
      return NULL;
    }
  return g_steal_pointer (&file);
}

gboolean
mdl_machine_get (const char *machine, const char *key, char **value, GError **error)
{
  g_autoptr (GKeyFile) file = NULL;
  g_return_val_if_fail (machine != NULL && key != NULL && value != NULL, FALSE);
  *value = NULL;
  file = machine_group (machine, error);
  if (file == NULL)
    return FALSE;
  *value = g_key_file_get_value (file, machine, key, NULL);
  if (*value)
    g_strstrip (*value);
  return TRUE;
}

char **
mdl_machine_keys (const char *machine, GError **error)
{
  g_autoptr (GKeyFile) file = NULL;
  g_return_val_if_fail (machine != NULL, NULL);
  file = machine_group (machine, error);
  return file ? g_key_file_get_keys (file, machine, NULL, NULL) : NULL;
}
