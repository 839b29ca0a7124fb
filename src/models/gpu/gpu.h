/* Private to the GPU engines (coalesce, banks, divergence): a small set of 64-bit keys for
 * counting distinct sectors, lines and bank words within one warp instruction. It is cleared in
 * O(1) by bumping a generation stamp, since the engines use it once per instruction and a memset
 * of the table would cost more than the lookups. */
#ifndef MDL_MODELS_GPU_H
#define MDL_MODELS_GPU_H

#include <glib.h>

/* Slots of the set: a power of two, more than twice the most keys one instruction adds
 * (64 lanes x 2 sectors each for a misaligned access). */
#define GPU_SET_SLOTS 512

typedef struct {
  guint64 key[GPU_SET_SLOTS];
  guint32 gen[GPU_SET_SLOTS];
  guint32 now;
  guint n;
} GpuSet;

static inline void
gpu_set_clear (GpuSet *s)
{
  s->n = 0;
  if (G_UNLIKELY (++s->now == 0))
    {
      memset (s->gen, 0, sizeof s->gen);
      s->now = 1;
    }
}

/* Adds @key; TRUE when it was not there yet. */
static inline gboolean
gpu_set_add (GpuSet *s, guint64 key)
{
  guint i = (guint) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 55) & (GPU_SET_SLOTS - 1);
  while (s->gen[i] == s->now)
    {
      if (s->key[i] == key)
        return FALSE;
      i = (i + 1) & (GPU_SET_SLOTS - 1);
    }
  s->gen[i] = s->now;
  s->key[i] = key;
  s->n++;
  return TRUE;
}

#endif
