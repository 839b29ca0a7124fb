/* libmodels: the latency table of the SIMT layer's clocked schedule (MdlSimtLaunch.clock).
 *
 * Under the default round robin every resident block makes one global memory instruction a turn,
 * so blocks that issue the same instructions stay in step whatever the hardware's latencies. The
 * clocked schedule gives each resident block a clock instead: a memory instruction advances it by
 * that instruction's latency on the block's SM, and the block with the earliest clock takes the
 * next turn (ties: the lowest resident slot). Resident slot i runs on SM i mod n_sms. With every
 * memory latency equal on every SM and no issue cost it is the round robin, event for event.
 * A table is measured (tools/atomic-sm-latency.cu writes one) or synthetic
 * (mdl_simt_clock_spread(): a sensitivity study, not a prediction). It also says when a memory
 * instruction acts on memory (MdlSimtEffect): when it issues (the default), or when it reaches
 * the memory, half its round trip later. */
#ifndef MODELS_SIMT_CLOCK_H
#define MODELS_SIMT_CLOCK_H

#include <glib.h>
#include <stdint.h>
#include <models/api.h>

G_BEGIN_DECLS

/** MdlSimtClock: a per-SM latency table; opaque. */
typedef struct MdlSimtClock MdlSimtClock;

/**
 * MdlSimtLatency: what a latency of the table is for.
 * @MDL_SIMT_LAT_LOAD: a global load: its clock moves by this after the load.
 * @MDL_SIMT_LAT_STORE: a global store.
 * @MDL_SIMT_LAT_ATOMIC: a global atomic (CAS, add, exchange...).
 * @MDL_SIMT_LAT_ISSUE: every other instruction the block issued since its last memory
 *   instruction (per warp instruction event over the block's warps), charged at the next one.
 * @MDL_SIMT_N_LAT: how many there are.
 */
typedef enum {
  MDL_SIMT_LAT_LOAD,
  MDL_SIMT_LAT_STORE,
  MDL_SIMT_LAT_ATOMIC,
  MDL_SIMT_LAT_ISSUE,
  MDL_SIMT_N_LAT
} MdlSimtLatency;

/**
 * MdlSimtEffect: when a global memory instruction of the clocked schedule acts on memory (a load
 *   samples, a store writes, an atomic is decided), which orders the instructions of blocks on
 *   different SMs.
 * @MDL_SIMT_EFFECT_ISSUE: at the block's clock when it issues (the default).
 * @MDL_SIMT_EFFECT_ARRIVE: half the instruction's latency on the block's SM after it issues: the
 *   one-way trip to the memory, taken as half the measured round trip. A load returns memory as
 *   of then; the block still issues its next instruction a whole latency after this one.
 */
typedef enum {
  MDL_SIMT_EFFECT_ISSUE,
  MDL_SIMT_EFFECT_ARRIVE
} MdlSimtEffect;

/**
 * mdl_simt_clock_new: a table of @n_sms SMs, each with the same latencies.
 * @n_sms: SMs (1..65535).
 * @memory_ps: the latency of a global load, store and atomic, in picoseconds (at least 1).
 * @issue_ps: the cost of any other instruction, in picoseconds (0: free).
 * Returns: (transfer full) the table (mdl_simt_clock_free()).
 */
MDL_API MdlSimtClock *mdl_simt_clock_new (guint n_sms, guint64 memory_ps, guint64 issue_ps);

/**
 * mdl_simt_clock_load: reads a measured table from a CSV file with a header row naming at least
 * the columns smid, op, mode and ns_per_op (the output of tools/atomic-sm-latency.cu). Of the rows
 * of @mode, op load_own gives an SM's load (and store) latency and cas_own its atomic one: the
 * latency of an address no other SM touches, since the contention between blocks is the
 * schedule's to play out; optional ops store_own and issue override the store and issue costs.
 * Other ops (load_shared, cas_shared) are read over. Every SM from 0 to the largest smid needs a
 * load_own and a cas_own row.
 * @path: the file.
 * @mode: the mode column's value to keep ("all": every SM running at once; "alone").
 * @error: MDL_ERROR_IO when the file cannot be read; MDL_ERROR_FORMAT naming the file and line of
 *   a malformed row or a missing column, or the SM that lacks a row.
 * Returns: (transfer full) the table, or NULL.
 */
MDL_API MdlSimtClock *mdl_simt_clock_load (const char *path, const char *mode, GError **error);

/**
 * mdl_simt_clock_spread: scales every latency of each SM by a factor drawn for that SM uniformly
 * from [1 − @percent/100, 1 + @percent/100] (a GRand seeded with @seed, SM by SM in order), so the
 * same arguments give the same table. A synthetic spread is for sensitivity, never a prediction.
 * @clock: the table.
 * @percent: the spread (0..90; 0 leaves the table as it is).
 * @seed: the random seed.
 */
MDL_API void mdl_simt_clock_spread (MdlSimtClock *clock, guint percent, guint64 seed);

/**
 * mdl_simt_clock_set: sets one latency of one SM.
 * @clock: the table.
 * @sm: the SM (below mdl_simt_clock_n_sms()).
 * @what: which latency.
 * @ps: picoseconds (memory latencies at least 1).
 */
MDL_API void mdl_simt_clock_set (MdlSimtClock *clock, guint sm, MdlSimtLatency what, guint64 ps);

/**
 * mdl_simt_clock_get: one latency of one SM, in picoseconds.
 * @clock: the table.
 * @sm: the SM (below mdl_simt_clock_n_sms()).
 * @what: which latency.
 * Returns: the latency.
 */
MDL_API guint64 mdl_simt_clock_get (const MdlSimtClock *clock, guint sm, MdlSimtLatency what);

/**
 * mdl_simt_clock_set_effect: sets when the table's memory instructions act on memory.
 * @clock: the table.
 * @effect: MDL_SIMT_EFFECT_ISSUE (what every new or loaded table has) or MDL_SIMT_EFFECT_ARRIVE.
 */
MDL_API void mdl_simt_clock_set_effect (MdlSimtClock *clock, MdlSimtEffect effect);

/**
 * mdl_simt_clock_effect: when the table's memory instructions act on memory.
 * @clock: the table.
 * Returns: the effect.
 */
MDL_API MdlSimtEffect mdl_simt_clock_effect (const MdlSimtClock *clock);

/**
 * mdl_simt_clock_set_jitter: scales the latency of every memory instruction of a launch by its
 * own factor, drawn uniformly from [1 − @percent/100, 1 + @percent/100] by a generator seeded from
 * @seed and the launch's number, so the same launch gives the same draws. The table's latencies
 * are the means. A synthetic jitter is for sensitivity, never a prediction.
 * @clock: the table.
 * @percent: the jitter (0..90; 0, what every new or loaded table has: none).
 * @seed: the random seed.
 */
MDL_API void mdl_simt_clock_set_jitter (MdlSimtClock *clock, guint percent, guint64 seed);

/**
 * mdl_simt_clock_n_sms: the SMs of the table.
 * @clock: the table.
 * Returns: their number.
 */
MDL_API guint mdl_simt_clock_n_sms (const MdlSimtClock *clock);

/**
 * mdl_simt_clock_free: frees @clock (NULL is fine).
 * @clock: the table.
 */
MDL_API void mdl_simt_clock_free (MdlSimtClock *clock);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlSimtClock, mdl_simt_clock_free)

G_END_DECLS

#endif
