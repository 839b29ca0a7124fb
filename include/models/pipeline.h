/* libmodels: a pipeline feeds one event stream to any number of engines (and further sinks, such as
 * a trace writer) in one pass. Each batch goes to every engine in the order they were added; a
 * failing engine stops the pipeline with its error, prefixed by its spec. With threads
 * (mdl_pipeline_set_threads()) the engines run on worker threads while the source keeps producing
 * on the caller's thread; each engine still sees the same stream in the same order, so every
 * report is the same as without threads. */
#ifndef MODELS_PIPELINE_H
#define MODELS_PIPELINE_H

#include <glib.h>
#include <models/api.h>
#include <models/engine.h>
#include <models/event.h>

G_BEGIN_DECLS

/** MdlPipeline: a fan-out of the event stream; opaque. */
typedef struct MdlPipeline MdlPipeline;

/** mdl_pipeline_new: an empty pipeline. Returns: (transfer full). */
MDL_API MdlPipeline *mdl_pipeline_new (void);

/** mdl_pipeline_free: frees the pipeline and its engines; NULL is fine. */
MDL_API void mdl_pipeline_free (MdlPipeline *pipeline);

/** mdl_pipeline_add_engine: appends an engine, before the first event. @engine: (transfer full). */
MDL_API void mdl_pipeline_add_engine (MdlPipeline *pipeline, MdlEngine *engine);

/**
 * mdl_pipeline_set_machine: makes @machine the preset of the engines added by spec from now on,
 * unless a spec chooses its own (mdl_engine_new_on()).
 * @machine: (nullable) a preset name (copied); NULL: none.
 */
MDL_API void mdl_pipeline_set_machine (MdlPipeline *pipeline, const char *machine);

/**
 * mdl_pipeline_add_engine_spec: creates an engine from @spec (on the pipeline's machine, if it has
 * one) and appends it.
 * @error: as for mdl_engine_new().
 * Returns: FALSE on error (the pipeline is unchanged).
 */
MDL_API gboolean mdl_pipeline_add_engine_spec (MdlPipeline *pipeline, const char *spec,
                                               GError **error);

/** mdl_pipeline_add_sink: appends a further sink (copied; its data must outlive the pipeline),
 * fed after the engines. */
MDL_API void mdl_pipeline_add_sink (MdlPipeline *pipeline, const MdlSink *sink);

/**
 * mdl_pipeline_set_threads: runs the engines on up to @n_threads worker threads (never more
 * than there are engines), from the first event on; call it before then. The source stays on
 * the caller's thread, and so do the further sinks (mdl_pipeline_add_sink()), in the stream's
 * order. A batch or marker is copied into a bounded queue (mdl_pipeline_set_queue()) and the sink
 * returns; it waits while the queue is full. A batch whose source lends its memory
 * (MdlEventBatch.keep, as the SIMT layer does) is held there instead of copied. An engine's error reaches the source at its next
 * event or at mdl_pipeline_flush(), and then every later call fails with it.
 * @n_threads: 0 (the default): no threads, each event goes through every engine before the sink
 *   returns.
 * Cost: a copy of each batch that is not lent, and a lock per queue chunk (hundreds of KiB).
 */
MDL_API void mdl_pipeline_set_threads (MdlPipeline *pipeline, guint n_threads);

/**
 * mdl_pipeline_set_queue: bounds the queue of a threaded pipeline, before its first event: at
 * most @n_chunks chunks, each handed to the workers once it holds @chunk_bytes bytes or more of
 * events and markers (a larger batch fills a chunk alone), so the queue holds at most @n_chunks
 * times the larger of @chunk_bytes and the largest batch. Default: 16 chunks of 512 KiB.
 * @n_chunks: at least 1.
 * @chunk_bytes: 0 hands over every batch and marker by itself.
 */
MDL_API void mdl_pipeline_set_queue (MdlPipeline *pipeline, guint n_chunks, gsize chunk_bytes);

/**
 * mdl_pipeline_flush: waits until every engine has consumed every event delivered so far (at once
 * without threads). Call it after the source ends and before reading the engines: a threaded
 * pipeline may learn of an engine's error only here.
 * @error: the first engine error, prefixed by the engine's spec (MDL_ERROR_MODEL,
 *   MDL_ERROR_FORMAT: what the engine set).
 * Returns: FALSE when an engine has failed.
 */
MDL_API gboolean mdl_pipeline_flush (MdlPipeline *pipeline, GError **error);

/** mdl_pipeline_sink: the sink that feeds this pipeline, valid while it lives. */
MDL_API MdlSink mdl_pipeline_sink (MdlPipeline *pipeline);

/** mdl_pipeline_n_engines: number of engines. */
MDL_API guint mdl_pipeline_n_engines (const MdlPipeline *pipeline);

/** mdl_pipeline_engine: the @i-th engine (borrowed; with threads, read it only after
 * mdl_pipeline_flush()). */
MDL_API MdlEngine *mdl_pipeline_engine (MdlPipeline *pipeline, guint i);

/** mdl_pipeline_n_events: events delivered so far (CPU records, warp instructions, markers). */
MDL_API guint64 mdl_pipeline_n_events (const MdlPipeline *pipeline);

/**
 * mdl_pipeline_reports: one report per engine, in order (with threads, after waiting as
 * mdl_pipeline_flush() does; its error is not repeated here).
 * @n: (out) how many.
 * Returns: (transfer full) free each with mdl_report_free() and the array with g_free().
 */
MDL_API MdlReport **mdl_pipeline_reports (MdlPipeline *pipeline, guint *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlPipeline, mdl_pipeline_free)

G_END_DECLS

#endif
