/* Site tables (include/models/sites.h). A table is an array of sites indexed by id and a hash from
 * `FILE:LINE` to id, under one lock: interning happens once per call site or per new line, never
 * per event, so the lock costs nothing that matters. The code-site table is the one process-wide
 * object of the library: call sites are themselves process-wide (static code), and the static id
 * slot of each call site must agree with one table whatever recorder runs it. */
#include <models/event.h>
#include <models/sites.h>

#include <string.h>

struct MdlSiteTable {
  GMutex lock;
  GPtrArray *sites;   /* MdlSite *, owned; index id - 1 */
  GHashTable *by_name; /* name (borrowed from the site) -> id */
};

static void
site_free (gpointer p)
{
  MdlSite *s = p;
  g_free ((char *) s->file);
  g_free ((char *) s->function);
  g_free ((char *) s->name);
  g_free (s);
}

MdlSiteTable *
mdl_site_table_new (void)
{
  MdlSiteTable *t = g_new0 (MdlSiteTable, 1);
  g_mutex_init (&t->lock);
  t->sites = g_ptr_array_new_with_free_func (site_free);
  t->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  return t;
}

void
mdl_site_table_free (MdlSiteTable *table)
{
  if (table == NULL)
    return;
  g_return_if_fail (table != mdl_code_sites ());
  g_hash_table_unref (table->by_name);
  g_ptr_array_unref (table->sites);
  g_mutex_clear (&table->lock);
  g_free (table);
}

/* `FILE:LINE`, keeping the tail of a path too long for a marker name. */
static char *
site_name (const char *file, guint line)
{
  char *name = g_strdup_printf ("%s:%u", file, line);
  gsize len = strlen (name);
  if (len > MDL_NAME_MAX)
    memmove (name, name + (len - MDL_NAME_MAX), MDL_NAME_MAX + 1);
  return name;
}

guint16
mdl_site_table_intern (MdlSiteTable *table, const char *file, guint line, const char *function)
{
  g_autofree char *name = NULL;
  gpointer found;
  guint16 id = 0;
  g_return_val_if_fail (table != NULL && file != NULL, 0);
  name = site_name (file, line);
  g_mutex_lock (&table->lock);
  if ((found = g_hash_table_lookup (table->by_name, name)) != NULL)
    id = (guint16) GPOINTER_TO_UINT (found);
  else if (table->sites->len < MDL_SITE_MAX)
    {
      MdlSite *s = g_new (MdlSite, 1);
      *s = (MdlSite) { .file = g_strdup (file), .line = line,
                       .function = g_strdup (function ? function : "???"),
                       .name = g_steal_pointer (&name) };
      g_ptr_array_add (table->sites, s);
      id = (guint16) table->sites->len;
      g_hash_table_insert (table->by_name, (gpointer) s->name, GUINT_TO_POINTER (id));
    }
  g_mutex_unlock (&table->lock);
  return id;
}

guint
mdl_site_table_size (const MdlSiteTable *table)
{
  MdlSiteTable *t = (MdlSiteTable *) table;
  guint n;
  g_return_val_if_fail (table != NULL, 0);
  g_mutex_lock (&t->lock);
  n = t->sites->len;
  g_mutex_unlock (&t->lock);
  return n;
}

const MdlSite *
mdl_site_table_get (const MdlSiteTable *table, guint id)
{
  MdlSiteTable *t = (MdlSiteTable *) table;
  const MdlSite *s = NULL;
  g_return_val_if_fail (table != NULL, NULL);
  g_mutex_lock (&t->lock);
  if (id >= 1 && id <= t->sites->len)
    s = g_ptr_array_index (t->sites, id - 1);
  g_mutex_unlock (&t->lock);
  return s;
}

guint16
mdl_site_table_find (const MdlSiteTable *table, const char *name)
{
  MdlSiteTable *t = (MdlSiteTable *) table;
  guint16 id;
  g_return_val_if_fail (table != NULL && name != NULL, 0);
  g_mutex_lock (&t->lock);
  id = (guint16) GPOINTER_TO_UINT (g_hash_table_lookup (t->by_name, name));
  g_mutex_unlock (&t->lock);
  return id;
}

MdlSiteTable *
mdl_code_sites (void)
{
  static gsize once;
  static MdlSiteTable *code_sites;
  if (g_once_init_enter (&once))
    {
      code_sites = mdl_site_table_new ();
      g_once_init_leave (&once, 1);
    }
  return code_sites;
}

guint16
mdl_code_site_register (gint *slot, const char *file, guint line, const char *function)
{
  guint16 id = mdl_site_table_intern (mdl_code_sites (), file, line, function);
  /* Why a full table stores MDL_SITE_MAX + 1: a slot left 0 would intern again at every access;
   * the cast to guint16 in MDL_SITE_HERE turns it into site 0. */
  __atomic_store_n (slot, id ? (gint) id : MDL_SITE_MAX + 1, __ATOMIC_RELAXED);
  return id;
}
