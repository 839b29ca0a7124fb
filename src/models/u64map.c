/* The hash map of src/models/u64map.h: allocation and growth. */
#include "models/u64map.h"

#include <string.h>

static void
alloc_table (MdlU64Map *m, gsize capacity)
{
  m->keys = g_new (guint64, capacity);
  m->values = g_new (guint64, capacity);
  memset (m->keys, 0xff, capacity * sizeof (guint64));
  m->mask = capacity - 1;
  m->shift = 64 - (guint) __builtin_ctzll (capacity);
  m->len = 0;
}

void
mdl_u64map_init (MdlU64Map *m, gsize capacity_hint)
{
  gsize cap = 16;
  while (cap < 2 * capacity_hint)
    cap *= 2;
  alloc_table (m, cap);
}

void
mdl_u64map_clear (MdlU64Map *m)
{
  memset (m->keys, 0xff, (m->mask + 1) * sizeof (guint64));
  m->len = 0;
}

void
mdl_u64map_destroy (MdlU64Map *m)
{
  g_clear_pointer (&m->keys, g_free);
  g_clear_pointer (&m->values, g_free);
  m->mask = 0;
  m->len = 0;
}

void
mdl_u64map_grow (MdlU64Map *m)
{
  guint64 *keys = m->keys, *values = m->values;
  gsize old_cap = m->mask + 1;
  alloc_table (m, old_cap * 2);
  for (gsize i = 0; i < old_cap; i++)
    if (keys[i] != MDL_U64MAP_EMPTY)
      {
        gsize j = mdl_u64map_slot (m, keys[i]);
        m->keys[j] = keys[i];
        m->values[j] = values[i];
        m->len++;
      }
  g_free (keys);
  g_free (values);
}
