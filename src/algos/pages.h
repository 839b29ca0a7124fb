/* Private to the library: what the native build's arrays asked for on 2 MiB pages (pages=huge)
 * actually got. Transparent huge pages are the kernel's to grant or refuse at each fault, so a
 * timing on "huge pages" means little unless each repetition says whether it had them
 * (docs/experiments/cpu-model.md, "s8"). src/algos/pages.c. */
#ifndef MDL_ALGOS_PAGES_H
#define MDL_ALGOS_PAGES_H

#include <glib.h>

/* The process's anonymous memory backed by transparent huge pages (AnonHugePages of
 * /proc/self/smaps_rollup), in bytes; -1 when that cannot be read. */
gint64 mdl_algo_anon_huge_bytes (void);

/* Running totals over the native build's pages=huge allocations since the process started: the
 * bytes asked for, and of them the bytes the kernel backed with 2 MiB pages when they were first
 * touched (each such array is touched, and its huge pages counted, right after it is allocated,
 * before the algorithm fills it; granted_bytes stays 0 where smaps_rollup cannot be read). Take
 * one before and one after a repetition: the difference is that repetition's. Meaningful only
 * while no other thread allocates pages=huge arrays natively. */
typedef struct {
  guint64 asked_bytes;
  guint64 granted_bytes;
} MdlHugeTally;

void mdl_algo_huge_tally (MdlHugeTally *out);

#endif
