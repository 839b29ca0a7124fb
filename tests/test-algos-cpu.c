/* Tests of the CPU algorithms of the VAT experiments (src/algos/cpu): every algorithm's result
 * against a slow reference written here, the three entry points (instrumented, native, timed)
 * agreeing, the exact event sequences of small scans and binary searches (worked out by hand), the
 * page-size parameter, and the thesis's VAT bounds (scan exact, Lemma 2.27, Lemma 2.28) on the
 * instrumented streams. */
#include "helpers.h"

#include "algos/cpu/cpu-algo.h"
#include "algos/keys.h"
#include "algos/pages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- running ------------------------------------------------------------------------------ */

static MdlParams *
params_of (const MdlAlgo *a, const char *const *assignments)
{
  g_autoptr (GError) error = NULL;
  MdlParams *p = mdl_params_parse (a->name, a->params, assignments, &error);
  if (p == NULL)
    fail_msg ("%s: parameters rejected: %s", a->name, error->message);
  return p;
}

static const MdlAlgo *
algo (const char *name)
{
  g_autoptr (GError) error = NULL;
  const MdlAlgo *a = mdl_algo_lookup (name, &error);
  if (a == NULL)
    fail_msg ("%s", error->message);
  return a;
}

/* Runs @name instrumented into @sink (NULL: a collector that is dropped); returns the checksum. */
static guint64
run_into (const char *name, guint64 n, guint64 seed, const char *const *assignments,
          const MdlSink *sink)
{
  const MdlAlgo *a = algo (name);
  g_autoptr (MdlParams) params = params_of (a, assignments);
  g_autoptr (GError) error = NULL;
  TestCollector *c = NULL;
  MdlSink s;
  g_autoptr (MdlRecorder) rec = NULL;
  guint64 sum = 0;
  if (sink == NULL)
    {
      c = test_collector_new ();
      s = test_collector_sink (c);
      sink = &s;
    }
  rec = mdl_recorder_new (sink, 0);
  if (!a->run (params, n, seed, rec, &sum, &error) || !mdl_recorder_finish (rec, &error))
    fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": %s", name, n, seed,
              error->message);
  if (c)
    test_collector_free (c);
  return sum;
}

static guint64
run_native (const char *name, guint64 n, guint64 seed)
{
  const MdlAlgo *a = algo (name);
  g_autoptr (MdlParams) params = params_of (a, NULL);
  g_autoptr (GError) error = NULL;
  guint64 sum = 0;
  if (!a->run_native (params, n, seed, NULL, &sum, &error))
    fail_msg ("%s native n=%" G_GUINT64_FORMAT ": %s", name, n, error->message);
  return sum;
}

/* ---- references ----------------------------------------------------------------------------- */

static guint64 *
ref_input (guint64 n, guint64 seed)
{
  guint64 *a = g_new (guint64, n);
  mdl_algo_fill_random (a, n, seed);
  return a;
}

static guint64
ref_weighted (const guint64 *a, guint64 n)
{
  guint64 s = 0;
  for (guint64 i = 0; i < n; i++)
    s += a[i] * (2 * i + 1);
  return s;
}

static int
cmp_u64 (const void *x, const void *y)
{
  guint64 a = *(const guint64 *) x, b = *(const guint64 *) y;
  return (a > b) - (a < b);
}

static guint64
ref_sorted (guint64 n, guint64 seed)
{
  g_autofree guint64 *a = ref_input (n, seed);
  qsort (a, n, sizeof *a, cmp_u64);
  return ref_weighted (a, n);
}

/* sort/qsort and sort/introsort at their defaults: uniform 32-bit keys (src/algos/keys.h) sorted,
 * weighted as ref_weighted does. */
static guint64
ref_sorted_keys (guint64 n, guint64 seed)
{
  g_autofree guint32 *k = g_new (guint32, n);
  g_autofree guint64 *a = g_new (guint64, n);
  g_assert (mdl_keys_fill (k, n, MDL_KEYS_UNIFORM, seed));
  for (guint64 i = 0; i < n; i++)
    a[i] = k[i];
  qsort (a, n, sizeof *a, cmp_u64);
  return ref_weighted (a, n);
}

static guint64
ref_permute (guint64 n, guint64 seed)
{
  g_autofree guint64 *a = g_new (guint64, n);
  guint64 state = seed;
  for (guint64 i = 0; i < n; i++)
    a[i] = i;
  for (guint64 j = n - 1; j > 0; j--)
    {
      guint64 i = mdl_algo_below (&state, j + 1), t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  return ref_weighted (a, n);
}

/* The thesis's heapify, with swaps (§2.5): the algorithm moves a hole instead; same result. */
static guint64
ref_heapify (guint64 n, guint64 seed)
{
  g_autofree guint64 *a = ref_input (n, seed);
  for (guint64 i = n / 2; i-- > 0;)
    for (guint64 j = i;;)
      {
        guint64 c = 2 * j + 1, t;
        if (c >= n)
          break;
        if (c + 1 < n && a[c + 1] < a[c])
          c++;
        if (a[c] >= a[j])
          break;
        t = a[c];
        a[c] = a[j];
        a[j] = t;
        j = c;
      }
  return ref_weighted (a, n);
}

/* The queries of both binary searches: ranks drawn as the algorithm draws them. */
static guint64
ref_rank (guint64 *state, guint64 n)
{
  return mdl_algo_below (state, n);
}

#define SEARCH_SEED(seed) ((seed) ^ 0xB5EA4C11ull)

static guint64
ref_binsearch_sorted (guint64 n, guint64 seed)
{
  guint64 state = SEARCH_SEED (seed), sum = 0;
  for (guint64 s = 0; s < n; s++)
    sum += ref_rank (&state, n);
  return sum;
}

/* The van Emde Boas slot of heap node @i (1-based) in a complete tree of height @h, by the layout's
 * recursive definition: the top floor(h/2) levels first, then each bottom tree, left to right. */
static guint64
ref_veb_slot (guint64 i, guint h)
{
  guint top = h / 2, bottom = h - top, depth = (guint) g_bit_nth_msf (i, -1), below;
  guint64 tree, local;
  if (h == 1)
    return 0;
  if (depth < top)
    return ref_veb_slot (i, top);
  below = depth - top;
  tree = (i >> below) - ((guint64) 1 << top);
  local = ((guint64) 1 << below) | (i & (((guint64) 1 << below) - 1));
  return (((guint64) 1 << top) - 1) + tree * (((guint64) 1 << bottom) - 1)
         + ref_veb_slot (local, bottom);
}

static void
in_order (guint64 i, guint64 n, GArray *out)
{
  if (i > n)
    return;
  in_order (2 * i, n, out);
  g_array_append_val (out, i);
  in_order (2 * i + 1, n, out);
}

static guint64
ref_binsearch_veb (guint64 n, guint64 seed)
{
  g_autoptr (GArray) node_of_rank = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint h = (guint) g_bit_nth_msf (n, -1) + 1;
  guint64 state = SEARCH_SEED (seed), sum = 0;
  in_order (1, n, node_of_rank);
  for (guint64 s = 0; s < n; s++)
    sum += ref_veb_slot (g_array_index (node_of_rank, guint64, ref_rank (&state, n)), h);
  return sum;
}

static guint64
ref_transpose (guint64 n, guint64 seed)
{
  guint64 side = mdl_algo_isqrt (n);
  g_autofree guint64 *a = ref_input (side * side, seed);
  g_autofree guint64 *b = g_new (guint64, side * side);
  for (guint64 i = 0; i < side; i++)
    for (guint64 j = 0; j < side; j++)
      b[j * side + i] = a[i * side + j];
  return ref_weighted (b, side * side);
}

static guint64
ref_matmul (guint64 n, guint64 seed)
{
  guint64 s = mdl_algo_isqrt (n);
  g_autofree guint64 *a = ref_input (s * s, seed);
  g_autofree guint64 *b = ref_input (s * s, seed ^ 0x3C6EF372FE94F82Bull);
  g_autofree guint64 *c = g_new0 (guint64, s * s);
  for (guint64 i = 0; i < s; i++)
    for (guint64 k = 0; k < s; k++)
      for (guint64 j = 0; j < s; j++)
        c[i * s + j] += a[i * s + k] * b[k * s + j];
  return ref_weighted (c, s * s);
}

static guint64
ref_scan (guint64 n, guint64 seed)
{
  g_autofree guint64 *a = g_new (guint64, n);
  guint64 state = seed, sum = 0;
  for (guint64 i = 0; i < n; i++)
    sum += a[i] = mdl_splitmix64 (&state) >> 16;
  return sum;
}

static const struct {
  const char *name;
  guint64 (*reference) (guint64 n, guint64 seed);
} references[] = {
  { "scan/seq", ref_scan },
  { "scan/random", ref_scan },
  { "permute/fisher-yates", ref_permute },
  { "binsearch/sorted", ref_binsearch_sorted },
  { "binsearch/veb", ref_binsearch_veb },
  { "heap/heapify", ref_heapify },
  { "heap/sort", ref_sorted },
  { "quicksort/intro", ref_sorted },
  { "mergesort/bottom-up", ref_sorted },
  { "transpose/rows", ref_transpose },
  { "transpose/recursive", ref_transpose },
  { "matmul/naive", ref_matmul },
  { "matmul/recursive", ref_matmul },
  { "sort/qsort", ref_sorted_keys },
  { "sort/introsort", ref_sorted_keys },
};

/* Sizes around the edges: tiny, the introsort cutoff (16), odd, non-square, a few pages. */
static const guint64 sizes[] = { 1, 2, 3, 7, 16, 17, 33, 100, 1000, 4097, 20000 };

/* Ensure every algorithm's checksum equals its reference's, for every size and two seeds. */
static void
test_every_algorithm_matches_its_reference (void **state)
{
  (void) state;
  for (guint r = 0; r < G_N_ELEMENTS (references); r++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (guint64 seed = 1; seed <= 7; seed += 6)
        {
          guint64 n = sizes[s], want = references[r].reference (n, seed);
          guint64 got = run_native (references[r].name, n, seed);
          if (got != want)
            fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": checksum %"
                      G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT, references[r].name, n,
                      seed, got, want);
        }
}

/* Ensure every registered algorithm has a reference here and a timed native entry point. */
static void
test_every_algorithm_has_a_reference (void **state)
{
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  for (guint i = 0; i < n_algos; i++)
    {
      gboolean found = FALSE;
      if (algos[i].run_timed == NULL)
        continue;   /* SIMT algorithms (gpu/..., reduce/...): test-simt.c, test-microkernels.c */
      for (guint r = 0; r < G_N_ELEMENTS (references); r++)
        found |= strcmp (references[r].name, algos[i].name) == 0;
      if (!found)
        fail_msg ("%s has no reference in this test", algos[i].name);
      assert_non_null (algos[i].run_timed);
    }
}

/* Ensure the instrumented, native and timed entry points compute the same checksum. */
static void
test_three_builds_agree (void **state)
{
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  for (guint i = 0; i < n_algos; i++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes) && algos[i].run_timed != NULL; s++)
      {
        g_autoptr (MdlParams) params = params_of (&algos[i], NULL);
        g_autoptr (GError) error = NULL;
        guint64 n = sizes[s], seed = 3, instrumented, native, timed = 0;
        double seconds = -1;
        instrumented = run_into (algos[i].name, n, seed, NULL, NULL);
        native = run_native (algos[i].name, n, seed);
        if (!algos[i].run_timed (params, n, seed, &timed, &seconds, &error))
          fail_msg ("%s timed: %s", algos[i].name, error->message);
        if (instrumented != native || native != timed || !(seconds >= 0))
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": instrumented %" G_GUINT64_FORMAT ", native %"
                    G_GUINT64_FORMAT ", timed %" G_GUINT64_FORMAT " (%g s)", algos[i].name, n,
                    instrumented, native, timed, seconds);
      }
}

/* Ensure the three sorts, and the two transposes and two products, agree with each other. */
static void
test_variants_agree_with_each_other (void **state)
{
  (void) state;
  for (guint64 seed = 1; seed <= 3; seed++)
    {
      guint64 h = run_native ("heap/sort", 5000, seed);
      assert_int_equal (run_native ("quicksort/intro", 5000, seed), h);
      assert_int_equal (run_native ("mergesort/bottom-up", 5000, seed), h);
      assert_int_equal (run_native ("transpose/rows", 5000, seed),
                        run_native ("transpose/recursive", 5000, seed));
      assert_int_equal (run_native ("matmul/naive", 5000, seed),
                        run_native ("matmul/recursive", 5000, seed));
    }
}

/* Ensure a size of 0 is a parameter error naming the size, for every algorithm. */
static void
test_size_zero_is_an_error (void **state)
{
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  for (guint i = 0; i < n_algos; i++)
    {
      g_autoptr (MdlParams) params = params_of (&algos[i], NULL);
      GError *error = NULL;
      guint64 sum;
      assert_false (algos[i].run_native (params, 0, 1, NULL, &sum, &error));
      assert_mdl_error (error, MDL_ERROR_PARAM, "n=0");
    }
}

/* ---- exact event sequences ------------------------------------------------------------------ */

/* The collected stream as text: "[name" and "]name" for phases, "O<k>" for k operations, and
 * "R<i>"/"W<i>"/"M<i>" for an 8-byte access to element i of the array whose element 0 is at
 * @base, "D<i>" for a read flagged dependent (MDL_CPU_FLAG_DEPENDENT), "C<i>" for one flagged a
 * chase too (MDL_CPU_FLAG_CHASE). Branch records are left out: the memory stream is the claim
 * here, and test-branch.c
 * counts the branches exactly. */
static char *
stream_text (const TestCollector *c, guint64 base)
{
  GString *s = g_string_new (NULL);
  guint ci = 0, mi = 0;
  for (const char *o = c->order->str; *o; o++)
    {
      /* Site markers only name the MDL_ call sites (record.h); the stream's shape is without. */
      if (*o == 'm'
          && ((const TestMarker *) g_ptr_array_index (c->markers, mi))->marker.kind == MDL_MARK_SITE)
        {
          mi++;
          continue;
        }
      if (*o == 'c' && g_array_index (c->cpu, MdlCpuEvent, ci).kind == MDL_CPU_BRANCH)
        {
          ci++;
          continue;
        }
      if (s->len)
        g_string_append_c (s, ' ');
      if (*o == 'm')
        {
          const TestMarker *m = g_ptr_array_index (c->markers, mi++);
          g_string_append_printf (s, "%c%s", m->marker.kind == MDL_MARK_PHASE_BEGIN ? '[' : ']',
                                  m->name);
        }
      else
        {
          const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, ci++);
          if (e->kind == MDL_CPU_OPS)
            g_string_append_printf (s, "O%" G_GUINT64_FORMAT, e->addr);
          else
            {
              assert_int_equal (e->size, 8);
              gboolean dependent = e->flags == MDL_CPU_FLAG_DEPENDENT;
              gboolean chase = e->flags == (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE);
              assert_true (e->flags == 0 || ((dependent || chase) && e->kind == MDL_CPU_READ));
              g_string_append_printf (s, "%c%" G_GINT64_FORMAT,
                                      chase ? 'C' : dependent ? 'D' : "RWMO"[e->kind],
                                      (gint64) (e->addr - base) / 8);
            }
        }
    }
  return g_string_free (s, FALSE);
}

static guint64
first_access (const TestCollector *c)
{
  for (guint i = 0; i < c->cpu->len; i++)
    if (mdl_cpu_is_access (g_array_index (c->cpu, MdlCpuEvent, i).kind))
      return g_array_index (c->cpu, MdlCpuEvent, i).addr;
  fail_msg ("no access in the stream");
  return 0;
}

/* Ensure scan/seq of 3 elements reads A[0], A[1], A[2] with one operation each, in one phase. */
static void
test_scan_seq_stream (void **state)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autofree char *text = NULL;
  (void) state;
  run_into ("scan/seq", 3, 5, NULL, &sink);
  text = stream_text (c, first_access (c));
  assert_string_equal (text, "[scan R0 O1 R1 O1 R2 O1 ]scan");
  test_collector_free (c);
}

/* The probes of a binary search for each rank r of 7 keys, worked out by hand. Sorted: A[lo..hi],
 * mid = floor((lo+hi)/2), so the first probe is A[3], then A[1] or A[5], then the leaves. vEB, 7
 * nodes (height 3, top 1 level, bottom trees of 3): slot 0 the root, slots 1-3 the left subtree
 * (its root, then its children), slots 4-6 the right one; in-order ranks 0..6 are heap nodes
 * 4,2,5,1,6,3,7, at slots 2,1,3,0,5,4,6. */
static const char *const sorted7[] = { "3 1 0", "3 1", "3 1 2", "3", "3 5 4", "3 5", "3 5 6" };
static const char *const veb7[] = { "0 1 2", "0 1", "0 1 3", "0", "0 4 5", "0 4", "0 4 6" };
/* 15 nodes (height 4, top 2 levels at slots 0-2, four bottom trees of 3 at slots 3-5, 6-8, 9-11,
 * 12-14). Rank r is heap node: 8 4 9 2 10 5 11 1 12 6 13 3 14 7 15. */
static const char *const veb15[] = {
  "0 1 3 4", "0 1 3", "0 1 3 5", "0 1", "0 1 6 7", "0 1 6", "0 1 6 8", "0",
  "0 2 9 10", "0 2 9", "0 2 9 11", "0 2", "0 2 12 13", "0 2 12", "0 2 12 14",
};

/* The expected stream of @searches searches over @n keys: one operation per query, then a read and
 * an operation per probe; every probe but a search's first is a dependent read (the last probe's
 * compare chose it), written @dependent ('D', or 'C' where the compare's result is arithmetic on
 * the address: a chase). The last probe's operation and the next query's stay two records: the
 * recorder merges op counts of one call site only, so that each line keeps its own. */
static char *
expected_search_stream (const char *const *probes, guint64 n, guint64 searches, guint64 seed,
                        char dependent)
{
  GString *s = g_string_new ("[search");
  guint64 st = SEARCH_SEED (seed);
  gboolean pending = FALSE;
  for (guint64 q = 0; q < searches; q++)
    {
      g_auto (GStrv) idx = g_strsplit (probes[ref_rank (&st, n)], " ", -1);
      g_string_append (s, pending ? " O1 O1" : " O1");
      for (guint i = 0; idx[i]; i++)
        g_string_append_printf (s, " %c%s%s", i ? dependent : 'R', idx[i],
                                idx[i + 1] ? " O1" : "");
      pending = TRUE;
    }
  if (pending)
    g_string_append (s, " O1");
  g_string_append (s, " ]search");
  return g_string_free (s, FALSE);
}

/* Ensure binsearch/sorted and binsearch/veb probe exactly the hand-derived elements, in order, for
 * every query of several seeds (7 keys), and veb for 15 keys. */
static void
test_binsearch_streams (void **state)
{
  static const struct {
    const char *name;
    guint64 n;
    const char *const *probes;
    guint64 first;   /* the element every search probes first */
    char dependent;  /* how the later probes are flagged: a branch chose them, or arithmetic */
  } rows[] = {
    { "binsearch/sorted", 7, sorted7, 3, 'D' },
    { "binsearch/veb", 7, veb7, 0, 'C' },
    { "binsearch/veb", 15, veb15, 0, 'C' },
  };
  const char *const assignments[] = { "searches=5", NULL };
  (void) state;
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    for (guint64 seed = 1; seed <= 4; seed++)
      {
        TestCollector *c = test_collector_new ();
        MdlSink sink = test_collector_sink (c);
        g_autofree char *got = NULL;
        g_autofree char *want = expected_search_stream (rows[r].probes, rows[r].n, 5, seed,
                                                        rows[r].dependent);
        run_into (rows[r].name, rows[r].n, seed, assignments, &sink);
        got = stream_text (c, first_access (c) - 8 * rows[r].first);
        if (strcmp (got, want) != 0)
          fail_msg ("%s n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ":\n  got  %s\n  want %s",
                    rows[r].name, rows[r].n, seed, got, want);
        test_collector_free (c);
      }
}

/* Ensure heap/heapify flags exactly the loads a sift's compares chose: each sift reads its start
 * S (a plain read; S = n/2 - 1, then one lower each), then per level the children of the node it
 * moved to. The children of S come from the loop's index (plain reads); those of any deeper node
 * are dependent reads, and that node is a child read earlier in the same sift. Checked on the whole stream of several sizes and
 * seeds, which must hold dependent reads at all. */
static void
test_heapify_flags_the_chosen_children (void **state)
{
  (void) state;
  for (guint64 n = 7; n <= 300; n = n * 3 + 1)
    for (guint64 seed = 1; seed <= 3; seed++)
      {
        TestCollector *c = test_collector_new ();
        MdlSink sink = test_collector_sink (c);
        g_autofree char *text = NULL;
        g_auto (GStrv) words = NULL;
        g_autoptr (GHashTable) read = g_hash_table_new (g_direct_hash, g_direct_equal);
        guint64 start = G_MAXUINT64, n_dependent = 0;
        run_into ("heap/heapify", n, seed, NULL, &sink);
        text = stream_text (c, first_access (c) - 8 * (n / 2 - 1));
        words = g_strsplit (text, " ", -1);
        for (char **w = words; *w; w++)
          {
            guint64 i;
            if (**w != 'R' && **w != 'D')
              continue;
            i = g_ascii_strtoull (*w + 1, NULL, 10);
            if (**w == 'R' && i != 2 * start + 1 && i != 2 * start + 2)
              {
                /* a new sift, which starts where the loop is: n/2 - 1, then one lower each */
                if (i != (start == G_MAXUINT64 ? n / 2 - 1 : start - 1))
                  fail_msg ("n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": plain read %s "
                            "is neither a child of %" G_GUINT64_FORMAT " nor the next sift's "
                            "start", n, seed, *w, start);
                start = i;
                g_hash_table_remove_all (read);
              }
            else if (**w == 'D' && (i == 2 * start + 1 || i == 2 * start + 2
                                    || !g_hash_table_contains (read, GSIZE_TO_POINTER ((i - 1) / 2))))
              fail_msg ("n=%" G_GUINT64_FORMAT " seed %" G_GUINT64_FORMAT ": %s in the sift from "
                        "%" G_GUINT64_FORMAT ": its parent is the start or was not read",
                        n, seed, *w, start);
            n_dependent += **w == 'D';
            g_hash_table_add (read, GSIZE_TO_POINTER (i));
          }
        assert_true (n_dependent > 0);
        test_collector_free (c);
      }
}

/* Ensure heap/sort names its two phases, build then extract, and quicksort its two. */
static void
test_phases_are_named (void **state)
{
  static const struct { const char *name; const char *phases; } rows[] = {
    { "heap/sort", "[build ]build [extract ]extract" },
    { "quicksort/intro", "[partition ]partition [insertion ]insertion" },
    { "mergesort/bottom-up", "[merge ]merge [copy ]copy" },
    { "permute/fisher-yates", "[permute ]permute" },
  };
  (void) state;
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      TestCollector *c = test_collector_new ();
      MdlSink sink = test_collector_sink (c);
      GString *s = g_string_new (NULL);
      /* 100 elements: mergesort takes 7 passes, an odd number, so it copies back. */
      run_into (rows[r].name, 100, 1, NULL, &sink);
      for (guint i = 0; i < c->markers->len; i++)
        {
          const TestMarker *m = g_ptr_array_index (c->markers, i);
          if (m->marker.kind != MDL_MARK_SITE)   /* the phases only */
            g_string_append_printf (s, "%s%c%s", s->len ? " " : "",
                                    m->marker.kind == MDL_MARK_PHASE_BEGIN ? '[' : ']', m->name);
        }
      assert_string_equal (s->str, rows[r].phases);
      g_string_free (s, TRUE);
      test_collector_free (c);
    }
}

/* ---- pages ---------------------------------------------------------------------------------- */

/* Ensure pages=4k and pages=huge align the arrays to 4 KiB and 2 MiB (huge only where the kernel
 * has transparent huge pages; elsewhere it is MDL_ERROR_UNSUPPORTED, never a crash). The real
 * arrays, allocated without a recorder: a recorder would show their simulated addresses. */
static void
test_pages_align_the_arrays (void **state)
{
  static const struct { const char *value; guint64 align; } rows[] = {
    { "pages=4k", 4096 }, { "pages=huge", 2u << 20 },
  };
  (void) state;
  for (guint r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      const MdlAlgo *a = algo ("scan/seq");
      const char *const assignments[] = { rows[r].value, NULL };
      g_autoptr (MdlParams) params = params_of (a, assignments);
      GError *error = NULL;
      g_autofree guint64 *p = mdl_algo_alloc_pages (NULL, params, 1000, sizeof *p, "array", &error);
      if (p == NULL)
        {
          assert_mdl_error (error, MDL_ERROR_UNSUPPORTED, "pages=huge");
          continue;
        }
      assert_int_equal ((uintptr_t) p % rows[r].align, 0);
      assert_int_equal (run_into ("scan/seq", 1000, 1, assignments, NULL), ref_scan (1000, 1));
    }
}

/* Ensure the native build's pages=huge arrays are tallied (pages.h): each asks for its size rounded
 * up to 2 MiB, and the kernel grants no more than that; a recorded (instrumented) array and a
 * pages=4k one are not tallied. Three matrices of 600 x 600 (2.75 MiB each) ask for 3 x 4 MiB. */
static void
test_huge_arrays_are_tallied (void **state)
{
  const MdlAlgo *a = algo ("matmul/naive");
  const char *const huge[] = { "pages=huge", NULL }, *const small[] = { "pages=4k", NULL };
  g_autoptr (MdlParams) params = params_of (a, huge);
  g_autoptr (MdlParams) small_params = params_of (a, small);
  TestCollector *collector;
  MdlRecorder *rec;
  MdlSink sink;
  MdlHugeTally before, after;
  GError *error = NULL;
  guint64 sum = 0;
  double seconds = 0;
  (void) state;
  mdl_algo_huge_tally (&before);
  if (!a->run_timed (params, 600 * 600, 1, &sum, &seconds, &error))
    {
      assert_mdl_error (error, MDL_ERROR_UNSUPPORTED, "pages=huge");
      return;
    }
  mdl_algo_huge_tally (&after);
  assert_int_equal (after.asked_bytes - before.asked_bytes, (guint64) 3 * (4u << 20));
  assert_true (after.granted_bytes - before.granted_bytes <= after.asked_bytes - before.asked_bytes);
  before = after;
  collector = test_collector_new ();
  sink = test_collector_sink (collector);
  rec = mdl_recorder_new (&sink, 0);
  g_free (mdl_algo_alloc_pages (rec, params, 1000, sizeof (guint64), "array", NULL));
  mdl_recorder_free (rec);
  test_collector_free (collector);
  assert_true (a->run_timed (small_params, 600 * 600, 1, &sum, &seconds, NULL));
  mdl_algo_huge_tally (&after);
  assert_int_equal (after.asked_bytes, before.asked_bytes);
  assert_int_equal (after.granted_bytes, before.granted_bytes);
}

/* Ensure every CPU algorithm records only simulated addresses (each access inside an array mapped
 * in the recorder), so that the same run gives the same stream wherever malloc puts the arrays:
 * run once, then again with other allocations held, which move the real arrays. */
static void
test_streams_do_not_depend_on_the_heap (void **state)
{
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  (void) state;
  for (guint i = 0; i < n_algos; i++)
    {
      TestCollector *first, *second;
      MdlSink sink;
      g_autofree void *small = NULL, *large = NULL;
      if (algos[i].run_timed == NULL)
        continue;   /* SIMT algorithms simulate their memory already */
      first = test_collector_new ();
      sink = test_collector_sink (first);
      run_into (algos[i].name, 3000, 2, NULL, &sink);
      small = g_malloc (40);
      large = g_malloc (3 << 20);   /* past malloc's mmap threshold: a mapping of its own */
      second = test_collector_new ();
      sink = test_collector_sink (second);
      run_into (algos[i].name, 3000, 2, NULL, &sink);
      for (guint e = 0; e < first->cpu->len; e++)
        {
          const MdlCpuEvent *ev = &g_array_index (first->cpu, MdlCpuEvent, e);
          if (mdl_cpu_is_access (ev->kind)
              && (ev->addr < MDL_RECORDER_MAP_BASE || ev->addr >= 2 * MDL_RECORDER_MAP_BASE))
            fail_msg ("%s: event %u reads or writes 0x%" G_GINT64_MODIFIER "x, outside every "
                      "mapped array", algos[i].name, e, ev->addr);
        }
      test_collector_assert_equal (first, second);
      test_collector_free (first);
      test_collector_free (second);
    }
}

/* ---- the thesis's VAT bounds ---------------------------------------------------------------- */

/* TC misses of @name through vat:SPEC, and its RAM operations. Pages of 128 bytes are the thesis's
 * P = 16 cells of 8 bytes; K = 4; d = 20 levels cover 47-bit addresses. */
#define SMALL_TREE "vat:policy=lru,P=128,K=4,d=20"

static void
vat_misses (const char *name, guint64 n, const char *const *assignments, guint w,
            guint64 *misses, guint64 *compulsory)
{
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autofree char *spec = g_strdup_printf (SMALL_TREE ",W=%u", w);
  g_autoptr (GError) error = NULL;
  MdlSink sink;
  MdlReport **reports;
  guint n_reports;
  if (!mdl_pipeline_add_engine_spec (pipeline, spec, &error))
    fail_msg ("%s: %s", spec, error->message);
  sink = mdl_pipeline_sink (pipeline);
  run_into (name, n, 1, assignments, &sink);
  reports = mdl_pipeline_reports (pipeline, &n_reports);
  *misses = mdl_report_lookup (reports[0], "tc_misses")->count;
  if (compulsory)
    *compulsory = mdl_report_lookup (reports[0], "compulsory")->count;
  mdl_report_free (reports[0]);
  g_free (reports);
}

/* Ensure a sequential scan misses exactly once per tree node it touches (any policy with W >= d+1,
 * spec §6.1), and stays within the thesis's bound 2(d+1) + K/(K-1) n/P for a base that is not
 * aligned (one more node per level than an aligned base). */
static void
test_vat_scan_is_compulsory_only (void **state)
{
  static const guint64 ns[] = { 1000, 65536, 100000 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (ns); i++)
    {
      guint64 misses, compulsory, pages = ns[i] * 8 / 128;
      vat_misses ("scan/seq", ns[i], NULL, 21, &misses, &compulsory);
      assert_int_equal (misses, compulsory);
      if ((double) misses > 2.0 * 21 + 4.0 / 3.0 * (double) pages + 1)
        fail_msg ("n=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " misses over the bound",
                  ns[i], misses);
      assert_true (misses >= pages);
    }
}

/* Ensure a random scan's misses per element lie between Lemma 2.27's bounds (1/k) log(n/(PW)) and
 * (1/k)(1 + log(n/P)), n/P in pages of the array. The tree here has d=20 levels, of which the
 * array's pages need only log_K(n/P) + 1 (the base is not aligned). Two streams (the permutation,
 * read in order, and the array) may sit anywhere in the address space, so their paths may share
 * few nodes: 2(d+1) cells keep both paths (with fewer, LRU evicts each path's nodes just before the
 * walk reaches them, spec §6.1 item 6's pitfall), and 16 more hold array nodes. The lower bound is
 * taken with all W cells. The permutation's reads add n/P (4/3) misses at most. */
static void
test_vat_random_scan_within_lemma_2_27 (void **state)
{
  const guint64 n = 1u << 14, pages = n / 16;      /* 16 elements per 128-byte page */
  const guint w = 2 * 21 + 16;
  const double k = 2, lower = log2 ((double) pages / w) / k;
  const double upper = (1 + log2 ((double) pages)) / k + 1.0 / k + 4.0 / 3.0 / 16;
  guint64 misses;
  double per;
  (void) state;
  vat_misses ("scan/random", n, NULL, w, &misses, NULL);
  per = (double) misses / (double) n;
  if (g_getenv ("MODELS_TEST_VERBOSE"))
    g_printerr ("random scan: %.3f misses per element, bounds [%.3f, %.3f]\n", per, lower, upper);
  if (per < lower || per > upper)
    fail_msg ("random scan: %.3f misses per element, outside [%.3f, %.3f]", per, lower, upper);
}

/* Ensure binary searches over n = 2^16 - 1 keys miss per search between Lemma 2.28's lower bound
 * (1/4k) log^2(n/(4PW)) and the derivation's upper bound d (log n - l), l = log(W/2d) (spec §3.4:
 * the printed upper bound is a misprint), d the array's levels (one more for an unaligned base);
 * and that the van Emde Boas layout misses less than the sorted one. One stream: W = 32 cells plus
 * the d+1 - 7 levels above the array, which its single path keeps. */
static void
test_vat_binsearch_within_lemma_2_28 (void **state)
{
  const guint64 n = (1u << 16) - 1, searches = 3000, pages = n * 8 / 128;
  const char *const assignments[] = { "searches=3000", NULL };
  const guint w_model = 32, d = 7, w = w_model + 21 - d;  /* d = log_4(4096) + 1 */
  const double k = 2, lg = log2 ((double) n);
  const double lower = pow (log2 ((double) pages / (4.0 * w_model)), 2) / (4 * k);
  const double upper = d * (lg - log2 (w_model / (2.0 * d)));
  guint64 sorted, veb;
  double per_sorted, per_veb;
  (void) state;
  vat_misses ("binsearch/sorted", n, assignments, w, &sorted, NULL);
  vat_misses ("binsearch/veb", n, assignments, w, &veb, NULL);
  per_sorted = (double) sorted / searches;
  per_veb = (double) veb / searches;
  if (per_sorted < lower || per_sorted > upper)
    fail_msg ("binsearch/sorted: %.2f misses per search, outside [%.2f, %.2f]", per_sorted, lower,
              upper);
  if (!(per_veb < per_sorted))
    fail_msg ("binsearch/veb: %.2f misses per search, not below sorted's %.2f", per_veb,
              per_sorted);
  if (g_getenv ("MODELS_TEST_VERBOSE"))
    g_printerr ("binsearch: sorted %.2f, veb %.2f misses per search, bounds [%.2f, %.2f]\n",
                per_sorted, per_veb, lower, upper);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_every_algorithm_matches_its_reference),
    cmocka_unit_test (test_every_algorithm_has_a_reference),
    cmocka_unit_test (test_three_builds_agree),
    cmocka_unit_test (test_variants_agree_with_each_other),
    cmocka_unit_test (test_size_zero_is_an_error),
    cmocka_unit_test (test_scan_seq_stream),
    cmocka_unit_test (test_binsearch_streams),
    cmocka_unit_test (test_heapify_flags_the_chosen_children),
    cmocka_unit_test (test_phases_are_named),
    cmocka_unit_test (test_pages_align_the_arrays),
    cmocka_unit_test (test_huge_arrays_are_tallied),
    cmocka_unit_test (test_streams_do_not_depend_on_the_heap),
    cmocka_unit_test (test_vat_scan_is_compulsory_only),
    cmocka_unit_test (test_vat_random_scan_within_lemma_2_27),
    cmocka_unit_test (test_vat_binsearch_within_lemma_2_28),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
