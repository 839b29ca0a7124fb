/* The branch predictor written out (branch-ref.h): no masks, no shifts on a packed history. */
#include "ref/branch-ref.h"

void
ref_branch_init (RefBranch *r, guint bits, guint history)
{
  r->counters = g_hash_table_new (g_int64_hash, g_int64_equal);
  r->outcomes = g_array_new (FALSE, FALSE, sizeof (gboolean));
  r->bits = bits;
  r->history = history;
  r->branches = 0;
  r->mispredicts = 0;
}

void
ref_branch_clear (RefBranch *r)
{
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, r->counters);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_free (key);
  g_hash_table_unref (r->counters);
  g_array_unref (r->outcomes);
}

/* Bit i of the index is bit i of the pc, flipped when i < history and the outcome i branches ago
 * (i = 0: the last one) was taken; bits at and above `bits` are dropped. */
static gint64
ref_index (const RefBranch *r, guint64 pc)
{
  gint64 index = 0;
  for (guint i = 0; i < r->bits; i++)
    {
      gboolean bit = (pc >> i) & 1;
      if (i < r->history && i < r->outcomes->len)
        bit ^= g_array_index (r->outcomes, gboolean, r->outcomes->len - 1 - i);
      if (bit)
        index += (gint64) 1 << i;
    }
  return index;
}

gboolean
ref_branch_step (RefBranch *r, guint64 pc, gboolean taken)
{
  gint64 index = ref_index (r, pc);
  gint64 *stored = g_hash_table_lookup (r->counters, &index);
  int state = stored ? (int) stored[1] - 1 : 1;   /* 1: weakly not taken, the initial state */
  gboolean predicted_taken = state >= 2;
  if (taken && state < 3)
    state++;
  if (!taken && state > 0)
    state--;
  if (stored == NULL)
    {
      stored = g_new (gint64, 2);
      stored[0] = index;
      g_hash_table_insert (r->counters, stored, stored);
    }
  stored[1] = state + 1;
  g_array_append_val (r->outcomes, taken);
  r->branches++;
  r->mispredicts += predicted_taken != taken;
  return predicted_taken != taken;
}
