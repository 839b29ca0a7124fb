/* Private to src/experiments: latencies that microbenchmarks measure on this machine
 * (probe.c), set beside the fitted costs of the CPU cost model so that each coefficient has a
 * physical reading to be judged by. */
#ifndef MDL_EXPERIMENTS_PROBE_H
#define MDL_EXPERIMENTS_PROBE_H

#include <glib.h>

/**
 * MdlProbe: ns per access, the minimum over a few runs; NaN where not measured.
 * @chase_ns: a dependent pointer chase (each load's address is the previous load's value) over a
 *   buffer of @chase_bytes, one 64-byte line per node in random cyclic order: [0] fits L1, [1]
 *   L2, [2] L3, [3] exceeds L3 (all with 2 MiB pages asked for (madvise), so no walks),
 *   [4] the same as [3] on 4 KiB pages (a walk per access on top). [3] exceeds L3 only when
 *   the memory bound lets it (see mdl_probe_run).
 * @random_ns: independent random 8-byte loads over the same buffers as @chase_ns (same sizes and
 *   pages): the addresses come from an array, not from loaded values, so the core issues many at
 *   once and their misses overlap (memory-level parallelism); the price of an independent miss.
 * @stream_ns: a sequential read of the buffer of @chase_bytes[4], per 64-byte line (the
 *   prefetcher's rate).
 * @mispredict_ns: the cost of one mispredicted branch: a loop over 1 MiB of bytes branching on
 *   each, once with coin-flip outcomes (half of them mispredicted) and once with the same number
 *   of taken ones alternating (all predicted), twice the difference per byte.
 */
typedef struct {
  double chase_ns[5];
  guint64 chase_bytes[5];
  double random_ns[5];
  double stream_ns;
  double mispredict_ns;
} MdlProbe;

/* Runs the probes with buffers placed by the cache sizes @cache_bytes (L1, L2, L3; 0 unknown)
 * and the memory bound @max_bytes (the largest buffer is at most that, at least 8 MiB, at most
 * 256 MiB). Takes about a second at the largest size. */
void mdl_probe_run (const guint64 cache_bytes[3], guint64 max_bytes, MdlProbe *out);

#endif
