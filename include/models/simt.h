/* libmodels: the SIMT layer, for writing GPU-style algorithms in plain C.
 *
 * A simulated GPU (MdlSimt) owns global memory with real data and runs kernels: a launch is a grid
 * of blocks, a block is a set of threads grouped into warps of warp_width lanes. A kernel is a C
 * function called once per block; every SIMT call it makes is one instruction executed by every
 * warp of the block that has an active lane, in lock step: all lanes of a warp read their operands
 * before any lane writes. Each instruction becomes one MdlWarpEvent per executing warp (loads,
 * stores, atomics, branches, jumps, ALU work, barrier arrivals), delivered in batches to a sink, so
 * the engines count exactly what the kernel issues. Running the warps of a block one instruction
 * at a time, in warp order, is one legal schedule of the hardware; it differs from the hardware
 * only for kernels that race, which are wrong on the hardware too.
 *
 * Divergence: an active-mask stack. mdl_simt_if() records a branch with its active and taken
 * masks and runs the if side under the taken lanes; mdl_simt_else() runs the other lanes (and
 * records the jump over the else side that nvcc emits, see below); mdl_simt_endif() restores the
 * mask. Loops test a condition per lane (mdl_simt_loop_test()); predication narrows the mask
 * without a branch, as nvcc does for short conditional code.
 *
 * Machine branches: nvcc lays an if/else out as a conditional branch to the else side, the if
 * side, then an unconditional jump over the else side, which only the lanes that ran the if side
 * execute. The layer emits that jump as an MDL_WARP_JUMP event so that machine-level counts (the
 * divergence engine's count=sass, Nsight Compute's branch counters) come out right; source-level
 * counts ignore it. Memory spaces: global (device addresses of mdl_simt_alloc()), shared (byte
 * offsets into the block's shared memory) and local (byte offsets into the thread's own local
 * memory; events carry the interleaved device address, see mdl_simt_local_addr()). */
#ifndef MODELS_SIMT_H
#define MODELS_SIMT_H

#include <glib.h>
#include <stdint.h>
#include <models/api.h>
#include <models/event.h>
#include <models/simt-clock.h>

G_BEGIN_DECLS

/** MdlSimt: a simulated GPU; opaque. */
typedef struct MdlSimt MdlSimt;

/**
 * MdlSimtBlock: the block a kernel is running. The fields are read-only for the kernel.
 * @n_threads: threads in the block (@dim_x × @dim_y).
 * @dim_x: threads per block along x (threadIdx.x runs over 0..@dim_x−1).
 * @dim_y: threads per block along y.
 * @idx_x: this block's index along x (blockIdx.x).
 * @idx_y: this block's index along y.
 * @grid_x: blocks along x.
 * @grid_y: blocks along y.
 * @warp_width: lanes per warp.
 * @shared: this block's shared memory (host view; the kernel may read it directly, without events,
 *   for instance to check a result).
 * @active: per warp, the lanes under the current mask (bit l: lane l), what MDL_SIMT_EACH walks.
 * Thread t of the block (0 ≤ t < @n_threads) has threadIdx.x = t mod @dim_x, threadIdx.y =
 * t / @dim_x; it is lane t mod @warp_width of warp t / @warp_width.
 */
typedef struct MdlSimtBlock MdlSimtBlock;
struct MdlSimtBlock {
  guint32 n_threads;
  guint32 dim_x;
  guint32 dim_y;
  guint32 idx_x;
  guint32 idx_y;
  guint32 grid_x;
  guint32 grid_y;
  guint32 warp_width;
  guint8 *shared;
  const guint64 *active;
};

/** MdlSimtKernel: a kernel, called once per block with the launch's @args. */
typedef void (*MdlSimtKernel) (MdlSimtBlock *block, void *args);

/**
 * MdlSimtLaunch: the shape of a launch.
 * @grid_x: blocks along x (at least 1).
 * @grid_y: blocks along y (0 is taken as 1).
 * @block_x: threads per block along x (at least 1).
 * @block_y: threads per block along y (0 is taken as 1).
 * @shared_bytes: shared memory per block, zero-filled at the start of each block.
 * @local_bytes: local memory per thread, zero-filled at the start of each block.
 * @resident: the blocks resident at once. 0 or 1 (the default): one block at a time, each to its
 *   end, in order. R ≥ 2: the first R blocks start together and the layer switches from one
 *   resident block to the next, round robin in slot order, after every global memory instruction
 *   (load, store, atomic) of a block, so that blocks that spin on each other's words (a lock, a
 *   persistent kernel's queue) see each other's updates as on the hardware; a block that ends
 *   frees its slot for the next block of the grid. The schedule is deterministic: the same
 *   launch gives the same event stream. Each resident block runs on a stack of its own (2 MiB,
 *   with a guard page), all on the launching thread, one at a time; the kernel must not keep
 *   per-block state in static or thread-local storage. Take R from the occupancy calculator
 *   (SMs × blocks per SM, the `occupancy` engine's resident_blocks_max).
 * @clock: (nullable) with @resident ≥ 2, the clocked schedule's latency table (borrowed for the
 *   call; simt-clock.h): each resident block has a clock that its memory instructions advance by
 *   their latency on its SM, and the block with the earliest clock takes the next turn (ties: the
 *   lowest slot). NULL (the default): the round robin above.
 */
typedef struct {
  guint32 grid_x;
  guint32 grid_y;
  guint32 block_x;
  guint32 block_y;
  guint32 shared_bytes;
  guint32 local_bytes;
  guint32 resident;
  const MdlSimtClock *clock;
} MdlSimtLaunch;

/** MDL_SIMT_MAX_THREADS: the most threads a block may have. */
#define MDL_SIMT_MAX_THREADS 1024
/** MDL_SIMT_MAX_SHARED: the most shared memory a block may have (bytes). */
#define MDL_SIMT_MAX_SHARED (1u << 20)
/** MDL_SIMT_MAX_RESIDENT: the most blocks a launch may hold resident at once (a stack each). */
#define MDL_SIMT_MAX_RESIDENT 2048
/** MDL_SIMT_GLOBAL_BASE: the device address of the first global allocation. */
#define MDL_SIMT_GLOBAL_BASE G_GUINT64_CONSTANT (0x700000000000)
/** MDL_SIMT_LOCAL_BASE: the device address where the interleaved local memory window starts. */
#define MDL_SIMT_LOCAL_BASE G_GUINT64_CONSTANT (0x7e0000000000)
/** MDL_SIMT_ALIGN: every global allocation starts on a multiple of this many bytes, as cudaMalloc
 * guarantees at least that much. */
#define MDL_SIMT_ALIGN 256

/**
 * mdl_simt_new: a simulated GPU.
 * @sink: (nullable) where warp events and markers go (copied; its data must outlive the GPU);
 *   NULL runs kernels without producing events (the native build of a SIMT algorithm).
 * @warp_width: lanes per warp, 1..MDL_WARP_MAX_LANES (32 on NVIDIA hardware).
 * Returns: (transfer full) the GPU.
 */
MDL_API MdlSimt *mdl_simt_new (const MdlSink *sink, guint warp_width);

/** mdl_simt_free: frees the GPU and its memory; NULL is fine. */
MDL_API void mdl_simt_free (MdlSimt *gpu);

/**
 * mdl_simt_alloc: allocates zero-filled global memory.
 * @bytes: at least 1, at most 4 GiB.
 * @error: MDL_ERROR_PARAM when @bytes is out of range or the host cannot hold it.
 * Returns: the device address (a multiple of MDL_SIMT_ALIGN), or 0 on error.
 */
MDL_API guint64 mdl_simt_alloc (MdlSimt *gpu, gsize bytes, GError **error);

/**
 * mdl_simt_host: the host view of global memory, for filling inputs and reading results.
 * @addr: a device address inside an allocation.
 * Returns: (transfer none) a pointer valid while @gpu lives, or NULL when @addr is not allocated.
 */
MDL_API void *mdl_simt_host (MdlSimt *gpu, guint64 addr);

/**
 * mdl_simt_launch: runs @kernel over the grid: a launch marker, every block in order (block
 * y-major, then x; interleaved when @shape's resident is 2 or more), and a global sync marker at
 * the end (the kernel boundary).
 * @shape: the launch shape.
 * @args: passed to every call of @kernel.
 * @error: MDL_ERROR_PARAM for a bad shape; MDL_ERROR_MODEL for a kernel that touched memory out of
 *   bounds or misused the mask stack (naming the launch, block and thread); whatever the sink
 *   reported.
 * Returns: FALSE on error; the GPU then refuses further launches.
 */
MDL_API gboolean mdl_simt_launch (MdlSimt *gpu, const MdlSimtLaunch *shape, MdlSimtKernel kernel,
                                  void *args, GError **error);

/** mdl_simt_set_site: later instructions carry @site (see MdlWarpEvent). */
MDL_API void mdl_simt_set_site (MdlSimt *gpu, guint16 site);

/** mdl_simt_n_events: warp instruction events produced so far (one per executing warp and
 * instruction; counted also when there is no sink). */
MDL_API guint64 mdl_simt_n_events (const MdlSimt *gpu);

/* ---- inside a kernel ---- */

/**
 * mdl_simt_reg: a lane vector: @words 64-bit words per thread of the block, zero-filled, lane t's
 * words at [t × @words, (t+1) × @words). Lives until the block ends (an arena per block).
 * Cost: a bump allocation.
 */
MDL_API guint64 *mdl_simt_reg (MdlSimtBlock *block, guint words);

/** MdlSimtRegMark: where a block's lane vectors stand (mdl_simt_reg_mark()). */
typedef struct {
  guint chunk;
  gsize used;
} MdlSimtRegMark;

/** mdl_simt_reg_mark: the lane vectors allocated so far, for mdl_simt_reg_release(). */
MDL_API MdlSimtRegMark mdl_simt_reg_mark (MdlSimtBlock *block);

/**
 * mdl_simt_reg_release: frees every lane vector allocated since @mark (they must not be used
 * after), so that a loop of a long-running block reuses its temporaries' memory, which stays in
 * the cache, where the arena would grow by them at every turn.
 */
MDL_API void mdl_simt_reg_release (MdlSimtBlock *block, MdlSimtRegMark mark);

/**
 * mdl_simt_cond: the block's condition vector, one byte per thread, for the next mdl_simt_if(),
 * mdl_simt_loop_test() or mdl_simt_pred_begin(), which read it once. Set the active threads' bytes
 * (MDL_SIMT_EACH); the others are ignored.
 */
MDL_API guint8 *mdl_simt_cond (MdlSimtBlock *block);

/** mdl_simt_active: TRUE when thread @t runs under the current mask. */
MDL_API gboolean mdl_simt_active (const MdlSimtBlock *block, guint t);

/**
 * MDL_SIMT_EACH_RUN: iterates over the runs of consecutive threads active under the current mask,
 * in increasing order: @first is the run's first thread, @n its length (1 to the warp width; a
 * whole warp of 32 for a full mask). For lane loops that want a straight loop over a run, which
 * the compiler can vectorize (a helper whose loop takes restrict pointers, called with the
 * constant 32 for a whole warp). Emits nothing, as MDL_SIMT_EACH. The body may `continue` (to the
 * next run) but not `break`.
 * Cost: per warp, two bit scans per run.
 */
#define MDL_SIMT_EACH_RUN(block, first, n)                                                         \
  for (guint first##_warp_ = 0; first##_warp_ * (block)->warp_width < (block)->n_threads;        \
       first##_warp_++)                                                                           \
    for (guint64 first##_lanes_ = (block)->active[first##_warp_], first##_above_ = 0;             \
         first##_lanes_ != 0                                                                      \
         && (first##_above_ = first##_lanes_ + (first##_lanes_ & -first##_lanes_), TRUE);        \
         first##_lanes_ &= first##_above_)                                                        \
      for (guint first = first##_warp_ * (block)->warp_width                                     \
                         + (guint) __builtin_ctzll (first##_lanes_),                              \
                 n = (first##_above_ ? (guint) __builtin_ctzll (first##_above_) : 64u)            \
                     - (guint) __builtin_ctzll (first##_lanes_),                                  \
                 first##_once_ = 1;                                                               \
           first##_once_; first##_once_ = 0)

/**
 * MDL_SIMT_EACH: iterates @t over the threads active under the current mask, in increasing order,
 * for the lane-wise work between instructions (address and value computation). It emits nothing:
 * account for the machine instructions it stands for with mdl_simt_alu(). The body may `continue`
 * but not `break` (it is MDL_SIMT_EACH_RUN and the lanes of each run, so that a block of 1024
 * threads with one active lane costs 32 steps, not 1024, and a run of lanes is a plain counted
 * loop, with no bit scan per lane, which the compiler may unroll or vectorize).
 * Cost: per warp, two bit scans per run of active lanes (one for a full warp).
 */
#define MDL_SIMT_EACH(block, t)                                                                    \
  MDL_SIMT_EACH_RUN (block, t##_run_, t##_n_)                                                      \
    for (guint t = t##_run_, t##_end_ = t##_run_ + t##_n_; t < t##_end_; t++)

/**
 * mdl_simt_ld: a load of @width bytes per active thread from @space.
 * @addr: per-thread addresses (global: device address; shared: byte offset; local: byte offset in
 *   the thread's local memory).
 * @width: 1, 2, 4, 8 or 16.
 * @dst: a lane vector of 1 word per thread (@width ≤ 8, zero-extended little-endian) or 2 words
 *   (@width 16: bytes 0..7, then 8..15).
 * An address out of bounds or not aligned to @width fails the launch (MDL_ERROR_MODEL).
 */
MDL_API void mdl_simt_ld (MdlSimtBlock *block, MdlSpace space, guint width, const guint64 *addr,
                          guint64 *dst);

/** mdl_simt_st: a store; as mdl_simt_ld() with @src read. When several lanes of a warp store to
 * the same bytes, the highest lane's value stays (CUDA leaves it unspecified which). */
MDL_API void mdl_simt_st (MdlSimtBlock *block, MdlSpace space, guint width, const guint64 *addr,
                          const guint64 *src);

/** mdl_simt_atom_add: an atomic add of 4-byte words (@width 4) or 8-byte words (8): lanes apply
 * in lane order; @old (nullable) receives each lane's old value. The same as mdl_simt_atom() with
 * MDL_SIMT_ATOM_ADD, except that a NULL @old keeps the event a returning atomic (no
 * MDL_WARP_ATOM_RED), as it always did. */
MDL_API void mdl_simt_atom_add (MdlSimtBlock *block, MdlSpace space, guint width,
                                const guint64 *addr, const guint64 *val, guint64 *old);

/**
 * MdlSimtAtomOp: what an atomic does to the word at its address, old the word before, v the lane's
 * operand, c its compare value (all of @width bytes; MIN and MAX compare as signed integers, UMIN
 * and UMAX as unsigned ones, as CUDA's atomicMin/atomicMax on int and unsigned).
 * @MDL_SIMT_ATOM_ADD: old + v (atomicAdd; wraps).
 * @MDL_SIMT_ATOM_EXCH: v (atomicExch).
 * @MDL_SIMT_ATOM_CAS: v when old == c, else old (atomicCAS).
 * @MDL_SIMT_ATOM_MIN: signed min (old, v).
 * @MDL_SIMT_ATOM_MAX: signed max (old, v).
 * @MDL_SIMT_ATOM_UMIN: unsigned min (old, v).
 * @MDL_SIMT_ATOM_UMAX: unsigned max (old, v).
 * @MDL_SIMT_ATOM_AND: old & v.
 * @MDL_SIMT_ATOM_OR: old | v.
 * @MDL_SIMT_ATOM_XOR: old ^ v.
 */
typedef enum {
  MDL_SIMT_ATOM_ADD = 0,
  MDL_SIMT_ATOM_EXCH,
  MDL_SIMT_ATOM_CAS,
  MDL_SIMT_ATOM_MIN,
  MDL_SIMT_ATOM_MAX,
  MDL_SIMT_ATOM_UMIN,
  MDL_SIMT_ATOM_UMAX,
  MDL_SIMT_ATOM_AND,
  MDL_SIMT_ATOM_OR,
  MDL_SIMT_ATOM_XOR,
} MdlSimtAtomOp;

/**
 * mdl_simt_atom: an atomic read-modify-write of @width bytes per active thread, one
 * MDL_WARP_ATOMIC event per warp. The lanes of a warp apply one after the other in lane order,
 * and the warps of the block in warp order (a legal order of the hardware, which leaves the order
 * unspecified), so each lane's old value is the word as the lanes before it left it.
 * @space: MDL_SPACE_GLOBAL or MDL_SPACE_SHARED (CUDA has no local atomics).
 * @op: an MdlSimtAtomOp.
 * @width: 4 or 8.
 * @addr: per-thread addresses, aligned to @width (as mdl_simt_ld()).
 * @operand: per-thread operands v (the low @width bytes count).
 * @compare: (nullable) per-thread compare values c; required for MDL_SIMT_ATOM_CAS, ignored
 *   otherwise.
 * @old: (nullable) receives each thread's old value (zero-extended). NULL is an atomic whose
 *   result is unused: the event carries MDL_WARP_ATOM_RED, as nvcc then emits RED for global
 *   memory (not for EXCH and CAS, which have no reduction form and stay ATOMs).
 * A bad space, width, op or address, or a CAS without @compare, fails the launch
 * (MDL_ERROR_MODEL). Cost: one pass over the active lanes per warp.
 */
MDL_API void mdl_simt_atom (MdlSimtBlock *block, MdlSpace space, MdlSimtAtomOp op, guint width,
                            const guint64 *addr, const guint64 *operand, const guint64 *compare,
                            guint64 *old);

/**
 * MdlSimtShflMode: where a shuffle lane reads (CUDA's __shfl_*_sync). Lanes form segments of
 * `width` consecutive lanes; l is the lane's index in its segment, s the lane's selector.
 * @MDL_SIMT_SHFL_IDX: lane (s mod width) of the segment (__shfl_sync).
 * @MDL_SIMT_SHFL_UP: l − s when l ≥ s, else the lane itself (__shfl_up_sync).
 * @MDL_SIMT_SHFL_DOWN: l + s when l + s < width, else the lane itself (__shfl_down_sync).
 * @MDL_SIMT_SHFL_XOR: the warp lane lane ^ s when it lies in this segment or an earlier one,
 *   else the lane itself (__shfl_xor_sync).
 */
typedef enum {
  MDL_SIMT_SHFL_IDX = 0,
  MDL_SIMT_SHFL_UP,
  MDL_SIMT_SHFL_DOWN,
  MDL_SIMT_SHFL_XOR,
} MdlSimtShflMode;

/**
 * mdl_simt_shfl: a warp shuffle of 4-byte values: each active thread gets the low 32 bits of @src
 * of the lane that @mode and its selector name, all lanes reading before any writes (so @dst may
 * be @src). One MDL_WARP_SHFL event per warp with active lanes; no memory is touched. A lane that
 * reads an inactive lane gets that lane's register as it is (CUDA leaves the value undefined).
 * @mode: an MdlSimtShflMode.
 * @width: the segment width, a power of two from 1 to the warp width.
 * @src: the values, one word per thread.
 * @sel: per-thread selectors (source lane, delta or lane mask).
 * @dst: receives the values of the active threads.
 * A bad mode or width fails the launch (MDL_ERROR_MODEL).
 */
MDL_API void mdl_simt_shfl (MdlSimtBlock *block, MdlSimtShflMode mode, guint width,
                            const guint64 *src, const guint64 *sel, guint64 *dst);

/**
 * MdlSimtVoteMode: what a warp vote returns to each active lane (CUDA's __ballot_sync,
 * __any_sync, __all_sync over the lanes active now).
 * @MDL_SIMT_VOTE_BALLOT: the mask of the active lanes whose predicate holds (bit l: lane l).
 * @MDL_SIMT_VOTE_ANY: 1 when the predicate holds for some active lane, else 0.
 * @MDL_SIMT_VOTE_ALL: 1 when it holds for every active lane, else 0.
 */
typedef enum {
  MDL_SIMT_VOTE_BALLOT = 0,
  MDL_SIMT_VOTE_ANY,
  MDL_SIMT_VOTE_ALL,
} MdlSimtVoteMode;

/**
 * mdl_simt_vote: a warp vote on @pred (per thread, nonzero is true): one MDL_WARP_VOTE event per
 * warp with active lanes, and the result in @dst of every active thread (@dst may be @pred).
 * A bad mode fails the launch (MDL_ERROR_MODEL).
 */
MDL_API void mdl_simt_vote (MdlSimtBlock *block, MdlSimtVoteMode mode, const guint64 *pred,
                            guint64 *dst);

/** mdl_simt_alu: @n ALU (non-memory, non-branch) instructions under the current mask. */
MDL_API void mdl_simt_alu (MdlSimtBlock *block, guint n);

/**
 * mdl_simt_machine_begin: the instructions emitted until the matching mdl_simt_machine_end() are
 * the machine's, not the algorithm's (MDL_WARP_MACHINE): what the CUDA twin's SASS has beyond the
 * algorithm as its paper writes it (address arithmetic, loop control). The hardware engines count
 * them, the abstract models skip them. Scopes nest; a block starts outside any.
 */
MDL_API void mdl_simt_machine_begin (MdlSimtBlock *block);
/** mdl_simt_machine_end: closes the innermost mdl_simt_machine_begin() scope. */
MDL_API void mdl_simt_machine_end (MdlSimtBlock *block);

/**
 * mdl_simt_if: a conditional branch on mdl_simt_cond(): one branch event per warp with active
 * lanes (taken: the lanes whose condition holds), then the if side runs under the taken lanes.
 * Must be closed by mdl_simt_endif(), with at most one mdl_simt_else() between.
 */
MDL_API void mdl_simt_if (MdlSimtBlock *block);

/** mdl_simt_if_range: mdl_simt_if() on the condition @from ≤ t < @to of each thread t, without
 * the condition bytes (see mdl_simt_pred_range()). */
MDL_API void mdl_simt_if_range (MdlSimtBlock *block, guint64 from, guint64 to);

/** mdl_simt_else: the else side: a jump event for every warp in which some lane ran the if side,
 * then the lanes that did not take the branch run. */
MDL_API void mdl_simt_else (MdlSimtBlock *block);

/** mdl_simt_endif: closes the innermost mdl_simt_if(); the mask before it is back. */
MDL_API void mdl_simt_endif (MdlSimtBlock *block);

/**
 * mdl_simt_loop_begin: opens a loop: the lanes active now enter it. Use as
 * `mdl_simt_loop_begin (b); while (mdl_simt_loop_test (b)) { ... }` (tested at the top) or
 * `mdl_simt_loop_begin (b); do { ... } while (mdl_simt_loop_test (b));` (at the bottom, as nvcc
 * rotates loops whose first test it can prove). No C `break` out of such a loop.
 */
MDL_API void mdl_simt_loop_begin (MdlSimtBlock *block);

/**
 * mdl_simt_loop_test: the loop's conditional branch on mdl_simt_cond(): one branch event per warp
 * with lanes still in the loop (taken: the lanes that go round again); lanes whose condition fails
 * leave the loop.
 * Returns: TRUE while some lane is still in the loop; on FALSE the loop is closed and the mask
 * before mdl_simt_loop_begin() is back.
 */
MDL_API gboolean mdl_simt_loop_test (MdlSimtBlock *block);

/** mdl_simt_pred_begin: predication: narrows the mask to the lanes whose mdl_simt_cond() holds,
 * with no branch event (what nvcc does with a short if body). */
MDL_API void mdl_simt_pred_begin (MdlSimtBlock *block);

/**
 * mdl_simt_pred_range: predication to the threads @from ≤ t < @to: the same as
 * mdl_simt_pred_begin() with every active thread's mdl_simt_cond() byte set to (@from ≤ t < @to),
 * without the condition bytes (the commonest predicate, "lanes in range", costs bit operations per
 * warp rather than a byte per thread written and read back). Closed by mdl_simt_pred_end().
 */
MDL_API void mdl_simt_pred_range (MdlSimtBlock *block, guint64 from, guint64 to);

/** mdl_simt_pred_end: closes the innermost mdl_simt_pred_begin() or mdl_simt_pred_range(). */
MDL_API void mdl_simt_pred_end (MdlSimtBlock *block);

/**
 * mdl_simt_bssy: the next mdl_simt_if() or mdl_simt_loop_begin() is wrapped in a convergence
 * barrier, as nvcc wraps a branch that may diverge (BSSY before it, BSYNC at the join): emits the
 * BSSY now, as one ALU instruction, and then one BSYNC ALU instruction for each group of lanes
 * that reaches the join together (both sides of a divergent if/else, each group of lanes leaving
 * a loop). Only twins that mirror SASS need it.
 */
MDL_API void mdl_simt_bssy (MdlSimtBlock *block);

/** mdl_simt_join_outer: the next mdl_simt_if() joins where the enclosing BSSY frame joins (nvcc
 * then jumps straight to the outer BSYNC): its lanes' BSYNCs are emitted as they arrive and count
 * for the outer frame, which emits none for them again. No instruction of its own. */
MDL_API void mdl_simt_join_outer (MdlSimtBlock *block);

/** mdl_simt_exit: the lanes active now leave the kernel (a predicated EXIT): one ALU instruction
 * issued by every issuing lane, then those lanes are gone from every mask. */
MDL_API void mdl_simt_exit (MdlSimtBlock *block);

/**
 * mdl_simt_phase_begin: marks the start of phase @name in the GPU's stream, after every
 * instruction issued so far. Use it rather than mdl_recorder_phase_begin() inside a kernel: the
 * layer batches warp events, and a marker sent past it would reach the sink before them. Without
 * a sink it does nothing.
 * @name: at most MDL_NAME_MAX bytes; borrowed for the call.
 */
MDL_API void mdl_simt_phase_begin (MdlSimtBlock *block, const char *name);

/** mdl_simt_phase_end: marks the end of the innermost phase, which must be @name; as
 * mdl_simt_phase_begin(). */
MDL_API void mdl_simt_phase_end (MdlSimtBlock *block, const char *name);

/** mdl_simt_sync: __syncthreads(): a barrier arrival event per warp, then the block barrier
 * marker. Must be called with every thread of the block active. */
MDL_API void mdl_simt_sync (MdlSimtBlock *block);

/**
 * mdl_simt_local_addr: the device address of local byte @offset of thread @t, as events carry it.
 * Local memory is interleaved word by word across the threads of the launch (consecutive 4-byte
 * words belong to consecutive threads: CUDA C Programming Guide, "Device Memory Accesses", local
 * memory), so a warp reading the same offset touches consecutive words.
 */
MDL_API guint64 mdl_simt_local_addr (const MdlSimtBlock *block, guint t, guint64 offset);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlSimt, mdl_simt_free)

G_END_DECLS

#endif
