/* The one-pass min/ismin curve's stack update (src/models/vat/curve-min.c) against the textbook
 * Mattson update of tests/ref/opt-stack.c, walk by walk, over thousands of random walk sequences
 * (MODELS_TEST_SEED replays a failure); and one case worked out by hand. test-vat-ref.c checks,
 * on real traces, that the curve equals a run at every W. */
#include "helpers.h"

#include "models/vat/curve.h"
#include "ref/opt-stack.h"

#define PINNED 0   /* curve-min.c's key of an ismin node while its walk lasts */

/* One walk of @n nodes into both: what mdl_vat_curve_min_walk() does, spelled out. */
static void
walk_both (VatCurveMin *c, RefOptStack *ref, gboolean is, const guint64 *nodes,
           const guint64 *keys, guint n)
{
  mdl_vat_curve_min_walk (c, nodes, keys, n);
  for (guint i = 0; i < n; i++)
    ref_opt_stack_reference (ref, nodes[i], is ? PINNED : keys[i]);
  for (guint i = 0; is && i < n; i++)
    ref_opt_stack_set_key (ref, nodes[i], keys[i]);
}

/* Ensure the curve of the trace a b c b a, one node per walk, keys = next use (never again = a
 * large key), is the one worked out by hand: OPT with 1 cell misses all 5; with 2 it misses a, b,
 * c (evicting a, used later than b) and a again: 4; with 3 only the 3 first uses. */
static void
test_hand_worked_curve (void **state)
{
  static const guint64 nodes[] = { 'a', 'b', 'c', 'b', 'a' };
  static const guint64 keys[] = { 4, 3, 100, 101, 102 };
  static const guint64 want[] = { 5, 5, 4, 3 };
  guint64 out[4];
  VatCurveMin *c = mdl_vat_curve_min_new (3, FALSE);
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    mdl_vat_curve_min_walk (c, nodes + i, keys + i, 1);
  mdl_vat_curve_min_misses (c, out);
  for (guint w = 0; w < G_N_ELEMENTS (want); w++)
    if (out[w] != want[w])
      fail_msg ("W=%u: %" G_GUINT64_FORMAT " misses, by hand %" G_GUINT64_FORMAT, w, out[w],
                want[w]);
  mdl_vat_curve_min_free (c);
}

/* A random key: mostly from a small range (equal keys, whose order then decides), sometimes 0
 * (a pinned node's) or one of two "never used again" keys. */
static guint64
random_key (GRand *rand, guint64 range)
{
  switch (g_rand_int_range (rand, 0, 10))
    {
    case 0:
      return 0;
    case 1:
      return G_GUINT64_CONSTANT (1) << 62;
    case 2:
      return (G_GUINT64_CONSTANT (1) << 62) + 1;
    default:
      return (guint64) g_rand_int_range (rand, 1, (gint32) range + 1);
    }
}

/* Ensure the curve equals the reference's after every walk, for min and ismin, over 3000 random
 * sequences: stack sizes (curve_max) from 1 to 80 and a few to 700 (several levels of the max
 * tree, sizes that are not multiples of its fan-out), node universes from 2 to three times the
 * stack (repeats, and nodes falling off the bottom), walks of 1 to 7 nodes, keys with ties; and a
 * reset between two halves of some sequences. */
static void
test_curve_equals_textbook_update (void **state)
{
  guint32 seed = test_seed (2017);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 3000; trial++)
    {
      gboolean is = trial % 2 == 1;
      guint32 wmax = trial % 50 == 0 ? (guint32) g_rand_int_range (rand, 81, 700)
                                     : (guint32) g_rand_int_range (rand, 1, 81);
      guint32 universe = (guint32) g_rand_int_range (rand, 2, (gint32) (3 * wmax + 3));
      guint walks = (guint) g_rand_int_range (rand, 1, trial % 50 == 0 ? 3000 : 300);
      guint64 range = (guint64) g_rand_int_range (rand, 2, 1000);
      gboolean reset = g_rand_int_range (rand, 0, 8) == 0;
      VatCurveMin *c = mdl_vat_curve_min_new (wmax, is);
      RefOptStack *ref = ref_opt_stack_new (wmax);
      g_autofree guint64 *got = g_new (guint64, wmax + 1);
      g_autofree guint64 *want = g_new (guint64, wmax + 1);
      for (guint w = 0; w < walks; w++)
        {
          guint64 nodes[7], keys[7];
          guint n = (guint) g_rand_int_range (rand, 1, 8);
          /* The nodes of one walk differ, as a path's do. */
          for (guint i = 0; i < n; i++)
            {
              gboolean again;
              do
                {
                  nodes[i] = (guint64) g_rand_int_range (rand, 0, (gint32) universe);
                  again = FALSE;
                  for (guint j = 0; j < i; j++)
                    again |= nodes[j] == nodes[i];
                }
              while (again && universe > n);
              keys[i] = random_key (rand, range);
            }
          if (reset && w == walks / 2)
            {
              mdl_vat_curve_min_reset (c);
              ref_opt_stack_free (ref);
              ref = ref_opt_stack_new (wmax);
            }
          walk_both (c, ref, is, nodes, keys, n);
          mdl_vat_curve_min_misses (c, got);
          ref_opt_stack_misses (ref, want);
          for (guint32 x = 0; x <= wmax; x++)
            if (got[x] != want[x])
              fail_msg ("seed %u, trial %u (%s, curve_max %u, %u nodes, keys to %" G_GUINT64_FORMAT
                        "), after walk %u: %" G_GUINT64_FORMAT " misses at W=%u, reference %"
                        G_GUINT64_FORMAT, seed, trial, is ? "ismin" : "min", wmax, universe,
                        range, w, got[x], x, want[x]);
        }
      mdl_vat_curve_min_free (c);
      ref_opt_stack_free (ref);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hand_worked_curve),
    cmocka_unit_test (test_curve_equals_textbook_update),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
