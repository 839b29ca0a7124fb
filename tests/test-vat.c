/* Tests of the vat engine: hand-derived micro-traces for every policy, the parameters and their
 * errors, the report's counters, the thesis's exact formulas (sequential scan, Lemma 2.8 as
 * corrected), MIN keeping the root, the initial segment property after every operation, phases,
 * huge pages, the VM option. Agreement with the reference and the theorems: test-vat-ref.c. */
#include "helpers.h"

#include "models/vat/vat.h"
#include "ref/vat-ref.h"

#include <string.h>

/* ---- helpers ------------------------------------------------------------------------------------ */

/* Records one letter per node access (H or M), and runs the TC check after every operation when
 * asked to; the first check failure is kept. */
typedef struct {
  GString *outcome;
  gboolean check;
  GError *check_error;
  guint64 root_evictions;
  guint root_layer;
  guint64 misses;
} Watch;

static void
watch_hook (void *data, const VatTc *tc, VatEventKind kind, guint64 node)
{
  Watch *w = data;
  if (kind == VAT_EV_HIT)
    g_string_append_c (w->outcome, 'H');
  else if (kind == VAT_EV_MISS)
    {
      g_string_append_c (w->outcome, 'M');
      w->misses++;
    }
  else if (vat_node_layer (node) == w->root_layer)
    w->root_evictions++;
  if (w->check && w->check_error == NULL)
    mdl_vat_tc_check (tc, &w->check_error);
}

static Vat *
vat_or_fail (const char *spec)
{
  GError *error = NULL;
  Vat *v = mdl_vat_new (spec, &error);
  if (v == NULL)
    fail_msg ("mdl_vat_new (%s): %s", spec, error->message);
  return v;
}

static guint64
counter (const MdlReport *r, const char *name)
{
  const MdlCounter *c = mdl_report_lookup (r, name);
  if (c == NULL)
    fail_msg ("report has no counter %s", name);
  return c->count;
}

/* Runs 1-byte reads at @addrs through a fresh engine and returns its report; @outcome (optional)
 * gets the hit/miss letters, one group per access, separated by spaces. */
static MdlReport *
run_addrs (const char *spec, const guint64 *addrs, gsize n, GString *outcome)
{
  Vat *v = vat_or_fail (spec);
  Watch w = { .outcome = g_string_new (NULL), .root_layer = mdl_vat_depth (v) };
  GError *error = NULL;
  MdlReport *r;
  mdl_vat_set_hook (v, watch_hook, &w);
  for (gsize i = 0; i < n; i++)
    {
      MdlCpuEvent e = { .kind = MDL_CPU_READ, .size = 1, .addr = addrs[i] };
      MdlEventBatch b = { .cpu = &e, .n_cpu = 1 };
      if (!mdl_vat_consume (v, &b, &error))
        fail_msg ("%s: %s", spec, error->message);
    }
  /* Offline policies run here, so the letters are grouped afterwards: every access walks the same
   * number of nodes. */
  r = mdl_vat_report (v);
  if (outcome)
    for (gsize i = 0, group = w.outcome->len / MAX (n, 1); i < w.outcome->len; i++)
      {
        if (i && i % group == 0)
          g_string_append_c (outcome, ' ');
        g_string_append_c (outcome, w.outcome->str[i]);
      }
  g_string_free (w.outcome, TRUE);
  mdl_vat_free (v);
  return r;
}

/* The same for page numbers (reads at the first byte of each page), without the letters. */
static MdlReport *
run_pages (const char *spec, const guint64 *pages, gsize n)
{
  Vat *v = vat_or_fail (spec);
  GError *error = NULL;
  MdlReport *r;
  if (!mdl_vat_pages (v, pages, n, &error))
    fail_msg ("%s: %s", spec, error->message);
  r = mdl_vat_report (v);
  mdl_vat_free (v);
  return r;
}

static gsize
parse_pages (const char *text, guint64 *out, gsize cap)
{
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  gsize n = 0;
  for (char **w = words; *w; w++)
    if (**w && n < cap)
      out[n++] = g_ascii_strtoull (*w, NULL, 10);
  return n;
}

/* ---- micro-traces ------------------------------------------------------------------------------- */

/* Rows use P=1, so addresses are page numbers, and K=2 unless they say otherwise. With d=2 the
 * nodes are the root R, the layer-1 nodes A (pages 0-1) and B (pages 2-3), and the leaves
 * L0..L3; a path reads R, A|B, Lp. Recency lists are written most recent first. The expected
 * letters were worked out by hand as the comment above each row shows, one group per access.
 * (random has no row: its choices are GRand's; test-vat-ref.c checks it against the reference.) */
static const struct {
  const char *name;
  const char *spec;
  const char *addrs;
  const char *expect;
} micro_rows[] = {
  /* 0: R A L0 cold, recency L0 A R. 1: R A hit; L1 evicts the LRU, L0. 0: L0 evicts L1. */
  { "lru reuses the path", "policy=lru,P=1,K=2,d=2,W=3", "0 1 0", "MMM HHM HHM" },
  /* W=4. 0: L0 A R. 2: R hit (R L0 A); B takes the free cell (B R L0 A); L2 evicts A, leaving L0
   * without its parent (L2 B R L0). 1: R hit (R L2 B L0); A evicts L0; L1 evicts B (L1 A R L2).
   * 0: R A hit (A R L1 L2); L0 evicts L2 (L0 A R L1). 2: R hit (R L0 A L1); B evicts L1; L2 evicts
   * A. */
  { "lru detaches and thrashes", "policy=lru,P=1,K=2,d=2,W=4", "0 2 1 0 2",
    "MMM HMM HMM HHM HMM" },
  /* Lemma 2.8 below the gap. After 0 2 (W=4): L2 B R L0, A absent but L0 cached. 0: R hit
   * (R L2 B L0); A misses and evicts the LRU, L0 itself (A R L2 B); L0 then misses, evicting B:
   * 2 misses = layer of A + 1. */
  { "lru evicts below the gap", "policy=lru,P=1,K=2,d=2,W=4", "0 2 0", "MMM HMM HMM" },
  /* islru evicts the LRU among cached nodes with no cached child, off the current path. W=4.
   * 2: R hit; B takes the free cell; L2: the only childless node off the path is L0. 1: R A hit;
   * L1: candidates L2 only (B has L2, A is on the path). 0: R A hit; L0: candidates B (used in
   * access 2) and L1 (access 3) -> B. 2: R hit; B: candidates L1 (access 3), L0 (access 4) -> L1;
   * L2: the only candidate is L0 (A has it as a child, B is on the path). */
  { "islru keeps initial segments", "policy=islru,P=1,K=2,d=2,W=4", "0 2 1 0 2",
    "MMM HMM HHM HHM HMM" },
  /* W=3. 2: R hit; B evicts L0, the only childless node off the path; L2 evicts A, childless now.
   * 0: R hit; A evicts L2; L0 evicts B, childless now. */
  { "islru at W = d+1", "policy=islru,P=1,K=2,d=2,W=3", "0 2 0", "MMM HMM HMM" },
  /* Node positions, root first: 0:R0 A1 L0_2, 2:R3 B4 L2_5, 1:R6 A7 L1_8, 0:R9 A10 L0_11.
   * 2: R hit (next use 6); B evicts the furthest next use among R 6, A 7, L0 11 -> L0; L2: R 6,
   * A 7, B never -> B, the node just used (round robin). 1: R A hit; L1 evicts L2 (never used
   * again). 0: R A hit; L1 is the lowest of the dead nodes -> evicted. */
  { "min evicts the node just used", "policy=min,P=1,K=2,d=2,W=3", "0 2 1 0",
    "MMM HMM HHM HHM" },
  /* ismin on the same trace: 2: B evicts L0, the only childless node off the path; L2 evicts A
   * (childless now; B is on the path). 1: A evicts L2 (dead); L1 evicts B (dead, childless now).
   * 0: L0 evicts L1. One miss more than min. */
  { "ismin cannot use round robin", "policy=ismin,P=1,K=2,d=2,W=3", "0 2 1 0",
    "MMM HMM HMM HHM" },
  /* Positions: 0:R0 A1 L0_2, 2:R3 B4 L2_5, 1:R6 A7 L1_8, 0:R9 A10 L0_11, 2:R12 B13 L2_14. W=4.
   * 2: B takes the free cell; L2: the only childless node off the path is L0. 1: R A hit; L1:
   * the only candidate is L2. 0: R A hit; L0: candidates B (next 13) and L1 (never) -> L1. 2: R B
   * hit; L2: the only candidate is L0 (never). */
  { "ismin at W = d+2", "policy=ismin,P=1,K=2,d=2,W=4", "0 2 1 0 2",
    "MMM HMM HHM HHM HHM" },
  /* Cells fill 0:R 1:A 2:L0. 1: R A hit; L1 replaces the oldest insertion, R. 0: R replaces A,
   * A replaces L0, L0 replaces L1: fifo evicts the root and pays for it. */
  { "fifo evicts the root", "policy=fifo,P=1,K=2,d=2,W=3", "0 1 0", "MMM HHM MMM" },
  /* W=4: the root layer 1 cell, then 3 cells over layers 0-1: one each, the remainder to layer 0.
   * 2: R hit; B replaces A; L2 takes layer 0's free cell. 0: R hit; A replaces B; L0 still cached.
   * 1: R A hit; L1 replaces the LRU leaf, L2. */
  { "levels splits the cells", "policy=levels,P=1,K=2,d=2,W=4", "0 2 0 1", "MMM HMM HMH HHM" },
  /* vm=1, d=1: guest R L0, then host R' L0' (recency L0' R' L0 R). 1: R hit (R L0' R' L0); L1
   * evicts L0; R' hit; L1' evicts L0'. 0: likewise, evicting L1 and L1'. */
  { "vm walks the host tree", "policy=lru,P=1,K=2,d=1,W=4,vm=1", "0 1 0", "MMMM HMHM HMHM" },
  /* K=4, d=2, W=3: pages 0-3 share node N0 on layer 1, page 4 is under N1. 4: R hit (R L0 N0);
   * N1 evicts N0; L4 evicts L0. 1: R hit (R L4 N1); N0 evicts N1; L1 evicts L4. */
  { "lru on a 4-ary tree", "policy=lru,P=1,K=4,d=2,W=3", "0 4 1", "MMM HMM HMM" },
  /* huge=1 makes pages P*K = 2 bytes and the tree d-1 = 1 deep: R and leaves L0 (bytes 0-1), L1.
   * 0: R L0 cold; 1: the same huge page, all hits; 2: R hit, L1 into the free cell. */
  { "huge pages merge leaves", "policy=lru,P=1,K=2,d=2,W=3,huge=1", "0 1 2", "MM HH HM" },
};

/* Ensure each policy gives the hand-derived hit/miss sequence on its micro-traces. */
static void
test_micro_traces (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (micro_rows); i++)
    {
      guint64 addrs[64];
      gsize n = parse_pages (micro_rows[i].addrs, addrs, G_N_ELEMENTS (addrs));
      g_autoptr (GString) got = g_string_new (NULL);
      g_autoptr (MdlReport) r = run_addrs (micro_rows[i].spec, addrs, n, got);
      if (strcmp (got->str, micro_rows[i].expect) != 0)
        fail_msg ("%s (%s, addresses %s): expected %s, got %s", micro_rows[i].name,
                  micro_rows[i].spec, micro_rows[i].addrs, micro_rows[i].expect, got->str);
    }
}

/* ---- parameters and errors ---------------------------------------------------------------------- */

/* Ensure vat:machine=x86-64 takes P, K and d from the preset, and the spec shows them. */
static void
test_machine_preset (void **state)
{
  GError *error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new ("vat:machine=x86-64,policy=islru", &error);
  (void) state;
  if (e == NULL)
    fail_msg ("%s", error->message);
  assert_non_null (strstr (mdl_engine_spec (e), "P=4096"));
  assert_non_null (strstr (mdl_engine_spec (e), "K=512"));
  assert_non_null (strstr (mdl_engine_spec (e), "d=4"));
  assert_non_null (strstr (mdl_engine_spec (e), "policy=islru"));
}

/* Ensure bad parameters are refused with a message that says what is wrong and why. */
static void
test_parameter_errors (void **state)
{
  static const struct {
    const char *spec;
    const char *needle;
  } rows[] = {
    { "vat:policy=islru,P=4096,K=512,d=4,W=4",
      "vat: W=4 is too small for policy islru (needs W >= d+1 = 5" },
    { "vat:policy=ismin,K=2,d=6,W=6", "needs W >= d+1 = 7" },
    { "vat:policy=levels,K=2,d=3,W=4,vm=1", "needs W >= d+2 = 5" },
    { "vat:K=3", "not a power of two" },
    { "vat:P=3000", "not a power of two" },
    { "vat:K=1", "out of range" },
    { "vat:policy=fifo,curve=1", "curve=1 needs a stack algorithm" },
    { "vat:K=2,huge=1,d=1", "huge=1 needs d >= 2" },
    { "vat:K=512,d=7", "at most 56 are supported" },
    { "vat:d=3,curve=1,curve_max=3", "curve_max=3 is below d+1 = 4" },
    { "vat:policy=belady", "policy" },
    { "vat:polcy=lru", "polcy" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;
      g_autoptr (MdlEngine) e = mdl_engine_new (rows[i].spec, &error);
      if (e != NULL)
        fail_msg ("%s: accepted", rows[i].spec);
      if (error->code != MDL_ERROR_PARAM && error->code != MDL_ERROR_UNKNOWN_NAME)
        fail_msg ("%s: code %d (%s)", rows[i].spec, error->code, error->message);
      if (strstr (error->message, rows[i].needle) == NULL)
        fail_msg ("%s: message \"%s\" lacks \"%s\"", rows[i].spec, error->message, rows[i].needle);
      g_error_free (error);
    }
}

/* Ensure every choice of the `policy` parameter selects the policy of that name (the choices and
 * the policy table are made from one list, policy.h), and that each runs: a scattered trace keeps
 * the TC consistent after every operation and counts d+1 node visits per access. */
static void
test_every_policy_choice_runs (void **state)
{
  const MdlParamSpec *p = mdl_engine_class_lookup ("vat")->params;
  g_auto (GStrv) choices = NULL;
  guint64 pages[200];
  (void) state;
  while (strcmp (p->key, "policy") != 0)
    p++;
  choices = g_strsplit (p->choices, "|", -1);
  assert_true (g_strv_length (choices) >= 7);
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    pages[i] = (i * 37 + i / 9) % 64;
  for (guint c = 0; choices[c]; c++)
    {
      g_autofree char *spec = g_strdup_printf ("policy=%s,K=4,d=3,W=8", choices[c]);
      Vat *v = vat_or_fail (spec);
      Watch w = { .outcome = g_string_new (NULL), .check = TRUE, .root_layer = 3 };
      g_autoptr (MdlReport) r = NULL;
      assert_string_equal (mdl_vat_tc (v)->policy->name, choices[c]);
      mdl_vat_set_hook (v, watch_hook, &w);
      assert_true (mdl_vat_pages (v, pages, G_N_ELEMENTS (pages), NULL));
      r = mdl_vat_report (v);
      if (w.check_error)
        fail_msg ("%s: %s", spec, w.check_error->message);
      assert_int_equal (counter (r, "tc_hits") + counter (r, "tc_misses"), 4 * G_N_ELEMENTS (pages));
      assert_int_equal (w.outcome->len, 4 * G_N_ELEMENTS (pages));
      g_string_free (w.outcome, TRUE);
      mdl_vat_free (v);
    }
}

/* Ensure an access beyond the tree (a page number that needs more than d levels) is a model error
 * naming the record and the address, and that the engine refuses to go on. */
static void
test_address_beyond_tree (void **state)
{
  GError *error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new ("vat:P=16,K=4,d=2,W=8", &error);
  MdlCpuEvent ev[3] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x10 },
    { .kind = MDL_CPU_OPS, .addr = 5 },
    { .kind = MDL_CPU_WRITE, .size = 4, .addr = 0x1000 },
  };
  MdlEventBatch b = { .cpu = ev, .n_cpu = 3 };
  (void) state;
  assert_non_null (e);
  assert_false (mdl_engine_consume (e, &b, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "access record 3 (write of 4 bytes at 0x1000)");
  error = NULL;
  /* The last byte decides: 0xfc..0x103 straddles out of the 256-byte tree. */
  {
    g_autoptr (MdlEngine) f = mdl_engine_new ("vat:P=16,K=4,d=2,W=8", NULL);
    MdlCpuEvent s = { .kind = MDL_CPU_READ, .size = 8, .addr = 0xfc };
    MdlEventBatch sb = { .cpu = &s, .n_cpu = 1 };
    assert_false (mdl_engine_consume (f, &sb, &error));
    assert_mdl_error (error, MDL_ERROR_MODEL, "addresses below 0x100");
  }
}

/* ---- the report --------------------------------------------------------------------------------- */

/* Ensure the counters hang together on a random trace, for every policy: per-layer misses sum to
 * tc_misses, the per-access distribution sums to the accesses and its mean to tc_misses, hits and
 * misses make up every path node, compulsory equals the distinct nodes (counted here with a hash
 * set), and cost = ram_ops + tau * tc_misses. */
static void
test_report_counters (void **state)
{
  static const char *const policies[] = { "lru", "islru", "min", "ismin", "fifo", "random", "levels" };
  guint32 seed = test_seed (7);
  GRand *rand = g_rand_new_with_seed (seed);
  guint64 addrs[3000];
  MdlCpuEvent ev[2 * G_N_ELEMENTS (addrs)];
  guint64 ops = 0;
  g_autoptr (GHashTable) distinct = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  gsize n = 0;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (addrs); i++)
    {
      addrs[i] = g_rand_int_range (rand, 0, 4) ? (guint64) g_rand_int_range (rand, 0, 1 << 20)
                                               : (i ? addrs[i - 1] + 8 : 0);
      ev[n++] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = addrs[i] & ~7ull };
      ev[n++] = (MdlCpuEvent) { .kind = MDL_CPU_OPS, .addr = 3 };
      ops += 3;
      for (guint l = 0; l <= 7; l++)
        {
          gint64 *key = g_new (gint64, 1);
          *key = (gint64) vat_node_make (l, 0, (addrs[i] >> 8) >> (2 * l));
          g_hash_table_add (distinct, key);
        }
    }
  for (guint p = 0; p < G_N_ELEMENTS (policies); p++)
    {
      g_autofree char *spec = g_strdup_printf ("policy=%s,P=256,K=4,d=7,W=19,tau=5", policies[p]);
      Vat *v = vat_or_fail (spec);
      MdlEventBatch b = { .cpu = ev, .n_cpu = n };
      GError *error = NULL;
      g_autoptr (MdlReport) r = NULL;
      guint64 sum_layers = 0, sum_hist = 0, weighted = 0, misses;
      if (!mdl_vat_consume (v, &b, &error))
        fail_msg ("%s: %s", spec, error->message);
      r = mdl_vat_report (v);
      misses = counter (r, "tc_misses");
      for (guint l = 0; l <= 7; l++)
        {
          g_autofree char *name = g_strdup_printf ("tc_misses_l%u", l);
          sum_layers += counter (r, name);
        }
      for (guint m = 0; m <= 8; m++)
        {
          g_autofree char *name = g_strdup_printf ("misses_per_access_%u", m);
          sum_hist += counter (r, name);
          weighted += m * counter (r, name);
        }
      if (sum_layers != misses || weighted != misses || sum_hist != G_N_ELEMENTS (addrs)
          || counter (r, "accesses") != G_N_ELEMENTS (addrs)
          || counter (r, "tc_hits") + misses != 8 * G_N_ELEMENTS (addrs)
          || counter (r, "compulsory") != g_hash_table_size (distinct)
          || counter (r, "ram_ops") != ops || counter (r, "cost") != ops + 5 * misses)
        fail_msg ("seed %u, %s: counters disagree: misses %" G_GUINT64_FORMAT ", layers %"
                  G_GUINT64_FORMAT ", per-access sum %" G_GUINT64_FORMAT " weighted %"
                  G_GUINT64_FORMAT ", compulsory %" G_GUINT64_FORMAT " vs %u distinct", seed,
                  spec, misses, sum_layers, sum_hist, weighted, counter (r, "compulsory"),
                  g_hash_table_size (distinct));
      /* A second report is the same (offline policies must not run twice into one total). */
      {
        g_autoptr (MdlReport) again = mdl_vat_report (v);
        assert_int_equal (counter (again, "tc_misses"), misses);
        assert_int_equal (counter (again, "compulsory"), counter (r, "compulsory"));
      }
      mdl_vat_free (v);
    }
  g_rand_free (rand);
}

/* Ensure compulsory counts the distinct nodes (a hash set here) also in trees whose lower layers
 * are too wide for a plain bitmap each and go through the seen-set's chunks (seen.h: found through
 * a radix table up to 36 bits, K=2's layers 4..11 and x86-64's leaves, a hash table above): pages
 * spread over the whole tree (a chunk each, so the table grows many times), runs of consecutive
 * pages (dense chunks), pages of one subtree, and repeats, at many layers at once (K=2, d=40) and
 * with the x86-64 shape (K=512, d=4); with vm=1 the count doubles, and an offline policy counts
 * the same. The accesses come in batches of varied sizes, as a reader delivers them. */
static void
test_compulsory_in_wide_trees (void **state)
{
  static const struct { guint k_bits, depth; } shapes[] = { { 1, 40 }, { 9, 4 }, { 20, 2 } };
  guint32 seed = test_seed (40);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint sh = 0; sh < G_N_ELEMENTS (shapes); sh++)
    {
      guint k_bits = shapes[sh].k_bits, depth = shapes[sh].depth, bits = k_bits * depth;
      guint64 pages[6000], top = G_GUINT64_CONSTANT (1) << bits;
      g_autoptr (GHashTable) distinct = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                               NULL);
      for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
        {
          guint kind = (guint) g_rand_int_range (rand, 0, 4);
          guint64 r = ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand)) & (top - 1);
          pages[i] = kind == 0 || i == 0 ? r                                  /* anywhere */
                     : kind == 1 ? (pages[i - 1] + 1) & (top - 1)              /* a run */
                     : kind == 2 ? (pages[i - 1] & ~G_GUINT64_CONSTANT (0xffff)) | (r & 0xffff)
                     : pages[g_rand_int_range (rand, 0, (gint32) i)];          /* again */
          for (guint l = 0; l <= depth; l++)
            {
              gint64 *key = g_new (gint64, 1);
              *key = (gint64) vat_node_make (l, 0, pages[i] >> (k_bits * l));
              g_hash_table_add (distinct, key);
            }
        }
      for (const char *const *policy = (const char *const[]) { "lru", "min", NULL }; *policy; policy++)
        for (guint vm = 0; vm <= 1; vm++)
          {
            g_autofree char *spec = g_strdup_printf ("policy=%s,P=1,K=%u,d=%u,W=%u,vm=%u", *policy,
                                                     1u << k_bits, depth, 2 * depth + 4, vm);
            Vat *v = vat_or_fail (spec);
            g_autoptr (MdlReport) r = NULL;
            GError *error = NULL;
            for (gsize at = 0, step; at < G_N_ELEMENTS (pages); at += step)
              {
                step = (gsize) g_rand_int_range (rand, 1, 1500);
                step = MIN (step, G_N_ELEMENTS (pages) - at);
                if (!mdl_vat_pages (v, pages + at, step, &error))
                  fail_msg ("seed %u, %s: %s", seed, spec, error->message);
              }
            r = mdl_vat_report (v);
            if (counter (r, "compulsory") != (vm + 1) * g_hash_table_size (distinct))
              fail_msg ("seed %u, %s: compulsory %" G_GUINT64_FORMAT ", distinct nodes %u (x%u)",
                        seed, spec, counter (r, "compulsory"), g_hash_table_size (distinct), vm + 1);
            mdl_vat_free (v);
          }
    }
  g_rand_free (rand);
}

/* Ensure a record that straddles a page boundary translates both pages, and that an access to the
 * page just translated is all hits. */
static void
test_straddle_and_repeat (void **state)
{
  g_autoptr (MdlEngine) e = mdl_engine_new ("vat:P=16,K=4,d=3,W=8", NULL);
  MdlCpuEvent ev[3] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 12 },   /* pages 0 and 1 */
    { .kind = MDL_CPU_MODIFY, .size = 4, .addr = 16 }, /* page 1 again */
    { .kind = MDL_CPU_WRITE, .size = 1, .addr = 17 },  /* page 1 again */
  };
  MdlEventBatch b = { .cpu = ev, .n_cpu = 3 };
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  assert_true (mdl_engine_consume (e, &b, NULL));
  r = mdl_engine_report (e);
  assert_int_equal (counter (r, "accesses"), 4);
  assert_int_equal (counter (r, "tc_misses"), 5);        /* 4 for page 0, leaf 1 */
  assert_int_equal (counter (r, "tc_hits"), 3 + 4 + 4);
  assert_int_equal (counter (r, "misses_per_access_0"), 2);
  assert_int_equal (counter (r, "misses_per_access_1"), 1);
  assert_int_equal (counter (r, "misses_per_access_4"), 1);
}

/* ---- the thesis's exact results ------------------------------------------------------------- */

/* Ensure instruction fetches (reads flagged MDL_CPU_FLAG_FETCH) are not translated: only the
 * data read counts as an access, and ops come from the op record alone. */
static void
test_fetches_are_not_accesses (void **state)
{
  static const MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_OPS, .addr = 1 },
    { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 4, .addr = 0x5000 },
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 },
  };
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
  GError *error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new ("vat:machine=x86-64,policy=lru,W=8", &error);
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  assert_non_null (e);
  assert_true (mdl_engine_consume (e, &b, NULL));
  r = mdl_engine_report (e);
  assert_int_equal (counter (r, "accesses"), 1);
  assert_int_equal (counter (r, "ram_ops"), 1);
  assert_int_equal (counter (r, "tc_misses"), 5); /* a cold path of d+1 = 5 nodes */
}

/* Ensure a sequential scan from an aligned base misses exactly 1 + sum_{l<d} ceil(n / (P K^l)), the
 * distinct nodes it touches (spec vat §3.2), under every policy that keeps a path; and the rows of
 * the notes' table (spec vat §6.1), including unaligned bases, where the count is the number of
 * distinct nodes (counted here directly). */
static void
test_sequential_scan (void **state)
{
  static const char *const policies[] = { "lru", "islru", "min", "ismin", "levels" };
  static const struct {
    guint k_bits, p_bits, d, w;
    guint64 n, base, expect;   /* expect 0: the formula */
  } rows[] = {
    { 2, 4, 6, 16, 65536, 0, 5461 },
    { 2, 4, 7, 16, 65536, 37, 5469 },
    { 9, 12, 2, 16, 1 << 22, 0, 1027 },
    { 1, 3, 7, 8, 1000, 5, 252 },
    { 1, 6, 11, 12, 100000, 0, 0 },
    { 3, 5, 5, 12, 300000, 0, 0 },
    { 2, 8, 6, 7, 1 << 20, 0, 0 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 expect = rows[i].expect, page_bytes = 1ull << rows[i].p_bits;
      guint64 first = rows[i].base >> rows[i].p_bits, last = (rows[i].base + rows[i].n - 1) >> rows[i].p_bits;
      guint64 distinct = 0;
      gsize n_pages = (gsize) (last - first + 1);
      guint64 *pages = g_new (guint64, n_pages);
      for (gsize j = 0; j < n_pages; j++)
        pages[j] = first + j;
      for (guint l = 0; l <= rows[i].d; l++)
        distinct += (last >> (rows[i].k_bits * l)) - (first >> (rows[i].k_bits * l)) + 1;
      if (expect == 0)
        {
          expect = 1;
          for (guint l = 0; l < rows[i].d; l++)
            {
              guint64 block = page_bytes << (rows[i].k_bits * l);
              expect += (rows[i].n + block - 1) / block;
            }
        }
      assert_int_equal (distinct, expect);
      for (guint p = 0; p < G_N_ELEMENTS (policies); p++)
        {
          g_autofree char *spec = g_strdup_printf ("policy=%s,P=%" G_GUINT64_FORMAT ",K=%u,d=%u,W=%u",
                                                   policies[p], page_bytes, 1u << rows[i].k_bits,
                                                   rows[i].d, rows[i].w);
          g_autoptr (MdlReport) r = run_pages (spec, pages, n_pages);
          if (counter (r, "tc_misses") != expect)
            fail_msg ("scan of %" G_GUINT64_FORMAT " bytes from %" G_GUINT64_FORMAT ", %s: "
                      "expected %" G_GUINT64_FORMAT " misses, got %" G_GUINT64_FORMAT, rows[i].n,
                      rows[i].base, spec, expect, counter (r, "tc_misses"));
        }
      g_free (pages);
    }
}

/* Ensure Lemma 2.8 as corrected: under LRU the misses of a translation equal the layer of the
 * highest path node absent when it starts, plus one (0 when the whole path is cached), at every W
 * including W <= d. */
static void
test_lemma_2_8 (void **state)
{
  guint32 seed = test_seed (28);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 60; trial++)
    {
      guint k_bits = (guint) g_rand_int_range (rand, 1, 4), d = (guint) g_rand_int_range (rand, 2, 6);
      guint w = (guint) g_rand_int_range (rand, 1, 4 * (d + 1));
      g_autofree char *spec = g_strdup_printf ("policy=lru,P=1,K=%u,d=%u,W=%u", 1u << k_bits, d, w);
      Vat *v = vat_or_fail (spec);
      Watch watch = { .outcome = g_string_new (NULL), .root_layer = d };
      guint64 pages[300];
      ref_vat_random_pages (rand, k_bits, d, G_N_ELEMENTS (pages), pages);
      mdl_vat_set_hook (v, watch_hook, &watch);
      for (gsize t = 0; t < G_N_ELEMENTS (pages); t++)
        {
          guint64 before = watch.misses, expect = 0;
          for (guint l = d + 1; l-- > 0;)
            if (!mdl_vat_tc_cached (mdl_vat_tc (v), vat_node_make (l, 0, pages[t] >> (k_bits * l))))
              {
                expect = l + 1;
                break;
              }
          assert_true (mdl_vat_pages (v, &pages[t], 1, NULL));
          if (watch.misses - before != expect)
            fail_msg ("seed %u, %s, access %zu (page %" G_GUINT64_FORMAT "): %" G_GUINT64_FORMAT
                      " misses, Lemma 2.8 says %" G_GUINT64_FORMAT, seed, spec, t, pages[t],
                      watch.misses - before, expect);
        }
      g_string_free (watch.outcome, TRUE);
      mdl_vat_free (v);
    }
  g_rand_free (rand);
}

/* Ensure MIN with W > d never evicts the root once it is cached (Cor. 2.20), and that islru and
 * ismin keep the initial segment property, and all policies their structures, after every single
 * insertion and eviction. */
static void
test_invariants_after_every_operation (void **state)
{
  static const char *const policies[] = { "min", "islru", "ismin", "lru", "fifo", "random", "levels" };
  guint32 seed = test_seed (220);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint trial = 0; trial < 70; trial++)
    {
      const char *policy = policies[trial % G_N_ELEMENTS (policies)];
      guint k_bits = (guint) g_rand_int_range (rand, 1, 4), d = (guint) g_rand_int_range (rand, 2, 6);
      guint w = (guint) g_rand_int_range (rand, d + 2, 4 * (d + 1));
      gboolean vm = trial % 3 == 0;
      g_autofree char *spec = g_strdup_printf ("policy=%s,P=1,K=%u,d=%u,W=%u,vm=%d", policy,
                                               1u << k_bits, d, w, vm);
      Vat *v = vat_or_fail (spec);
      Watch watch = { .outcome = g_string_new (NULL), .check = TRUE, .root_layer = d };
      guint64 pages[200];
      g_autoptr (MdlReport) r = NULL;
      ref_vat_random_pages (rand, k_bits, d, G_N_ELEMENTS (pages), pages);
      mdl_vat_set_hook (v, watch_hook, &watch);
      assert_true (mdl_vat_pages (v, pages, G_N_ELEMENTS (pages), NULL));
      r = mdl_vat_report (v);
      if (watch.check_error)
        fail_msg ("seed %u, %s: %s", seed, spec, watch.check_error->message);
      if (strcmp (policy, "min") == 0 && !vm && watch.root_evictions)
        fail_msg ("seed %u, %s: min evicted the root %" G_GUINT64_FORMAT " times", seed, spec,
                  watch.root_evictions);
      g_string_free (watch.outcome, TRUE);
      mdl_vat_free (v);
    }
  g_rand_free (rand);
}

/* ---- options -------------------------------------------------------------------------------- */

/* Ensure huge=1 is exactly the model with pages of P*K bytes and d-1 levels, and that vm=1 with a
 * TC large enough for everything costs twice the compulsory misses (guest and host trees). */
static void
test_huge_and_vm (void **state)
{
  guint32 seed = test_seed (21);
  GRand *rand = g_rand_new_with_seed (seed);
  guint64 addrs[2000];
  MdlCpuEvent ev[G_N_ELEMENTS (addrs)];
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (addrs) };
  static const char *const policies[] = { "lru", "islru", "min", "ismin" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (addrs); i++)
    ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8,
                            .addr = (guint64) g_rand_int_range (rand, 0, 1 << 21) & ~7ull };
  for (guint p = 0; p < G_N_ELEMENTS (policies); p++)
    {
      g_autofree char *huge = g_strdup_printf ("vat:policy=%s,P=64,K=8,d=5,W=12,huge=1", policies[p]);
      g_autofree char *plain = g_strdup_printf ("vat:policy=%s,P=512,K=8,d=4,W=12", policies[p]);
      g_autofree char *vm = g_strdup_printf ("vat:policy=%s,P=64,K=8,d=5,W=100000,vm=1", policies[p]);
      g_autofree char *one = g_strdup_printf ("vat:policy=%s,P=64,K=8,d=5,W=100000", policies[p]);
      g_autoptr (MdlEngine) eh = mdl_engine_new (huge, NULL), ep = mdl_engine_new (plain, NULL);
      g_autoptr (MdlEngine) ev2 = mdl_engine_new (vm, NULL), e1 = mdl_engine_new (one, NULL);
      g_autoptr (MdlReport) rh = NULL, rp = NULL, rv = NULL, r1 = NULL;
      assert_true (mdl_engine_consume (eh, &b, NULL) && mdl_engine_consume (ep, &b, NULL));
      assert_true (mdl_engine_consume (ev2, &b, NULL) && mdl_engine_consume (e1, &b, NULL));
      rh = mdl_engine_report (eh);
      rp = mdl_engine_report (ep);
      rv = mdl_engine_report (ev2);
      r1 = mdl_engine_report (e1);
      assert_int_equal (counter (rh, "tc_misses"), counter (rp, "tc_misses"));
      assert_int_equal (counter (rh, "tc_misses_l3"), counter (rp, "tc_misses_l3"));
      assert_int_equal (counter (rv, "tc_misses"), 2 * counter (r1, "tc_misses"));
      assert_int_equal (counter (rv, "tc_misses_host"), counter (r1, "tc_misses"));
      assert_int_equal (counter (rv, "compulsory"), 2 * counter (r1, "compulsory"));
      assert_int_equal (counter (r1, "tc_misses"), counter (r1, "compulsory"));
    }
  g_rand_free (rand);
}

/* Ensure phases give sub-reports whose counts add up to the totals, for an online and an offline
 * policy alike, and that an unmatched phase end is a format error. */
static void
test_phases (void **state)
{
  static const char *const specs[] = { "vat:policy=lru,P=16,K=4,d=5,W=8",
                                       "vat:policy=min,P=16,K=4,d=5,W=8",
                                       "vat:policy=ismin,P=16,K=4,d=5,W=8" };
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (specs); s++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (specs[s], NULL);
      MdlCpuEvent ev[100];
      MdlEventBatch b = { .cpu = ev, .n_cpu = 50 };
      MdlMarker begin_a = { .kind = MDL_MARK_PHASE_BEGIN, .name = "a" };
      MdlMarker end_a = { .kind = MDL_MARK_PHASE_END, .name = "a" };
      MdlMarker begin_b = { .kind = MDL_MARK_PHASE_BEGIN, .name = "b" };
      MdlMarker end_b = { .kind = MDL_MARK_PHASE_END, .name = "b" };
      g_autoptr (MdlReport) r = NULL;
      GError *error = NULL;
      for (guint i = 0; i < 100; i++)
        ev[i] = (MdlCpuEvent) { .kind = i % 5 ? MDL_CPU_READ : MDL_CPU_OPS, .size = 4,
                                .addr = i % 5 ? (i * 997u) % 4096 : 2 };
      assert_true (mdl_engine_marker (e, &begin_a, NULL));
      assert_true (mdl_engine_consume (e, &b, NULL));
      assert_true (mdl_engine_marker (e, &end_a, NULL));
      assert_true (mdl_engine_marker (e, &begin_b, NULL));
      b.cpu = ev + 50;
      assert_true (mdl_engine_consume (e, &b, NULL));
      assert_true (mdl_engine_marker (e, &end_b, NULL));
      r = mdl_engine_report (e);
      assert_int_equal (mdl_report_n_phases (r), 2);
      for (const char *const *name = (const char *const[]) { "accesses", "tc_misses", "ram_ops",
                                                              "compulsory", "cost", NULL };
           *name; name++)
        {
          guint64 sum = 0;
          for (guint p = 0; p < 2; p++)
            sum += counter (mdl_report_phase (r, p), *name);
          if (sum != counter (r, *name))
            fail_msg ("%s: phases sum %s to %" G_GUINT64_FORMAT ", total %" G_GUINT64_FORMAT,
                      specs[s], *name, sum, counter (r, *name));
        }
      assert_string_equal (mdl_report_engine (mdl_report_phase (r, 1)), "b");
      assert_false (mdl_engine_marker (e, &end_b, &error));
      assert_mdl_error (error, MDL_ERROR_FORMAT, "phase end \"b\" does not match");
    }
}

/* Ensure nested phases are listed in order of their first begin, as every engine lists them, and
 * that an outer phase holds its inner one (outer: every miss; inner: the second half's 50
 * accesses, some of their misses), for an online and an offline policy. */
static void
test_nested_phases (void **state)
{
  static const char *const specs[] = { "vat:policy=lru,P=16,K=4,d=5,W=8",
                                       "vat:policy=min,P=16,K=4,d=5,W=8" };
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (specs); s++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (specs[s], NULL);
      MdlCpuEvent ev[100];
      MdlEventBatch first = { .cpu = ev, .n_cpu = 50 }, second = { .cpu = ev + 50, .n_cpu = 50 };
      MdlMarker markers[] = { { .kind = MDL_MARK_PHASE_BEGIN, .name = "outer" },
                              { .kind = MDL_MARK_PHASE_BEGIN, .name = "inner" },
                              { .kind = MDL_MARK_PHASE_END, .name = "inner" },
                              { .kind = MDL_MARK_PHASE_END, .name = "outer" } };
      g_autoptr (MdlReport) r = NULL;
      for (guint i = 0; i < 100; i++)
        ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 1, .addr = (i * 997u) % 4096 };
      assert_true (mdl_engine_marker (e, &markers[0], NULL));
      assert_true (mdl_engine_consume (e, &first, NULL));
      assert_true (mdl_engine_marker (e, &markers[1], NULL));
      assert_true (mdl_engine_consume (e, &second, NULL));
      assert_true (mdl_engine_marker (e, &markers[2], NULL));
      assert_true (mdl_engine_marker (e, &markers[3], NULL));
      r = mdl_engine_report (e);
      assert_int_equal (mdl_report_n_phases (r), 2);
      assert_string_equal (mdl_report_engine (mdl_report_phase (r, 0)), "outer");
      assert_string_equal (mdl_report_engine (mdl_report_phase (r, 1)), "inner");
      assert_int_equal (counter (mdl_report_phase (r, 0), "tc_misses"), counter (r, "tc_misses"));
      assert_int_equal (counter (mdl_report_phase (r, 1), "accesses"), 50);
      assert_true (counter (mdl_report_phase (r, 1), "tc_misses") < counter (r, "tc_misses"));
    }
}

/* Ensure mdl_engine_reset() leaves a vat engine as new: the same input then gives the same report,
 * for an online and an offline policy. */
static void
test_reset (void **state)
{
  static const char *const specs[] = { "vat:policy=islru,P=16,K=4,d=5,W=8,curve=1,curve_max=20",
                                       "vat:policy=ismin,P=16,K=4,d=5,W=8,curve=1,curve_max=20" };
  (void) state;
  for (guint s = 0; s < G_N_ELEMENTS (specs); s++)
    {
      g_autoptr (MdlEngine) e = mdl_engine_new (specs[s], NULL);
      MdlCpuEvent ev[300];
      MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
      g_autoptr (MdlReport) first = NULL, second = NULL;
      for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
        ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 2, .addr = (i * 7919u) % 16000 };
      assert_true (mdl_engine_consume (e, &b, NULL));
      first = mdl_engine_report (e);
      mdl_engine_reset (e);
      assert_true (mdl_engine_consume (e, &b, NULL));
      second = mdl_engine_report (e);
      assert_int_equal (mdl_report_n_counters (first), mdl_report_n_counters (second));
      for (guint c = 0; c < mdl_report_n_counters (first); c++)
        if (!mdl_report_counter (first, c)->is_real
            && mdl_report_counter (first, c)->count != mdl_report_counter (second, c)->count)
          fail_msg ("%s: %s is %" G_GUINT64_FORMAT " after reset, %" G_GUINT64_FORMAT " before",
                    specs[s], mdl_report_counter (first, c)->name, mdl_report_counter (second, c)->count,
                    mdl_report_counter (first, c)->count);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_micro_traces),
    cmocka_unit_test (test_machine_preset),
    cmocka_unit_test (test_parameter_errors),
    cmocka_unit_test (test_every_policy_choice_runs),
    cmocka_unit_test (test_address_beyond_tree),
    cmocka_unit_test (test_report_counters),
    cmocka_unit_test (test_compulsory_in_wide_trees),
    cmocka_unit_test (test_straddle_and_repeat),
    cmocka_unit_test (test_fetches_are_not_accesses),
    cmocka_unit_test (test_sequential_scan),
    cmocka_unit_test (test_lemma_2_8),
    cmocka_unit_test (test_invariants_after_every_operation),
    cmocka_unit_test (test_huge_and_vm),
    cmocka_unit_test (test_phases),
    cmocka_unit_test (test_nested_phases),
    cmocka_unit_test (test_reset),
  };
  return cmocka_run_group_tests_name ("vat", tests, NULL, NULL);
}
