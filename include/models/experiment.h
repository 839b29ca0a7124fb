/* libmodels: experiments that put the models' predictions next to measured runs.
 *
 * The VAT experiment (the thesis of Jurkiewicz, §2.1-2.2, rerun on this machine): for each algorithm and each size n (growing by 1.4 from 2^10 elements up to a memory bound), the
 * experiment runs the instrumented build once through the vat engine and ideal-cache models, and
 * times the native build (the minimum over repetitions, as the thesis does). It divides the time by
 * the RAM operation count (the "normalized operation time"), fits the per-operation cost and the
 * cost of a TC miss by least squares over all algorithms and sizes, and reports, per algorithm, the
 * slope of normalized time against log2 n, measured and predicted. Where transparent huge pages can
 * be had, permute and binsearch/sorted are also timed on 2 MiB pages and compared with the model's
 * huge=1 prediction. docs/experiments/vat.md explains the method and how to read the result.
 *
 * The GPU comparison: the CUDA twins of the GPU algorithms, measured on an NVIDIA GPU by
 * tools/gpu-measure.sh (checked, timed, profiled with Nsight Compute), joined with what their SIMT
 * twins' engines predict, counter by counter through the hardware metric names.
 *
 * The GPU experiment: the same join over a size sweep, with the seed models' costs (AGPU,
 * K-model, MSIMD) beside the hardware counters, fits of measured time against each model's cost
 * with their leave-one-algorithm-out error, and each kernel against CUB and the device copy;
 * docs/experiments/gpu.md explains the method and how to read the result. */
#ifndef MODELS_EXPERIMENT_H
#define MODELS_EXPERIMENT_H

#include <glib.h>
#include <models/api.h>
#include <models/report.h>

G_BEGIN_DECLS

/**
 * MdlVatProgress: where a running experiment is; borrowed for the callback.
 * @algorithm: the algorithm being run.
 * @n: its size.
 * @stage: "time" (native repetitions, every point first, one at a time) or "model" (the
 *   instrumented runs through the engines, after every timing, @running at once).
 * @step: steps done so far (one step = one stage of one size of one algorithm).
 * @n_steps: all steps.
 * @work_done: estimated share of the whole work done, 0..1 (for an ETA; RAM operations weighted
 *   by stage, so it is rough).
 * @events: events of the instrumented runs so far (stage "model"), else 0.
 * @running: instrumented runs in flight (stage "model", where @algorithm and @n are the last run
 *   that ended, or the first to start before any ends), else 0.
 */
typedef struct {
  const char *algorithm;
  guint64 n;
  const char *stage;
  guint step;
  guint n_steps;
  double work_done;
  guint64 events;
  guint running;
} MdlVatProgress;

/** MdlVatProgressFunc: called at every step and every few million events; must not block. */
typedef void (*MdlVatProgressFunc) (const MdlVatProgress *progress, void *data);

/**
 * MdlVatExperimentConfig: what to run. Initialize with mdl_vat_experiment_config_init(), then
 * change fields; fields are only ever appended.
 * @machine: the preset giving P, K, d and the TLB sizes (default "x86-64").
 * @max_bytes: memory bound of one run's arrays (default 32 MiB: minutes, and sizes well past the
 *   TLB reach; mdl_vat_experiment_plan() estimates the time of a bound).
 * @min_n: the smallest size in elements (default 1024).
 * @growth: the factor between sizes (default 1.4, which the thesis chose to stay clear of
 *   associativity effects).
 * @reps: timed repetitions per size, at least (default 3); small sizes get more, so that every
 *   size is timed for @min_seconds in all.
 * @min_seconds: timed work per size at least (default 0.05 s).
 * @algorithms: (nullable) NULL-terminated names; NULL for every algorithm the experiment knows.
 * @huge: measure the huge-page series where transparent huge pages are available (default TRUE).
 * @tc_cells: W of the main VAT model; 0 derives it from the preset (docs/experiments/vat.md).
 * @seed: input seed (default 1).
 * @progress: (nullable) progress callback; @progress_data is passed to it.
 * @cache_bytes: sizes of the L1, L2 and L3 caches for the EM prediction; 0 takes the size this
 *   machine reports (sysfs), or for L1 and L2 the preset's where it reports none.
 * @jobs: instrumented runs at once, one thread each, 1 to 4096 (default 1). They start once every
 *   timing is done, so the timings see an idle machine whatever @jobs; the results do not depend
 *   on it (each run places its arrays at canonical addresses, docs/experiments/vat.md). Memory
 *   grows with it: each run holds its arrays and its engines.
 * @journal_dir: (nullable) a directory for the journal, vat-journal.csv: a row per timing pass
 *   and per point's counts, appended and flushed as each finishes, so that a run cut short loses
 *   only the steps in flight (default NULL: no journal; the CLI's --output-dir sets it).
 * @resume: continue the journal in @journal_dir: every step it holds is reused, not run again.
 *   Its options must equal these (MDL_ERROR_PARAM naming the one that differs), and timings
 *   still to measure must be measured on the machine of its timings (MDL_ERROR_PARAM naming
 *   both); counts are made with the journal's cache and TLB setup, so they agree anywhere.
 * @refit_only: take the options and every timing and count from the journal in @journal_dir
 *   and run nothing (the other fields but @progress are ignored); MDL_ERROR_PARAM naming the
 *   first point the journal lacks. For model changes evaluated on stored measurements.
 * @stop_after: stop with MDL_ERROR_IO once this many journal rows have been appended (0, the
 *   default: never), as a run killed there would: the hook of the tests of @resume.
 */
typedef struct {
  const char *machine;
  guint64 max_bytes;
  guint64 min_n;
  double growth;
  guint reps;
  double min_seconds;
  const char *const *algorithms;
  gboolean huge;
  guint64 tc_cells;
  guint64 seed;
  MdlVatProgressFunc progress;
  void *progress_data;
  guint64 cache_bytes[3];
  guint jobs;
  const char *journal_dir;
  gboolean resume;
  gboolean refit_only;
  guint stop_after;
} MdlVatExperimentConfig;

/** mdl_vat_experiment_config_init: fills @config with the defaults listed above. */
MDL_API void mdl_vat_experiment_config_init (MdlVatExperimentConfig *config);

/**
 * mdl_vat_experiment_algorithms: the algorithms the experiment knows, in its order; the default
 * list is all of them. Returns: (transfer none) a NULL-terminated static array.
 */
MDL_API const char *const *mdl_vat_experiment_algorithms (void);

/**
 * MdlVatPoint: one measured and modelled (algorithm, n), read-only.
 * @algorithm: the registry name (borrowed from the registry).
 * @n: elements.
 * @bytes: memory of its arrays.
 * @huge_pages: TRUE in the huge-page series (pages=huge, model huge=1), else 4 KiB pages.
 * @reps: timed repetitions.
 * @seconds: the minimum native time of the algorithm proper.
 * @seconds_median: the median of the repetitions, to show the noise.
 * @ram_ops: RAM operations (the instrumented run's operation markers).
 * @accesses: memory accesses (page translations).
 * @tc_misses: VAT TC misses with W = the main model's W (huge=1 in the huge series).
 * @tc_misses_small: VAT TC misses with W = the L1 DTLB's entries.
 * @em_misses: ideal-cache (fully associative LRU, 64-byte lines) misses at the L1, L2 and L3 sizes.
 * @norm_ns: normalized time, @seconds / @ram_ops, in ns.
 * @vat_ns: normalized time predicted by the VAT fit (per-algorithm per-op cost, shared miss cost).
 * @em_ns: normalized time predicted by the EM fit (per-algorithm per-op cost, shared level costs).
 * @lines: distinct 64-byte lines touched: the ideal caches' first-touch misses. The timed runs
 *   start with the input just written, not with empty caches, so the EM fits count a first touch
 *   as a miss only for the lines beyond a level's size (docs/experiments/vat.md).
 * @cache_misses: misses of this machine's set-associative L1d, L2 and L3 (the cache engine, LRU,
 *   sizes of the EM levels, associativities of machine=host), for the CPU cost model.
 * @random_misses: the same caches' misses when fed only the accesses that continue no sequential
 *   stream (src/experiments/streams.h): the misses a stream prefetcher cannot hide.
 * @tlb_misses: L1 DTLB misses of machine=host's TLBs (the tlb engine, 4 KiB pages).
 * @walks: its page walks (second-level TLB misses).
 * @branches: data-dependent branches the algorithm reported (MDL_BRANCH).
 * @mispredicts: their mispredictions by the `branch` engine's defaults (gshare).
 * @warm_mispredicts: of the same branches, the mispredictions of a second pass of the same
 *   predictor over the same outcomes, as in the timed repetitions, which replay one input: a
 *   predictor that holds a short run's outcomes predicts them the second time (the cold count for
 *   runs of more than 2^26 branches).
 * @dependent_misses: of @random_misses, those of dependent loads (MDL_CPU_FLAG_DEPENDENT: an
 *   earlier load's value chose the address), which a core cannot overlap with the load before.
 * @random_write_misses: of @random_misses, those of stores (write records; a modify's write
 *   follows its read and hits): a store whose line no stream brought ahead waits for its line
 *   (write-allocate) before it can commit, and stores commit in order, so later ones wait too.
 * @dependent_reads: every dependent load, hits included: each waits for the load before it, so
 *   it costs at least an L1 hit's latency, where independent loads issue several per cycle.
 * @chase_reads: of @dependent_reads, those whose address the loaded value computes with no branch
 *   between (MDL_CPU_FLAG_CHASE): no predicted branch lets the core run ahead of them.
 * @chase_misses: of @dependent_misses, those of chase reads: each waits the level's whole
 *   latency, where a dependent miss chosen by a predicted branch may overlap the one before.
 * @dependent_walks: of @walks, those of dependent reads, which wait for the walk as for a miss,
 *   where independent loads' walks overlap.
 * @writes: write and read-modify-write records: stores, which a core retires at most one or two
 *   a cycle, where loads issue two or three.
 * @huge_asked: its arrays asked for 2 MiB pages (madvise): the huge-page series, and the matrix
 *   products' points wherever the kernel grants them (their L2 placement is then the one the
 *   cache engine sees; docs/experiments/cpu-model.md); its counts model those pages.
 * @huge_granted: where @huge_asked, the share of the asked bytes the kernel backed with 2 MiB
 *   pages over its repetitions (1: all), and @seconds, @seconds_median and @reps are of the
 *   repetitions that got them all (of every repetition when none did); NaN where not asked or
 *   not recorded (a journal before s8).
 */
typedef struct {
  const char *algorithm;
  guint64 n;
  guint64 bytes;
  gboolean huge_pages;
  guint reps;
  double seconds;
  double seconds_median;
  guint64 ram_ops;
  guint64 accesses;
  guint64 tc_misses;
  guint64 tc_misses_small;
  guint64 em_misses[3];
  double norm_ns;
  double vat_ns;
  double em_ns;
  guint64 lines;
  guint64 cache_misses[3];
  guint64 random_misses[3];
  guint64 tlb_misses;
  guint64 walks;
  guint64 branches;
  guint64 mispredicts;
  guint64 dependent_misses[3];
  guint64 random_write_misses[3];
  guint64 warm_mispredicts;
  guint64 chase_reads;
  guint64 dependent_reads;
  guint64 writes;
  guint64 chase_misses[3];
  guint64 dependent_walks;
  gboolean huge_asked;
  double huge_granted;
} MdlVatPoint;

/**
 * MdlVatFitInfo: one least-squares fit of normalized time over the 4 KiB points of all algorithms.
 * @model: "ram", "vat", "vat-global", "vat-small", "em", "em-global" or "vat+em".
 * @description: one line.
 * @n_params: fitted coefficients.
 * @r2: coefficient of determination (1 - RSS/TSS); NaN when the fit was impossible.
 * @per_op_ns: the per-operation cost (the mean of the per-algorithm ones where there are several).
 * @miss_ns: ns per VAT TC miss (vat models; else 0).
 * @tau: @miss_ns / @per_op_ns, the model's tau in RAM operations (vat models; else 0).
 * @level_ns: ns per ideal-cache miss at L1, L2, L3, first touches of a warm cache left out (em
 *   models; NaN for a level that no run outgrew, which the fit leaves out).
 */
typedef struct {
  const char *model;
  const char *description;
  guint n_params;
  double r2;
  double per_op_ns;
  double miss_ns;
  double tau;
  double level_ns[3];
} MdlVatFitInfo;

/**
 * MdlVatSlope: per algorithm, the slope of normalized time against log2 n (ns per operation, per
 * doubling of n), measured and predicted, over all sizes and over the sizes whose arrays exceed
 * the TLB reach (W pages); NaN where fewer than two sizes qualify.
 * @algorithm: the registry name.
 * @thesis: what the thesis measured or derived for its running time ("n", "n log n",
 *   "n log^2 n", ...; flat normalized time when it equals the RAM complexity).
 * @mean_ns: the mean measured normalized time, for reading slopes as a share.
 */
typedef struct {
  const char *algorithm;
  const char *thesis;
  guint n_points;
  double mean_ns;
  double measured;
  double vat;
  double em;
  double measured_large;
  double vat_large;
  double em_large;
} MdlVatSlope;

/** MdlVatExperiment: a finished experiment's results; opaque. */
typedef struct MdlVatExperiment MdlVatExperiment;

/**
 * mdl_vat_experiment_run: runs the experiment. Takes minutes to hours: the time grows with
 * @config->max_bytes (docs/experiments/vat.md lists run times).
 * @config: what to run (borrowed).
 * @error: MDL_ERROR_UNKNOWN_NAME for an unknown algorithm or machine, MDL_ERROR_PARAM for a bad
 *   setting (listing the valid range), MDL_ERROR_MODEL when the two builds of an algorithm disagree
 *   or an algorithm's self-check fails, or an engine's error.
 * Returns: (transfer full) the results, or NULL.
 */
MDL_API MdlVatExperiment *mdl_vat_experiment_run (const MdlVatExperimentConfig *config,
                                                  GError **error);

/**
 * MdlVatPlan: what a configuration will run, known before it runs.
 * @seconds: the estimated wall time: the plan's work at the rate of the reference machine (two
 *   cores of a shared virtual machine; docs/experiments/vat.md), so only the order of magnitude.
 * @n_points: measured points (algorithm x size x page-size series).
 * @tlb_reach_bytes: W pages of P bytes: only arrays well beyond it make TC misses vary enough for
 *   the fits of a miss's cost to mean something.
 * @largest_bytes: the arrays of the largest run.
 */
typedef struct {
  double seconds;
  guint n_points;
  guint64 tlb_reach_bytes;
  guint64 largest_bytes;
} MdlVatPlan;

/**
 * mdl_vat_experiment_plan: plans @config as mdl_vat_experiment_run() would, without running it.
 * @plan: (out) what it would run and how long it would take.
 * @error: the errors of mdl_vat_experiment_run() about the configuration.
 * Returns: TRUE and fills @plan, or FALSE.
 */
MDL_API gboolean mdl_vat_experiment_plan (const MdlVatExperimentConfig *config, MdlVatPlan *plan,
                                          GError **error);

/** mdl_vat_experiment_free: NULL is fine. */
MDL_API void mdl_vat_experiment_free (MdlVatExperiment *exp);

/**
 * MdlVatResults: a finished experiment's results, read-only, borrowed from the experiment (they
 * live as long as it does).
 * @points: @n_points measured points of both series, by algorithm, then series (4 KiB pages
 *   first), then n.
 * @fits: @n_fits fits, in the order MdlVatFitInfo lists the models.
 * @slopes: @n_slopes per-algorithm slopes, one per algorithm run, in the experiment's order.
 */
typedef struct {
  const MdlVatPoint *points;
  guint n_points;
  const MdlVatFitInfo *fits;
  guint n_fits;
  const MdlVatSlope *slopes;
  guint n_slopes;
} MdlVatResults;

/** mdl_vat_experiment_results: the results of @exp. Returns: (transfer none) */
MDL_API const MdlVatResults *mdl_vat_experiment_results (const MdlVatExperiment *exp);

/**
 * mdl_vat_experiment_notes: what was measured where: the host, the model's parameters and how W
 * was chosen, the cache sizes and where they came from, the huge-page status, the load.
 * Returns: (transfer none) lines of text, each ending in '\n'.
 */
MDL_API const char *mdl_vat_experiment_notes (const MdlVatExperiment *exp);

/**
 * mdl_vat_experiment_warnings: why the results may mean little: a bound too small for the fits
 * (largest arrays under twice the TLB reach), a negative fitted miss cost, negative predicted
 * times. The table and JSON outputs carry them too.
 * Returns: (transfer none) lines of text, each ending in '\n'; "" when there are none.
 */
MDL_API const char *mdl_vat_experiment_warnings (const MdlVatExperiment *exp);

/**
 * mdl_vat_experiment_write: appends the results to @out.
 * @format: MDL_FORMAT_TABLE (per-algorithm tables, fits, slopes, huge pages, notes, and the CPU
 *   cost models validated by leaving one algorithm out and by a size split),
 *   MDL_FORMAT_CSV (one row per point, with a header), MDL_FORMAT_JSON (one document with all).
 */
MDL_API void mdl_vat_experiment_write (const MdlVatExperiment *exp, MdlFormat format, GString *out);

/**
 * mdl_vat_experiment_write_summary: appends the short form of the table to @out: the fits, the
 * slopes per algorithm and the huge-page comparison at the largest size, without the per-size
 * tables (what `models demo` prints).
 */
MDL_API void mdl_vat_experiment_write_summary (const MdlVatExperiment *exp, GString *out);

/**
 * mdl_vat_experiment_write_files: writes into directory @dir (created if missing): vat.txt (the
 * table), vat.csv (the points), vat-fits.csv, vat-slopes.csv, vat.json, and for gnuplot
 * vat-plot.dat, vat-huge.dat, vat-panels.gp and vat.gp, a script that draws vat.png and vat.svg
 * when run in @dir (`gnuplot vat.gp`): normalized time against log2 n, one panel per algorithm,
 * measured points and predicted curves, and a panel for the huge-page series. The CPU cost
 * models' cross-validation (docs/experiments/cpu-model.md) adds vat-models.csv,
 * vat-models-points.csv, vat-models.dat and vat-models.gp, which vat.gp loads to draw
 * vat-models.png and vat-fig21.png.
 * @error: MDL_ERROR_IO naming the file.
 * Returns: FALSE on error.
 */
MDL_API gboolean mdl_vat_experiment_write_files (const MdlVatExperiment *exp, const char *dir,
                                                 GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlVatExperiment, mdl_vat_experiment_free)

/* ---- GPU algorithms: predicted counters next to Nsight Compute's ---- */

/**
 * MdlGpuVerdict: how a predicted counter compares with its measured metric.
 * @MDL_GPU_MATCH: equal (reals: within 0.006, as ncu prints two decimals).
 * @MDL_GPU_NOT_APPLICABLE: the model has no value (a uniformity without branches) and ncu printed 0.
 * @MDL_GPU_DIFFERS: different (docs/models/gpu.md explains each known case).
 * @MDL_GPU_NO_COLUMN: the measurement has no value for the metric.
 */
typedef enum {
  MDL_GPU_MATCH = 0,
  MDL_GPU_NOT_APPLICABLE,
  MDL_GPU_DIFFERS,
  MDL_GPU_NO_COLUMN,
} MdlGpuVerdict;

/**
 * MdlGpuRow: one hardware metric of one case, read-only.
 * @counters: the engine counters that name the metric, joined by '+' (their values are added).
 * @metric: the Nsight Compute metric.
 * @is_real: the counters are ratios, not counts.
 * @predicted: their sum; NaN when not applicable.
 * @have_measured: the measurement has a value.
 * @measured: that value.
 * @verdict: an MdlGpuVerdict.
 */
typedef struct {
  const char *counters;
  const char *metric;
  gboolean is_real;
  double predicted;
  gboolean have_measured;
  double measured;
  MdlGpuVerdict verdict;
} MdlGpuRow;

/**
 * MdlGpuCase: one measured case, read-only.
 * @spec: the case, an algorithm spec with its parameters ("gpu/reduce:variant=sequential").
 * @kernel: the CUDA kernel it launched (the first, when several).
 * @cuda_check: the CUDA output equalled its CPU reference.
 * @median_us: median time of its timed launches, in microseconds.
 * @n_rows: its metrics.
 */
typedef struct {
  const char *spec;
  const char *kernel;
  gboolean cuda_check;
  double median_us;
  guint n_rows;
} MdlGpuCase;

/** MdlGpuComparison: the measured cases of a directory joined with their predictions; opaque. */
typedef struct MdlGpuComparison MdlGpuComparison;

/**
 * mdl_gpu_compare: reads the directory @dir written by tools/gpu-measure.sh (timings.csv,
 * profile-cases.csv, ncu.csv), runs the SIMT twin of every measured case through the engines its
 * algorithm is checked on (MdlGpuAlgo.checked_on) with machine=@machine, and pairs each counter
 * that names a hardware metric with the metric's measured value (summed over the case's launches).
 * A baseline (a case named "baseline/...": CUB, the device copy) is measured only and has no rows.
 * Counters that name the same metric are added first (global lines: loads, stores and atomics
 * share the L1 tag counter).
 * @dir: the measurements.
 * @machine: the engines' machine preset (the GPU measured), e.g. "h100".
 * @filters: (nullable) NULL-terminated substrings; only cases whose spec contains one are joined
 *   (NULL or empty: all).
 * @error: MDL_ERROR_IO or MDL_ERROR_FORMAT naming the file, MDL_ERROR_UNKNOWN_NAME for an unknown
 *   machine or a case naming no GPU algorithm, or the SIMT run's error prefixed by the case.
 * Returns: (transfer full) the comparison, or NULL.
 */
MDL_API MdlGpuComparison *mdl_gpu_compare (const char *dir, const char *machine,
                                           const char *const *filters, GError **error);

/** mdl_gpu_comparison_free: NULL is fine. */
MDL_API void mdl_gpu_comparison_free (MdlGpuComparison *cmp);
/** mdl_gpu_comparison_n_cases: the joined cases. */
MDL_API guint mdl_gpu_comparison_n_cases (const MdlGpuComparison *cmp);
/** mdl_gpu_comparison_case: the @i-th case (borrowed), in the order they were measured. */
MDL_API const MdlGpuCase *mdl_gpu_comparison_case (const MdlGpuComparison *cmp, guint i);
/** mdl_gpu_comparison_row: row @k of case @i (borrowed). */
MDL_API const MdlGpuRow *mdl_gpu_comparison_row (const MdlGpuComparison *cmp, guint i, guint k);
/**
 * mdl_gpu_comparison_count: how many rows of all cases have verdict @verdict, or with
 * @verdict = -1 how many cases failed their CUDA check.
 */
MDL_API guint mdl_gpu_comparison_count (const MdlGpuComparison *cmp, gint verdict);

/**
 * mdl_gpu_comparison_write: appends the comparison to @out.
 * @format: MDL_FORMAT_TABLE (per case its rows: counters, predicted, measured, difference,
 *   verdict, metric; a summary line), MDL_FORMAT_CSV (one row per metric of a case, with a
 *   header), MDL_FORMAT_JSON (one document: the directory, the machine, the cases, a summary).
 */
MDL_API void mdl_gpu_comparison_write (const MdlGpuComparison *cmp, MdlFormat format,
                                       GString *out);

/**
 * mdl_gpu_profile_metrics: the Nsight Compute metrics a profile of the CUDA twins should collect:
 * every metric that a counter of an engine in the checked_on list of a GPU algorithm with a CUDA
 * twin names for @machine, then the totals that explain differences (duration, instructions,
 * SASS-level memory operations).
 * Returns: (transfer full) a NULL-terminated array; free with g_strfreev().
 */
MDL_API char **mdl_gpu_profile_metrics (const char *machine);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlGpuComparison, mdl_gpu_comparison_free)

/* ---- the GPU experiment: the models' costs and fitted times next to measured ones ---- */

/**
 * MdlGpuExperimentProgress: where the predictions are; borrowed for the callback, which is called
 * on the thread that called mdl_gpu_experiment_run(), when a case starts or ends and a few times
 * a second between.
 * @spec: the case that last started or finished.
 * @done: cases predicted so far by this run.
 * @total: cases this run predicts (those not found in the predictions file).
 * @running: cases being predicted now.
 * @work_done: estimated share of the work done, 0..1 (events so far against the events the sizes
 *   left suggest, at the rate per element of the cases done; 0 until one is done).
 * @events: events simulated so far, all cases together.
 */
typedef struct {
  const char *spec;
  guint done;
  guint total;
  guint running;
  double work_done;
  guint64 events;
} MdlGpuExperimentProgress;

/** MdlGpuExperimentProgressFunc: see MdlGpuExperimentProgress; must not block. */
typedef void (*MdlGpuExperimentProgressFunc) (const MdlGpuExperimentProgress *progress,
                                              void *data);

/**
 * MdlGpuFitWeights: how a fit weighs the squared error of a case of measured time t.
 * @MDL_GPU_WEIGHTS_BALANCED: 1/t (the default): squared errors relative to t itself, the least
 *   squares of a time whose variance grows as the time; small and large cases both count, and R²,
 *   which is on the times themselves, is not left to the smallest.
 * @MDL_GPU_WEIGHTS_RELATIVE: 1/t^2: relative errors; a 3 us case weighs as much as a 150 ms one.
 * @MDL_GPU_WEIGHTS_ABSOLUTE: 1: absolute errors; the largest cases decide.
 */
typedef enum {
  MDL_GPU_WEIGHTS_BALANCED = 0,
  MDL_GPU_WEIGHTS_RELATIVE,
  MDL_GPU_WEIGHTS_ABSOLUTE,
  MDL_GPU_N_WEIGHTS
} MdlGpuFitWeights;

/** mdl_gpu_fit_weights_name: "balanced", "relative" or "absolute"; NULL for an invalid value. */
MDL_API const char *mdl_gpu_fit_weights_name (guint weights);

/**
 * MdlGpuExperimentConfig: what to run. Initialize with mdl_gpu_experiment_config_init(), then
 * change fields; fields are only ever appended.
 * @machine: the preset of the engines and of the seed models' parameters (default "h100").
 * @measured: (nullable) a directory written on the GPU machine (tools/gpu-experiment.sh:
 *   timings.csv, and profile-cases.csv with ncu.csv for the profiled subset); NULL for
 *   predictions only.
 * @cases: (nullable) NULL-terminated case specs to predict ("reduce/tree:b=32", as
 *   `gpu-kernels --list` prints them); the measured cases are predicted too. Baselines are
 *   skipped: they have no SIMT twin.
 * @sizes: @n_sizes sizes at which each of @cases without its own n= runs (none: its DEFAULT_N).
 * @predictions: (nullable) the predictions file (CSV): the cases found in it, made with the same
 *   engines, are not run again, and every case this run predicts is appended to it as soon as it
 *   is done, so that an interrupted run loses only the cases in flight.
 * @compute: run the SIMT twins of the cases the file lacks (default TRUE); FALSE joins only what
 *   the file has (on the GPU machine, whose time is not for simulating).
 * @jobs: cases predicted at once, one thread each (0, the default: the processors). Memory grows
 *   with n: about 150 bytes per element at 2^23 with every engine (docs/experiments/gpu.md).
 * @max_predict_n: the largest n to run a SIMT twin at (0, the default: no limit); larger cases
 *   are predicted only if the file has them.
 * @min_fit_n: the smallest n the fits use (default 65536 = 2^16: below it launch latency, not
 *   the work, sets the time).
 * @weights: how the fits weigh each case's squared error (MdlGpuFitWeights; default balanced).
 * @filters: (nullable) NULL-terminated substrings: only the cases whose spec contains one.
 * @progress: (nullable) progress callback; @progress_data is passed to it.
 */
typedef struct {
  const char *machine;
  const char *measured;
  const char *const *cases;
  const guint64 *sizes;
  guint n_sizes;
  const char *predictions;
  gboolean compute;
  guint jobs;
  guint64 max_predict_n;
  guint64 min_fit_n;
  MdlGpuFitWeights weights;
  const char *const *filters;
  MdlGpuExperimentProgressFunc progress;
  void *progress_data;
} MdlGpuExperimentConfig;

/** mdl_gpu_experiment_config_init: fills @config with the defaults listed above. */
MDL_API void mdl_gpu_experiment_config_init (MdlGpuExperimentConfig *config);

/**
 * MdlGpuCost: one quantity of a point: a model's cost, a hardware counter, the launches or the
 * bytes the problem must move.
 * @name: "launches", "agpu_time", "agpu_io", "kmodel_T", "kmodel_W", "kmodel_G", "msimd_cost",
 *   "sectors", "requests", "wavefronts", "bank_conflicts", "warp_insts", "divergent_branches",
 *   "bytes", "latency_rounds".
 * @engine: (nullable) the engine that predicts it; NULL for bytes, which the problem defines.
 * @counters: (nullable) the engine's counters, '+'-joined, whose sum it is.
 * @description: one line.
 * @measured_by: (nullable) "ncu" (Nsight Compute, on the profiled cases), "harness" (the CUDA
 *   harness, every measured case) or NULL (not measured).
 */
typedef struct {
  const char *name;
  const char *engine;
  const char *counters;
  const char *description;
  const char *measured_by;
} MdlGpuCost;

/**
 * mdl_gpu_experiment_costs: the quantities every point carries, in the order of its arrays.
 * @n: (out) how many.
 * Returns: (transfer none) a static table.
 */
MDL_API const MdlGpuCost *mdl_gpu_experiment_costs (guint *n);

/**
 * MdlGpuFitInfo: one non-negative least-squares fit of measured time (us) against a model's costs
 * over the fitted points (measured, checked, predicted, n >= min_fit_n, not a baseline).
 * @name: "bytes", "agpu", "kmodel", "msimd", "counters" or "counters-measured".
 * @description: one line.
 * @n_terms: its terms.
 * @terms: their MdlGpuCost names.
 * @coef: us per unit of each term (>= 0).
 * @n_points: points fitted.
 * @n_algorithms: algorithms among them.
 * @r2: 1 - RSS/TSS of the fitted times (unweighted, about the mean); NaN when no fit.
 * @median_rel_error, @max_rel_error: of |predicted - measured| / measured over the fitted points.
 * @loao_r2: R^2 of the leave-one-algorithm-out predictions (each algorithm's points predicted by
 *   the fit on the other algorithms), pooled; NaN when fewer than two algorithms. An algorithm
 *   whose others have fewer points than the fit has terms gets no prediction and is left out.
 * @loao_median_rel_error, @loao_max_rel_error: their relative errors.
 * @why: (nullable) why there is no fit (too few points), else NULL.
 */
typedef struct {
  const char *name;
  const char *description;
  guint n_terms;
  const char *const *terms;
  const double *coef;
  guint n_points;
  guint n_algorithms;
  double r2;
  double median_rel_error;
  double max_rel_error;
  double loao_r2;
  double loao_median_rel_error;
  double loao_max_rel_error;
  const char *why;
} MdlGpuFitInfo;

/**
 * MdlGpuPoint: one case (algorithm x parameters x n), read-only.
 * @spec: the case, "NAME:n=N[,params]".
 * @algorithm: NAME ("reduce/tree", "baseline/cub-reduce").
 * @params: the parameters as written ("b=32"; "" when none).
 * @n: elements.
 * @baseline: a measured-only case (CUB, the device copy).
 * @predicted: its SIMT twin ran (or the predictions file had it): @cost is set.
 * @measured: timings.csv has it: @median_us and the times are set.
 * @profiled: Nsight Compute profiled it: the "ncu" quantities of @cost_measured are set.
 * @cuda_check: the CUDA output equalled its CPU reference.
 * @fitted: the fits use it.
 * @launches: kernel launches of one run, as the harness counted them (0 when not measured).
 * @median_us, @min_us, @max_us: median, fastest and slowest of the timed launches (NaN: unknown).
 * @cub_ratio: @median_us over the CUB baseline's of its problem at the same n (NaN: none).
 * @bytes: the bytes its problem must move, input and output words x 4 (NaN: unknown problem).
 * @copy_fraction: its bandwidth (@bytes / time) as a share of the device copy's at the same n.
 * @cost: one value per MdlGpuCost, predicted (NaN when not predicted).
 * @cost_measured: one value per MdlGpuCost, measured (NaN where not measured).
 * @fit_us: one value per fit: the time it predicts (NaN when a term is missing).
 * @loao_us: one value per fit: the time predicted by the fit without this point's algorithm
 *   (NaN for points not fitted).
 * @n_rows: its hardware metric rows (mdl_gpu_experiment_row()).
 * @error: (nullable) why its SIMT twin failed (the notes list it too); NULL when it did not run
 *   or ran well.
 */
typedef struct {
  const char *spec;
  const char *algorithm;
  const char *params;
  guint64 n;
  gboolean baseline;
  gboolean predicted;
  gboolean measured;
  gboolean profiled;
  gboolean cuda_check;
  gboolean fitted;
  guint launches;
  double median_us;
  double min_us;
  double max_us;
  double cub_ratio;
  double bytes;
  double copy_fraction;
  const double *cost;
  const double *cost_measured;
  const double *fit_us;
  const double *loao_us;
  guint n_rows;
  const char *error;
} MdlGpuPoint;

/**
 * MdlGpuResults: a finished experiment's results, borrowed from it.
 * @points: @n_points points, by algorithm and parameters (in the order the cases came), then n.
 * @fits: @n_fits fits, in the order MdlGpuFitInfo lists them.
 * @costs: @n_costs quantities (mdl_gpu_experiment_costs()).
 */
typedef struct {
  const MdlGpuPoint *points;
  guint n_points;
  const MdlGpuFitInfo *fits;
  guint n_fits;
  const MdlGpuCost *costs;
  guint n_costs;
} MdlGpuResults;

/** MdlGpuExperiment: a finished GPU experiment; opaque. */
typedef struct MdlGpuExperiment MdlGpuExperiment;

/**
 * mdl_gpu_experiment_run: predicts every case (its SIMT twin through agpu, kmodel and msimd with
 * parameters from the machine preset, and through the engines its algorithm is checked on; cases
 * in parallel, @config->jobs at once), joins the predictions with the measurements by metric name
 * (as mdl_gpu_compare() does), fits measured time against each model's costs, and relates each
 * kernel to the baselines. Predicting takes seconds per case at 2^20 and grows with n.
 * @config: what to run (borrowed).
 * @error: MDL_ERROR_IO or MDL_ERROR_FORMAT naming the file (and line) of the measurements or the
 *   predictions, MDL_ERROR_UNKNOWN_NAME for an unknown machine or algorithm, MDL_ERROR_PARAM for
 *   a malformed case spec. A case whose SIMT run fails (a parameter its algorithm refuses) is no
 *   error of the run: it stays unpredicted, with MdlGpuPoint.error set and a line in the notes.
 * Returns: (transfer full) the results, or NULL.
 */
MDL_API MdlGpuExperiment *mdl_gpu_experiment_run (const MdlGpuExperimentConfig *config,
                                                  GError **error);

/** mdl_gpu_experiment_free: NULL is fine. */
MDL_API void mdl_gpu_experiment_free (MdlGpuExperiment *exp);

/** mdl_gpu_experiment_results: the results of @exp. Returns: (transfer none) */
MDL_API const MdlGpuResults *mdl_gpu_experiment_results (const MdlGpuExperiment *exp);

/** mdl_gpu_experiment_row: hardware metric row @k of point @i (borrowed), as mdl_gpu_compare's. */
MDL_API const MdlGpuRow *mdl_gpu_experiment_row (const MdlGpuExperiment *exp, guint i, guint k);

/**
 * mdl_gpu_experiment_notes: what was run: the machine and the engines' full specs, the measured
 * directory and device, what was predicted, read from the file or left out, and the fit settings.
 * Returns: (transfer none) lines of text, each ending in '\n'.
 */
MDL_API const char *mdl_gpu_experiment_notes (const MdlGpuExperiment *exp);

/**
 * mdl_gpu_experiment_write: appends the results to @out.
 * @format: MDL_FORMAT_TABLE (Markdown: the fits, then per point the models' costs, the counters
 *   predicted / measured and the time measured / predicted, then the notes), MDL_FORMAT_CSV (one
 *   row per point, with a header), MDL_FORMAT_JSON (one document with everything, the metric rows
 *   included).
 */
MDL_API void mdl_gpu_experiment_write (const MdlGpuExperiment *exp, MdlFormat format,
                                       GString *out);

/**
 * mdl_gpu_experiment_write_files: writes into directory @dir (created if missing): gpu.md (the
 * table), gpu.csv (the points), gpu-fits.csv, gpu.json, and for gnuplot gpu-fit.dat,
 * gpu-time.dat, gpu-fit-panels.gp, gpu-time-panels.gp and gpu.gp, a script that draws gpu-fit.png
 * (predicted against measured time, one panel per fit, log-log) and gpu-time.png (time against n,
 * one panel per algorithm, log-log: measured, the counters fit, CUB) and their .svg twins when
 * run in @dir (`gnuplot gpu.gp`).
 * @error: MDL_ERROR_IO naming the file.
 * Returns: FALSE on error.
 */
MDL_API gboolean mdl_gpu_experiment_write_files (const MdlGpuExperiment *exp, const char *dir,
                                                 GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlGpuExperiment, mdl_gpu_experiment_free)

G_END_DECLS

#endif
