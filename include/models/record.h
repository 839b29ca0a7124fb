/* libmodels: instrumentation, the producer side of the event stream.
 *
 * A recorder appends CPU events to a fixed buffer with an inline call and flushes full buffers to a
 * sink out of line (Cachegrind's batching at the producer). Markers flush the pending buffer first,
 * so the sink sees events in program order. Consecutive operation counts merge into one record.
 *
 * The MDL_READ/MDL_WRITE/MDL_OPS/... macros are what instrumented algorithms use: compiled with
 * MDL_NATIVE defined they expand to nothing, so the same source builds a native version to time. */
#ifndef MODELS_RECORD_H
#define MODELS_RECORD_H

#include <glib.h>
#include <stdint.h>
#include <models/api.h>
#include <models/event.h>
#include <models/sites.h>

G_BEGIN_DECLS

/**
 * MdlRecorder: a batching event producer. Only the first three fields are public, for the inline
 * append below (the {data, len} view of GArray); never write them.
 * @buf: the pending CPU events.
 * @len: number of pending events.
 * @cap: capacity of @buf.
 */
typedef struct MdlRecorder MdlRecorder;
struct MdlRecorder {
  MdlCpuEvent *buf;
  guint32 len;
  guint32 cap;
  guint16 site;
  guint16 thread;
};

/**
 * mdl_recorder_new: creates a recorder delivering to @sink.
 * @sink: (transfer none) copied; its data must outlive the recorder.
 * @batch_events: events per batch (0: a default of 4096, a few pages that stay in L1/L2).
 * Returns: (transfer full) the recorder.
 * The batches it delivers are lent (MdlEventBatch.keep): a sink may hold one past the call with
 * mdl_event_batch_keep() instead of copying it (a threaded pipeline does); the recorder then
 * appends into another buffer, one per batch held.
 */
MDL_API MdlRecorder *mdl_recorder_new (const MdlSink *sink, guint batch_events);

/**
 * mdl_recorder_free: delivers the pending events to the sink, then frees the recorder; NULL is
 * fine. The sink must still be alive (with g_autoptr, declare the recorder after its sink's
 * owner). A sink error not collected by mdl_recorder_finish() (an earlier one, or one of this last
 * delivery) cannot be returned here: it is logged with g_warning(). Call mdl_recorder_finish()
 * first to get errors and to read results before the scope ends.
 */
MDL_API void mdl_recorder_free (MdlRecorder *rec);

/**
 * MDL_RECORDER_MAP_BASE: the simulated address of the first region given to mdl_recorder_map().
 */
#define MDL_RECORDER_MAP_BASE (G_GUINT64_CONSTANT (1) << 40)

/**
 * mdl_recorder_map: records accesses inside [@base, @base + @bytes) at simulated addresses, so
 * that what the engines count does not depend on where the allocator put the memory (the build,
 * the sanitizers, earlier allocations). The regions of one recorder lie one after the other from
 * MDL_RECORDER_MAP_BASE, each at a 2 MiB boundary, in the order they were mapped; a region mapped
 * over bytes of an earlier one (memory freed and allocated again) replaces it. Accesses
 * outside every region keep their addresses. The translation is made when a batch is delivered,
 * out of line: the inline append is unchanged.
 */
MDL_API void mdl_recorder_map (MdlRecorder *rec, const void *base, gsize bytes);

/**
 * mdl_recorder_flush: delivers the pending events to the sink. Called by the inline append when the
 * buffer is full. After a sink failure the recorder drops every later event and keeps the first
 * error for mdl_recorder_finish().
 */
MDL_API void mdl_recorder_flush (MdlRecorder *rec);

/**
 * mdl_recorder_finish: flushes and returns the first sink error, if any.
 * @error: whatever the sink reported.
 * Returns: FALSE when some event could not be delivered.
 */
MDL_API gboolean mdl_recorder_finish (MdlRecorder *rec, GError **error);

/** mdl_recorder_n_events: CPU records produced so far, pending ones and any dropped after a sink
 * failure included (merged op counts count once). */
MDL_API guint64 mdl_recorder_n_events (const MdlRecorder *rec);

/**
 * mdl_recorder_sink: flushes the pending events and returns the sink the recorder delivers to, so
 * that a producer of other events (the SIMT layer's warp instructions) can write into the same
 * stream. The caller flushes its own events before the recorder's next ones.
 * Returns: a copy of the sink given to mdl_recorder_new().
 */
MDL_API MdlSink mdl_recorder_sink (MdlRecorder *rec);

/** mdl_recorder_marker: flushes pending events, then delivers @marker (borrowed for the call). */
MDL_API void mdl_recorder_marker (MdlRecorder *rec, const MdlMarker *marker);

/** mdl_recorder_phase_begin: marks the start of phase @name (at most MDL_NAME_MAX bytes). */
MDL_API void mdl_recorder_phase_begin (MdlRecorder *rec, const char *name);

/** mdl_recorder_phase_end: marks the end of the innermost phase, which must be @name. */
MDL_API void mdl_recorder_phase_end (MdlRecorder *rec, const char *name);

/**
 * mdl_recorder_set_site: later events carry @site (0: none); name it with an MDL_MARK_SITE marker.
 * While it is not 0 the instrumentation macros record @site too, in place of their call sites, and
 * a recorder given a site this way never names code sites (its ids are the caller's).
 */
MDL_API void mdl_recorder_set_site (MdlRecorder *rec, guint16 site);

/** mdl_recorder_site_or: the site set by mdl_recorder_set_site(), else @code_site: what the
 * instrumentation macros record. */
static inline guint16
mdl_recorder_site_or (const MdlRecorder *rec, guint16 code_site)
{
  return rec->site ? rec->site : code_site;
}

/**
 * mdl_recorder_append: appends one record as given, with no check; what the calls below share.
 * Cost: a store of 16 bytes, without zeroing it first (a compound literal zeroes the record, then
 * stores its fields: five stores for an op count's record instead of four); one out-of-line
 * flush every batch.
 */
static inline void
mdl_recorder_append (MdlRecorder *rec, MdlCpuKind kind, guint flags, guint size, guint16 site,
                     guint64 addr)
{
  MdlCpuEvent *e = &rec->buf[rec->len];
  e->kind = (guint8) kind;
  e->flags = (guint8) flags;
  e->size = (guint16) size;
  e->thread = rec->thread;
  e->site = site;
  e->addr = addr;
  if (G_UNLIKELY (++rec->len == rec->cap))
    mdl_recorder_flush (rec);
}

/**
 * mdl_recorder_flagged_at: appends one access issued by site @site, with flags.
 * @kind: MDL_CPU_READ, MDL_CPU_WRITE or MDL_CPU_MODIFY.
 * @flags: 0, or on a read MDL_CPU_FLAG_DEPENDENT, alone or with MDL_CPU_FLAG_CHASE (event.h says
 *   which reads).
 * @addr: the byte address.
 * @size: bytes, 1..65535.
 * @site: the site id (0: none).
 * Cost: a store of 16 bytes; one out-of-line flush every batch.
 */
static inline void
mdl_recorder_flagged_at (MdlRecorder *rec, MdlCpuKind kind, guint flags, guint64 addr, guint size,
                         guint16 site)
{
  mdl_recorder_append (rec, kind, flags, size, site, addr);
}

/** mdl_recorder_access_at: mdl_recorder_flagged_at() without flags. */
static inline void
mdl_recorder_access_at (MdlRecorder *rec, MdlCpuKind kind, guint64 addr, guint size, guint16 site)
{
  mdl_recorder_flagged_at (rec, kind, 0, addr, size, site);
}

/** mdl_recorder_access: mdl_recorder_access_at() with the site set by mdl_recorder_set_site(). */
static inline void
mdl_recorder_access (MdlRecorder *rec, MdlCpuKind kind, guint64 addr, guint size)
{
  mdl_recorder_access_at (rec, kind, addr, size, rec->site);
}

/** mdl_recorder_ops_at: records @n RAM operations of site @site (what MDL_OPS calls; one per loop
 * iteration, see below); merges with a directly preceding op count of the same site. */
static inline void
mdl_recorder_ops_at (MdlRecorder *rec, guint64 n, guint16 site)
{
  if (rec->len > 0 && rec->buf[rec->len - 1].kind == MDL_CPU_OPS
      && rec->buf[rec->len - 1].site == site)
    rec->buf[rec->len - 1].addr += n;
  else
    mdl_recorder_append (rec, MDL_CPU_OPS, 0, 0, site, n);
}

/** mdl_recorder_ops: mdl_recorder_ops_at() with the site set by mdl_recorder_set_site(). */
static inline void
mdl_recorder_ops (MdlRecorder *rec, guint64 n)
{
  mdl_recorder_ops_at (rec, n, rec->site);
}

/**
 * mdl_recorder_branch: appends one execution of a data-dependent branch (an MDL_CPU_BRANCH record)
 * and returns its outcome, so that the branch's condition can be wrapped where it stands.
 * @taken: whether the branch went the way its condition names (nonzero: taken).
 * @code_site: the branch's own code site: the record's addr (the static branch a predictor
 *   indexes by, whatever mdl_recorder_set_site() says) and its site unless a site was set.
 * Returns: @taken as TRUE or FALSE.
 * Cost: a store of 16 bytes; one out-of-line flush every batch.
 */
static inline gboolean
mdl_recorder_branch (MdlRecorder *rec, gboolean taken, guint16 code_site)
{
  taken = taken != 0;
  mdl_recorder_append (rec, MDL_CPU_BRANCH, taken ? MDL_CPU_FLAG_TAKEN : 0, 0,
                       mdl_recorder_site_or (rec, code_site), code_site);
  return taken;
}

/* Instrumentation macros: REC is an MdlRecorder *, PTR a typed pointer (the access size is the size
 * of what it points to). With MDL_NATIVE defined they compile to nothing and evaluate nothing.
 * MDL_OPS (REC, N) counts N RAM operations: charge 1 per iteration of each loop (one step of the
 * algorithm's RAM-model time, whatever accesses it makes), as every algorithm under src/algos/cpu
 * does. The count is `ram_ops`, and vat's `cost` = ram_ops + tau * tc_misses prices a TC miss in
 * these steps, so a program that counts 3 per iteration shrinks every miss's share threefold
 * (docs/models/vat.md). Each records the call site it is written at (MDL_SITE_HERE, sites.h), so
 * that `models annotate` can attribute every count to a source line, unless the recorder was given
 * a site (mdl_recorder_set_site()).
 * MDL_BRANCH (REC, COND) is COND (0 or 1) and records it as the outcome of the data-dependent branch
 * written there, for the `branch` engine: wrap the conditions of the branches whose direction
 * depends on the data (a search's compare), not loop control, which a predictor learns. In the
 * native build it is just (COND) != 0.
 * MDL_READ_DEP (REC, PTR, DEP) is MDL_READ, flagged MDL_CPU_FLAG_DEPENDENT when DEP is nonzero:
 * write it where the address may come from a value loaded just before (a search's probe, a sift's
 * children), with DEP saying whether it did this time (not on a search's first probe).
 * MDL_READ_CHASE (REC, PTR, DEP) is MDL_READ_DEP for a load whose address the loaded value computes
 * with no branch between (MDL_CPU_FLAG_CHASE: a pointer chase). */
#ifdef MDL_NATIVE
#define MDL_BRANCH(REC, COND) ((COND) != 0)
#define MDL_READ(REC, PTR) ((void) 0)
#define MDL_READ_DEP(REC, PTR, DEP) ((void) 0)
#define MDL_READ_CHASE(REC, PTR, DEP) ((void) 0)
#define MDL_WRITE(REC, PTR) ((void) 0)
#define MDL_MODIFY(REC, PTR) ((void) 0)
#define MDL_OPS(REC, N) ((void) 0)
#define MDL_PHASE_BEGIN(REC, NAME) ((void) 0)
#define MDL_PHASE_END(REC, NAME) ((void) 0)
#else
#define MDL_READ(REC, PTR)                                                                       \
  mdl_recorder_access_at ((REC), MDL_CPU_READ, (guint64) (uintptr_t) (PTR), sizeof *(PTR),        \
                          mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_READ_DEP(REC, PTR, DEP)                                                              \
  mdl_recorder_flagged_at ((REC), MDL_CPU_READ, (DEP) ? MDL_CPU_FLAG_DEPENDENT : 0,                \
                           (guint64) (uintptr_t) (PTR), sizeof *(PTR),                           \
                           mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_READ_CHASE(REC, PTR, DEP)                                                            \
  mdl_recorder_flagged_at ((REC), MDL_CPU_READ,                                                  \
                           (DEP) ? MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE : 0,              \
                           (guint64) (uintptr_t) (PTR), sizeof *(PTR),                           \
                           mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_WRITE(REC, PTR)                                                                      \
  mdl_recorder_access_at ((REC), MDL_CPU_WRITE, (guint64) (uintptr_t) (PTR), sizeof *(PTR),       \
                          mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_MODIFY(REC, PTR)                                                                     \
  mdl_recorder_access_at ((REC), MDL_CPU_MODIFY, (guint64) (uintptr_t) (PTR), sizeof *(PTR),      \
                          mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_BRANCH(REC, COND) mdl_recorder_branch ((REC), (COND) != 0, MDL_SITE_HERE ())
#define MDL_OPS(REC, N) mdl_recorder_ops_at ((REC), (N), mdl_recorder_site_or ((REC), MDL_SITE_HERE ()))
#define MDL_PHASE_BEGIN(REC, NAME) mdl_recorder_phase_begin ((REC), (NAME))
#define MDL_PHASE_END(REC, NAME) mdl_recorder_phase_end ((REC), (NAME))
#endif

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlRecorder, mdl_recorder_free)

G_END_DECLS

#endif
