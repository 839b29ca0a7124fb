/* Private to src/experiments: what the GPU comparison (gpu.c, `models measure`) and the GPU
 * experiment (gpu-experiment.c, `models experiment gpu`) share, so that both read a measured
 * directory, name a case, run a SIMT twin and join its counters with Nsight Compute's metrics in
 * one way (gpu-join.c). */
#ifndef MDL_EXPERIMENTS_GPU_PRIVATE_H
#define MDL_EXPERIMENTS_GPU_PRIVATE_H

#include <models/algo.h>
#include <models/event.h>
#include <models/experiment.h>

#include "experiments/csv.h"

/* The prefix of the measured-only cases (CUB, the device copy, plain kernels). */
#define MDL_GPU_BASELINE_PREFIX "baseline/"

/**
 * MdlGpuMeasuredCase: one row of the harness's timings.csv with its profile, if any.
 * @spec: the case as the harness wrote it.
 * @kernel: the kernel it launched (the first, when several).
 * @line: its line in timings.csv.
 * @cuda_check: the CUDA output equalled its CPU reference (mismatches = 0).
 * @median_us: median time of the timed launches.
 * @min_us, @max_us: the fastest and slowest of them (NaN when the harness wrote no such columns).
 * @reps: timed repetitions.
 * @launches: kernel launches of one run (1 when the harness wrote no such column).
 * @ncu_rows: (nullable) the ncu rows of its launches (borrowed from the directory's ncu table),
 *   NULL when the case was not profiled.
 */
typedef struct {
  char *spec;
  char *kernel;
  guint line;
  gboolean cuda_check;
  double median_us;
  double min_us;
  double max_us;
  guint reps;
  guint launches;
  GPtrArray *ncu_rows;
} MdlGpuMeasuredCase;

/**
 * MdlGpuMeasured: a directory written on a GPU machine.
 * @dir: its path.
 * @device: the GPU named by the harness ("" when the column is missing).
 * @cases: MdlGpuMeasuredCase *, in timings.csv order.
 * @ncu: (nullable) Nsight Compute's raw page; NULL when the directory has no profile.
 */
typedef struct {
  char *dir;
  char *device;
  GPtrArray *cases;
  MdlCsv *ncu;
} MdlGpuMeasured;

/**
 * mdl_gpu_measured_read: reads @dir: timings.csv (required), profile-cases.csv and ncu.csv
 * (required with @need_profile, else read when both exist), and pairs each case with the ncu rows
 * of its launches.
 * @filters: (nullable) NULL-terminated substrings: only the cases whose spec contains one.
 * @error: MDL_ERROR_IO naming a file that cannot be read, MDL_ERROR_FORMAT naming the file and
 *   line of a missing column or a field that is not a number.
 * Returns: (transfer full) the measurements, or NULL.
 */
MdlGpuMeasured *mdl_gpu_measured_read (const char *dir, const char *const *filters,
                                       gboolean need_profile, GError **error);
void mdl_gpu_measured_free (MdlGpuMeasured *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlGpuMeasured, mdl_gpu_measured_free)

/* TRUE when @spec contains one of the NULL-terminated @filters, or @filters is NULL or empty. */
gboolean mdl_gpu_spec_wanted (const char *const *filters, const char *spec);

/**
 * mdl_gpu_case_parse: a case spec read as the harness and the SIMT twin both read it.
 * @spec: "NAME[:key=value,...]"; n= may stand anywhere and defaults to the algorithm's DEFAULT_N
 *   (for a baseline, which the registry does not know, to 0: unknown).
 * @algo: (out) (optional) the registry's algorithm, NULL for a baseline.
 * @name: (out) (optional) (transfer full) NAME.
 * @n: (out) (optional) the size.
 * @params: (out) (optional) (transfer full) the other assignments, comma-separated, as written.
 * @error: MDL_ERROR_PARAM for a malformed spec or n, MDL_ERROR_UNKNOWN_NAME for a name that is no
 *   algorithm (and no baseline) or no GPU algorithm.
 * Returns: (transfer full) the case's key "NAME:n=N[,params]" (n first: the harness's spelling),
 *   or NULL.
 */
char *mdl_gpu_case_parse (const char *spec, const MdlAlgo **algo, char **name, guint64 *n,
                          char **params, GError **error);

/**
 * mdl_gpu_predict: runs the SIMT twin of case @spec (seed 1) through one engine per spec of
 * @engines on @machine.
 * @tap: (nullable) a sink that also gets every batch (for progress), borrowed for the call.
 * @events: (out) (optional) events the run produced.
 * Returns: (transfer full) the reports (MdlReport *, in @engines order), or NULL with the spec
 *   parser's, the engines' or the run's error.
 */
GPtrArray *mdl_gpu_predict (const char *spec, const char *machine, const char *const *engines,
                            const MdlSink *tap, guint64 *events, GError **error);

/**
 * mdl_gpu_join: one row per hardware metric that a counter of @reports names (counters naming the
 * same metric added), each with the measured value of case @measured (the sum over its launches
 * of a `.sum` metric) and its verdict.
 * @reports: MdlReport *.
 * @ncu: (nullable) the ncu table of @measured.
 * @measured: (nullable) the measured case; NULL or unprofiled: no measured values.
 * Returns: (transfer full) MdlGpuRow array whose clear function frees the rows' strings.
 */
GArray *mdl_gpu_join (GPtrArray *reports, const MdlCsv *ncu, const MdlGpuMeasuredCase *measured);

/* mdl_gpu_row_write_json: appends @r as a JSON object {"counters", "metric", "predicted",
 * "measured", "verdict"} (gpu.c: `models measure --format json` writes its rows so). */
void mdl_gpu_row_write_json (const MdlGpuRow *r, GString *out);

#endif
