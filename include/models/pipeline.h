/* libmodels: a pipeline feeds one event stream to any number of engines (and further sinks, such as
 * a trace writer) in one pass. Each batch goes to every engine in the order they were added; a
 * failing engine stops the pipeline with its error, prefixed by its spec. */
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

/** mdl_pipeline_add_engine: appends an engine. @engine: (transfer full). */
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

/** mdl_pipeline_sink: the sink that feeds this pipeline, valid while it lives. */
MDL_API MdlSink mdl_pipeline_sink (MdlPipeline *pipeline);

/** mdl_pipeline_n_engines: number of engines. */
MDL_API guint mdl_pipeline_n_engines (const MdlPipeline *pipeline);

/** mdl_pipeline_engine: the @i-th engine (borrowed). */
MDL_API MdlEngine *mdl_pipeline_engine (MdlPipeline *pipeline, guint i);

/** mdl_pipeline_n_events: events delivered so far (CPU records, warp instructions, markers). */
MDL_API guint64 mdl_pipeline_n_events (const MdlPipeline *pipeline);

/**
 * mdl_pipeline_reports: one report per engine, in order.
 * @n: (out) how many.
 * Returns: (transfer full) free each with mdl_report_free() and the array with g_free().
 */
MDL_API MdlReport **mdl_pipeline_reports (MdlPipeline *pipeline, guint *n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlPipeline, mdl_pipeline_free)

G_END_DECLS

#endif
