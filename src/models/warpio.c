/* The `warpio` engine: the warp-centric I/O model of Jurkiewicz's thesis (§4.1) over the SIMT
 * warp stream. A processor is a warp: warp w of block b of a launch with W warps per block is
 * processor g = b x W + w (P=0), or g mod P (P set: P warps share the machine's P processors).
 * Global memory is cut into blocks of S elements of `elem` bytes. Costs:
 *  - a global load, store or atomic of the algorithm (MDL_WARP_MACHINE skipped) costs its warp
 *    one exchange per distinct block its active lanes' bytes touch;
 *  - everything else (shared and local memory, ALU, shuffles, barriers) is free: the model counts
 *    only I/O, and what happens inside a processor's cache is free.
 * An epoch runs from one global synchronisation (MDL_MARK_SYNC, or a new launch) to the next; its
 * turns are the most exchanges of any processor in it, and `turns` sums the epochs (the thesis's
 * t). The report adds the lower bounds of include/models/warpio.h when n is given, with P the
 * parameter or else the most processors any epoch used.
 * Rules: spec vat-thesis-jurkiewicz.md §5.9, docs/models/warpio.md. */
#include <models/error.h>
#include <models/warpio.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"
#include "models/u64map.h"

#include <math.h>

#define LANE_BLOCKS 65   /* blocks one lane's access touches at most: 64 bytes in 1-byte blocks */

typedef struct {
  guint64 S, elem, block_bytes, P, c, l, n;
  /* totals over closed epochs */
  guint64 exchanges, turns, epochs, processors;
  /* the open epoch */
  gboolean open;
  guint32 launch;
  guint32 warps_per_block;
  guint64 worst;             /* most exchanges of one processor */
  MdlU64Map charged;         /* processor -> exchanges */
  guint64 addrs[MDL_WARP_MAX_LANES];
  guint64 blocks[MDL_WARP_MAX_LANES * LANE_BLOCKS];
} Warpio;

static const MdlParamSpec warpio_params[] = {
  { "S", MDL_PARAM_UINT, "32", "warp_width", 1, 1u << 20, NULL, 0,
    "elements per global block (the thesis's S; a warp's lanes)" },
  { "elem", MDL_PARAM_UINT, "4", NULL, 1, 64, NULL, 0, "bytes per element" },
  { "P", MDL_PARAM_UINT, "0", NULL, 0, 0, NULL, 0,
    "processors (0: each warp of a launch is its own processor)" },
  { "c", MDL_PARAM_UINT, "8", NULL, 1, 1u << 20, NULL, 0,
    "cache of c x S elements per processor (bounds only)" },
  { "l", MDL_PARAM_UINT, "1", NULL, 1, 1u << 20, NULL, 0,
    "warps communicating through one cache: the bounds use c x l (bounds only)" },
  { "n", MDL_PARAM_UINT, "0", NULL, 0, 0, NULL, 0,
    "elements for the lower bounds (0: no bounds, NaN)" },
  { NULL }
};

static gboolean
warpio_init (void *state, const MdlParams *params, GError **error)
{
  Warpio *w = state;
  w->S = mdl_params_uint (params, "S");
  w->elem = mdl_params_uint (params, "elem");
  w->block_bytes = w->S * w->elem;
  w->P = mdl_params_uint (params, "P");
  w->c = mdl_params_uint (params, "c");
  w->l = mdl_params_uint (params, "l");
  w->n = mdl_params_uint (params, "n");
  if (w->c * w->l < 2)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "warpio: c x l = 1; the bounds need a cache "
                   "of at least two blocks (one block can only be written back as read)");
      return FALSE;
    }
  w->warps_per_block = 1;
  mdl_u64map_init (&w->charged, 64);
  return TRUE;
}

static void
warpio_finalize (void *state)
{
  Warpio *w = state;
  if (w->charged.keys)
    mdl_u64map_destroy (&w->charged);
}

static void
close_epoch (Warpio *w)
{
  if (!w->open)
    return;
  w->turns += w->worst;
  w->epochs++;
  w->processors = MAX (w->processors, (guint64) w->charged.len);
  w->worst = 0;
  mdl_u64map_clear (&w->charged);
  w->open = FALSE;
}

static void
open_epoch (Warpio *w, guint32 launch)
{
  close_epoch (w);
  w->open = TRUE;
  w->launch = launch;
}

/* Distinct blocks the active lanes of @e touch, each lane's bytes addr .. addr + width - 1. */
static guint64
exchanges_of (Warpio *w, const MdlEventBatch *batch, const MdlWarpEvent *e)
{
  guint n = 0;
  mdl_warp_addrs (batch, e, w->addrs);
  for (guint64 mask = e->active; mask; mask &= mask - 1)
    {
      guint64 a = w->addrs[__builtin_ctzll (mask)];
      guint64 last = (a + e->width - 1) / w->block_bytes;
      for (guint64 b = a / w->block_bytes; b <= last; b++)
        w->blocks[n++] = b;
    }
  return mdl_gpu_sort_unique (w->blocks, n);
}

static gboolean
warpio_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  Warpio *w = state;
  (void) error;
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      guint64 proc, *t, x;
      gboolean inserted;
      if (e->flags & MDL_WARP_MACHINE || !mdl_warp_is_memory (e) || e->space != MDL_SPACE_GLOBAL)
        continue;
      if (!w->open || e->launch != w->launch)
        open_epoch (w, e->launch);
      x = exchanges_of (w, batch, e);
      proc = (guint64) e->block * w->warps_per_block + e->warp;
      if (w->P)
        proc %= w->P;
      t = mdl_u64map_upsert (&w->charged, proc, 0, &inserted);
      *t += x;
      w->exchanges += x;
      w->worst = MAX (w->worst, *t);
    }
  return TRUE;
}

static gboolean
warpio_marker (void *state, const MdlMarker *m, GError **error)
{
  Warpio *w = state;
  (void) error;
  if (m->kind == MDL_MARK_SYNC)
    close_epoch (w);
  else if (m->kind == MDL_MARK_LAUNCH)
    {
      guint width = m->warp_width ? m->warp_width : 32;
      close_epoch (w);   /* the next epoch opens at its first exchange */
      w->launch = m->launch;
      w->warps_per_block = MAX (1u, (m->block_threads + width - 1) / width);
    }
  return TRUE;
}

static void
warpio_report (void *state, MdlReport *out)
{
  Warpio *w = state;
  guint64 procs = w->P ? w->P : MAX (w->processors, (guint64) w->charged.len);
  MdlWarpioBound b = { NAN, NAN, NAN, NAN };
  if (w->n && procs)
    mdl_warpio_bound (w->n, procs, w->S, w->c, w->l, &b, NULL);
  mdl_report_add_count (out, "turns", "count", "I/O turns t: the most exchanges of one processor, "
                        "summed over epochs", NULL, w->turns + w->worst);
  mdl_report_add_count (out, "exchanges", "count", "block exchanges of all processors", NULL,
                        w->exchanges);
  mdl_report_add_count (out, "epochs", "count", "epochs (between global syncs and launches) "
                        "with global accesses", NULL, w->epochs + w->open);
  mdl_report_add_peak (out, "processors", "count", "most processors with an exchange in one "
                       "epoch", NULL, MAX (w->processors, (guint64) w->charged.len));
  mdl_report_add_real (out, "bound_permute", "count", "least t any permutation of n needs "
                       "(exact counting inequality; NaN without n)", NULL, b.permute);
  mdl_report_add_real (out, "bound_permute_relaxed", "count", "the thesis's closed form of the "
                       "permutation bound", NULL, b.permute_relaxed);
  mdl_report_add_real (out, "bound_sort", "count", "least t any comparison sort of n needs "
                       "(exact)", NULL, b.sort);
  mdl_report_add_real (out, "bound_sort_relaxed", "count", "closed form of the sorting bound",
                       NULL, b.sort_relaxed);
}

static void
warpio_reset (void *state)
{
  Warpio *w = state;
  w->exchanges = w->turns = w->epochs = w->processors = w->worst = 0;
  w->open = FALSE;
  w->warps_per_block = 1;
  mdl_u64map_clear (&w->charged);
}

const MdlEngineClass mdl_warpio_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "warpio",
  .summary = "warp-centric I/O (Jurkiewicz): block exchanges per warp, turns, sorting bounds",
  .params = warpio_params,
  .state_size = sizeof (Warpio),
  .init = warpio_init,
  .consume = warpio_consume,
  .marker = warpio_marker,
  .report = warpio_report,
  .reset = warpio_reset,
  .finalize = warpio_finalize,
};
