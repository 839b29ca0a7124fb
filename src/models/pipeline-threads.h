/* Private to the pipeline (src/models/pipeline.c): its engines fed on worker threads through a
 * bounded queue of copied stream chunks (src/models/pipeline-threads.c). */
#ifndef MODELS_PIPELINE_THREADS_H
#define MODELS_PIPELINE_THREADS_H

#include <models/engine.h>
#include <models/event.h>
#include <models/pipeline.h>

/* The workers and their queue; the producer's calls (batch, marker, flush, free) come from one
 * thread at a time. */
typedef struct MdlPipelineThreads MdlPipelineThreads;

/* Hands @batch, or when it is NULL @marker, to @engine; its error is prefixed with its spec. */
gboolean mdl_engine_deliver (MdlEngine *engine, const MdlEventBatch *batch,
                             const MdlMarker *marker, GError **error);

/* Starts min(@n_threads, engines) workers for @engines (borrowed: they belong to the workers until
 * the next flush or free), with a queue of @n_chunks chunks of about @chunk_bytes each. */
MdlPipelineThreads *mdl_pipeline_threads_new (GPtrArray *engines, guint n_threads, guint n_chunks,
                                              gsize chunk_bytes);

/* Copies @batch (or holds it, when its source lends it), or when it is NULL @marker, into the
 * queue, waiting while it is full. Fails with
 * (a copy of) the first engine's error once one has failed. */
gboolean mdl_pipeline_threads_deliver (MdlPipelineThreads *t, const MdlEventBatch *batch,
                                       const MdlMarker *marker, GError **error);

/* Waits until every engine has consumed everything delivered; then the engines may be read.
 * Fails as mdl_pipeline_threads_deliver(). */
gboolean mdl_pipeline_threads_flush (MdlPipelineThreads *t, GError **error);

/* What a threaded run spent where, for the benches (bench/bench-simt.c): the stage that bounds
 * it is the one that waits least. */
typedef struct {
  guint64 n_chunks;           /* chunks published */
  guint64 producer_waits;     /* times the producer found the ring full */
  guint64 worker_waits;       /* times a worker found no engine to feed */
  guint n_engines;
  double engine_cpu_s[8];     /* the first 8 engines' CPU seconds on the workers, as added */
} MdlPipelineStats;

/* Fills @out with @t's counts since it started; call after a flush. */
void mdl_pipeline_threads_stats (MdlPipelineThreads *t, MdlPipelineStats *out);

/* Fills @out for @pipeline's threaded run (zeros when it is serial or has not started); private
 * to the library and its benches. */
void mdl_pipeline_stats (MdlPipeline *pipeline, MdlPipelineStats *out);

/* Stops and joins the workers (what was not flushed is dropped); NULL is fine. */
void mdl_pipeline_threads_free (MdlPipelineThreads *t);

#endif
