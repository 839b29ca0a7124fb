/* The pipeline (include/models/pipeline.h): one stream, many engines, one pass. Batches are handed
 * on unchanged, so an engine sees exactly what it would see alone; the tests check that a pipeline
 * of several engines reports what separate runs report. With threads, the engines run on workers
 * (src/models/pipeline-threads.c), started at the first event; the further sinks (a trace writer)
 * stay on the producer's thread, in the stream's order. */
#include <models/error.h>
#include <models/pipeline.h>

#include "models/pipeline-threads.h"

/* The default queue: 16 chunks of 512 KiB (8 MiB; a SIMT batch of 4096 warp instructions with
 * lane lists is up to 1.2 MiB). Enough slack that a worker rarely finds its next engine waiting
 * on the producer, small enough to stay in the last-level cache's neighbourhood. */
#define DEFAULT_CHUNKS 16u
#define DEFAULT_CHUNK_BYTES ((gsize) 512 << 10)

struct MdlPipeline {
  GPtrArray *engines;   /* MdlEngine *, owned */
  GArray *sinks;        /* MdlSink */
  char *machine;        /* the preset of engines added by spec, or NULL */
  guint64 n_events;
  MdlPipelineThreads *threads;   /* the workers, once started; NULL: serial or not started */
  guint n_threads;               /* 0: serial */
  guint n_chunks;
  gsize chunk_bytes;
};

MdlPipeline *
mdl_pipeline_new (void)
{
  MdlPipeline *p = g_new0 (MdlPipeline, 1);
  p->engines = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_engine_free);
  p->sinks = g_array_new (FALSE, FALSE, sizeof (MdlSink));
  p->n_chunks = DEFAULT_CHUNKS;
  p->chunk_bytes = DEFAULT_CHUNK_BYTES;
  return p;
}

void
mdl_pipeline_free (MdlPipeline *pipeline)
{
  if (pipeline == NULL)
    return;
  mdl_pipeline_threads_free (pipeline->threads);
  g_ptr_array_unref (pipeline->engines);
  g_array_unref (pipeline->sinks);
  g_free (pipeline->machine);
  g_free (pipeline);
}

void
mdl_pipeline_add_engine (MdlPipeline *pipeline, MdlEngine *engine)
{
  g_return_if_fail (pipeline != NULL && engine != NULL && pipeline->threads == NULL);
  g_ptr_array_add (pipeline->engines, engine);
}

void
mdl_pipeline_set_machine (MdlPipeline *pipeline, const char *machine)
{
  g_return_if_fail (pipeline != NULL);
  g_free (pipeline->machine);
  pipeline->machine = g_strdup (machine);
}

gboolean
mdl_pipeline_add_engine_spec (MdlPipeline *pipeline, const char *spec, GError **error)
{
  MdlEngine *e;
  g_return_val_if_fail (pipeline != NULL && spec != NULL, FALSE);
  e = mdl_engine_new_on (spec, pipeline->machine, error);
  if (e == NULL)
    return FALSE;
  mdl_pipeline_add_engine (pipeline, e);
  return TRUE;
}

void
mdl_pipeline_add_sink (MdlPipeline *pipeline, const MdlSink *sink)
{
  g_return_if_fail (pipeline != NULL && sink != NULL);
  g_array_append_val (pipeline->sinks, *sink);
}

void
mdl_pipeline_set_threads (MdlPipeline *pipeline, guint n_threads)
{
  g_return_if_fail (pipeline != NULL && pipeline->threads == NULL);
  pipeline->n_threads = n_threads;
}

void
mdl_pipeline_set_queue (MdlPipeline *pipeline, guint n_chunks, gsize chunk_bytes)
{
  g_return_if_fail (pipeline != NULL && pipeline->threads == NULL && n_chunks > 0);
  pipeline->n_chunks = n_chunks;
  pipeline->chunk_bytes = chunk_bytes;
}

gboolean
mdl_pipeline_flush (MdlPipeline *pipeline, GError **error)
{
  g_return_val_if_fail (pipeline != NULL, FALSE);
  return pipeline->threads == NULL || mdl_pipeline_threads_flush (pipeline->threads, error);
}

void
mdl_pipeline_stats (MdlPipeline *pipeline, MdlPipelineStats *out)
{
  if (pipeline->threads)
    mdl_pipeline_threads_stats (pipeline->threads, out);
  else
    *out = (MdlPipelineStats) { 0 };
}

/* Hands @batch, or when it is NULL @marker, to every engine (or to the workers' queue) and then
 * every sink, in order; an engine's error is prefixed with its spec. */
static gboolean
deliver (MdlPipeline *p, const MdlEventBatch *batch, const MdlMarker *marker, GError **error)
{
  p->n_events += batch ? batch->n_cpu + batch->n_warp : 1;
  if (p->n_threads > 0 && p->engines->len > 0)
    {
      if (p->threads == NULL)
        p->threads = mdl_pipeline_threads_new (p->engines, p->n_threads, p->n_chunks,
                                               p->chunk_bytes);
      if (!mdl_pipeline_threads_deliver (p->threads, batch, marker, error))
        return FALSE;
    }
  else
    for (guint i = 0; i < p->engines->len; i++)
      if (!mdl_engine_deliver (g_ptr_array_index (p->engines, i), batch, marker, error))
        return FALSE;
  for (guint i = 0; i < p->sinks->len; i++)
    {
      const MdlSink *s = &g_array_index (p->sinks, MdlSink, i);
      if (!(batch ? s->batch (s->data, batch, error) : s->marker (s->data, marker, error)))
        return FALSE;
    }
  return TRUE;
}

static gboolean
pipeline_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  return deliver (data, batch, NULL, error);
}

static gboolean
pipeline_marker (void *data, const MdlMarker *marker, GError **error)
{
  return deliver (data, NULL, marker, error);
}

MdlSink
mdl_pipeline_sink (MdlPipeline *pipeline)
{
  return (MdlSink) { pipeline_batch, pipeline_marker, pipeline };
}

guint
mdl_pipeline_n_engines (const MdlPipeline *pipeline)
{
  g_return_val_if_fail (pipeline != NULL, 0);
  return pipeline->engines->len;
}

MdlEngine *
mdl_pipeline_engine (MdlPipeline *pipeline, guint i)
{
  g_return_val_if_fail (pipeline != NULL && i < pipeline->engines->len, NULL);
  return g_ptr_array_index (pipeline->engines, i);
}

guint64
mdl_pipeline_n_events (const MdlPipeline *pipeline)
{
  g_return_val_if_fail (pipeline != NULL, 0);
  return pipeline->n_events;
}

MdlReport **
mdl_pipeline_reports (MdlPipeline *pipeline, guint *n)
{
  MdlReport **reports;
  g_return_val_if_fail (pipeline != NULL, NULL);
  /* The engines' states are theirs to read only once the workers are done with them; the error,
   * if any, was the caller's to take from mdl_pipeline_flush() or a refused event. */
  if (pipeline->threads)
    mdl_pipeline_threads_flush (pipeline->threads, NULL);
  reports = g_new0 (MdlReport *, pipeline->engines->len + 1);
  for (guint i = 0; i < pipeline->engines->len; i++)
    reports[i] = mdl_engine_report (g_ptr_array_index (pipeline->engines, i));
  if (n)
    *n = pipeline->engines->len;
  return reports;
}
