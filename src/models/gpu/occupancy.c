/* The `occupancy` engine: how many of a launch's blocks and warps an SM holds at once, and how
 * long the warps' chains of dependent global loads are.
 *
 * Occupancy (the rule of the CUDA occupancy calculator; the limits per SM are the machine
 * preset's): a block of T threads takes W = ceil(T / warp width) warp slots, S + reserved bytes of
 * shared memory rounded up to shared_alloc_bytes, and registers: with warp granularity,
 * ceil(regs x warp width / reg_alloc_unit) units per warp; with block granularity (compute
 * capability 1.x), regs x W' x warp width rounded up to the unit once per block, where W' is W
 * rounded up to a multiple of reg_warp_alloc (2 on 1.x: a one-warp block takes two warps'
 * registers, which is what makes Cederman's octree kernel drop from 3 to 1 block per SM when its
 * blocks pass 64 threads). The blocks an SM
 * holds are the least of max_blocks_per_sm, max_warps_per_sm / W, shared_bytes_per_sm / shared and
 * registers_per_sm / registers; a block of more than max_threads_per_block threads fits on none.
 * The kernel's registers per thread are not in the event stream:
 * `regs` gives them (0, the default: they never limit; the H100 holds 64 warps of up to 32).
 *
 * Load rounds: a warp waits for a global load only when it uses the value, so a run of loads that
 * it issues back to back is one wait. A round is a maximal run of a warp's global loads that no
 * other instruction of that warp interrupts (stores, shared accesses, arithmetic, barriers end it).
 * A launch's latency rounds are its rounds divided by the warps resident at once (its blocks, at
 * most SMs x blocks per SM, times W): with one round of each resident warp in flight at a time,
 * the launch lasts about latency_rounds x the memory latency when bandwidth does not bind first. A
 * twin gives the right rounds when it issues a batch of loads in the order the SASS does (e.g.
 * four loads before their four additions where nvcc unrolls a loop by four). */
#include <models/error.h>

#include "models/engines.h"
#include "models/u64map.h"

#include <math.h>

enum { LIMIT_BLOCKS, LIMIT_WARPS, LIMIT_SHARED, LIMIT_REGISTERS, N_LIMITS };
static const char *const limit_names[N_LIMITS] = { "blocks", "warps", "shared", "registers" };

typedef struct {
  guint32 block;             /* the block this warp slot last saw */
  gboolean seen;
  gboolean in_run;           /* its last instruction was a global load */
} WarpSlot;

typedef struct {
  /* machine and kernel */
  guint64 sm_count, max_warps, max_blocks, max_threads, shared_per_sm, shared_reserved, shared_unit;
  guint64 registers_per_sm, reg_unit, reg_warps, regs;
  gboolean reg_per_block;
  /* totals over closed launches */
  guint64 launches, blocks, threads, rounds;
  guint64 per_sm_min, per_sm_max, resident_max;   /* over placeable launches */
  guint64 limited[N_LIMITS];
  double waves, latency_rounds, warp_slots_used;   /* warp_slots_used: sum of resident warps/SM */
  guint64 unplaceable;       /* launches whose block fits on no SM */
  /* the open launch */
  gboolean open;
  guint64 open_rounds, open_resident_warps;
  WarpSlot *slots;
  guint n_slots;
  MdlU64Map runs;            /* (block << 16 | warp) -> in_run, for blocks whose events interleave */
} Occupancy;

static const MdlParamSpec occupancy_params[] = {
  { "sm_count", MDL_PARAM_UINT, "132", "sm_count", 1, 1u << 20, NULL, 0, "streaming multiprocessors" },
  { "max_warps_per_sm", MDL_PARAM_UINT, "64", "max_warps_per_sm", 1, 4096, NULL, 0,
    "warps an SM holds at once" },
  { "max_blocks_per_sm", MDL_PARAM_UINT, "32", "max_blocks_per_sm", 1, 4096, NULL, 0,
    "blocks an SM holds at once" },
  { "max_threads_per_block", MDL_PARAM_UINT, "1024", "max_threads_per_block", 1, 1u << 20, NULL, 0,
    "threads a block may have (a larger block is unplaceable, counted under the warps limit)" },
  { "shared_bytes_per_sm", MDL_PARAM_UINT, "233472", "shared_bytes_per_sm", 1, 0, NULL, 0,
    "shared memory of an SM at its largest carveout, in bytes" },
  { "shared_reserved_per_block", MDL_PARAM_UINT, "1024", "shared_reserved_per_block", 0, 0, NULL, 0,
    "shared bytes the system takes from each block (1 KiB from compute capability 8.0)" },
  { "shared_alloc_bytes", MDL_PARAM_UINT, "128", "shared_alloc_bytes", 1, 1u << 20, NULL,
    MDL_PARAM_POW2, "granularity of a block's shared memory" },
  { "registers_per_sm", MDL_PARAM_UINT, "65536", "registers_per_sm", 1, 0, NULL, 0,
    "32-bit registers of an SM" },
  { "reg_alloc_unit", MDL_PARAM_UINT, "256", "reg_alloc_unit", 1, 1u << 20, NULL, MDL_PARAM_POW2,
    "registers are allocated in units of this many" },
  { "reg_alloc", MDL_PARAM_CHOICE, "warp", "reg_alloc_rule", 0, 0, "warp|block", 0,
    "what a register unit is rounded for: each warp (compute capability 2.0 on) or each block" },
  { "reg_warp_alloc", MDL_PARAM_UINT, "1", "reg_warp_alloc", 1, 64, NULL, 0,
    "with reg_alloc=block, the warp count a block's registers are computed for is rounded up to a "
    "multiple of this (2 on compute capability 1.x)" },
  { "regs", MDL_PARAM_UINT, "0", NULL, 0, 255, NULL, 0,
    "registers per thread of the kernels (0: registers do not limit)" },
  { NULL }
};

static gboolean
occupancy_init (void *state, const MdlParams *params, GError **error)
{
  Occupancy *o = state;
  (void) error;
  o->sm_count = mdl_params_uint (params, "sm_count");
  o->max_warps = mdl_params_uint (params, "max_warps_per_sm");
  o->max_blocks = mdl_params_uint (params, "max_blocks_per_sm");
  o->max_threads = mdl_params_uint (params, "max_threads_per_block");
  o->shared_per_sm = mdl_params_uint (params, "shared_bytes_per_sm");
  o->shared_reserved = mdl_params_uint (params, "shared_reserved_per_block");
  o->shared_unit = mdl_params_uint (params, "shared_alloc_bytes");
  o->registers_per_sm = mdl_params_uint (params, "registers_per_sm");
  o->reg_unit = mdl_params_uint (params, "reg_alloc_unit");
  o->reg_per_block = mdl_params_choice (params, "reg_alloc") == 1;
  o->reg_warps = mdl_params_uint (params, "reg_warp_alloc");
  o->regs = mdl_params_uint (params, "regs");
  mdl_u64map_init (&o->runs, 64);
  return TRUE;
}

static guint64
round_up (guint64 x, guint64 unit)
{
  return (x + unit - 1) / unit * unit;
}

/* Blocks of @m's kernel one SM holds, and the limit that binds first (the earliest in
 * limit_names among equals, as Nsight Compute's report lists them). */
static guint64
blocks_per_sm (const Occupancy *o, const MdlMarker *m, guint *limiter)
{
  guint64 warps = (m->block_threads + m->warp_width - 1) / m->warp_width;
  guint64 shared = round_up (m->shared_bytes + o->shared_reserved, o->shared_unit);
  guint64 limit[N_LIMITS];
  guint64 best = G_MAXUINT64;
  limit[LIMIT_BLOCKS] = o->max_blocks;
  /* A block over the preset's thread limit does not launch at all (G80 and GT200: 512, though a
   * GT200 SM holds 32 warps, a 1024-thread block's worth). */
  limit[LIMIT_WARPS] = m->block_threads > o->max_threads ? 0 : o->max_warps / warps;
  limit[LIMIT_SHARED] = shared ? o->shared_per_sm / shared : G_MAXUINT64;
  limit[LIMIT_REGISTERS] = G_MAXUINT64;
  if (o->regs)
    {
      guint64 per_block = o->reg_per_block
                              ? round_up (o->regs * round_up (warps, o->reg_warps) * m->warp_width,
                                          o->reg_unit)
                              : warps * round_up (o->regs * m->warp_width, o->reg_unit);
      limit[LIMIT_REGISTERS] = o->registers_per_sm / per_block;
    }
  *limiter = LIMIT_BLOCKS;
  for (guint i = 0; i < N_LIMITS; i++)
    if (limit[i] < best)
      {
        best = limit[i];
        *limiter = i;
      }
  return best;
}

/* Adds the open launch's latency rounds to @total (report must not change the state). */
static double
open_latency_rounds (const Occupancy *o)
{
  return o->open && o->open_resident_warps
             ? (double) o->open_rounds / (double) o->open_resident_warps
             : 0;
}

static void
close_launch (Occupancy *o)
{
  o->latency_rounds += open_latency_rounds (o);
  o->rounds += o->open_rounds;
  o->open = FALSE;
  o->open_rounds = 0;
}

static gboolean
occupancy_marker (void *state, const MdlMarker *m, GError **error)
{
  Occupancy *o = state;
  guint64 warps, per_sm, resident_blocks;
  guint limiter;
  (void) error;
  if (m->kind == MDL_MARK_SYNC)
    {
      close_launch (o);
      return TRUE;
    }
  if (m->kind != MDL_MARK_LAUNCH)
    return TRUE;
  close_launch (o);
  warps = (m->block_threads + m->warp_width - 1) / m->warp_width;
  per_sm = blocks_per_sm (o, m, &limiter);
  o->launches++;
  o->blocks += m->grid_blocks;
  o->threads += (guint64) m->grid_blocks * m->block_threads;
  o->limited[limiter]++;
  if (per_sm == 0)
    {
      o->unplaceable++;
      return TRUE;
    }
  resident_blocks = MIN ((guint64) m->grid_blocks, o->sm_count * per_sm);
  o->per_sm_min = o->per_sm_max ? MIN (o->per_sm_min, per_sm) : per_sm;
  o->per_sm_max = MAX (o->per_sm_max, per_sm);
  o->resident_max = MAX (o->resident_max, resident_blocks);
  o->waves += (double) m->grid_blocks / (double) (o->sm_count * per_sm);
  o->warp_slots_used += (double) (per_sm * warps);
  o->open = TRUE;
  o->open_resident_warps = resident_blocks * warps;
  if (warps > o->n_slots)
    {
      o->slots = g_renew (WarpSlot, o->slots, warps);
      o->n_slots = (guint) warps;
    }
  memset (o->slots, 0, o->n_slots * sizeof *o->slots);
  mdl_u64map_clear (&o->runs);
  return TRUE;
}

static gboolean
occupancy_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Occupancy *o = state;
  (void) error;
  if (!o->open)
    return TRUE;
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *e = &b->warp[i];
      gboolean load = e->op == MDL_WARP_LOAD && e->space == MDL_SPACE_GLOBAL;
      WarpSlot *s;
      if (e->warp >= o->n_slots)
        continue;
      s = &o->slots[e->warp];
      if (!s->seen || s->block != e->block)
        {
          /* Another block on this warp index: the old one's run is parked, the new one's comes
           * back (a block that has not run yet has none). Blocks whose events interleave
           * (MdlSimtLaunch.resident) keep their runs apart; one after another, nothing changes. */
          gboolean inserted;
          if (s->seen)
            *mdl_u64map_upsert (&o->runs, (guint64) s->block << 16 | e->warp, 0, &inserted) =
              s->in_run;
          *s = (WarpSlot) { .block = e->block, .seen = TRUE,
                            .in_run = *mdl_u64map_upsert (&o->runs,
                                                          (guint64) e->block << 16 | e->warp, 0,
                                                          &inserted) != 0 };
        }
      o->open_rounds += load && !s->in_run;
      s->in_run = load;
    }
  return TRUE;
}

static void
occupancy_report (void *state, MdlReport *out)
{
  Occupancy *o = state;
  guint64 rounds = o->rounds + (o->open ? o->open_rounds : 0);
  double placed = (double) (o->launches - o->unplaceable);
  mdl_report_add_count (out, "launches", "count", "kernel launches", NULL, o->launches);
  mdl_report_add_count (out, "blocks", "count", "blocks of all launches", "launch__grid_size",
                        o->blocks);
  mdl_report_add_count (out, "threads", "count", "threads of all launches", "launch__thread_count",
                        o->threads);
  mdl_report_add_real (out, "waves", "ratio",
                       "blocks / (SMs x blocks an SM holds), summed over launches",
                       "launch__waves_per_multiprocessor", o->waves);
  mdl_report_add_real (out, "occupancy_pct", "percent",
                       "warps an SM holds in percent of max_warps_per_sm (the mean over launches)",
                       "sm__maximum_warps_per_active_cycle_pct",
                       placed > 0 ? 100.0 * o->warp_slots_used / (placed * (double) o->max_warps)
                                  : NAN);
  for (guint i = 0; i < N_LIMITS; i++)
    {
      g_autofree char *name = g_strdup_printf ("limited_by_%s", limit_names[i]);
      g_autofree char *what = g_strdup_printf ("launches whose blocks per SM the %s limit sets",
                                               limit_names[i]);
      mdl_report_add_count (out, name, "count", what, NULL, o->limited[i]);
    }
  mdl_report_add_count (out, "blocks_per_sm_min", "count",
                        "the fewest blocks an SM holds at once, over the launches", NULL,
                        o->per_sm_min);
  mdl_report_add_count (out, "blocks_per_sm_max", "count",
                        "the most blocks an SM holds at once, over the launches", NULL,
                        o->per_sm_max);
  mdl_report_add_count (out, "resident_blocks_max", "count",
                        "the most blocks of one launch resident at once (grid, at most SMs x "
                        "blocks per SM)", NULL, o->resident_max);
  mdl_report_add_count (out, "unplaceable", "count", "launches whose block fits on no SM", NULL,
                        o->unplaceable);
  mdl_report_add_count (out, "load_rounds", "count",
                        "runs of a warp's back-to-back global loads, summed over warps", NULL,
                        rounds);
  mdl_report_add_real (out, "latency_rounds", "count",
                       "load rounds / warps resident at once, summed over launches", NULL,
                       o->latency_rounds + open_latency_rounds (o));
}

static void
occupancy_finalize (void *state)
{
  Occupancy *o = state;
  g_free (o->slots);
  mdl_u64map_destroy (&o->runs);
}

const MdlEngineClass mdl_occupancy_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "occupancy",
  .summary = "GPU occupancy per launch (blocks and warps an SM holds, waves) and load latency rounds",
  .params = occupancy_params,
  .state_size = sizeof (Occupancy),
  .init = occupancy_init,
  .consume = occupancy_consume,
  .marker = occupancy_marker,
  .report = occupancy_report,
  .finalize = occupancy_finalize,
};
