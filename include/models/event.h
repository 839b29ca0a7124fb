/* libmodels: the event stream.
 *
 * Every source (instrumented algorithm, SIMT kernel, trace file) produces the same three families of
 * events and hands them to a sink in batches:
 *  - CPU accesses (MdlCpuEvent, 16 bytes, the same layout as a binary trace record);
 *  - warp instructions (MdlWarpEvent, lane addresses kept beside the batch);
 *  - markers (MdlMarker): kernel launch, block barrier, global sync, phase begin/end, site names.
 * The RAM operation count is the one marker that travels inside the CPU array (kind MDL_CPU_OPS),
 * because it is as frequent as the accesses themselves: a Lackey trace has an instruction line
 * between most data accesses, and a call per instruction would dominate the run. Branch outcomes
 * (kind MDL_CPU_BRANCH) travel there too, for the same reason.
 *
 * Ordering: a batch holds CPU events or warp events, never both; a sink sees batches and markers in
 * exactly the order the source produced them (a source flushes its pending batch before a marker). */
#ifndef MODELS_EVENT_H
#define MODELS_EVENT_H

#include <glib.h>
#include <stdint.h>
#include <models/api.h>

G_BEGIN_DECLS

/**
 * MdlCpuKind:
 * @MDL_CPU_READ: a data load of `size` bytes at `addr`.
 * @MDL_CPU_WRITE: a data store.
 * @MDL_CPU_MODIFY: a read-modify-write of the same bytes (Lackey's `M`): one read, then one write.
 * @MDL_CPU_OPS: not an access: `addr` holds a number of RAM operations done since the previous
 *   record (instructions in a Lackey trace, operation markers of an instrumented algorithm);
 *   `size` is 0.
 * @MDL_CPU_BRANCH: not an access: one execution of a conditional branch whose direction depends on
 *   the data (a search's compare, a sift's compare), for branch predictor engines. `addr` names the
 *   static branch (its code-site id for an instrumented algorithm: what a predictor indexes by, in
 *   place of the instruction's address); `flags` holds MDL_CPU_FLAG_TAKEN when it went the taken
 *   way; `size` is 0. Engines of memory count neither it nor its `addr`.
 */
typedef enum {
  MDL_CPU_READ = 0,
  MDL_CPU_WRITE = 1,
  MDL_CPU_MODIFY = 2,
  MDL_CPU_OPS = 3,
  MDL_CPU_BRANCH = 4,
} MdlCpuKind;

/** MDL_CPU_N_KINDS: number of MdlCpuKind values. */
#define MDL_CPU_N_KINDS 5

/** mdl_cpu_is_access: TRUE for reads, writes and modifies, FALSE for op counts and branches. */
static inline gboolean
mdl_cpu_is_access (guint kind)
{
  return kind < MDL_CPU_OPS;
}

/**
 * MDL_CPU_FLAG_FETCH: flag of an MDL_CPU_READ record that is an instruction fetch of `size` bytes
 * at `addr` (the instruction's address and length), not a data load. Only a reader asked to keep
 * fetches produces them (mdl_trace_reader_set_fetches()), and it still counts each instruction as
 * a RAM operation in MDL_CPU_OPS records, so op counts do not change. The hardware engines send
 * fetches to an instruction cache or skip them; an engine that does not look at @flags sees them
 * as reads. Trace files do not store them.
 */
#define MDL_CPU_FLAG_FETCH 0x01
/**
 * MDL_CPU_FLAG_TAKEN: flag of an MDL_CPU_BRANCH record whose branch was taken (the condition the
 * source names held); the only flag a branch record carries, and binary trace files store it.
 */
#define MDL_CPU_FLAG_TAKEN 0x02
/**
 * MDL_CPU_FLAG_DEPENDENT: flag of an MDL_CPU_READ whose address was computed from a value an
 * earlier load of the same chain returned: the next node of a pointer chase, a binary search's
 * next probe (chosen by the compare of the last one), a sift's child (chosen by the compare of
 * the last children). A core cannot issue such a load before the one it depends on completes, so
 * their misses do not overlap; unflagged loads (a scan, indices from an array or a generator not
 * fed by loaded data) can all be in flight at once. Cache engines count the misses of flagged
 * reads apart (memory-level parallelism, docs/experiments/cpu-model.md); binary trace files store
 * the flag, Lackey and din lines cannot and write such a read as a plain one.
 */
#define MDL_CPU_FLAG_DEPENDENT 0x04
/**
 * MDL_CPU_FLAG_CHASE: flag of an MDL_CPU_READ flagged MDL_CPU_FLAG_DEPENDENT whose address is
 * computed from the loaded value with no branch between: a pointer chase's next node, the van Emde
 * Boas search's next node (i = 2i + (v < key)). A core that predicts a branch runs ahead of the
 * load the branch waits for, so a dependent read chosen by a predicted branch (a binary search's
 * next probe, a sift's child) waits only when the prediction fails; a chase waits for every load
 * before it. Valid only with MDL_CPU_FLAG_DEPENDENT; binary trace files store it, Lackey and din
 * lines cannot.
 */
#define MDL_CPU_FLAG_CHASE 0x08

/**
 * MdlCpuEvent: one CPU access (or operation count), little-endian on disk.
 * @kind: an MdlCpuKind.
 * @flags: 0, MDL_CPU_FLAG_FETCH or MDL_CPU_FLAG_DEPENDENT on a read (never both), or
 *   MDL_CPU_FLAG_TAKEN on a branch.
 * @size: bytes accessed (1..65535); 0 for MDL_CPU_OPS and MDL_CPU_BRANCH.
 * @thread: the thread that issued it (0 for single-threaded sources).
 * @site: the site (source line or phase) that issued it; 0 means none. Names of sites travel as
 *   MDL_MARK_SITE markers.
 * @addr: the byte address accessed; the operation count for MDL_CPU_OPS; the branch's identity
 *   for MDL_CPU_BRANCH.
 */
typedef struct {
  guint8 kind;
  guint8 flags;
  guint16 size;
  guint16 thread;
  guint16 site;
  guint64 addr;
} MdlCpuEvent;

_Static_assert (sizeof (MdlCpuEvent) == 16, "MdlCpuEvent is a 16-byte trace record");

/** MdlWarpOp: what a warp instruction does. BARRIER is the warp's arrival at a block barrier;
 * the barrier itself (all warps of the block) is the MDL_MARK_BARRIER marker. JUMP is an
 * unconditional branch (the jump over the else side that nvcc emits after the if side of an
 * if/else): a machine branch instruction with no condition, so it has no taken mask. SHFL is a
 * warp shuffle (SHFL: lanes read each other's registers) and VOTE a warp vote (VOTE: ballot, any,
 * all): instructions of the warp with no memory space and no addresses. They came after JUMP, so
 * files written before them keep their numbers. */
typedef enum {
  MDL_WARP_LOAD = 0,
  MDL_WARP_STORE,
  MDL_WARP_ATOMIC,
  MDL_WARP_ALU,
  MDL_WARP_BRANCH,
  MDL_WARP_BARRIER,
  MDL_WARP_JUMP,
  MDL_WARP_SHFL,
  MDL_WARP_VOTE,
} MdlWarpOp;

#define MDL_WARP_N_OPS 9

/** MdlSpace: the memory space of a warp memory instruction; MDL_SPACE_NONE for the others. */
typedef enum {
  MDL_SPACE_NONE = 0,
  MDL_SPACE_GLOBAL,
  MDL_SPACE_SHARED,
  MDL_SPACE_LOCAL,
} MdlSpace;

#define MDL_SPACE_N 4

/** MDL_WARP_MAX_LANES: the widest warp an event can describe (masks are 64-bit). */
#define MDL_WARP_MAX_LANES 64

/** MDL_WARP_STRIDED: flag of an MdlWarpEvent whose lane addresses are base + lane * stride. */
/** MDL_WARP_STRIDE_MAX: the largest stride magnitude, so that lane * stride fits in 64 bits. */
#define MDL_WARP_STRIDE_MAX (G_MAXINT64 / MDL_WARP_MAX_LANES)
#define MDL_WARP_STRIDED 0x01
/**
 * MDL_WARP_MACHINE: flag of an instruction of the machine code that the algorithm as a model
 * writes it does not have: address arithmetic, loop control, the moves a compiler adds. A SIMT
 * twin marks these (mdl_simt_machine_begin()) so that its instruction counts equal the GPU's SASS
 * for the hardware engines (count, coalesce, banks, divergence count it like any instruction),
 * while the abstract models (agpu, kmodel, msimd) cost the algorithm as its paper writes it and
 * skip it.
 */
#define MDL_WARP_MACHINE 0x02
/**
 * MDL_WARP_ATOM_RED: flag of an MDL_WARP_ATOMIC whose old values no lane uses: a reduction (the
 * SASS RED of global memory, which Nsight Compute counts under `_op_red`, not `_op_atom`).
 * Without it an atomic returns each lane's old value (ATOM, ATOMS).
 */
#define MDL_WARP_ATOM_RED 0x04
/**
 * MDL_WARP_ATOM_CAS: flag of an MDL_WARP_ATOMIC that is a compare-and-swap: each lane sends a
 * compare value beside its operand. It always returns the old values, so never with
 * MDL_WARP_ATOM_RED.
 */
#define MDL_WARP_ATOM_CAS 0x08
/** MDL_WARP_FLAGS: every flag a warp event may carry. */
#define MDL_WARP_FLAGS (MDL_WARP_STRIDED | MDL_WARP_MACHINE | MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS)

/**
 * MdlWarpEvent: one instruction executed by one warp.
 * @active: bit i set when lane i executes the instruction; never 0.
 * @taken: for MDL_WARP_BRANCH, the active lanes that enter the `if` side; for an MDL_WARP_ATOMIC
 *   with MDL_WARP_ATOM_CAS, the active lanes whose compare failed (they wrote nothing: a retry
 *   loop runs them again); 0 otherwise.
 * @base: with MDL_WARP_STRIDED, the address of lane 0 (even if lane 0 is inactive).
 * @stride: with MDL_WARP_STRIDED, the bytes between consecutive lanes' addresses; at most
 *   MDL_WARP_STRIDE_MAX either way.
 * @first_addr: without MDL_WARP_STRIDED, for memory ops, the index in the batch's @lane_addrs of
 *   the first active lane's address; the active lanes' addresses follow in lane order, one each.
 * @launch: the kernel launch this instruction belongs to.
 * @block: linear block id within the launch.
 * @warp: warp id within the block.
 * @width: bytes accessed by each active lane (memory ops); 0 otherwise.
 * @site: the site that issued it (see MdlCpuEvent).
 * @op: an MdlWarpOp.
 * @space: an MdlSpace; MDL_SPACE_NONE exactly when @op is not a memory op.
 * @flags: MDL_WARP_STRIDED (memory ops only), MDL_WARP_MACHINE, MDL_WARP_ATOM_RED or
 *   MDL_WARP_ATOM_CAS (atomics only), or 0.
 *
 * An inactive lane has no address: sources never encode it as address 0.
 */
typedef struct {
  guint64 active;
  guint64 taken;
  guint64 base;
  gint64 stride;
  guint32 first_addr;
  guint32 launch;
  guint32 block;
  guint16 warp;
  guint16 width;
  guint16 site;
  guint8 op;
  guint8 space;
  guint8 flags;
} MdlWarpEvent;

/**
 * MdlBatchKeep: a hold on the memory of a batch's arrays (mdl_event_batch_keep()); opaque. The
 * SIMT layer lends its batches so, and a threaded pipeline keeps them instead of copying them.
 */
typedef struct MdlBatchKeep MdlBatchKeep;

/**
 * MdlEventBatch: the view of a batch handed to a sink; borrowed for the duration of the call.
 * @cpu: CPU events in program order (NULL when @n_cpu is 0).
 * @n_cpu: number of CPU events.
 * @warp: warp instructions in issue order.
 * @n_warp: number of warp instructions.
 * @lane_addrs: lane addresses referenced by the warp events' @first_addr.
 * @n_lane_addrs: number of lane addresses.
 * @keep: (nullable) set by a source whose arrays may outlive the call: a sink that consumes the
 *   batch later (on another thread) takes a hold with mdl_event_batch_keep() instead of copying
 *   it. NULL (what an initializer that leaves it out gives): the arrays are borrowed for the call
 *   only.
 * A batch holds CPU events or warp events, never both.
 */
typedef struct {
  const MdlCpuEvent *cpu;
  gsize n_cpu;
  const MdlWarpEvent *warp;
  gsize n_warp;
  const guint64 *lane_addrs;
  gsize n_lane_addrs;
  MdlBatchKeep *keep;
} MdlEventBatch;

/**
 * mdl_event_batch_keep: holds the memory of @batch's arrays past the sink call, when its source
 * allows it (@batch->keep set): they stay valid and unchanged, even after the source is freed,
 * until mdl_batch_keep_release(). Any thread may release the hold.
 * Returns: (transfer full) (nullable) the hold; NULL when the source lends nothing (copy what
 *   you keep).
 * Cost: one atomic increment.
 */
MDL_API MdlBatchKeep *mdl_event_batch_keep (const MdlEventBatch *batch);

/** mdl_batch_keep_release: gives back a hold from mdl_event_batch_keep(); NULL is fine. */
MDL_API void mdl_batch_keep_release (MdlBatchKeep *keep);

/** mdl_warp_is_memory: TRUE for loads, stores and atomics. */
static inline gboolean
mdl_warp_is_memory (const MdlWarpEvent *w)
{
  return w->op <= MDL_WARP_ATOMIC;
}

/**
 * mdl_warp_addrs: writes the address of every active lane of @w into @out, indexed by lane.
 * @batch: the batch holding @w.
 * @w: a memory instruction.
 * @out: MDL_WARP_MAX_LANES slots; inactive lanes' slots are left untouched.
 * Cost: one pass over the active lanes.
 */
static inline void
mdl_warp_addrs (const MdlEventBatch *batch, const MdlWarpEvent *w, guint64 *out)
{
  guint64 mask = w->active;
  const guint64 *src = batch->lane_addrs + w->first_addr;
  /* Two loops, not one test per lane: every GPU engine decodes every memory instruction. */
  if (w->flags & MDL_WARP_STRIDED)
    for (; mask; mask &= mask - 1)
      {
        guint lane = (guint) __builtin_ctzll (mask);
        out[lane] = w->base + (guint64) ((gint64) lane * w->stride);
      }
  else
    for (; mask; mask &= mask - 1)
      out[__builtin_ctzll (mask)] = *src++;
}

/**
 * MdlMarkerKind:
 * @MDL_MARK_LAUNCH: a kernel launch: @launch, @grid_blocks, @block_threads, @shared_bytes, @warp_width.
 * @MDL_MARK_BARRIER: all warps of block @block of launch @launch synchronise.
 * @MDL_MARK_SYNC: a global synchronisation (host sync, kernel boundary).
 * @MDL_MARK_PHASE_BEGIN: the phase @name begins (phases nest).
 * @MDL_MARK_PHASE_END: the innermost open phase, which must be @name, ends.
 * @MDL_MARK_SITE: site id @site is named @name from here on.
 */
typedef enum {
  MDL_MARK_LAUNCH = 0,
  MDL_MARK_BARRIER,
  MDL_MARK_SYNC,
  MDL_MARK_PHASE_BEGIN,
  MDL_MARK_PHASE_END,
  MDL_MARK_SITE,
} MdlMarkerKind;

#define MDL_MARK_N_KINDS 6

/** MDL_NAME_MAX: the longest phase or site name, in bytes. */
#define MDL_NAME_MAX 255

/**
 * MdlMarker: an out-of-band event; fields not listed for its kind are 0.
 * @kind: an MdlMarkerKind.
 * @launch: LAUNCH, BARRIER: the launch id.
 * @block: BARRIER: the block id.
 * @grid_blocks: LAUNCH: number of blocks in the grid.
 * @block_threads: LAUNCH: threads per block.
 * @shared_bytes: LAUNCH: shared memory per block in bytes.
 * @warp_width: LAUNCH: lanes per warp (1..MDL_WARP_MAX_LANES).
 * @site: SITE: the id being named.
 * @name: PHASE_BEGIN, PHASE_END, SITE: a NUL-terminated name of at most MDL_NAME_MAX bytes,
 *   borrowed for the duration of the call.
 */
typedef struct {
  MdlMarkerKind kind;
  guint32 launch;
  guint32 block;
  guint32 grid_blocks;
  guint32 block_threads;
  guint32 shared_bytes;
  guint32 warp_width;
  guint16 site;
  const char *name;
} MdlMarker;

/**
 * MdlSink: where a source delivers its events. A plain struct of callbacks, like GSourceFuncs.
 * @batch: receives a batch (borrowed for the call); returns FALSE and sets @error on failure.
 * @marker: receives a marker (borrowed for the call); returns FALSE and sets @error on failure.
 * @data: passed back to both callbacks.
 * Once a callback fails, the source stops and reports the error.
 */
typedef struct {
  gboolean (*batch) (void *data, const MdlEventBatch *batch, GError **error);
  gboolean (*marker) (void *data, const MdlMarker *marker, GError **error);
  void *data;
} MdlSink;

/** mdl_cpu_kind_name: "read", "write", "modify", "ops" or "branch"; NULL for an invalid kind. */
MDL_API const char *mdl_cpu_kind_name (guint kind);
/** mdl_warp_op_name: "ld", "st", "atom", "alu", "branch", "bar", "jump", "shfl" or "vote"; NULL
 * for an invalid op. */
MDL_API const char *mdl_warp_op_name (guint op);
/** mdl_space_name: "none", "global", "shared" or "local"; NULL for an invalid space. */
MDL_API const char *mdl_space_name (guint space);
/** mdl_marker_kind_name: "launch", "barrier", "sync", "phase-begin", "phase-end" or "site". */
MDL_API const char *mdl_marker_kind_name (guint kind);

/**
 * mdl_warp_event_check: validates a warp event against the rules above (non-empty mask, @taken a
 * subset of @active and only on branches, space matching op, width of memory ops 1..64 bytes, stride
 * within its limit, lane addresses inside the batch, the atomic flags only on atomics and never
 * both).
 * @batch: the batch holding @w (for the lane address range).
 * @w: the event.
 * @warp_width: lanes per warp; lanes at or beyond it must be inactive.
 * @error: MDL_ERROR_FORMAT naming the broken rule.
 * Returns: TRUE when valid.
 */
MDL_API gboolean mdl_warp_event_check (const MdlEventBatch *batch, const MdlWarpEvent *w,
                                       guint warp_width, GError **error);

G_END_DECLS

#endif
