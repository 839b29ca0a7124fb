/* VAT replacement policy `min` (Belady, spec vat §2.4): evict the cached node whose next use is
 * furthest in the future; nodes never used again go first, descendants before ancestors (their keys
 * say so, see VAT_DEAD_KEY). Every path node is accessed whatever the policy, so MIN on the TC is
 * Belady's algorithm on the flattened node sequence; the keys come from the next-use pre-pass
 * (nextuse.c), as libCacheSim's Belady reads next_access_vtime.
 *
 * A max-heap over all cells keyed by next use: a hit moves one key later (sift), a miss pops the
 * top. O(log W) per node access. No gap shortcut: MIN may keep a node below a missing one. */
#include <models/error.h>

#include "models/vat/heap.h"
#include "models/vat/policy.h"

#define MIN_FLAGS (VAT_POLICY_OFFLINE | VAT_POLICY_STACK)

typedef struct {
  guint64 *key;    /* [W] next-use key of each cell's node */
  VatHeap heap;
} Min;

static void
min_reset (VatTc *tc)
{
  Min *m = tc->ps;
  vat_heap_clear (&m->heap, tc->n_slots);
}

static gboolean
min_init (VatTc *tc, GError **error)
{
  Min *m = g_new0 (Min, 1);
  (void) error;
  m->key = g_new0 (guint64, tc->n_slots);
  vat_heap_init (&m->heap, tc->n_slots, m->key);
  tc->ps = m;
  return TRUE;
}

static void
min_finalize (VatTc *tc)
{
  Min *m = tc->ps;
  if (m == NULL)
    return;
  vat_heap_free (&m->heap);
  g_free (m->key);
  g_free (m);
  tc->ps = NULL;
}

static inline void
min_access (VatTc *tc, guint32 s, gboolean hit)
{
  Min *m = tc->ps;
  m->key[s] = tc->next_key;
  if (hit)
    vat_heap_update (&m->heap, s);
  else
    vat_heap_push (&m->heap, s);
}

static inline guint32
min_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Min *m = tc->ps;
  guint32 s = vat_free_slot (tc);
  (void) node, (void) parent;
  if (s != VAT_NO_SLOT)
    return s;
  s = m->heap.item[0];
  vat_heap_remove (&m->heap, s);
  return s;
}

static void
min_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  vat_run_inline (tc, pages, n, next, hist, min_access, min_victim, MIN_FLAGS);
}

static gboolean
min_check (const VatTc *tc, GError **error)
{
  const Min *m = tc->ps;
  if (m->heap.len != tc->filled)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: min heap holds %u cells of %u",
                   m->heap.len, tc->filled);
      return FALSE;
    }
  for (guint32 i = 1; i < m->heap.len; i++)
    if (m->key[m->heap.item[(i - 1) / 2]] < m->key[m->heap.item[i]] || m->heap.pos[m->heap.item[i]] != i)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat TC check: min heap order broken at %u", i);
        return FALSE;
      }
  return TRUE;
}

const VatPolicy mdl_vat_min = {
  .name = "min",
  .flags = MIN_FLAGS,
  .init = min_init,
  .access = min_access,
  .victim = min_victim,
  .reset = min_reset,
  .finalize = min_finalize,
  .run = min_run,
  .check = min_check,
};
