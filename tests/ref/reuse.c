/* The reference LRU stack of tests/ref/reuse.h. */
#include "ref/reuse.h"

RefReuse *
ref_reuse_new (void)
{
  RefReuse *r = g_new0 (RefReuse, 1);
  r->stack = g_array_new (FALSE, FALSE, sizeof (guint64));
  return r;
}

void
ref_reuse_free (RefReuse *r)
{
  if (r == NULL)
    return;
  g_array_unref (r->stack);
  g_free (r);
}

gint64
ref_reuse_touch (RefReuse *r, guint64 page)
{
  guint64 *s = (guint64 *) (void *) r->stack->data;
  guint pos = 0;
  while (pos < r->stack->len && s[pos] != page)
    pos++;
  if (pos == r->stack->len)
    {
      g_array_prepend_val (r->stack, page);
      return REF_REUSE_COLD;
    }
  /* Move the page to the top: everything above it slides down by one. */
  for (guint i = pos; i > 0; i--)
    s[i] = s[i - 1];
  s[0] = page;
  return (gint64) pos;
}

guint
ref_reuse_pages (const RefReuse *r)
{
  return r->stack->len;
}
