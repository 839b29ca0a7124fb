/* Engine instances (include/models/engine.h): spec parsing, the class's state, and the per-phase
 * breakdown that every engine gets for free. At a phase begin the engine's counts are snapshot;
 * at the matching end the change is added to that phase's totals (the phase ledger, core/ledger.h,
 * which also checks the nesting). Only exact counts are broken down; derived reals are not
 * additive. With site phases on, each run of events with one site id is a phase too, named after
 * the site: batches are split where the site changes and the counts are snapshot there. An engine
 * that owns its phases (vat, em: offline policies know counts only at the end) gets the site runs
 * as phase markers of its own instead, each run a begin and an end. A run ends at every marker,
 * so that the stream's phases nest around site phases and marker counts belong to no site. */
#include <models/error.h>

#include "core/ledger.h"
#include "models/engines.h"

#include <string.h>

/* Why the flags are bits: the struct stays in malloc's size class of 96 bytes, so that adding
 * the two reused snapshot buffers moved no CPU algorithm's arrays (the `heap-layout` counts of
 * the docs follow where malloc puts them). */
struct MdlEngine {
  const MdlEngineClass *klass;
  void *state;
  MdlParams *params;
  char *spec;
  MdlPhaseLedger *phases; /* marker phases and site phases, by counter in report order */
  MdlReport *layout;      /* the counter names and units, from the first snapshot */
  MdlReport *values;      /* the later snapshots' report, reused */
  GArray *marked;         /* the counts of the latest phase marker, reused */
  GArray *site_begin;     /* counts at the start of that run */
  GHashTable *site_names; /* site id -> name, from MDL_MARK_SITE */
  guint failed : 1;
  guint by_site : 1;      /* site phases on */
  guint changed : 1;      /* the class consumed or took a marker since marked was taken (a bit:
                             the struct's size moves the heap-layout counts of the docs) */
  guint16 site;           /* the site of the run in progress; 0: none */
};

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
  return mdl_engine_new_on (spec, NULL, error);
}

/* @assignments with machine=@machine appended, unless @machine is NULL or one of them sets it. */
static char **
with_machine (char **assignments, const char *machine)
{
  guint n = g_strv_length (assignments);
  if (machine == NULL)
    return assignments;
  for (guint i = 0; i < n; i++)
    if (g_str_has_prefix (assignments[i], "machine="))
      return assignments;
  assignments = g_renew (char *, assignments, n + 2);
  assignments[n] = g_strdup_printf ("machine=%s", machine);
  assignments[n + 1] = NULL;
  return assignments;
}

MdlEngine *
mdl_engine_new_on (const char *spec, const char *machine, GError **error)
{
  g_autofree char *name = NULL;
  g_auto (GStrv) assignments = NULL;
  const MdlEngineClass *klass;
  g_autofree char *normalized = NULL;
  MdlEngine *e;

  g_return_val_if_fail (spec != NULL, NULL);
  if (!mdl_spec_split (spec, &name, &assignments, error))
    return NULL;
  assignments = with_machine (assignments, machine);
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
  e->phases = mdl_phase_ledger_new ();
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
  mdl_phase_ledger_free (engine->phases);
  if (engine->site_begin)
    g_array_unref (engine->site_begin);
  if (engine->site_names)
    g_hash_table_unref (engine->site_names);
  mdl_report_free (engine->layout);
  mdl_report_free (engine->values);
  if (engine->marked)
    g_array_unref (engine->marked);
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

static gboolean
consume_all (MdlEngine *engine, const MdlEventBatch *batch, GError **error)
{
  engine->changed = TRUE;
  if (!engine->klass->consume (engine->state, batch, error))
    {
      engine->failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

static guint16
site_of (const MdlEventBatch *b, gsize i)
{
  return b->n_cpu ? b->cpu[i].site : b->warp[i].site;
}

static gboolean site_switch (MdlEngine *e, guint16 site, GError **error);

/* Feeds @batch in runs of one site, switching the site phase between runs. */
static gboolean
consume_by_site (MdlEngine *engine, const MdlEventBatch *batch, GError **error)
{
  gsize n = batch->n_cpu ? batch->n_cpu : batch->n_warp;
  gsize start = 0;
  while (start < n)
    {
      guint16 site = site_of (batch, start);
      gsize end = start + 1;
      MdlEventBatch run = *batch;
      while (end < n && site_of (batch, end) == site)
        end++;
      if (batch->n_cpu)
        run.cpu += start, run.n_cpu = end - start;
      else
        run.warp += start, run.n_warp = end - start;
      if (!site_switch (engine, site, error) || !consume_all (engine, &run, error))
        return FALSE;
      start = end;
    }
  return TRUE;
}

gboolean
mdl_engine_consume (MdlEngine *engine, const MdlEventBatch *batch, GError **error)
{
  g_return_val_if_fail (engine != NULL && batch != NULL, FALSE);
  if (refuse_if_failed (engine, error))
    return FALSE;
  return engine->by_site ? consume_by_site (engine, batch, error)
                         : consume_all (engine, batch, error);
}

/* The engine's counts now, in report order, into @counts (NULL: a new array); remembers the
 * counter layout the first time. Returns @counts. */
static GArray *
snapshot (MdlEngine *e, GArray *counts)
{
  MdlReport *r;
  guint n;
  if (e->layout == NULL)
    r = e->layout = mdl_report_new (e->klass->name, e->spec);
  else if (e->values == NULL)
    r = e->values = mdl_report_new_values (e->klass->name);
  else
    {
      r = e->values;
      mdl_report_values_clear (r);
    }
  e->klass->report (e->state, r);
  n = mdl_report_n_counters (r);
  if (counts == NULL)
    counts = g_array_sized_new (FALSE, TRUE, sizeof (guint64), n);
  g_array_set_size (counts, n);
  for (guint i = 0; i < n; i++)
    {
      const MdlCounter *c = mdl_report_counter (r, i);
      g_array_index (counts, guint64, i) = c->is_real ? 0 : c->count;
    }
  return counts;
}

/* The phase name of @site: its latest MDL_MARK_SITE name, else "site N". */
static char *
site_phase_name (MdlEngine *e, guint16 site)
{
  const char *named = g_hash_table_lookup (e->site_names, GUINT_TO_POINTER (site));
  return named ? g_strdup (named) : g_strdup_printf ("site %u", site);
}

/* An engine that owns its phases: ends the phase of the run in progress and begins @site's, as
 * markers to the class. */
static gboolean
site_switch_owned (MdlEngine *e, guint16 site, GError **error)
{
  for (guint step = 0; step < 2; step++)
    {
      guint16 s = step == 0 ? e->site : site;
      g_autofree char *name = NULL;
      MdlMarker m = { .kind = step == 0 ? MDL_MARK_PHASE_END : MDL_MARK_PHASE_BEGIN };
      if (s == 0)
        continue;
      name = site_phase_name (e, s);
      m.name = name;
      if (!e->klass->marker (e->state, &m, error))
        {
          e->failed = TRUE;
          return FALSE;
        }
    }
  e->site = site;
  return TRUE;
}

/* Adds the counts since the current site run began to that site's phase; then starts a run of
 * @site. Nothing is attributed to site 0 (no site). */
static gboolean
site_switch (MdlEngine *e, guint16 site, GError **error)
{
  g_autoptr (GArray) now = NULL;
  if (site == e->site && (e->site_begin || e->klass->flags & MDL_ENGINE_OWN_PHASES))
    return TRUE;
  if (e->klass->flags & MDL_ENGINE_OWN_PHASES)
    return site_switch_owned (e, site, error);
  now = snapshot (e, NULL);
  if (e->site != 0 && e->site_begin)
    {
      g_autofree char *name = site_phase_name (e, e->site);
      mdl_phase_ledger_add (e->phases, name, (const guint64 *) (gpointer) now->data,
                            (const guint64 *) (gpointer) e->site_begin->data, now->len);
    }
  if (e->site_begin)
    g_array_unref (e->site_begin);
  e->site_begin = g_steal_pointer (&now);
  e->site = site;
  return TRUE;
}

void
mdl_engine_set_site_phases (MdlEngine *engine, gboolean by_site)
{
  g_return_if_fail (engine != NULL);
  /* A class that owns its phases gets site phases as its own markers; one that takes none
   * (no marker method) cannot break anything down. */
  if ((engine->klass->flags & MDL_ENGINE_OWN_PHASES) && engine->klass->marker == NULL)
    return;
  engine->by_site = by_site != FALSE;
  if (by_site && engine->site_names == NULL)
    engine->site_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

/* Phase marker @name to the ledger, with the engine's counts now; fails as
 * mdl_phase_ledger_nest (a begin never does). */
static gboolean
phase_mark (MdlEngine *e, gboolean begin, const char *name, GError **error)
{
  GArray *now;
  if (!mdl_phase_ledger_nest (e->phases, begin, name, error))
    return FALSE;
  /* A report is a function of the class's state, so with no event or marker since the last
   * mark its counts stand (a phase's end and the next one's begin, back to back: half of
   * gpu-quicksort's 34 K marks at 16K keys, each a report of every engine). */
  if (e->marked == NULL || e->changed)
    e->marked = snapshot (e, e->marked);
  e->changed = FALSE;
  now = e->marked;
  mdl_phase_ledger_mark (e->phases, begin, name, (const guint64 *) (gpointer) now->data, now->len);
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
  if (engine->by_site && marker->kind == MDL_MARK_SITE && marker->name)
    g_hash_table_replace (engine->site_names, GUINT_TO_POINTER (marker->site),
                          g_strdup (marker->name));
  /* A marker is no site's doing: the run in progress ends before it (and the next event begins a
   * new one), so what a class counts for markers stays out of the sites' phases, and the site
   * phases of a class that owns its phases nest inside the stream's. */
  if (engine->by_site && !site_switch (engine, 0, error))
    return FALSE;
  /* A begin is counted before the class sees the marker, an end after: the phase holds what the
   * class counts for its own markers. */
  if (core_phases && marker->kind == MDL_MARK_PHASE_BEGIN)
    phase_mark (engine, TRUE, marker->name, NULL);
  engine->changed |= engine->klass->marker != NULL ? 1u : 0u;
  if ((engine->klass->marker && !engine->klass->marker (engine->state, marker, error))
      || (core_phases && marker->kind == MDL_MARK_PHASE_END
          && !phase_mark (engine, FALSE, marker->name, error)))
    {
      engine->failed = TRUE;
      return FALSE;
    }
  return TRUE;
}

/* Fills a phase sub-report with the counts of @data's layout, leaving out reals and peaks. */
static void
phase_fill (const guint64 *totals, MdlReport *phase, void *data)
{
  const MdlReport *layout = data;
  for (guint c = 0; c < mdl_report_n_counters (layout); c++)
    {
      const MdlCounter *k = mdl_report_counter (layout, c);
      if (!k->is_real && !k->is_peak)
        mdl_report_add_count (phase, k->name, k->unit, k->description, k->metric, totals[c]);
    }
}

MdlReport *
mdl_engine_report (MdlEngine *engine)
{
  MdlReport *r;
  g_return_val_if_fail (engine != NULL, NULL);
  /* The run in progress counts up to now; an owned site phase cannot fail to end, since every
   * marker before it passed the class's nesting check. */
  if (engine->by_site && !site_switch (engine, 0, NULL))
    g_warning ("%s: ending the site phase in progress failed", engine->spec);
  r = mdl_report_new (engine->klass->name, engine->spec);
  engine->klass->report (engine->state, r);
  mdl_phase_ledger_report (engine->phases, r, phase_fill, engine->layout);
  return r;
}

void
mdl_engine_reset (MdlEngine *engine)
{
  g_return_if_fail (engine != NULL);
  mdl_phase_ledger_clear (engine->phases);
  engine->failed = FALSE;
  engine->changed = TRUE;
  engine->site = 0;
  g_clear_pointer (&engine->site_begin, g_array_unref);
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
