/* Private to the pipeline (src/models/pipeline.c): its engines fed on worker threads through a
 * bounded queue of copied stream chunks (src/models/pipeline-threads.c). */
#ifndef MODELS_PIPELINE_THREADS_H
#define MODELS_PIPELINE_THREADS_H

#include <models/engine.h>
#include <models/event.h>

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

/* Stops and joins the workers (what was not flushed is dropped); NULL is fine. */
void mdl_pipeline_threads_free (MdlPipelineThreads *t);

#endif
