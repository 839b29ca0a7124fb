/* Running a sweep plan on every core. Each source (algorithm, n, seed) runs once on a worker
 * (in this process, or in a fresh `models run` process whose trace it reads: see
 * mdl_sweep_set_runner()), which keeps its event stream in memory (the batches copied into
 * fixed chunks, the markers beside them); the configurations of the source are then dealt round-robin into at most
 * n_threads shards, and each shard replays the immutable stream into its own engines on a worker.
 * An engine is single-threaded, so one engine never spans threads, and what it counts cannot
 * depend on the threads. Replays go before new recordings in the pool's queue, so that at most
 * about n_threads streams are held at once; the cost is that one source's stream must fit in
 * memory (16 bytes per CPU event, 48 per warp instruction plus 8 per lane address).
 * One writer thread owns the database: it commits whatever results have arrived in one
 * transaction, then counts them done, so a killed sweep loses nothing it reported. */
#include "experiments/sweep-private.h"

#include <gio/gio.h>
#include <models/engine.h>
#include <models/error.h>
#include <models/trace.h>
#include <string.h>

#define WRITER_POLL_US (G_USEC_PER_SEC / 4)   /* progress four times a second between commits */

/* One element of a recorded stream: a batch (its arrays copied into the recording's chunks) or a
 * marker. */
typedef struct {
  MdlEventBatch batch;
  MdlMarker marker;
  gboolean is_marker;
} Item;

/* Recorded batches are copied into chunks of at least this size that never move: growing one
 * array by reallocation copied every stream about twice and faulted its pages in twice, which
 * 16 recordings at once (in one address space) pay for in the kernel. */
#define CHUNK_BYTES (4u << 20)

/* A source's stream, written by its recording task and then only read. */
typedef struct {
  GPtrArray *chunks;      /* the blocks the batches are copied into, owned */
  guint8 *free_at;        /* the unused end of the last chunk */
  gsize free_bytes;
  GArray *items;          /* Item */
  GStringChunk *names;    /* the markers' names */
  guint64 n_events;       /* as a pipeline counts them: CPU, warp and marker events */
  double seconds;         /* the instrumented run */
} Recording;

typedef struct Run Run;

/* One source and the configurations of it that are still to run. */
typedef struct {
  Run *run;
  guint index;                /* in plan->sources */
  GPtrArray *todo;            /* const SweepConfig *, borrowed from the plan */
  Recording *rec;
  gint shards_left;
} SourceWork;

/* A task of the pool: record a source (shard < 0) or replay it into one shard. */
typedef struct {
  SourceWork *work;
  gint shard;
  gint n_shards;
} Task;

struct Run {
  SweepPlan *plan;
  guint n_threads;
  GThreadPool *pool;
  GAsyncQueue *results;       /* SweepResult *; the end is a result with no config */
  GMutex lock;                /* guards error, pending */
  GCond idle;
  GError *error;              /* the first failure */
  guint pending;              /* tasks pushed and not finished */
  gint stop;                  /* atomic: a failure or the progress callback asked to stop */
};

static void
recording_free (Recording *r)
{
  if (r == NULL)
    return;
  g_ptr_array_unref (r->chunks);
  g_array_unref (r->items);
  g_string_chunk_free (r->names);
  g_free (r);
}

/* Keeps the first error; later ones are consequences or races of the same stop. */
static void
run_fail (Run *run, GError *error)
{
  g_mutex_lock (&run->lock);
  if (run->error == NULL)
    run->error = error;
  else
    g_error_free (error);
  g_mutex_unlock (&run->lock);
  g_atomic_int_set (&run->stop, 1);
}

static void
run_push (Run *run, Task *task)
{
  g_mutex_lock (&run->lock);
  run->pending++;
  g_mutex_unlock (&run->lock);
  g_thread_pool_push (run->pool, task, NULL);
}

static void
run_task_done (Run *run)
{
  g_mutex_lock (&run->lock);
  if (--run->pending == 0)
    g_cond_signal (&run->idle);
  g_mutex_unlock (&run->lock);
}

/* ---- recording ---- */

typedef struct {
  Recording *rec;
  const gint *stop;
} RecordSink;

static gboolean
stopped (GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "stopped");
  return FALSE;
}

/* A copy of @bytes bytes of @src in @r's chunks (8-byte aligned, as every event array is). */
static gconstpointer
recording_copy (Recording *r, gconstpointer src, gsize bytes)
{
  guint8 *at;
  bytes = (bytes + 7) & ~(gsize) 7;
  if (bytes == 0)
    return NULL;
  if (bytes > r->free_bytes)
    {
      gsize size = MAX (CHUNK_BYTES, bytes);
      r->free_at = g_malloc (size);
      r->free_bytes = size;
      g_ptr_array_add (r->chunks, r->free_at);
    }
  at = r->free_at;
  memcpy (at, src, bytes);
  r->free_at += bytes;
  r->free_bytes -= bytes;
  return at;
}

static gboolean
record_batch (void *data, const MdlEventBatch *b, GError **error)
{
  RecordSink *s = data;
  Recording *r = s->rec;
  Item it = { .batch = { .n_cpu = b->n_cpu, .n_warp = b->n_warp,
                         .n_lane_addrs = b->n_lane_addrs } };
  if (g_atomic_int_get (s->stop))
    return stopped (error);
  it.batch.cpu = recording_copy (r, b->cpu, b->n_cpu * sizeof *b->cpu);
  it.batch.warp = recording_copy (r, b->warp, b->n_warp * sizeof *b->warp);
  it.batch.lane_addrs = recording_copy (r, b->lane_addrs, b->n_lane_addrs * sizeof *b->lane_addrs);
  g_array_append_val (r->items, it);
  r->n_events += b->n_cpu + b->n_warp;
  return TRUE;
}

static gboolean
record_marker (void *data, const MdlMarker *m, GError **error)
{
  RecordSink *s = data;
  Recording *r = s->rec;
  Item it = { .marker = *m, .is_marker = TRUE };
  if (g_atomic_int_get (s->stop))
    return stopped (error);
  if (m->name)
    it.marker.name = g_string_chunk_insert_const (r->names, m->name);
  g_array_append_val (r->items, it);
  r->n_events++;
  return TRUE;
}

/* The prefix of a configuration's or a source's error: which run it was. */
static void
prefix_source (GError **error, const SweepSource *s)
{
  g_prefix_error (error, "%s n=%" G_GUINT64_FORMAT " seed=%" G_GUINT64_FORMAT ": ", s->name, s->n,
                  s->seed);
}

/* Runs `RUNNER run` on the source with its trace on a pipe, and reads the trace into @sink. The
 * child's own report (of the cheapest engine) is thrown away; its message, if it fails, is ours. */
static gboolean
record_spawned (const char *runner, const SweepSource *s, const MdlSink *sink, GError **error)
{
  g_autofree char *n_text = g_strdup_printf ("%" G_GUINT64_FORMAT, s->n);
  g_autofree char *seed_text = g_strdup_printf ("%" G_GUINT64_FORMAT, s->seed);
  g_autofree char *err_text = NULL;
  const char *argv[] = { runner, "run", s->name, "--n", n_text, "--seed", seed_text, "--engine",
                         "count", "--trace-out", "-", "--output", "/dev/null", NULL };
  g_autoptr (GSubprocess) child = NULL;
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (GError) local = NULL;
  gboolean done = FALSE, read_ok;
  child = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                             error);
  if (child == NULL)
    return FALSE;
  reader = mdl_trace_reader_new (g_subprocess_get_stdout_pipe (child), runner, MDL_TRACE_BIN,
                                 &local);
  read_ok = reader && mdl_trace_reader_pump (reader, sink, 0, &done, &local);
  if (!read_ok)
    g_subprocess_force_exit (child);
  g_clear_pointer (&reader, mdl_trace_reader_free);
  if (!g_subprocess_communicate_utf8 (child, NULL, NULL, NULL, &err_text, error))
    return FALSE;
  if (!g_subprocess_get_if_exited (child) || g_subprocess_get_exit_status (child) != 0)
    {
      /* The child's one-line message says why ("models: n=0: ..."); a stop says it better. */
      const char *why;
      g_strchomp (err_text ? err_text : (err_text = g_strdup ("")));
      why = g_str_has_prefix (err_text, "models: ") ? err_text + 8 : err_text;
      if (local && g_error_matches (local, MDL_ERROR, MDL_ERROR_IO)
          && strcmp (local->message, "stopped") == 0)
        g_propagate_error (error, g_steal_pointer (&local));
      else
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s", *why ? why
                     : "the recording process failed");
      return FALSE;
    }
  if (!read_ok)
    g_propagate_error (error, g_steal_pointer (&local));
  return read_ok;
}

/* A trace file's events into @sink (what `models analyze` reads, in any format it detects). */
static gboolean
read_trace (const char *path, const MdlSink *sink, GError **error)
{
  g_autoptr (MdlTraceReader) reader = mdl_trace_reader_open (path, MDL_TRACE_AUTO, error);
  gboolean done = FALSE;
  return reader && mdl_trace_reader_pump (reader, sink, 0, &done, error);
}

static gboolean
record (Run *run, SourceWork *w)
{
  const SweepSource *s = g_ptr_array_index (run->plan->sources, w->index);
  g_autoptr (GError) error = NULL;
  Recording *r = g_new0 (Recording, 1);
  RecordSink rs = { r, &run->stop };
  MdlSink sink = { record_batch, record_marker, &rs };
  gint64 start_us = g_get_monotonic_time ();
  gboolean ok;
  r->chunks = g_ptr_array_new_with_free_func (g_free);
  r->items = g_array_new (FALSE, FALSE, sizeof (Item));
  r->names = g_string_chunk_new (256);
  w->rec = r;
  if (s->trace)
    ok = read_trace (s->trace, &sink, &error);
  else if (run->plan->runner)
    ok = record_spawned (run->plan->runner, s, &sink, &error);
  else
    ok = mdl_algo_run_into (s->algo, s->params, s->n, s->seed, &sink, NULL, &error);
  if (!ok)
    {
      if (!g_atomic_int_get (&run->stop))
        {
          prefix_source (&error, s);
          run_fail (run, g_steal_pointer (&error));
        }
      return FALSE;
    }
  r->seconds = (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
  return TRUE;
}

/* ---- replay ---- */

/* Feeds the whole recording to @engines, adding each engine's time to @seconds. */
static gboolean
replay (Run *run, const Recording *r, GPtrArray *engines, double *seconds, GError **error)
{
  for (guint i = 0; i < r->items->len; i++)
    {
      const Item *it = &g_array_index (r->items, Item, i);
      if (g_atomic_int_get (&run->stop))
        return stopped (error);
      for (guint e = 0; e < engines->len; e++)
        {
          MdlEngine *engine = g_ptr_array_index (engines, e);
          gint64 start_us = g_get_monotonic_time ();
          gboolean ok = it->is_marker ? mdl_engine_marker (engine, &it->marker, error)
                                      : mdl_engine_consume (engine, &it->batch, error);
          seconds[e] += (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
          if (!ok)
            {
              g_prefix_error (error, "%s: ", mdl_engine_spec (engine));
              return FALSE;
            }
        }
    }
  return TRUE;
}

static void
replay_shard (Run *run, SourceWork *w, gint shard, gint n_shards)
{
  const SweepSource *s = g_ptr_array_index (run->plan->sources, w->index);
  g_autoptr (GPtrArray) engines = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_engine_free);
  g_autoptr (GPtrArray) configs = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree double *seconds = NULL;
  for (guint i = (guint) shard; i < w->todo->len; i += (guint) n_shards)
    {
      const SweepConfig *c = g_ptr_array_index (w->todo, i);
      MdlEngine *e = mdl_engine_new_on (c->spec, run->plan->machine, &error);
      if (e == NULL)
        goto fail;
      g_ptr_array_add (engines, e);
      g_ptr_array_add (configs, (gpointer) c);
    }
  seconds = g_new0 (double, engines->len);
  if (!replay (run, w->rec, engines, seconds, &error))
    goto fail;
  for (guint e = 0; e < engines->len; e++)
    {
      SweepResult *res = g_new0 (SweepResult, 1);
      res->config = g_ptr_array_index (configs, e);
      res->source = s;
      res->report = mdl_engine_report (g_ptr_array_index (engines, e));
      res->events = w->rec->n_events;
      res->source_seconds = w->rec->seconds;
      res->engine_seconds = seconds[e];
      g_async_queue_push (run->results, res);
    }
  return;
fail:
  if (!g_atomic_int_get (&run->stop))
    {
      prefix_source (&error, s);
      run_fail (run, g_steal_pointer (&error));
    }
}

static void
task_run (gpointer data, gpointer user_data)
{
  Task *t = data;
  Run *run = user_data;
  SourceWork *w = t->work;
  if (t->shard < 0)
    {
      if (!g_atomic_int_get (&run->stop) && record (run, w))
        {
          gint n_shards = (gint) MIN (w->todo->len, run->n_threads);
          w->shards_left = n_shards;
          for (gint i = 0; i < n_shards; i++)
            {
              Task *r = g_new (Task, 1);
              *r = (Task) { w, i, n_shards };
              run_push (run, r);
            }
        }
    }
  else
    {
      if (!g_atomic_int_get (&run->stop))
        replay_shard (run, w, t->shard, t->n_shards);
      /* The last shard of a source frees its stream. */
      if (g_atomic_int_dec_and_test (&w->shards_left))
        g_clear_pointer (&w->rec, recording_free);
    }
  g_free (t);
  run_task_done (run);
}

/* Replays before recordings (bounded memory); otherwise in plan order. */
static gint
task_order (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const Task *x = a, *y = b;
  (void) user_data;
  if ((x->shard < 0) != (y->shard < 0))
    return x->shard < 0 ? 1 : -1;
  if (x->work->index != y->work->index)
    return x->work->index < y->work->index ? -1 : 1;
  return x->shard < y->shard ? -1 : x->shard > y->shard;
}

/* ---- the writer ---- */

typedef struct {
  Run *run;
  sqlite3 *db;
  const char *db_path;
  MdlSweepProgressFunc progress;
  void *data;
  MdlSweepProgress state;
  gint64 start_us;
} Writer;

static void
result_free (SweepResult *r)
{
  mdl_report_free (r->report);
  g_free (r);
}

static void
writer_progress (Writer *w)
{
  w->state.seconds = (double) (g_get_monotonic_time () - w->start_us) / G_USEC_PER_SEC;
  if (w->progress && !w->progress (&w->state, w->data)
      && !g_atomic_int_get (&w->run->stop))
    {
      g_autoptr (GError) error = NULL;
      stopped (&error);
      run_fail (w->run, g_steal_pointer (&error));
    }
}

static gpointer
writer_main (gpointer data)
{
  Writer *w = data;
  g_autoptr (GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) result_free);
  gboolean end = FALSE, failed = FALSE;
  while (!end)
    {
      SweepResult *r = g_async_queue_timeout_pop (w->run->results, WRITER_POLL_US);
      for (; r; r = g_async_queue_try_pop (w->run->results))
        {
          if (r->config == NULL)
            {
              end = TRUE;
              result_free (r);
              break;
            }
          g_ptr_array_add (batch, r);
        }
      if (batch->len > 0 && !failed)
        {
          GError *error = NULL;
          if (mdl_sweep_db_write (w->db, w->db_path, batch, &error))
            w->state.done += batch->len;
          else
            {
              failed = TRUE;
              run_fail (w->run, error);
            }
        }
      g_ptr_array_set_size (batch, 0);
      writer_progress (w);
    }
  return NULL;
}

gboolean
mdl_sweep_run_plan (SweepPlan *plan, GHashTable *done, sqlite3 *db, const char *db_path,
                    guint n_threads, MdlSweepProgressFunc progress, void *data,
                    MdlSweepProgress *stats, GError **error)
{
  Run run = { .plan = plan, .n_threads = n_threads };
  Writer writer = { &run, db, db_path, progress, data, { 0 }, g_get_monotonic_time () };
  g_autoptr (GPtrArray) works = g_ptr_array_new ();
  GThread *thread;

  /* What is left to run, per source. */
  for (guint i = 0; i < plan->sources->len; i++)
    {
      SourceWork *w = g_new0 (SourceWork, 1);
      *w = (SourceWork) { &run, i, g_ptr_array_new (), NULL, 0 };
      g_ptr_array_add (works, w);
    }
  for (guint i = 0; i < plan->configs->len; i++)
    {
      SweepConfig *c = g_ptr_array_index (plan->configs, i);
      SourceWork *w = g_ptr_array_index (works, c->source);
      if (g_hash_table_contains (done, c->key))
        writer.state.skipped++;
      else
        g_ptr_array_add (w->todo, c);
    }
  writer.state.total = plan->configs->len;

  g_mutex_init (&run.lock);
  g_cond_init (&run.idle);
  run.results = g_async_queue_new ();
  run.pool = g_thread_pool_new (task_run, &run, (gint) n_threads, TRUE, NULL);
  g_thread_pool_set_sort_function (run.pool, task_order, NULL);
  thread = g_thread_new ("sweep-writer", writer_main, &writer);
  for (guint i = 0; i < works->len; i++)
    {
      SourceWork *w = g_ptr_array_index (works, i);
      if (w->todo->len > 0)
        {
          Task *t = g_new (Task, 1);
          *t = (Task) { w, -1, 0 };
          run_push (&run, t);
        }
    }
  g_mutex_lock (&run.lock);
  while (run.pending > 0)
    g_cond_wait (&run.idle, &run.lock);
  g_mutex_unlock (&run.lock);
  g_thread_pool_free (run.pool, FALSE, TRUE);
  g_async_queue_push (run.results, g_new0 (SweepResult, 1));
  g_thread_join (thread);

  for (guint i = 0; i < works->len; i++)
    {
      SourceWork *w = g_ptr_array_index (works, i);
      recording_free (w->rec);   /* left by a recording that failed or found a stop */
      g_ptr_array_unref (w->todo);
      g_free (w);
    }
  g_async_queue_unref (run.results);
  g_cond_clear (&run.idle);
  g_mutex_clear (&run.lock);
  if (stats)
    *stats = writer.state;
  if (run.error)
    {
      g_propagate_error (error, run.error);
      return FALSE;
    }
  return TRUE;
}
