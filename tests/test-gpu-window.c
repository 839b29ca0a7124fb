/* The engines' 64-word windows (gpu_window_fill, gpu_window_queue in src/models/gpu/gpu.h), which
 * agpu, kmodel and banks cost the sorts' shared accesses from, against a lane-by-lane reading of
 * their contract: on random memory instructions in both address forms (lanes packed near one
 * another, in rising, falling or any order, or strided with strides of every sign; widths 1 to 8,
 * aligned or not; word sizes 1 to 16 bytes; masks full, sparse, half or one lane; addresses near
 * 0 and near the top of the address space), for every group width the engines cut warps into,
 * the fill must say TRUE exactly when every lane's width is a power of two no wider than a word,
 * every lane is aligned to it, every word lies within 64 of the lower of the group's first and
 * last lane's word and those 64 end below the top of the address space; then its first word, its bits and its lane count must be those, and its
 * queue over 8 to 64 banks the most distinct words of one bank.
 * Seed: MODELS_TEST_SEED (default 1313), named in every failure. */
#include "helpers.h"

#include "models/gpu/gpu.h"
#include "ref/bank-queue.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Where a random instruction's lanes lie: near 0, near the top of the address space, anywhere. */
static guint64
draw_region (GRand *rand)
{
  switch (g_rand_int_range (rand, 0, 3))
    {
    case 0:
      return G_MAXUINT64 - 2048 + 1;
    case 1:
      return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    default:
      return 0;
    }
}

static int
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* Ensure gpu_window_fill and gpu_window_queue keep their contract on random instructions. */
static void
test_window_matches_lanes (void **state)
{
  static const guint widths[] = { 1, 2, 3, 4, 8 };
  static const gint64 strides[] = { 0, 4, 8, -4, -8, 12, 1, 64 };
  guint32 seed = test_seed (1313);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  guint n_fit = 0, n_groups = 0;
  (void) state;
  for (guint round = 0; round < 20000; round++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES], lane_addrs[MDL_WARP_MAX_LANES], region = draw_region (rand);
      guint word_shift = (guint) g_rand_int_range (rand, 0, 5), n = 0, order = round % 3;
      guint64 word_bytes = (guint64) 1 << word_shift;
      MdlWarpEvent e = { .op = MDL_WARP_LOAD, .space = MDL_SPACE_SHARED,
                         .width = (guint16) widths[g_rand_int_range (rand, 0, 5)] };
      MdlEventBatch b = { .warp = &e, .n_warp = 1, .lane_addrs = lane_addrs };
      guint64 align = g_rand_boolean (rand) ? (guint64) (e.width & -e.width) - 1 : 0;
      switch (g_rand_int_range (rand, 0, 4))
        {
        case 0: e.active = G_MAXUINT32; break;
        case 1: e.active = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand); break;
        case 2: e.active = 0xffff0000u; break;
        default: e.active = (guint64) 1 << g_rand_int_range (rand, 0, 64); break;
        }
      if (e.active == 0)
        e.active = 1;
      if (g_rand_int_range (rand, 0, 3) == 0)
        {
          e.flags = MDL_WARP_STRIDED;
          e.base = (region + (guint64) g_rand_int_range (rand, 0, 1024)) & ~align;
          e.stride = strides[g_rand_int_range (rand, 0, 8)];
          for (guint64 r = e.active; r; r &= r - 1)
            {
              guint l = (guint) __builtin_ctzll (r);
              addrs[l] = e.base + (guint64) ((gint64) l * e.stride);
            }
        }
      else
        {
          /* Lanes within about 80 words of one another: some windows fit, some do not. */
          guint64 drawn[MDL_WARP_MAX_LANES];
          guint64 spread = (guint64) g_rand_int_range (rand, 1, 81) * word_bytes;
          for (guint64 r = e.active; r; r &= r - 1)
            drawn[n++] = (region + 1024 + (guint64) g_rand_int_range (rand, 0, (gint32) spread)) & ~align;
          if (order != 2)
            qsort (drawn, n, sizeof drawn[0], cmp_u64);
          n = 0;
          for (guint64 r = e.active; r; r &= r - 1, n++)
            {
              guint l = (guint) __builtin_ctzll (r);
              addrs[l] = lane_addrs[n] = order == 1 ? drawn[gpu_popcount (e.active) - 1 - n] : drawn[n];
            }
        }
      b.n_lane_addrs = n;
      for (guint span = 8; span <= MDL_WARP_MAX_LANES; span *= 2)
        for (guint g = 0; g < MDL_WARP_MAX_LANES; g += span)
          {
            guint64 group = e.active & (gpu_group_mask (span) << g), origin, bits = 0;
            guint at = gpu_popcount (e.active & (((guint64) 1 << g) - 1)), first, last, m = 0;
            guint64 words[MDL_WARP_MAX_LANES];
            gboolean fits, aligned = (e.width & (e.width - 1)) == 0 && e.width <= word_bytes;
            GpuWindow w = { 0 };
            if (group == 0)
              continue;
            n_groups++;
            first = (guint) __builtin_ctzll (group);
            last = 63 - (guint) __builtin_clzll (group);
            origin = MIN (addrs[first] >> word_shift, addrs[last] >> word_shift);
            /* The window's 64 words end below the top of the address space. */
            fits = aligned && origin <= (G_MAXUINT64 >> word_shift) - 63;
            for (guint64 r = group; r; r &= r - 1)
              {
                guint64 a = addrs[__builtin_ctzll (r)];
                fits = fits && a % e.width == 0 && (a >> word_shift) - origin < 64;
                words[m++] = a >> word_shift;
                if (fits)
                  bits |= G_GUINT64_CONSTANT (1) << ((a >> word_shift) - origin);
              }
            if (gpu_window_fill (&b, &e, group, at, word_shift, &w) != fits)
              fail_msg ("seed %u round %u: span %u, group at lane %u: the fill says %d, the lanes "
                        "%d", seed, round, span, g, !fits, fits);
            if (!fits)
              continue;
            n_fit++;
            if (w.first != origin || w.bits != bits || w.n != m)
              fail_msg ("seed %u round %u: span %u, group at lane %u: window %" G_GUINT64_FORMAT
                        " %#" G_GINT64_MODIFIER "x of %u lanes, expected %" G_GUINT64_FORMAT " %#"
                        G_GINT64_MODIFIER "x of %u", seed, round, span, g, w.first, w.bits, w.n,
                        origin, bits, m);
            for (guint banks = 8; banks <= 64; banks *= 2)
              if (gpu_window_queue (&w, banks - 1) != ref_bank_queue (words, m, banks, TRUE))
                fail_msg ("seed %u round %u: span %u, group at lane %u, %u banks: queue %u, "
                          "naive %u", seed, round, span, g, banks, gpu_window_queue (&w, banks - 1),
                          ref_bank_queue (words, m, banks, TRUE));
          }
    }
  /* Both outcomes must have come up often, or the comparison proves little. */
  assert_true (n_fit > n_groups / 10 && n_fit < n_groups - n_groups / 10);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_window_matches_lanes),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
