/* Tests of the sorts' input distributions (src/algos/keys.h): each distribution's definition
 * checked key by key (ranges of bucket and staggered sections, the constant of zero, the 16 values
 * of few, the order of sorted and reverse), the names in the order of the choices, determinism in
 * the seed, the reference sort against qsort, and the sort check catching a wrong output. */
#include "helpers.h"

#include "algos/keys.h"

#include <stdlib.h>
#include <string.h>

static uint32_t *
keys_of (MdlKeyDist dist, uint64_t n, uint64_t seed)
{
  uint32_t *keys = g_new (uint32_t, n ? n : 1);
  assert_int_equal (mdl_keys_fill (keys, n, dist, seed), 1);
  return keys;
}

static int
cmp_u32 (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* The choices string lists the names in MdlKeyDist order, and only those. */
static void
test_names (void **state)
{
  (void) state;
  g_auto (GStrv) names = g_strsplit (MDL_KEY_DIST_CHOICES, "|", -1);
  assert_int_equal (g_strv_length (names), MDL_KEYS_N_DISTS);
  for (int i = 0; i < (int) MDL_KEYS_N_DISTS; i++)
    assert_int_equal (mdl_keys_dist_index (names[i]), i);
  assert_int_equal (mdl_keys_dist_index ("normal"), -1);
  assert_int_equal (mdl_keys_dist_index (""), -1);
}

/* Uniform keys are below 2^31, use the whole range, and the same seed gives the same keys. */
static void
test_uniform_and_seed (void **state)
{
  (void) state;
  const uint64_t n = 1 << 16;
  g_autofree uint32_t *a = keys_of (MDL_KEYS_UNIFORM, n, 7);
  g_autofree uint32_t *b = keys_of (MDL_KEYS_UNIFORM, n, 7);
  g_autofree uint32_t *c = keys_of (MDL_KEYS_UNIFORM, n, 8);
  uint32_t max = 0, min = UINT32_MAX;
  uint64_t same = 0;
  assert_memory_equal (a, b, n * sizeof *a);
  for (uint64_t i = 0; i < n; i++)
    {
      assert_true (a[i] < MDL_KEYS_RANGE);
      max = MAX (max, a[i]);
      min = MIN (min, a[i]);
      same += a[i] == c[i];
    }
  /* 2^16 draws leave gaps of about 2^15 at the ends; 2^24 is far outside any fair draw. */
  assert_true (max > MDL_KEYS_RANGE - (1u << 24));
  assert_true (min < (1u << 24));
  assert_true (same < 4);
}

/* Gaussian key k is the mean of uniform draws 4k..4k+3 of the same stream. */
static void
test_gaussian (void **state)
{
  (void) state;
  const uint64_t n = 1000;
  g_autofree uint32_t *g = keys_of (MDL_KEYS_GAUSSIAN, n, 3);
  for (uint64_t k = 0; k < n; k++)
    {
      uint64_t sum = 0;
      for (uint64_t i = 0; i < 4; i++)
        sum += mdl_keys_uniform (3, 4 * k + i);
      assert_int_equal (g[k], sum / 4);
    }
}

/* Zero: one value n times, and another one for another seed. */
static void
test_zero (void **state)
{
  (void) state;
  g_autofree uint32_t *z = keys_of (MDL_KEYS_ZERO, 5000, 11);
  g_autofree uint32_t *y = keys_of (MDL_KEYS_ZERO, 1, 12);
  for (int i = 1; i < 5000; i++)
    assert_int_equal (z[i], z[0]);
  assert_int_not_equal (z[0], y[0]);
}

/* Bucket with n = 4 p^2: element k is in block k / (4p), section (k / 4) mod p of it, and each
 * section holds values of its slot [j 2^24, (j+1) 2^24). */
static void
test_bucket (void **state)
{
  (void) state;
  const uint64_t n = 4 * MDL_KEYS_P * MDL_KEYS_P;
  g_autofree uint32_t *b = keys_of (MDL_KEYS_BUCKET, n, 5);
  for (uint64_t k = 0; k < n; k++)
    assert_int_equal (b[k] >> 24, (k / 4) % MDL_KEYS_P);
}

/* Staggered with n = 3p: block i (keys 3i..3i+2) lies in slot 2i+1 below p/2 and 2i-p from p/2
 * on, so the blocks use every slot once. */
static void
test_staggered (void **state)
{
  (void) state;
  const uint64_t n = 3 * MDL_KEYS_P;
  g_autofree uint32_t *s = keys_of (MDL_KEYS_STAGGERED, n, 9);
  gboolean used[MDL_KEYS_P] = { FALSE };
  for (uint64_t i = 0; i < MDL_KEYS_P; i++)
    {
      uint32_t slot = i < MDL_KEYS_P / 2 ? 2 * i + 1 : 2 * i - MDL_KEYS_P;
      for (uint64_t k = 3 * i; k < 3 * i + 3; k++)
        assert_int_equal (s[k] >> 24, slot);
      assert_false (used[slot]);
      used[slot] = TRUE;
    }
  /* Block 0 sits in slot 1, block p/2 in slot 0: the two sides of the boundary the notes fix. */
  assert_int_equal (s[0] >> 24, 1);
  assert_int_equal (s[3 * MDL_KEYS_P / 2] >> 24, 0);
}

/* Few: at most 16 distinct values, and with 10^4 keys all 16 appear. */
static void
test_few (void **state)
{
  (void) state;
  const uint64_t n = 10000;
  g_autofree uint32_t *f = keys_of (MDL_KEYS_FEW, n, 13);
  qsort (f, n, sizeof *f, cmp_u32);
  guint distinct = 1;
  for (uint64_t i = 1; i < n; i++)
    distinct += f[i] != f[i - 1];
  assert_int_equal (distinct, MDL_KEYS_FEW_VALUES);
}

/* Sorted and reverse are the uniform keys in ascending and descending order. */
static void
test_sorted_and_reverse (void **state)
{
  (void) state;
  const uint64_t n = 3001;
  g_autofree uint32_t *u = keys_of (MDL_KEYS_UNIFORM, n, 21);
  g_autofree uint32_t *s = keys_of (MDL_KEYS_SORTED, n, 21);
  g_autofree uint32_t *r = keys_of (MDL_KEYS_REVERSE, n, 21);
  qsort (u, n, sizeof *u, cmp_u32);
  assert_memory_equal (u, s, n * sizeof *u);
  for (uint64_t i = 0; i < n; i++)
    assert_int_equal (r[i], s[n - 1 - i]);
}

/* The reference sort equals qsort on full 32-bit keys with many repeats, at sizes 0 and up. */
static void
test_reference_sort (void **state)
{
  (void) state;
  static const uint64_t sizes[] = { 0, 1, 2, 17, 1000, 65537 };
  uint64_t rng = 99;
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      uint64_t n = sizes[s];
      g_autofree uint32_t *a = g_new (uint32_t, n + 1);
      g_autofree uint32_t *b = g_new (uint32_t, n + 1);
      for (uint64_t i = 0; i < n; i++)
        a[i] = b[i] = (uint32_t) mdl_splitmix64 (&rng) >> (i % 3 == 0 ? 20 : 0);
      assert_int_equal (mdl_keys_sort (a, n), 1);
      qsort (b, n, sizeof *b, cmp_u32);
      assert_memory_equal (a, b, n * sizeof *a);
    }
}

/* The check: 0 for the sorted input, the count and first place of a wrong output (a swap, a
 * duplicated key that is a sorted sequence but not a permutation). */
static void
test_check (void **state)
{
  (void) state;
  const uint64_t n = 500;
  g_autofree uint32_t *in = keys_of (MDL_KEYS_UNIFORM, n, 4);
  g_autofree uint32_t *out = keys_of (MDL_KEYS_SORTED, n, 4);
  uint64_t first = 0;
  assert_int_equal (mdl_keys_check (in, out, n, &first), 0);
  uint32_t t = out[10];
  out[10] = out[11];
  out[11] = t;
  assert_int_equal (mdl_keys_check (in, out, n, &first), 2);
  assert_int_equal (first, 10);
  /* Key 11 twice, key 10 gone: sorted, but not a permutation of the input. */
  out[11] = out[10];
  assert_int_equal (mdl_keys_check (in, out, n, &first), 1);
  assert_int_equal (first, 10);
}

/* Floats keep the order: sorted keys stay sorted as floats, in [0, 1). */
static void
test_float (void **state)
{
  (void) state;
  const uint64_t n = 20000;
  g_autofree uint32_t *s = keys_of (MDL_KEYS_SORTED, n, 17);
  for (uint64_t i = 0; i < n; i++)
    {
      assert_true (mdl_keys_float (s[i]) < 1.0f);
      if (i)
        assert_true (mdl_keys_float (s[i - 1]) <= mdl_keys_float (s[i]));
    }
  assert_true (mdl_keys_float (MDL_KEYS_RANGE - 1) < 1.0f);
  assert_true (mdl_keys_float (127) == 0.0f);
  assert_true (mdl_keys_float (128) == 1.0f / 16777216.0f);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_names),          cmocka_unit_test (test_uniform_and_seed),
    cmocka_unit_test (test_gaussian),       cmocka_unit_test (test_zero),
    cmocka_unit_test (test_bucket),         cmocka_unit_test (test_staggered),
    cmocka_unit_test (test_few),            cmocka_unit_test (test_sorted_and_reverse),
    cmocka_unit_test (test_reference_sort), cmocka_unit_test (test_check),
    cmocka_unit_test (test_float),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
