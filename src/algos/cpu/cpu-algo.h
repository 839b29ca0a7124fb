/* Private: what every CPU algorithm file shares. Each file under src/algos/cpu/ is compiled twice:
 * instrumented, defining NAME_run, and with MDL_NATIVE, defining NAME_native (the MDL_* macros of
 * record.h then expand to nothing). src/algos/algos.c lists both entry points. */
#ifndef MDL_CPU_ALGO_H
#define MDL_CPU_ALGO_H

#include <models/algo.h>
#include <models/error.h>
#include <models/record.h>

#ifdef MDL_NATIVE
#define MDL_ALGO_ENTRY(name) mdl_algo_##name##_native
#else
#define MDL_ALGO_ENTRY(name) mdl_algo_##name##_run
#endif

#define MDL_ALGO_DECLARE(name)                                                                     \
  gboolean mdl_algo_##name##_run (const MdlParams *, guint64, guint64, MdlRecorder *, guint64 *,   \
                                  GError **);                                                      \
  gboolean mdl_algo_##name##_native (const MdlParams *, guint64, guint64, MdlRecorder *,           \
                                     guint64 *, GError **)

MDL_ALGO_DECLARE (scan_seq);
MDL_ALGO_DECLARE (scan_random);

/* SplitMix64: the inputs' generator. Both builds and every platform must draw the same numbers,
 * so the algorithms do not use GRand, whose sequence GLib does not promise to keep. */
static inline guint64
mdl_splitmix64 (guint64 *state)
{
  guint64 z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Allocates @n elements of @elem_bytes, or sets MDL_ERROR_PARAM naming the size. */
void *mdl_algo_alloc (guint64 n, gsize elem_bytes, const char *what, GError **error);

#endif
