/* Tests of the `tlb` engine (src/models/tlb.c): translations, TLB misses, page walks and their
 * memory references per paging level with 4 KiB, 2 MiB and 1 GiB pages, worked out by hand; the
 * x86-64 preset; parameter errors; and agreement with the slow reference (tests/ref/) on random
 * configurations and traces. */
#include "helpers.h"
#include "ref/cache-ref.h"

#include <string.h>

static void
feed_addrs (MdlEngine *e, const guint64 *addrs, gsize n, guint size)
{
  g_autoptr (GError) error = NULL;
  g_autofree MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
  MdlEventBatch b = { .cpu = ev, .n_cpu = n };
  for (gsize i = 0; i < n; i++)
    ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = (guint16) size, .addr = addrs[i] };
  if (!mdl_engine_consume (e, &b, &error))
    fail_msg ("consume: %s", error->message);
}

static guint64
count_of (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  const MdlCounter *c = mdl_report_lookup (r, name);
  if (c == NULL)
    fail_msg ("%s: no counter %s", mdl_engine_spec (e), name);
  return c->count;
}

#define GIB (G_GUINT64_CONSTANT (1) << 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)

/* A tiny TLB so that every step can be followed: 2 fully associative L1 entries, 8 in L2, and
 * paging-structure caches of 2 entries each. */
#define SMALL "l1_entries=2,l1_assoc=0,l1_huge_entries=2,l1_huge_assoc=0,l1_giant_entries=2," \
              "l1_giant_assoc=0,l2_entries=8,l2_assoc=0,l2_giant_entries=8,l2_giant_assoc=0," \
              "pml4e_entries=2,pdpte_entries=2,pde_entries=2"

/* Ensure 4 KiB walks read PML4E, PDPTE, PDE and PTE, minus what the caches hold. By hand:
 *   0x0          cold: 4 reads (pml4e 0, pdpte 0, pde 0 are cached after)
 *   0x1000       PDE cache hit (key 0): 1 read (PTE)
 *   0x0          L1 hit
 *   0x200000     PDE key 1 misses, PDPTE key 0 hits: 2 reads (PDE, PTE)
 *   0x40000000   PDE, PDPTE miss, PML4E key 0 hits: 3 reads
 *   2^39         all miss: 4 reads
 * walks 5, reads 14: pml4e 2, pdpte 3, pde 4, pte 5; each cache hit once. */
static void
test_walks_4k (void **state)
{
  static const guint64 addrs[] = { 0, 0x1000, 0, 2 * MIB, GIB, G_GUINT64_CONSTANT (1) << 39 };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:page_bytes=4096," SMALL);
  (void) state;
  feed_addrs (e, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (e, "translations"), 6);
  assert_int_equal (count_of (e, "l1_misses"), 5);
  assert_int_equal (count_of (e, "l2_misses"), 5);
  assert_int_equal (count_of (e, "walks"), 5);
  assert_int_equal (count_of (e, "walk_refs"), 14);
  assert_int_equal (count_of (e, "walk_refs_pml4e"), 2);
  assert_int_equal (count_of (e, "walk_refs_pdpte"), 3);
  assert_int_equal (count_of (e, "walk_refs_pde"), 4);
  assert_int_equal (count_of (e, "walk_refs_pte"), 5);
  assert_int_equal (count_of (e, "psc_pde_hits"), 1);
  assert_int_equal (count_of (e, "psc_pdpte_hits"), 1);
  assert_int_equal (count_of (e, "psc_pml4e_hits"), 1);
}

/* Ensure 2 MiB walks end at the PDE (no PDE cache, no PTE). By hand:
 *   0x0          cold: 3 reads (PML4E, PDPTE, PDE)
 *   0x200000     PDPTE key 0 hits: 1 read (PDE)
 *   0x40000000   PDPTE key 1 misses, PML4E hits: 2 reads
 * reads 6: pml4e 1, pdpte 2, pde 3. */
static void
test_walks_2m (void **state)
{
  static const guint64 addrs[] = { 0, 2 * MIB, GIB };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:page_bytes=2M," SMALL);
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  feed_addrs (e, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (e, "walks"), 3);
  assert_int_equal (count_of (e, "walk_refs"), 6);
  assert_int_equal (count_of (e, "walk_refs_pml4e"), 1);
  assert_int_equal (count_of (e, "walk_refs_pdpte"), 2);
  assert_int_equal (count_of (e, "walk_refs_pde"), 3);
  r = mdl_engine_report (e);
  assert_null (mdl_report_lookup (r, "walk_refs_pte"));
  assert_null (mdl_report_lookup (r, "psc_pde_hits"));
}

/* Ensure 1 GiB walks end at the PDPTE. By hand: 0 cold (2 reads); 1 GiB: PML4E hit (1 read);
 * 2^39: cold (2 reads). */
static void
test_walks_1g (void **state)
{
  static const guint64 addrs[] = { 0, GIB, G_GUINT64_CONSTANT (1) << 39 };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:page_bytes=1G," SMALL);
  (void) state;
  feed_addrs (e, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (e, "walks"), 3);
  assert_int_equal (count_of (e, "walk_refs"), 5);
  assert_int_equal (count_of (e, "walk_refs_pml4e"), 2);
  assert_int_equal (count_of (e, "walk_refs_pdpte"), 3);
  assert_int_equal (count_of (e, "psc_pml4e_hits"), 1);
}

/* Ensure the walks of dependent reads are counted apart. Pages 0 1 2 0 3 with 2 L1 entries and
 * no second level, the reads of pages 1 and 3 and the second of 0 flagged dependent, a write to
 * page 4 as well: every access misses L1 and walks (the second 0 too: 2 evicted it), so 6 walks,
 * of which the dependent reads' are pages 1, 0 and 3: 3; the write is never dependent. */
static void
test_dependent_walks_apart (void **state)
{
  static const struct { guint kind; guint flags; guint64 page; } trace[] = {
    { MDL_CPU_READ, 0, 0 }, { MDL_CPU_READ, MDL_CPU_FLAG_DEPENDENT, 1 }, { MDL_CPU_READ, 0, 2 },
    { MDL_CPU_READ, MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE, 0 },
    { MDL_CPU_READ, MDL_CPU_FLAG_DEPENDENT, 3 }, { MDL_CPU_WRITE, 0, 4 },
  };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:l2_entries=0,l1_entries=2,l1_assoc=0");
  MdlCpuEvent ev[G_N_ELEMENTS (trace)];
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (trace) };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (trace); i++)
    ev[i] = (MdlCpuEvent) { .kind = (guint8) trace[i].kind, .flags = (guint8) trace[i].flags,
                            .size = 8, .addr = trace[i].page * 4096 };
  assert_true (mdl_engine_consume (e, &b, NULL));
  assert_int_equal (count_of (e, "walks"), 6);
  assert_int_equal (count_of (e, "dependent_walks"), 3);
}

/* Ensure the second level catches what the first drops. Pages 0 1 2 0 with 2 L1 entries: all four
 * miss L1 (2 evicts 0), but the last 0 hits L2: 3 walks. */
static void
test_second_level_catches (void **state)
{
  static const guint64 addrs[] = { 0, 0x1000, 0x2000, 0 };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:" SMALL);
  g_autoptr (MdlEngine) none = test_engine_new ("tlb:l2_entries=0,l1_entries=2,l1_assoc=0");
  (void) state;
  feed_addrs (e, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (e, "l1_misses"), 4);
  assert_int_equal (count_of (e, "l2_misses"), 3);
  assert_int_equal (count_of (e, "walks"), 3);
  /* Without a second level every L1 miss walks. */
  feed_addrs (none, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (none, "walks"), 4);
  assert_int_equal (count_of (none, "l2_misses"), 4);
}

/* Ensure an access straddling a page boundary translates both pages, and a repeat is a hit. */
static void
test_straddle_translates_both (void **state)
{
  static const guint64 addrs[] = { 0xffc, 0xffc };
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:" SMALL);
  (void) state;
  feed_addrs (e, addrs, G_N_ELEMENTS (addrs), 8);
  assert_int_equal (count_of (e, "translations"), 4);
  assert_int_equal (count_of (e, "l1_misses"), 2);
}

/* Ensure fetch records are skipped and counted, and op counts ignored. */
static void
test_fetches_skipped (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("tlb");
  MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 4, .addr = 0x400000 },
    { .kind = MDL_CPU_OPS, .addr = 7 },
    { .kind = MDL_CPU_WRITE, .size = 4, .addr = 0x1000 },
  };
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
  (void) state;
  assert_true (mdl_engine_consume (e, &b, NULL));
  assert_int_equal (count_of (e, "translations"), 1);
  assert_int_equal (count_of (e, "fetches_ignored"), 1);
}

/* Ensure the x86-64 preset gives the documented Skylake-class sizes. */
static void
test_preset_sizes (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("tlb:machine=x86-64");
  g_autoptr (MdlEngine) h = test_engine_new ("tlb:machine=x86-64,page_bytes=2M");
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  g_autoptr (MdlReport) rh = mdl_engine_report (h);
  (void) state;
  assert_non_null (strstr (mdl_report_lookup (r, "l1_misses")->description, "64 entries, 4 ways"));
  assert_non_null (strstr (mdl_report_lookup (r, "l2_misses")->description, "1536 entries, 12 ways"));
  assert_non_null (strstr (mdl_report_lookup (r, "psc_pde_hits")->description, "32-entry"));
  assert_non_null (strstr (mdl_report_lookup (rh, "l1_misses")->description, "32 entries, 4 ways"));
}

static const struct {
  const char *spec;
  const char *needle;
} bad_specs[] = {
  { "tlb:page_bytes=8192", "not an x86-64 page size" },
  { "tlb:l1_entries=48,l1_assoc=4", "power of two" },
  { "tlb:policy=plru,l2_entries=1536,l2_assoc=12", "power-of-two associativity" },
  { "tlb:page_bytes=1000", "out of range" },
  { "tlb:page_bytes=12288", "power of two" },
};

/* Ensure bad specs fail with MDL_ERROR_PARAM naming the problem. */
static void
test_bad_specs (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_specs); i++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (bad_specs[i].spec, &error);
      if (e)
        fail_msg ("%s: accepted", bad_specs[i].spec);
      assert_mdl_error (error, MDL_ERROR_PARAM, bad_specs[i].needle);
    }
}

/* Ensure the engine and the reference agree on every counter, over random geometries, policies,
 * page sizes and traces mixing near and far addresses. */
static void
test_agrees_with_reference (void **state)
{
  static const guint64 pages[] = { 4096, 2 << 20, 1 << 30 };
  guint32 seed = test_seed (4242);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 200; iter++)
    {
      RefTlbConfig cfg = { 0 };
      g_autofree char *spec = NULL;
      g_autoptr (MdlEngine) e = NULL;
      RefTlb *ref;
      guint n = (guint) g_rand_int_range (rand, 100, 3000);
      g_autofree guint64 *addrs = g_new (guint64, n);
      guint64 spans[3];
      const char *l1_key, *l2_key;
      cfg.page_bytes = pages[g_rand_int_range (rand, 0, 3)];
      cfg.policy = (RefCachePolicy) g_rand_int_range (rand, 0, REF_CACHE_N_POLICIES);
      cfg.l1_assoc = (guint64) 1 << g_rand_int_range (rand, 0, 3);
      cfg.l1_entries = cfg.l1_assoc << g_rand_int_range (rand, 0, 3);
      cfg.l2_entries = g_rand_boolean (rand) ? 0 : cfg.l1_entries << g_rand_int_range (rand, 1, 3);
      cfg.l2_assoc = cfg.l2_entries ? cfg.l2_entries >> g_rand_int_range (rand, 0, 2) : 0;
      for (guint l = 2; l <= 4; l++)
        cfg.psc[l] = g_rand_int_range (rand, 0, 3) == 0
                       ? 0 : (guint64) 1 << g_rand_int_range (rand, 0, 6);
      cfg.seed = g_rand_int (rand);
      l1_key = cfg.page_bytes == 4096 ? "l1" : cfg.page_bytes == (2u << 20) ? "l1_huge" : "l1_giant";
      l2_key = cfg.page_bytes == (1u << 30) ? "l2_giant" : "l2";
      spec = g_strdup_printf ("tlb:page_bytes=%" G_GUINT64_FORMAT ",policy=%s,seed=%" G_GUINT64_FORMAT
                              ",%s_entries=%" G_GUINT64_FORMAT ",%s_assoc=%" G_GUINT64_FORMAT
                              ",%s_entries=%" G_GUINT64_FORMAT ",%s_assoc=%" G_GUINT64_FORMAT
                              ",pde_entries=%" G_GUINT64_FORMAT ",pdpte_entries=%" G_GUINT64_FORMAT
                              ",pml4e_entries=%" G_GUINT64_FORMAT, cfg.page_bytes,
                              ref_cache_policy_names[cfg.policy], cfg.seed, l1_key, cfg.l1_entries,
                              l1_key, cfg.l1_assoc, l2_key, cfg.l2_entries, l2_key, cfg.l2_assoc,
                              cfg.psc[2], cfg.psc[3], cfg.psc[4]);
      e = test_engine_new (spec);
      ref = ref_tlb_new (&cfg);
      /* Addresses at three scales: within a few pages, within a few GiB, anywhere in 48 bits. */
      spans[0] = cfg.page_bytes * 8;
      spans[1] = 8 * GIB;
      spans[2] = G_GUINT64_CONSTANT (1) << 48;
      for (guint k = 0; k < n; k++)
        {
          guint64 span = spans[g_rand_int_range (rand, 0, 3)];
          addrs[k] = ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand)) % span;
          ref_tlb_access (ref, addrs[k], 8);
        }
      feed_addrs (e, addrs, n, 8);
      {
        const RefTlbCounts *c = ref_tlb_counts (ref);
        static const char *const level_names[] = { NULL, "pte", "pde", "pdpte", "pml4e" };
        guint leaf = cfg.page_bytes == 4096 ? 1 : cfg.page_bytes == (2u << 20) ? 2 : 3;
        const struct { const char *name; guint64 want; } checks[] = {
          { "translations", c->translations }, { "l1_misses", c->l1_misses },
          { "l2_misses", cfg.l2_entries ? c->l2_misses : c->l1_misses }, { "walks", c->walks } };
        guint nc = G_N_ELEMENTS (checks);
        for (guint l = leaf; l <= 4; l++)
          {
            char *name = g_strdup_printf ("walk_refs_%s", level_names[l]);
            if (count_of (e, name) != c->walk_refs[l])
              fail_msg ("seed %u, iteration %u, %s: %s: engine %" G_GUINT64_FORMAT ", reference %"
                        G_GUINT64_FORMAT, seed, iter, spec, name, count_of (e, name), c->walk_refs[l]);
            g_free (name);
            if (l > leaf)
              {
                name = g_strdup_printf ("psc_%s_hits", level_names[l]);
                if (count_of (e, name) != c->psc_hits[l])
                  fail_msg ("seed %u, iteration %u, %s: %s: engine %" G_GUINT64_FORMAT ", reference %"
                            G_GUINT64_FORMAT, seed, iter, spec, name, count_of (e, name),
                            c->psc_hits[l]);
                g_free (name);
              }
          }
        for (guint k = 0; k < nc; k++)
          if (count_of (e, checks[k].name) != checks[k].want)
            fail_msg ("seed %u, iteration %u, %s: %s: engine %" G_GUINT64_FORMAT ", reference %"
                      G_GUINT64_FORMAT, seed, iter, spec, checks[k].name,
                      count_of (e, checks[k].name), checks[k].want);
      }
      ref_tlb_free (ref);
    }
  g_rand_free (rand);
}

/* The spec of @cfg. (transfer full) */
static char *
spec_of (const RefTlbConfig *cfg)
{
  const char *l1_key = cfg->page_bytes == 4096 ? "l1" : cfg->page_bytes == (2u << 20) ? "l1_huge"
                                                                                      : "l1_giant";
  const char *l2_key = cfg->page_bytes == (1u << 30) ? "l2_giant" : "l2";
  return g_strdup_printf ("tlb:page_bytes=%" G_GUINT64_FORMAT ",policy=%s,seed=%" G_GUINT64_FORMAT
                          ",%s_entries=%" G_GUINT64_FORMAT ",%s_assoc=%" G_GUINT64_FORMAT
                          ",%s_entries=%" G_GUINT64_FORMAT ",%s_assoc=%" G_GUINT64_FORMAT
                          ",pde_entries=%" G_GUINT64_FORMAT ",pdpte_entries=%" G_GUINT64_FORMAT
                          ",pml4e_entries=%" G_GUINT64_FORMAT, cfg->page_bytes,
                          ref_cache_policy_names[cfg->policy], cfg->seed, l1_key, cfg->l1_entries,
                          l1_key, cfg->l1_assoc, l2_key, cfg->l2_entries, l2_key, cfg->l2_assoc,
                          cfg->psc[2], cfg->psc[3], cfg->psc[4]);
}

/* Fails unless counter @name of @e is @want. */
static void
check_count (MdlEngine *e, const char *name, guint64 want, guint32 seed, guint iter)
{
  guint64 got = count_of (e, name);
  if (got != want)
    fail_msg ("seed %u, iteration %u, %s: %s: engine %" G_GUINT64_FORMAT ", reference %"
              G_GUINT64_FORMAT, seed, iter, mdl_engine_spec (e), name, got, want);
}

/* Fails unless every counter of @e equals the reference's. */
static void
assert_counts_match (MdlEngine *e, const RefTlbCounts *c, const RefTlbConfig *cfg, guint32 seed,
                     guint iter)
{
  static const char *const level_names[] = { NULL, "pte", "pde", "pdpte", "pml4e" };
  guint leaf = cfg->page_bytes == 4096 ? 1 : cfg->page_bytes == (2u << 20) ? 2 : 3;
  guint64 refs = 0;
  check_count (e, "translations", c->translations, seed, iter);
  check_count (e, "l1_misses", c->l1_misses, seed, iter);
  check_count (e, "l2_misses", cfg->l2_entries ? c->l2_misses : c->l1_misses, seed, iter);
  check_count (e, "walks", c->walks, seed, iter);
  for (guint l = leaf; l <= 4; l++)
    {
      g_autofree char *refs_name = g_strdup_printf ("walk_refs_%s", level_names[l]);
      g_autofree char *hits_name = g_strdup_printf ("psc_%s_hits", level_names[l]);
      refs += c->walk_refs[l];
      check_count (e, refs_name, c->walk_refs[l], seed, iter);
      if (l > leaf)
        check_count (e, hits_name, c->psc_hits[l], seed, iter);
    }
  check_count (e, "walk_refs", refs, seed, iter);
}

/* Ensure the engine and the reference agree on every counter where the geometries are those of
 * real parts and beyond: the x86-64 preset's sizes, a fully associative level-1 TLB, and
 * paging-structure caches of up to 100 entries (several groups of fingerprints, the filter of wide
 * fully associative arrays); with accesses of any size (straddling up to 17 pages, or wrapping past
 * the top of the address space) at addresses near each other, within 1 GiB or 64 GiB, anywhere in
 * 48 bits, and at the very top. */
static void
test_large_and_straddling_agree_with_reference (void **state)
{
  static const guint64 pages[] = { 4096, 2 << 20, 1 << 30 };
  static const struct { guint64 entries, assoc; } l1s[] = {
    { 64, 4 }, { 32, 4 }, { 4, 4 }, { 64, 0 }, { 48, 3 }, { 16, 16 } };
  static const struct { guint64 entries, assoc; } l2s[] = {
    { 1536, 12 }, { 16, 4 }, { 0, 0 }, { 256, 0 }, { 2048, 16 }, { 96, 6 } };
  static const guint64 pscs[] = { 0, 1, 2, 4, 16, 32, 64, 100 };
  guint32 seed = test_seed (9090);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 60; iter++)
    {
      RefTlbConfig cfg = { 0 };
      guint a1 = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (l1s));
      guint a2 = (guint) g_rand_int_range (rand, 0, G_N_ELEMENTS (l2s));
      guint n = (guint) g_rand_int_range (rand, 2000, 20000);
      g_autofree MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
      g_autofree char *spec = NULL;
      g_autoptr (MdlEngine) e = NULL;
      g_autoptr (GError) error = NULL;
      MdlEventBatch b = { .cpu = ev, .n_cpu = n };
      guint64 spans[4];
      RefTlb *ref;
      cfg.page_bytes = pages[g_rand_int_range (rand, 0, 3)];
      cfg.policy = (RefCachePolicy) g_rand_int_range (rand, 0, REF_CACHE_N_POLICIES);
      cfg.l1_entries = l1s[a1].entries;
      cfg.l1_assoc = l1s[a1].assoc;
      cfg.l2_entries = l2s[a2].entries;
      cfg.l2_assoc = l2s[a2].assoc;
      for (guint l = 2; l <= 4; l++)
        cfg.psc[l] = pscs[g_rand_int_range (rand, 0, G_N_ELEMENTS (pscs))];
      if (cfg.policy == REF_CACHE_PLRU)
        {
          /* plru needs a power of two of at most 64 ways. */
          cfg.l1_entries = 64, cfg.l1_assoc = 4;
          cfg.l2_entries = cfg.l2_entries ? 1024 : 0, cfg.l2_assoc = 8;
          for (guint l = 2; l <= 4; l++)
            cfg.psc[l] = MIN (cfg.psc[l] == 100 ? 64 : cfg.psc[l], 64);
          if (cfg.psc[4] == 16)
            cfg.psc[4] = 8;
        }
      cfg.seed = g_rand_int (rand);
      spec = spec_of (&cfg);
      e = test_engine_new (spec);
      ref = ref_tlb_new (&cfg);
      spans[0] = cfg.page_bytes * 64;
      spans[1] = GIB;
      spans[2] = 64 * GIB;
      spans[3] = G_GUINT64_CONSTANT (1) << 48;
      for (guint k = 0; k < n; k++)
        {
          guint which = (guint) g_rand_int_range (rand, 0, 5);
          guint64 r = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
          guint size = g_rand_int_range (rand, 0, 8) ? 8 : (guint) g_rand_int_range (rand, 1, 65536);
          guint64 addr = which < 4 ? r % spans[which] : G_MAXUINT64 - r % (4 * cfg.page_bytes);
          ev[k] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = (guint16) size, .addr = addr };
          ref_tlb_access (ref, addr, size);
        }
      if (!mdl_engine_consume (e, &b, &error))
        fail_msg ("%s: consume: %s", spec, error->message);
      assert_counts_match (e, ref_tlb_counts (ref), &cfg, seed, iter);
      ref_tlb_free (ref);
    }
  g_rand_free (rand);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_walks_4k),
    cmocka_unit_test (test_walks_2m),
    cmocka_unit_test (test_walks_1g),
    cmocka_unit_test (test_second_level_catches),
    cmocka_unit_test (test_dependent_walks_apart),
    cmocka_unit_test (test_straddle_translates_both),
    cmocka_unit_test (test_fetches_skipped),
    cmocka_unit_test (test_preset_sizes),
    cmocka_unit_test (test_bad_specs),
    cmocka_unit_test (test_agrees_with_reference),
    cmocka_unit_test (test_large_and_straddling_agree_with_reference),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
