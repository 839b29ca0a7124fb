/* Differential tests of the vat engine's fast runs (VatPolicy.run_fast and run_offline_fast in
 * src/models/vat/: the batch loops of lru, islru, min and ismin) against the shared walk they
 * stand in for: the same record streams through two engines, one that takes the fast run where it
 * applies and one held to the shared walk, must give the same report, counter for counter.
 * MODELS_TEST_SEED replays a failure. The shared walk itself is held to the slow reference by
 * tests/test-vat-ref.c. */
#include "helpers.h"

#include "models/vat/vat.h"
#include "ref/vat-ref.h"

#include <math.h>
#include <string.h>

/* The policies that have a fast run. */
static const char *const fast_policies[] = { "lru", "islru", "min", "ismin" };

typedef struct {
  const char *policy;
  guint k_bits, depth, p_bits, w;
  gboolean huge, vm;
} Shape;

/* A random tree and TC: K from 2 to 4096, d from 1 up to what keeps pages below 2^56 (so that
 * some layers get direct tables and others are hashed), W from the policy's least to 4096, evenly
 * spread over log2 W or, in a quarter of the trials, at an edge of the fast run's cases (around
 * VAT_SCAN_CELLS, where it stops scanning the cells, and small), pages of 1 byte to 2 MiB,
 * sometimes huge pages or vm. */
static Shape
shape_random (GRand *rand, guint trial)
{
  static const guint k_bits_choices[] = { 1, 2, 3, 4, 6, 9, 12 };
  static const guint w_edges[] = { 1, 2, 4, VAT_SCAN_CELLS - 1, VAT_SCAN_CELLS, VAT_SCAN_CELLS + 1,
                                   4 * VAT_SCAN_CELLS, 4 * VAT_SCAN_CELLS + 1 };
  Shape s = { .policy = fast_policies[trial % G_N_ELEMENTS (fast_policies)] };
  guint min_w;
  s.k_bits = k_bits_choices[g_rand_int_range (rand, 0, G_N_ELEMENTS (k_bits_choices))];
  s.depth = (guint) g_rand_int_range (rand, 1, (gint32) MIN (8, 48 / s.k_bits) + 1);
  s.p_bits = (guint[]) { 0, 6, 12, 21 }[g_rand_int_range (rand, 0, 4)];
  s.huge = s.depth >= 2 && g_rand_int_range (rand, 0, 4) == 0;
  s.vm = g_rand_int_range (rand, 0, 8) == 0;
  /* islru and ismin need a whole path; huge pages take a level off the tree. */
  min_w = g_str_has_prefix (s.policy, "is") ? s.depth - s.huge + 1 : 1;
  s.w = g_rand_int_range (rand, 0, 4) == 0
        ? w_edges[g_rand_int_range (rand, 0, G_N_ELEMENTS (w_edges))]
        : (guint) exp2 (g_rand_double_range (rand, 0, 12));
  s.w = MAX (s.w, min_w);
  return s;
}

static char *
shape_spec (const Shape *s)
{
  return g_strdup_printf ("policy=%s,P=%u,K=%u,d=%u,W=%u,huge=%d,vm=%d", s->policy, 1u << s->p_bits,
                          1u << s->k_bits, s->depth, s->w, s->huge, s->vm);
}

/* @n records over the tree of @s: the reference's page mix (hot subtrees, runs, jumps on every
 * layer, returns, repeats), or uniform pages over a span of a few times W, so that deep TCs fill
 * and hit; now and then a record straddles pages, and now and then it is an op record. */
static MdlCpuEvent *
records_random (GRand *rand, const Shape *s, gsize n)
{
  guint depth = s->depth - s->huge, page_bits = s->p_bits + (s->huge ? s->k_bits : 0);
  guint64 top = G_GUINT64_CONSTANT (1) << (s->k_bits * depth);
  guint64 *pages = g_new (guint64, n);
  MdlCpuEvent *records = g_new (MdlCpuEvent, n);
  ref_vat_random_pages (rand, s->k_bits, depth, n, pages);
  if (g_rand_int_range (rand, 0, 3) == 0)
    {
      guint64 span = MIN (top, 4 * (guint64) s->w + 16);
      for (gsize i = 0; i < n; i++)
        pages[i] = (guint64) g_rand_double_range (rand, 0, (double) span);
    }
  for (gsize i = 0; i < n; i++)
    {
      guint pick = (guint) g_rand_int_range (rand, 0, 40);
      guint64 page_bytes = G_GUINT64_CONSTANT (1) << page_bits;
      gboolean straddle = pick == 0 && pages[i] + 1 < top;
      guint64 addr = (pages[i] << page_bits) + (straddle ? page_bytes - 1 : 0);
      records[i] = (MdlCpuEvent) { .kind = (guint8) (pick % 3), .size = straddle ? 2 : 1,
                                   .addr = addr };
      if (pick == 1)
        records[i] = (MdlCpuEvent) { .kind = MDL_CPU_OPS, .addr = 3 };
    }
  g_free (pages);
  return records;
}

static Vat *
vat_new_or_fail (const char *spec)
{
  GError *error = NULL;
  Vat *v = mdl_vat_new (spec, &error);
  if (v == NULL)
    fail_msg ("%s: %s", spec, error->message);
  return v;
}

static void
consume_or_fail (Vat *v, const MdlCpuEvent *records, gsize n, const char *spec)
{
  GError *error = NULL;
  MdlEventBatch b = { .cpu = records, .n_cpu = n };
  if (!mdl_vat_consume (v, &b, &error))
    fail_msg ("%s: %s", spec, error->message);
}

/* Fails unless @a and @b hold the same counters with the same values, in the same order. */
static void
assert_same_reports (const MdlReport *a, const MdlReport *b, guint32 seed, guint trial,
                     const char *spec)
{
  if (mdl_report_n_counters (a) != mdl_report_n_counters (b))
    fail_msg ("seed %u, trial %u, %s: %u counters against %u", seed, trial, spec,
              mdl_report_n_counters (a), mdl_report_n_counters (b));
  for (guint i = 0; i < mdl_report_n_counters (a); i++)
    {
      const MdlCounter *x = mdl_report_counter (a, i), *y = mdl_report_counter (b, i);
      if (strcmp (x->name, y->name) != 0 || x->count != y->count
          || (x->is_real && memcmp (&x->real, &y->real, sizeof x->real) != 0))
        fail_msg ("seed %u, trial %u, %s: %s = %" G_GUINT64_FORMAT " (%g) with the fast run, %s = %"
                  G_GUINT64_FORMAT " (%g) with the shared walk", seed, trial, spec, x->name,
                  x->count, x->real, y->name, y->count, y->real);
    }
}

/* Ensure the fast runs give the shared walk's report, every counter (misses in all and per layer,
 * the accesses by their misses, hits, compulsory misses, cost), over 3000 random record streams
 * with K from 2 to 4096, d from 1 to 8, W from 1 to 4096 (some at the edges of the scan), pages of
 * 1 B to 2 MiB, huge pages and vm (where the fast run must step aside), in batches of 1 to 3000
 * records; the engine under test
 * is switched between the two runs at random batch boundaries, which also holds the fast run to
 * leaving the TC exactly as the shared walk would (its ring, index and path memo), and its TC
 * passes the consistency check at the end. */
static void
test_fast_runs_agree_with_shared_walk (void **state)
{
  guint32 seed = test_seed (1807);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 3000; trial++)
    {
      Shape s = shape_random (rand, trial);
      gsize n = (gsize) g_rand_int_range (rand, 1, 3000);
      g_autofree MdlCpuEvent *records = records_random (rand, &s, n);
      g_autofree char *spec = shape_spec (&s);
      Vat *fast = vat_new_or_fail (spec), *shared = vat_new_or_fail (spec);
      g_autoptr (MdlReport) rf = NULL;
      g_autoptr (MdlReport) rs = NULL;
      GError *error = NULL;
      mdl_vat_set_general (shared, TRUE);
      for (gsize i = 0, m; i < n; i += m)
        {
          m = (gsize) g_rand_int_range (rand, 1, 3001);
          m = MIN (m, n - i);
          mdl_vat_set_general (fast, g_rand_int_range (rand, 0, 5) == 0);
          consume_or_fail (fast, records + i, m, spec);
          consume_or_fail (shared, records + i, m, spec);
        }
      rf = mdl_vat_report (fast);
      rs = mdl_vat_report (shared);
      assert_same_reports (rf, rs, seed, trial, spec);
      if (s.w <= 512 && !mdl_vat_tc_check (mdl_vat_tc (fast), &error))
        fail_msg ("seed %u, trial %u, %s: %s", seed, trial, spec, error->message);
      mdl_vat_free (fast);
      mdl_vat_free (shared);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fast_runs_agree_with_shared_walk),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
