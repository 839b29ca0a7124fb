/* Tests of the set-associative arrays under the hardware engines (src/models/cache/sets.h): the
 * lists of policies against each other, the fingerprint compares against a byte loop, and every
 * policy against the slow reference array (tests/ref/cache-ref.c) on random references, removals
 * included, over geometries that reach every path of the ring search: one group of 16 fingerprints or several, partial groups, the
 * filter of wide fully associative arrays, and tags whose fingerprints collide. */
#include "helpers.h"
#include "ref/cache-ref.h"

#include "models/cache/sets.h"

/* Ensure both fingerprint compares flag exactly the bytes equal to the one sought. */
static void
test_fp_match_flags_equal_bytes (void **state)
{
  guint32 seed = test_seed (77);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 20000; iter++)
    {
      guint8 bytes[16];
      guint8 f = (guint8) g_rand_int_range (rand, 0, 256);
      guint32 want = 0;
      for (guint i = 0; i < 16; i++)
        {
          /* Mostly the byte sought and its neighbours, where a carry or borrow would show. */
          switch (g_rand_int_range (rand, 0, 4))
            {
            case 0: bytes[i] = f; break;
            case 1: bytes[i] = (guint8) (f + 1); break;
            case 2: bytes[i] = (guint8) (f - 1); break;
            default: bytes[i] = (guint8) g_rand_int_range (rand, 0, 256); break;
            }
          want |= (guint32) (bytes[i] == f) << i;
        }
      if (mdl_cache_fp_match16 (bytes, f) != want
          || (mdl_cache_fp_match8 (bytes, f) | mdl_cache_fp_match8 (bytes + 8, f) << 8) != want)
        fail_msg ("seed %u, iteration %u: byte %u: want %04x, match16 %04x, match8 %04x", seed,
                  iter, f, want, mdl_cache_fp_match16 (bytes, f),
                  mdl_cache_fp_match8 (bytes, f) | mdl_cache_fp_match8 (bytes + 8, f) << 8);
    }
  g_rand_free (rand);
}

/* Ensure the policy table, the choice string of the engines' policy parameter, the lookup by name
 * and the reference all list the policies alike: the name of entry i is word i of the choice
 * string and of the reference's names (which the agreement test below indexes the table with). */
static void
test_policy_lists_agree (void **state)
{
  g_auto (GStrv) words = g_strsplit (CACHE_POLICY_CHOICES, "|", -1);
  (void) state;
  assert_int_equal (g_strv_length (words), CACHE_N_POLICIES);
  assert_true (REF_CACHE_N_POLICIES <= CACHE_N_POLICIES);
  for (guint i = 0; i < CACHE_N_POLICIES; i++)
    {
      assert_string_equal (mdl_cache_policies[i]->name, words[i]);
      assert_ptr_equal (mdl_cache_policy_lookup (words[i]), mdl_cache_policies[i]);
      if (i < REF_CACHE_N_POLICIES)
        assert_string_equal (ref_cache_policy_names[i], words[i]);
    }
  assert_null (mdl_cache_policy_lookup ("lfu"));
}

/* @n tags of set @set (of @n_sets) whose fingerprints all equal @f. */
static void
colliding_tags (guint64 set, guint64 n_sets, guint8 f, guint64 first_k, guint64 *out, guint n)
{
  guint found = 0;
  for (guint64 k = first_k; found < n; k++)
    if (mdl_cache_fp (set + k * n_sets) == f)
      out[found++] = set + k * n_sets;
}

static const guint assocs[] = { 1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 31, 32, 33, 48, 64, 100 };

/* Ensure every policy's array agrees with the reference on every reference and removal: hit or
 * miss, the tag a miss evicts, and whether a removal found its tag. */
static void
test_arrays_agree_with_reference (void **state)
{
  guint32 seed = test_seed (4711);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 600; iter++)
    {
      RefCachePolicy policy = (RefCachePolicy) g_rand_int_range (rand, 0, REF_CACHE_N_POLICIES);
      guint assoc = assocs[g_rand_int_range (rand, 0, G_N_ELEMENTS (assocs))];
      guint64 n_sets = (guint64) 1 << g_rand_int_range (rand, 0, 4);
      guint64 array_seed = g_rand_int (rand);
      guint n_pool = (guint) g_rand_int_range (rand, 1, 3 * (gint32) assoc + 2);
      g_autofree guint64 *pool = g_new (guint64, n_pool * n_sets);
      CacheSets s = { 0 };
      RefArray ref;
      if (policy == REF_CACHE_PLRU && (assoc & (assoc - 1)) != 0)
        assoc = MIN (1u << g_bit_storage (assoc), 64);
      /* Per set, a pool of tags: in half the runs all share one fingerprint, so that every search
       * sees candidates whose tags differ; often fingerprint 1, which also stands for the hash
       * byte 0 (the byte of empty ways and padding). */
      for (guint64 set = 0; set < n_sets; set++)
        {
          if (g_rand_boolean (rand))
            colliding_tags (set, n_sets,
                            g_rand_boolean (rand) ? 1 : (guint8) g_rand_int_range (rand, 1, 256),
                            g_rand_int_range (rand, 0, 1000), pool + set * n_pool, n_pool);
          else
            for (guint i = 0; i < n_pool; i++)
              pool[set * n_pool + i] = set + n_sets * (guint64) g_rand_int_range (rand, 0, 1 << 30);
        }
      assert_true (mdl_cache_sets_init (&s, mdl_cache_policies[policy], n_sets, assoc, array_seed,
                                        "test", NULL));
      ref_array_init (&ref, policy, n_sets, assoc, array_seed);
      for (guint step = 0; step < 2000; step++)
        {
          guint64 set = (guint64) g_rand_int_range (rand, 0, (gint32) n_sets);
          guint64 tag = pool[set * n_pool + (guint) g_rand_int_range (rand, 0, (gint32) n_pool)];
          guint kind = (guint) g_rand_int_range (rand, 0, 20);
          if (kind == 0)
            {
              gboolean got = mdl_cache_sets_invalidate (&s, tag);
              gboolean want = ref_array_remove (&ref, tag);
              if (got != want)
                fail_msg ("seed %u, iteration %u (%s, %" G_GUINT64_FORMAT " sets of %u ways), "
                          "step %u: remove %" G_GUINT64_FORMAT ": engine %d, reference %d", seed,
                          iter, ref_cache_policy_names[policy], n_sets, assoc, step, tag, got,
                          want);
            }
          else
            {
              gboolean allocate = kind != 1;
              guint64 got_evicted, want_evicted;
              gboolean got = mdl_cache_sets_ref (&s, tag, allocate, &got_evicted);
              gboolean want = ref_array_access (&ref, tag, allocate, &want_evicted);
              /* (the tag evicted is defined only for a miss) */
              if (got != want || (!got && got_evicted != want_evicted))
                fail_msg ("seed %u, iteration %u (%s, %" G_GUINT64_FORMAT " sets of %u ways), "
                          "step %u: %s %" G_GUINT64_FORMAT ": engine %s evicting %" G_GUINT64_FORMAT
                          ", reference %s evicting %" G_GUINT64_FORMAT, seed, iter,
                          ref_cache_policy_names[policy], n_sets, assoc, step,
                          allocate ? "reference" : "probe", tag, got ? "hit" : "miss",
                          got_evicted, want ? "hit" : "miss", want_evicted);
            }
          if (step == 1000)
            {
              /* Halfway, both start again empty. */
              mdl_cache_sets_clear (&s);
              ref_array_free (&ref);
              ref_array_init (&ref, policy, n_sets, assoc, array_seed);
            }
        }
      mdl_cache_sets_destroy (&s);
      ref_array_free (&ref);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_policy_lists_agree),
    cmocka_unit_test (test_fp_match_flags_equal_bytes),
    cmocka_unit_test (test_arrays_agree_with_reference),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
