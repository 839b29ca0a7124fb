/* Slow, obviously correct references of the hardware memory engines (src/models/cache.c, tlb.c,
 * em.c), for agreement tests over random traces. Every set is an explicit array of ways with a
 * valid bit, a last-use time and a fill time; a replacement policy is the rule written out (lru:
 * the smallest last-use time; fifo: the smallest fill time; random: the way the same splitmix64
 * draw names; plru: a tree of booleans); the classifier is a linear array with times plus a hash
 * set of lines seen. Nothing is shared with the engines' code. The rules are those of
 * docs/models/memory.md. */
#ifndef TESTS_CACHE_REF_H
#define TESTS_CACHE_REF_H

#include <glib.h>

typedef enum {
  REF_CACHE_LRU = 0,
  REF_CACHE_FIFO,
  REF_CACHE_RANDOM,
  REF_CACHE_PLRU,
} RefCachePolicy;

#define REF_CACHE_N_POLICIES (REF_CACHE_PLRU + 1)

/* The spec words, in RefCachePolicy order, which is also that of the engines' table
 * (test-sets.c checks). */
extern const char *const ref_cache_policy_names[REF_CACHE_N_POLICIES];

/* One set-associative array. */
typedef struct {
  guint64 *tag;       /* [n_sets * assoc] */
  gboolean *valid;
  guint64 *used;      /* last-use time */
  guint64 *filled;    /* fill time */
  gboolean *tree;     /* [n_sets * assoc] plru: node k of set s at s * assoc + k, k in 1..assoc-1 */
  guint64 n_sets;
  guint64 assoc;
  guint64 clock;
  guint64 rng;
  RefCachePolicy policy;
} RefArray;

void ref_array_init (RefArray *a, RefCachePolicy policy, guint64 n_sets, guint64 assoc,
                     guint64 seed);
void ref_array_free (RefArray *a);
/* Looks @tag up; a hit updates the policy; a miss with @allocate places it. *@evicted: the valid
 * tag replaced, or G_MAXUINT64. Returns TRUE on a hit. */
gboolean ref_array_access (RefArray *a, guint64 tag, gboolean allocate, guint64 *evicted);
/* Removes @tag; TRUE when it was present. */
gboolean ref_array_remove (RefArray *a, guint64 tag);

/* ---- cache ---- */

typedef struct {
  guint64 size;
  guint64 assoc;       /* 0: fully associative */
  guint64 line;
  RefCachePolicy policy;
} RefLevelConfig;

typedef struct {
  RefLevelConfig data[4];
  guint n_data;
  gboolean has_icache;
  RefLevelConfig icache;
  guint64 seed;
  gboolean write_allocate;
  gboolean inclusive;
  gboolean classify;
  gboolean cachegrind;
} RefCacheConfig;

typedef struct {
  guint64 refs[3];     /* read, write, fetch */
  guint64 misses[3];
  guint64 dependent_misses;   /* misses of dependent reads, at this level */
  guint64 chase_misses;       /* of those, the chase reads' */
  guint64 evictions;
  guint64 compulsory;
  guint64 capacity;
  guint64 conflict;
  guint64 back_invalidations;
} RefLevelCounts;

typedef struct RefCache RefCache;

RefCache *ref_cache_new (const RefCacheConfig *config);
void ref_cache_free (RefCache *c);
/* One CPU record: @kind 0 read, 1 write, 2 modify; @fetch for a fetch record (a read);
 * @flags the record's MDL_CPU_FLAG_DEPENDENT and MDL_CPU_FLAG_CHASE (a dependent read's misses
 * are also counted apart, and a chase read's again). */
void ref_cache_access (RefCache *c, guint kind, gboolean fetch, guint flags, guint64 addr,
                       guint size);
/* Level @i: data levels 0..n_data-1, then the instruction cache. */
const RefLevelCounts *ref_cache_level (const RefCache *c, guint i);
/* The engine spec that describes @config ("cache:levels=...,..."). (transfer full) */
char *ref_cache_spec (const RefCacheConfig *config);

/* ---- tlb ---- */

typedef struct {
  guint64 page_bytes;          /* 4096, 2M or 1G */
  guint64 l1_entries, l1_assoc;
  guint64 l2_entries, l2_assoc; /* 0 entries: none */
  guint64 psc[5];              /* [2] PDE, [3] PDPTE, [4] PML4E cache entries */
  RefCachePolicy policy;
  guint64 seed;
} RefTlbConfig;

typedef struct {
  guint64 translations;
  guint64 l1_misses;
  guint64 l2_misses;
  guint64 walks;
  guint64 walk_refs[5];        /* [1] PTE .. [4] PML4E */
  guint64 psc_hits[5];
} RefTlbCounts;

typedef struct RefTlb RefTlb;

RefTlb *ref_tlb_new (const RefTlbConfig *config);
void ref_tlb_free (RefTlb *t);
void ref_tlb_access (RefTlb *t, guint64 addr, guint size);
const RefTlbCounts *ref_tlb_counts (const RefTlb *t);

/* ---- em ---- */

typedef struct {
  guint64 misses;
  guint64 writebacks;
  guint64 hits;
} RefEmCounts;

/* The ideal cache over block references @blocks[0..n) (@writes[t] marks a write) with @capacity
 * blocks: lru, or opt (Belady: evict the block needed furthest in the future, found by scanning
 * ahead). For opt only misses and hits are defined (writebacks depend on how ties break). */
void ref_em_run (const guint64 *blocks, const gboolean *writes, gsize n, guint64 capacity,
                 gboolean opt, RefEmCounts *out);

#endif
