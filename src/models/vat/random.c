/* VAT replacement policy `random`, a baseline: once the TC is full, evict a cell chosen uniformly
 * at random (GLib's seeded GRand, parameter `seed`, so runs repeat). Cells fill in order first, and
 * the new node takes the evicted node's cell, so the choice depends only on the seed and the
 * sequence of misses. */
#include "models/vat/policy.h"

typedef struct {
  GRand *rand;
} Random;

static void
random_init (VatTc *tc)
{
  ((Random *) tc->ps)->rand = g_rand_new_with_seed ((guint32) tc->seed);
}

static void
random_reset (VatTc *tc)
{
  g_rand_set_seed (((Random *) tc->ps)->rand, (guint32) tc->seed);
}

static void
random_finalize (VatTc *tc)
{
  g_rand_free (((Random *) tc->ps)->rand);
}

static inline guint32
random_victim (VatTc *tc, guint64 node, guint32 parent)
{
  Random *r = tc->ps;
  (void) node, (void) parent;
  return (guint32) g_rand_int_range (r->rand, 0, (gint32) tc->n_slots);
}

VAT_POLICY_DEFINE (random, VAT_POLICY_FREE_FIRST, vat_no_access, random_victim,
                   .state_size = sizeof (Random), .init = random_init, .reset = random_reset,
                   .finalize = random_finalize);
