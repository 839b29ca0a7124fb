/* Private to the hardware engines (cache.c, tlb.c): a set-associative array of tags and the
 * replacement policies that run it, one file each (lru.c, fifo.c, random.c, plru.c).
 *
 * A tag is the whole line (or page) number, as Cachegrind keeps it: the set index bits are part of
 * it, which costs nothing and saves a shift. Empty ways hold CACHE_INVALID, which no line number
 * reaches (lines are at least 4 bytes, so line numbers stay below 2^62). Every policy fills an empty
 * way before it evicts anything. The policies' exact rules,
 * which the tests derive their micro-traces from, are in docs/models/memory.md. */
#ifndef MDL_CACHE_SETS_H
#define MDL_CACHE_SETS_H

#include <glib.h>

#define CACHE_INVALID G_MAXUINT64

/* The lookups below are forced inline: left to itself GCC makes one out-of-line copy of
 * mdl_cache_sets_ref per file and calls it from the engines' loops. */
#define CACHE_INLINE static inline __attribute__ ((always_inline))

typedef struct CacheSets CacheSets;

/* CachePolicy flags. */
#define CACHE_POLICY_POW2_ASSOC 0x1   /* the associativity must be a power of two */

/**
 * CachePolicy: one replacement policy.
 * @name: as spelled in specs (`lru`).
 * @flags: CACHE_POLICY_*.
 * @max_assoc: the largest associativity it supports; 0: no limit.
 * @ref: looks @tag up in set @set. A hit updates the policy's state and returns TRUE. A miss with
 *   @allocate places @tag, into an empty way if there is one, else over the policy's victim, and
 *   sets *@evicted to the tag it replaced (CACHE_INVALID for an empty way); a miss without
 *   @allocate changes nothing and sets *@evicted to CACHE_INVALID.
 * @invalidate: removes @tag from set @set; TRUE when it was there.
 */
typedef struct {
  const char *name;
  guint flags;
  guint max_assoc;
  gboolean (*ref) (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted);
  gboolean (*invalidate) (CacheSets *s, guint64 set, guint64 tag);
} CachePolicy;

/**
 * CacheSets: the state of one set-associative array.
 * @tags: [n_sets * assoc], set s at s * assoc.
 * @head: [n_sets] lru and fifo: each set is a ring in recency (fifo: insertion) order starting at
 *   way head[s], the most recent (newest); empty ways are at its end. A miss then places its tag
 *   over the last way and makes it the head: O(1), no shifting. NULL for the other policies.
 * @filter: lru and fifo arrays of one set and at least CACHE_FILTER_MIN_ASSOC ways (fully
 *   associative ones, whose search is long): resident tags per hash bucket of the tag, 16 buckets
 *   per way so that a miss is rarely taken for a possible hit, letting most misses skip the search;
 *   NULL otherwise.
 * @bits: [n_sets] plru's tree bits; NULL for the other policies.
 * @rng: random's generator state (splitmix64).
 */
struct CacheSets {
  guint64 *tags;
  guint32 *head;
  guint32 *filter;
  guint64 *bits;
  const CachePolicy *policy;
  guint64 set_mask;     /* n_sets - 1 */
  guint64 rng;
  guint64 rng_seed;
  guint assoc;
  guint filter_shift;   /* 64 - log2 of the filter's buckets */
};

#define CACHE_FILTER_MIN_ASSOC 8

CACHE_INLINE guint
mdl_cache_filter_bucket (const CacheSets *s, guint64 tag)
{
  return (guint) ((tag * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> s->filter_shift);
}

extern const CachePolicy mdl_cache_lru;
extern const CachePolicy mdl_cache_fifo;
extern const CachePolicy mdl_cache_random;
extern const CachePolicy mdl_cache_plru;

/* The policies in the order of the choice string CACHE_POLICY_CHOICES. */
#define CACHE_POLICY_CHOICES "lru|fifo|random|plru"
extern const CachePolicy *const mdl_cache_policies[4];

/* Checks that @policy can run @assoc ways ("plru needs a power-of-two associativity of at most 64,
 * got 12"); returns NULL or a message to free. */
char *mdl_cache_policy_problem (const CachePolicy *policy, guint64 assoc);

/* Allocates an empty array of @n_sets (a power of two) sets of @assoc ways; @seed starts random's
 * generator. The caller has checked the policy with mdl_cache_policy_problem(). */
void mdl_cache_sets_init (CacheSets *s, const CachePolicy *policy, guint64 n_sets, guint assoc,
                          guint64 seed);
/* Empties every set and restarts the generator: the state right after init. */
void mdl_cache_sets_clear (CacheSets *s);
/* Frees the arrays; NULL-safe on a zeroed struct. */
void mdl_cache_sets_destroy (CacheSets *s);

/* The next number of random's generator (splitmix64: Steele, Lea and Flood, OOPSLA 2014). */
static inline guint64
mdl_cache_rng_next (CacheSets *s)
{
  guint64 z = (s->rng += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* The ring of lru and fifo (see CacheSets.head): finds @tag in set @set; returns its way, or
 * G_MAXUINT when absent. Tests the head first, the common case. */
CACHE_INLINE guint
mdl_cache_ring_find (const CacheSets *s, guint64 set, guint64 tag)
{
  const guint64 *way = s->tags + set * s->assoc;
  guint n = s->assoc;
  if (way[s->head[set]] == tag)
    return s->head[set];
  if (s->filter && s->filter[mdl_cache_filter_bucket (s, tag)] == 0)
    return G_MAXUINT;
  for (guint p = 0; p < n; p++)
    if (way[p] == tag)
      return p;
  return G_MAXUINT;
}

/* Places @tag at the head of the ring of @set over its last way (empty, or the oldest), which it
 * returns in *@evicted. O(1). */
CACHE_INLINE void
mdl_cache_ring_push (CacheSets *s, guint64 set, guint64 tag, guint64 *evicted)
{
  guint64 *way = s->tags + set * s->assoc;
  guint h = s->head[set];
  h = h ? h - 1 : s->assoc - 1;
  *evicted = way[h];
  way[h] = tag;
  s->head[set] = h;
  if (s->filter)
    {
      if (*evicted != CACHE_INVALID)
        s->filter[mdl_cache_filter_bucket (s, *evicted)]--;
      s->filter[mdl_cache_filter_bucket (s, tag)]++;
    }
}

/* lru's reference, inline so that the engines' hot loops need no indirect call for the common
 * policy. A hit at way @p moves the ways from the head to it one step back and puts the tag at the
 * head: O(stack distance). A miss is O(1) after the search (mdl_cache_ring_push), where keeping
 * each set sorted in an array would shift all of it. */
CACHE_INLINE gboolean
mdl_cache_lru_access (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint p = mdl_cache_ring_find (s, set, tag);
  if (p != G_MAXUINT)
    {
      guint64 *way = s->tags + set * s->assoc;
      guint h = s->head[set];
      while (p != h)
        {
          guint q = p ? p - 1 : s->assoc - 1;
          way[p] = way[q];
          p = q;
        }
      way[h] = tag;
      return TRUE;
    }
  *evicted = CACHE_INVALID;
  if (allocate)
    mdl_cache_ring_push (s, set, tag, evicted);
  return FALSE;
}

/* References line (or page) @tag; see CachePolicy.ref. */
CACHE_INLINE gboolean
mdl_cache_sets_ref (CacheSets *s, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint64 set = tag & s->set_mask;
  if (G_LIKELY (s->policy == &mdl_cache_lru))
    return mdl_cache_lru_access (s, set, tag, allocate, evicted);
  return s->policy->ref (s, set, tag, allocate, evicted);
}

/* Removes @tag from a ring (lru, fifo), keeping the order of the others; TRUE when it was there. */
gboolean mdl_cache_ring_remove (CacheSets *s, guint64 set, guint64 tag);

/* Removes @tag if present; TRUE when it was. */
static inline gboolean
mdl_cache_sets_invalidate (CacheSets *s, guint64 tag)
{
  return s->policy->invalidate (s, tag & s->set_mask, tag);
}

#endif
