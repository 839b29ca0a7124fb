/* The pipeline's engines on worker threads. The producer (the caller's thread: the SIMT layer, a
 * recorder, a trace reader) puts each batch and marker into the chunk it is filling, one of a
 * ring of n_chunks; a chunk holding chunk_bytes or more is published to the workers. A batch whose
 * source lends its memory (MdlEventBatch.keep: the SIMT layer's, a recorder's) is kept, not
 * copied, and the hold is given back when its chunk is refilled; any other batch is copied into
 * the chunk. Each engine
 * consumes the chunks in order, so it sees exactly the stream it would see alone, and its report
 * cannot depend on the threads. A worker takes whichever idle engine is furthest behind (the one
 * holding back the oldest chunk), so a few threads share many engines of unequal cost without a
 * fixed grouping; one engine never runs on two threads at once. A chunk is refilled only once
 * every engine has consumed it: memory stays at n_chunks times the larger of chunk_bytes and the
 * largest batch, and the producer waits while the ring is full. Why chunks and not one queue slot
 * per batch: a sort's SIMT twin sends a marker every few hundred events, and a lock and a wake-up
 * per item would cost more than the engines' work on it.
 * Errors: the serial pipeline stops at the first item an engine refuses, and among the engines
 * refusing it at the first one added. Here the engines are at different places when one fails, so
 * the others go on up to that place (the stop), and a failure before it becomes the stop; the
 * producer is told once nothing can move the stop any more, so the error is the serial one. */
#include "models/pipeline-threads.h"

#include <models/error.h>
#include <string.h>
#include <time.h>

/* The producer's fields, the workers' read-mostly ones and the locked ones each start a cache
 * line of their own (the allocation is aligned to it): the producer writes at every item, the
 * workers read the stop at every item, and a line shared by both went from core to core at every
 * item (gpu-quicksort hands over a batch and a marker every 24 warp events). */
#define CACHE_LINE 64

/* One batch or marker of a chunk. Offsets, not pointers, into the chunk's data, which may move
 * while the chunk is filled. */
typedef struct {
  MdlEventBatch kept;         /* a kept batch, as its source lent it; kept.keep NULL: none */
  gsize cpu, warp, lanes;     /* a copied batch: byte offsets of the arrays */
  gsize n_cpu, n_warp, n_lanes;
  gsize name;                 /* the marker name's offset; G_MAXSIZE: none */
  MdlMarker marker;           /* name unset */
  gboolean is_marker;
} Item;

/* A cache line of its own: the producer writes kept_bytes at every item of the chunk it fills
 * while the workers read their chunks' fields, and sharing a line would move it between the
 * cores at every item. */
typedef struct {
  _Alignas (CACHE_LINE) GByteArray *data;   /* the copied arrays and names, each 8-byte aligned */
  GArray *items;              /* Item */
  gsize kept_bytes;           /* the kept batches' arrays (they count towards the chunk's size) */
  guint64 first;              /* the stream position of the first item */
} Chunk;

/* A place in the stream as the serial pipeline reaches it: item, then engine. Engines number
 * fewer than 2^16 and items fewer than 2^48. */
#define PLACE(item, engine) ((item) << 16 | (engine))
#define NOWHERE G_MAXUINT64

struct MdlPipelineThreads {
  /* Set at the start, read by all */
  GPtrArray *engines;         /* MdlEngine *, borrowed */
  Chunk *ring;
  guint n_chunks;
  gsize chunk_bytes;
  GThread **workers;
  guint n_workers;
  guint64 stop;               /* atomic: the PLACE of the failure the error is from; NOWHERE */
  gint failed;                /* atomic: error is set (read by the producer without the lock) */
  /* The producer's alone */
  _Alignas (CACHE_LINE) Chunk *filling;   /* ring[published % n_chunks]; NULL: none yet */
  guint64 n_items;            /* items delivered */
  _Alignas (CACHE_LINE) GMutex lock;      /* guards the rest */
  GCond work;                 /* a worker waits for a chunk */
  GCond space;                /* the producer waits for a free chunk, or for the end of a flush */
  guint64 published;          /* chunks handed to the workers */
  guint64 *done;              /* per engine: chunks it has consumed */
  gboolean *busy;             /* per engine: a worker is feeding it */
  gboolean *broken;           /* per engine: it has failed */
  guint n_idle;               /* workers waiting on work */
  gboolean producer_waits;
  gboolean quit;
  guint64 n_producer_waits;   /* the stats (mdl_pipeline_threads_stats()) */
  guint64 n_worker_waits;
  gint64 *cpu_ns;             /* per engine: the workers' CPU time feeding it */
  GError *error;              /* the failure at stop */
};

gboolean
mdl_engine_deliver (MdlEngine *engine, const MdlEventBatch *batch, const MdlMarker *marker,
                    GError **error)
{
  if (batch ? mdl_engine_consume (engine, batch, error) : mdl_engine_marker (engine, marker, error))
    return TRUE;
  g_prefix_error (error, "%s: ", mdl_engine_spec (engine));
  return FALSE;
}

static guint64
stop_get (MdlPipelineThreads *t)
{
  return __atomic_load_n (&t->stop, __ATOMIC_ACQUIRE);
}

/* Feeds the items of @c to engine @e, in order, up to the stop; the failing item's position in
 * *@at. */
static gboolean
feed (MdlPipelineThreads *t, guint e, const Chunk *c, guint64 *at, GError **error)
{
  MdlEngine *engine = g_ptr_array_index (t->engines, e);
  const guint8 *data = c->data->data;
  const Item *items = (const Item *) (const void *) c->items->data;
  guint n_items = c->items->len;
  guint64 first = c->first;
  for (guint i = 0; i < n_items && PLACE (first + i, e) < stop_get (t); i++)
    {
      const Item *it = &items[i];
      *at = first + i;
      if (it->is_marker)
        {
          MdlMarker m = it->marker;
          m.name = it->name == G_MAXSIZE ? NULL : (const char *) data + it->name;
          if (!mdl_engine_deliver (engine, NULL, &m, error))
            return FALSE;
        }
      else if (it->kept.keep)
        {
          if (!mdl_engine_deliver (engine, &it->kept, NULL, error))
            return FALSE;
        }
      else
        {
          MdlEventBatch b = { .cpu = (const MdlCpuEvent *) (const void *) (data + it->cpu),
                              .n_cpu = it->n_cpu,
                              .warp = (const MdlWarpEvent *) (const void *) (data + it->warp),
                              .n_warp = it->n_warp,
                              .lane_addrs = (const guint64 *) (const void *) (data + it->lanes),
                              .n_lane_addrs = it->n_lanes };
          if (!mdl_engine_deliver (engine, &b, NULL, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The least number of chunks any engine has consumed. Called locked. */
static guint64
min_done (const MdlPipelineThreads *t)
{
  guint64 least = G_MAXUINT64;
  for (guint e = 0; e < t->engines->len; e++)
    least = MIN (least, t->done[e]);
  return least;
}

/* TRUE when engine @e is idle and has a published chunk to consume before the stop. Locked. */
static gboolean
runnable (MdlPipelineThreads *t, guint e)
{
  return !t->busy[e] && !t->broken[e] && t->done[e] < t->published
         && PLACE (t->ring[t->done[e] % t->n_chunks].first, e) < stop_get (t);
}

/* A runnable engine, the furthest behind (@last, the one the worker fed before, among equals: its
 * state is in this core's cache); G_MAXUINT: none. Locked. */
static guint
pick_engine (MdlPipelineThreads *t, guint last)
{
  guint pick = G_MAXUINT;
  for (guint e = 0; e < t->engines->len; e++)
    if (runnable (t, e)
        && (pick == G_MAXUINT || t->done[e] < t->done[pick]
            || (t->done[e] == t->done[pick] && e == last)))
      pick = e;
  return pick;
}

/* The calling thread's CPU time, ns: once per chunk and engine, so the stats cost nothing per
 * event. */
static gint64
thread_cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static gpointer
worker_main (gpointer data)
{
  MdlPipelineThreads *t = data;
  guint last = G_MAXUINT;
  g_mutex_lock (&t->lock);
  while (!t->quit)
    {
      guint e = pick_engine (t, last);
      GError *error = NULL;
      guint64 at = 0;
      gint64 t0;
      gboolean ok;
      if (e == G_MAXUINT)
        {
          t->n_worker_waits++;
          t->n_idle++;
          g_cond_wait (&t->work, &t->lock);
          t->n_idle--;
          continue;
        }
      t->busy[e] = TRUE;
      g_mutex_unlock (&t->lock);
      t0 = thread_cpu_ns ();
      ok = feed (t, e, &t->ring[t->done[e] % t->n_chunks], &at, &error);
      t0 = thread_cpu_ns () - t0;
      g_mutex_lock (&t->lock);
      t->cpu_ns[e] += t0;
      t->busy[e] = FALSE;
      t->done[e]++;
      last = e;
      if (!ok)
        {
          t->broken[e] = TRUE;
          /* An earlier failure may have become the stop while this engine ran: keep it. */
          if (PLACE (at, e) < stop_get (t))
            {
              g_clear_error (&t->error);
              t->error = error;
              __atomic_store_n (&t->stop, PLACE (at, e), __ATOMIC_RELEASE);
            }
          else
            g_error_free (error);
          g_atomic_int_set (&t->failed, 1);
        }
      /* The engine may be runnable again, and this worker may take another. */
      if (t->n_idle > 0)
        g_cond_signal (&t->work);
      if (t->producer_waits)
        g_cond_broadcast (&t->space);
    }
  g_mutex_unlock (&t->lock);
  return NULL;
}

MdlPipelineThreads *
mdl_pipeline_threads_new (GPtrArray *engines, guint n_threads, guint n_chunks, gsize chunk_bytes)
{
  MdlPipelineThreads *t;
  g_return_val_if_fail (engines->len > 0 && engines->len < (1u << 16) && n_threads > 0
                        && n_chunks > 0, NULL);
  t = g_aligned_alloc0 (1, sizeof *t, CACHE_LINE);
  t->engines = engines;
  t->n_chunks = n_chunks;
  t->chunk_bytes = chunk_bytes;
  t->ring = g_aligned_alloc (n_chunks, sizeof (Chunk), CACHE_LINE);
  for (guint i = 0; i < n_chunks; i++)
    t->ring[i] = (Chunk) { .data = g_byte_array_new (),
                           .items = g_array_new (FALSE, FALSE, sizeof (Item)) };
  t->done = g_new0 (guint64, engines->len);
  t->busy = g_new0 (gboolean, engines->len);
  t->broken = g_new0 (gboolean, engines->len);
  t->cpu_ns = g_new0 (gint64, engines->len);
  t->stop = NOWHERE;
  g_mutex_init (&t->lock);
  g_cond_init (&t->work);
  g_cond_init (&t->space);
  t->n_workers = MIN (n_threads, engines->len);
  t->workers = g_new (GThread *, t->n_workers);
  for (guint i = 0; i < t->n_workers; i++)
    t->workers[i] = g_thread_new ("pipeline", worker_main, t);
  return t;
}

/* Waits until every engine has consumed what was published, or after a failure until no engine
 * can reach a place before the stop. Locked. */
static void
settle (MdlPipelineThreads *t)
{
  for (;;)
    {
      gboolean settled = t->error ? TRUE : min_done (t) == t->published;
      for (guint e = 0; e < t->engines->len && settled; e++)
        settled = !t->busy[e] && !(t->error && runnable (t, e));
      if (settled)
        break;
      t->producer_waits = TRUE;
      g_cond_wait (&t->space, &t->lock);
    }
  t->producer_waits = FALSE;
}

/* Settles and copies the error, when there is one. Locked. */
static gboolean
take_error (MdlPipelineThreads *t, GError **error)
{
  if (t->error == NULL)
    return TRUE;
  settle (t);
  if (t->error == NULL)
    return TRUE;
  if (error)
    *error = g_error_copy (t->error);
  return FALSE;
}

/* Empties @c, giving back the holds on its kept batches. */
static void
chunk_clear (Chunk *c)
{
  for (guint i = 0; i < c->items->len; i++)
    mdl_batch_keep_release (g_array_index (c->items, Item, i).kept.keep);
  g_byte_array_set_size (c->data, 0);
  g_array_set_size (c->items, 0);
  c->kept_bytes = 0;
}

/* The chunk to fill, once every engine has consumed what it held before. */
static Chunk *
claim (MdlPipelineThreads *t, GError **error)
{
  gboolean ok;
  if (t->filling)
    return t->filling;
  g_mutex_lock (&t->lock);
  while (t->error == NULL && min_done (t) + t->n_chunks <= t->published)
    {
      t->n_producer_waits++;
      t->producer_waits = TRUE;
      g_cond_wait (&t->space, &t->lock);
    }
  t->producer_waits = FALSE;
  ok = take_error (t, error);
  g_mutex_unlock (&t->lock);
  if (!ok)
    return NULL;
  t->filling = &t->ring[t->published % t->n_chunks];
  chunk_clear (t->filling);
  t->filling->first = t->n_items;
  return t->filling;
}

static void
publish (MdlPipelineThreads *t)
{
  g_mutex_lock (&t->lock);
  t->published++;
  t->filling = NULL;
  if (t->n_idle > 0)
    g_cond_broadcast (&t->work);
  g_mutex_unlock (&t->lock);
}

/* @bytes bytes of @src appended to @c's data at an 8-byte boundary (every event array's
 * alignment); returns their offset. */
static gsize
append (Chunk *c, gconstpointer src, gsize bytes)
{
  gsize at = (c->data->len + 7) & ~(gsize) 7;
  g_byte_array_set_size (c->data, (guint) at);
  if (bytes > 0)
    g_byte_array_append (c->data, src, (guint) bytes);
  return at;
}

/* Appends the lane addresses that @b's warp events use, and makes the copied events at @warp
 * (an offset in @c) index them there. Why not always the whole array: a replay may hand every
 * batch the lane list of its whole stream (bench-simt's, the tests' collector), which copied per
 * batch costs the square of the stream. A list no longer than the batch's events can use (the
 * SIMT layer's, which starts afresh at every batch) is copied whole, with no pass over the
 * events to find the lanes they use. */
static gsize
append_lanes (Chunk *c, gsize warp, const MdlEventBatch *b, gsize *n_lanes)
{
  gsize lo = G_MAXSIZE, hi = 0, at;
  if (b->n_lane_addrs <= (gsize) MDL_WARP_MAX_LANES * b->n_warp)
    {
      *n_lanes = b->n_lane_addrs;
      return append (c, b->lane_addrs, b->n_lane_addrs * sizeof *b->lane_addrs);
    }
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *w = &b->warp[i];
      if (mdl_warp_is_memory (w) && !(w->flags & MDL_WARP_STRIDED))
        {
          lo = MIN (lo, w->first_addr);
          hi = MAX (hi, w->first_addr + (gsize) __builtin_popcountll (w->active));
        }
    }
  if (lo >= hi)
    {
      *n_lanes = 0;
      return append (c, NULL, 0);
    }
  at = append (c, b->lane_addrs + lo, (hi - lo) * sizeof *b->lane_addrs);
  *n_lanes = hi - lo;
  for (gsize i = 0; i < b->n_warp && lo > 0; i++)
    {
      MdlWarpEvent *w = (MdlWarpEvent *) (void *) (c->data->data + warp) + i;
      if (mdl_warp_is_memory (w) && !(w->flags & MDL_WARP_STRIDED))
        w->first_addr -= (guint32) lo;
    }
  return at;
}

gboolean
mdl_pipeline_threads_deliver (MdlPipelineThreads *t, const MdlEventBatch *batch,
                              const MdlMarker *marker, GError **error)
{
  Chunk *c;
  Item it = { .name = G_MAXSIZE };
  if (g_atomic_int_get (&t->failed))
    {
      g_mutex_lock (&t->lock);
      take_error (t, error);
      g_mutex_unlock (&t->lock);
      return FALSE;
    }
  if ((c = claim (t, error)) == NULL)
    return FALSE;
  if (batch && (it.kept.keep = mdl_event_batch_keep (batch)) != NULL)
    {
      MdlBatchKeep *keep = it.kept.keep;
      it.kept = *batch;
      it.kept.keep = keep;
      c->kept_bytes += batch->n_cpu * sizeof *batch->cpu + batch->n_warp * sizeof *batch->warp
                       + batch->n_lane_addrs * sizeof *batch->lane_addrs;
    }
  else if (batch)
    {
      it.n_cpu = batch->n_cpu;
      it.n_warp = batch->n_warp;
      it.cpu = append (c, batch->cpu, batch->n_cpu * sizeof *batch->cpu);
      it.warp = append (c, batch->warp, batch->n_warp * sizeof *batch->warp);
      it.lanes = append_lanes (c, it.warp, batch, &it.n_lanes);
    }
  else
    {
      it.is_marker = TRUE;
      it.marker = *marker;
      it.marker.name = NULL;
      if (marker->name)
        it.name = append (c, marker->name, strlen (marker->name) + 1);
    }
  g_array_append_val (c->items, it);
  t->n_items++;
  if (c->data->len + c->items->len * sizeof (Item) + c->kept_bytes >= t->chunk_bytes)
    publish (t);
  return TRUE;
}

gboolean
mdl_pipeline_threads_flush (MdlPipelineThreads *t, GError **error)
{
  gboolean ok;
  if (t->filling && t->filling->items->len > 0)
    publish (t);
  g_mutex_lock (&t->lock);
  settle (t);
  ok = take_error (t, error);
  g_mutex_unlock (&t->lock);
  return ok;
}

void
mdl_pipeline_threads_stats (MdlPipelineThreads *t, MdlPipelineStats *out)
{
  g_mutex_lock (&t->lock);
  *out = (MdlPipelineStats) { .n_chunks = t->published, .producer_waits = t->n_producer_waits,
                              .worker_waits = t->n_worker_waits, .n_engines = t->engines->len };
  for (guint e = 0; e < MIN (t->engines->len, G_N_ELEMENTS (out->engine_cpu_s)); e++)
    out->engine_cpu_s[e] = (double) t->cpu_ns[e] / 1e9;
  g_mutex_unlock (&t->lock);
}

void
mdl_pipeline_threads_free (MdlPipelineThreads *t)
{
  if (t == NULL)
    return;
  g_mutex_lock (&t->lock);
  t->quit = TRUE;
  g_cond_broadcast (&t->work);
  g_mutex_unlock (&t->lock);
  for (guint i = 0; i < t->n_workers; i++)
    g_thread_join (t->workers[i]);
  for (guint i = 0; i < t->n_chunks; i++)
    {
      chunk_clear (&t->ring[i]);
      g_byte_array_unref (t->ring[i].data);
      g_array_unref (t->ring[i].items);
    }
  g_aligned_free (t->ring);
  g_free (t->workers);
  g_free (t->done);
  g_free (t->busy);
  g_free (t->broken);
  g_free (t->cpu_ns);
  g_clear_error (&t->error);
  g_cond_clear (&t->work);
  g_cond_clear (&t->space);
  g_mutex_clear (&t->lock);
  g_aligned_free (t);
}
