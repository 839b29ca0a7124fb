/* libmodels: engines, the consumers of the event stream.
 *
 * An engine class is a versioned vtable (fields are only ever appended; `abi` says how many a class
 * fills, as SQLite's sqlite3_vfs does). The core allocates and zeroes the class's state, parses its
 * spec against its parameter table (params.h), and calls init, then consume/marker for the stream,
 * then report. Built-in classes sit in one table; user code registers its own with
 * mdl_engine_register() and then names them in specs like any other.
 *
 * The core also keeps the per-phase breakdown for every engine: at each phase marker it snapshots
 * the engine's counts, and attributes the change to the phase, so an engine needs no phase code.
 *
 * Every built-in engine, its parameters and its counters (names, units, descriptions):
 * `models list`, or `models list --engine SPEC`. The vat engine's policies (`vat:policy=NAME`; the
 * rules, the theorems and the errata are in docs/models/vat.md):
 *   lru     evicts the least recently used node of the translation tree.
 *   islru   evicts the lowest descendant, off the path being walked, of the least recently used
 *           node, so the cached nodes always form subtrees holding the root (the initial segment
 *           property); needs W >= d+1.
 *   min     Belady's offline optimum: evicts the node used furthest ahead (runs at report time).
 *   ismin   min restricted to nodes with no cached child off the current path: the optimum among
 *           policies with the initial segment property; offline, needs W >= d+1.
 *   fifo, random  baselines that evict the root as readily as a leaf.
 *   levels  one LRU cache per tree layer, one cell for the root layer and the rest shared evenly
 *           (the static split of Theorem 2.32); needs W >= d+1.
 * vat's `cost` counter is ram_ops + tau * tc_misses, ram_ops being what MDL_OPS counted (record.h). */
#ifndef MODELS_ENGINE_H
#define MODELS_ENGINE_H

#include <glib.h>
#include <models/api.h>
#include <models/event.h>
#include <models/params.h>
#include <models/report.h>

G_BEGIN_DECLS

/** MDL_ENGINE_ABI: the current engine class ABI version. */
#define MDL_ENGINE_ABI 1

/**
 * MdlEngineClass: an engine implementation. Everything but the optional methods must be set.
 * @abi: MDL_ENGINE_ABI.
 * @name: the lower-case name used in specs (`vat`, `count`).
 * @summary: one line for `models list`.
 * @params: the parameter table (see MdlParamSpec), ending with a NULL key.
 * @state_size: bytes of state; the core allocates it zeroed and passes it to every method.
 * @init: derives what the hot path needs from @params (borrowed for the call); checks the rules
 *   involving several parameters; may allocate (freed by @finalize, which is also called after a
 *   failed init). Sets MDL_ERROR_PARAM on failure.
 * @consume: processes a batch (borrowed for the call). Fails only on input the model rejects
 *   (MDL_ERROR_MODEL, naming the event); the engine is then unusable.
 * @marker: (nullable) handles a marker; NULL ignores them. Fails as @consume.
 * @report: appends the engine's counters to @out. Must not change the state: the core calls it at
 *   every phase boundary.
 * @reset: (nullable) returns to the state right after init; NULL: the core finalizes and inits again.
 * @finalize: (nullable) frees what init allocated; NULL: nothing to free.
 * @flags: MDL_ENGINE_OWN_PHASES or 0.
 */
typedef struct {
  guint32 abi;
  const char *name;
  const char *summary;
  const MdlParamSpec *params;
  gsize state_size;
  gboolean (*init) (void *state, const MdlParams *params, GError **error);
  gboolean (*consume) (void *state, const MdlEventBatch *batch, GError **error);
  gboolean (*marker) (void *state, const MdlMarker *marker, GError **error);
  void (*report) (void *state, MdlReport *out);
  void (*reset) (void *state);
  void (*finalize) (void *state);
  guint32 flags;
} MdlEngineClass;

/**
 * MDL_ENGINE_OWN_PHASES: flag of a class that breaks its counts down by phase itself. Offline
 * models (Belady's MIN) only know their counts once the whole stream is seen, so a snapshot at a
 * phase marker means nothing for them. The core then takes no snapshots; the class records phase
 * markers in its marker method and adds phase sub-reports (mdl_report_add_phase) in report, which
 * the core calls only after the last event and which may do deferred work (idempotently).
 */
#define MDL_ENGINE_OWN_PHASES 0x1

/**
 * mdl_engine_register: adds a user engine class.
 * @klass: (transfer none) must stay valid for the life of the process.
 * @error: MDL_ERROR_PARAM for a bad ABI version, a missing method, a malformed parameter table or
 *   a name already taken.
 * Returns: TRUE when registered. Thread-safe.
 */
MDL_API gboolean mdl_engine_register (const MdlEngineClass *klass, GError **error);

/** mdl_engine_class_lookup: the class named @name (built-in or registered), or NULL. */
MDL_API const MdlEngineClass *mdl_engine_class_lookup (const char *name);

/**
 * mdl_engine_classes: every class, built-in first, then registered ones in order.
 * @n: (out) how many.
 * Returns: (transfer container) free with g_free().
 */
MDL_API const MdlEngineClass **mdl_engine_classes (guint *n);

/** MdlEngine: an engine instance; opaque. */
typedef struct MdlEngine MdlEngine;

/**
 * mdl_engine_new: creates an engine from a spec `NAME:key=value,...`.
 * @spec: the spec.
 * @error: MDL_ERROR_UNKNOWN_NAME for an unknown engine (listing the valid ones and a close
 *   match), MDL_ERROR_PARAM for a bad parameter.
 * Returns: (transfer full) the engine, or NULL.
 */
MDL_API MdlEngine *mdl_engine_new (const char *spec, GError **error);

/**
 * mdl_engine_new_on: as mdl_engine_new(), on the machine preset @machine unless @spec chooses one
 * itself (a value the spec gives wins, as it wins over a preset everywhere).
 * @machine: (nullable) a preset name; NULL makes this mdl_engine_new().
 * @error: as for mdl_engine_new(); MDL_ERROR_UNKNOWN_NAME also for an unknown @machine.
 * Returns: (transfer full) the engine, or NULL.
 */
MDL_API MdlEngine *mdl_engine_new_on (const char *spec, const char *machine, GError **error);

/** mdl_engine_free: NULL is fine. */
MDL_API void mdl_engine_free (MdlEngine *engine);

/** mdl_engine_name: the class name. */
MDL_API const char *mdl_engine_name (const MdlEngine *engine);

/** mdl_engine_spec: the full normalized spec, `NAME:machine=...,key=value,...` in table order. */
MDL_API const char *mdl_engine_spec (const MdlEngine *engine);

/**
 * mdl_engine_consume: feeds a batch.
 * @error: MDL_ERROR_MODEL when the model rejects an event.
 * Returns: FALSE on error; the engine then refuses further events.
 */
MDL_API gboolean mdl_engine_consume (MdlEngine *engine, const MdlEventBatch *batch,
                                     GError **error);

/**
 * mdl_engine_marker: feeds a marker; phase markers also drive the per-phase breakdown.
 * @error: MDL_ERROR_FORMAT for a phase end that does not match the open phase; MDL_ERROR_MODEL.
 * Returns: FALSE on error.
 */
MDL_API gboolean mdl_engine_marker (MdlEngine *engine, const MdlMarker *marker, GError **error);

/**
 * mdl_engine_report: the engine's counters now, with a phase sub-report for each closed phase.
 * Before any event it already holds every counter of the spec, with its unit and description
 * (zero counts, NaN reals): that is what `models list --engine SPEC` prints. Read one by name with
 * mdl_report_get().
 * Returns: (transfer full) the report.
 */
MDL_API MdlReport *mdl_engine_report (MdlEngine *engine);

/**
 * mdl_engine_set_site_phases: also breaks the counts down by site. Each run of events with one
 * site id is attributed to a phase named after the site (the name of its latest MDL_MARK_SITE
 * marker, else "site N"); site 0 means no site and is not broken down. Set it before the first
 * event. A class with MDL_ENGINE_OWN_PHASES gets each run as a phase begin and end marker of its
 * own (nested inside the stream's phases); one of those without a marker method ignores this.
 * Cost: one snapshot of the counts (a report call, or for an owning class a phase mark) wherever
 * the site changes: an annotation of every access (`models annotate`) pays it every few events.
 */
MDL_API void mdl_engine_set_site_phases (MdlEngine *engine, gboolean by_site);

/** mdl_engine_reset: forgets everything consumed; the engine is as new. */
MDL_API void mdl_engine_reset (MdlEngine *engine);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlEngine, mdl_engine_free)

G_END_DECLS

#endif
