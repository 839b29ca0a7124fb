/* gpu_bank_queue() (src/models/gpu/gpu.h, agpu's and kmodel's shared-memory cost) against the
 * straightforward count: for each bank, how many of the word requests it serves, the largest of
 * those. Random requests of up to 64 words, drawn to hit and miss each of its shortcuts: strictly
 * rising words within one row of banks, within two rows (the bitmap), rising over more rows,
 * repeats, and any order; banks 1 to 64. The same for agpu's rows of words (gpu_rows_of(),
 * gpu_rows_queue()): which lists they take, their bits, and their queue.
 * Seed: MODELS_TEST_SEED (default 1818), named in every failure. */
#include "helpers.h"

#include "models/gpu/gpu.h"
#include "ref/bank-queue.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define ROUNDS 20000

/* Ensure the longest bank queue is the straightforward one for every shape of request. */
static void
test_bank_queue_counts_what_the_naive_count_does (void **state)
{
  guint32 seed = test_seed (1818);
  GRand *r = g_rand_new_with_seed (seed);
  guint count[64] = { 0 };
  (void) state;
  for (guint round = 0; round < ROUNDS; round++)
    {
      guint64 words[64], bank_mask = ((guint64) 1 << g_rand_int_range (r, 0, 7)) - 1;
      guint n = (guint) g_rand_int_range (r, 0, 65), shape = (guint) g_rand_int_range (r, 0, 4);
      /* span: the rising words' spread, in rows of banks: within one, two or several */
      guint64 span = (bank_mask + 1) * (guint64) g_rand_int_range (r, 1, 4);
      guint64 base = g_rand_boolean (r) ? (guint64) g_rand_int (r) : G_MAXUINT64 - 4096;
      guint want, got;
      for (guint i = 0; i < n; i++)
        words[i] = base + (shape == 3 ? (guint64) g_rand_int_range (r, 0, 200)
                                      : (guint64) g_rand_int_range (r, 0, (gint32) MIN (span, 200u)));
      if (shape < 2)
        {
          /* strictly rising (shape 0) or rising with repeats (shape 1): sort, then dedupe */
          guint m = 0;
          for (guint i = 1; i < n; i++)
            for (guint j = i; j > 0 && words[j - 1] > words[j]; j--)
              {
                guint64 t = words[j];
                words[j] = words[j - 1];
                words[j - 1] = t;
              }
          for (guint i = 0; i < n; i++)
            if (shape == 1 || m == 0 || words[i] != words[m - 1])
              words[m++] = words[i];
          n = m;
        }
      want = ref_bank_queue (words, n, bank_mask + 1, FALSE);
      got = gpu_bank_queue (count, words, n, bank_mask);
      if (got != want)
        fail_msg ("seed %u: round %u: %u words, %" G_GUINT64_FORMAT " banks, shape %u: "
                  "queue %u, the naive count %u", seed, round, n, bank_mask + 1, shape, got, want);
      for (guint b = 0; b < 64; b++)
        if (count[b] != 0)
          fail_msg ("seed %u: round %u: count[%u] left at %u", seed, round, b, count[b]);
    }
  g_rand_free (r);
}

/* Fills @words with @n words around @base: distinct or with repeats, in any order, from a spread
 * of @spread words (so within the three rows of gpu_rows_of() or beyond them). */
static void
draw_words (GRand *r, guint64 *words, guint n, guint64 base, guint spread, gboolean distinct)
{
  for (guint i = 0; i < n; i++)
    {
      gboolean again;
      do
        {
          words[i] = base + (guint64) g_rand_int_range (r, 0, (gint32) spread);
          again = FALSE;
          for (guint j = 0; j < i && distinct; j++)
            again |= words[j] == words[i];
        }
      while (again);
    }
}

/* Ensure gpu_rows_of() takes exactly the lists of distinct words within the row below the first
 * word's row (none below row 0) and the two from it, with their bits, and that gpu_rows_queue()
 * is then the naive longest queue, for 8 to 64 banks. */
static void
test_rows_hold_the_words_and_their_queue (void **state)
{
  guint32 seed = test_seed (1819);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < ROUNDS; round++)
    {
      guint64 words[64] = { 0 }, bank_mask = ((guint64) 8 << g_rand_int_range (r, 0, 4)) - 1;
      guint n = (guint) g_rand_int_range (r, 1, 65), spread = (guint) g_rand_int_range (r, 64, 260);
      guint64 base = g_rand_boolean (r) ? (guint64) g_rand_int_range (r, 0, 300)
                                        : G_MAXUINT64 - 300;
      gboolean distinct = g_rand_int_range (r, 0, 4) != 0, want_ok = TRUE, ok;
      guint64 row0, want[3] = { 0, 0, 0 };
      GpuRows rows;
      draw_words (r, words, n, base, spread, distinct);
      row0 = words[0] / 64 ? words[0] / 64 - 1 : 0;
      for (guint i = 0; i < n; i++)
        {
          guint64 row = words[i] / 64;
          if (row < row0 || row > row0 + 2)
            want_ok = FALSE;
          else if (want[row - row0] >> (words[i] % 64) & 1)
            want_ok = FALSE;   /* a repeat */
          else
            want[row - row0] |= (guint64) 1 << (words[i] % 64);
        }
      ok = gpu_rows_of (words, n, &rows);
      if (ok != want_ok)
        fail_msg ("seed %u: round %u: %u words from %" G_GUINT64_FORMAT ": gpu_rows_of says %d, "
                  "the rows %d", seed, round, n, words[0], ok, want_ok);
      if (!ok)
        continue;
      if (rows.row0 != row0 || rows.bits[0] != want[0] || rows.bits[1] != want[1]
          || rows.bits[2] != want[2])
        fail_msg ("seed %u: round %u: rows from %" G_GUINT64_FORMAT " (want %" G_GUINT64_FORMAT
                  ") differ", seed, round, rows.row0, row0);
      if (gpu_rows_queue (&rows, bank_mask) != ref_bank_queue (words, n, bank_mask + 1, FALSE))
        fail_msg ("seed %u: round %u: %u words, %" G_GUINT64_FORMAT " banks: rows queue %u, the "
                  "naive count %u", seed, round, n, bank_mask + 1, gpu_rows_queue (&rows, bank_mask),
                  ref_bank_queue (words, n, bank_mask + 1, FALSE));
    }
  g_rand_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bank_queue_counts_what_the_naive_count_does),
    cmocka_unit_test (test_rows_hold_the_words_and_their_queue),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
