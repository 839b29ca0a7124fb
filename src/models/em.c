/* The `em` engine: the external-memory model of Aggarwal and Vitter in its ideal-cache form (Frigo
 * et al.): a fast memory of M bytes holding M/B blocks of B bytes, fully associative, filled on
 * demand; the cost is the number of block transfers. Replacement is lru (online) or opt (Belady's
 * MIN: evict the block whose next use is furthest away), which the ideal-cache model assumes.
 *
 * An access touches every block its bytes overlap, one block reference each; a modify references
 * its blocks once and dirties them. A miss reads the block (one transfer); evicting a dirty block
 * writes it back (one more). Blocks still dirty at the end are reported apart and not charged, as
 * the model charges a run, not a final flush. Fetch records are not data and are skipped.
 *
 * opt needs the future, so the engine stores the block sequence (8 bytes per reference) and runs it
 * in `report` after a next-use pass; it therefore keeps its own per-phase breakdown (for lru too,
 * so both policies report phases the same way). Spec: vat-thesis §3.1 (the EM cost of a random
 * scan) and docs/models/memory.md. */
#include <models/error.h>

#include "core/budget.h"
#include "core/ledger.h"
#include "models/engines.h"
#include "models/cache/falru.h"
#include "models/u64map.h"

#include <string.h>

#define WRITE_BIT (G_GUINT64_CONSTANT (1) << 63)   /* in a stored reference: it writes */
#define NEVER G_MAXUINT32                          /* next use of a block not used again */
#define MAX_STORED (G_MAXUINT32 - 1)               /* opt stores at most this many references */
#define MAX_BLOCKS (1u << 28)

enum { POLICY_LRU = 0, POLICY_OPT = 1 };

typedef struct {
  guint64 refs;
  guint64 hits;
  guint64 misses;
  guint64 writebacks;
  guint64 fetches_ignored;
} EmCounts;

#define N_COUNTS ((guint) (sizeof (EmCounts) / sizeof (guint64)))
G_STATIC_ASSERT (sizeof (EmCounts) % sizeof (guint64) == 0);

typedef struct {
  guint64 at;        /* block references before the marker */
  EmCounts snap;     /* counts at the marker (opt: filled in by the run) */
  char *name;
  gboolean begin;
} EmMark;

typedef struct {
  MdlFalru lru;              /* lru */
  EmCounts counts;           /* lru: live; opt: of the last run */
  guint8 *dirty;             /* [capacity] per node (lru) or slot (opt) */
  GArray *stored;            /* opt: guint64 block | WRITE_BIT of every reference */
  GArray *marks;             /* EmMark, in order */
  MdlPhaseLedger *phases;    /* EmCounts by phase, from the marks */
  guint64 fetches_ignored;   /* opt: counted as they come */
  guint64 distinct;          /* opt: of the last run */
  guint64 dirty_at_end;      /* opt: of the last run */
  gsize run_len;             /* opt: stored references the last run covered (G_MAXSIZE: none) */
  guint64 block_bytes;       /* B */
  guint64 memory_bytes;      /* M */
  guint32 capacity;          /* M / B blocks */
  guint block_shift;
  guint policy;
} Em;

static const MdlParamSpec em_params[] = {
  { "M", MDL_PARAM_UINT, "32768", "l1d_bytes", 1, G_GUINT64_CONSTANT (1) << 40, NULL, 0,
    "fast memory size in bytes" },
  { "B", MDL_PARAM_UINT, "64", "line_bytes", 2, 1u << 30, NULL, MDL_PARAM_POW2,
    "block size in bytes" },
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, "lru|opt", 0,
    "replacement: lru, or opt (Belady's MIN, offline)" },
  { NULL }
};

static void
mark_clear (gpointer p)
{
  g_free (((EmMark *) p)->name);
}

static gboolean
em_init (void *state, const MdlParams *params, GError **error)
{
  Em *m = state;
  m->memory_bytes = mdl_params_uint (params, "M");
  m->block_bytes = mdl_params_uint (params, "B");
  m->policy = mdl_params_choice (params, "policy");
  if (m->memory_bytes % m->block_bytes != 0 || m->memory_bytes / m->block_bytes > MAX_BLOCKS)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "em: M=%" G_GUINT64_FORMAT " must be a "
                   "multiple of B=%" G_GUINT64_FORMAT " and hold at most %u blocks",
                   m->memory_bytes, m->block_bytes, MAX_BLOCKS);
      return FALSE;
    }
  m->capacity = (guint32) (m->memory_bytes / m->block_bytes);
  /* Up to 2^28 blocks: checked before anything is allocated. Per block a dirty byte and, for lru,
   * a key and two links; opt's report sets up a slot's next use and block and a heap entry. */
  {
    guint64 used = 0;
    g_autofree char *what = g_strdup_printf ("M=%" G_GUINT64_FORMAT " of %u blocks of B=%"
                                             G_GUINT64_FORMAT " bytes", m->memory_bytes,
                                             m->capacity, m->block_bytes);
    if (!mdl_budget_take ("em", what, (guint64) m->capacity * (m->policy == POLICY_LRU ? 17 : 21),
                          &used, error))
      return FALSE;
  }
  m->block_shift = (guint) __builtin_ctzll (m->block_bytes);
  m->dirty = g_new0 (guint8, m->capacity);
  m->marks = g_array_new (FALSE, TRUE, sizeof (EmMark));
  g_array_set_clear_func (m->marks, mark_clear);
  m->phases = mdl_phase_ledger_new ();
  m->run_len = G_MAXSIZE;
  if (m->policy == POLICY_LRU)
    mdl_falru_init (&m->lru, m->capacity);
  else
    m->stored = g_array_new (FALSE, FALSE, sizeof (guint64));
  return TRUE;
}

static void
em_finalize (void *state)
{
  Em *m = state;
  if (m->policy == POLICY_LRU && m->lru.keys)
    mdl_falru_destroy (&m->lru);
  g_clear_pointer (&m->stored, g_array_unref);
  g_clear_pointer (&m->marks, g_array_unref);
  g_clear_pointer (&m->phases, mdl_phase_ledger_free);
  g_clear_pointer (&m->dirty, g_free);
}

static void
em_reset (void *state)
{
  Em *m = state;
  memset (&m->counts, 0, sizeof m->counts);
  memset (m->dirty, 0, m->capacity);
  g_array_set_size (m->marks, 0);
  mdl_phase_ledger_clear (m->phases);
  m->fetches_ignored = m->distinct = m->dirty_at_end = 0;
  m->run_len = G_MAXSIZE;
  if (m->policy == POLICY_LRU)
    mdl_falru_clear (&m->lru);
  else
    g_array_set_size (m->stored, 0);
}

/* ---- lru, online ----------------------------------------------------------------------------- */

static inline void
lru_ref (Em *m, guint64 block, gboolean write)
{
  gboolean fresh;
  guint32 node;
  guint64 evicted;
  m->counts.refs++;
  if (mdl_falru_ref (&m->lru, block, TRUE, &fresh, &node, &evicted))
    {
      m->counts.hits++;
      m->dirty[node] |= (guint8) write;
      return;
    }
  m->counts.misses++;
  /* The new block took the evicted block's node: its dirty bit is still the evicted one's. */
  if (evicted != G_MAXUINT64 && m->dirty[node])
    m->counts.writebacks++;
  m->dirty[node] = (guint8) write;
}

static gboolean
em_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Em *m = state;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e = &b->cpu[i];
      guint64 first, last;
      gboolean write;
      if (!mdl_cpu_is_access (e->kind))
        continue;
      if (e->flags & MDL_CPU_FLAG_FETCH)
        {
          m->fetches_ignored++;
          m->counts.fetches_ignored++;
          continue;
        }
      write = e->kind != MDL_CPU_READ;
      first = e->addr >> m->block_shift;
      last = (e->addr + e->size - 1) >> m->block_shift;
      if (e->addr + e->size - 1 < e->addr)
        last = G_MAXUINT64 >> m->block_shift;
      for (guint64 blk = first; blk <= last; blk++)
        {
          if (m->policy == POLICY_LRU)
            lru_ref (m, blk, write);
          else
            {
              guint64 rec = blk | (write ? WRITE_BIT : 0);
              if (G_UNLIKELY (m->stored->len >= MAX_STORED))
                {
                  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "em: policy=opt stores every "
                               "block reference and can hold at most %u; this stream has more "
                               "(use policy=lru, or a shorter trace)", MAX_STORED);
                  return FALSE;
                }
              g_array_append_val (m->stored, rec);
            }
        }
    }
  return TRUE;
}

/* ---- phases ----------------------------------------------------------------------------------- */

static gboolean
em_marker (void *state, const MdlMarker *mk, GError **error)
{
  Em *m = state;
  EmMark mark = { .begin = mk->kind == MDL_MARK_PHASE_BEGIN };
  if (!mark.begin && mk->kind != MDL_MARK_PHASE_END)
    return TRUE;
  if (!mdl_phase_ledger_nest (m->phases, mark.begin, mk->name, error))
    return FALSE;
  mark.name = g_strdup (mk->name);
  if (m->policy == POLICY_LRU)
    {
      mark.at = m->counts.refs;
      mark.snap = m->counts;
    }
  else
    {
      mark.at = m->stored->len;
      mark.snap.fetches_ignored = m->fetches_ignored;
    }
  g_array_append_val (m->marks, mark);
  return TRUE;
}

/* ---- opt, offline ------------------------------------------------------------------------------ */

/* An indexed binary max-heap of slots by next use (larger = needed later = evicted first). */
typedef struct {
  guint32 *item;        /* [cap] slots; item[0] has the largest key */
  guint32 *pos;         /* [cap] position of each slot */
  const guint32 *key;   /* [cap] next use of each slot (borrowed) */
  guint32 len;
} OptHeap;

static void
heap_place (OptHeap *h, guint32 i, guint32 s)
{
  h->item[i] = s;
  h->pos[s] = i;
}

static void
heap_up (OptHeap *h, guint32 i)
{
  guint32 s = h->item[i];
  while (i > 0 && h->key[h->item[(i - 1) / 2]] < h->key[s])
    {
      heap_place (h, i, h->item[(i - 1) / 2]);
      i = (i - 1) / 2;
    }
  heap_place (h, i, s);
}

static void
heap_down (OptHeap *h, guint32 i)
{
  guint32 s = h->item[i];
  for (;;)
    {
      guint32 c = 2 * i + 1;
      if (c >= h->len)
        break;
      if (c + 1 < h->len && h->key[h->item[c + 1]] > h->key[h->item[c]])
        c++;
      if (h->key[h->item[c]] <= h->key[s])
        break;
      heap_place (h, i, h->item[c]);
      i = c;
    }
  heap_place (h, i, s);
}

/* Runs MIN over the stored references, filling in the counts and the marks' snapshots. Idempotent:
 * a second call with no new references does nothing. */
static void
opt_run (Em *m)
{
  const guint64 *rec = (const guint64 *) (void *) m->stored->data;
  guint32 n = m->stored->len;
  guint32 *next_use, *slot_next;
  guint64 *slot_block;
  MdlU64Map where;     /* block -> last index seen (backward pass), then slot + 1 or 0 */
  OptHeap h;
  guint mark = 0;
  gboolean fresh;

  if (m->run_len == n)
    return;
  /* Next use of every reference, from one backward pass. */
  next_use = g_new (guint32, MAX (n, 1));
  mdl_u64map_init (&where, 1024);
  for (guint32 t = n; t-- > 0;)
    {
      guint64 *last = mdl_u64map_upsert (&where, rec[t] & ~WRITE_BIT, NEVER, &fresh);
      next_use[t] = (guint32) *last;
      *last = t;
    }
  m->distinct = where.len;
  for (gsize s = 0; s <= where.mask; s++)
    where.values[s] = 0;

  slot_next = g_new (guint32, m->capacity);
  slot_block = g_new (guint64, m->capacity);
  h.item = g_new (guint32, m->capacity);
  h.pos = g_new (guint32, m->capacity);
  h.key = slot_next;
  h.len = 0;
  memset (&m->counts, 0, sizeof m->counts);
  memset (m->dirty, 0, m->capacity);

  for (guint32 t = 0; t <= n; t++)
    {
      guint64 block;
      guint8 write;
      guint64 *where_slot;
      guint32 s;
      for (; mark < m->marks->len && g_array_index (m->marks, EmMark, mark).at == t; mark++)
        {
          EmMark *mk = &g_array_index (m->marks, EmMark, mark);
          guint64 fetches = mk->snap.fetches_ignored;
          mk->snap = m->counts;
          mk->snap.fetches_ignored = fetches;
        }
      if (t == n)
        break;
      block = rec[t] & ~WRITE_BIT;
      write = (rec[t] & WRITE_BIT) != 0;
      m->counts.refs++;
      where_slot = mdl_u64map_upsert (&where, block, 0, &fresh);
      if (*where_slot != 0)
        {
          s = (guint32) (*where_slot - 1);
          m->counts.hits++;
          m->dirty[s] |= write;
          slot_next[s] = next_use[t];   /* later than t, the old key: the slot moves up */
          heap_up (&h, h.pos[s]);
          continue;
        }
      m->counts.misses++;
      if (h.len < m->capacity)
        {
          s = h.len++;
          slot_block[s] = block;
          slot_next[s] = next_use[t];
          m->dirty[s] = write;
          heap_place (&h, s, s);
          heap_up (&h, s);
        }
      else
        {
          s = h.item[0];
          if (m->dirty[s])
            m->counts.writebacks++;
          where.values[mdl_u64map_slot (&where, slot_block[s])] = 0;
          where_slot = &where.values[mdl_u64map_slot (&where, block)];
          slot_block[s] = block;
          slot_next[s] = next_use[t];
          m->dirty[s] = write;
          heap_down (&h, 0);
        }
      *where_slot = (guint64) s + 1;
    }
  m->dirty_at_end = 0;
  for (guint32 s = 0; s < h.len; s++)
    m->dirty_at_end += m->dirty[s];
  m->counts.fetches_ignored = m->fetches_ignored;
  m->run_len = n;
  mdl_u64map_destroy (&where);
  g_free (next_use);
  g_free (slot_next);
  g_free (slot_block);
  g_free (h.item);
  g_free (h.pos);
}

/* ---- the report -------------------------------------------------------------------------------- */

static void
counts_report (const EmCounts *c, MdlReport *out)
{
  mdl_report_add_count (out, "block_refs", "count", "block references (an access straddling "
                        "blocks makes one per block)", NULL, c->refs);
  mdl_report_add_count (out, "hits", "count", "block references found in fast memory", NULL,
                        c->hits);
  mdl_report_add_count (out, "misses", "count", "block references that read the block (one "
                        "transfer each)", NULL, c->misses);
  mdl_report_add_count (out, "writebacks", "count", "dirty blocks written back on eviction (one "
                        "transfer each)", NULL, c->writebacks);
  mdl_report_add_count (out, "transfers", "count", "block transfers: misses + writebacks (the "
                        "EM cost)", NULL, c->misses + c->writebacks);
  mdl_report_add_count (out, "fetches_ignored", "count", "instruction fetch records skipped",
                        NULL, c->fetches_ignored);
}

static void
phase_fill (const guint64 *totals, MdlReport *phase, void *data)
{
  EmCounts c;
  (void) data;
  memcpy (&c, totals, sizeof c);
  counts_report (&c, phase);
}

/* The phases, from the marks and the counts at each. */
static void
phases_report (Em *m, MdlReport *out)
{
  mdl_phase_ledger_restart (m->phases);
  for (guint i = 0; i < m->marks->len; i++)
    {
      const EmMark *mk = &g_array_index (m->marks, EmMark, i);
      mdl_phase_ledger_mark (m->phases, mk->begin, mk->name,
                             (const guint64 *) (gconstpointer) &mk->snap, N_COUNTS);
    }
  mdl_phase_ledger_report (m->phases, out, phase_fill, NULL);
}

static void
em_report (void *state, MdlReport *out)
{
  Em *m = state;
  guint64 distinct, dirty_at_end = 0;
  if (m->policy == POLICY_OPT)
    {
      opt_run (m);
      distinct = m->distinct;
      dirty_at_end = m->dirty_at_end;
    }
  else
    {
      distinct = m->lru.where.len;
      for (guint32 i = 0; i < m->lru.len; i++)
        dirty_at_end += m->dirty[i];
    }
  counts_report (&m->counts, out);
  mdl_report_add_count (out, "distinct_blocks", "count", "blocks referenced at least once "
                        "(compulsory misses)", NULL, distinct);
  mdl_report_add_count (out, "dirty_at_end", "count", "dirty blocks still in fast memory at the "
                        "end (not charged)", NULL, dirty_at_end);
  mdl_report_add_count (out, "capacity_blocks", "count", "M/B, blocks of fast memory", NULL,
                        m->capacity);
  mdl_report_add_real (out, "miss_ratio", "ratio", "misses / block_refs", NULL,
                       m->counts.refs ? (double) m->counts.misses / (double) m->counts.refs : 0.0);
  phases_report (m, out);
}

const MdlEngineClass mdl_em_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "em",
  .summary = "external-memory (ideal cache) model: M bytes of B-byte blocks, lru or opt; block "
             "transfers",
  .params = em_params,
  .state_size = sizeof (Em),
  .init = em_init,
  .consume = em_consume,
  .marker = em_marker,
  .report = em_report,
  .reset = em_reset,
  .finalize = em_finalize,
  .flags = MDL_ENGINE_OWN_PHASES,
};
