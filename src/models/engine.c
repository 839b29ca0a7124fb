/* Engine instances (include/models/engine.h): spec parsing, the class's state, and the per-phase
 * breakdown that every engine gets for free. At a phase begin the engine's counts are snapshot;
 * at the matching end the change is added to that phase's totals. Phases nest, and a phase entered
 * several times accumulates. Only exact counts are broken down; derived reals are not additive. */
#include <models/error.h>

#include "models/engines.h"

#include <string.h>

typedef struct {
  char *name;
  GArray *at_begin;  /* guint64 per counter, in report order */
} OpenPhase;

typedef struct {
  char *name;
  GArray *totals;    /* guint64 per counter, in report order */
  guint64 n_closed;  /* phases still open for the first time are not reported */
} PhaseTotal;

struct MdlEngine {
  const MdlEngineClass *klass;
  void *state;
  MdlParams *params;
  char *spec;
  gboolean failed;
  GArray *open;           /* OpenPhase, innermost last */
  GPtrArray *phases;      /* PhaseTotal *, in order of first appearance */
  MdlReport *layout;      /* the counter names and units, from the first snapshot */
};

static void
open_phase_clear (OpenPhase *p)
{
  g_free (p->name);
  g_array_unref (p->at_begin);
}

static void
phase_total_free (PhaseTotal *p)
{
  g_free (p->name);
  g_array_unref (p->totals);
  g_free (p);
}

static gboolean
engine_init (MdlEngine *e, GError **error)
{
  e->state = g_malloc0 (MAX (e->klass->state_size, 1));
  if (!e->klass->init (e->state, e->params, error))
    {
      if (e->klass->finalize)
        e->klass->finalize (e->state);
      g_clear_pointer (&e->state, g_free);
      return FALSE;
    }
  return TRUE;
}

MdlEngine *
mdl_engine_new (const char *spec, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assignments = NULL;
  const MdlEngineClass *klass;
  g_autofree char *normalized = NULL;
  MdlEngine *e;

  g_return_val_if_fail (spec != NULL, NULL);
  if (!mdl_spec_split (spec, &name, &assignments, error))
    return NULL;
  klass = mdl_engine_class_lookup (name);
  if (klass == NULL)
    {
      g_autoptr (GString) msg = g_string_new (NULL);
      g_string_printf (msg, "unknown engine \"%s\"", name);
      mdl_engine_append_names (msg, name);
      g_set_error_literal (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, msg->str);
      return NULL;
    }
  e = g_new0 (MdlEngine, 1);
  e->klass = klass;
  e->params = mdl_params_parse (klass->name, klass->params, (const char *const *) assignments,
                                error);
  if (e->params == NULL || !engine_init (e, error))
    {
      mdl_engine_free (e);
      return NULL;
    }
  normalized = mdl_params_normalized (e->params);
  e->spec = *normalized ? g_strdup_printf ("%s:%s", klass->name, normalized)
                        : g_strdup (klass->name);
  e->open = g_array_new (FALSE, FALSE, sizeof (OpenPhase));
  g_array_set_clear_func (e->open, (GDestroyNotify) open_phase_clear);
  e->phases = g_ptr_array_new_with_free_func ((GDestroyNotify) phase_total_free);
  return e;
}

void
mdl_engine_free (MdlEngine *engine)
{
  if (engine == NULL)
    return;
  if (engine->state && engine->klass->finalize)
    engine->klass->finalize (engine->state);
  g_free (engine->state);
  mdl_params_free (engine->params);
  g_free (engine->spec);
  if (engine->open)
    g_array_unref (engine->open);
  if (engine->phases)
    g_ptr_array_unref (engine->phases);
  mdl_report_free (engine->layout);
  g_free (engine);
}

const char *
mdl_engine_name (const MdlEngine *engine)
{
  g_return_val_if_fail (engine != NULL, NULL);
  return engine->klass->name;
}

const char *
mdl_engine_spec (const MdlEngine *engine)
{
  g_return_val_if_fail (engine != NULL, NULL);
  return engine->spec;
}

static gboolean
refuse_if_failed (MdlEngine *e, GError **error)
{
  if (!e->failed)
    return FALSE;
  /* No spec in the message: the pipeline prefixes every engine error with it. */
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_MODEL, "engine stopped by an earlier error");
  return TRUE;
}

gboolean
mdl_engine_consume (MdlEngine *engine, const MdlEventBatch *batch, GError **error)
{
  g_return_val_if_fail (engine != NULL && batch != NULL, FALSE);
  if (refuse_if_failed (engine, error))
    return FALSE;
  if (!engine->klass->consume (engine->state, batch, error))
    {
      engine->failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

/* The engine's counts now, in report order; remembers the counter layout the first time. */
static GArray *
snapshot (MdlEngine *e)
{
  g_autoptr (MdlReport) r = mdl_report_new (e->klass->name, e->spec);
  guint n;
  GArray *counts;
  e->klass->report (e->state, r);
  n = mdl_report_n_counters (r);
  counts = g_array_sized_new (FALSE, TRUE, sizeof (guint64), n);
  for (guint i = 0; i < n; i++)
    {
      const MdlCounter *c = mdl_report_counter (r, i);
      guint64 v = c->is_real ? 0 : c->count;
      g_array_append_val (counts, v);
    }
  if (e->layout == NULL)
    e->layout = g_steal_pointer (&r);
  return counts;
}

static PhaseTotal *
phase_total (MdlEngine *e, const char *name, guint n_counters)
{
  PhaseTotal *p;
  for (guint i = 0; i < e->phases->len; i++)
    {
      p = g_ptr_array_index (e->phases, i);
      if (strcmp (p->name, name) == 0)
        return p;
    }
  p = g_new0 (PhaseTotal, 1);
  p->name = g_strdup (name);
  p->totals = g_array_sized_new (FALSE, TRUE, sizeof (guint64), n_counters);
  g_array_set_size (p->totals, n_counters);
  g_ptr_array_add (e->phases, p);
  return p;
}

static gboolean
phase_end (MdlEngine *e, const char *name, GError **error)
{
  OpenPhase *top;
  g_autoptr (GArray) now = NULL;
  PhaseTotal *total;
  if (e->open->len == 0 || strcmp ((top = &g_array_index (e->open, OpenPhase, e->open->len - 1))->name,
                                   name) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "phase end \"%s\" does not match %s%s%s",
                   name, e->open->len ? "the open phase \"" : "any open phase",
                   e->open->len ? g_array_index (e->open, OpenPhase, e->open->len - 1).name : "",
                   e->open->len ? "\"" : "");
      return FALSE;
    }
  now = snapshot (e);
  total = phase_total (e, name, now->len);
  /* Why equal lengths: an engine's counter list depends only on its parameters. */
  g_assert (now->len == top->at_begin->len && now->len == total->totals->len);
  for (guint i = 0; i < now->len; i++)
    g_array_index (total->totals, guint64, i)
      += g_array_index (now, guint64, i) - g_array_index (top->at_begin, guint64, i);
  total->n_closed++;
  g_array_set_size (e->open, e->open->len - 1);
  return TRUE;
}

gboolean
mdl_engine_marker (MdlEngine *engine, const MdlMarker *marker, GError **error)
{
  gboolean core_phases;
  g_return_val_if_fail (engine != NULL && marker != NULL, FALSE);
  if (refuse_if_failed (engine, error))
    return FALSE;
  core_phases = !(engine->klass->flags & MDL_ENGINE_OWN_PHASES);
  if (core_phases && marker->kind == MDL_MARK_PHASE_BEGIN)
    {
      OpenPhase p = { g_strdup (marker->name ? marker->name : ""), snapshot (engine) };
      g_array_append_val (engine->open, p);
      /* Created at the begin so that phases are reported in order of first appearance. */
      phase_total (engine, p.name, p.at_begin->len);
    }
  if (engine->klass->marker && !engine->klass->marker (engine->state, marker, error))
    {
      engine->failed = TRUE;
      return FALSE;
    }
  if (core_phases && marker->kind == MDL_MARK_PHASE_END
      && !phase_end (engine, marker->name ? marker->name : "", error))
    {
      engine->failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

MdlReport *
mdl_engine_report (MdlEngine *engine)
{
  MdlReport *r;
  g_return_val_if_fail (engine != NULL, NULL);
  r = mdl_report_new (engine->klass->name, engine->spec);
  engine->klass->report (engine->state, r);
  for (guint i = 0; i < engine->phases->len; i++)
    {
      const PhaseTotal *p = g_ptr_array_index (engine->phases, i);
      MdlReport *ph;
      if (p->n_closed == 0)
        continue;
      ph = mdl_report_new (p->name, engine->spec);
      for (guint c = 0; c < p->totals->len; c++)
        {
          const MdlCounter *k = mdl_report_counter (engine->layout, c);
          if (!k->is_real)
            mdl_report_add_count (ph, k->name, k->unit, k->description, k->metric,
                                  g_array_index (p->totals, guint64, c));
        }
      mdl_report_add_phase (r, ph);
    }
  return r;
}

void
mdl_engine_reset (MdlEngine *engine)
{
  g_return_if_fail (engine != NULL);
  g_array_set_size (engine->open, 0);
  g_ptr_array_set_size (engine->phases, 0);
  engine->failed = FALSE;
  if (engine->klass->reset)
    {
      engine->klass->reset (engine->state);
      return;
    }
  if (engine->klass->finalize)
    engine->klass->finalize (engine->state);
  memset (engine->state, 0, MAX (engine->klass->state_size, 1));
  /* Why this cannot fail: the same parameters passed init once already. */
  if (!engine->klass->init (engine->state, engine->params, NULL))
    g_error ("%s: init failed on reset with parameters it accepted before", engine->spec);
}
