/* Private to src/simt: the layout of the clocked schedule's latency table (clock.c), which
 * schedule.c reads at every global memory instruction. */
#ifndef MDL_SIMT_CLOCK_PRIVATE_H
#define MDL_SIMT_CLOCK_PRIVATE_H

#include <models/simt-clock.h>

struct MdlSimtClock {
  guint n_sms;
  guint64 *ps;              /* n_sms x MDL_SIMT_N_LAT picoseconds, SM by SM */
  MdlSimtEffect effect;     /* when a memory instruction acts on memory */
  guint jitter_percent;     /* per memory instruction, latency x 1 +- this % (0: none) */
  guint64 jitter_seed;
};

/* The latency @what of SM @sm of @clock (no checks: the hot path's). */
static inline guint64
mdl_simt_clock_ps (const MdlSimtClock *clock, guint sm, guint what)
{
  return clock->ps[(gsize) sm * MDL_SIMT_N_LAT + what];
}

#endif
