/* libmodels: reports.
 *
 * A report is what one engine says about one run: its name, its full normalized spec, and a list of
 * named counters, each with a unit, a description and, where a hardware tool measures the same
 * thing, that tool's metric name, so predicted and measured tables join by key. Counts are exact
 * 64-bit integers; derived quantities (ratios, percentages) are reals and say so.
 * A report may carry one sub-report per phase (see MDL_MARK_PHASE_BEGIN), holding the change of
 * every count over that phase. Reports print as a table for people, and as JSON or CSV. */
#ifndef MODELS_REPORT_H
#define MODELS_REPORT_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/** MdlReport: one engine's counters; opaque. */
typedef struct MdlReport MdlReport;

/**
 * MdlCounter: a read-only view of one counter; strings live as long as the report.
 * @name: the key (lower case, `tc_misses`).
 * @unit: "count", "accesses", "bytes", "percent", "ratio"...
 * @description: one line for people.
 * @metric: the hardware tool's name for the same quantity (Nsight Compute, Cachegrind), or NULL.
 * @is_real: TRUE for a derived real value in @real; FALSE for an exact count in @count.
 * @count: the value of a count.
 * @real: the value of a real; NaN means not applicable (e.g. branch uniformity with no branch).
 * @is_peak: TRUE for a count that is not a sum over the run (a maximum, a number of distinct
 *   things), so that a phase's share of it means nothing: phase breakdowns leave it out.
 */
typedef struct {
  const char *name;
  const char *unit;
  const char *description;
  const char *metric;
  gboolean is_real;
  guint64 count;
  double real;
  gboolean is_peak;
} MdlCounter;

/**
 * mdl_report_new: an empty report.
 * @engine: the engine (or source) name.
 * @spec: the full normalized spec.
 * Returns: (transfer full) the report.
 */
MDL_API MdlReport *mdl_report_new (const char *engine, const char *spec);

/** mdl_report_free: NULL is fine. */
MDL_API void mdl_report_free (MdlReport *report);

/**
 * mdl_report_add_count: appends an exact count.
 * @name: the key; adding a key twice is a caller bug.
 * @unit: the unit.
 * @description: one line.
 * @metric: (nullable) the hardware metric name.
 * @value: the count.
 */
MDL_API void mdl_report_add_count (MdlReport *report, const char *name, const char *unit,
                                   const char *description, const char *metric, guint64 value);

/** mdl_report_add_peak: appends a count that is not a sum over the run (a maximum, a number of
 * distinct things): the core's phase breakdowns leave it out; see mdl_report_add_count(). */
MDL_API void mdl_report_add_peak (MdlReport *report, const char *name, const char *unit,
                                  const char *description, const char *metric, guint64 value);

/** mdl_report_add_real: appends a derived real value; see mdl_report_add_count(). */
MDL_API void mdl_report_add_real (MdlReport *report, const char *name, const char *unit,
                                  const char *description, const char *metric, double value);

/** mdl_report_engine: the engine name. */
MDL_API const char *mdl_report_engine (const MdlReport *report);
/** mdl_report_spec: the full normalized spec. */
MDL_API const char *mdl_report_spec (const MdlReport *report);
/** mdl_report_n_counters: number of counters. */
MDL_API guint mdl_report_n_counters (const MdlReport *report);
/** mdl_report_counter: the @i-th counter, in the order they were added. */
MDL_API const MdlCounter *mdl_report_counter (const MdlReport *report, guint i);
/**
 * mdl_report_get: the counter named @name, for a name the caller expects the report to have.
 * Every engine's counter names, units and descriptions: `models list --engine NAME`.
 * @name: the key (`tc_misses`).
 * @error: MDL_ERROR_UNKNOWN_NAME when the report has no such counter; the message names the report's
 *   spec and the closest counter name ("did you mean").
 * Returns: (transfer none) the counter, valid while the report lives, or NULL with @error set.
 */
MDL_API const MdlCounter *mdl_report_get (const MdlReport *report, const char *name,
                                          GError **error);

/** mdl_report_lookup: the counter named @name, or NULL without a word: a probe for a counter that
 * may be absent (one that a parameter adds). For a name you expect, use mdl_report_get(). */
MDL_API const MdlCounter *mdl_report_lookup (const MdlReport *report, const char *name);

/**
 * mdl_report_add_phase: attaches a phase sub-report.
 * @phase: (transfer full) a report whose engine name is the phase name.
 */
MDL_API void mdl_report_add_phase (MdlReport *report, MdlReport *phase);
/** mdl_report_n_phases: number of phase sub-reports, in order of first appearance. */
MDL_API guint mdl_report_n_phases (const MdlReport *report);
/** mdl_report_phase: the @i-th phase sub-report (its engine name is the phase name). */
MDL_API const MdlReport *mdl_report_phase (const MdlReport *report, guint i);

/** MdlFormat: output formats of reports. */
typedef enum {
  MDL_FORMAT_TABLE = 0,
  MDL_FORMAT_JSON,
  MDL_FORMAT_CSV,
} MdlFormat;

/** mdl_format_from_name: parses "table", "json" or "csv"; MDL_ERROR_UNKNOWN_NAME otherwise. */
MDL_API gboolean mdl_format_from_name (const char *name, MdlFormat *format, GError **error);

/**
 * MdlSourceInfo: what was run, for the head of a report document.
 * @name: the trace file or algorithm.
 * @events: events delivered (CPU records, warp instructions and markers).
 * @seconds: wall time spent reading and simulating.
 */
typedef struct {
  const char *name;
  guint64 events;
  double seconds;
} MdlSourceInfo;

/**
 * mdl_reports_write: formats a whole run into @out.
 * JSON: `{"source": {"name": ..., "events": N, "seconds": S}, "reports": [{"engine": ..., "spec":
 * ..., "counters": {...}, "units": {...}, "metrics": {...}, "phases": {"PHASE": {...}}}]}`.
 * CSV: one row per counter: `engine,spec,phase,counter,value,unit,metric` (phase empty for totals).
 * Table: one block per report, aligned columns, descriptions on the right.
 * @source: the run.
 * @reports: the reports.
 * @n_reports: how many.
 * @format: the format.
 * @out: appended to.
 */
MDL_API void mdl_reports_write (const MdlSourceInfo *source, MdlReport *const *reports,
                                guint n_reports, MdlFormat format, GString *out);

/**
 * mdl_reports_write_partial: mdl_reports_write() for a run that stopped early, which the document
 * then says: `"partial": WHY` in JSON's source object, a line `PARTIAL: WHY` under the table's
 * source line. CSV has no source part; the caller must say it otherwise.
 * @partial: why the run stopped ("interrupted by SIGINT"), or NULL for a whole run.
 * The other arguments are mdl_reports_write()'s.
 */
MDL_API void mdl_reports_write_partial (const MdlSourceInfo *source, const char *partial,
                                        MdlReport *const *reports, guint n_reports,
                                        MdlFormat format, GString *out);

/* A table shows a series (a run of counters named PREFIX_wN, such as the vat curve) of more than
 * this many points summarized: its ends and its powers of two. CSV and JSON keep every point. */
#define MDL_REPORT_TABLE_SERIES_MAX 32

/**
 * mdl_reports_longest_series: the number of points of the longest series (a run of counters
 * named PREFIX_wN) in @reports and their phases, 0 when there is none; a table summarizes it when
 * this is over MDL_REPORT_TABLE_SERIES_MAX, and a caller may then write the CSV beside it.
 * @reports: the reports.
 * @n_reports: how many.
 */
MDL_API guint mdl_reports_longest_series (MdlReport *const *reports, guint n_reports);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlReport, mdl_report_free)

G_END_DECLS

#endif
