/* The engines' list of one-word lanes (gpu_list_words, src/models/gpu/gpu.h) against the general
 * word lists it stands in for (gpu_group_words over lane-indexed addresses): on random memory
 * instructions in both address forms (widths 1 to 16, any alignment, or aligned to the word or to
 * the width (the test-free case of the explicit form), strides of every sign,
 * addresses at the top of the address space, masks full, sparse or one lane), it must say TRUE
 * exactly when every active lane touches one word, and then each group of lanes' slice of it
 * (for every group width the engines cut warps into) must equal the general list, and the
 * highest word it gives must be the list's.
 * Seed: MODELS_TEST_SEED (default 2424), named in every failure. */
#include "helpers.h"

#include "models/gpu/gpu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

/* A random lane address: near 0, near the top of the address space, or anywhere. */
static guint64
draw_addr (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 4))
    {
    case 0:
      return G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 40);
    case 1:
      return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    default:
      return (guint64) g_rand_int_range (rand, 0, 4096);
    }
}

/* Ensure gpu_list_words agrees with gpu_group_words on every group of random instructions. */
static void
test_list_words_match_group_words (void **state)
{
  static const guint widths[] = { 1, 2, 3, 4, 8, 16 };
  static const gint64 strides[] = { 0, 1, 4, 8, -4, -8, 12, 64 };
  guint32 seed = test_seed (2424);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  guint n_one_word = 0;
  (void) state;
  for (guint round = 0; round < 20000; round++)
    {
      guint64 list[MDL_WARP_MAX_LANES], addrs[MDL_WARP_MAX_LANES], lane_addrs[MDL_WARP_MAX_LANES];
      guint64 top, highest = 0;
      guint64 words[MDL_WARP_MAX_LANES * 17];
      guint word_shift = (guint) g_rand_int_range (rand, 0, 5), n = 0;
      guint64 word_bytes = (guint64) 1 << word_shift;
      gboolean one_word = TRUE, listed;
      MdlWarpEvent e = { .op = MDL_WARP_LOAD, .space = MDL_SPACE_SHARED,
                         .width = (guint16) widths[g_rand_int_range (rand, 0, 6)] };
      MdlEventBatch b = { .warp = &e, .n_warp = 1, .lane_addrs = lane_addrs };
      switch (round % 3)
        {
        case 0: e.active = G_MAXUINT32; break;
        case 1: e.active = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand); break;
        default: e.active = (guint64) 1 << g_rand_int_range (rand, 0, 64); break;
        }
      if (e.active == 0)
        e.active = 1;
      if (g_rand_boolean (rand))
        {
          e.flags = MDL_WARP_STRIDED;
          /* Aligned bases too, so that strided lanes of one word come often. */
          e.base = draw_addr (rand) & ~(g_rand_boolean (rand) ? word_bytes - 1 : 0);
          e.stride = strides[g_rand_int_range (rand, 0, 8)];
        }
      for (guint64 r = e.active; r; r &= r - 1)
        {
          guint l = (guint) __builtin_ctzll (r);
          guint64 a = e.flags ? e.base + (guint64) ((gint64) l * e.stride)
                              : draw_addr (rand) & ~(round % 2 ? word_bytes - 1
                                                     : round % 4 == 2 ? (guint64) (e.width & -e.width) - 1
                                                     : 0);
          addrs[l] = lane_addrs[n++] = a;
          one_word = one_word && (a >> word_shift) == ((a + e.width - 1) >> word_shift)
                     && a + e.width - 1 >= a;
        }
      b.n_lane_addrs = n;
      listed = gpu_list_words (&b, &e, word_shift, list, &top);
      if (listed != one_word)
        fail_msg ("seed %u round %u: gpu_list_words says %d, lanes of one word: %d", seed, round,
                  listed, one_word);
      if (!listed)
        continue;
      n_one_word++;
      for (guint i = 0; i < n; i++)
        highest = MAX (highest, list[i]);
      if (top != highest)
        fail_msg ("seed %u round %u: the highest word %" G_GUINT64_FORMAT ", the list's %"
                  G_GUINT64_FORMAT, seed, round, top, highest);
      for (guint span = 1; span <= MDL_WARP_MAX_LANES; span *= 2)
        for (guint g = 0; g < MDL_WARP_MAX_LANES; g += span)
          {
            guint64 group = e.active & (gpu_group_mask (span) << g);
            guint below = gpu_popcount (e.active & (((guint64) 1 << g) - 1));
            guint m = group ? gpu_group_words (addrs, group, e.width, word_shift, words) : 0;
            if (m != gpu_popcount (group) || memcmp (words, list + below, m * sizeof words[0]) != 0)
              fail_msg ("seed %u round %u: span %u, group at lane %u: the list's slice differs",
                        seed, round, span, g);
          }
    }
  /* Both outcomes must have come up often, or the comparison proves little. */
  assert_true (n_one_word > 2000 && n_one_word < 18000);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_list_words_match_group_words),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
