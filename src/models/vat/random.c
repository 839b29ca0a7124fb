/* VAT replacement policy `random`, a baseline: once the TC is full, evict a cell chosen uniformly
 * at random (GLib's seeded GRand, parameter `seed`, so runs repeat). Cells fill in order first, and
 * the new node takes the evicted node's cell, so the choice depends only on the seed and the
 * sequence of misses. */
#include "models/vat/policy.h"

#define RANDOM_FLAGS 0

typedef struct {
  GRand *rand;
} Random;

static void
random_reset (VatTc *tc)
{
  Random *r = tc->ps;
  g_rand_set_seed (r->rand, (guint32) tc->seed);
}

static gboolean
random_init (VatTc *tc, GError **error)
{
  Random *r = g_new0 (Random, 1);
  (void) error;
  r->rand = g_rand_new_with_seed ((guint32) tc->seed);
  tc->ps = r;
  return TRUE;
}

static void
random_finalize (VatTc *tc)
{
  Random *r = tc->ps;
  if (r == NULL)
    return;
  g_rand_free (r->rand);
  g_free (r);
  tc->ps = NULL;
}

static inline void
random_access (VatTc *tc, guint32 s, gboolean hit)
{
  (void) tc, (void) s, (void) hit;
}

static inline guint32
random_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Random *r = tc->ps;
  guint32 s = vat_free_slot (tc);
  (void) node, (void) parent;
  if (s != VAT_NO_SLOT)
    return s;
  return (guint32) g_rand_int_range (r->rand, 0, (gint32) tc->n_slots);
}

static void
random_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  vat_run_inline (tc, pages, n, next, hist, random_access, random_victim, RANDOM_FLAGS);
}

const VatPolicy mdl_vat_random = {
  .name = "random",
  .flags = RANDOM_FLAGS,
  .init = random_init,
  .access = random_access,
  .victim = random_victim,
  .reset = random_reset,
  .finalize = random_finalize,
  .run = random_run,
};
