/* Tests of the tournament tree of vat min and ismin (src/models/vat/tourney.h), its pending top
 * included, against the plainest model: an array of keys, the winner found by a scan.
 * MODELS_TEST_SEED replays a failure. */
#include "helpers.h"

#include "models/vat/tourney.h"

/* Ensure that after every key change of a random sequence (rising keys, falling keys, zeros, the
 * winner's own key changed, over 1 to 70 cells) the tree's winner is the cell of the largest
 * key, every cell's key reads back, and every match and the pending top are consistent. Keys
 * differ between cells as min and ismin make them (vat_cell_key): the cell is in the low bits. */
static void
test_tourney_winner_is_largest_key (void **state)
{
  guint32 seed = test_seed (1901);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 200; trial++)
    {
      guint32 cells = (guint32) g_rand_int_range (rand, 1, 71);
      g_autofree guint64 *model = g_new0 (guint64, cells);
      guint64 clock = 1;
      guint pending_seen = 0;
      VatTourney t;
      vat_tourney_init (&t, cells);
      for (guint step = 0; step < 400; step++)
        {
          guint32 s = (guint32) g_rand_int_range (rand, 0, (gint32) cells), best = 0;
          guint64 k;
          switch (g_rand_int_range (rand, 0, 4))
            {
            case 0:  k = 0; break;                                   /* out of the running */
            case 1:  k = ((clock += 1 + g_rand_int_range (rand, 0, 9)) << 8) | s; break; /* above all */
            case 2:  k = ((guint64) g_rand_int_range (rand, 1, (gint32) clock + 1) << 8) | s; break;
            default: s = vat_tourney_top (&t);                        /* the winner re-keyed */
                     k = ((guint64) g_rand_int_range (rand, 1, (gint32) clock + 1) << 8) | s; break;
            }
          model[s] = k;
          vat_tourney_set (&t, s, k);
          pending_seen += t.top_cell != VAT_TOURNEY_NONE;
          for (guint32 c = 0; c < cells; c++)
            {
              if (model[c] > model[best])
                best = c;
              if (vat_tourney_key (&t, c) != model[c])
                fail_msg ("seed %u, trial %u (%u cells), step %u: cell %u reads key %" G_GUINT64_FORMAT
                          ", was set to %" G_GUINT64_FORMAT, seed, trial, cells, step, c,
                          vat_tourney_key (&t, c), model[c]);
            }
          if (model[best] != 0 && vat_tourney_top (&t) != best)
            fail_msg ("seed %u, trial %u (%u cells), step %u: winner %u (key %" G_GUINT64_FORMAT
                      "), the largest key is cell %u's (%" G_GUINT64_FORMAT ")", seed, trial, cells,
                      step, vat_tourney_top (&t), model[vat_tourney_top (&t)], best, model[best]);
          if (!vat_tourney_valid (&t))
            fail_msg ("seed %u, trial %u (%u cells), step %u: a match or the pending top is wrong",
                      seed, trial, cells, step);
        }
      /* Why this must hold: rising keys come at a quarter of the steps, each above all others. */
      if (pending_seen == 0)
        fail_msg ("seed %u, trial %u: the pending top was never used; the test misses it", seed, trial);
      vat_tourney_free (&t);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_tourney_winner_is_largest_key),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
