/* libmodels: sweeps, a grid of algorithms × sizes × seeds × engine specs run on every core into a
 * resumable SQLite table.
 *
 * A grid value list is written inside a spec: `key=a,b,c` (a word without '=' is one more value of
 * the key before it) and `key=lo..hi` (lo, 2·lo, 4·lo, ... up to hi: ranges double). So
 * `vat:policy=lru,islru,W=4..4096` is 2 × 11 engine specs. Each source (algorithm, n, seed) is run
 * once, its event stream kept in memory, and replayed on worker threads into every engine of that
 * source, each engine on one thread. Every configuration is one row keyed by algorithm, n, seed,
 * normalized engine spec and library version; rows are committed in transactions as they finish,
 * so a rerun of the same grid skips what is done, even after a kill. docs/howto/sweeps.md. */
#ifndef MODELS_SWEEP_H
#define MODELS_SWEEP_H

#include <glib.h>
#include <models/api.h>
#include <models/report.h>

G_BEGIN_DECLS

/** MdlSweep: the grid of a sweep; opaque. */
typedef struct MdlSweep MdlSweep;

/** mdl_sweep_new: an empty grid (seed 1 unless seeds are added). Returns: (transfer full). */
MDL_API MdlSweep *mdl_sweep_new (void);

/** mdl_sweep_free: NULL is fine. */
MDL_API void mdl_sweep_free (MdlSweep *sweep);

/**
 * mdl_sweep_load: a grid from a sweep file, a GKeyFile whose group [sweep] has the keys `algos`,
 * `traces`, `engines` (lists separated by ';'), `n`, `seeds` (value lists), `machine` and `shard` (I/K), as
 * the add and set calls below take them.
 * @error: MDL_ERROR_IO, or MDL_ERROR_FORMAT naming the file and the key.
 * Returns: (transfer full) the grid, or NULL.
 */
MDL_API MdlSweep *mdl_sweep_load (const char *path, GError **error);

/**
 * mdl_sweep_save: writes the grid as a sweep file that mdl_sweep_load() reads back.
 * @error: MDL_ERROR_IO naming the file.
 */
MDL_API gboolean mdl_sweep_save (const MdlSweep *sweep, const char *path, GError **error);

/** mdl_sweep_add_algo: adds algorithm specs, a grid ("scan/leftright:k=8,32"). */
MDL_API void mdl_sweep_add_algo (MdlSweep *sweep, const char *grid);
/** mdl_sweep_add_trace: adds a trace file as a source (read once, any format `models analyze`
 * reads; its rows have algo "trace:PATH", n its size in bytes and seed 0). */
MDL_API void mdl_sweep_add_trace (MdlSweep *sweep, const char *path);
/** mdl_sweep_add_engine: adds engine specs, a grid ("vat:policy=lru,islru,W=4..64"). */
MDL_API void mdl_sweep_add_engine (MdlSweep *sweep, const char *grid);
/** mdl_sweep_add_sizes: adds sizes n, a value list ("1k..1M", "1000,5000"). */
MDL_API void mdl_sweep_add_sizes (MdlSweep *sweep, const char *values);
/** mdl_sweep_add_seeds: adds input seeds, a value list. */
MDL_API void mdl_sweep_add_seeds (MdlSweep *sweep, const char *values);
/** mdl_sweep_set_machine: the preset of every engine spec that names none (NULL: none; copied). */
MDL_API void mdl_sweep_set_machine (MdlSweep *sweep, const char *machine);

/**
 * mdl_sweep_set_runner: records each source by running `@runner run ALGORITHM --n N --seed S
 * --engine count --trace-out - --output /dev/null` in a fresh process and reading its trace,
 * rather than in this process. The counts depend on where the algorithm's arrays lie, which
 * depends on everything the process allocated before them: in this process that changes with the
 * threads and the rest of the grid; a fresh `models` process (which turns address randomization
 * off) running the same command places them the same way every time. A row is then what
 * `models analyze TRACE --engine SPEC` reports on the trace that command writes, whatever the
 * threads, the shard or the grid.
 * @runner: (nullable) the path of the `models` program (copied); NULL: record in this process.
 */
MDL_API void mdl_sweep_set_runner (MdlSweep *sweep, const char *runner);

/**
 * mdl_sweep_set_shard: restricts the sweep to shard @index of @count: the configurations in
 * key order cut into @count contiguous runs of nearly equal length, so that most sources fall in
 * one shard and run once.
 * @error: MDL_ERROR_PARAM unless @index < @count.
 */
MDL_API gboolean mdl_sweep_set_shard (MdlSweep *sweep, guint index, guint count, GError **error);

/**
 * mdl_sweep_count: expands and checks the grid (every algorithm, engine spec and size).
 * @n_sources: (out) (optional) the distinct (algorithm, n, seed) runs and traces among them.
 * @error: MDL_ERROR_PARAM or MDL_ERROR_UNKNOWN_NAME naming the grid entry.
 * Returns: the number of distinct configurations (of this shard), or 0 with @error set.
 */
MDL_API guint mdl_sweep_count (MdlSweep *sweep, guint *n_sources, GError **error);

/**
 * MdlSweepProgress: where a running sweep is; borrowed for the callback.
 * @total: the configurations of the grid.
 * @skipped: those found done in the table at the start.
 * @done: those run and committed since.
 * @seconds: since the start of the run.
 */
typedef struct {
  guint total;
  guint skipped;
  guint done;
  double seconds;
} MdlSweepProgress;

/** MdlSweepProgressFunc: called from one thread after every commit and about four times a second;
 * returning FALSE stops the sweep (what is committed stays). */
typedef gboolean (*MdlSweepProgressFunc) (const MdlSweepProgress *progress, void *data);

/**
 * mdl_sweep_run: runs every configuration of the grid that @db_path does not hold yet, on
 * @n_threads worker threads plus one writer thread, and adds one row per configuration.
 * @db_path: the SQLite file (created when missing).
 * @n_threads: worker threads, at least 1; the table does not depend on it.
 * @progress: (nullable) the progress callback; @data is passed to it.
 * @stats: (out) (optional) the counts at the end.
 * @error: the grid's error (see mdl_sweep_count()), MDL_ERROR_IO for the database, an algorithm's
 *   or an engine's error prefixed with the configuration, MDL_ERROR_IO "stopped" when @progress
 *   stopped it.
 * Returns: FALSE on error; the rows committed before it stay.
 */
MDL_API gboolean mdl_sweep_run (MdlSweep *sweep, const char *db_path, guint n_threads,
                                MdlSweepProgressFunc progress, void *data,
                                MdlSweepProgress *stats, GError **error);

/**
 * mdl_sweep_export: every row of a sweep table, ordered by algorithm, n, seed and engine spec.
 * CSV: one line per counter, `algo,n,seed,spec,counter,value,unit`; JSON: an array of
 * `{"algo", "n", "seed", "spec", "events", "counters": {...}}`. Both are the same
 * bytes for the same table whatever the threads or shards that made it.
 * @format: MDL_FORMAT_CSV or MDL_FORMAT_JSON (a table is not offered: sweeps are for programs).
 * @with_times: adds the wall times (source_seconds, engine_seconds), which differ run to run.
 * @out: appended to.
 * @error: MDL_ERROR_IO naming the file, MDL_ERROR_FORMAT for a file that is no sweep table,
 *   MDL_ERROR_UNSUPPORTED for MDL_FORMAT_TABLE.
 */
MDL_API gboolean mdl_sweep_export (const char *db_path, MdlFormat format, gboolean with_times,
                                   GString *out, GError **error);

/**
 * mdl_sweep_merge: joins sweep tables (the shards of a Slurm array) into @out_path (created or
 * added to); a configuration present in several keeps its first row.
 * @in_paths: NULL-terminated.
 * @error: as for mdl_sweep_export(), naming the file.
 */
MDL_API gboolean mdl_sweep_merge (const char *out_path, const char *const *in_paths,
                                  GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlSweep, mdl_sweep_free)

G_END_DECLS

#endif
