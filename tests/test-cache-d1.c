/* The cache engine's loop of its own for the common D1 (one level of 8 ways of 64-byte lines, lru,
 * write-allocate, more than one set: consume_one_level_d1 in src/models/cache.c) against the slow
 * reference (tests/ref/cache-ref.c). The random geometries of test-cache reach that loop in about
 * one iteration in sixty; here every trace runs through it, and through the loops beside it that
 * the same geometry takes without one of its conditions (one set; write_allocate=0), on the
 * pattern of bench-cache's synthetic trace: sequential streams of small accesses interleaved with
 * random lines in a region many times the cache, so that most misses evict a full set, with op
 * counts, fetches and chase reads among them. */
#include "helpers.h"
#include "ref/cache-check.h"

/* Ensure every counter of the D1 loop, and of the loops beside it, equals the reference's. */
static void
test_d1_loop_agrees_with_reference (void **state)
{
  guint32 seed = test_seed (20261128);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 140; iter++)
    {
      /* 1 set (not the D1 loop), then 2..64 sets; one trace in four without write allocation. */
      guint64 n_sets = (guint64) 1 << (iter % 7);
      RefCacheConfig cfg = { .n_data = 1, .write_allocate = iter % 4 != 3,
                             .data[0] = { n_sets * 8 * 64, 8, 64, REF_CACHE_LRU } };
      g_autofree char *spec = ref_cache_spec (&cfg);
      g_autoptr (MdlEngine) e = test_engine_new (spec);
      RefCache *ref = ref_cache_new (&cfg);
      guint n = (guint) g_rand_int_range (rand, 1000, 20000);
      guint64 region = n_sets * 8 * 64 * 16, stream = 0;
      MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
      for (guint k = 0; k < n; k++)
        {
          MdlCpuEvent *x = &ev[k];
          guint draw = (guint) g_rand_int_range (rand, 0, 12);
          x->kind = draw < 6 ? MDL_CPU_READ : draw < 10 ? MDL_CPU_WRITE : MDL_CPU_MODIFY;
          x->flags = draw % 5 == 0 ? MDL_CPU_FLAG_DEPENDENT : 0;
          x->size = 4;
          if (k % 2)
            {
              x->addr = 0x10000000u + stream % region;
              stream += 4;
            }
          else   /* a random line, now and then a straddling access */
            x->addr = 0x20000000u + (guint64) g_rand_int_range (rand, 0, (gint32) region);
          /* Now and then a record the loop's one-word test of kind and flags sends elsewhere:
           * an op count, a fetch (ignored: no icache), a chase read. */
          if (k % 16 == 5)
            *x = (MdlCpuEvent) { .kind = MDL_CPU_OPS, .addr = 1 + k % 7 };
          else if (k % 16 == 9)
            x->flags = x->kind == MDL_CPU_READ ? MDL_CPU_FLAG_FETCH : 0;
          else if (k % 16 == 13 && x->kind == MDL_CPU_READ)
            x->flags = MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE;
          ref_cache_record (ref, x);
        }
      test_feed_cpu_batches (e, ev, n, rand, 3000);
      {
        g_autofree char *what = g_strdup_printf ("seed %u, iteration %u, %s", seed, iter, spec);
        ref_cache_check_level (e, ref, 0, "", what);
      }
      ref_cache_free (ref);
      g_free (ev);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_d1_loop_agrees_with_reference),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
