/* Tests of the vat engine's forward next-use pass (src/models/vat/nextuse.c) against an obviously
 * correct backward pass written here: the same random traces added in random windows must give,
 * after every window, the backward pass's entries over the prefix added so far, and the accesses
 * it calls final must already have their entries for the whole trace. MODELS_TEST_SEED replays a
 * failure. */
#include "helpers.h"

#include "models/vat/nextuse.h"
#include "ref/vat-ref.h"

/* For every access t and layer l of @pages[0..@n), the next access using the same layer-l node,
 * G_MAXUINT32 for none: one backward sweep remembering each node's latest access. */
static guint32 *
backward_nextuse (const guint64 *pages, gsize n, guint depth, guint k_bits)
{
  guint32 *next = g_new (guint32, MAX (n * (depth + 1), 1));
  for (guint l = 0; l <= depth; l++)
    {
      g_autoptr (GHashTable) latest = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      for (gsize t = n; t-- > 0;)
        {
          gint64 *node = g_new (gint64, 1);
          gpointer at;
          *node = (gint64) (pages[t] >> (k_bits * l));
          next[t * (depth + 1) + l] = g_hash_table_lookup_extended (latest, node, NULL, &at)
                                      ? GPOINTER_TO_UINT (at) : G_MAXUINT32;
          g_hash_table_replace (latest, node, GUINT_TO_POINTER ((guint) t));
        }
    }
  return next;
}

typedef struct {
  const char *name;
  guint k_bits, depth;
  guint sparse_percent;  /* pages drawn uniformly from the whole tree instead of the mix */
  gsize sparse_from;     /* from this access on (a layer then turns from direct to hashed) */
} Case;

/* Hand-picked shapes: small trees whose arrays stay direct, and wide ones whose lower layers
 * become hashed at the start or in the middle of the trace (DIRECT_ANY = 2^22 numbers). */
static const Case cases[] = {
  { "small dense trees",         2, 4,   0,    0 },
  { "binary tree, deep",         1, 8,   0,    0 },
  { "wide tree, sparse at once", 9, 4,  50,    0 },
  { "wide tree, sparse later",   9, 4,  30, 2000 },
  { "wide tree, all sparse",    12, 3, 100,    0 },
};

static void
make_pages (GRand *rand, const Case *c, gsize n, guint64 *pages)
{
  guint64 top = G_GUINT64_CONSTANT (1) << (c->k_bits * c->depth);
  ref_vat_random_pages (rand, MIN (c->k_bits, 3), c->depth, n, pages);
  for (gsize t = c->sparse_from; t < n; t++)
    if ((guint) g_rand_int_range (rand, 0, 100) < c->sparse_percent)
      pages[t] = (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand)) & (top - 1);
}

/* The first access with an entry still G_MAXUINT32 (@n if none). */
static gsize
first_open (const guint32 *next, gsize n, guint depth)
{
  for (gsize t = 0; t < n; t++)
    for (guint l = 0; l <= depth; l++)
      if (next[t * (depth + 1) + l] == G_MAXUINT32)
        return t;
  return n;
}

/* Ensure the forward pass, fed in windows of 1 to 900 accesses, equals the backward pass over each
 * prefix at every window's end, that `final_upto` is the first access still waiting for a next
 * use, and that every entry before it is already the whole trace's. */
static void
test_forward_equals_backward (void **state)
{
  guint32 seed = test_seed (1801);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 40; trial++)
    {
      const Case *c = &cases[trial % G_N_ELEMENTS (cases)];
      gsize n = (gsize) g_rand_int_range (rand, 1, 6000);
      guint stride = c->depth + 1;
      g_autofree guint64 *pages = g_new (guint64, n);
      g_autofree guint32 *whole = NULL;
      VatNextUse nu;
      make_pages (rand, c, n, pages);
      whole = backward_nextuse (pages, n, c->depth, c->k_bits);
      mdl_vat_nextuse_init (&nu, c->depth, c->k_bits);
      for (gsize at = 0, step; at < n; at += step)
        {
          g_autofree guint32 *prefix = NULL;
          const guint32 *got;
          step = (gsize) g_rand_int_range (rand, 1, 900);
          step = MIN (step, n - at);
          mdl_vat_nextuse_add (&nu, pages + at, step);
          got = mdl_vat_nextuse_of (&nu);
          prefix = backward_nextuse (pages, at + step, c->depth, c->k_bits);
          for (gsize i = 0; i < (at + step) * stride; i++)
            if (got[i] != prefix[i])
              fail_msg ("seed %u, trial %u (%s, n %zu): after %zu accesses, access %zu layer %zu: "
                        "next use %u, the backward pass says %u", seed, trial, c->name, n,
                        at + step, i / stride, i % stride, got[i], prefix[i]);
          if (nu.final_upto != first_open (got, at + step, c->depth))
            fail_msg ("seed %u, trial %u (%s): after %zu accesses final_upto is %zu, the first "
                      "access still open is %zu", seed, trial, c->name, at + step, nu.final_upto,
                      first_open (got, at + step, c->depth));
          for (gsize i = 0; i < nu.final_upto * stride; i++)
            if (got[i] != whole[i])
              fail_msg ("seed %u, trial %u (%s): after %zu accesses, access %zu (final) layer %zu "
                        "has %u, the whole trace gives %u", seed, trial, c->name, at + step,
                        i / stride, i % stride, got[i], whole[i]);
        }
      mdl_vat_nextuse_finalize (&nu);
    }
  g_rand_free (rand);
}

/* Ensure a layer whose first numbers are scattered over a range too wide for a direct array goes
 * to a hash table, moves back to a direct array once the range has filled in (a random trace over
 * 2^23 pages, beyond DIRECT_ANY = 2^22 numbers), and gives the backward pass's entries all
 * along. */
static void
test_forward_hashed_then_direct (void **state)
{
  guint32 seed = test_seed (1802);
  GRand *rand = g_rand_new_with_seed (seed);
  gsize n = 800000;
  guint depth = 2, k_bits = 12;
  g_autofree guint64 *pages = g_new (guint64, n);
  g_autofree guint32 *whole = NULL;
  gboolean was_hashed = FALSE;
  VatNextUse nu;
  (void) state;
  for (gsize t = 0; t < n; t++)
    pages[t] = g_rand_int_range (rand, 0, 8) == 0 && t > 0 ? pages[t - 1]
               : (guint64) g_rand_int_range (rand, 0, 1 << 23);
  whole = backward_nextuse (pages, n, depth, k_bits);
  mdl_vat_nextuse_init (&nu, depth, k_bits);
  for (gsize at = 0, step; at < n; at += step)
    {
      const guint32 *got;
      step = (gsize) g_rand_int_range (rand, 1, 60000);
      step = MIN (step, n - at);
      mdl_vat_nextuse_add (&nu, pages + at, step);
      was_hashed |= nu.layer[0].hashed;
      got = mdl_vat_nextuse_of (&nu);
      for (gsize i = 0; i < nu.final_upto * (depth + 1); i++)
        if (got[i] != whole[i])
          fail_msg ("seed %u: after %zu accesses, access %zu (final) layer %zu has %u, the whole "
                    "trace gives %u", seed, at + step, i / (depth + 1), i % (depth + 1), got[i],
                    whole[i]);
    }
  for (gsize i = 0; i < n * (depth + 1); i++)
    if (mdl_vat_nextuse_of (&nu)[i] != whole[i])
      fail_msg ("seed %u: access %zu layer %zu has %u, the backward pass %u", seed, i / (depth + 1),
                i % (depth + 1), mdl_vat_nextuse_of (&nu)[i], whole[i]);
  if (!was_hashed || nu.layer[0].hashed)
    fail_msg ("seed %u: the leaf layer was %shashed and ends %shashed; this test is for a layer "
              "that is hashed and then direct", seed, was_hashed ? "" : "never ",
              nu.layer[0].hashed ? "" : "not ");
  mdl_vat_nextuse_finalize (&nu);
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_forward_equals_backward),
    cmocka_unit_test (test_forward_hashed_then_direct),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
