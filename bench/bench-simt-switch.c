/* The cost of a block switch in the SIMT layer's interleaved schedule (src/simt/schedule.c).
 *
 * RESIDENT one-thread blocks, all resident at once, each issue LOADS global loads of a word of
 * their own; the schedule switches to the next block after every one, so the launch makes
 * RESIDENT x LOADS switches (the last block's final loads, alone, less). No sink: the layer's
 * cost per instruction without the engines is a few tens of nanoseconds (bench-simt's "drop"),
 * so the time per instruction here is the switch's. Wall-clock seconds (a schedule on threads
 * spends its time in other threads and the kernel), best of REPEAT.
 *
 * Usage: bench-simt-switch [RESIDENT [LOADS [REPEAT]]]   (42, 20000 and 3 by default: the
 * 8800 GT's resident blocks at 32 threads) */
#include <models/models.h>

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  guint64 words;
  guint loads;
} Args;

static void
loads_kernel (MdlSimtBlock *b, void *p)
{
  const Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  at[0] = a->words + 4 * (guint64) b->idx_x;
  for (guint i = 0; i < a->loads; i++)
    mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
}

int
main (int argc, char **argv)
{
  guint resident = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 42;
  guint loads = argc > 2 ? (guint) strtoul (argv[2], NULL, 10) : 20000;
  guint repeat = argc > 3 ? (guint) strtoul (argv[3], NULL, 10) : 3;
  double best = G_MAXDOUBLE;
  guint64 switches = (guint64) resident * loads;
  if (resident < 2 || resident > MDL_SIMT_MAX_RESIDENT || loads == 0 || repeat == 0)
    {
      fprintf (stderr, "usage: bench-simt-switch [RESIDENT 2..%d [LOADS >= 1 [REPEAT >= 1]]]\n",
               MDL_SIMT_MAX_RESIDENT);
      return 1;
    }
  for (guint r = 0; r < repeat; r++)
    {
      g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
      g_autoptr (GError) error = NULL;
      Args a = { .words = mdl_simt_alloc (gpu, 4 * (gsize) resident, NULL), .loads = loads };
      MdlSimtLaunch shape = { .grid_x = resident, .block_x = 1, .resident = resident };
      double t0 = bench_now (), s;
      if (!mdl_simt_launch (gpu, &shape, loads_kernel, &a, &error))
        {
          fprintf (stderr, "bench-simt-switch: %s\n", error->message);
          return 1;
        }
      s = bench_now () - t0;
      best = MIN (best, s);
    }
  printf ("%u resident blocks, %u loads each: %" G_GUINT64_FORMAT " switches in %.3f s: "
          "%.3g switches/s, %.1f ns a switch\n", resident, loads, switches, best,
          (double) switches / best, best / (double) switches * 1e9);
  return 0;
}
