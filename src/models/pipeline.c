/* The pipeline (include/models/pipeline.h): one stream, many engines, one pass. Batches are handed
 * on unchanged, so an engine sees exactly what it would see alone; the tests check that a pipeline
 * of several engines reports what separate runs report. */
#include <models/error.h>
#include <models/pipeline.h>

struct MdlPipeline {
  GPtrArray *engines;   /* MdlEngine *, owned */
  GArray *sinks;        /* MdlSink */
  char *machine;        /* the preset of engines added by spec, or NULL */
  guint64 n_events;
};

MdlPipeline *
mdl_pipeline_new (void)
{
  MdlPipeline *p = g_new0 (MdlPipeline, 1);
  p->engines = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_engine_free);
  p->sinks = g_array_new (FALSE, FALSE, sizeof (MdlSink));
  return p;
}

void
mdl_pipeline_free (MdlPipeline *pipeline)
{
  if (pipeline == NULL)
    return;
  g_ptr_array_unref (pipeline->engines);
  g_array_unref (pipeline->sinks);
  g_free (pipeline->machine);
  g_free (pipeline);
}

void
mdl_pipeline_add_engine (MdlPipeline *pipeline, MdlEngine *engine)
{
  g_return_if_fail (pipeline != NULL && engine != NULL);
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

/* Hands @batch, or when it is NULL @marker, to every engine and then every sink, in order; an
 * engine's error is prefixed with its spec. */
static gboolean
deliver (MdlPipeline *p, const MdlEventBatch *batch, const MdlMarker *marker, GError **error)
{
  p->n_events += batch ? batch->n_cpu + batch->n_warp : 1;
  for (guint i = 0; i < p->engines->len; i++)
    {
      MdlEngine *e = g_ptr_array_index (p->engines, i);
      if (!(batch ? mdl_engine_consume (e, batch, error) : mdl_engine_marker (e, marker, error)))
        {
          g_prefix_error (error, "%s: ", mdl_engine_spec (e));
          return FALSE;
        }
    }
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
  reports = g_new0 (MdlReport *, pipeline->engines->len + 1);
  for (guint i = 0; i < pipeline->engines->len; i++)
    reports[i] = mdl_engine_report (g_ptr_array_index (pipeline->engines, i));
  if (n)
    *n = pipeline->engines->len;
  return reports;
}
