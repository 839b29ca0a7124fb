/* The slow references of tests/ref/cache-ref.h. */
#include "cache-ref.h"

#include <models/event.h>

#include <string.h>

const char *const ref_cache_policy_names[REF_CACHE_N_POLICIES] = {
  "lru", "fifo", "random", "plru",
};

/* ---- one array ---- */

void
ref_array_init (RefArray *a, RefCachePolicy policy, guint64 n_sets, guint64 assoc, guint64 seed)
{
  gsize n = n_sets * assoc;
  a->policy = policy;
  a->n_sets = n_sets;
  a->assoc = assoc;
  a->clock = 0;
  a->rng = seed;
  a->tag = g_new0 (guint64, n);
  a->valid = g_new0 (gboolean, n);
  a->used = g_new0 (guint64, n);
  a->filled = g_new0 (guint64, n);
  a->tree = g_new0 (gboolean, n);
}

void
ref_array_free (RefArray *a)
{
  g_free (a->tag);
  g_free (a->valid);
  g_free (a->used);
  g_free (a->filled);
  g_free (a->tree);
}

static guint64
splitmix64 (guint64 *state)
{
  guint64 z;
  *state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  z = *state;
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

/* plru: make every node on way @w's path point away from it. */
static void
tree_touch (RefArray *a, guint64 set, guint64 w)
{
  gboolean *tree = a->tree + set * a->assoc;
  guint64 node = a->assoc + w;
  while (node > 1)
    {
      guint64 parent = node / 2;
      tree[parent] = node == 2 * parent;   /* came from the left: the victim is to the right */
      node = parent;
    }
}

static guint64
tree_victim (RefArray *a, guint64 set)
{
  gboolean *tree = a->tree + set * a->assoc;
  guint64 node = 1;
  while (node < a->assoc)
    node = 2 * node + (tree[node] ? 1 : 0);
  return node - a->assoc;
}

gboolean
ref_array_access (RefArray *a, guint64 tag, gboolean allocate, guint64 *evicted)
{
  guint64 set = tag % a->n_sets;
  guint64 base = set * a->assoc;
  guint64 victim = G_MAXUINT64;

  *evicted = G_MAXUINT64;
  for (guint64 w = 0; w < a->assoc; w++)
    if (a->valid[base + w] && a->tag[base + w] == tag)
      {
        a->used[base + w] = ++a->clock;
        if (a->policy == REF_CACHE_PLRU)
          tree_touch (a, set, w);
        return TRUE;
      }
  if (!allocate)
    return FALSE;
  for (guint64 w = 0; w < a->assoc && victim == G_MAXUINT64; w++)
    if (!a->valid[base + w])
      victim = w;
  if (victim == G_MAXUINT64)
    switch (a->policy)
      {
      case REF_CACHE_LRU:
      case REF_CACHE_FIFO:
        victim = 0;
        for (guint64 w = 1; w < a->assoc; w++)
          {
            const guint64 *key = a->policy == REF_CACHE_LRU ? a->used : a->filled;
            if (key[base + w] < key[base + victim])
              victim = w;
          }
        break;
      case REF_CACHE_RANDOM:
        victim = splitmix64 (&a->rng) % a->assoc;
        break;
      case REF_CACHE_PLRU:
        victim = tree_victim (a, set);
        break;
      }
  if (a->valid[base + victim])
    *evicted = a->tag[base + victim];
  a->tag[base + victim] = tag;
  a->valid[base + victim] = TRUE;
  a->used[base + victim] = a->filled[base + victim] = ++a->clock;
  if (a->policy == REF_CACHE_PLRU)
    tree_touch (a, set, victim);
  return FALSE;
}

gboolean
ref_array_remove (RefArray *a, guint64 tag)
{
  guint64 base = (tag % a->n_sets) * a->assoc;
  for (guint64 w = 0; w < a->assoc; w++)
    if (a->valid[base + w] && a->tag[base + w] == tag)
      {
        a->valid[base + w] = FALSE;
        return TRUE;
      }
  return FALSE;
}

/* ---- cache ---- */

typedef struct {
  RefArray array;
  RefLevelCounts counts;
  /* the classifier: a fully associative LRU as a list of (line, last use), and every line seen */
  guint64 *fa_line;
  guint64 *fa_used;
  guint64 fa_len;
  guint64 fa_cap;
  guint64 fa_clock;
  GHashTable *seen;
  guint64 line;
  int next;
  gboolean icache;
} RefLevel;

struct RefCache {
  RefCacheConfig config;
  RefLevel level[5];
  guint n_levels;
  guint64 min_line;
  gboolean dependent;   /* the access being made is a dependent read's */
  gboolean chase;       /* ... and a chase read's */
};

static void
level_init (RefLevel *l, const RefLevelConfig *cfg, guint64 seed)
{
  guint64 lines = cfg->size / cfg->line;
  guint64 assoc = cfg->assoc ? cfg->assoc : lines;
  ref_array_init (&l->array, cfg->policy, lines / assoc, assoc, seed);
  l->line = cfg->line;
  l->fa_cap = lines;
  l->fa_line = g_new0 (guint64, lines);
  l->fa_used = g_new0 (guint64, lines);
  l->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

RefCache *
ref_cache_new (const RefCacheConfig *config)
{
  RefCache *c = g_new0 (RefCache, 1);
  c->config = *config;
  c->n_levels = config->n_data + (config->has_icache ? 1 : 0);
  c->min_line = G_MAXUINT64;
  for (guint i = 0; i < c->n_levels; i++)
    {
      RefLevel *l = &c->level[i];
      gboolean ic = i == config->n_data;
      level_init (l, ic ? &config->icache : &config->data[i], config->seed ^ ((guint64) i << 32));
      l->icache = ic;
      l->next = ic ? (config->n_data > 1 ? 1 : -1) : (i + 1 < config->n_data ? (int) i + 1 : -1);
      c->min_line = MIN (c->min_line, l->line);
    }
  return c;
}

void
ref_cache_free (RefCache *c)
{
  for (guint i = 0; i < c->n_levels; i++)
    {
      ref_array_free (&c->level[i].array);
      g_free (c->level[i].fa_line);
      g_free (c->level[i].fa_used);
      g_hash_table_unref (c->level[i].seen);
    }
  g_free (c);
}

const RefLevelCounts *
ref_cache_level (const RefCache *c, guint i)
{
  return &c->level[i].counts;
}

/* The classifier's verdict for a reference of @line: first touch ever, and whether the fully
 * associative LRU of the level's size hits; it is updated as that LRU would be. */
static void
classify_ref (RefLevel *l, guint64 line, gboolean allocate, gboolean *first, gboolean *fa_hit)
{
  guint64 *key = g_new (guint64, 1);
  guint64 oldest = 0;
  *key = line;
  *first = !g_hash_table_contains (l->seen, key);
  if (*first)
    g_hash_table_add (l->seen, key);
  else
    g_free (key);
  *fa_hit = FALSE;
  for (guint64 k = 0; k < l->fa_len; k++)
    if (l->fa_line[k] == line)
      {
        l->fa_used[k] = ++l->fa_clock;
        *fa_hit = TRUE;
        return;
      }
  if (!allocate)
    return;
  if (l->fa_len < l->fa_cap)
    {
      l->fa_line[l->fa_len] = line;
      l->fa_used[l->fa_len++] = ++l->fa_clock;
      return;
    }
  for (guint64 k = 1; k < l->fa_len; k++)
    if (l->fa_used[k] < l->fa_used[oldest])
      oldest = k;
  l->fa_line[oldest] = line;
  l->fa_used[oldest] = ++l->fa_clock;
}

/* Places @line in level @i; evictions from a data level >= 2 of an inclusive cache remove the
 * evicted line's bytes from every level above. */
static void
fill (RefCache *c, guint i, guint64 line)
{
  RefLevel *l = &c->level[i];
  guint64 evicted;
  ref_array_access (&l->array, line, TRUE, &evicted);
  if (evicted == G_MAXUINT64)
    return;
  l->counts.evictions++;
  if (!c->config.inclusive || i == 0 || l->icache)
    return;
  for (guint u = 0; u < c->n_levels; u++)
    {
      RefLevel *up = &c->level[u];
      if (u == i || (!up->icache && u > i))
        continue;
      for (guint64 byte = evicted * l->line; byte < (evicted + 1) * l->line; byte += up->line)
        if (ref_array_remove (&up->array, byte / up->line))
          up->counts.back_invalidations++;
    }
}

/* Looks @line up at level @i, classifying a miss; fills at once when @fill_now. TRUE on a hit. */
static gboolean
lookup (RefCache *c, guint i, guint64 line, gboolean allocate, gboolean fill_now)
{
  RefLevel *l = &c->level[i];
  gboolean first = FALSE, fa_hit = FALSE;
  guint64 evicted;
  if (c->config.classify)
    classify_ref (l, line, allocate, &first, &fa_hit);
  if (ref_array_access (&l->array, line, FALSE, &evicted))
    return TRUE;
  if (c->config.classify)
    {
      if (first)
        l->counts.compulsory++;
      else if (!fa_hit)
        l->counts.capacity++;
      else
        l->counts.conflict++;
    }
  if (allocate && fill_now)
    fill (c, i, line);
  return FALSE;
}

static void
level_ref (RefCache *c, guint i, guint64 line, guint kind)
{
  RefLevel *l = &c->level[i];
  gboolean allocate = kind != 1 || c->config.write_allocate;
  l->counts.refs[kind]++;
  if (lookup (c, i, line, allocate, !c->config.inclusive))
    return;
  l->counts.misses[kind]++;
  l->counts.dependent_misses += c->dependent;
  l->counts.chase_misses += c->chase;
  if (l->next >= 0)
    level_ref (c, (guint) l->next, line * l->line / c->level[l->next].line, kind);
  if (c->config.inclusive && allocate)
    fill (c, i, line);
}

static void
natural (RefCache *c, guint i, guint64 addr, guint size, guint kind)
{
  guint64 line_bytes = c->level[i].line;
  guint64 last = addr + size - 1 < addr ? G_MAXUINT64 : addr + size - 1;
  for (guint64 line = addr / line_bytes; line <= last / line_bytes; line++)
    level_ref (c, i, line, kind);
}

static void
cachegrind (RefCache *c, int i, guint64 addr, guint size, guint kind)
{
  gboolean allocate = kind != 1 || c->config.write_allocate;
  if (size > c->min_line)
    size = (guint) c->min_line;
  while (i >= 0)
    {
      RefLevel *l = &c->level[i];
      guint64 first = addr / l->line;
      guint64 last = (addr + size - 1) / l->line;
      gboolean hit;
      if (last < first)
        last = first;
      l->counts.refs[kind]++;
      hit = lookup (c, (guint) i, first, allocate, TRUE);
      if (last != first)
        hit = lookup (c, (guint) i, last, allocate, TRUE) && hit;
      if (hit)
        return;
      l->counts.misses[kind]++;
      l->counts.dependent_misses += c->dependent;
  l->counts.chase_misses += c->chase;
      i = l->next;
    }
}

void
ref_cache_access (RefCache *c, guint kind, gboolean fetch, guint flags, guint64 addr, guint size)
{
  c->dependent = (flags & MDL_CPU_FLAG_DEPENDENT) && kind == 0 && !fetch;
  c->chase = (flags & MDL_CPU_FLAG_CHASE) && c->dependent;
  if (fetch)
    {
      if (!c->config.has_icache)
        return;
      if (c->config.cachegrind)
        cachegrind (c, (int) c->config.n_data, addr, size, 2);
      else
        natural (c, c->config.n_data, addr, size, 2);
      return;
    }
  if (c->config.cachegrind)
    {
      cachegrind (c, 0, addr, size, kind == 1 ? 1 : 0);
      return;
    }
  natural (c, 0, addr, size, kind == 1 ? 1 : 0);
  c->dependent = c->chase = FALSE;
  if (kind == 2)
    natural (c, 0, addr, size, 1);
}

static void
append_level (GString *s, const RefLevelConfig *l)
{
  g_string_append_printf (s, "%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                          ":%s", l->size, l->assoc, l->line, ref_cache_policy_names[l->policy]);
}

char *
ref_cache_spec (const RefCacheConfig *config)
{
  GString *s = g_string_new ("cache:levels=");
  for (guint i = 0; i < config->n_data; i++)
    {
      if (i)
        g_string_append_c (s, '/');
      append_level (s, &config->data[i]);
    }
  if (config->has_icache)
    {
      g_string_append (s, ",icache=");
      append_level (s, &config->icache);
    }
  g_string_append_printf (s, ",seed=%" G_GUINT64_FORMAT ",write_allocate=%d,inclusion=%s,"
                          "classify=%d,cachegrind=%d", config->seed, config->write_allocate,
                          config->inclusive ? "inclusive" : "nine", config->classify,
                          config->cachegrind);
  return g_string_free (s, FALSE);
}

/* ---- tlb ---- */

struct RefTlb {
  RefTlbConfig config;
  RefArray l1;
  RefArray l2;
  RefArray psc[5];
  RefTlbCounts counts;
  guint leaf;
};

static void
array_from_entries (RefArray *a, RefCachePolicy policy, guint64 entries, guint64 assoc,
                    guint64 seed)
{
  if (assoc == 0)
    assoc = entries;
  ref_array_init (a, policy, entries / assoc, assoc, seed);
}

RefTlb *
ref_tlb_new (const RefTlbConfig *config)
{
  RefTlb *t = g_new0 (RefTlb, 1);
  t->config = *config;
  t->leaf = config->page_bytes == 4096 ? 1 : config->page_bytes == (2u << 20) ? 2 : 3;
  array_from_entries (&t->l1, config->policy, config->l1_entries, config->l1_assoc, config->seed);
  if (config->l2_entries)
    array_from_entries (&t->l2, config->policy, config->l2_entries, config->l2_assoc,
                        config->seed ^ (G_GUINT64_CONSTANT (1) << 32));
  for (guint l = t->leaf + 1; l <= 4; l++)
    if (config->psc[l])
      array_from_entries (&t->psc[l], config->policy, config->psc[l], 0,
                          config->seed ^ ((guint64) l << 33));
  return t;
}

void
ref_tlb_free (RefTlb *t)
{
  ref_array_free (&t->l1);
  if (t->config.l2_entries)
    ref_array_free (&t->l2);
  for (guint l = t->leaf + 1; l <= 4; l++)
    if (t->config.psc[l])
      ref_array_free (&t->psc[l]);
  g_free (t);
}

const RefTlbCounts *
ref_tlb_counts (const RefTlb *t)
{
  return &t->counts;
}

static void
ref_translate (RefTlb *t, guint64 addr)
{
  guint64 page = addr / t->config.page_bytes;
  guint64 evicted;
  guint start = 4;
  t->counts.translations++;
  if (ref_array_access (&t->l1, page, TRUE, &evicted))
    return;
  t->counts.l1_misses++;
  if (t->config.l2_entries)
    {
      guint64 tag = t->leaf == 2 ? page + (G_GUINT64_CONSTANT (1) << 62) : page;
      if (ref_array_access (&t->l2, tag, TRUE, &evicted))
        return;
      t->counts.l2_misses++;
    }
  t->counts.walks++;
  /* The deepest cached non-leaf entry on the path: the PDE cache first. */
  for (guint l = t->leaf + 1; l <= 4; l++)
    if (t->config.psc[l]
        && ref_array_access (&t->psc[l], addr >> (12 + 9 * (l - 1)), FALSE, &evicted))
      {
        t->counts.psc_hits[l]++;
        start = l - 1;
        break;
      }
  for (guint l = start; l >= t->leaf; l--)
    {
      t->counts.walk_refs[l]++;
      if (l > t->leaf && t->config.psc[l])
        ref_array_access (&t->psc[l], addr >> (12 + 9 * (l - 1)), TRUE, &evicted);
    }
}

void
ref_tlb_access (RefTlb *t, guint64 addr, guint size)
{
  guint64 last = addr + size - 1 < addr ? G_MAXUINT64 : addr + size - 1;
  for (guint64 page = addr / t->config.page_bytes; page <= last / t->config.page_bytes; page++)
    ref_translate (t, page == addr / t->config.page_bytes ? addr : page * t->config.page_bytes);
}

/* ---- em ---- */

void
ref_em_run (const guint64 *blocks, const gboolean *writes, gsize n, guint64 capacity,
            gboolean opt, RefEmCounts *out)
{
  guint64 *res = g_new0 (guint64, capacity);
  guint64 *used = g_new0 (guint64, capacity);
  gboolean *dirty = g_new0 (gboolean, capacity);
  guint64 len = 0;
  memset (out, 0, sizeof *out);
  for (gsize t = 0; t < n; t++)
    {
      guint64 k, victim = 0;
      for (k = 0; k < len && res[k] != blocks[t]; k++)
        ;
      if (k < len)
        {
          out->hits++;
          used[k] = t;
          dirty[k] = dirty[k] || writes[t];
          continue;
        }
      out->misses++;
      if (len < capacity)
        {
          victim = len++;
          dirty[victim] = FALSE;
        }
      else if (!opt)
        {
          for (k = 1; k < len; k++)
            if (used[k] < used[victim])
              victim = k;
        }
      else
        {
          gsize far = 0;
          for (k = 0; k < len; k++)
            {
              gsize next = t + 1;
              while (next < n && blocks[next] != res[k])
                next++;
              if (k == 0 || next > far)
                {
                  far = next;
                  victim = k;
                }
            }
        }
      if (dirty[victim])
        out->writebacks++;
      res[victim] = blocks[t];
      used[victim] = t;
      dirty[victim] = writes[t];
    }
  g_free (res);
  g_free (used);
  g_free (dirty);
}
