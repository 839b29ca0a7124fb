/* The sparse page array of src/models/pages.h: lookup, pool and recycling. */
#include "models/pages.h"

#include <string.h>

void
mdl_pages_init (MdlPages *p, gsize page_bytes)
{
  mdl_u64map_init (&p->index, 64);
  p->pool = g_ptr_array_new_with_free_func (g_free);
  p->page_bytes = page_bytes;
  p->last = NULL;
  p->last_no = G_MAXUINT64;
}

void
mdl_pages_destroy (MdlPages *p)
{
  if (p->index.keys)
    mdl_u64map_destroy (&p->index);
  g_clear_pointer (&p->pool, g_ptr_array_unref);
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
        g_ptr_array_add (p->pool, g_malloc (p->page_bytes));
      memset (p->pool->pdata[*at], 0, p->page_bytes);
    }
  p->last_no = no;
  p->last = p->pool->pdata[*at];
  return p->last;
}
