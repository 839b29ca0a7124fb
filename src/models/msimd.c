/* The `msimd` engine: Jurkiewicz & Danilewski's MSIMD(P, S, M) over the SIMT warp stream.
 * P SIMD-processors of S lanes; global memory is 4-byte cells in aligned chunks of S cells.
 * Thread t of block b of a launch (linear id g = b x block_threads + t) belongs to
 * SIMD-processor floor(g / S) mod P; a warp instruction is cut into groups of min(S, warp width)
 * lanes, one SIMD-processor step each. Per group:
 *  - global load: reads += chunks; store: writes += chunks; atomic: both. chunks = distinct
 *    floor(cell / S) (policy=chunk, reading (a)), or 1 when all cells lie in one chunk and one
 *    per active lane otherwise (policy=serial, reading (b)); lanes sharing a cell or chunk cost
 *    one operation (arbitrary CRCW);
 *    an atomic's lanes on one cell are as many operations (they update it one after the other);
 *  - any other instruction (ALU, branch, jump, shuffle, vote, shared or local access): steps += 1;
 *    barrier arrivals are not steps. Both sides of a divergent branch arrive as instructions, so they
 *    are charged (the SIMT stream cannot express the model's free divergence).
 * T = M (reads + writes) + steps per SIMD-processor; cost = sum over epochs (intervals between
 * global syncs, MDL_MARK_SYNC) of the largest T of any SIMD-processor in the epoch.
 * Races: a cell read by one SIMD-processor and written by another in one epoch (ww=1: also
 * written by two); race=error stops with the cell, both processors and the epoch.
 * Memory: a cell one SIMD-processor alone touched in the epoch is one 32-bit word (that processor,
 * read, written) in pages of a table by address, recycled at every sync; only a cell a second
 * processor touches gets the full record of who touched it, which its word then points to. So
 * the detector holds 4 bytes per cell the busiest epoch touches (512 MiB for reduce/tree at
 * n = 2^27, where a map of records held over 100 bytes per cell), and most lookups are an array
 * access.
 * Rules: spec msimd-jurkiewicz-danilewski.md §1.2-1.4, docs/models/msimd.md. */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"
#include "models/pages.h"

#include <string.h>

#define CELL_SHIFT 2   /* cells are 4 bytes */
#define CELL_BYTES (1u << CELL_SHIFT)
#define NONE G_MAXUINT32
#define LANE_CELLS 17   /* cells one lane's access touches at most: 64 bytes, misaligned */
#define PAGE_SHIFT 12   /* cells per page of the state table: 4096 (16 KiB) */
#define PAGE_CELLS (1u << PAGE_SHIFT)

/* The state word of a cell in the epoch: 0 (untouched), or SEEN with the first processor in the
 * low bits (P <= 2^20) and whether it read and wrote the cell; once a second processor touched it,
 * SEEN, SHARED and the index of the cell's CellUse, which tells the rest (2^30 of them would take
 * 20 GiB). */
#define CELL_PROC 0x000fffffu
#define CELL_USE 0x3fffffffu
#define CELL_READ (1u << 28)
#define CELL_WRITTEN (1u << 29)
#define CELL_SHARED (1u << 30)
#define CELL_SEEN (1u << 31)

enum { POLICY_CHUNK, POLICY_SERIAL };
enum { RACE_COUNT, RACE_ERROR };

typedef struct {
  guint64 reads, writes, steps;   /* this epoch */
} Proc;

/* Who touched a cell that two processors touched in this epoch: the first two distinct readers
 * and writers (two distinct ones answer "did one other than p read it?"). */
typedef struct {
  guint32 r1, r2, w1, w2;
  gboolean reported;
} CellUse;

typedef struct {
  guint64 P, S, M;
  guint S_shift;                 /* log2 S */
  guint64 last_proc_of;          /* the SIMD-processor index floor(g / S) last mapped, +1 (0: none) */
  guint32 last_proc;             /* and its processor, floor(g / S) mod P */
  guint policy, race_policy;
  gboolean ww;
  guint64 reads, writes, steps, cost, syncs, races, epoch;
  guint warp_width;
  guint32 block_threads;
  Proc *procs;                   /* P */
  MdlPages states;               /* page cell >> PAGE_SHIFT: the state words of its cells */
  GArray *uses;                  /* CellUse */
  guint64 addrs[MDL_WARP_MAX_LANES];
  GpuAtomicChain chain;      /* global atomics' chains and CAS lanes (counted, not charged) */
  guint64 chain_addrs[MDL_WARP_MAX_LANES];
  guint64 cells_buf[MDL_WARP_MAX_LANES * LANE_CELLS];
  guint64 chunks_buf[MDL_WARP_MAX_LANES * LANE_CELLS];
} Msimd;

static const MdlParamSpec msimd_params[] = {
  { "P", MDL_PARAM_UINT, "480", NULL, 1, 1u << 20, NULL, 0, "SIMD-processors" },
  { "S", MDL_PARAM_UINT, "32", "warp_width", 1, MDL_WARP_MAX_LANES, NULL, MDL_PARAM_POW2,
    "lanes per SIMD-processor = cells per global chunk" },
  { "M", MDL_PARAM_UINT, "1024", NULL, 1, 0, NULL, 0,
    "cost of one global operation in SIMD steps (the paper asks M = Omega(S^2))" },
  { "policy", MDL_PARAM_CHOICE, "chunk", NULL, 0, 0, "chunk|serial", 0,
    "global access: one operation per chunk, or serialized per lane unless one chunk" },
  { "race", MDL_PARAM_CHOICE, "count", NULL, 0, 0, "count|error", 0,
    "on a race: count it, or stop with an error naming the cell" },
  { "ww", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "writes of one cell by two SIMD-processors in an epoch are races too (0: arbitrary winner)" },
  { NULL }
};

static gboolean
msimd_init (void *state, const MdlParams *params, GError **error)
{
  Msimd *m = state;
  (void) error;
  m->P = mdl_params_uint (params, "P");
  m->S = mdl_params_uint (params, "S");
  m->S_shift = (guint) __builtin_ctzll (m->S);
  m->M = mdl_params_uint (params, "M");
  m->policy = mdl_params_choice (params, "policy");
  m->race_policy = mdl_params_choice (params, "race");
  m->ww = mdl_params_bool (params, "ww");
  m->warp_width = 32;
  m->block_threads = 32;
  m->procs = g_new0 (Proc, m->P);
  mdl_pages_init (&m->states, PAGE_CELLS * sizeof (guint32));
  m->uses = g_array_new (FALSE, FALSE, sizeof (CellUse));
  return TRUE;
}

static void
msimd_finalize (void *state)
{
  Msimd *m = state;
  g_free (m->procs);
  gpu_atomic_chain_free (&m->chain);
  mdl_pages_destroy (&m->states);
  if (m->uses)
    g_array_free (m->uses, TRUE);
}

/* The largest T of any SIMD-processor in the open epoch. */
static guint64
epoch_cost (const Msimd *m)
{
  guint64 worst = 0;
  for (guint64 p = 0; p < m->P; p++)
    {
      const Proc *q = &m->procs[p];
      guint64 t = m->M * (q->reads + q->writes) + q->steps;
      worst = MAX (worst, t);
    }
  return worst;
}

/* Forgets who touched which cell: the pages go back to the pool, cleared when next handed out. */
static void
forget_cells (Msimd *m)
{
  mdl_pages_recycle (&m->states);
  g_array_set_size (m->uses, 0);
}

static void
close_epoch (Msimd *m)
{
  m->cost += epoch_cost (m);
  memset (m->procs, 0, m->P * sizeof m->procs[0]);
  forget_cells (m);
  m->epoch++;
}

/* The state word of @cell in this epoch. */
static inline guint32 *
cell_state (Msimd *m, guint64 cell)
{
  guint32 *page = (guint32 *) (void *) mdl_pages_get (&m->states, cell >> PAGE_SHIFT);
  return &page[cell & (PAGE_CELLS - 1)];
}

/* Records that processor @p reads (@write FALSE) or writes cell @cell; checks the race rule. */
static gboolean
touch (Msimd *m, guint64 cell, guint32 p, gboolean write, GError **error)
{
  guint32 *state = cell_state (m, cell), first = *state & CELL_PROC;
  CellUse *u;
  guint32 other = NONE;
  const char *what = "read";
  /* One processor so far, and it is @p: no race can arise yet. */
  if (!(*state & CELL_SEEN) || (!(*state & CELL_SHARED) && first == p))
    {
      *state |= CELL_SEEN | p | (write ? CELL_WRITTEN : CELL_READ);
      return TRUE;
    }
  if (!(*state & CELL_SHARED))
    {
      /* The record of the cell's first processor is exactly what its state word says. */
      CellUse fresh = { *state & CELL_READ ? first : NONE, NONE,
                        *state & CELL_WRITTEN ? first : NONE, NONE, FALSE };
      g_array_append_val (m->uses, fresh);
      *state = CELL_SEEN | CELL_SHARED | (m->uses->len - 1);
    }
  u = &g_array_index (m->uses, CellUse, *state & CELL_USE);
  if (write)
    {
      if (u->r1 != NONE && u->r1 != p)
        other = u->r1;
      else if (u->r2 != NONE && u->r2 != p)
        other = u->r2;
      else if (m->ww && ((u->w1 != NONE && u->w1 != p) || (u->w2 != NONE && u->w2 != p)))
        other = u->w1 != p ? u->w1 : u->w2, what = "written";
      if (u->w1 == NONE)
        u->w1 = p;
      else if (u->w1 != p && u->w2 == NONE)
        u->w2 = p;
    }
  else
    {
      if (u->w1 != NONE && u->w1 != p)
        other = u->w1;
      else if (u->w2 != NONE && u->w2 != p)
        other = u->w2;
      what = "written";
      if (u->r1 == NONE)
        u->r1 = p;
      else if (u->r1 != p && u->r2 == NONE)
        u->r2 = p;
    }
  if (other == NONE || u->reported)
    return TRUE;
  u->reported = TRUE;
  m->races++;
  if (m->race_policy == RACE_ERROR)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "msimd: race on cell %" G_GUINT64_FORMAT
                   " (byte %" G_GUINT64_FORMAT "): %s by SIMD-processor %u and %s by "
                   "SIMD-processor %u in epoch %" G_GUINT64_FORMAT " (no global sync between)",
                   cell, cell * CELL_BYTES, write ? "written" : "read", p, what, other, m->epoch);
      return FALSE;
    }
  return TRUE;
}

/* touch(), with its common case inline: a cell no other processor has touched (a call per cell
 * was most of msimd's time on a stream of whole-warp reads). */
static inline gboolean
touch_cell (Msimd *m, guint64 cell, guint32 p, gboolean write, GError **error)
{
  guint32 *state = cell_state (m, cell);
  if (!(*state & CELL_SEEN) || (!(*state & CELL_SHARED) && (*state & CELL_PROC) == p))
    {
      *state |= CELL_SEEN | p | (write ? CELL_WRITTEN : CELL_READ);
      return TRUE;
    }
  return touch (m, cell, p, write, error);
}

/* Global operations of one step whose cells are m->cells_buf[0..n) from @lanes active lanes. */
static guint64
chunk_ops (Msimd *m, guint n, guint lanes)
{
  guint64 chunks;
  for (guint i = 0; i < n; i++)
    m->chunks_buf[i] = m->cells_buf[i] >> m->S_shift;
  chunks = mdl_gpu_sort_unique (m->chunks_buf, n);
  if (m->policy == POLICY_SERIAL && chunks > 1)
    return lanes;
  return chunks;
}

static gboolean
msimd_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  Msimd *m = state;
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      /* The machine's instructions are not the algorithm's (MDL_WARP_MACHINE). */
      if (e->flags & MDL_WARP_MACHINE)
        continue;
      guint span = (guint) MIN (m->S, (guint64) m->warp_width);
      guint64 group_mask = gpu_group_mask (span);
      gboolean global = mdl_warp_is_memory (e) && e->space == MDL_SPACE_GLOBAL, lanes = FALSE;
      guint64 word0 = 0;
      if (e->op == MDL_WARP_BARRIER)
        continue;
      /* Lanes of one cell each (gpu_lane_words) need no addresses. */
      if (global && !(lanes = gpu_lane_words (e, CELL_SHIFT, &word0)))
        mdl_warp_addrs (batch, e, m->addrs);
      if (global && e->op == MDL_WARP_ATOMIC)
        {
          mdl_warp_addrs (batch, e, m->chain_addrs);
          gpu_atomic_chain_add (&m->chain, e, m->chain_addrs);
        }
      for (guint g = 0; g < MDL_WARP_MAX_LANES; g += span)
        {
          guint64 group = e->active & (group_mask << g);
          guint64 thread = (guint64) e->block * m->block_threads + (guint64) e->warp * m->warp_width + g;
          guint32 p;
          Proc *q;
          guint n;
          guint64 ops;
          if (!group)
            continue;
          /* Runs of events come from one warp: the modulo (a division) once per run. */
          if ((thread >> m->S_shift) + 1 != m->last_proc_of)
            {
              m->last_proc_of = (thread >> m->S_shift) + 1;
              m->last_proc = (guint32) ((thread >> m->S_shift) % m->P);
            }
          p = m->last_proc;
          q = &m->procs[p];
          if (!global)
            {
              q->steps++;
              m->steps++;
              continue;
            }
          if (lanes)
            {
              /* Cells word0 + l: their chunks from the lane mask. */
              n = 0;
              for (guint64 r = group; r; r &= r - 1)
                m->cells_buf[n++] = word0 + (guint64) __builtin_ctzll (r);
              ops = gpu_lane_chunks (group, word0 & (m->S - 1), m->S_shift);
              if (m->policy == POLICY_SERIAL && ops > 1)
                ops = n;
            }
          else
            {
              n = gpu_group_words (m->addrs, group, e->width, CELL_SHIFT, m->cells_buf);
              ops = chunk_ops (m, n, gpu_popcount (group));
              /* The model's CRCW combines a group's reads and writes of one cell into one
               * operation, but not an atomic's updates: those of one cell follow one another
               * (docs/models/msimd.md, "Warp primitives"). A strided one-cell-per-lane atomic
               * above has one lane per cell. */
              if (e->op == MDL_WARP_ATOMIC)
                {
                  guint64 rounds[MDL_WARP_MAX_LANES];
                  ops = MAX (ops, (guint64) gpu_atomic_rounds (m->addrs, group, rounds));
                }
            }
          if (e->op != MDL_WARP_STORE)
            q->reads += ops, m->reads += ops;
          if (e->op != MDL_WARP_LOAD)
            q->writes += ops, m->writes += ops;
          for (guint j = 0; j < n; j++)
            {
              if (e->op != MDL_WARP_STORE && !touch_cell (m, m->cells_buf[j], p, FALSE, error))
                return FALSE;
              if (e->op != MDL_WARP_LOAD && !touch_cell (m, m->cells_buf[j], p, TRUE, error))
                return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
msimd_marker (void *state, const MdlMarker *mk, GError **error)
{
  Msimd *m = state;
  (void) error;
  if (mk->kind == MDL_MARK_SYNC)
    {
      close_epoch (m);
      m->syncs++;
    }
  else if (mk->kind == MDL_MARK_LAUNCH)
    {
      gpu_atomic_chain_launch (&m->chain);
      m->warp_width = mk->warp_width ? mk->warp_width : 32;
      m->block_threads = mk->block_threads;
    }
  return TRUE;
}

static void
msimd_report (void *state, MdlReport *out)
{
  Msimd *m = state;
  mdl_report_add_count (out, "reads", "count", "global read operations (chunks), all "
                        "SIMD-processors", NULL, m->reads);
  mdl_report_add_count (out, "writes", "count", "global write operations (chunks), all "
                        "SIMD-processors", NULL, m->writes);
  mdl_report_add_count (out, "steps", "count", "SIMD steps (non-global instructions), all "
                        "SIMD-processors", NULL, m->steps);
  mdl_report_add_count (out, "cost", "count", "T: per epoch the largest M (reads + writes) + "
                        "steps of a SIMD-processor, summed over epochs", NULL,
                        m->cost + epoch_cost (m));
  mdl_report_add_count (out, "syncs", "count", "global synchronisations", NULL, m->syncs);
  mdl_report_add_count (out, "races", "count", "cells read (ww=1: or written) by one "
                        "SIMD-processor and written by another in one epoch", NULL, m->races);
  mdl_gpu_atomic_chain_report (out, &m->chain);
}

static void
msimd_reset (void *state)
{
  Msimd *m = state;
  m->reads = m->writes = m->steps = m->cost = m->syncs = m->races = m->epoch = 0;
  gpu_atomic_chain_free (&m->chain);
  m->chain = (GpuAtomicChain) { 0 };
  m->warp_width = 32;
  m->block_threads = 32;
  memset (m->procs, 0, m->P * sizeof m->procs[0]);
  forget_cells (m);
}

const MdlEngineClass mdl_msimd_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "msimd",
  .summary = "MSIMD (Jurkiewicz & Danilewski): chunked global reads/writes, SIMD steps, races",
  .params = msimd_params,
  .state_size = sizeof (Msimd),
  .init = msimd_init,
  .consume = msimd_consume,
  .marker = msimd_marker,
  .report = msimd_report,
  .reset = msimd_reset,
  .finalize = msimd_finalize,
};
