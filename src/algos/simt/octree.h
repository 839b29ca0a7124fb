/* Private to src/algos/simt: the octree partitioning of Cederman's load-balancing benchmark
 * (thesis ch. 3; ../shared/spec/gpu-quicksort-cederman.md §3) on the SIMT layer, and the
 * interface its four balancers fill (balance-static.c, balance-blocking.c, balance-lockfree.c,
 * balance-abp.c). The split of one task, the same under every balancer, is in octree.c; a
 * balancer says only how a block gets its next task and how it hands over the children.
 *
 * Schedule. The dynamic balancers run as their CUDA twins do: after the root's launch (one block,
 * one turn), one persistent launch of `blocks` blocks, each looping "get a task, split it, put its
 * children" until a get finds no task with the termination counter at n. The launch holds
 * `resident` blocks at once (MdlSimtLaunch.resident: the layer switches blocks after every memory
 * instruction), so a block spins on a lock another holds and CASes fail between blocks as on the
 * hardware; blocks beyond the resident ones start as resident ones exit, and find the work done.
 * The static list is launch-based in the thesis already: one launch of one block per task per
 * level, one turn each. */
#ifndef MDL_SIMT_OCTREE_H
#define MDL_SIMT_OCTREE_H

#include "algos/octree.h"
#include "algos/simt/simt-algo.h"

/* A task record in global memory: first particle, particle count, path (4 words). Queues and
 * deques hold task numbers + 1 (0 is "no task"). */
enum { TASK_START, TASK_COUNT, TASK_PATH_LO, TASK_PATH_HI, TASK_WORDS = 4 };

/* The global words every balancer shares: the termination counter (particles placed in leaves),
 * the count of adds that brought it to n, the task pool's and the leaf list's tops. */
enum { CTL_DONE, CTL_FINISHERS, CTL_TASKS, CTL_LEAVES, CTL_WORDS = 16 };

/* What a build counted (the algorithm's own counters, not the engines'). */
typedef struct {
  guint64 rounds;          /* launches after the root's */
  guint64 tasks;           /* tasks split */
  guint64 leaves;          /* leaves recorded */
  guint64 finishers;       /* adds to the termination counter that brought it to n */
  guint64 idle_turns;      /* turns of a block that found no task */
  guint64 cas_attempts;    /* the balancer's CAS instructions, per lane */
  guint64 cas_failures;    /* those that found another value than expected */
  guint64 steals;          /* ABP: tasks taken from another block's deque */
  guint64 get_cas;         /* lock-free queue: the dequeue's slot CASes */
  guint64 get_cas_failures;
  guint64 put_cas;         /* lock-free queue: the enqueue's slot CASes */
  guint64 put_cas_failures;
  guint64 get_slots;       /* lock-free queue: the slots the dequeue's scans read */
  guint64 put_slots;       /* lock-free queue: the slots the enqueue's scans read */
  guint64 max_tasks_block; /* the most tasks one block split */
} MdlOctreeStats;

typedef struct MdlBalancer MdlBalancer;

/* One build's state, shared by the host loop, the kernel and the balancer. */
typedef struct {
  const MdlBalancer *bal;
  guint threads, blocks, threshold, lazy;
  guint turns;             /* turns a block makes in this launch; 0: until the counter is at n */
  guint64 n;
  guint64 buf[2];          /* particle buffers (device addresses) */
  guint64 tasks, leaves, ctl;
  guint64 q;               /* the balancer's structure */
  guint64 q_words;         /* its size in 32-bit words */
  guint phase;             /* the balancer's host state (the static list's in array) */
  guint32 *host_ctl, *host_q;
  gboolean overflow;       /* a bounded structure (an ABP deque) ran out of slots */
  MdlOctreeStats *st;
  guint64 *per_block;      /* tasks split by each block */
} MdlOctreeRun;

/* A balancer (Cederman's §3.2-3.5). Its kernel parts run with thread 0 alone active (the thesis:
 * one thread of the block does the structure's operations).
 * @name: the registry name, "balance/NAME".
 * @dynamic: TRUE for a persistent kernel of `blocks` blocks, FALSE for the static list's launches
 *   of one block per task.
 * @lazy: TRUE when it has the `lazy` parameter (the lock-free queue's pointer step).
 * @words: the 32-bit words of its structure for @run (n, threshold, blocks set).
 * @seed: puts the root task (number 0) in the zeroed structure, from the host.
 * @get: thread 0's dequeue: returns the task number + 1, or 0 when it found none.
 * @put: thread 0's enqueue of task number @task.
 * @next: the static list's host, after a launch: the blocks of the next launch (0: the build is
 *   over); NULL for the dynamic ones (one persistent launch). */
struct MdlBalancer {
  const char *name;
  gboolean dynamic, lazy;
  guint64 (*words) (const MdlOctreeRun *run);
  void (*seed) (MdlOctreeRun *run, guint32 *q);
  guint32 (*get) (MdlSimtBlock *blk, MdlOctreeRun *run);
  void (*put) (MdlSimtBlock *blk, MdlOctreeRun *run, guint32 task);
  guint32 (*next) (MdlOctreeRun *run, guint32 *q);
};

/* Thread 0's memory instructions, one event each (the caller has narrowed the mask to thread 0):
 * a 4-byte load and store of @space, and an atomic whose old value is returned. */
guint32 mdl_octree_t0_ld (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSpace space, guint64 addr);
void mdl_octree_t0_st (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSpace space, guint64 addr,
                       guint32 v);
guint32 mdl_octree_t0_atom (MdlSimtBlock *blk, MdlOctreeRun *run, MdlSimtAtomOp op, guint64 addr,
                            guint32 v, guint32 compare);
/* The test of a loop that thread 0 runs alone (opened by mdl_simt_loop_begin()): one branch event;
 * returns @again. */
gboolean mdl_octree_t0_loop (MdlSimtBlock *blk, gboolean again);

/* The build: @n particles (filled in @gpu at @particles, MDL_PARTICLE_WORDS words each) split
 * under @bal with @threads threads per block, @blocks blocks of which @resident at once (0: all;
 * the dynamic balancers) under the schedule of @clock (NULL: round robin; MdlSimtLaunch.clock),
 * leaf threshold @threshold and lazy pointer step @lazy (the lock-free queue); returns the leaves
 * sorted by path in *@leaves (g_free) and the counters in @st. Errors: MDL_ERROR_PARAM for a bad
 * parameter, MDL_ERROR_MODEL when the tree breaks a rule (a leaf above the threshold whose cell
 * could split, a particle outside its leaf, the counter not reaching n exactly once). */
gboolean mdl_octree_build (MdlSimt *gpu, const MdlBalancer *bal, guint64 particles, guint64 n,
                           guint threads, guint blocks, guint resident,
                           const MdlSimtClock *clock, guint threshold, guint lazy,
                           MdlOctreeLeaf **leaves, guint64 *n_leaves, MdlOctreeStats *st,
                           GError **error);

/* The latency table of a dynamic balancer's clock parameters (MDL_OCTREE_BLOCKS_ROW) in *@clock
 * (mdl_simt_clock_free; NULL for clock=off). Errors: those of mdl_simt_clock_load(). */
gboolean mdl_octree_clock (const MdlParams *params, MdlSimtClock **clock, GError **error);

/* The body both entry points of a balancer's row share: particles of the `dist` parameter for
 * @seed, the build, its leaves checked against the reference, the checksum over the leaves. */
gboolean mdl_octree_body (const MdlBalancer *bal, const MdlParams *params, guint64 n, guint64 seed,
                          MdlRecorder *rec, guint64 *checksum, GError **error);

/* Both entry points of balancer row SYM, whose MdlBalancer is BAL. */
#define MDL_OCTREE_ENTRY_POINTS(sym, bal)                                                          \
  static gboolean sym##_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,  \
                              guint64 *checksum, GError **error)                                   \
  {                                                                                                \
    return mdl_octree_body (&bal, params, n, seed, rec, checksum, error);                          \
  }                                                                                                \
  MDL_SIMT_ENTRY_POINTS (sym, sym##_body)

/* The balancers. */
extern const MdlBalancer mdl_balancer_static, mdl_balancer_blocking, mdl_balancer_lockfree,
  mdl_balancer_abp;

/* The parameter rows every balancer has (dist, threads, threshold), and blocks, resident and the
 * schedule of the resident blocks (clock*) for the dynamic ones. */
#define MDL_OCTREE_COMMON_ROWS                                                                     \
  { "dist", MDL_PARAM_CHOICE, "uniform", NULL, 0, 0, MDL_PARTICLE_DIST_CHOICES, 0,                 \
    "particle set: " MDL_PARTICLE_DIST_CHOICES " (docs/models/balance-octree.md)" },              \
  { "threads", MDL_PARAM_UINT, "32", NULL, 8, 1024, NULL, 0, "threads per block (at least 8)" },  \
  { "threshold", MDL_PARAM_UINT, "20", NULL, 1, 1u << 20, NULL, 0,                                 \
    "the most particles a leaf holds (the thesis's 20)" }
#define MDL_OCTREE_BLOCKS_ROW                                                                      \
  { "blocks", MDL_PARAM_UINT, "32", NULL, 1, 65535, NULL, 0,                                       \
    "thread blocks of the persistent kernel" },                                                    \
  { "resident", MDL_PARAM_UINT, "0", NULL, 0, MDL_SIMT_MAX_RESIDENT, NULL, 0,                      \
    "blocks resident at once, interleaved (0: all of them; the occupancy engine's "              \
    "resident_blocks_max)" },                                                                     \
  { "clock", MDL_PARAM_STRING, "off", NULL, 0, 0, NULL, 0,                                         \
    "schedule of the resident blocks: off (round robin), spread (clocked, a synthetic per-SM "   \
    "table: clock_spread, clock_seed, clock_sms) or the path of a per-SM latency CSV "           \
    "(tools/atomic-sm-latency.cu's; simt-clock.h)" },                                            \
  { "clock_mode", MDL_PARAM_CHOICE, "all", NULL, 0, 0, "all|alone", 0,                            \
    "rows of the latency CSV: measured with every SM running or each SM alone" },               \
  { "clock_effect", MDL_PARAM_CHOICE, "issue", NULL, 0, 0, "issue|arrive", 0,                     \
    "when a clocked memory instruction acts on memory: as it issues, or as it arrives, half its " \
    "SM's latency later (simt-clock.h)" },                                                        \
  { "clock_spread", MDL_PARAM_UINT, "0", NULL, 0, 90, NULL, 0,                                    \
    "each SM's latencies scaled by a seeded factor in 1 +- this many percent (sensitivity only)" },\
  { "clock_jitter", MDL_PARAM_UINT, "0", NULL, 0, 90, NULL, 0,                                   \
    "each memory instruction's latency scaled by its own seeded factor in 1 +- this many percent " \
    "(sensitivity only)" },                                                                       \
  { "clock_seed", MDL_PARAM_UINT, "1", NULL, 0, 0, NULL, 0,                                        \
    "seed of clock_spread's and clock_jitter's factors" },                                        \
  { "clock_sms", MDL_PARAM_UINT, "132", NULL, 1, 65535, NULL, 0,                                  \
    "SMs of clock=spread's table (resident block i runs on SM i mod clock_sms)" },                \
  { "clock_issue_ps", MDL_PARAM_UINT, "0", NULL, 0, 1000000, NULL, 0,                              \
    "ps an instruction other than a global memory one costs, on every SM (0: the table's; "       \
    "clock=spread's memory instructions take 1000 ps)" }

#endif
