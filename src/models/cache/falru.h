/* Private to the hardware engines: a fully associative LRU of up to 2^31 keys that also remembers
 * every key it has ever seen. The `em` engine is one; the `cache` engine runs one beside each level
 * to classify misses (compulsory: never seen; capacity: this LRU of the level's size misses too).
 *
 * The recency order is a doubly linked list over node arrays, head = most recent; a hash map sends
 * each key to its node while it is resident and to 0 after it is pushed out, so a key is never
 * removed from the map (which has no deletion) and "seen before" is one lookup. O(1) per reference. */
#ifndef MDL_CACHE_FALRU_H
#define MDL_CACHE_FALRU_H

#include <glib.h>

#include "models/u64map.h"

#define FALRU_NONE G_MAXUINT32

typedef struct {
  MdlU64Map where;    /* key -> node + 1 while resident, 0 once pushed out */
  guint64 *keys;      /* [cap] the key in each node */
  guint32 *prev;      /* [cap] towards the head (more recent) */
  guint32 *next;      /* [cap] towards the tail (less recent) */
  guint32 head;       /* most recent, FALRU_NONE when empty */
  guint32 tail;       /* least recent */
  guint32 len;        /* resident keys */
  guint32 cap;        /* capacity in keys (>= 1) */
} MdlFalru;

void mdl_falru_init (MdlFalru *f, guint32 cap);
/* Forgets everything, including the keys seen. */
void mdl_falru_clear (MdlFalru *f);
void mdl_falru_destroy (MdlFalru *f);

/**
 * mdl_falru_ref: references @key (never G_MAXUINT64).
 * @allocate: on a miss, make @key resident (the most recent); FALSE leaves the order unchanged.
 * @fresh: (out) TRUE when @key was never referenced before.
 * @node: (out) the node now holding @key, FALRU_NONE when it is not resident. A node freed by an
 *   eviction is the one the new key takes, so a caller keeping per-node data (em's dirty bits)
 *   reads the evicted key's data from *@node before overwriting it.
 * @evicted: (out) the key pushed out, G_MAXUINT64 for none.
 * Returns: TRUE on a hit.
 */
gboolean mdl_falru_ref (MdlFalru *f, guint64 key, gboolean allocate, gboolean *fresh,
                        guint32 *node, guint64 *evicted);

#endif
