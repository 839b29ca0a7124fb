/* Running a sweep plan on every core. Each source (algorithm, n, seed) runs once on a worker
 * (in this process, or in a fresh `models run` process whose trace it reads: see
 * mdl_sweep_set_runner()), which keeps its event stream in memory: the batches copied into fixed
 * chunks, the items (batches and markers) in fixed blocks, neither ever moved. The configurations
 * of the source are dealt round-robin into at most n_threads shards, and each shard replays the
 * stream into its own engines on a worker, while it is being recorded: a shard that has caught up
 * with the recording parks, and the recording pushes it back into the pool when it publishes more
 * (every PUBLISH_ITEMS items) or ends, so no worker waits. The largest source's recording and its
 * replays overlap instead of following each other, which is what bounds a sweep of few sources.
 * An engine is single-threaded, so one engine never spans threads, and what it counts cannot
 * depend on the threads. Replays go before new recordings, so that at most about twice
 * n_threads streams are held at once (n_threads recording, the rest finishing their replays),
 * and among replays the largest stream recorded so far goes first (take_task()); the cost is
 * that one source's stream must fit in
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

/* Recorded batches are copied into chunks of at least this size that never move: growing one
 * array by reallocation copied every stream about twice and faulted its pages in twice, which
 * 16 recordings at once (in one address space) pay for in the kernel, and readers could not
 * replay an array that moves. */
#define CHUNK_BYTES (4u << 20)
#define BLOCK_ITEMS 1024u
/* The recording wakes its parked shards after this many new items (batches of up to 4096
 * events: a few million events between wake-ups). */
#define PUBLISH_ITEMS 512u

/* One element of a recorded stream: a batch (its arrays in the recording's chunks) or a marker. */
typedef struct {
  MdlEventBatch batch;
  MdlMarker marker;
  gboolean is_marker;
} Item;

typedef struct ItemBlock ItemBlock;
struct ItemBlock {
  Item items[BLOCK_ITEMS];
  ItemBlock *next;
};

typedef struct Shard Shard;

/* A source's stream. The recording task appends; shards read the first `published` items. */
typedef struct {
  GPtrArray *chunks;      /* the blocks the batches are copied into, owned (recorder only) */
  guint8 *free_at;        /* the unused end of the last chunk (recorder only) */
  gsize free_bytes;
  ItemBlock *first, *last;
  guint64 n_items;        /* appended (recorder only) */
  GStringChunk *names;    /* the markers' names (their pointers never move) */
  guint64 n_events;       /* as a pipeline counts them: CPU, warp and marker events */
  double seconds;         /* the instrumented run */
  SweepSpan span;         /* when and where it ran */
  GMutex lock;            /* guards the four below, and n_events, seconds and span once ended */
  guint64 published;      /* items the shards may read */
  guint64 published_events;   /* the events among them: the replays' priority */
  gboolean ended;         /* the recording finished (or failed: then `failed`) */
  gboolean failed;
  GPtrArray *parked;      /* Shard *: caught up, waiting for more */
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

/* One shard's engines and where its replay stands; lives from the recording's start to its last
 * item. */
struct Shard {
  SourceWork *work;
  GPtrArray *engines;         /* MdlEngine *, owned */
  GPtrArray *configs;         /* const SweepConfig *, parallel to engines */
  double *seconds;            /* per engine */
  gint64 first_us;            /* its first slice's start (monotonic), 0 before it */
  ItemBlock *block;           /* the block of the next item */
  guint64 next;               /* the next item's index in the stream */
  GError *error;              /* the engines' first failure; the shard then only drains */
};

/* A task of the pool: record a source (shard NULL) or replay what is published into a shard. */
typedef struct {
  SourceWork *work;
  Shard *shard;
} Task;

struct Run {
  SweepPlan *plan;
  guint n_threads;
  GThreadPool *pool;
  GAsyncQueue *results;       /* SweepResult *; the end is a result with no config */
  GMutex lock;                /* guards error, pending, ready */
  GCond idle;
  GError *error;              /* the first failure */
  guint pending;              /* tasks pushed and not finished */
  GPtrArray *ready;           /* Task *, owned: pushed, not yet taken by a worker */
  gint stop;                  /* atomic: a failure or the progress callback asked to stop */
  gint64 start_us;            /* the sweep's start (monotonic), the origin of the spans */
  GHashTable *workers;        /* GThread * -> its number (from 1), guarded by lock */
};

static void
recording_free (Recording *r)
{
  if (r == NULL)
    return;
  while (r->first)
    {
      ItemBlock *next = r->first->next;
      g_free (r->first);
      r->first = next;
    }
  g_ptr_array_unref (r->chunks);
  g_string_chunk_free (r->names);
  g_ptr_array_unref (r->parked);
  g_mutex_clear (&r->lock);
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

/* The pool's queue holds one token per task; a worker that takes a token runs the best task
 * ready at that moment (take_task()), chosen by what is known then, which a queue sorted at push
 * time could not do: a replay's priority grows as its source records more. */
static void
run_push (Run *run, SourceWork *w, Shard *shard)
{
  Task *task = g_new (Task, 1);
  *task = (Task) { w, shard };
  g_mutex_lock (&run->lock);
  run->pending++;
  g_ptr_array_add (run->ready, task);
  g_mutex_unlock (&run->lock);
  g_thread_pool_push (run->pool, GUINT_TO_POINTER (1), NULL);
}

/* The calling worker's number, given in the order the workers are first seen. */
static guint
worker_number (Run *run)
{
  guint number;
  g_mutex_lock (&run->lock);
  number = GPOINTER_TO_UINT (g_hash_table_lookup (run->workers, g_thread_self ()));
  if (number == 0)
    {
      number = g_hash_table_size (run->workers) + 1;
      g_hash_table_insert (run->workers, g_thread_self (), GUINT_TO_POINTER (number));
    }
  g_mutex_unlock (&run->lock);
  return number;
}

static double
run_seconds (const Run *run, gint64 at_us)
{
  return (double) (at_us - run->start_us) / G_USEC_PER_SEC;
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
  Run *run;
  SourceWork *work;
} RecordSink;

static gboolean
stopped (GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "stopped");
  return FALSE;
}

/* Makes the items appended so far readable and pushes the parked shards back into the pool.
 * @end: the recording is over (@failed: without a whole stream). */
static void
publish (Run *run, SourceWork *w, gboolean end, gboolean failed)
{
  Recording *r = w->rec;
  g_autoptr (GPtrArray) wake = NULL;
  g_mutex_lock (&r->lock);
  r->published = r->n_items;
  r->published_events = r->n_events;
  r->ended = end;
  r->failed = failed;
  wake = r->parked;
  r->parked = g_ptr_array_new ();
  g_mutex_unlock (&r->lock);
  for (guint i = 0; i < wake->len; i++)
    run_push (run, w, g_ptr_array_index (wake, i));
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

static void
record_item (RecordSink *s, const Item *it)
{
  Recording *r = s->rec;
  guint at = (guint) (r->n_items % BLOCK_ITEMS);
  if (at == 0 && r->n_items > 0)
    {
      r->last->next = g_new (ItemBlock, 1);
      r->last = r->last->next;
      r->last->next = NULL;
    }
  r->last->items[at] = *it;
  if (++r->n_items % PUBLISH_ITEMS == 0)
    publish (s->run, s->work, FALSE, FALSE);
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
  r->n_events += b->n_cpu + b->n_warp;
  record_item (s, &it);
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
  r->n_events++;
  record_item (s, &it);
  return TRUE;
}

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


/* Shards of @w's configurations, their engines built; NULL (the run failed) when one cannot be. */
static GPtrArray *
make_shards (Run *run, SourceWork *w)
{
  const SweepSource *s = g_ptr_array_index (run->plan->sources, w->index);
  guint n_shards = MIN (w->todo->len, run->n_threads);
  GPtrArray *shards = g_ptr_array_new ();
  for (guint k = 0; k < n_shards; k++)
    {
      Shard *sh = g_new0 (Shard, 1);
      sh->work = w;
      sh->engines = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_engine_free);
      sh->configs = g_ptr_array_new ();
      g_ptr_array_add (shards, sh);
      for (guint i = k; i < w->todo->len; i += n_shards)
        {
          const SweepConfig *c = g_ptr_array_index (w->todo, i);
          GError *error = NULL;
          MdlEngine *e = mdl_engine_new_on (c->spec, run->plan->machine, &error);
          if (e == NULL)
            {
              prefix_source (&error, s);
              run_fail (run, error);
              for (guint j = 0; j < shards->len; j++)
                {
                  Shard *x = g_ptr_array_index (shards, j);
                  g_ptr_array_unref (x->engines);
                  g_ptr_array_unref (x->configs);
                  g_free (x);
                }
              g_ptr_array_unref (shards);
              return NULL;
            }
          g_ptr_array_add (sh->engines, e);
          g_ptr_array_add (sh->configs, (gpointer) c);
        }
      sh->seconds = g_new0 (double, sh->engines->len);
    }
  return shards;
}

/* Records @w's source while its shards replay it: they start parked and are woken as items are
 * published. */
static void
record (Run *run, SourceWork *w)
{
  const SweepSource *s = g_ptr_array_index (run->plan->sources, w->index);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) shards = make_shards (run, w);
  Recording *r;
  RecordSink rs;
  MdlSink sink = { record_batch, record_marker, &rs };
  gint64 start_us = g_get_monotonic_time (), end_us;
  guint thread = worker_number (run);
  gboolean ok;
  if (shards == NULL)
    return;
  r = g_new0 (Recording, 1);
  r->chunks = g_ptr_array_new_with_free_func (g_free);
  r->first = r->last = g_new0 (ItemBlock, 1);
  r->names = g_string_chunk_new (256);
  r->parked = g_ptr_array_new ();
  g_mutex_init (&r->lock);
  for (guint i = 0; i < shards->len; i++)
    {
      Shard *sh = g_ptr_array_index (shards, i);
      sh->block = r->first;
      g_ptr_array_add (r->parked, sh);
    }
  w->rec = r;
  w->shards_left = (gint) shards->len;
  rs = (RecordSink) { r, &run->stop, run, w };
  if (s->trace)
    ok = read_trace (s->trace, &sink, &error);
  else if (run->plan->runner)
    ok = record_spawned (run->plan->runner, s, &sink, &error);
  else
    ok = mdl_algo_run_into (s->algo, s->params, s->n, s->seed, &sink, NULL, &error);
  if (!ok && !g_atomic_int_get (&run->stop))
    {
      prefix_source (&error, s);
      run_fail (run, g_steal_pointer (&error));
    }
  end_us = g_get_monotonic_time ();
  g_mutex_lock (&r->lock);
  r->seconds = (double) (end_us - start_us) / G_USEC_PER_SEC;
  r->span = (SweepSpan) { run_seconds (run, start_us), run_seconds (run, end_us), thread };
  g_mutex_unlock (&r->lock);
  publish (run, w, TRUE, !ok);
}

/* ---- replay ---- */

/* Feeds items [sh->next, end) to the shard's engines, adding each engine's time to its seconds. */
static gboolean
replay (Run *run, Shard *sh, guint64 end, GError **error)
{
  for (; sh->next < end; sh->next++)
    {
      guint at = (guint) (sh->next % BLOCK_ITEMS);
      const Item *it;
      if (at == 0 && sh->next > 0)
        sh->block = sh->block->next;
      it = &sh->block->items[at];
      if (g_atomic_int_get (&run->stop))
        return stopped (error);
      for (guint e = 0; e < sh->engines->len; e++)
        {
          MdlEngine *engine = g_ptr_array_index (sh->engines, e);
          gint64 start_us = g_get_monotonic_time ();
          gboolean ok = it->is_marker ? mdl_engine_marker (engine, &it->marker, error)
                                      : mdl_engine_consume (engine, &it->batch, error);
          sh->seconds[e] += (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC;
          if (!ok)
            {
              g_prefix_error (error, "%s: ", mdl_engine_spec (engine));
              return FALSE;
            }
        }
    }
  return TRUE;
}

/* A whole stream replayed: the shard's results go to the writer (unless the recording failed or
 * the run stopped), and the last shard of a source frees its stream. */
static void
finish_shard (Run *run, Shard *sh, gboolean failed)
{
  SourceWork *w = sh->work;
  const SweepSource *s = g_ptr_array_index (run->plan->sources, w->index);
  guint thread = worker_number (run);
  if (sh->error && !g_atomic_int_get (&run->stop))
    {
      prefix_source (&sh->error, s);
      run_fail (run, g_steal_pointer (&sh->error));
    }
  for (guint e = 0; e < sh->engines->len && !failed && !sh->error
                    && !g_atomic_int_get (&run->stop); e++)
    {
      SweepResult *res = g_new0 (SweepResult, 1);
      gint64 start_us = g_get_monotonic_time (), end_us;
      res->config = g_ptr_array_index (sh->configs, e);
      res->source = s;
      /* The report's time is the engine's too: offline policies (vat min, ismin) run there what
       * the stream left them. */
      res->report = mdl_engine_report (g_ptr_array_index (sh->engines, e));
      end_us = g_get_monotonic_time ();
      res->events = w->rec->n_events;
      res->source_seconds = w->rec->seconds;
      res->source_span = w->rec->span;
      res->report_seconds = (double) (end_us - start_us) / G_USEC_PER_SEC;
      res->engine_seconds = sh->seconds[e] + res->report_seconds;
      res->engine_span = (SweepSpan) { run_seconds (run, sh->first_us), run_seconds (run, end_us),
                                       thread };
      g_async_queue_push (run->results, res);
    }
  g_clear_error (&sh->error);
  g_ptr_array_unref (sh->engines);
  g_ptr_array_unref (sh->configs);
  g_free (sh->seconds);
  g_free (sh);
  if (g_atomic_int_dec_and_test (&w->shards_left))
    g_clear_pointer (&w->rec, recording_free);
}

/* Replays what is published; then parks, or finishes when the recording has ended. */
static void
replay_shard (Run *run, Shard *sh)
{
  Recording *r = sh->work->rec;
  if (sh->first_us == 0)
    sh->first_us = g_get_monotonic_time ();
  for (;;)
    {
      guint64 end;
      gboolean ended, failed;
      g_mutex_lock (&r->lock);
      end = r->published;
      ended = r->ended;
      failed = r->failed;
      if (sh->next == end && !ended)
        {
          g_ptr_array_add (r->parked, sh);
          g_mutex_unlock (&r->lock);
          return;
        }
      g_mutex_unlock (&r->lock);
      if (sh->next == end)
        {
          finish_shard (run, sh, failed);
          return;
        }
      /* After a failure the shard only drains: its stream is read to the end, unused. */
      if (sh->error == NULL && !replay (run, sh, end, &sh->error))
        continue;
      sh->next = end;
    }
}

static guint64
events_recorded (const SourceWork *w)
{
  guint64 events;
  g_mutex_lock (&w->rec->lock);
  events = w->rec->published_events;
  g_mutex_unlock (&w->rec->lock);
  return events;
}

/* Whether @x should run before @y. Replays go before recordings (at most about twice n_threads
 * streams are held). Replays: the source with the most events recorded so far first, the
 * estimate of the most work left (its stream is the longest yet, and a recording still going
 * grows it), so that the largest source's engines do not start last; recordings: the largest n
 * first, for the same reason; then the plan's order. tools/sweep-schedule.py simulates this
 * against the plan's order alone (docs/howto/sweeps.md, "The critical path"). */
static gboolean
task_before (const Task *x, const Task *y, const SweepPlan *plan)
{
  if ((x->shard == NULL) != (y->shard == NULL))
    return x->shard != NULL;
  if (x->shard)
    {
      guint64 ex = events_recorded (x->work), ey = events_recorded (y->work);
      if (ex != ey)
        return ex > ey;
    }
  else
    {
      const SweepSource *sx = g_ptr_array_index (plan->sources, x->work->index);
      const SweepSource *sy = g_ptr_array_index (plan->sources, y->work->index);
      if (sx->n != sy->n)
        return sx->n > sy->n;
    }
  return x->work->index < y->work->index;
}

/* Removes and returns the ready task to run first. O(ready), each replay's key read under its
 * recording's lock: ready holds the recordings not yet started (every source, at the start) and
 * the woken shards (at most n_threads per source being recorded), so a grid of S sources costs
 * O(S^2) compares in all, a million pointer compares for 1000 sources: nothing beside their runs. */
static Task *
take_task (Run *run)
{
  Task *best = NULL;
  guint at = 0;
  g_mutex_lock (&run->lock);
  for (guint i = 0; i < run->ready->len; i++)
    {
      Task *t = g_ptr_array_index (run->ready, i);
      if (best == NULL || task_before (t, best, run->plan))
        best = t, at = i;
    }
  g_ptr_array_remove_index_fast (run->ready, at);
  g_mutex_unlock (&run->lock);
  return best;
}

static void
task_run (gpointer token, gpointer user_data)
{
  Run *run = user_data;
  Task *t = take_task (run);
  (void) token;
  if (t->shard == NULL)
    record (run, t->work);
  else
    replay_shard (run, t->shard);
  g_free (t);
  run_task_done (run);
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
  run.start_us = writer.start_us;
  run.workers = g_hash_table_new (NULL, NULL);
  run.ready = g_ptr_array_new ();
  run.results = g_async_queue_new ();
  run.pool = g_thread_pool_new (task_run, &run, (gint) n_threads, TRUE, NULL);
  thread = g_thread_new ("sweep-writer", writer_main, &writer);
  for (guint i = 0; i < works->len; i++)
    {
      SourceWork *w = g_ptr_array_index (works, i);
      if (w->todo->len > 0)
        run_push (&run, w, NULL);
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
  g_hash_table_unref (run.workers);
  g_ptr_array_unref (run.ready);
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
