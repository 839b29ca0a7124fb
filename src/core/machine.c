/* Machine presets (include/models/machine.h): the built-in data/machines.ini, compiled into the
 * library, plus an optional file named by MODELS_MACHINES whose groups add to or replace the
 * built-in ones. Each is parsed once: the built-in file on first use, the user's file again only
 * when its path or its bytes change. Engines ask for every parameter a preset supplies, so
 * parsing both files per question cost dozens of parses per engine; now a question costs one
 * read of the (few KiB) user file, compared byte for byte with the parsed one (without
 * allocating: under AddressSanitizer each allocation is filled). Bytes, not the
 * modification time: a file rewritten within one tick of the clock keeps its time, and
 * fuzz-machines rewrites it thousands of times a second. The cache is behind a mutex and hands
 * out references, so engines may be created from several threads. */
#include <models/error.h>
#include <models/machine.h>

#include "core/host-machine.h"
#include "core/preset.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char mdl_machines_ini[];

static GMutex cache_lock;
static GKeyFile *cache_builtin;   /* parsed once, never freed */
static char *cache_path;          /* the user file last parsed: its path, bytes and key file */
static GBytes *cache_bytes;
static GKeyFile *cache_user;
static GKeyFile *cache_host;      /* the `host` preset, read from this machine once */

/* The name of the preset read from the running machine (core/host-machine.h). */
#define HOST_MACHINE "host"

/* The built-in presets. (transfer full) */
static GKeyFile *
builtin_file (void)
{
  GKeyFile *file;
  g_mutex_lock (&cache_lock);
  if (cache_builtin == NULL)
    {
      gboolean ok;
      cache_builtin = g_key_file_new ();
      ok = g_key_file_load_from_data (cache_builtin, mdl_machines_ini, strlen (mdl_machines_ini),
                                      G_KEY_FILE_NONE, NULL);
      g_assert (ok); /* Why: the built-in file is checked by the tests at build time. */
    }
  file = g_key_file_ref (cache_builtin);
  g_mutex_unlock (&cache_lock);
  return file;
}

/* The `host` preset: this machine's caches, TLBs and pages, read on first use. (transfer full) */
static GKeyFile *
host_file (void)
{
  GKeyFile *file;
  g_mutex_lock (&cache_lock);
  if (cache_host == NULL)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      MdlHostMachine m;
      gboolean ok;
      mdl_host_machine_read (&m);
      mdl_host_machine_ini (&m, text);
      cache_host = g_key_file_new ();
      ok = g_key_file_load_from_data (cache_host, text->str, text->len, G_KEY_FILE_NONE, NULL);
      g_assert (ok); /* Why: mdl_host_machine_ini writes keys and numbers only. */
    }
  file = g_key_file_ref (cache_host);
  g_mutex_unlock (&cache_lock);
  return file;
}

/* Whether the file at @path holds exactly the cached bytes (cache_lock held): compared in
 * chunks through a buffer on the stack, with no allocation, since engines ask for their preset
 * keys one by one. */
static gboolean
same_as_cached (const char *path)
{
  gsize len, at = 0;
  const guint8 *cached;
  guint8 chunk[4096];
  gboolean same = FALSE;
  struct stat st;
  int fd;

  if (cache_user == NULL || g_strcmp0 (cache_path, path) != 0)
    return FALSE;
  cached = g_bytes_get_data (cache_bytes, &len);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && (guint64) st.st_size == len)
    for (;;)
      {
        ssize_t n = read (fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
          continue;
        if (n <= 0 || (gsize) n > len - at || memcmp (chunk, cached + at, (gsize) n) != 0)
          {
            same = n == 0 && at == len; /* the end, and nothing left unread */
            break;
          }
        at += (gsize) n;
      }
  close (fd);
  return same;
}

/* The user's file at @path, parsed, or NULL with an MDL_ERROR_FORMAT naming it. (transfer full) */
static GKeyFile *
user_file (const char *path, GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autoptr (GKeyFile) parsed = NULL;
  g_autoptr (GBytes) bytes = NULL;
  char *text = NULL;
  gsize len = 0;
  GKeyFile *file = NULL;

  g_mutex_lock (&cache_lock);
  if (same_as_cached (path))
    file = g_key_file_ref (cache_user);
  g_mutex_unlock (&cache_lock);
  if (file)
    return file;
  if (!g_file_get_contents (path, &text, &len, &local))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "MODELS_MACHINES=%s: %s", path,
                   local->message);
      return NULL;
    }
  bytes = g_bytes_new_take (text, len);
  parsed = g_key_file_new ();
  if (!g_key_file_load_from_data (parsed, g_bytes_get_data (bytes, NULL), len, G_KEY_FILE_NONE,
                                  &local))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "MODELS_MACHINES=%s: %s", path,
                   local->message);
      return NULL;
    }
  g_mutex_lock (&cache_lock);
  g_clear_pointer (&cache_user, g_key_file_unref);
  g_clear_pointer (&cache_bytes, g_bytes_unref);
  g_free (cache_path);
  cache_path = g_strdup (path);
  cache_bytes = g_bytes_ref (bytes);
  cache_user = g_key_file_ref (parsed);
  g_mutex_unlock (&cache_lock);
  return g_steal_pointer (&parsed);
}

void
mdl_preset_forget_user (void)
{
  g_mutex_lock (&cache_lock);
  g_clear_pointer (&cache_user, g_key_file_unref);
  g_clear_pointer (&cache_bytes, g_bytes_unref);
  g_clear_pointer (&cache_path, g_free);
  g_mutex_unlock (&cache_lock);
}

/* The key file for @machine: the user's file if it has the group, else the built-in one. */
static GKeyFile *
machine_file (const char *machine, GError **error)
{
  const char *user_path = g_getenv ("MODELS_MACHINES");
  if (user_path && *user_path)
    {
      g_autoptr (GKeyFile) user = user_file (user_path, error);
      if (user == NULL)
        return NULL;
      if (machine == NULL || g_key_file_has_group (user, machine))
        return g_steal_pointer (&user);
    }
  if (g_strcmp0 (machine, HOST_MACHINE) == 0)
    return host_file ();
  return builtin_file ();
}

char **
mdl_machine_names (GError **error)
{
  g_autoptr (GKeyFile) builtin = builtin_file ();
  g_autoptr (GKeyFile) user = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_auto (GStrv) groups = NULL;

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
  if (!g_ptr_array_find_with_equal_func (names, HOST_MACHINE, g_str_equal, NULL))
    g_ptr_array_add (names, g_strdup (HOST_MACHINE));
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

GKeyFile *
mdl_preset_open (const char *machine, GError **error)
{
  return machine_group (machine, error);
}

char *
mdl_preset_get (GKeyFile *preset, const char *machine, const char *key)
{
  char *value = g_key_file_get_value (preset, machine, key, NULL);
  return value ? g_strstrip (value) : NULL;
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
  *value = mdl_preset_get (file, machine, key);
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
