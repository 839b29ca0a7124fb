/* libmodels: the registry of instrumented algorithms.
 *
 * Every algorithm is one source file built twice: instrumented (emits events through an
 * MdlRecorder) and native (the MDL_* macros compiled away, for timing). Both compute the same
 * result and check it; the registry lists each algorithm once, with both entry points. */
#ifndef MODELS_ALGO_H
#define MODELS_ALGO_H

#include <glib.h>
#include <models/api.h>
#include <models/params.h>
#include <models/record.h>

G_BEGIN_DECLS

/**
 * MdlAlgoRun: runs an algorithm on @n elements built from @seed.
 * @params: the algorithm's parameters (borrowed).
 * @n: problem size in elements.
 * @seed: input seed.
 * @rec: where events go (the native build ignores it; may be NULL there).
 * @checksum: (out) a value that depends on the whole result, equal in both builds.
 * @error: MDL_ERROR_PARAM for a bad size; MDL_ERROR_MODEL when the algorithm's self-check fails.
 * Returns: FALSE on error.
 */
typedef gboolean (*MdlAlgoRun) (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                                guint64 *checksum, GError **error);

/**
 * MdlAlgoTimed: runs the native build once, as MdlAlgoRun does, and times the algorithm proper.
 * Building the input before it (and touching every page it will use, so that no page fault is
 * timed) and checking the result after it are not part of the measurement.
 * @params: the algorithm's parameters (borrowed).
 * @n: problem size in elements.
 * @seed: input seed; the same (@n, @seed) does the same work as the instrumented run.
 * @checksum: (out) as for MdlAlgoRun.
 * @seconds: (out) wall-clock time of the algorithm proper (CLOCK_MONOTONIC).
 * @error: as for MdlAlgoRun.
 * Returns: FALSE on error.
 */
typedef gboolean (*MdlAlgoTimed) (const MdlParams *params, guint64 n, guint64 seed,
                                  guint64 *checksum, double *seconds, GError **error);

/**
 * MdlGpuAlgo: what a GPU algorithm (one written against the SIMT layer) adds to its registry row:
 * its CUDA twin and how the two are compared (docs/contributing.md).
 * @cuda_family: the CUDA twin in src/algos/cuda/ (the stem of its CudaTwin), or NULL while only
 *   the SIMT twin exists.
 * @default_n: n of a case that names none.
 * @block_threads: threads per block of its launches at the default parameters.
 * @checked_on: the engines, comma-separated, whose counters are compared with the Nsight Compute
 *   metrics they name ("coalesce,banks,divergence").
 * @cases: the default cases as a parameter grid: "key=v1|v2,key2=w1|w2" is every combination,
 *   grids joined by ';' follow one another.
 */
typedef struct {
  const char *cuda_family;
  guint64 default_n;
  guint block_threads;
  const char *checked_on;
  const char *cases;
} MdlGpuAlgo;

/**
 * MdlAlgo: one algorithm.
 * @name: family/variant, e.g. "scan/seq".
 * @summary: one line.
 * @params: its parameters (may be an empty table).
 * @run: the instrumented entry point.
 * @run_native: the native entry point.
 * @run_timed: the native entry point that times the algorithm proper (NULL: not available).
 * @gpu: the GPU descriptor of an algorithm written against the SIMT layer; NULL for a CPU one.
 */
typedef struct {
  const char *name;
  const char *summary;
  const MdlParamSpec *params;
  MdlAlgoRun run;
  MdlAlgoRun run_native;
  MdlAlgoTimed run_timed;
  const MdlGpuAlgo *gpu;
} MdlAlgo;

/**
 * mdl_algo_run_into: runs the instrumented build of @algo into @sink and ends the stream, with one
 * rule for every caller: the stream is always finished (what the algorithm recorded before it
 * failed still reaches the sink), and a failure of the sink (an engine rejecting an event, a full
 * disk), which the algorithm never sees, is reported before a failure of the algorithm's own.
 * @algo: the algorithm.
 * @params: its parameters (borrowed).
 * @n: problem size in elements.
 * @seed: input seed.
 * @sink: where the events go (borrowed for the call).
 * @checksum: (out) (optional) as for MdlAlgoRun.
 * @error: the sink's error, else the algorithm's (as for MdlAlgoRun).
 * Returns: FALSE on error.
 */
MDL_API gboolean mdl_algo_run_into (const MdlAlgo *algo, const MdlParams *params, guint64 n,
                                    guint64 seed, const MdlSink *sink, guint64 *checksum,
                                    GError **error);

/**
 * mdl_algos: every algorithm.
 * @n: (out) how many.
 * Returns: (transfer none) a static table.
 */
MDL_API const MdlAlgo *mdl_algos (guint *n);

/**
 * mdl_algo_lookup: the algorithm named @name.
 * @error: MDL_ERROR_UNKNOWN_NAME listing the valid names.
 * Returns: (transfer none) the algorithm, or NULL.
 */
MDL_API const MdlAlgo *mdl_algo_lookup (const char *name, GError **error);

G_END_DECLS

#endif
