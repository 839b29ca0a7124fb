/* The `tlb` engine: an x86-64 data TLB hierarchy and its page walks. Every page an access touches is
 * one translation: first the level-1 data TLB of the page size, then the second-level TLB (shared
 * by 4 KiB and 2 MiB pages, a separate one for 1 GiB pages), then a page walk of the 4-level radix
 * page table (Intel SDM vol. 3A, 4.5). The walk reads one 8-byte entry per level from the root
 * down to the leaf (PML4E, PDPTE, PDE, PTE for 4 KiB pages; it ends at the PDE for 2 MiB and at the
 * PDPTE for 1 GiB), unless a paging-structure cache (SDM 4.10.3) holds a non-leaf entry on the
 * path: the walk then starts below the deepest cached one. Each read is one memory reference.
 *
 * Modelling choices (docs/models/memory.md): one page size per engine (run several engines to
 * compare); sets are indexed by the low bits of the page number (real second-level TLBs hash);
 * TLB levels are independent (a miss fills both), paging-structure caches are fully associative,
 * probed deepest first, and filled with the non-leaf entries a walk reads. Re-translating the page
 * translated last is a level-1 hit that changes no state, so it skips the lookup. The walks of
 * reads flagged MDL_CPU_FLAG_DEPENDENT are also counted apart: the load waits for its walk as for
 * its miss, where an independent load's walk overlaps others (docs/experiments/cpu-model.md). */
#include <models/error.h>

#include "core/budget.h"
#include "models/engines.h"
#include "models/cache/sets.h"

#include <string.h>

#define PAGING_LEVELS 4
#define PAGE_4K 0
#define PAGE_2M 1
#define PAGE_1G 2

/* A walk is counted once, by the level it starts at; the report derives the rest: walks are the
 * sum, a walk reads level l whenever it starts at l or above, and it starts at l - 1 exactly when
 * the level-l paging-structure cache hits. One increment per walk instead of one per level read. */
typedef struct {
  guint64 translations;
  guint64 l1_misses;
  guint64 walk_starts[PAGING_LEVELS + 1];   /* [leaf..4] walks whose first read is at that level */
  guint64 dependent_walks;                  /* walks of MDL_CPU_FLAG_DEPENDENT reads */
  guint64 fetches_ignored;
} TlbCounts;

typedef struct {
  CacheSets l1;                       /* the level-1 data TLB for this engine's page size */
  CacheSets l2;                       /* the second-level TLB for this page size */
  CacheSets psc[PAGING_LEVELS];       /* the paging-structure caches present, deepest first */
  TlbCounts n;
  guint64 last_page;                  /* the page translated last */
  guint64 l2_size_bit;                /* or-ed into second-level tags: bit 62 for 2 MiB pages */
  guint64 l1_entries;
  guint64 l2_entries;
  guint64 psc_entries[PAGING_LEVELS + 1];
  guint n_probes;                     /* entries of psc */
  guint probe_level[PAGING_LEVELS];   /* the paging level of each */
  guint probe_shift[PAGING_LEVELS];   /* page number >> probe_shift: its key */
  guint page_shift;
  guint page_class;                   /* PAGE_4K, PAGE_2M, PAGE_1G */
  guint leaf;                         /* paging level of the leaf entry: 1, 2 or 3 */
  guint l1_assoc;
  guint l2_assoc;
  gboolean has_l2;
} Tlb;

static const MdlParamSpec tlb_params[] = {
  { "page_bytes", MDL_PARAM_UINT, "4096", "page_bytes", 4096, G_GUINT64_CONSTANT (1) << 30, NULL,
    MDL_PARAM_POW2, "page size: 4096, 2M or 1G" },
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, CACHE_POLICY_CHOICES, 0,
    "replacement policy of the TLBs and paging-structure caches" },
  { "seed", MDL_PARAM_UINT, "1", NULL, 0, 0, NULL, 0, "seed of policy random" },
  { "l1_entries", MDL_PARAM_UINT, "64", "l1_dtlb_entries", 1, 1u << 20, NULL, 0,
    "level-1 DTLB entries for 4 KiB pages" },
  { "l1_assoc", MDL_PARAM_UINT, "4", "l1_dtlb_assoc", 0, 1u << 20, NULL, 0,
    "their ways (0: fully associative)" },
  { "l1_huge_entries", MDL_PARAM_UINT, "32", "l1_dtlb_huge_entries", 1, 1u << 20, NULL, 0,
    "level-1 DTLB entries for 2 MiB pages" },
  { "l1_huge_assoc", MDL_PARAM_UINT, "4", "l1_dtlb_huge_assoc", 0, 1u << 20, NULL, 0,
    "their ways (0: fully associative)" },
  { "l1_giant_entries", MDL_PARAM_UINT, "4", "l1_dtlb_giant_entries", 1, 1u << 20, NULL, 0,
    "level-1 DTLB entries for 1 GiB pages" },
  { "l1_giant_assoc", MDL_PARAM_UINT, "4", "l1_dtlb_giant_assoc", 0, 1u << 20, NULL, 0,
    "their ways (0: fully associative)" },
  { "l2_entries", MDL_PARAM_UINT, "1536", "l2_tlb_entries", 0, 1u << 24, NULL, 0,
    "second-level TLB entries for 4 KiB and 2 MiB pages (0: none)" },
  { "l2_assoc", MDL_PARAM_UINT, "12", "l2_tlb_assoc", 0, 1u << 20, NULL, 0,
    "their ways (0: fully associative)" },
  { "l2_giant_entries", MDL_PARAM_UINT, "16", "l2_tlb_giant_entries", 0, 1u << 20, NULL, 0,
    "second-level TLB entries for 1 GiB pages (0: none)" },
  { "l2_giant_assoc", MDL_PARAM_UINT, "4", "l2_tlb_giant_assoc", 0, 1u << 20, NULL, 0,
    "their ways (0: fully associative)" },
  { "pml4e_entries", MDL_PARAM_UINT, "2", "psc_pml4e_entries", 0, 1u << 16, NULL, 0,
    "PML4E paging-structure cache entries, fully associative (0: none)" },
  { "pdpte_entries", MDL_PARAM_UINT, "4", "psc_pdpte_entries", 0, 1u << 16, NULL, 0,
    "PDPTE paging-structure cache entries, fully associative (0: none)" },
  { "pde_entries", MDL_PARAM_UINT, "32", "psc_pde_entries", 0, 1u << 16, NULL, 0,
    "PDE paging-structure cache entries, fully associative (0: none)" },
  { NULL }
};

/* Sets up one array of @entries entries and @assoc ways (0: fully associative). */
static gboolean
array_setup (CacheSets *s, const char *what, guint64 entries, guint64 assoc,
             const CachePolicy *policy, guint64 seed, guint64 *used, GError **error)
{
  guint64 n_sets;
  char *why;
  if (assoc == 0)
    assoc = entries;
  if (entries % assoc != 0 || ((entries / assoc) & (entries / assoc - 1)) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "tlb: %s has %" G_GUINT64_FORMAT " entries "
                   "and %" G_GUINT64_FORMAT " ways, which is %.6g sets; the number of sets must "
                   "be a power of two", what, entries, assoc, (double) entries / (double) assoc);
      return FALSE;
    }
  if ((why = mdl_cache_policy_problem (policy, assoc)) != NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "tlb: %s: %s", what, why);
      g_free (why);
      return FALSE;
    }
  n_sets = entries / assoc;
  /* At most 2^24 entries (the rows' ranges), a few hundred MiB: checked against the budget, which
   * a fuzz target or a small machine may set lower, before anything is allocated. */
  if (!mdl_budget_take ("tlb", what, mdl_cache_sets_bytes (policy, n_sets, (guint) assoc), used,
                        error))
    return FALSE;
  return mdl_cache_sets_init (s, policy, n_sets, (guint) assoc, seed, "tlb", error);
}

static void
tlb_finalize (void *state)
{
  Tlb *t = state;
  mdl_cache_sets_destroy (&t->l1);
  mdl_cache_sets_destroy (&t->l2);
  for (guint k = 0; k < PAGING_LEVELS; k++)
    mdl_cache_sets_destroy (&t->psc[k]);
}

static gboolean
tlb_init (void *state, const MdlParams *params, GError **error)
{
  static const char *const l1_keys[3][2] = {
    { "l1_entries", "l1_assoc" }, { "l1_huge_entries", "l1_huge_assoc" },
    { "l1_giant_entries", "l1_giant_assoc" } };
  static const char *const psc_keys[PAGING_LEVELS + 1] = {
    NULL, NULL, "pde_entries", "pdpte_entries", "pml4e_entries" };
  static const char *const psc_what[PAGING_LEVELS + 1] = {
    NULL, NULL, "the PDE cache", "the PDPTE cache", "the PML4E cache" };
  Tlb *t = state;
  const CachePolicy *policy = mdl_cache_policies[mdl_params_choice (params, "policy")];
  guint64 seed = mdl_params_uint (params, "seed");
  guint64 page = mdl_params_uint (params, "page_bytes");
  guint64 l2_entries, l2_assoc, used = 0;

  if (page != 4096 && page != (2u << 20) && page != (1u << 30))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "tlb: page_bytes=%" G_GUINT64_FORMAT " is "
                   "not an x86-64 page size (valid: 4096, 2M, 1G)", page);
      return FALSE;
    }
  t->page_shift = (guint) __builtin_ctzll (page);
  t->page_class = page == 4096 ? PAGE_4K : page == (2u << 20) ? PAGE_2M : PAGE_1G;
  t->leaf = t->page_class + 1;
  t->last_page = G_MAXUINT64;

  t->l1_entries = mdl_params_uint (params, l1_keys[t->page_class][0]);
  t->l1_assoc = (guint) mdl_params_uint (params, l1_keys[t->page_class][1]);
  if (!array_setup (&t->l1, "the level-1 DTLB", t->l1_entries, t->l1_assoc, policy, seed,
                    &used, error))
    return FALSE;
  t->l1_assoc = t->l1.assoc;

  l2_entries = mdl_params_uint (params, t->page_class == PAGE_1G ? "l2_giant_entries"
                                                                 : "l2_entries");
  l2_assoc = mdl_params_uint (params, t->page_class == PAGE_1G ? "l2_giant_assoc" : "l2_assoc");
  t->has_l2 = l2_entries > 0;
  t->l2_entries = l2_entries;
  if (t->has_l2)
    {
      if (!array_setup (&t->l2, "the second-level TLB", l2_entries, l2_assoc, policy,
                        seed ^ (G_GUINT64_CONSTANT (1) << 32), &used, error))
        return FALSE;
      t->l2_assoc = t->l2.assoc;
    }
  /* The second level holds 4 KiB and 2 MiB pages side by side: bit 62 of the tag (above any page
   * number) tells them apart, and the set index stays the page number's low bits. */
  t->l2_size_bit = (guint64) (t->page_class == PAGE_2M) << 62;
  for (guint l = t->leaf + 1; l <= PAGING_LEVELS; l++)
    {
      t->psc_entries[l] = mdl_params_uint (params, psc_keys[l]);
      if (t->psc_entries[l] == 0)
        continue;
      if (!array_setup (&t->psc[t->n_probes], psc_what[l], t->psc_entries[l], 0, policy,
                        seed ^ ((guint64) l << 33), &used, error))
        return FALSE;
      t->probe_level[t->n_probes] = l;
      t->probe_shift[t->n_probes] = 12 + 9 * (l - 1) - t->page_shift;
      t->n_probes++;
    }
  return TRUE;
}

static void
tlb_reset (void *state)
{
  Tlb *t = state;
  mdl_cache_sets_clear (&t->l1);
  if (t->has_l2)
    mdl_cache_sets_clear (&t->l2);
  for (guint k = 0; k < t->n_probes; k++)
    mdl_cache_sets_clear (&t->psc[k]);
  t->last_page = G_MAXUINT64;
  memset (&t->n, 0, sizeof t->n);
}

/* One lookup in @s: lru inline when @lru (the caller knows every array's policy), else through
 * the policy. */
CACHE_INLINE gboolean
lookup (CacheSets *s, guint64 tag, gboolean lru)
{
  guint64 evicted;
  if (lru)
    return mdl_cache_lru_access (s, tag & s->set_mask, tag, TRUE, &evicted);
  return s->policy->ref (s, tag & s->set_mask, tag, TRUE, &evicted);
}

/* A page walk for @page: entries read from the deepest cached non-leaf entry down to the leaf.
 * The paging-structure caches are probed deepest first and the walk starts below the first hit;
 * the key of the level-l entry is the address bits that select it and every entry above it (for
 * PML4E bits 47..39, for PDE bits 47..21).
 * Why each probe may place its key right away: a cache probed and missed is one below the deepest
 * hit (or there is none), so the walk reads that level's entry and would place it anyway, and
 * the caches are separate, so the order of placing does not matter: one search per cache instead
 * of a probe and then a fill. */
CACHE_INLINE void
walk (Tlb *t, guint64 page, gboolean lru)
{
  guint start = PAGING_LEVELS;
  /* At most three probes: unrolled, +3% on bench/bench-cache's TLB workloads. */
  _Pragma ("GCC unroll 4")
  for (guint k = 0; k < t->n_probes; k++)
    if (lookup (&t->psc[k], page >> t->probe_shift[k], lru))
      {
        start = t->probe_level[k] - 1;
        break;
      }
  t->n.walk_starts[start]++;
}

/* Translates @page, which is not the page translated last, for a read flagged dependent when
 * @dependent. */
CACHE_INLINE void
translate (Tlb *t, guint64 page, gboolean lru, gboolean dependent)
{
  if (lookup (&t->l1, page, lru))
    return;
  t->n.l1_misses++;
  if (t->has_l2 && lookup (&t->l2, page | t->l2_size_bit, lru))
    return;
  walk (t, page, lru);
  t->n.dependent_walks += dependent;
}

/* Translates pages @first..@end of one access: the general case, out of the batch loop (an access
 * straddling pages is rare). */
static __attribute__ ((noinline)) void
translate_pages (Tlb *t, guint64 first, guint64 end, gboolean dependent)
{
  gboolean lru = t->l1.policy == &mdl_cache_lru;
  for (guint64 page = first;; page++)
    {
      t->n.translations++;
      if (page != t->last_page)
        {
          t->last_page = page;
          translate (t, page, lru, dependent);
        }
      if (page == end)
        break;
    }
}

/* The batch loop: an access within one page inline, the others through translate_pages. */
CACHE_INLINE void
consume_cpu (Tlb *t, const MdlEventBatch *b, gboolean lru)
{
  const guint shift = t->page_shift;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e = &b->cpu[i];
      guint64 page = e->addr >> shift, last_byte = e->addr + e->size - 1;
      gboolean dependent = e->kind == MDL_CPU_READ && (e->flags & MDL_CPU_FLAG_DEPENDENT);
      if (!mdl_cpu_is_access (e->kind))
        continue;
      if (e->flags & MDL_CPU_FLAG_FETCH)
        {
          t->n.fetches_ignored++;
          continue;
        }
      if (G_UNLIKELY ((last_byte >> shift) != page))
        {
          translate_pages (t, page, last_byte < e->addr ? G_MAXUINT64 >> shift
                                                        : last_byte >> shift, dependent);
          continue;
        }
      /* Re-translating the page translated last is an L1 hit that changes no state. */
      t->n.translations++;
      if (page == t->last_page)
        continue;
      t->last_page = page;
      translate (t, page, lru, dependent);
    }
}

static gboolean
tlb_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Tlb *t = state;
  (void) error;
  /* Every array of the engine has the same policy: two copies of the loop, lru inline. */
  if (t->l1.policy == &mdl_cache_lru)
    consume_cpu (t, b, TRUE);
  else
    consume_cpu (t, b, FALSE);
  return TRUE;
}

static void
tlb_report (void *state, MdlReport *out)
{
  static const char *const entry_names[PAGING_LEVELS + 1] = {
    NULL, "pte", "pde", "pdpte", "pml4e" };
  Tlb *t = state;
  guint64 refs = 0, walks = 0, walk_refs[PAGING_LEVELS + 1] = { 0 };
  g_autofree char *d_l1 = g_strdup_printf ("translations that missed the level-1 DTLB (%"
                                           G_GUINT64_FORMAT " entries, %u ways)", t->l1_entries,
                                           t->l1_assoc);
  g_autofree char *d_l2 = t->has_l2 ? g_strdup_printf ("level-1 misses that missed the "
                                                       "second-level TLB (%" G_GUINT64_FORMAT
                                                       " entries, %u ways)", t->l2_entries,
                                                       t->l2_assoc)
                                    : g_strdup ("level-1 misses that missed the second-level TLB "
                                                "(there is none: every one)");
  for (guint l = PAGING_LEVELS; l >= t->leaf; l--)
    {
      walks += t->n.walk_starts[l];
      walk_refs[l] = walks;
      refs += walks;
    }
  mdl_report_add_count (out, "translations", "count", "page translations (an access straddling "
                        "pages makes one per page)", NULL, t->n.translations);
  mdl_report_add_count (out, "l1_misses", "count", d_l1, NULL, t->n.l1_misses);
  mdl_report_add_count (out, "l2_misses", "count", d_l2, NULL, walks);
  mdl_report_add_count (out, "walks", "count", "page walks", NULL, walks);
  mdl_report_add_count (out, "dependent_walks", "count", "page walks of dependent loads (the "
                        "address came from an earlier load: the load waits for its walk)", NULL,
                        t->n.dependent_walks);
  mdl_report_add_count (out, "walk_refs", "count", "memory references of page walks (one per "
                        "paging-structure entry read)", NULL, refs);
  for (guint l = PAGING_LEVELS; l >= 1; l--)
    {
      g_autofree char *name = g_strdup_printf ("walk_refs_%s", entry_names[l]);
      g_autofree char *desc = g_strdup_printf ("%s entries read by walks", entry_names[l]);
      if (l < t->leaf)
        continue;
      mdl_report_add_count (out, name, "count", desc, NULL, walk_refs[l]);
    }
  for (guint l = PAGING_LEVELS; l > t->leaf; l--)
    {
      g_autofree char *name = g_strdup_printf ("psc_%s_hits", entry_names[l]);
      g_autofree char *desc = g_strdup_printf ("walks that started below a cached %s (%"
                                               G_GUINT64_FORMAT "-entry paging-structure cache)",
                                               entry_names[l], t->psc_entries[l]);
      mdl_report_add_count (out, name, "count", desc, NULL, t->n.walk_starts[l - 1]);
    }
  mdl_report_add_count (out, "fetches_ignored", "count", "instruction fetch records skipped (no "
                        "instruction TLB is modelled)", NULL, t->n.fetches_ignored);
  mdl_report_add_real (out, "walk_refs_per_walk", "ratio", "walk_refs / walks", NULL,
                       walks ? (double) refs / (double) walks : 0.0);
}

const MdlEngineClass mdl_tlb_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "tlb",
  .summary = "x86-64 data TLBs (4K, 2M or 1G pages), paging-structure caches, page-walk references",
  .params = tlb_params,
  .state_size = sizeof (Tlb),
  .init = tlb_init,
  .consume = tlb_consume,
  .report = tlb_report,
  .reset = tlb_reset,
  .finalize = tlb_finalize,
};
