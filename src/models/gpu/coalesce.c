/* The `coalesce` engine: what the memory system sees of each global and local warp instruction
 * (loads, stores, atomics and reductions counted apart: an atomic whose old values are unused,
 * MDL_WARP_ATOM_RED, is the SASS RED, which the H100 counts under `_op_red`; the others, CAS
 * included, are ATOMs under `_op_atom`). Atomics also report their same-address contention. Under
 * the sectors rule an atomic's sectors are counted per round (gpu_atomic_rounds: the lanes that
 * hit one address are served one per round), as the H100 counts them; its lines (L1 tags) are
 * the distinct lines, as for loads and stores. Geometry, for every rule: the distinct sectors
 * (sector_bytes) and lines (line_bytes) that the active lanes' bytes touch. Requests and
 * transactions follow the generation's rule (docs/models/gpu.md has the sources):
 *  - sectors (Volta to Hopper, measured on the H100): one request per warp instruction, whatever
 *    the width; a transaction per distinct 32-byte sector.
 *  - cc1.0 (compute capability 1.0/1.1, CUDA C Programming Guide 2.x, section 5.1.2.1; the
 *    Cederman notes): per half-warp, one transaction of 16 x width bytes (two of 128 for 16-byte
 *    words) when active lane k reads word k of a segment aligned to 16 x width; otherwise one
 *    transaction of max(32, width) bytes per active lane.
 *  - cc1.2 (compute capability 1.2/1.3, same section): per half-warp, repeatedly take the segment
 *    (32 bytes for 1-byte words, 64 for 2-byte, 128 otherwise) of the lowest unserved active lane,
 *    serve every lane inside it, shrink it to its used 64- or 32-byte half, count one transaction.
 *  - l1lines (Fermi/Kepler with loads cached in L1, CUDA C Programming Guide 4.x, compute
 *    capability 2.x): a request per warp (4-byte words), per half-warp (8) or per quarter-warp
 *    (16); loads move one 128-byte line per distinct line of a request, stores and atomics go to
 *    L2 in 32-byte segments. */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

enum { RULE_SECTORS, RULE_CC10, RULE_CC12, RULE_L1LINES };
enum { K_GLD, K_GST, K_GATOM, K_LLD, K_LST, K_LATOM, K_GRED, N_KINDS };

typedef struct {
  guint64 insts;
  guint64 requests;
  guint64 sectors;
  guint64 lines;
  guint64 transactions;
  guint64 transaction_bytes;
  guint64 requested_bytes;   /* active lanes x width */
} Counts;

typedef struct {
  Counts c[N_KINDS];
  GpuContention contention[2];   /* global atomics (ATOM), reductions (RED) */
  GpuAddrWarps addr_warps[2];
  guint rule;
  guint sector_shift;
  guint line_shift;
  GpuSet set;
  guint64 addrs[MDL_WARP_MAX_LANES];
  gboolean packed;           /* the instruction's lanes are one run at base + lane x stride,
                              * 0 <= stride <= width, none past 2^64 (packed_run()) */
  gboolean spread;           /* each lane in sectors and lines of its own (spread_lanes()) */
  guint64 base;
  guint64 stride;
} Coalesce;

static const MdlParamSpec coalesce_params[] = {
  { "rule", MDL_PARAM_CHOICE, "sectors", "coalesce_rule", 0, 0, "sectors|cc1.0|cc1.2|l1lines", 0,
    "how a warp's accesses become requests and transactions (docs/models/gpu.md)" },
  { "sector_bytes", MDL_PARAM_UINT, "32", "sector_bytes", 4, 4096, NULL, MDL_PARAM_POW2,
    "bytes per sector (the unit moved between L1 and L2)" },
  { "line_bytes", MDL_PARAM_UINT, "128", "line_bytes", 4, 65536, NULL, MDL_PARAM_POW2,
    "bytes per cache line (L1 tag)" },
  { NULL }
};

static gboolean
coalesce_init (void *state, const MdlParams *params, GError **error)
{
  Coalesce *c = state;
  guint64 sector = mdl_params_uint (params, "sector_bytes");
  guint64 line = mdl_params_uint (params, "line_bytes");
  if (line < sector)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "coalesce: line_bytes=%" G_GUINT64_FORMAT
                   " is smaller than sector_bytes=%" G_GUINT64_FORMAT, line, sector);
      return FALSE;
    }
  c->rule = mdl_params_choice (params, "rule");
  c->sector_shift = (guint) __builtin_ctzll (sector);
  c->line_shift = (guint) __builtin_ctzll (line);
  return TRUE;
}

/* TRUE when @e's active lanes, from address @lo to @hi (gpu_strided_ends()), are one run in the
 * strided form with 0 <= stride <= width (their bytes abut or overlap) and none wraps past the
 * top of the address space. */
static inline gboolean
packed_run (const MdlWarpEvent *e, guint64 lo, guint64 hi)
{
  guint64 low = e->active >> __builtin_ctzll (e->active);
  return (e->flags & MDL_WARP_STRIDED) && e->stride >= 0 && e->stride <= (gint64) e->width
         && (low & (low + 1)) == 0 && lo <= hi && hi <= hi + e->width - 1;
}

/* TRUE when every active lane of strided @e, from address @lo to @hi (gpu_strided_ends()), lies
 * within one sector of its own and one line of its own: lanes aligned to a power-of-two width no
 * wider than a sector (the base and stride multiples of it, so no lane straddles one), at least a
 * line apart, with none wrapping past 2^64 between the end lanes (a stride below 2^32 keeps their
 * span far below it). Then any lanes touch as many sectors, and lines, as they are (the
 * transposes' columns, large strides). */
static inline gboolean
spread_lanes (const Coalesce *c, const MdlWarpEvent *e, guint64 lo, guint64 hi)
{
  guint64 width = e->width, step = e->stride < 0 ? -(guint64) e->stride : (guint64) e->stride;
  return (e->flags & MDL_WARP_STRIDED) && width != 0 && (width & (width - 1)) == 0
         && width <= ((guint64) 1 << c->sector_shift) && ((e->base | step) & (width - 1)) == 0
         && step >= ((guint64) 1 << c->line_shift) && step <= G_MAXUINT32
         && (e->stride >= 0 ? lo <= hi : hi <= lo);
}

/* Units of 2^@shift bytes from the first byte of the run of lanes @lo .. @hi + @width - 1 to the
 * last (packed_run()). */
static inline guint64
run_units (guint64 lo, guint64 hi, guint width, guint shift)
{
  return ((hi + width - 1) >> shift) - (lo >> shift) + 1;
}

/* What every rule counts of an instruction: its sectors and lines, and the bytes asked for. */
static inline void
count_geometry (Counts *k, const MdlWarpEvent *e, guint64 sectors, guint64 lines)
{
  k->insts++;
  k->requested_bytes += (guint64) gpu_popcount (e->active) * e->width;
  k->sectors += sectors;
  k->lines += lines;
}

/* The sectors rule's requests and transactions: one request, a transaction per sector. */
static inline void
count_sector_transactions (const Coalesce *c, Counts *k, guint64 sectors)
{
  k->requests++;
  k->transactions += sectors;
  k->transaction_bytes += sectors << c->sector_shift;
}

/* Distinct units of 2^@shift bytes touched by the lanes of @lanes (bytes [a, a + width)) at
 * the addresses c->addrs: a set of them (not inlined: distinct_units()). */
static G_NO_INLINE guint64
set_units (Coalesce *c, guint64 lanes, guint width, guint shift)
{
  guint64 last = G_MAXUINT64;
  gpu_set_clear (&c->set);
  for (guint64 r = lanes; r; r &= r - 1)
    {
      guint64 a = c->addrs[__builtin_ctzll (r)];
      guint64 first = a >> shift, end = (a + width - 1) >> shift;
      for (guint64 u = first; u <= end; u++)
        if (u != last)
          {
            gpu_set_add (&c->set, u);
            last = u;
          }
    }
  return c->set.n;
}

/* Distinct units of 2^@shift bytes touched by the lanes of @lanes (bytes [a, a + width)). The
 * closed forms inline, the set apart: the set's registers made a call of every instruction save
 * and restore six of them. */
static inline guint64
distinct_units (Coalesce *c, guint64 lanes, guint width, guint shift)
{
  if (c->spread)
    return gpu_popcount (lanes);
  /* A run of lanes whose bytes abut or overlap (c->packed; @lanes is part of the run) covers
   * one range of bytes, so its units are those from the first byte's to the last's. */
  if (c->packed)
    return run_units (c->base + (guint64) __builtin_ctzll (lanes) * c->stride,
                      c->base + (guint64) (63 - __builtin_clzll (lanes)) * c->stride, width, shift);
  return set_units (c, lanes, width, shift);
}

/* Compute capability 1.0/1.1: one half-warp. */
static void
half_cc10 (Coalesce *c, Counts *k, guint64 lanes, guint base_lane, guint width)
{
  guint64 seg_bytes = 16 * (guint64) width;
  gboolean ok = width == 4 || width == 8 || width == 16;
  guint64 seg = 0;
  gboolean have = FALSE;
  for (guint64 r = lanes; r && ok; r &= r - 1)
    {
      guint l = (guint) __builtin_ctzll (r);
      guint64 a = c->addrs[l], start = a - (guint64) (l - base_lane) * width;
      ok = start % seg_bytes == 0 && (!have || start == seg);
      seg = start;
      have = TRUE;
    }
  if (ok)
    {
      guint n = width == 16 ? 2 : 1;
      k->transactions += n;
      k->transaction_bytes += width == 16 ? 256 : seg_bytes;
    }
  else
    {
      guint n = (guint) __builtin_popcountll (lanes);
      k->transactions += n;
      k->transaction_bytes += (guint64) n * MAX (32, width);
    }
}

/* Compute capability 1.2/1.3: one half-warp. */
static void
half_cc12 (Coalesce *c, Counts *k, guint64 lanes, guint width)
{
  guint64 seg_bytes = width == 1 ? 32 : width == 2 ? 64 : 128;
  while (lanes)
    {
      guint l = (guint) __builtin_ctzll (lanes);
      guint64 seg = c->addrs[l] & ~(seg_bytes - 1), lo = G_MAXUINT64, hi = 0, size = seg_bytes;
      for (guint64 r = lanes; r; r &= r - 1)
        {
          guint m = (guint) __builtin_ctzll (r);
          guint64 a = c->addrs[m];
          if ((a & ~(seg_bytes - 1)) != seg)
            continue;
          lo = MIN (lo, a);
          hi = MAX (hi, a + width - 1);
          lanes &= ~((guint64) 1 << m);
        }
      /* Shrink 128 -> 64 -> 32 while the used bytes fit in one half. */
      while (size > 32 && (lo & ~(size / 2 - 1)) == (hi & ~(size / 2 - 1)))
        size /= 2;
      k->transactions++;
      k->transaction_bytes += size;
    }
}

/* Counts the global or local load, store or atomic @e of @b (not inlined: coalesce_consume()). */
static G_NO_INLINE void
coalesce_access (Coalesce *c, const MdlEventBatch *b, const MdlWarpEvent *e)
{
  guint kind, width = e->width;
  guint64 sectors, lo, hi;
  Counts *k;
  kind = (e->space == MDL_SPACE_LOCAL ? K_LLD : K_GLD) + e->op;
  /* A global atomic whose old values no lane uses is a RED, which the H100 counts apart. */
  if (kind == K_GATOM && (e->flags & MDL_WARP_ATOM_RED))
    kind = K_GRED;
  k = &c->c[kind];
  gpu_strided_ends (e, &lo, &hi);
  /* The common case first: a load or store whose sectors and lines come from its end lanes. */
  if (c->rule == RULE_SECTORS && e->op != MDL_WARP_ATOMIC)
    {
      if (packed_run (e, lo, hi))
        {
          sectors = run_units (lo, hi, width, c->sector_shift);
          count_geometry (k, e, sectors, run_units (lo, hi, width, c->line_shift));
          count_sector_transactions (c, k, sectors);
          return;
        }
      if (spread_lanes (c, e, lo, hi))
        {
          sectors = gpu_popcount (e->active);
          count_geometry (k, e, sectors, sectors);
          count_sector_transactions (c, k, sectors);
          return;
        }
    }
  /* The sectors and l1lines rules of a packed run need no lane addresses (distinct_units);
   * atomics do (their rounds and contention). */
  c->packed = e->op != MDL_WARP_ATOMIC && packed_run (e, lo, hi)
              && (c->rule == RULE_SECTORS || c->rule == RULE_L1LINES);
  c->spread = !c->packed && e->op != MDL_WARP_ATOMIC && spread_lanes (c, e, lo, hi)
              && (c->rule == RULE_SECTORS || c->rule == RULE_L1LINES);
  c->base = e->base;
  c->stride = (guint64) e->stride;
  if (!c->packed && !c->spread)
    mdl_warp_addrs (b, e, c->addrs);
  if (kind == K_GATOM || kind == K_GRED)
    {
      gpu_contention_add (&c->contention[kind == K_GRED], c->addrs, e->active);
      gpu_addr_warps_add (&c->addr_warps[kind == K_GRED], c->addrs, e->active);
    }
  if ((kind == K_GATOM || kind == K_GRED) && c->rule == RULE_SECTORS)
    {
      /* An atomic visits its sectors once per round of distinct addresses (measured on the
       * H100: 32 lanes on one word are 32 sectors; docs/models/gpu.md, "Atomics"). */
      guint64 rounds[MDL_WARP_MAX_LANES];
      guint n = gpu_atomic_rounds (c->addrs, e->active, rounds);
      sectors = 0;
      for (guint r = 0; r < n; r++)
        sectors += distinct_units (c, rounds[r], width, c->sector_shift);
    }
  else
    sectors = distinct_units (c, e->active, width, c->sector_shift);
  count_geometry (k, e, sectors, distinct_units (c, e->active, width, c->line_shift));
  switch (c->rule)
    {
    case RULE_SECTORS:
      count_sector_transactions (c, k, sectors);
      break;
    case RULE_CC10:
    case RULE_CC12:
      k->requests++;
      for (guint h = 0; h < MDL_WARP_MAX_LANES; h += 16)
        {
          guint64 half = e->active & (G_GUINT64_CONSTANT (0xffff) << h);
          if (half == 0)
            continue;
          if (c->rule == RULE_CC10)
            half_cc10 (c, k, half, h, width);
          else
            half_cc12 (c, k, half, width);
        }
      break;
    case RULE_L1LINES:
      {
        guint group = width <= 4 ? 32 : width == 8 ? 16 : 8;   /* lanes per request */
        gboolean load = e->op == MDL_WARP_LOAD;
        guint shift = load ? c->line_shift : c->sector_shift;
        for (guint g = 0; g < MDL_WARP_MAX_LANES; g += group)
          {
            guint64 part = e->active & (gpu_group_mask (group) << g);
            guint64 n;
            if (part == 0)
              continue;
            k->requests++;
            n = distinct_units (c, part, width, shift);
            k->transactions += n;
            k->transaction_bytes += n << shift;
          }
        break;
      }
    }
}

static gboolean
coalesce_consume (void *state, const MdlEventBatch *b, GError **error)
{
  (void) error;
  /* Most events are neither global nor local accesses (ALU, branches, shared): a loop of one test
   * of the space passes them (the space is that of a memory op only, mdl_warp_event_check(); the
   * two are the odd spaces, one bit to test), the rest has a function of its own, so that the
   * loop keeps its pointers in registers. */
  G_STATIC_ASSERT ((MDL_SPACE_GLOBAL & MDL_SPACE_LOCAL & 1) && !((MDL_SPACE_NONE | MDL_SPACE_SHARED) & 1));
  if (b->n_warp == 0)   /* a CPU batch may have no warp array at all: NULL + 0 is undefined */
    return TRUE;
  for (const MdlWarpEvent *e = b->warp, *end = b->warp + b->n_warp; e < end; e++)
    if (G_UNLIKELY (e->space & 1) && mdl_warp_is_memory (e))
      coalesce_access (state, b, e);
  return TRUE;
}

static void
coalesce_report (void *state, MdlReport *out)
{
  static const struct {
    const char *prefix, *what, *op, *space;
  } kinds[N_KINDS] = {
    { "gld", "global loads", "ld", "global" },       { "gst", "global stores", "st", "global" },
    { "gatom", "global atomics", "atom", "global" }, { "lld", "local loads", "ld", "local" },
    { "lst", "local stores", "st", "local" },        { "latom", "local atomics", NULL, NULL },
    { "gred", "global reductions (atomics whose result is unused)", "red", "global" },
  };
  Coalesce *c = state;
  for (guint i = 0; i < N_KINDS; i++)
    {
      const Counts *k = &c->c[i];
      const char *p = kinds[i].prefix, *what = kinds[i].what;
      /* Nsight Compute names exist for the H100 rule only. */
      gboolean ncu = kinds[i].op != NULL && c->rule == RULE_SECTORS;
      char requests[128], sectors[128];
      if (i == K_LATOM && k->insts == 0)
        continue;   /* CUDA has no local atomics; shown only when a trace has some */
      if (ncu && mdl_report_keeps_names (out))   /* a phase snapshot needs no names */
        {
          mdl_gpu_concat (requests, sizeof requests, "l1tex__t_requests_pipe_lsu_mem_",
                          kinds[i].space, "_op_", kinds[i].op, ".sum", NULL);
          mdl_gpu_concat (sectors, sizeof sectors, "l1tex__t_sectors_pipe_lsu_mem_",
                          kinds[i].space, "_op_", kinds[i].op, ".sum", NULL);
        }
      mdl_gpu_report_add (out, p, "requests", "count", what,
                          "requests (warp instructions, split per the rule)",
                          ncu ? requests : NULL, k->requests);
      mdl_gpu_report_add (out, p, "sectors", "count", what,
                          "distinct 32-byte sectors per instruction, summed",
                          ncu ? sectors : NULL, k->sectors);
      /* Nsight Compute counts the L1 tag lookups of global loads, stores and atomics together:
       * the three global line counters carry the same metric, which `models measure` compares
       * with their sum. */
      mdl_gpu_report_add (out, p, "lines", "count", what,
                          "distinct 128-byte lines per instruction, summed",
                          ncu && (i <= K_GATOM || i == K_GRED)
                          ? "smsp__sass_l1tex_tags_mem_global.sum" : NULL,
                          k->lines);
      mdl_gpu_report_add (out, p, "transactions", "count", what,
                          "memory transactions under the rule", NULL, k->transactions);
      mdl_gpu_report_add (out, p, "transaction_bytes", "bytes", what,
                          "bytes moved by those transactions", NULL, k->transaction_bytes);
      mdl_gpu_report_add (out, p, "requested_bytes", "bytes", what,
                          "bytes the active lanes asked for", NULL, k->requested_bytes);
      if (i == K_GATOM || i == K_GRED)
        mdl_gpu_contention_report (out, p, what, &c->contention[i == K_GRED],
                                   &c->addr_warps[i == K_GRED]);
    }
}

static gboolean
coalesce_marker (void *state, const MdlMarker *m, GError **error)
{
  Coalesce *c = state;
  (void) error;
  if (m->kind == MDL_MARK_LAUNCH)
    for (guint i = 0; i < 2; i++)
      gpu_addr_warps_launch (&c->addr_warps[i]);
  return TRUE;
}

static void
coalesce_finalize (void *state)
{
  Coalesce *c = state;
  for (guint i = 0; i < 2; i++)
    gpu_addr_warps_free (&c->addr_warps[i]);
}

const MdlEngineClass mdl_coalesce_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "coalesce",
  .summary = "GPU global/local memory: requests, 32-byte sectors, 128-byte lines, transactions",
  .params = coalesce_params,
  .state_size = sizeof (Coalesce),
  .init = coalesce_init,
  .consume = coalesce_consume,
  .marker = coalesce_marker,
  .report = coalesce_report,
  .finalize = coalesce_finalize,
};
