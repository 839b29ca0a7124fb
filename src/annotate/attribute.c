/* The attributor (include/models/annotate.h): gives each access of a Lackey trace the site of the
 * instruction that made it. The reader, with fetches kept, delivers a run of instructions as one
 * op count followed by one fetch per instruction, then the data accesses of the last one; Lackey
 * prints an instruction before its data accesses, so the latest fetch is the access's instruction.
 * Op counts are rebuilt here, one per instruction at its own site (merged while the site stays),
 * so that RAM operations split by line as well; their total does not change. An instruction's site
 * is looked up once per address (a hash), since a loop runs the same few addresses over and over. */
#include <models/annotate.h>

#include <string.h>


struct MdlAttributor {
  MdlSiteTable *sites;
  MdlAddrLineFunc resolve;
  void *data;
  gboolean keep_fetches;
  MdlSink next;
  GHashTable *site_of;    /* instruction address -> site id */
  guint16 unknown;        /* the site of instructions without a line */
  guint16 site;           /* the latest instruction's */
  guint n_named;          /* sites 1..n_named have had their marker */
  GArray *out;            /* MdlCpuEvent, the batch being rebuilt */
  guint64 n_instructions;
  guint64 n_resolved;
};

MdlAttributor *
mdl_attributor_new (MdlSiteTable *sites, MdlAddrLineFunc resolve, void *data,
                    gboolean keep_fetches, const MdlSink *next)
{
  MdlAttributor *a;
  g_return_val_if_fail (sites != NULL && resolve != NULL && next != NULL, NULL);
  a = g_new0 (MdlAttributor, 1);
  a->sites = sites;
  a->resolve = resolve;
  a->data = data;
  a->keep_fetches = keep_fetches;
  a->next = *next;
  a->site_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  a->out = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  return a;
}

static void
free_keys (gpointer key, gpointer value, gpointer data)
{
  (void) value, (void) data;
  g_free (key);
}

void
mdl_attributor_free (MdlAttributor *attributor)
{
  if (attributor == NULL)
    return;
  g_hash_table_foreach (attributor->site_of, free_keys, NULL);
  g_hash_table_unref (attributor->site_of);
  g_array_unref (attributor->out);
  g_free (attributor);
}

/* The site of the instruction at @addr. */
static guint16
instruction_site (MdlAttributor *a, guint64 addr)
{
  gpointer found = g_hash_table_lookup (a->site_of, &addr);
  const char *file = NULL, *function = NULL;
  guint line = 0;
  guint16 site;
  gint64 *key;
  a->n_instructions++;
  if (found)
    {
      a->n_resolved += GPOINTER_TO_UINT (found) >> 16;
      return (guint16) GPOINTER_TO_UINT (found);
    }
  if (a->resolve (a->data, addr, &file, &line, &function) && file)
    site = mdl_site_table_intern (a->sites, file, line, function);
  else
    {
      if (a->unknown == 0)
        a->unknown = mdl_site_table_intern (a->sites, "???", 0, "???");
      site = a->unknown;
      file = NULL;
    }
  a->n_resolved += file != NULL;
  key = g_new (gint64, 1);
  *key = (gint64) addr;
  /* The value packs the site and whether it resolved (bit 16), for the count above. */
  g_hash_table_insert (a->site_of, key, GUINT_TO_POINTER (site | (file != NULL) << 16));
  return site;
}

static void
push (MdlAttributor *a, MdlCpuEvent e)
{
  g_array_append_val (a->out, e);
}

/* Names the sites interned since the last batch, before the events that carry them. */
static gboolean
name_new_sites (MdlAttributor *a, GError **error)
{
  guint n = mdl_site_table_size (a->sites);
  for (; a->n_named < n; a->n_named++)
    {
      const MdlSite *s = mdl_site_table_get (a->sites, a->n_named + 1);
      MdlMarker m = { .kind = MDL_MARK_SITE, .site = (guint16) (a->n_named + 1), .name = s->name };
      if (!a->next.marker (a->next.data, &m, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
attribute_batch (void *data, const MdlEventBatch *b, GError **error)
{
  MdlAttributor *a = data;
  MdlEventBatch out = { 0 };
  if (b->n_cpu == 0)
    return a->next.batch (a->next.data, b, error);
  g_array_set_size (a->out, 0);
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      MdlCpuEvent e = b->cpu[i];
      if (e.kind == MDL_CPU_OPS)
        continue;   /* rebuilt per instruction below */
      if (e.flags & MDL_CPU_FLAG_FETCH)
        {
          MdlCpuEvent *last = a->out->len ? &g_array_index (a->out, MdlCpuEvent, a->out->len - 1)
                                          : NULL;
          a->site = instruction_site (a, e.addr);
          if (last && last->kind == MDL_CPU_OPS && last->site == a->site)
            last->addr++;
          else
            push (a, (MdlCpuEvent) { .kind = MDL_CPU_OPS, .site = a->site, .addr = 1 });
          if (!a->keep_fetches)
            continue;
        }
      e.site = a->site;
      push (a, e);
    }
  if (!name_new_sites (a, error))
    return FALSE;
  out.cpu = (const MdlCpuEvent *) (gconstpointer) a->out->data;
  out.n_cpu = a->out->len;
  return out.n_cpu == 0 || a->next.batch (a->next.data, &out, error);
}

static gboolean
attribute_marker (void *data, const MdlMarker *m, GError **error)
{
  MdlAttributor *a = data;
  return a->next.marker (a->next.data, m, error);
}

MdlSink
mdl_attributor_sink (MdlAttributor *attributor)
{
  g_return_val_if_fail (attributor != NULL, (MdlSink) { 0 });
  return (MdlSink) { attribute_batch, attribute_marker, attributor };
}

guint64
mdl_attributor_n_instructions (const MdlAttributor *attributor)
{
  g_return_val_if_fail (attributor != NULL, 0);
  return attributor->n_instructions;
}

guint64
mdl_attributor_n_resolved (const MdlAttributor *attributor)
{
  g_return_val_if_fail (attributor != NULL, 0);
  return attributor->n_resolved;
}
