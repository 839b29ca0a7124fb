/* The one-pass min/ismin curve (src/models/vat/curve-min.c, Mattson's update) against two
 * references, walk by walk (MODELS_TEST_SEED replays a failure): the textbook Mattson update
 * (tests/ref/opt-stack.c), over random keys (ties, pinned and dead keys) and over random traces of
 * tree walks with true next-use keys, and on the latter the critical points of the OPT stack, an
 * algorithm of its own (tests/ref/critical-curve.c, the derivation in docs/models/vat.md, "branch
 * s11-curves"); and one case worked out by hand.
 * test-vat-ref.c checks, on real traces, that the curve equals a run at every W. */
#include "helpers.h"

#include "models/vat/curve.h"
#include "models/vat/policy.h"
#include "ref/critical-curve.h"
#include "ref/opt-stack.h"

#include <stdlib.h>

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

/* A random trace of @walks walks of depth @depth (root first) over the pages below 2^@page_bits,
 * @k_bits bits per layer: each layer's nodes distinct from every other layer's, and each node's
 * key its next use in the whole sequence (its position there), VAT_DEAD_KEY if none. */
static void
random_walks (GRand *rand, guint walks, guint depth, guint k_bits, guint page_bits, guint64 *nodes,
              guint64 *keys)
{
  guint n = walks * (depth + 1);
  GHashTable *next = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint w = 0; w < walks; w++)
    {
      guint64 page = g_rand_int (rand) & ((G_GUINT64_CONSTANT (1) << page_bits) - 1);
      for (guint l = 0; l <= depth; l++)
        nodes[w * (depth + 1) + depth - l] = ((guint64) (l + 1) << 56) | (page >> (k_bits * l));
    }
  for (guint i = n; i-- > 0;)
    {
      guint64 *at = g_hash_table_lookup (next, &nodes[i]);
      guint layer = depth - i % (depth + 1);
      keys[i] = at ? (guint64) (at - nodes) : VAT_DEAD_KEY (layer);
      g_hash_table_replace (next, &nodes[i], &nodes[i]);
    }
  g_hash_table_destroy (next);
}

static int
compare_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

static guint32
distinct (const guint64 *nodes, guint n)
{
  g_autofree guint64 *sorted = g_memdup2 (nodes, n * sizeof *nodes);
  guint32 count = 0;
  qsort (sorted, n, sizeof *sorted, compare_u64);
  for (guint i = 0; i < n; i++)
    count += i == 0 || sorted[i] != sorted[i - 1];
  return count;
}

/* @got against @want at W = @from..@wmax; @what names the reference. */
static void
check_misses (const guint64 *got, const guint64 *want, guint32 from, guint32 wmax, const char *what,
              const char *trial, guint walk)
{
  for (guint32 w = from; w <= wmax; w++)
    if (got[w] != want[w])
      fail_msg ("%s, after walk %u: %" G_GUINT64_FORMAT " misses at W=%u, %s %" G_GUINT64_FORMAT,
                trial, walk, got[w], w, what, want[w]);
}

/* Ensure the curve equals both references after every walk, for min and ismin, over 1500 random
 * traces: depths 0 to 3, 2 to 16 children a node, a few pages (much reuse) or many (nodes falling
 * off), W up to beyond the distinct nodes (every 50th trace to 81..700: several levels of the
 * curve's max tree, sizes not a multiple of its fan-out), and a reset halfway through some. ismin is
 * compared from W = d + 1 on, where the curve is reported (the TC needs d + 1 cells): below, the
 * critical points' counts are not ismin's. */
static void
test_curve_equals_references (void **state)
{
  guint32 seed = test_seed (2017);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 1500; trial++)
    {
      gboolean is = trial % 2 == 1, big = trial % 50 == 0;
      guint depth = (guint) g_rand_int_range (rand, 0, 4), k_bits = (guint) g_rand_int_range (rand, 1, 5);
      guint page_bits = trial % 3 == 0 ? MIN (k_bits * depth + 4, 20)
                                       : (guint) g_rand_int_range (rand, 1, 5);
      guint walks = (guint) g_rand_int_range (rand, 1, big ? 2000 : 300), n = depth + 1;
      gboolean reset = g_rand_int_range (rand, 0, 8) == 0;
      g_autofree guint64 *nodes = g_new (guint64, walks * n);
      g_autofree guint64 *keys = g_new (guint64, walks * n);
      guint32 wmax, from = is ? depth + 1 : 0;
      random_walks (rand, walks, depth, k_bits, page_bits, nodes, keys);
      wmax = big ? (guint32) g_rand_int_range (rand, 81, 700)
                 : (guint32) g_rand_int_range (rand, 1, (gint32) distinct (nodes, walks * n) + 6);
      {
        g_autofree char *what = g_strdup_printf ("seed %u, trial %u (%s, d=%u, K=%u, %u pages, "
                                                 "W to %u)", seed, trial, is ? "ismin" : "min",
                                                 depth, 1u << k_bits, 1u << page_bits, wmax);
        VatCurveMin *c = mdl_vat_curve_min_new (wmax, is);
        RefCriticalCurve *plain = ref_critical_curve_new (wmax, is);
        RefOptStack *book = ref_opt_stack_new (wmax);
        g_autofree guint64 *got = g_new (guint64, wmax + 1);
        g_autofree guint64 *want = g_new (guint64, wmax + 1);
        for (guint w = 0; w < walks; w++)
          {
            const guint64 *wn = nodes + w * n, *wk = keys + w * n;
            if (reset && w == walks / 2)
              {
                mdl_vat_curve_min_reset (c);
                ref_critical_curve_free (plain);
                plain = ref_critical_curve_new (wmax, is);
                ref_opt_stack_free (book);
                book = ref_opt_stack_new (wmax);
              }
            walk_both (c, book, is, wn, wk, n);
            ref_critical_curve_walk (plain, wn, wk, n);
            mdl_vat_curve_min_misses (c, got);
            ref_critical_curve_misses (plain, want);
            check_misses (got, want, from, wmax, "the plain critical points", what, w);
            ref_opt_stack_misses (book, want);
            check_misses (got, want, from, wmax, "the textbook update", what, w);
          }
        mdl_vat_curve_min_free (c);
        ref_critical_curve_free (plain);
        ref_opt_stack_free (book);
      }
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hand_worked_curve),
    cmocka_unit_test (test_curve_equals_textbook_update),
    cmocka_unit_test (test_curve_equals_references),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
