/* The sparse page array of src/models/pages.h: lookup, pool and recycling. */
#include "models/pages.h"

#include <string.h>
#ifdef G_OS_UNIX
#include <sys/mman.h>
#endif

#define SLAB_BYTES ((gsize) 2 << 20)

/* A new slab of at least @bytes zeroed bytes. */
static MdlPagesSlab
slab_new (gsize bytes)
{
  MdlPagesSlab s = { NULL, NULL, 0, MAX (bytes, SLAB_BYTES) };
#if defined(G_OS_UNIX) && defined(MADV_HUGEPAGE)
  gsize len = (s.bytes + SLAB_BYTES - 1) / SLAB_BYTES * SLAB_BYTES + SLAB_BYTES;
  void *map = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map != MAP_FAILED)
    {
      s.start = (guint8 *) (((guintptr) map + SLAB_BYTES - 1) & ~(guintptr) (SLAB_BYTES - 1));
      madvise (s.start, s.bytes, MADV_HUGEPAGE);
      s.map = map;
      s.map_bytes = len;
      return s;
    }
#endif
  s.start = g_malloc0 (s.bytes);
  return s;
}

static void
slab_free (void *data)
{
  MdlPagesSlab *s = data;
#if defined(G_OS_UNIX) && defined(MADV_HUGEPAGE)
  if (s->map)
    {
      munmap (s->map, s->map_bytes);
      return;
    }
#endif
  g_free (s->start);
}

/* A page never handed out before: zeroed already. */
static guint8 *
page_new (MdlPages *p)
{
  MdlPagesSlab *s = p->slabs->len ? &g_array_index (p->slabs, MdlPagesSlab, p->slabs->len - 1) : NULL;
  guint8 *page;
  if (s == NULL || s->bytes - p->slab_used < p->page_bytes)
    {
      MdlPagesSlab fresh = slab_new (p->page_bytes);
      g_array_append_val (p->slabs, fresh);
      s = &g_array_index (p->slabs, MdlPagesSlab, p->slabs->len - 1);
      p->slab_used = 0;
    }
  page = s->start + p->slab_used;
  p->slab_used += p->page_bytes;
  return page;
}

void
mdl_pages_init (MdlPages *p, gsize page_bytes)
{
  mdl_u64map_init (&p->index, 64);
  p->pool = g_ptr_array_new ();
  p->page_bytes = page_bytes;
  p->slabs = g_array_new (FALSE, FALSE, sizeof (MdlPagesSlab));
  g_array_set_clear_func (p->slabs, slab_free);
  p->slab_used = 0;
  p->last = NULL;
  p->last_no = G_MAXUINT64;
}

void
mdl_pages_destroy (MdlPages *p)
{
  if (p->index.keys)
    mdl_u64map_destroy (&p->index);
  g_clear_pointer (&p->pool, g_ptr_array_unref);
  g_clear_pointer (&p->slabs, g_array_unref);
  p->last = NULL;
  p->last_no = G_MAXUINT64;
}

void
mdl_pages_recycle (MdlPages *p)
{
  mdl_u64map_clear (&p->index);
  p->last = NULL;
  p->last_no = G_MAXUINT64;
}

guint8 *
mdl_pages_fetch (MdlPages *p, guint64 no)
{
  gboolean inserted;
  guint64 *at = mdl_u64map_upsert (&p->index, no, p->index.len, &inserted);
  if (inserted)
    {
      if (*at == p->pool->len)
        g_ptr_array_add (p->pool, page_new (p));
      else
        memset (p->pool->pdata[*at], 0, p->page_bytes);
    }
  p->last_no = no;
  p->last = p->pool->pdata[*at];
  return p->last;
}
