/* Private: the phase ledger, the one place that knows how phase markers nest and how counts are
 * broken down by phase. The core uses it for every online engine (engine.c); engines that own
 * their phases (MDL_ENGINE_OWN_PHASES: vat and em, whose offline policies know their counts only
 * when the report is made) use it too, in two steps: they check the nesting when a marker arrives
 * (mdl_phase_ledger_nest) and replay their marks with the counts in the report
 * (mdl_phase_ledger_mark).
 *
 * Counts are vectors of guint64 of one length per ledger (a report's counters, or an engine's
 * count struct viewed as guint64s). A phase's totals are the sum, over its closed entries, of the
 * counts at its end minus the counts at its begin; phases nest, and a phase entered several times
 * accumulates. Phases are listed in order of first appearance, and only those closed at least once
 * are reported. */
#ifndef MDL_LEDGER_H
#define MDL_LEDGER_H

#include <glib.h>
#include <models/report.h>

typedef struct MdlPhaseLedger MdlPhaseLedger;

/* (transfer full) an empty ledger. */
MdlPhaseLedger *mdl_phase_ledger_new (void);
/* NULL is fine. */
void mdl_phase_ledger_free (MdlPhaseLedger *ledger);
/* Forgets everything: the nesting, the open entries and every phase. */
void mdl_phase_ledger_clear (MdlPhaseLedger *ledger);
/* Forgets the open entries and every phase, and keeps the nesting of the markers that arrived:
 * for an engine that replays its marks from the start. */
void mdl_phase_ledger_restart (MdlPhaseLedger *ledger);

/**
 * mdl_phase_ledger_nest: follows the nesting of phase markers as they arrive. A begin opens @name;
 * an end must name the innermost open phase, and closes it.
 * @name: (nullable) the phase; NULL reads as "".
 * @error: MDL_ERROR_FORMAT for an end that does not match the innermost open phase, or comes while
 *   none is open; the ledger is then unchanged.
 */
gboolean mdl_phase_ledger_nest (MdlPhaseLedger *ledger, gboolean begin, const char *name,
                                GError **error);

/* The @n_counts counts at a phase marker, given in the order of the markers that
 * mdl_phase_ledger_nest accepted (online engines at once, the others when they replay them): a
 * begin opens an entry of @name with these counts (copied); an end closes the innermost open
 * entry, which must be @name's, and adds these counts minus those at its begin to @name's totals.
 * @n_counts is the same for every call on one ledger. */
void mdl_phase_ledger_mark (MdlPhaseLedger *ledger, gboolean begin, const char *name,
                            const guint64 *counts, guint n_counts);
/* Adds @now minus @then to @name's totals as one closed entry, outside the nesting (the site phases
 * of engine.c); a phase new to the ledger is listed after the others. */
void mdl_phase_ledger_add (MdlPhaseLedger *ledger, const char *name, const guint64 *now,
                           const guint64 *then, guint n_counts);

/* (transfer full) a report that keeps only its counters' values and kinds, for the counts the core
 * reads at every phase marker: an engine's report function fills it as usual, without the names,
 * units, descriptions and index of a full report, which made a quarter of scan/nopad's time under
 * the six GPU engines (n = 1M, a phase marker every 170 warp instructions). mdl_report_lookup()
 * finds nothing in it. Defined in report.c. */
MdlReport *mdl_report_new_values (const char *engine);

/* FALSE for a values-only report (mdl_report_new_values()): an engine that builds its counters'
 * names or metrics piece by piece skips that work, which was a tenth of sort/gpu-quicksort's time
 * under the six GPU engines (a phase marker every 25 warp instructions). Defined in report.c. */
gboolean mdl_report_keeps_names (const MdlReport *report);

/* Empties the values-only @report for the next snapshot: one report an engine, not one a phase
 * marker (each was five allocations). Defined in report.c. */
void mdl_report_values_clear (MdlReport *report);

/* Fills a phase's sub-report @phase from its @totals. */
typedef void (*MdlPhaseFill) (const guint64 *totals, MdlReport *phase, void *data);

/* Adds to @out a sub-report for each phase closed at least once, in order of first appearance,
 * named after the phase, with @out's spec, and filled by @fill. */
void mdl_phase_ledger_report (const MdlPhaseLedger *ledger, MdlReport *out, MdlPhaseFill fill,
                              void *data);

#endif
