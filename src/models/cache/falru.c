/* The fully associative LRU of falru.h. */
#include "models/cache/falru.h"

void
mdl_falru_init (MdlFalru *f, guint32 cap)
{
  g_assert (cap >= 1);
  f->cap = cap;
  f->keys = g_new (guint64, cap);
  f->prev = g_new (guint32, cap);
  f->next = g_new (guint32, cap);
  mdl_u64map_init (&f->where, MIN (cap, 1u << 16));
  f->head = f->tail = FALRU_NONE;
  f->len = 0;
}

void
mdl_falru_clear (MdlFalru *f)
{
  mdl_u64map_clear (&f->where);
  f->head = f->tail = FALRU_NONE;
  f->len = 0;
}

void
mdl_falru_destroy (MdlFalru *f)
{
  mdl_u64map_destroy (&f->where);
  g_clear_pointer (&f->keys, g_free);
  g_clear_pointer (&f->prev, g_free);
  g_clear_pointer (&f->next, g_free);
}

static inline void
unlink_node (MdlFalru *f, guint32 n)
{
  if (f->prev[n] != FALRU_NONE)
    f->next[f->prev[n]] = f->next[n];
  else
    f->head = f->next[n];
  if (f->next[n] != FALRU_NONE)
    f->prev[f->next[n]] = f->prev[n];
  else
    f->tail = f->prev[n];
}

static inline void
push_front (MdlFalru *f, guint32 n)
{
  f->prev[n] = FALRU_NONE;
  f->next[n] = f->head;
  if (f->head != FALRU_NONE)
    f->prev[f->head] = n;
  else
    f->tail = n;
  f->head = n;
}

gboolean
mdl_falru_ref (MdlFalru *f, guint64 key, gboolean allocate, gboolean *fresh, guint32 *node,
               guint64 *evicted)
{
  guint64 *slot = mdl_u64map_upsert (&f->where, key, 0, fresh);
  guint32 n;

  *evicted = G_MAXUINT64;
  if (*slot != 0)
    {
      n = (guint32) (*slot - 1);
      if (f->head != n)
        {
          unlink_node (f, n);
          push_front (f, n);
        }
      *node = n;
      return TRUE;
    }
  *node = FALRU_NONE;
  if (!allocate)
    return FALSE;
  if (f->len < f->cap)
    n = f->len++;
  else
    {
      n = f->tail;
      *evicted = f->keys[n];
      unlink_node (f, n);
      /* The evicted key is in the map, so this lookup cannot grow it and @slot stays valid. */
      f->where.values[mdl_u64map_slot (&f->where, *evicted)] = 0;
    }
  f->keys[n] = key;
  *slot = (guint64) n + 1;
  push_front (f, n);
  *node = n;
  return FALSE;
}
