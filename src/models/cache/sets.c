/* The set-associative array of sets.h: allocation, reset, the removals that several policies share,
 * and the table of policies. Nothing here knows a policy by name: each states what it needs (its
 * flags, its per-set state) in its CachePolicy. */
#include "models/cache/sets.h"

#include "core/budget.h"

#include <string.h>

const CachePolicy *const mdl_cache_policies[CACHE_N_POLICIES] = {
  CACHE_POLICY_ROWS (CACHE_POLICY_ADDRESS, CACHE_POLICY_COMMA)
};

const CachePolicy *
mdl_cache_policy_lookup (const char *name)
{
  for (guint i = 0; i < CACHE_N_POLICIES; i++)
    if (strcmp (mdl_cache_policies[i]->name, name) == 0)
      return mdl_cache_policies[i];
  return NULL;
}

char *
mdl_cache_policy_problem (const CachePolicy *policy, guint64 assoc)
{
  gboolean pow2 = assoc > 0 && (assoc & (assoc - 1)) == 0;
  if ((policy->flags & CACHE_POLICY_POW2_ASSOC) && !pow2)
    return g_strdup_printf ("policy %s needs a power-of-two associativity, got %" G_GUINT64_FORMAT,
                            policy->name, assoc);
  if (policy->max_assoc && assoc > policy->max_assoc)
    return g_strdup_printf ("policy %s supports at most %u ways, got %" G_GUINT64_FORMAT,
                            policy->name, policy->max_assoc, assoc);
  return NULL;
}

/* The bytes of one set's block: tags, and for ring policies the ring head and fingerprints. */
static guint64
block_bytes_of (const CachePolicy *policy, guint assoc)
{
  if (policy->flags & CACHE_POLICY_RING)
    return CACHE_RING_BLOCK_BYTES ((guint64) assoc);
  /* A multiple of 16, as the rings' (CACHE_RING_BLOCK_BYTES says why). */
  return ((guint64) assoc * sizeof (guint64) + 15) / 16 * 16;
}

/* The bits of the fingerprint filter of a single-set ring, or 0 when it has none. */
static guint
filter_bits_of (const CachePolicy *policy, guint64 n_sets, guint assoc)
{
  guint bits = 8;
  if (!((policy->flags & CACHE_POLICY_RING) && n_sets == 1 && assoc >= CACHE_FILTER_MIN_ASSOC))
    return 0;
  while (((guint64) 1 << bits) < 16 * (guint64) assoc)
    bits++;
  return bits;
}

guint64
mdl_cache_sets_bytes (const CachePolicy *policy, guint64 n_sets, guint assoc)
{
  guint bits = filter_bits_of (policy, n_sets, assoc);
  guint64 per_set = block_bytes_of (policy, assoc) + policy->set_state_bytes;
  if (per_set != 0 && n_sets > G_MAXUINT64 / 2 / per_set)
    return G_MAXUINT64;
  return n_sets * per_set + (bits ? ((guint64) 1 << bits) * sizeof (guint32) : 0);
}

gboolean
mdl_cache_sets_init (CacheSets *s, const CachePolicy *policy, guint64 n_sets, guint assoc,
                     guint64 seed, const char *owner, GError **error)
{
  guint bits = filter_bits_of (policy, n_sets, assoc);
  g_assert (n_sets > 0 && (n_sets & (n_sets - 1)) == 0 && assoc > 0);
  s->policy = policy;
  s->set_mask = n_sets - 1;
  s->assoc = assoc;
  s->rng_seed = seed;
  s->tags_offset = 0;
  s->fp_offset = 0;
  if (policy->flags & CACHE_POLICY_RING)
    {
      s->tags_offset = CACHE_RING_TAGS;
      s->fp_offset = CACHE_RING_TAGS + assoc * sizeof (guint64);
    }
  s->block_bytes = block_bytes_of (policy, assoc);
  s->state = NULL;
  s->filter = NULL;
  s->ordered = FALSE;
  s->blocks = mdl_budget_try_alloc (owner, "the sets' tags", n_sets, s->block_bytes, error);
  if (s->blocks == NULL)
    return FALSE;
  if (policy->set_state_bytes
      && !(s->state = mdl_budget_try_alloc (owner, "the sets' policy state", n_sets,
                                            policy->set_state_bytes, error)))
    {
      mdl_cache_sets_destroy (s);
      return FALSE;
    }
  if (bits)
    {
      s->filter_shift = 64 - bits;
      s->filter = g_new (guint32, (gsize) 1 << bits);
    }
  mdl_cache_sets_clear (s);
  return TRUE;
}

void
mdl_cache_sets_clear (CacheSets *s)
{
  guint64 n_sets = s->set_mask + 1;
  /* Heads and fingerprints 0, every way empty. */
  memset (s->blocks, 0, n_sets * s->block_bytes);
  for (guint64 set = 0; set < n_sets; set++)
    memset (mdl_cache_set_ways (s, set), 0xff, s->assoc * sizeof (guint64));
  if (s->state)
    memset (s->state, 0, n_sets * s->policy->set_state_bytes);
  if (s->filter)
    memset (s->filter, 0, ((gsize) 1 << (64 - s->filter_shift)) * sizeof (guint32));
  s->rng = s->rng_seed;
}

void
mdl_cache_sets_keep_ordered (CacheSets *s)
{
  g_assert (s->policy == &mdl_cache_lru && s->assoc >= CACHE_ORDERED_MIN_ASSOC
            && s->assoc <= CACHE_ORDERED_MAX_ASSOC);
  s->ordered = TRUE;
}

void
mdl_cache_sets_destroy (CacheSets *s)
{
  g_clear_pointer (&s->blocks, g_free);
  g_clear_pointer (&s->state, g_free);
  g_clear_pointer (&s->filter, g_free);
}

gboolean
mdl_cache_ring_remove (CacheSets *s, guint64 set, guint64 tag)
{
  guint8 *block = mdl_cache_set_block (s, set);
  guint64 *way = mdl_cache_set_ways (s, set);
  guint8 *fp = block + s->fp_offset;
  guint n = s->assoc, h = *mdl_cache_ring_head (block);
  guint p = mdl_cache_ring_find (s, block, tag);
  if (p == G_MAXUINT)
    return FALSE;
  /* The ways after it move one step towards the head; the last one becomes empty. */
  for (;;)
    {
      guint q = p + 1 == n ? 0 : p + 1;
      if (q == h)
        break;
      way[p] = way[q];
      fp[p] = fp[q];
      p = q;
    }
  way[p] = CACHE_INVALID;
  fp[p] = 0;
  if (s->filter)
    s->filter[mdl_cache_filter_bucket (s, tag)]--;
  return TRUE;
}

gboolean
mdl_cache_ways_remove (CacheSets *s, guint64 set, guint64 tag)
{
  guint64 *way = mdl_cache_set_ways (s, set);
  for (guint i = 0; i < s->assoc; i++)
    if (way[i] == tag)
      {
        way[i] = CACHE_INVALID;
        return TRUE;
      }
  return FALSE;
}
