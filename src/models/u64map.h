/* Private: an open-addressing hash map from 64-bit keys to 64-bit values, for the hot paths of
 * engines that track pages, lines or tree nodes. Linear probing over a power-of-two table kept at
 * most half full; the key G_MAXUINT64 is reserved (it marks empty slots), which no page, line or
 * node index can reach. No deletion: engines that forget keys rebuild the map. */
#ifndef MDL_U64MAP_H
#define MDL_U64MAP_H

#include <glib.h>

typedef struct {
  guint64 *keys;
  guint64 *values;
  gsize mask;       /* capacity - 1 */
  gsize len;
  guint shift;      /* 64 - log2 capacity: the hash keeps the product's top bits */
} MdlU64Map;

#define MDL_U64MAP_EMPTY G_MAXUINT64

void mdl_u64map_init (MdlU64Map *m, gsize capacity_hint);
void mdl_u64map_clear (MdlU64Map *m);
/* Frees the storage; the map must be initialized again before use. */
void mdl_u64map_destroy (MdlU64Map *m);
void mdl_u64map_grow (MdlU64Map *m);

/* The home slot of @key in @m. */
static inline gsize
mdl_u64map_hash (const MdlU64Map *m, guint64 key)
{
  /* Why multiply-shift keeping the top bits (Fibonacci hashing): page and line numbers are dense
   * runs; the odd constant (2^64 / golden ratio) spreads consecutive keys over the table, and only
   * the top bits of the product depend on every bit of the key. A fixed shift (the product's bits
   * 20 and up) ignored the key's bits above 20 + log2 capacity, so keys that differ only there,
   * such as agpu's (block << 32 | word), all probed from a few slots: on reduce/tree at n = 4M that
   * made agpu 37x slower than the other engines. */
  return (gsize) ((key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

/* The slot of @key: either the slot holding it or the empty slot where it would go. */
static inline gsize
mdl_u64map_slot (const MdlU64Map *m, guint64 key)
{
  gsize i = mdl_u64map_hash (m, key);
  while (m->keys[i] != key && m->keys[i] != MDL_U64MAP_EMPTY)
    i = (i + 1) & m->mask;
  return i;
}

/* Returns a pointer to @key's value, inserting it with value @init when absent; *inserted tells. */
static inline guint64 *
mdl_u64map_upsert (MdlU64Map *m, guint64 key, guint64 init, gboolean *inserted)
{
  gsize i = mdl_u64map_slot (m, key);
  *inserted = m->keys[i] == MDL_U64MAP_EMPTY;
  if (*inserted)
    {
      if (G_UNLIKELY (2 * (m->len + 1) > m->mask + 1))
        {
          mdl_u64map_grow (m);
          i = mdl_u64map_slot (m, key);
        }
      m->keys[i] = key;
      m->values[i] = init;
      m->len++;
    }
  return &m->values[i];
}

#endif
