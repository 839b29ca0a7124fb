/* The `cache` engine: one or more set-associative data cache levels, optionally a level-1
 * instruction cache, counting references and misses per level by kind and, on request, classifying
 * each miss as compulsory, capacity or conflict (Hill's three Cs).
 *
 * Semantics (docs/models/memory.md has the rules and the examples):
 *  - An access touches every line its bytes overlap; each line is one reference at level 1. A
 *    miss at a level is one reference at the next, for the line of the next level's size.
 *  - A modify is a read, then a write of the same bytes (the write always hits after the read).
 *  - write_allocate=1 fills the line on a write miss; 0 sends the write on without filling.
 *  - inclusion=nine keeps the levels independent (non-inclusive, non-exclusive, as Cachegrind);
 *    inclusive makes an eviction from a level >= 2 remove the line from every level above.
 *  - Fetch records (MDL_CPU_FLAG_FETCH) go to the instruction cache, whose misses go to level 2;
 *    without icache= they are ignored and counted.
 *  - The misses of reads flagged MDL_CPU_FLAG_DEPENDENT (loads whose address came from an earlier
 *    load) are also counted apart at each level: the misses a core cannot overlap; and of those,
 *    the misses of reads flagged MDL_CPU_FLAG_CHASE too (no predicted branch lets the core run
 *    ahead of them, so each waits the level's whole latency).
 *  - cachegrind=1 counts as Cachegrind's cg_sim does: an access is one reference that misses when
 *    any of its (at most two) lines misses, and then the whole access goes on to the next level;
 *    sizes are clipped to the smallest line size; a modify is a single read.
 * Classification runs a fully associative LRU of the same size beside each level, fed the same
 * references: a miss is compulsory when the line was never referenced at that level, capacity when
 * that LRU misses too, conflict otherwise. */
#include <models/error.h>
#include <models/machine.h>

#include "models/engines.h"
#include "models/cache/falru.h"
#include "models/cache/sets.h"
#include "core/budget.h"

#include <string.h>

#define MAX_DATA_LEVELS 4
#define NO_LEVEL G_MAXUINT

/* The kinds of reference a level counts. */
enum { REF_READ = 0, REF_WRITE = 1, REF_FETCH = 2, N_REF_KINDS };

typedef struct {
  CacheSets sets;
  MdlFalru shadow;            /* classify: the fully associative LRU of the same size */
  guint64 last_line;          /* resident line of the previous reference: general path */
  guint64 *set_last;          /* [n_sets] the one-level loop without ordered sets: the line each
                               * set was referenced for last, resident, or CACHE_INVALID; NULL
                               * in every other configuration */
  guint64 refs[N_REF_KINDS];
  guint64 misses[N_REF_KINDS];
  guint64 dependent_misses;   /* read misses of MDL_CPU_FLAG_DEPENDENT records */
  guint64 chase_misses;       /* of those, the MDL_CPU_FLAG_CHASE records' */
  guint64 evictions;
  guint64 compulsory;
  guint64 capacity;
  guint64 conflict;
  guint64 back_invalidations; /* lines removed here because a lower level evicted them */
  guint64 size_bytes;
  guint64 n_sets;
  guint assoc;
  guint line_shift;
  guint next;                 /* the level misses go to, NO_LEVEL for memory */
  gboolean is_icache;
  char name[4];               /* "l1".."l4", "i1" */
} Level;

typedef struct {
  Level *levels;              /* data levels 0..n_data-1, then the instruction cache if any */
  guint64 accesses;           /* data access records (a modify is one) */
  guint64 fetches;            /* fetch records */
  guint64 fetches_ignored;    /* fetch records with no instruction cache */
  guint n_data;
  guint n_levels;
  guint icache;               /* index of the instruction cache, NO_LEVEL when none */
  guint64 table_bytes;        /* taken from the memory budget by the levels set up so far */
  guint clip_bytes;           /* cachegrind: the smallest line size */
  gboolean cachegrind;
  gboolean write_allocate;
  gboolean inclusive;
  gboolean classify;
} Cache;

static const MdlParamSpec cache_params[] = {
  { "size", MDL_PARAM_UINT, "32768", "l1d_bytes", 4, G_GUINT64_CONSTANT (1) << 40, NULL, 0,
    "level-1 size in bytes" },
  { "assoc", MDL_PARAM_UINT, "8", "l1d_assoc", 0, 1u << 20, NULL, 0,
    "level-1 ways per set; 0: fully associative" },
  { "line", MDL_PARAM_UINT, "64", "line_bytes", 4, 1u << 20, NULL, MDL_PARAM_POW2,
    "line size in bytes" },
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, CACHE_POLICY_CHOICES, 0,
    "replacement policy of every level (levels= may name one per level)" },
  { "seed", MDL_PARAM_UINT, "1", NULL, 0, 0, NULL, 0, "seed of policy random" },
  { "depth", MDL_PARAM_UINT, "1", NULL, 1, 3, NULL, 0,
    "data levels; levels 2 and 3 come from the machine preset's l2_* and l3_* keys" },
  { "levels", MDL_PARAM_STRING, "", NULL, 0, 0, NULL, 0,
    "all data levels as SIZE:ASSOC:LINE[:POLICY] joined by '/', e.g. 32k:8:64/1M:16:64 "
    "(instead of size, assoc, line, depth)" },
  { "icache", MDL_PARAM_STRING, "", NULL, 0, 0, NULL, 0,
    "a level-1 instruction cache SIZE:ASSOC:LINE[:POLICY] for fetch records (empty: ignore them)" },
  { "write_allocate", MDL_PARAM_BOOL, "1", NULL, 0, 0, NULL, 0,
    "a write miss fills the line (0: the write goes on to the next level only)" },
  { "inclusion", MDL_PARAM_CHOICE, "nine", NULL, 0, 0, "nine|inclusive", 0,
    "nine: levels independent; inclusive: evicting from level >= 2 removes the line above" },
  { "classify", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "classify misses as compulsory, capacity and conflict (a fully associative LRU per level)" },
  { "cachegrind", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "count as Cachegrind: an access is one reference, missing if any of its lines misses; sizes "
    "clipped to the smallest line; a modify is one read" },
  { NULL }
};

/* ---- configuration --------------------------------------------------------------------------- */

typedef struct {
  guint64 size;
  guint64 assoc;   /* 0: fully associative */
  guint64 line;
  const CachePolicy *policy;
} LevelConfig;

/* Parses "SIZE:ASSOC:LINE[:POLICY]"; @what names it in messages ("cache: levels, level 2"). */
static gboolean
parse_level (const char *what, const char *text, const CachePolicy *policy, LevelConfig *out,
             GError **error)
{
  g_auto (GStrv) f = g_strsplit (text, ":", -1);
  guint n = g_strv_length (f);
  if (n < 3 || n > 4)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: expected SIZE:ASSOC:LINE[:POLICY] "
                   "(e.g. 32k:8:64 or 1M:16:64:plru), got \"%s\"", what, text);
      return FALSE;
    }
  out->policy = policy;
  if (!mdl_params_parse_uint (what, "size", f[0], 4, G_GUINT64_CONSTANT (1) << 40, 0, &out->size,
                              error))
    return FALSE;
  if (strcmp (f[1], "full") == 0)
    out->assoc = 0;
  else if (!mdl_params_parse_uint (what, "assoc", f[1], 0, 1u << 20, 0, &out->assoc, error))
    return FALSE;
  if (!mdl_params_parse_uint (what, "line", f[2], 4, 1u << 20, MDL_PARAM_POW2, &out->line, error))
    return FALSE;
  if (n == 4)
    {
      out->policy = mdl_cache_policy_lookup (f[3]);
      if (out->policy == NULL)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: unknown policy \"%s\" (valid: %s)",
                       what, f[3], CACHE_POLICY_CHOICES);
          return FALSE;
        }
    }
  return TRUE;
}

/* The associativity nearest to @assoc that gives a power-of-two number of sets, or 0. */
static guint64
nearest_good_assoc (guint64 lines, guint64 assoc)
{
  guint64 best = 0;
  for (guint64 sets = 1; sets <= lines; sets *= 2)
    if (lines % sets == 0)
      {
        guint64 a = lines / sets;
        guint64 d = a > assoc ? a - assoc : assoc - a;
        guint64 bd = best > assoc ? best - assoc : assoc - best;
        if (best == 0 || d < bd)
          best = a;
      }
  return best;
}

/* Checks one level's geometry and sets it up. */
static gboolean
level_setup (Level *l, const char *name, const LevelConfig *cfg, guint64 seed, gboolean classify,
             guint64 *table_bytes, GError **error)
{
  guint64 lines, assoc, n_sets, bytes;
  g_autofree char *what = NULL;
  char *why;

  g_strlcpy (l->name, name, sizeof l->name);
  if (cfg->size % cfg->line != 0 || cfg->size < cfg->line)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: %s size %" G_GUINT64_FORMAT
                   " is not a multiple of its line size %" G_GUINT64_FORMAT, name, cfg->size,
                   cfg->line);
      return FALSE;
    }
  lines = cfg->size / cfg->line;
  assoc = cfg->assoc ? cfg->assoc : lines;
  if (lines % assoc != 0 || ((lines / assoc) & (lines / assoc - 1)) != 0)
    {
      guint64 good = nearest_good_assoc (lines, assoc);
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: %s of %" G_GUINT64_FORMAT " bytes, "
                   "%" G_GUINT64_FORMAT " ways and %" G_GUINT64_FORMAT "-byte lines would have "
                   "%.6g sets; the number of sets must be a power of two (try assoc=%"
                   G_GUINT64_FORMAT ", or a size of a power of two times assoc*line)", name,
                   cfg->size, assoc, cfg->line, (double) lines / (double) assoc, good);
      return FALSE;
    }
  if (assoc > (1u << 20))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: %s would have %" G_GUINT64_FORMAT
                   " ways; at most %u are supported", name, assoc, 1u << 20);
      return FALSE;
    }
  if ((why = mdl_cache_policy_problem (cfg->policy, assoc)) != NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: %s: %s", name, why);
      g_free (why);
      return FALSE;
    }
  n_sets = lines / assoc;
  /* The budget is checked before anything is allocated: a 1 TiB cache would otherwise abort in
   * g_malloc, and a 64 GiB one spend minutes clearing 12 GiB of tags before the first event. */
  bytes = mdl_cache_sets_bytes (cfg->policy, n_sets, (guint) assoc);
  if (classify) /* the shadow fully associative LRU: a key and two links per line */
    bytes += MIN (lines, (guint64) G_MAXINT32) * (sizeof (guint64) + 2 * sizeof (guint32));
  what = g_strdup_printf ("%s of %" G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT " sets of %"
                          G_GUINT64_FORMAT " ways of %" G_GUINT64_FORMAT "-byte lines%s)", name,
                          cfg->size, n_sets, assoc, cfg->line, classify ? ", classified" : "");
  if (!mdl_budget_take ("cache", what, bytes, table_bytes, error))
    return FALSE;
  l->size_bytes = cfg->size;
  l->assoc = (guint) assoc;
  l->n_sets = n_sets;
  l->line_shift = (guint) __builtin_ctzll (cfg->line);
  l->last_line = CACHE_INVALID;
  l->next = NO_LEVEL;
  if (!mdl_cache_sets_init (&l->sets, cfg->policy, n_sets, (guint) assoc, seed, "cache", error))
    return FALSE;
  if (classify)
    mdl_falru_init (&l->shadow, (guint32) MIN (lines, (guint64) G_MAXINT32));
  return TRUE;
}

/* The data levels from the machine preset's l1d_* (through size, assoc, line), l2_* and l3_*. */
static gboolean
preset_levels (const MdlParams *params, LevelConfig *cfg, guint depth, GError **error)
{
  static const char *const prefix[] = { "l1d", "l2", "l3" };
  const char *machine = mdl_params_machine (params);
  for (guint i = 1; i < depth; i++)
    {
      char *text[2] = { NULL, NULL };
      const char *key[2];
      g_autofree char *bytes_key = g_strdup_printf ("%s_bytes", prefix[i]);
      g_autofree char *assoc_key = g_strdup_printf ("%s_assoc", prefix[i]);
      gboolean ok;
      if (machine == NULL)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: depth=%u takes levels 2 and up "
                       "from a machine preset: add machine=NAME, or give levels=SIZE:ASSOC:LINE/...",
                       depth);
          return FALSE;
        }
      key[0] = bytes_key;
      key[1] = assoc_key;
      for (guint k = 0; k < 2; k++)
        {
          if (!mdl_machine_get (machine, key[k], &text[k], error))
            return FALSE;
          if (text[k] == NULL)
            {
              g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: depth=%u needs key %s in "
                           "machine %s, which has none", depth, key[k], machine);
              g_free (text[0]);
              return FALSE;
            }
        }
      cfg[i] = cfg[0];
      ok = mdl_params_parse_uint ("cache", bytes_key, text[0], 4, G_GUINT64_CONSTANT (1) << 40, 0,
                                  &cfg[i].size, error)
           && mdl_params_parse_uint ("cache", assoc_key, text[1], 0, 1u << 20, 0, &cfg[i].assoc,
                                     error);
      g_free (text[0]);
      g_free (text[1]);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static void
cache_finalize (void *state)
{
  Cache *c = state;
  for (guint i = 0; c->levels && i < c->n_levels; i++)
    {
      mdl_cache_sets_destroy (&c->levels[i].sets);
      g_free (c->levels[i].set_last);
      if (c->classify)
        mdl_falru_destroy (&c->levels[i].shadow);
    }
  g_clear_pointer (&c->levels, g_free);
}

static gboolean
cache_init (void *state, const MdlParams *params, GError **error)
{
  Cache *c = state;
  const CachePolicy *policy = mdl_cache_policies[mdl_params_choice (params, "policy")];
  const char *levels = mdl_params_string (params, "levels");
  const char *icache = mdl_params_string (params, "icache");
  guint64 seed = mdl_params_uint (params, "seed");
  LevelConfig cfg[MAX_DATA_LEVELS + 1];
  guint n_data;

  c->write_allocate = mdl_params_bool (params, "write_allocate");
  c->inclusive = mdl_params_choice (params, "inclusion") == 1;
  c->classify = mdl_params_bool (params, "classify");
  c->cachegrind = mdl_params_bool (params, "cachegrind");
  if (c->cachegrind && c->inclusive)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: cachegrind=1 models Cachegrind, "
                   "whose levels are not inclusive; drop inclusion=inclusive");
      return FALSE;
    }

  if (*levels)
    {
      static const char *const own[] = { "size", "assoc", "line", "depth" };
      g_auto (GStrv) parts = g_strsplit (levels, "/", -1);
      for (guint i = 0; i < G_N_ELEMENTS (own); i++)
        if (mdl_params_is_set (params, own[i]))
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: give either levels=... or "
                         "%s= (levels describes every level)", own[i]);
            return FALSE;
          }
      n_data = g_strv_length (parts);
      if (n_data > MAX_DATA_LEVELS)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: levels has %u levels; at most "
                       "%u are supported", n_data, MAX_DATA_LEVELS);
          return FALSE;
        }
      for (guint i = 0; i < n_data; i++)
        {
          g_autofree char *what = g_strdup_printf ("cache: levels, level %u", i + 1);
          if (!parse_level (what, parts[i], policy, &cfg[i], error))
            return FALSE;
        }
    }
  else
    {
      n_data = (guint) mdl_params_uint (params, "depth");
      cfg[0] = (LevelConfig) { mdl_params_uint (params, "size"), mdl_params_uint (params, "assoc"),
                               mdl_params_uint (params, "line"), policy };
      if (!preset_levels (params, cfg, n_data, error))
        return FALSE;
    }

  c->n_data = n_data;
  c->n_levels = n_data;
  c->icache = NO_LEVEL;
  if (*icache)
    {
      if (!parse_level ("cache: icache", icache, policy, &cfg[n_data], error))
        return FALSE;
      c->icache = n_data;
      c->n_levels++;
    }

  c->levels = g_new0 (Level, c->n_levels);
  c->table_bytes = 0;
  c->clip_bytes = G_MAXUINT;
  for (guint i = 0; i < c->n_levels; i++)
    {
      Level *l = &c->levels[i];
      char name[4];
      g_snprintf (name, sizeof name, i == c->icache ? "i1" : "l%u", i + 1);
      /* Each array gets its own generator stream, so that adding a level leaves the others'. */
      if (!level_setup (l, name, &cfg[i], seed ^ ((guint64) i << 32), c->classify,
                        &c->table_bytes, error))
        {
          c->n_levels = i + (l->sets.blocks != NULL);
          return FALSE;
        }
      l->is_icache = i == c->icache;
      l->next = i + 1 < n_data ? i + 1 : NO_LEVEL;
      if (l->is_icache)
        l->next = n_data > 1 ? 1 : NO_LEVEL;
      c->clip_bytes = MIN (c->clip_bytes, 1u << l->line_shift);
    }
  /* The one-level loop's configuration (cache_consume) with lru keeps its sets ordered, for
   * consume_one_level's check of the two most recent ways without a head to load. */
  if (c->n_levels == 1 && !c->classify && !c->cachegrind
      && c->levels[0].sets.policy == &mdl_cache_lru && c->levels[0].assoc >= CACHE_ORDERED_MIN_ASSOC
      && c->levels[0].assoc <= CACHE_ORDERED_MAX_ASSOC)
    mdl_cache_sets_keep_ordered (&c->levels[0].sets);
  else if (c->n_levels == 1 && !c->classify && !c->cachegrind)
    {
      /* The one-level loop's filter in front of the other policies' sets (consume_one_level). */
      Level *l = &c->levels[0];
      if (!mdl_budget_take ("cache", "the l1 filter of the line each set saw last",
                            l->n_sets * sizeof (guint64), &c->table_bytes, error))
        return FALSE;
      l->set_last = g_new (guint64, l->n_sets);
      memset (l->set_last, 0xff, l->n_sets * sizeof (guint64));   /* CACHE_INVALID */
    }
  for (guint i = 0; i < c->n_levels; i++)
    {
      Level *l = &c->levels[i];
      if (l->next != NO_LEVEL && c->levels[l->next].line_shift < l->line_shift)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "cache: %s has %u-byte lines but the "
                       "level below it, %s, has %u-byte lines; lines must not shrink going down",
                       l->name, 1u << l->line_shift, c->levels[l->next].name,
                       1u << c->levels[l->next].line_shift);
          return FALSE;
        }
    }
  return TRUE;
}

static void
cache_reset (void *state)
{
  Cache *c = state;
  for (guint i = 0; i < c->n_levels; i++)
    {
      Level *l = &c->levels[i];
      mdl_cache_sets_clear (&l->sets);
      if (c->classify)
        mdl_falru_clear (&l->shadow);
      memset (l->refs, 0, sizeof l->refs);
      memset (l->misses, 0, sizeof l->misses);
      l->evictions = l->compulsory = l->capacity = l->conflict = l->back_invalidations = 0;
      l->dependent_misses = 0;
      l->chase_misses = 0;
      l->last_line = CACHE_INVALID;
      if (l->set_last)
        memset (l->set_last, 0xff, l->n_sets * sizeof (guint64));   /* CACHE_INVALID */
    }
  c->accesses = c->fetches = c->fetches_ignored = 0;
}

/* ---- the hot path ----------------------------------------------------------------------------- */

/* How far ahead of the record in hand the loops over a batch ask for its memory (512 records).
 * The hardware's own prefetch leaves a loop over a trace that is not in the caches waiting on it:
 * on bench-cache's merge sort (196 MB of records) from memory, on the VM, the one-level scan ran
 * 198-227 M refs/s without, 203-321 with 2 KiB, 245-274 with 4 KiB, 325-329 with 8 KiB, 310-312
 * with 16 KiB (alternated, load 2-3). One instruction an access; past the batch's end it only
 * asks for memory that may never be read, which faults nothing. */
#define RECORD_PREFETCH_BYTES 8192

/* Removes the lines of @evicted (a line of level @from) from every level above it: inclusive. */
static void
back_invalidate (Cache *c, guint from, guint64 evicted)
{
  guint shift = c->levels[from].line_shift;
  for (guint u = 0; u < c->n_levels; u++)
    {
      Level *l = &c->levels[u];
      guint64 first, n;
      /* The levels above @from: lower-numbered data levels, and the instruction cache. */
      if (u == from || (!l->is_icache && u > from))
        continue;
      first = evicted << (shift - l->line_shift);
      n = (guint64) 1 << (shift - l->line_shift);
      for (guint64 k = 0; k < n; k++)
        if (mdl_cache_sets_invalidate (&l->sets, first + k))
          {
            l->back_invalidations++;
            if (l->last_line == first + k)
              l->last_line = CACHE_INVALID;
          }
    }
}

/* What follows placing a line into level @i that pushed @evicted out. */
static inline void
after_fill (Cache *c, guint i, guint64 evicted)
{
  Level *l = &c->levels[i];
  if (evicted == CACHE_INVALID)
    return;
  l->evictions++;
  if (c->inclusive && i > 0 && !l->is_icache)
    back_invalidate (c, i, evicted);
}

/* Places @line, which missed earlier, into level @i (inclusive: after the level below). */
static void
level_fill (Cache *c, guint i, guint64 line)
{
  Level *l = &c->levels[i];
  guint64 evicted;
  mdl_cache_sets_ref (&l->sets, line, TRUE, &evicted);
  l->last_line = line;
  after_fill (c, i, evicted);
}

/* Looks @line up in level @i, updating the classifier; on a miss, places it right away when
 * @allocate and @fill. Returns TRUE on a hit. */
static inline gboolean
level_lookup (Cache *c, guint i, guint64 line, gboolean allocate, gboolean fill)
{
  Level *l = &c->levels[i];
  gboolean hit, fresh = FALSE, shadow_hit = FALSE, fill_now = allocate && fill;
  guint64 evicted;
  guint32 node = 0;

  /* Why this is exact for every policy: re-referencing the line referenced last at this level
   * changes no policy's state (lru: already first; fifo, random: hits change nothing; plru: its
   * path bits already point away from it), nor the classifier's LRU, where last_line is only set
   * while the line is first there too. */
  if (line == l->last_line)
    return TRUE;
  if (c->classify)
    shadow_hit = mdl_falru_ref (&l->shadow, line, allocate, &fresh, &node, &evicted);
  hit = mdl_cache_sets_ref (&l->sets, line, fill_now, &evicted);
  if (hit)
    {
      l->last_line = !c->classify || node != FALRU_NONE ? line : CACHE_INVALID;
      return TRUE;
    }
  if (c->classify)
    {
      if (fresh)
        l->compulsory++;
      else if (!shadow_hit)
        l->capacity++;
      else
        l->conflict++;
    }
  l->last_line = fill_now ? line : CACHE_INVALID;
  if (fill_now)
    after_fill (c, i, evicted);
  return FALSE;
}

/* The flags of @e that make a level count its misses apart: MDL_CPU_FLAG_DEPENDENT, with or
 * without MDL_CPU_FLAG_CHASE, on a read; 0 on anything else (a modify's read included). */
static inline guint
read_wait (const MdlCpuEvent *e)
{
  return e->kind == MDL_CPU_READ ? e->flags & (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE) : 0;
}

/* Counts a miss of a read whose read_wait() flags are @wait. */
static inline void
count_wait_miss (Level *l, guint wait)
{
  l->dependent_misses += (wait & MDL_CPU_FLAG_DEPENDENT) != 0;
  l->chase_misses += (wait & MDL_CPU_FLAG_CHASE) != 0;
}

/* One reference of @line (in level @i's line units) of @kind, and what its miss sends below;
 * @wait: read_wait()'s flags of the read it is for. */
static void
level_access (Cache *c, guint i, guint64 line, guint kind, guint wait)
{
  gboolean allocate = kind != REF_WRITE || c->write_allocate;
  for (;;)
    {
      Level *l = &c->levels[i];
      guint next = l->next;
      l->refs[kind]++;
      if (level_lookup (c, i, line, allocate, !c->inclusive))
        return;
      l->misses[kind]++;
      count_wait_miss (l, wait);
      if (c->inclusive)
        {
          /* The line comes from below before it is placed here: the level below may evict, and
           * so back-invalidate, lines of this level first, as an inclusive hierarchy does. */
          if (next != NO_LEVEL)
            level_access (c, next, line >> (c->levels[next].line_shift - l->line_shift), kind,
                          wait);
          if (allocate)
            level_fill (c, i, line);
          return;
        }
      if (next == NO_LEVEL)
        return;
      line >>= c->levels[next].line_shift - l->line_shift;
      i = next;
    }
}

/* An access of @size bytes at @addr, starting at level @i. */
static inline void
access_lines (Cache *c, guint i, guint64 addr, guint size, guint kind, guint wait)
{
  guint shift = c->levels[i].line_shift;
  guint64 last_byte = addr + size - 1;
  if (last_byte < addr)
    last_byte = G_MAXUINT64;   /* an access that wraps the address space ends at its top */
  for (guint64 line = addr >> shift; line <= last_byte >> shift; line++)
    {
      /* The common case first, inline: the line the level saw last (level_lookup says why this
       * is exact); everything else takes the call. */
      if (line == c->levels[i].last_line)
        c->levels[i].refs[kind]++;
      else
        level_access (c, i, line, kind, wait);
    }
}

/* Cachegrind's rule: the access (at most two lines after clipping) is one reference per level. */
static void
access_cachegrind (Cache *c, guint i, guint64 addr, guint size, guint kind, guint wait)
{
  gboolean allocate = kind != REF_WRITE || c->write_allocate;
  size = MIN (size, c->clip_bytes);
  while (i != NO_LEVEL)
    {
      Level *l = &c->levels[i];
      guint64 first = addr >> l->line_shift;
      guint64 last = (addr + size - 1) >> l->line_shift;
      gboolean miss;
      if (last < first)
        last = first;   /* wraps the address space: the top line only */
      l->refs[kind]++;
      /* Both lines are always looked up, as each lookup updates the set. */
      miss = !level_lookup (c, i, first, allocate, TRUE);
      if (last != first)
        miss |= !level_lookup (c, i, last, allocate, TRUE);
      if (!miss)
        return;
      l->misses[kind]++;
      count_wait_miss (l, wait);
      i = l->next;
    }
}

/* The general loop: any levels, options and modes. */
static __attribute__ ((noinline)) void
consume_general (Cache *c, const MdlEventBatch *b)
{
  for (gsize k = 0; k < b->n_cpu; k++)
    {
      const MdlCpuEvent *e = &b->cpu[k];
      guint kind;
      guint wait;
      if (!mdl_cpu_is_access (e->kind))
        continue;
      __builtin_prefetch ((const char *) e + RECORD_PREFETCH_BYTES);
      if (G_UNLIKELY (e->flags & MDL_CPU_FLAG_FETCH))
        {
          c->fetches++;
          if (c->icache == NO_LEVEL)
            c->fetches_ignored++;
          else if (c->cachegrind)
            access_cachegrind (c, c->icache, e->addr, e->size, REF_FETCH, 0);
          else
            access_lines (c, c->icache, e->addr, e->size, REF_FETCH, 0);
          continue;
        }
      c->accesses++;
      kind = e->kind == MDL_CPU_WRITE ? REF_WRITE : REF_READ;
      wait = read_wait (e);
      if (c->cachegrind)
        access_cachegrind (c, 0, e->addr, e->size, kind, wait);
      else
        {
          access_lines (c, 0, e->addr, e->size, kind, wait);
          if (e->kind == MDL_CPU_MODIFY)
            access_lines (c, 0, e->addr, e->size, REF_WRITE, 0);
        }
    }
}

/* The most common configuration, one data level without classification in the natural mode, runs
 * in two parts with the same rules as the general path (the agreement tests run both against the
 * reference and against each other). The batch loop (consume_one_level, its scan_one_line) takes
 * the one-line data accesses it can without a call, with its state and counters in registers:
 * with lru's ordered sets (2..16 ways, CacheSets.ordered; the most recent tag at way 0, the second
 * at way 1, no head to load) all of them, hits and misses; otherwise a one-line access to the
 * line its set was last referenced for (Level.set_last, which changes no state: one_level_lines
 * says why), or with lru a hit at the first or second way of its set's recency order. Everything
 * else goes to one_level_lines, out of
 * line, one copy per loop so that each has its lookup inline. The block of a set of 8 ways is at a
 * constant multiple of the set (the D1's loop of its own). docs/models/memory.md, bench-cache, has
 * the instructions per reference, the rates and what was tried. */
/* consume_one_level's @ordered_ways: the level's lru sets are ordered, of any number of ways. */
#define ANY_WAYS G_MAXUINT

/* @ordered_ways as consume_one_level's. Without ordered sets, a reference to the line its set was
 * last referenced for (Level.set_last) takes no lookup: it hits, as no fill into the set came
 * since, and changes no policy's state, as that reference was the last to change the set's
 * (level_lookup's argument for the line referenced last at a level, set by set). */
static inline __attribute__ ((always_inline)) void
one_level_lines (Level *l, guint kind, guint wait, guint64 first, guint64 last,
                 gboolean write_allocate, gboolean lru, guint ordered_ways)
{
  guint pass, n_passes = 1u + (kind == MDL_CPU_MODIFY);
  guint ref = kind == MDL_CPU_WRITE ? REF_WRITE : REF_READ;
  const guint ways = ordered_ways == ANY_WAYS ? l->sets.assoc : ordered_ways;
  const guint64 block_bytes = ordered_ways == ANY_WAYS ? l->sets.block_bytes
                                                       : CACHE_RING_BLOCK_BYTES (ordered_ways);
  const guint fp_offset = ordered_ways == ANY_WAYS ? l->sets.fp_offset
                                                   : CACHE_RING_TAGS + 8 * ordered_ways;
  /* A modify makes a second pass, of writes. */
  for (pass = 0; pass < n_passes; pass++, ref = REF_WRITE)
    for (guint64 line = first; line <= last; line++)
      {
        gboolean allocate = ref == REF_READ || write_allocate;
        guint64 set = line & l->sets.set_mask, evicted;
        l->refs[ref]++;
        if (!ordered_ways && l->set_last[set] == line)
          continue;
        if (ordered_ways
            ? mdl_cache_ordered_access (&l->sets, l->sets.blocks + set * block_bytes, ways,
                                        fp_offset, ordered_ways == ANY_WAYS, line, allocate,
                                        &evicted)
            : lru ? mdl_cache_lru_access (&l->sets, set, line, allocate, &evicted)
                  : mdl_cache_sets_ref (&l->sets, line, allocate, &evicted))
          {
            if (!ordered_ways)
              l->set_last[set] = line;
            continue;
          }
        l->misses[ref]++;
        count_wait_miss (l, wait);
        l->evictions += allocate && evicted != CACHE_INVALID;
        /* A miss that places nothing leaves the set as it was, and its last line resident. */
        if (!ordered_ways && allocate)
          l->set_last[set] = line;
      }
}

/* One copy of one_level_lines for each loop of consume_one_level below, so that each has its
 * lookup inline, with the constants of its loop. */
static __attribute__ ((noinline)) void
one_level_lines_d1 (Level *l, guint kind, guint wait, guint64 first, guint64 last,
                   gboolean write_allocate)
{
  one_level_lines (l, kind, wait, first, last, write_allocate, TRUE, 8);
}

static __attribute__ ((noinline)) void
one_level_lines_ordered (Level *l, guint kind, guint wait, guint64 first, guint64 last,
                        gboolean write_allocate)
{
  one_level_lines (l, kind, wait, first, last, write_allocate, TRUE, ANY_WAYS);
}

static __attribute__ ((noinline)) void
one_level_lines_lru (Level *l, guint kind, guint wait, guint64 first, guint64 last,
                    gboolean write_allocate)
{
  one_level_lines (l, kind, wait, first, last, write_allocate, TRUE, 0);
}

static __attribute__ ((noinline)) void
one_level_lines_any (Level *l, guint kind, guint wait, guint64 first, guint64 last,
                    gboolean write_allocate)
{
  one_level_lines (l, kind, wait, first, last, write_allocate, FALSE, 0);
}

/* consume_one_level's one-line accesses are counted in one word, 21 bits each for the read
 * references, the write references and the access records (one add from a table by kind, where
 * three counters took three adds and two table loads); a scan covers at most SCAN_MAX records,
 * so no field overflows. */
#define PACKED_BITS 21
#define PACKED_FIELD ((G_GUINT64_CONSTANT (1) << PACKED_BITS) - 1)
#define PACKED_READ G_GUINT64_CONSTANT (1)
#define PACKED_WRITE (PACKED_READ << PACKED_BITS)
#define PACKED_ACCESS (PACKED_READ << (2 * PACKED_BITS))
/* The misses of a scan, counted the same way in a word of their own (in registers: 4-8% on
 * bench-cache's synthetic trace, half misses, against three counters in the level): read misses,
 * write misses and, in the third field, the allocating misses that filled an empty way. A miss
 * that evicts, the common case once the sets are full, then adds only its kind's word, one load
 * from a table by kind: the evictions are the allocating misses less those fills. */
#define PACKED_EMPTY_FILL PACKED_ACCESS
#define SCAN_MAX (1u << 20)

/* The references of a one-line access of each kind, a read, a write and a modify (a read and a
 * write of the line, which always hits after the read), whether it hits or misses. */
static const guint64 packed_refs_of_kind[MDL_CPU_OPS] = {
  PACKED_READ | PACKED_ACCESS, PACKED_WRITE | PACKED_ACCESS,
  PACKED_READ | PACKED_WRITE | PACKED_ACCESS
};

/* The miss of a one-line access of each kind: a modify's is its read's (its write then hits). */
static const guint64 packed_miss_of_kind[MDL_CPU_OPS] = { PACKED_READ, PACKED_WRITE, PACKED_READ };

_Static_assert (G_STRUCT_OFFSET (MdlCpuEvent, flags) == 1 && G_STRUCT_OFFSET (MdlCpuEvent, size) == 2,
                "cpu_head reads kind, flags and size as one word");

/* kind | flags << 8 | size << 16 of @e: one load on a little-endian host, where they are
 * MdlCpuEvent's first four bytes in that order. */
static inline guint32
cpu_head (const MdlCpuEvent *e)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  guint32 head;
  memcpy (&head, e, sizeof head);
  return head;
#else
  return e->kind | (guint32) e->flags << 8 | (guint32) e->size << 16;
#endif
}

/* The one-line accesses consume_one_level takes without a call: from @e on, it skips op counts
 * and branches and takes one-line data accesses; with ordered sets every one, a hit at way 0 or 1
 * first, then the rest of the search, a miss counted into *@packed_misses (a dependent one into
 * @l too); otherwise those to the line their set was last referenced for (Level.set_last) and,
 * with lru, hits at the first or second way of the set's recency order. The references of the
 * accesses taken are added to *@packed. Returns the first record it cannot take (a fetch, an
 * access that spans lines, or without ordered sets a miss or a deeper hit), or @end. A loop of
 * its own, with no call in it, so that GCC keeps its state in registers (the loop that called out
 * from its body reloaded the sets' address and mask from the stack on every record). */
static inline __attribute__ ((always_inline)) const MdlCpuEvent *
scan_one_line (const MdlCpuEvent *e, const MdlCpuEvent *end, Level *l, gboolean lru,
               guint ordered_ways, guint shift, gboolean write_allocate, guint64 *packed,
               guint64 *packed_misses)
{
  CacheSets *sets = &l->sets;
  guint8 *const blocks = sets->blocks;
  const guint64 set_mask = sets->set_mask;
  const guint ways = ordered_ways == ANY_WAYS ? sets->assoc : ordered_ways;
  const guint64 block_bytes = ordered_ways == ANY_WAYS ? sets->block_bytes
                                                       : CACHE_RING_BLOCK_BYTES (ordered_ways);
  const guint fp_offset = ordered_ways == ANY_WAYS ? sets->fp_offset
                                                   : CACHE_RING_TAGS + 8 * ordered_ways;
  const guint64 line_bytes = G_GUINT64_CONSTANT (1) << shift;
  for (; e < end; e++)
    {
      guint32 head = cpu_head (e);
      guint kind = head & 0xff;
      guint64 first;
      /* The common record, a data access with no flag but the dependent one (which matters only
       * on a miss), in one test: its kind and its other flags read as one number. */
      if ((head & 0xffff & ~(guint32) (MDL_CPU_FLAG_DEPENDENT << 8)) > MDL_CPU_MODIFY)
        {
          if (!mdl_cpu_is_access (kind))
            continue;
          return e;   /* a fetch, or a chase read */
        }
      /* Asked by the accesses only (as in consume_general): an op count, every other record of a
       * Lackey trace, then costs no instruction for it, and the accesses still ask for every line
       * of records (callgrind, bench-cache's merge sort: 44.5 -> 43.5 instructions a reference). */
      __builtin_prefetch ((const char *) e + RECORD_PREFETCH_BYTES);
      /* One line: its last byte is in the line of its first (and it cannot wrap). */
      if ((e->addr & (line_bytes - 1)) + (head >> 16) > line_bytes)
        return e;
      first = e->addr >> shift;
      if (ordered_ways)
        {
          guint8 *block = blocks + (first & set_mask) * block_bytes;
          gboolean allocate = kind != MDL_CPU_WRITE || write_allocate;
          guint64 evicted;
          if (!mdl_cache_ordered_hit_near_front (block, fp_offset, first)
              && !mdl_cache_ordered_access (sets, block, ways, fp_offset,
                                            ordered_ways == ANY_WAYS, first, allocate, &evicted))
            {
              *packed_misses += packed_miss_of_kind[kind];
              if (G_UNLIKELY (allocate && evicted == CACHE_INVALID))
                *packed_misses += PACKED_EMPTY_FILL;
              if (e->flags & MDL_CPU_FLAG_DEPENDENT)
                l->dependent_misses += kind == MDL_CPU_READ;
            }
        }
      else
        {
          guint64 *set_last = &l->set_last[first & set_mask];
          if (*set_last != first)
            {
              if (!(lru && mdl_cache_lru_hit_near_head (sets, first & set_mask, first)))
                return e;
              *set_last = first;
            }
        }
      *packed += packed_refs_of_kind[kind];
    }
  return e;
}

/* @ordered_ways: 0 when the level's sets are not ordered (CacheSets.ordered); else their ways, a
 * constant for the common D1's 8 (the set's block address and its fingerprints' offset then are
 * constants too; a level of more than one set, so without a filter), or ANY_WAYS. @line_shift:
 * log2 of the line size as a constant (the D1's 64 bytes), or 0 to take it from the level.
 * @always_allocate: TRUE where the caller knows write_allocate=1 (the D1's loop), so that a miss
 * takes no branch on the kind of its reference. */
static inline __attribute__ ((always_inline)) void
consume_one_level (Cache *c, const MdlEventBatch *b, gboolean lru, guint ordered_ways,
                   guint line_shift, gboolean always_allocate)
{
  Level *l = &c->levels[0];
  /* In locals: the loop's stores into the sets might, for all the compiler knows, change *b. */
  const MdlCpuEvent *e = b->cpu, *const end = b->cpu + b->n_cpu;
  const guint shift = line_shift ? line_shift : l->line_shift;
  const gboolean write_allocate = always_allocate || c->write_allocate;
  while (e < end)
    {
      guint64 packed = 0, packed_misses = 0, read_misses, write_misses, first, last;
      guint kind;
      guint wait;
      e = scan_one_line (e, e + MIN ((gsize) (end - e), SCAN_MAX), l, lru, ordered_ways, shift,
                         write_allocate, &packed, &packed_misses);
      l->refs[REF_READ] += packed & PACKED_FIELD;
      l->refs[REF_WRITE] += packed >> PACKED_BITS & PACKED_FIELD;
      c->accesses += packed >> 2 * PACKED_BITS;
      read_misses = packed_misses & PACKED_FIELD;
      write_misses = packed_misses >> PACKED_BITS & PACKED_FIELD;
      l->misses[REF_READ] += read_misses;
      l->misses[REF_WRITE] += write_misses;
      /* Every read miss allocates, a write miss with write_allocate only. */
      l->evictions += read_misses + (write_allocate ? write_misses : 0)
                      - (packed_misses >> 2 * PACKED_BITS);
      if (e == end)
        break;
      /* A record the scan could not take, or the next after SCAN_MAX records, which may be any. */
      kind = e->kind;
      if (!mdl_cpu_is_access (kind))
        {
          e++;
          continue;
        }
      if (e->flags & MDL_CPU_FLAG_FETCH)
        {
          c->fetches++;
          c->fetches_ignored++;
          e++;
          continue;
        }
      c->accesses++;
      first = e->addr >> shift;
      last = (e->addr + e->size - 1) >> shift;
      if (G_UNLIKELY (e->addr + e->size - 1 < e->addr))
        last = G_MAXUINT64 >> shift;
      wait = read_wait (e);
      if (ordered_ways)
        (ordered_ways == 8 ? one_level_lines_d1 : one_level_lines_ordered) (l, kind, wait,
                                                                            first, last,
                                                                            write_allocate);
      else
        (lru ? one_level_lines_lru : one_level_lines_any) (l, kind, wait, first, last,
                                                           write_allocate);
      e++;
    }
}

/* The common D1: 8 ways of 64-byte lines, lru, write-allocate, more than one set. */
static __attribute__ ((noinline)) void
consume_one_level_d1 (Cache *c, const MdlEventBatch *b)
{
  consume_one_level (c, b, TRUE, 8, 6, TRUE);
}

static __attribute__ ((noinline)) void
consume_one_level_lru_ordered (Cache *c, const MdlEventBatch *b)
{
  consume_one_level (c, b, TRUE, ANY_WAYS, 0, FALSE);
}

static __attribute__ ((noinline)) void
consume_one_level_lru (Cache *c, const MdlEventBatch *b)
{
  consume_one_level (c, b, TRUE, 0, 0, FALSE);
}

static __attribute__ ((noinline)) void
consume_one_level_any (Cache *c, const MdlEventBatch *b)
{
  consume_one_level (c, b, FALSE, 0, 0, FALSE);
}

/* The D1's loop takes this level: consume_one_level_d1's constants hold for it. */
static gboolean
is_common_d1 (const Cache *c, const Level *l)
{
  return l->assoc == 8 && l->line_shift == 6 && l->n_sets > 1 && c->write_allocate;
}

static gboolean
cache_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Cache *c = state;
  (void) error;
  if (b->n_cpu == 0)   /* a GPU batch may have no CPU array at all: NULL + 0 is undefined */
    return TRUE;
  if (c->n_levels > 1 || c->classify || c->cachegrind)
    consume_general (c, b);
  else if (c->levels[0].sets.ordered)
    (is_common_d1 (c, &c->levels[0]) ? consume_one_level_d1 : consume_one_level_lru_ordered) (c, b);
  else if (c->levels[0].sets.policy == &mdl_cache_lru)
    consume_one_level_lru (c, b);
  else
    consume_one_level_any (c, b);
  return TRUE;
}

/* ---- the report ------------------------------------------------------------------------------- */

static void
add_count (MdlReport *out, const char *prefix, const char *name, const char *desc,
           const char *metric, guint64 value)
{
  g_autofree char *key = g_strconcat (prefix, name, NULL);
  mdl_report_add_count (out, key, "count", desc, metric, value);
}

static void
level_report (const Cache *c, const Level *l, guint i, MdlReport *out)
{
  gboolean single = c->n_levels == 1;
  gboolean first = i == 0, last = !l->is_icache && i + 1 == c->n_data;
  g_autofree char *prefix = single ? g_strdup ("") : g_strdup_printf ("%s_", l->name);
  const char *unit = c->cachegrind ? "accesses" : "line references";
  g_autofree char *d_refs = g_strdup_printf ("%s at this level (%" G_GUINT64_FORMAT " bytes, %u "
                                             "ways, %u-byte lines, %s)", unit, l->size_bytes,
                                             l->assoc, 1u << l->line_shift, l->sets.policy->name);
  guint64 refs = l->refs[0] + l->refs[1] + l->refs[2];
  guint64 misses = l->misses[0] + l->misses[1] + l->misses[2];
  /* Cachegrind's names where they mean the same: its D1 is our first data level, its LL our last. */
  const char *m_rd = l->is_icache ? NULL : first ? "Dr" : NULL;
  const char *m_wr = l->is_icache ? NULL : first ? "Dw" : NULL;
  const char *m_rm = l->is_icache ? NULL : first ? "D1mr" : last ? "DLmr" : NULL;
  const char *m_wm = l->is_icache ? NULL : first ? "D1mw" : last ? "DLmw" : NULL;
  const char *m_fr = l->is_icache ? "Ir" : NULL;
  const char *m_fm = l->is_icache ? "I1mr" : last ? "ILmr" : NULL;

  add_count (out, prefix, "refs", d_refs, NULL, refs);
  add_count (out, prefix, "read_refs", "read references (modifies included)", m_rd, l->refs[0]);
  add_count (out, prefix, "write_refs", "write references", m_wr, l->refs[1]);
  if (c->icache != NO_LEVEL)
    add_count (out, prefix, "fetch_refs", "instruction fetch references", m_fr, l->refs[2]);
  add_count (out, prefix, "misses", "references that missed", NULL, misses);
  add_count (out, prefix, "read_misses", "read references that missed", m_rm, l->misses[0]);
  add_count (out, prefix, "write_misses", "write references that missed", m_wm, l->misses[1]);
  if (c->icache != NO_LEVEL)
    add_count (out, prefix, "fetch_misses", "fetch references that missed", m_fm, l->misses[2]);
  if (!l->is_icache)
    add_count (out, prefix, "dependent_misses", "read misses of dependent loads (each one's "
               "address came from an earlier load: they cannot overlap)", NULL,
               l->dependent_misses);
  if (!l->is_icache)
    add_count (out, prefix, "chase_misses", "of the dependent misses, those of chase loads (the "
               "address is arithmetic on the loaded value: no predicted branch runs ahead)", NULL,
               l->chase_misses);
  add_count (out, prefix, "evictions", "valid lines replaced", NULL, l->evictions);
  if (c->classify)
    {
      add_count (out, prefix, "compulsory", "misses of lines never referenced here before", NULL,
                 l->compulsory);
      add_count (out, prefix, "capacity", "other misses that a fully associative LRU of the same "
                 "size also has", NULL, l->capacity);
      add_count (out, prefix, "conflict", "the remaining misses (the LRU of the same size hits)",
                 NULL, l->conflict);
    }
  if (c->inclusive)
    add_count (out, prefix, "back_invalidations", "lines removed because a level below evicted "
               "them", NULL, l->back_invalidations);
  {
    g_autofree char *key = g_strconcat (prefix, "miss_ratio", NULL);
    mdl_report_add_real (out, key, "ratio", "misses / refs", NULL,
                         refs ? (double) misses / (double) refs : 0.0);
  }
}

static void
cache_report (void *state, MdlReport *out)
{
  Cache *c = state;
  mdl_report_add_count (out, "accesses", "count", "data access records (a modify is one)", NULL,
                        c->accesses);
  mdl_report_add_count (out, "fetches", "count", "instruction fetch records", NULL, c->fetches);
  mdl_report_add_count (out, "fetches_ignored", "count", "fetch records ignored (no icache=)",
                        NULL, c->fetches_ignored);
  if (c->icache != NO_LEVEL)
    level_report (c, &c->levels[c->icache], c->icache, out);
  for (guint i = 0; i < c->n_data; i++)
    level_report (c, &c->levels[i], i, out);
}

const MdlEngineClass mdl_cache_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "cache",
  .summary = "set-associative cache levels (" CACHE_POLICY_ROWS (CACHE_POLICY_NAME, ", ")
             "): misses by kind and by cause",
  .params = cache_params,
  .state_size = sizeof (Cache),
  .init = cache_init,
  .consume = cache_consume,
  .report = cache_report,
  .reset = cache_reset,
  .finalize = cache_finalize,
};
