/* Private to the hardware engines (cache.c, tlb.c): a set-associative array of tags and the
 * replacement policies that run it, one file each (lru.c, fifo.c, random.c, plru.c), listed once
 * in CACHE_POLICY_ROWS below. Adding a policy: its file, and its row there.
 *
 * A tag is the whole line (or page) number, as Cachegrind keeps it: the set index bits are part of
 * it, which costs nothing and saves a shift. Empty ways hold CACHE_INVALID, which no line number
 * reaches (lines are at least 4 bytes, so line numbers stay below 2^62). Every policy fills an empty
 * way before it evicts anything. The policies' exact rules,
 * which the tests derive their micro-traces from, are in docs/models/memory.md.
 *
 * Each set is one block of memory, so that a lookup computes one address: for the ring policies
 * (lru, fifo) a 16-byte header holding the head of the ring, the tags, then a one-byte fingerprint
 * of each way's tag; for the others only the tags. A 4-way set takes 64 bytes, a 12-way set
 * 128. A ring search compares 16 fingerprints at once (one SSE2 compare, or SWAR on two
 * words elsewhere) and then only the candidates' tags, so a miss in a 12-way set costs one group
 * compare instead of 12 tag compares. Against separate arrays of tags and heads searched tag by
 * tag, the engines' loops unchanged: +25% and +35% on bench/bench-cache's random-address TLB
 * workloads (x86-64 preset, 1 GiB and 64 GiB); on its merge-sort trace +17% for the cache engine
 * (32 KiB, 8 ways, lru) and 3.6x with a 512-line fully associative cache. */
#ifndef MDL_CACHE_SETS_H
#define MDL_CACHE_SETS_H

#include <glib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/splitmix.h"

#define CACHE_INVALID G_MAXUINT64

/* The lookups below are forced inline: left to itself GCC makes one out-of-line copy of
 * mdl_cache_sets_ref per file and calls it from the engines' loops. */
#define CACHE_INLINE static inline __attribute__ ((always_inline))

typedef struct CacheSets CacheSets;

/* CachePolicy flags. */
#define CACHE_POLICY_POW2_ASSOC 0x1   /* the associativity must be a power of two */
#define CACHE_POLICY_RING 0x2         /* the sets are rings with fingerprints (lru, fifo) */

/**
 * CachePolicy: one replacement policy, `mdl_cache_NAME` in its own file NAME.c.
 * @name: as spelled in specs (`lru`): NAME, the word of its row in CACHE_POLICY_ROWS.
 * @flags: CACHE_POLICY_*.
 * @max_assoc: the largest associativity it supports; 0: no limit.
 * @set_state_bytes: bytes of state of its own per set (plru: the tree bits), which the array
 *   allocates and zeroes as the engine core does an engine's state (CacheSets.state); 0: none.
 * @ref: looks @tag up in set @set. A hit updates the policy's state and returns TRUE. A miss with
 *   @allocate places @tag, into an empty way if there is one, else over the policy's victim, and
 *   sets *@evicted to the tag it replaced (CACHE_INVALID for an empty way); a miss without
 *   @allocate changes nothing and sets *@evicted to CACHE_INVALID. A hit on the tag its set saw
 *   last must change nothing: the engines skip such references (cache.c's last_line, tlb.c's
 *   last_page).
 * @invalidate: removes @tag from set @set; TRUE when it was there.
 */
typedef struct {
  const char *name;
  guint flags;
  guint max_assoc;
  guint set_state_bytes;
  gboolean (*ref) (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted);
  gboolean (*invalidate) (CacheSets *s, guint64 set, guint64 tag);
} CachePolicy;

/**
 * CacheSets: the state of one set-associative array.
 * @blocks: [n_sets * block_bytes], set s at s * block_bytes. With a ring policy
 *   a block is a header of CACHE_RING_TAGS bytes whose first 4 are the head (below), the tags,
 *   then the fingerprints of the ways (at fp_offset, assoc rounded up to a multiple of 16 bytes);
 *   otherwise only the tags (tags_offset 0).
 *   The ring (lru and fifo): each set is a ring in recency (fifo: insertion) order starting at way
 *   head, the most recent (newest); empty ways are at its end. A miss then places its tag over the
 *   last way and makes it the head: O(1), no shifting.
 *   The fingerprints: mdl_cache_fp() of the tag in each way, 0 for an empty way and for the
 *   padding up to a multiple of 16 ways (no fingerprint is 0, so neither is ever a candidate).
 * @filter: lru and fifo arrays of one set and at least CACHE_FILTER_MIN_ASSOC ways (fully
 *   associative ones, whose search is long): resident tags per hash bucket of the tag, 16 buckets
 *   per way so that a miss is rarely taken for a possible hit, letting most misses skip the search;
 *   NULL otherwise.
 * @state: [n_sets * policy->set_state_bytes] the policy's own state of each set, zero after
 *   init and clear; NULL for a policy without any.
 * @rng: the generator of policies that draw (random): splitmix64, from the seed at init and clear.
 * @ordered: lru only, set by the owner right after init (mdl_cache_sets_keep_ordered): the ring's
 *   head stays at way 0, a miss shifting the ways back one step instead of moving the head, so that
 *   way 0 holds the most recent tag and way 1 the second; every ring function stays valid.
 */
struct CacheSets {
  guint8 *blocks;
  guint32 *filter;
  guint8 *state;
  const CachePolicy *policy;
  guint64 set_mask;     /* n_sets - 1 */
  guint64 block_bytes;
  guint64 rng;
  guint64 rng_seed;
  guint assoc;
  guint tags_offset;    /* bytes from a block's start to its tags */
  guint fp_offset;      /* ring policies: bytes from a block's start to its fingerprints */
  guint filter_shift;   /* 64 - log2 of the filter's buckets */
  gboolean ordered;
};

/* Where a ring's tags start: a constant, so that the test of the head, made on every lookup, adds
 * no offset to load. */
#define CACHE_RING_TAGS 16

/* The bytes of the block of a ring of @assoc ways (header, tags, fingerprints), a multiple of 16
 * so that every block's tags stay aligned (g_malloc's alignment is 16 on x86-64; 64, a cache line,
 * measured no faster). A constant for a constant @assoc, for the cache engine's loop of 8 ways. */
#define CACHE_RING_BLOCK_BYTES(assoc) \
  ((CACHE_RING_TAGS + (assoc) * 8 + ((assoc) + 15) / 16 * 16 + 15) / 16 * 16)

/* The ways of an array that may be kept ordered: 2 (way 1 must be a tag) up to 16, where the shift
 * of a miss still costs less than the set's search. */
#define CACHE_ORDERED_MIN_ASSOC 2
#define CACHE_ORDERED_MAX_ASSOC 16

/* Even a 32-entry fully associative array gains from the filter: bench/bench-cache's TLB, whose
 * PDE cache has 32 entries, runs 5% faster with it on 1 GiB (the same on 64 GiB) than with the
 * two-group search alone. */
#define CACHE_FILTER_MIN_ASSOC 8

CACHE_INLINE guint
mdl_cache_filter_bucket (const CacheSets *s, guint64 tag)
{
  return (guint) ((tag * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> s->filter_shift);
}

/* The policies, one row each: X (NAME) for the policy mdl_cache_NAME, spelled NAME in specs; SEP
 * goes between rows. lru comes first: it is the engines' default. Every list of the policies is
 * made from these rows (the table mdl_cache_policies, the choice string of the engines' policy
 * parameter, the names in the cache engine's summary), so none can fall out of step. */
#define CACHE_POLICY_ROWS(X, SEP) \
  X (lru)                         \
  SEP X (fifo)                    \
  SEP X (random)                  \
  SEP X (plru)                    \
  /* (the rows end here) */

#define CACHE_POLICY_EXTERN(name) extern const CachePolicy mdl_cache_##name;
#define CACHE_POLICY_ADDRESS(name) &mdl_cache_##name
#define CACHE_POLICY_NAME(name) #name
#define CACHE_POLICY_ONE(name) 1
#define CACHE_POLICY_COMMA ,

CACHE_POLICY_ROWS (CACHE_POLICY_EXTERN, )

#define CACHE_N_POLICIES (CACHE_POLICY_ROWS (CACHE_POLICY_ONE, +))
/* "lru|fifo|random|plru": the policies in the order of mdl_cache_policies. */
#define CACHE_POLICY_CHOICES CACHE_POLICY_ROWS (CACHE_POLICY_NAME, "|")
extern const CachePolicy *const mdl_cache_policies[CACHE_N_POLICIES];

/* The policy spelled @name, or NULL. */
const CachePolicy *mdl_cache_policy_lookup (const char *name);

/* Checks that @policy can run @assoc ways ("plru needs a power-of-two associativity of at most 64,
 * got 12"); returns NULL or a message to free. */
char *mdl_cache_policy_problem (const CachePolicy *policy, guint64 assoc);

/* The bytes that mdl_cache_sets_init() allocates for this geometry (G_MAXUINT64 if it overflows),
 * for checking against the memory budget before allocating. */
guint64 mdl_cache_sets_bytes (const CachePolicy *policy, guint64 n_sets, guint assoc);
/* Allocates an empty array of @n_sets (a power of two) sets of @assoc ways; @seed starts random's
 * generator. The caller has checked the policy with mdl_cache_policy_problem() and the size
 * against the memory budget. An allocation that fails is MDL_ERROR_PARAM naming @owner; @s is then
 * left for mdl_cache_sets_destroy(). */
gboolean mdl_cache_sets_init (CacheSets *s, const CachePolicy *policy, guint64 n_sets,
                              guint assoc, guint64 seed, const char *owner, GError **error);
/* Empties every set and restarts the generator: the state right after init. */
void mdl_cache_sets_clear (CacheSets *s);
/* Keeps an lru array of CACHE_ORDERED_MIN_ASSOC..CACHE_ORDERED_MAX_ASSOC ways ordered
 * (CacheSets.ordered) from now on; call it right after init. */
void mdl_cache_sets_keep_ordered (CacheSets *s);
/* Frees the arrays; NULL-safe on a zeroed struct. */
void mdl_cache_sets_destroy (CacheSets *s);

/* The block of set @set. */
CACHE_INLINE guint8 *
mdl_cache_set_block (const CacheSets *s, guint64 set)
{
  return s->blocks + set * s->block_bytes;
}

/* The tags of set @set: assoc of them. */
CACHE_INLINE guint64 *
mdl_cache_set_ways (const CacheSets *s, guint64 set)
{
  return (guint64 *) (void *) (mdl_cache_set_block (s, set) + s->tags_offset);
}

/* The next number of random's generator. */
static inline guint64
mdl_cache_rng_next (CacheSets *s)
{
  return mdl_splitmix64 (&s->rng);
}

/* ---- ways in fixed places (random, plru) ---------------------------------------------------- */

/* What a policy whose ways keep their places decides: @touch, that way @way of set @set was just
 * hit or filled; @victim, the way to replace in the full set @set. */
typedef void (*CacheTouchFn) (CacheSets *s, guint64 set, guint way);
typedef guint (*CacheVictimFn) (CacheSets *s, guint64 set);

/* The reference (CachePolicy.ref) of a policy whose ways keep their places, written once: the ways
 * are searched in order; a hit calls @touch (NULL: a hit changes nothing); a miss with @allocate
 * fills the lowest empty way, or in a full set the way @victim names, and calls @touch for it.
 * Inline, so that a policy's ref passing its own functions compiles them in. */
CACHE_INLINE gboolean
mdl_cache_ways_ref (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted,
                    CacheTouchFn touch, CacheVictimFn victim)
{
  guint64 *way = mdl_cache_set_ways (s, set);
  guint n = s->assoc, empty = n, v;
  for (guint i = 0; i < n; i++)
    {
      if (way[i] == tag)
        {
          if (touch)
            touch (s, set, i);
          return TRUE;
        }
      /* empty == n first: that test goes one way until an empty way is found, where the test of
       * the way would follow the data (the other order ran random's TLB workload 20% slower). */
      if (empty == n && way[i] == CACHE_INVALID)
        empty = i;
    }
  *evicted = CACHE_INVALID;
  if (!allocate)
    return FALSE;
  v = empty < n ? empty : victim (s, set);
  *evicted = way[v];
  way[v] = tag;
  if (touch)
    touch (s, set, v);
  return FALSE;
}

/* Removes @tag from ways that keep their places (CachePolicy.invalidate); TRUE when it was there. */
gboolean mdl_cache_ways_remove (CacheSets *s, guint64 set, guint64 tag);

/* ---- the ring of lru and fifo --------------------------------------------------------------- */

/* The fingerprint of @tag, never 0: the top byte of a multiplicative hash (another multiplier than
 * the filter's, whose buckets come from the top bits too), so tags that share their low bits, as
 * the tags of one set do, still differ. */
CACHE_INLINE guint8
mdl_cache_fp (guint64 tag)
{
  guint8 f = (guint8) ((tag * G_GUINT64_CONSTANT (0xD6E8FEB86659FD93)) >> 56);
  return f ? f : 1;
}

/* Bit i of the result is set when byte i of @bytes[0..8) is @f: the exact zero-byte test on
 * bytes XOR f (a sum per byte that cannot carry across bytes), then the high bits gathered by a
 * multiply. */
CACHE_INLINE guint32
mdl_cache_fp_match8 (const guint8 *bytes, guint8 f)
{
  const guint64 low7 = G_GUINT64_CONSTANT (0x7F7F7F7F7F7F7F7F);
  guint64 x, zero;
  memcpy (&x, bytes, 8);
  x ^= G_GUINT64_CONSTANT (0x0101010101010101) * f;
  zero = ~(((x & low7) + low7) | x | low7);
  return (guint32) (((zero >> 7) * G_GUINT64_CONSTANT (0x0102040810204080)) >> 56);
}

/* Bit i of the result is set when byte i of @bytes[0..16) is @f. */
CACHE_INLINE guint32
mdl_cache_fp_match16 (const guint8 *bytes, guint8 f)
{
#ifdef __SSE2__
  /* @f in every byte from a 32-bit multiply and one shuffle: with _mm_set1_epi8 GCC stored @f to
   * the stack as a byte and loaded it back as a word, a load that cannot take its data from that
   * store, and the D1 loop ran 1.3x slower (docs/models/memory.md, "branch s8-cache"). */
  __m128i group = _mm_loadu_si128 ((const __m128i *) (const void *) bytes);
  __m128i all_f = _mm_shuffle_epi32 (_mm_cvtsi32_si128 ((int) (f * 0x01010101u)), 0);
  return (guint32) _mm_movemask_epi8 (_mm_cmpeq_epi8 (group, all_f));
#else
  return mdl_cache_fp_match8 (bytes, f) | mdl_cache_fp_match8 (bytes + 8, f) << 8;
#endif
}

/* The head of the ring of @block: the way of its most recent (newest) tag. */
CACHE_INLINE guint32 *
mdl_cache_ring_head (guint8 *block)
{
  return (guint32 *) (void *) block;
}

/* Searches the ring of @block (a set of @s) for @tag, whose fingerprint is @f, 16 ways at a time
 * (a fully associative array with a filter asks the filter first); returns its way, or G_MAXUINT
 * when absent. */
CACHE_INLINE guint
mdl_cache_ring_search (const CacheSets *s, guint8 *block, guint64 tag, guint8 f)
{
  const guint64 *way = (const guint64 *) (const void *) (block + CACHE_RING_TAGS);
  const guint8 *fp = block + s->fp_offset;
  if (s->assoc >= CACHE_FILTER_MIN_ASSOC && s->filter
      && s->filter[mdl_cache_filter_bucket (s, tag)] == 0)
    return G_MAXUINT;
  for (guint g = 0; g < s->assoc; g += 16)
    for (guint32 m = mdl_cache_fp_match16 (fp + g, f); m; m &= m - 1)
      {
        guint p = g + (guint) __builtin_ctz (m);
        if (way[p] == tag)
          return p;
      }
  return G_MAXUINT;
}

/* Finds @tag in the ring of @block; returns its way, or G_MAXUINT when absent. Tests the head
 * first, the common case. */
CACHE_INLINE guint
mdl_cache_ring_find (const CacheSets *s, guint8 *block, guint64 tag)
{
  const guint64 *way = (const guint64 *) (const void *) (block + CACHE_RING_TAGS);
  guint h = *mdl_cache_ring_head (block);
  return way[h] == tag ? h : mdl_cache_ring_search (s, block, tag, mdl_cache_fp (tag));
}

/* Moves the ways from the head of the ring of @block up to way @p one step back (towards the
 * tail), overwriting @p, and puts @tag at the head: O(distance). */
CACHE_INLINE void
mdl_cache_ring_to_head (const CacheSets *s, guint8 *block, guint p, guint64 tag)
{
  guint64 *way = (guint64 *) (void *) (block + CACHE_RING_TAGS);
  guint8 *fp = block + s->fp_offset;
  guint h = *mdl_cache_ring_head (block);
  guint8 f = fp[p];
  while (p != h)
    {
      guint q = p ? p - 1 : s->assoc - 1;
      way[p] = way[q];
      fp[p] = fp[q];
      p = q;
    }
  way[h] = tag;
  fp[h] = f;
}

/* Moves the @p tags at @way (@p a constant below 8) one way back, over way @p: all of them loaded
 * before any is stored, two to a register with SSE2. Written as two copies of constant size
 * through an array, GCC kept the array on the stack too (four stores of 8 wasted a miss); written
 * as a loop, it called memmove. */
CACHE_INLINE void
mdl_cache_tags_back (guint64 *way, guint p)
{
#ifdef __SSE2__
  __m128i pair[4];
  guint64 odd = p & 1 ? way[p - 1] : 0;
  for (guint i = 0; 2 * i + 1 < p; i++)
    pair[i] = _mm_loadu_si128 ((const __m128i *) (const void *) (way + 2 * i));
  for (guint i = 0; 2 * i + 1 < p; i++)
    _mm_storeu_si128 ((__m128i *) (void *) (way + 1 + 2 * i), pair[i]);
  if (p & 1)
    way[p] = odd;
#else
  guint64 tags[8];
  memcpy (tags, way, p * sizeof *way);
  memcpy (way + 1, tags, p * sizeof *way);
#endif
}

/* An ordered ring (CacheSets.ordered): moves ways 0..@p-1 of @block one step back, overwriting
 * way @p, and puts @tag, whose fingerprint is @f, at way 0. Where @p is a constant below 8 (a
 * miss in the D1 loop's 8 ways shifts 7), the tags go through a copy of constant size, which GCC
 * makes a few wide loads and stores, and the fingerprints are shifted as one word: the loop moving
 * tag and fingerprint way by way stays a word and a byte at a time, as GCC cannot tell that the
 * two arrays do not overlap (50 instructions a miss of 8 ways, a third of the D1 loop's on
 * bench-cache's synthetic trace; now 12), and memmove of a constant size stays a call. */
CACHE_INLINE void
mdl_cache_ordered_to_front (guint8 *block, guint fp_offset, guint p, guint64 tag, guint8 f)
{
  guint64 *way = (guint64 *) (void *) (block + CACHE_RING_TAGS);
  guint8 *fp = block + fp_offset;
  if (__builtin_constant_p (p) && p < 8)
    {
      /* The fingerprints of ways 0..p are bytes of one word: shifted in a register, @f in. */
      const guint64 moved = G_MAXUINT64 >> (56 - 8 * p);   /* the bytes of ways 0..p */
      guint64 fps;
      mdl_cache_tags_back (way, p);
      memcpy (&fps, fp, 8);
      fps = GUINT64_FROM_LE (fps);
      fps = (fps & ~moved) | ((fps << 8 | f) & moved);
      fps = GUINT64_TO_LE (fps);
      memcpy (fp, &fps, 8);
      way[0] = tag;
      return;
    }
  for (guint q = p; q > 0; q--)
    {
      way[q] = way[q - 1];
      fp[q] = fp[q - 1];
    }
  way[0] = tag;
  fp[0] = f;
}

/* Places @tag, whose fingerprint is @f, at the head of the ring of @block over its last way
 * (empty, or the oldest), which it returns in *@evicted. O(1); an ordered ring shifts instead. */
CACHE_INLINE void
mdl_cache_ring_push (CacheSets *s, guint8 *block, guint64 tag, guint8 f, guint64 *evicted)
{
  guint64 *way = (guint64 *) (void *) (block + CACHE_RING_TAGS);
  guint32 *head = mdl_cache_ring_head (block);
  guint h = *head ? *head - 1 : s->assoc - 1;
  *evicted = way[h];
  if (s->ordered)
    mdl_cache_ordered_to_front (block, s->fp_offset, h, tag, f);
  else
    {
      way[h] = tag;
      block[s->fp_offset + h] = f;
      *head = h;
    }
  if (s->assoc >= CACHE_FILTER_MIN_ASSOC && s->filter)
    {
      if (*evicted != CACHE_INVALID)
        s->filter[mdl_cache_filter_bucket (s, *evicted)]--;
      s->filter[mdl_cache_filter_bucket (s, tag)]++;
    }
}

/* lru's two cheapest hits, for the engines' batch loops: @tag at the head of the ring of set @set
 * (nothing changes) or at the way after it, the second most recent (the two swap, which is what
 * mdl_cache_ring_to_head does for that way). FALSE otherwise, changing nothing: the caller goes
 * on to mdl_cache_lru_access. On bench-cache's merge-sort trace (32 KiB, 8 ways) 78% of the
 * references hit at the head (17% of them the line referenced just before), 20% at the second
 * way, 2% deeper or miss. */
CACHE_INLINE gboolean
mdl_cache_lru_hit_near_head (const CacheSets *s, guint64 set, guint64 tag)
{
  guint8 *block = mdl_cache_set_block (s, set);
  guint64 *way = (guint64 *) (void *) (block + CACHE_RING_TAGS);
  guint8 *fp;
  guint h = *mdl_cache_ring_head (block), second, f;
  if (way[h] == tag)
    return TRUE;
  second = h + 1 == s->assoc ? 0 : h + 1;
  if (way[second] != tag)
    return FALSE;
  way[second] = way[h];
  way[h] = tag;
  fp = block + s->fp_offset;
  f = fp[h];
  fp[h] = fp[second];
  fp[second] = (guint8) f;
  return TRUE;
}

/* The ordered lru ring of @block (CacheSets.ordered, fingerprints at @fp_offset): TRUE when @tag
 * is at way 0 (nothing changes) or way 1 (the two swap), as mdl_cache_lru_hit_near_head but with
 * no head to load first. The cache engine's D1 loop calls it with @fp_offset constant. A hit at
 * either way with one branch, both ways stored with masks, was slower: docs/models/memory.md. */
CACHE_INLINE gboolean
mdl_cache_ordered_hit_near_front (guint8 *block, guint fp_offset, guint64 tag)
{
  guint64 *way = (guint64 *) (void *) (block + CACHE_RING_TAGS);
  guint8 *fp;
  guint8 f;
  if (way[0] == tag)
    return TRUE;
  if (way[1] != tag)
    return FALSE;
  way[1] = way[0];
  way[0] = tag;
  fp = block + fp_offset;
  f = fp[0];
  fp[0] = fp[1];
  fp[1] = f;
  return TRUE;
}

/* lru's reference on an ordered array (CacheSets.ordered) of @ways ways, whose fingerprints are
 * at @fp_offset: mdl_cache_lru_access with no head to load, and with @ways and @fp_offset
 * constants where the caller's are (the cache engine's loop of 8 ways): the set's block, its
 * fingerprints and the size of a miss's shift (ways - 1 tags) are then constants too.
 * @may_filter: FALSE where the caller knows that the array has no filter (more than one set), so
 * that the loop loads no filter pointer to test it. */
CACHE_INLINE gboolean
mdl_cache_ordered_access (CacheSets *s, guint8 *block, guint ways, guint fp_offset,
                          gboolean may_filter, guint64 tag, gboolean allocate, guint64 *evicted)
{
  const guint64 *way = (const guint64 *) (const void *) (block + CACHE_RING_TAGS);
  const gboolean filtered = may_filter && ways >= CACHE_FILTER_MIN_ASSOC && s->filter;
  guint8 f;
  if (way[0] == tag)
    return TRUE;
  f = mdl_cache_fp (tag);
  if (!(filtered && s->filter[mdl_cache_filter_bucket (s, tag)] == 0))
    for (guint32 m = mdl_cache_fp_match16 (block + fp_offset, f); m; m &= m - 1)
      {
        guint p = (guint) __builtin_ctz (m);
        if (way[p] == tag)
          {
            mdl_cache_ordered_to_front (block, fp_offset, p, tag, f);
            return TRUE;
          }
      }
  *evicted = CACHE_INVALID;
  if (!allocate)
    return FALSE;
  /* The last way: empty (CACHE_INVALID) while the set fills, then the least recent. */
  *evicted = way[ways - 1];
  mdl_cache_ordered_to_front (block, fp_offset, ways - 1, tag, f);
  if (filtered)
    {
      if (*evicted != CACHE_INVALID)
        s->filter[mdl_cache_filter_bucket (s, *evicted)]--;
      s->filter[mdl_cache_filter_bucket (s, tag)]++;
    }
  return FALSE;
}

/* lru's reference, inline so that the engines' hot loops need no indirect call for the common
 * policy. A hit at way @p moves the ways from the head to it one step back and puts the tag at the
 * head: O(stack distance). A miss is O(1) after the search (mdl_cache_ring_push), where keeping
 * each set sorted in an array would shift all of it. */
CACHE_INLINE gboolean
mdl_cache_lru_access (CacheSets *s, guint64 set, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint8 *block = mdl_cache_set_block (s, set);
  const guint64 *way = (const guint64 *) (const void *) (block + CACHE_RING_TAGS);
  guint8 f;
  guint p;
  /* A hit at the head changes nothing and returns at once. Why not mdl_cache_ring_find: going
   * through its way number (which might be G_MAXUINT, as far as the compiler knows) and then
   * mdl_cache_ring_to_head, the same work ran 20 to 25% slower on the TLB workloads (GCC 12), whose
   * paging-structure caches hit at the head on most walks. */
  if (way[*mdl_cache_ring_head (block)] == tag)
    return TRUE;
  f = mdl_cache_fp (tag);
  p = mdl_cache_ring_search (s, block, tag, f);
  if (p != G_MAXUINT)
    {
      mdl_cache_ring_to_head (s, block, p, tag);
      return TRUE;
    }
  *evicted = CACHE_INVALID;
  if (allocate)
    mdl_cache_ring_push (s, block, tag, f, evicted);
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
