/* Private to the sweep files of src/experiments: the grid expanded into sources and
 * configurations (sweep.c), the grid syntax (sweep-grid.c), the SQLite table (sweep-db.c) and the
 * threads that run a plan (sweep-run.c). */
#ifndef MDL_SWEEP_PRIVATE_H
#define MDL_SWEEP_PRIVATE_H

#include <models/algo.h>
#include <models/params.h>
#include <models/sweep.h>
#include <sqlite3.h>

/* mdl_sweep_values_expand: appends the guint64 values of a value list "a,b,lo..hi" to @out
 * (ranges double from lo up to hi); @owner and @key start error messages. */
gboolean mdl_sweep_values_expand (const char *owner, const char *key, const char *values,
                                  GArray *out, GError **error);

/* mdl_sweep_grid_expand: appends every spec of the grid @grid ("NAME,NAME2:k=a,b,k2=lo..hi")
 * to @out (char *, owned by @out), names first, then the keys, the last varying fastest. MDL_ERROR_PARAM naming @grid for a value
 * without its key or a bad range. */
gboolean mdl_sweep_grid_expand (const char *grid, GPtrArray *out, GError **error);

/* One (algorithm, n, seed), or one trace file: run or read once, replayed into all of its
 * configurations. */
typedef struct {
  const MdlAlgo *algo;   /* NULL for a trace */
  MdlParams *params;     /* NULL for a trace */
  const char *trace;     /* the trace's path (inside @name), or NULL */
  char *name;            /* the normalized algorithm spec, "scan/leftright:k=32", or "trace:PATH" */
  guint64 n;             /* elements; a trace's size in bytes */
  guint64 seed;          /* 0 for a trace */
} SweepSource;

/* One row of the table. */
typedef struct {
  char *key;        /* the primary key: name|n|seed|spec|version */
  char *spec;       /* the normalized engine spec */
  guint source;     /* index in SweepPlan.sources */
} SweepConfig;

/* The grid expanded, checked, sorted by (algorithm, n, seed, spec) and cut to its shard. */
typedef struct {
  GPtrArray *sources;   /* SweepSource *, owned */
  GPtrArray *configs;   /* SweepConfig *, owned, sorted */
  char *machine;        /* the grid's machine, or NULL */
  char *runner;         /* the `models` program recording the sources, or NULL (in process) */
} SweepPlan;

SweepPlan *mdl_sweep_plan (MdlSweep *sweep, GError **error);
void mdl_sweep_plan_free (SweepPlan *plan);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SweepPlan, mdl_sweep_plan_free)

/* When and where a job ran: seconds since the sweep began, and the worker thread (numbered from 1
 * in the order the workers took their first task). A replay runs in slices, on any worker: its
 * span is from its first slice's start to its report's end, and its thread the report's. */
typedef struct {
  double start, end;
  guint thread;
} SweepSpan;

/* The result of one configuration, handed from a worker to the writer. */
typedef struct {
  const SweepConfig *config;
  const SweepSource *source;
  MdlReport *report;        /* owned */
  guint64 events;
  double source_seconds;    /* recording the source (shared by its configurations) */
  double engine_seconds;    /* this engine's consume, marker and report calls */
  double report_seconds;    /* of which the report call (after the stream's end) */
  SweepSpan source_span;    /* the recording */
  SweepSpan engine_span;    /* the replay into this engine's shard */
} SweepResult;

/* The table (sweep-db.c). Every call sets MDL_ERROR_IO naming the file on failure. */
sqlite3 *mdl_sweep_db_open (const char *path, gboolean create, GError **error);
void mdl_sweep_db_close (sqlite3 *db);
/* The keys already in the table (char * set, owned). */
GHashTable *mdl_sweep_db_done (sqlite3 *db, const char *path, GError **error);
/* Writes @results (SweepResult *) in one transaction. */
gboolean mdl_sweep_db_write (sqlite3 *db, const char *path, GPtrArray *results, GError **error);

/* Runs @plan's configurations that are not in @done (sweep-run.c). */
gboolean mdl_sweep_run_plan (SweepPlan *plan, GHashTable *done, sqlite3 *db, const char *db_path,
                             guint n_threads, MdlSweepProgressFunc progress, void *data,
                             MdlSweepProgress *stats, GError **error);

#endif
