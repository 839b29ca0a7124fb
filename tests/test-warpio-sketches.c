/* Tests of the thesis's k-merge and k-partition (Algorithms 9 and 10; spec
 * vat-thesis-jurkiewicz.md §5.10) as SIMT algorithms (src/algos/simt/warpio-kmerge.c,
 * warpio-kpartition.c) under the warpio engine: the worked examples of docs/models/warpio.md
 * (blocks read in the order the ranks give, turns by hand), the closed forms of their turns over
 * random shapes, and the lower bounds they meet: the counting bound of merging (the thesis's
 * argument for sorting applied to k sorted runs) within 2 ln(ce) / ln k, and the bound of reading
 * and writing every key once within k + 1 turns. Every run also checks its output against the CPU
 * reference (the algorithms fail otherwise). */
#include "helpers.h"

#include "algos/keys.h"

#include <math.h>

/* Turns of @algo_spec on @n keys under warpio:@engine_args (S from the algorithm's own). */
static guint64
turns_of (const char *algo_spec, guint64 n, guint64 seed, const char *engine_spec,
          guint64 *exchanges)
{
  g_autoptr (MdlReport) r = test_run_algo (algo_spec, n, seed, engine_spec, NULL);
  if (exchanges)
    *exchanges = test_report_count (r, "exchanges");
  return test_report_count (r, "turns");
}

/* The input blocks (of @S keys) the global loads of @algo_spec read, in order. */
static GArray *
blocks_read (const char *algo_spec, guint64 n, guint S)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlRecorder) rec = NULL;
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  GArray *blocks = g_array_new (FALSE, FALSE, sizeof (guint64));
  const MdlAlgo *algo = NULL;
  guint64 sum;
  if (!mdl_spec_split (algo_spec, &name, &assigns, &error)
      || !(algo = mdl_algo_lookup (name, &error))
      || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error)))
    fail_msg ("%s: %s", algo_spec, error->message);
  rec = mdl_recorder_new (&sink, 0);
  if (!algo->run (params, n, 1, rec, &sum, &error) || !mdl_recorder_finish (rec, &error))
    fail_msg ("%s: %s", algo_spec, error->message);
  for (guint i = 0; i < c->warp->len; i++)
    {
      const MdlWarpEvent *e = &g_array_index (c->warp, MdlWarpEvent, i);
      guint64 a;
      if (e->op != MDL_WARP_LOAD || e->space != MDL_SPACE_GLOBAL)
        continue;
      a = (e->flags & MDL_WARP_STRIDED ? e->base
           : g_array_index (c->lane_addrs, guint64, e->first_addr)) - MDL_SIMT_GLOBAL_BASE;
      a /= 4 * S;
      g_array_append_val (blocks, a);
    }
  test_collector_free (c);
  return blocks;
}

static void
assert_order (GArray *got, const guint64 *want, guint n)
{
  assert_int_equal (got->len, n);
  for (guint i = 0; i < n; i++)
    if (g_array_index (got, guint64, i) != want[i])
      fail_msg ("read %u: block %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, i,
                g_array_index (got, guint64, i), want[i]);
}

/* Worked example 1 (docs/models/warpio.md): n = 64 keys in k = 2 runs of 8 blocks of S = 4, a
 * cache of c = 3 blocks. Sorted input: run 0 (blocks 0-7) is all below run 1 (8-15). Both ranks
 * start at -inf, so blocks 0 and 8 come first, then run 0 has the least rank until it is read:
 * 0 8 1 2 ... 7 9 ... 15. Reversed input: run 1 is below, so 0 8 9 ... 15 1 ... 7. Either way 16
 * loads and 16 stores of one warp in one epoch: 32 turns. */
static void
test_kmerge_worked_example (void **state)
{
  static const guint64 sorted[] = { 0, 8, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15 };
  static const guint64 reverse[] = { 0, 8, 9, 10, 11, 12, 13, 14, 15, 1, 2, 3, 4, 5, 6, 7 };
  g_autoptr (GArray) a = blocks_read ("warpio/k-merge:k=2,c=3,S=4,w=4,dist=sorted", 64, 4);
  g_autoptr (GArray) b = blocks_read ("warpio/k-merge:k=2,c=3,S=4,w=4,dist=reverse", 64, 4);
  guint64 x;
  (void) state;
  assert_order (a, sorted, G_N_ELEMENTS (sorted));
  assert_order (b, reverse, G_N_ELEMENTS (reverse));
  assert_int_equal (turns_of ("warpio/k-merge:k=2,c=3,S=4,w=4,dist=sorted", 64, 1, "warpio:S=4",
                              &x), 32);
  assert_int_equal (x, 32);
}

/* Worked example 2: k-partition of n = 64 equal keys (dist=zero) into k = 4 buckets, S = 4,
 * c = 4. The three splitters equal the key, so every key is in bucket 3: every block of every
 * round is written whole. 1 splitter load + 16 input loads + 16 stores + 1 store of the sizes
 * = 34 turns. */
static void
test_kpartition_worked_example (void **state)
{
  static const guint64 order[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
  g_autoptr (GArray) a = blocks_read ("warpio/k-partition:k=4,c=4,S=4,w=4,dist=zero", 64, 4);
  (void) state;
  /* the splitters' load is first, from their own allocation past the 16 input blocks */
  assert_true (g_array_index (a, guint64, 0) >= 16);
  g_array_remove_index (a, 0);
  assert_order (a, order, G_N_ELEMENTS (order));
  assert_int_equal (turns_of ("warpio/k-partition:k=4,c=4,S=4,w=4,dist=zero", 64, 1,
                              "warpio:S=4", NULL), 34);
}

/* Several warps: k-merge with warps = 3 of k = 4 runs of 2 blocks (S = 8): 16 exchanges a warp.
 * P = 0: each warp its own processor, turns 16, exchanges 48; P = 2: warps 0 and 2 share
 * processor 0, turns 32. */
static void
test_kmerge_warps (void **state)
{
  guint64 x;
  (void) state;
  assert_int_equal (turns_of ("warpio/k-merge:k=4,c=5,S=8,warps=3", 192, 2, "warpio:S=8", &x), 16);
  assert_int_equal (x, 48);
  assert_int_equal (turns_of ("warpio/k-merge:k=4,c=5,S=8,warps=3", 192, 2, "warpio:S=8,P=2",
                              NULL), 32);
}

/* Ensure n that is not whole blocks of every run or share is padded with the largest key: k-merge
 * of n = 100 in k = 4 runs of S = 8 reads and writes 128 keys, 16 blocks: 32 turns; k-partition
 * of 100 equal keys (k = 2, S = 8) has 104, all in bucket 1 with the pads: 1 + 13 + 13 + 1 = 28. */
static void
test_sketches_pad (void **state)
{
  (void) state;
  assert_int_equal (turns_of ("warpio/k-merge:k=4,c=4,S=8", 100, 1, "warpio:S=8", NULL), 32);
  assert_int_equal (turns_of ("warpio/k-partition:k=2,c=2,S=8,dist=zero", 100, 1, "warpio:S=8",
                              NULL), 28);
}

/* ln C(m, j). */
static double
ln_binomial (double m, double j)
{
  return lgamma (m + 1) - lgamma (j + 1) - lgamma (m - j + 1);
}

/* The least t with t ln C(cS, S) >= ln(n! / (m!)^k): k sorted runs of m keys have that many
 * interleavings, and each exchange tells at most how S sorted keys fall among the cS cached. */
static double
merge_bound (guint64 m, guint k, guint S, guint c)
{
  double need = lgamma ((double) m * k + 1) - k * lgamma ((double) m + 1);
  return ceil (need / ln_binomial ((double) c * S, S) - 1e-9);
}

typedef struct {
  guint k, c, S, w, warps, P, dist;
  guint64 blocks;   /* per run (k-merge) or per warp (k-partition) */
} Shape;

static Shape
random_shape (GRand *r, gboolean partition)
{
  Shape s;
  s.S = 1u << g_rand_int_range (r, partition ? 1 : 0, 6);
  s.w = s.S << g_rand_int_range (r, 0, 7 - (gint) __builtin_ctz (s.S));
  s.k = (guint) g_rand_int_range (r, 2, partition ? (gint) MIN (s.S, 8u) + 1 : 9);
  s.c = s.k + (guint) g_rand_int_range (r, 0, 6);
  s.warps = (guint) g_rand_int_range (r, 1, 4);
  s.P = (guint) g_rand_int_range (r, 0, 3);
  s.dist = (guint) g_rand_int_range (r, 0, MDL_KEYS_N_DISTS);
  s.blocks = (guint64) g_rand_int_range (r, 1, partition ? 40 : 10);
  return s;
}

static char *
shape_spec (const char *algo, const Shape *s)
{
  static const char *const dists[] = {
#define NAME_OF(name, what) name,
    MDL_KEY_DISTS (NAME_OF)
#undef NAME_OF
  };
  return g_strdup_printf ("%s:k=%u,c=%u,S=%u,w=%u,warps=%u,dist=%s", algo, s->k, s->c, s->S, s->w,
                          s->warps, dists[s->dist]);
}

/* Ensure k-merge over random shapes and inputs costs exactly 2 m k / S turns a warp (times the
 * warps a processor gets with P set) and 2n/S exchanges, and meets the merging bound: at least
 * it, and at most 2 ln(ce) / (ln k - (k-1) ln(N+1)/N) times it for a warp's N = m k keys (the
 * interleavings are at least k^N / (N+1)^(k-1), C(cS, S) at most (ce)^S). */
static void
test_kmerge_closed_form_and_bound (void **state)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (test_seed (14));
  (void) state;
  for (guint it = 0; it < 40; it++)
    {
      Shape s = random_shape (r, FALSE);
      guint64 m = s.blocks * s.S, N = m * s.k, n = N * s.warps, x, turns, per_proc;
      g_autofree char *spec = shape_spec ("warpio/k-merge", &s);
      g_autofree char *eng = g_strdup_printf ("warpio:S=%u,P=%u", s.S, s.P);
      double L = merge_bound (m, s.k, s.S, s.c);
      double room = log ((double) s.k) - (s.k - 1) * log ((double) N + 1) / (double) N;
      turns = turns_of (spec, n, it + 1, eng, &x);
      per_proc = s.P ? (s.warps + s.P - 1) / s.P : 1;
      if (turns != per_proc * 2 * N / s.S || x != 2 * n / s.S)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ", %s: turns %" G_GUINT64_FORMAT " exchanges %"
                  G_GUINT64_FORMAT, spec, n, eng, turns, x);
      assert_true ((double) (2 * N / s.S) >= L);
      if (room > 0)
        assert_true ((double) (2 * N / s.S) <= 2 * (log ((double) s.c) + 1) / room * L + 1e-9);
    }
}

/* The bucket sizes k-partition must produce, by the reference: the keys and splitters drawn as
 * the algorithm draws them, each key counted into the bucket of the splitters at most it. */
static void
reference_sizes (const Shape *s, guint64 n, guint64 seed, guint64 *sizes)
{
  g_autofree guint32 *keys = g_new (guint32, n);
  guint32 spl[64];
  guint64 st = seed, share = n / s->warps;
  assert_true (mdl_keys_fill (keys, n, (MdlKeyDist) s->dist, seed));
  for (guint b = 0; b + 1 < s->k; b++)
    spl[b] = keys[mdl_splitmix64 (&st) % n];
  for (guint i = 0; i + 1 < s->k; i++)
    for (guint j = i + 1; j + 1 < s->k; j++)
      if (spl[j] < spl[i])
        {
          guint32 t = spl[i];
          spl[i] = spl[j];
          spl[j] = t;
        }
  memset (sizes, 0, sizeof (guint64) * s->warps * s->k);
  for (guint64 i = 0; i < n; i++)
    {
      guint b = 0;
      for (guint j = 0; j + 1 < s->k; j++)
        b += spl[j] <= keys[i];
      sizes[(i / share) * s->k + b]++;
    }
}

/* Ensure k-partition over random shapes and inputs costs a warp exactly 1 + m/S +
 * sum_b ceil(size_b / S) + 1 turns (sizes from the reference), and that this is within k + 1
 * of 2m/S, what reading and writing each of its keys once costs at the least. */
static void
test_kpartition_closed_form_and_bound (void **state)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (test_seed (10));
  (void) state;
  for (guint it = 0; it < 40; it++)
    {
      Shape s = random_shape (r, TRUE);
      guint64 m = s.blocks * s.S, n = m * s.warps, x, turns, want_x = 0, worst = 0;
      g_autofree char *spec = shape_spec ("warpio/k-partition", &s);
      g_autofree char *eng = g_strdup_printf ("warpio:S=%u", s.S);
      g_autofree guint64 *sizes = g_new (guint64, s.warps * s.k);
      reference_sizes (&s, n, it + 1, sizes);
      for (guint g = 0; g < s.warps; g++)
        {
          guint64 t = 2 + m / s.S;
          for (guint b = 0; b < s.k; b++)
            t += (sizes[g * s.k + b] + s.S - 1) / s.S;
          assert_true (t >= 2 * m / s.S && t <= 2 * m / s.S + s.k + 1);
          want_x += t;
          worst = MAX (worst, t);
        }
      turns = turns_of (spec, n, it + 1, eng, &x);
      if (turns != worst || x != want_x)
        fail_msg ("%s n=%" G_GUINT64_FORMAT ": turns %" G_GUINT64_FORMAT " (want %"
                  G_GUINT64_FORMAT "), exchanges %" G_GUINT64_FORMAT " (want %" G_GUINT64_FORMAT
                  ")", spec, n, turns, worst, x, want_x);
    }
}

/* Ensure bad shapes are refused with the parameter named. */
static void
test_sketch_errors (void **state)
{
  static const struct {
    const char *spec;
    guint64 n;
    const char *needle;
  } rows[] = {
    { "warpio/k-merge:k=4,c=3", 4096, "c=3 < k=4" },
    { "warpio/k-merge:S=64,w=32", 4096, "S=64 > w=32" },
    { "warpio/k-partition:k=8,S=4,w=4", 64, "k=8 > S=4" },
    { "warpio/k-merge", (G_GUINT64_CONSTANT (1) << 26) + 1, "outside 1..67108864" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *name = NULL;
      g_auto (GStrv) assigns = NULL;
      g_autoptr (MdlParams) params = NULL;
      const MdlAlgo *algo;
      guint64 sum;
      assert_true (mdl_spec_split (rows[i].spec, &name, &assigns, NULL));
      algo = mdl_algo_lookup (name, NULL);
      params = mdl_params_parse (name, algo->params, (const char *const *) assigns, NULL);
      assert_false (algo->run_native (params, rows[i].n, 1, NULL, &sum, &error));
      test_assert_error (error, MDL_ERROR_PARAM, rows[i].needle, __FILE__, __LINE__);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_kmerge_worked_example),
    cmocka_unit_test (test_kpartition_worked_example),
    cmocka_unit_test (test_kmerge_warps),
    cmocka_unit_test (test_sketches_pad),
    cmocka_unit_test (test_kmerge_closed_form_and_bound),
    cmocka_unit_test (test_kpartition_closed_form_and_bound),
    cmocka_unit_test (test_sketch_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
