/* Private to src/simt: the layout of the simulated GPU and of the block being run. The public
 * MdlSimtBlock is the first member of SimtBlock, so a kernel's handle converts back for free. */
#ifndef MDL_SIMT_PRIVATE_H
#define MDL_SIMT_PRIVATE_H

#include <models/error.h>
#include <models/simt.h>

#include "simt/fiber.h"
#include "traces/batch-keep.h"

/* The deepest nesting of if, loop and predicate frames in one kernel. */
#define MDL_SIMT_MAX_DEPTH 64
/* The largest |stride| of an event in the strided form (the binary trace format's bound). */
#define MDL_SIMT_STRIDE_MAX (G_MAXINT64 / MDL_WARP_MAX_LANES)

typedef enum { SIMT_FRAME_IF, SIMT_FRAME_LOOP, SIMT_FRAME_PRED } SimtFrameKind;

typedef struct {
  SimtFrameKind kind;
  gboolean sync;            /* opened right after mdl_simt_bssy(): BSYNC at the join */
  gboolean shares_join;     /* opened after mdl_simt_join_outer(): arrivals count for the parent */
  gboolean saw_else;
  guint64 *saved_mask;      /* per warp: the masks before the frame opened */
  guint64 *saved_issue;
  guint64 *other;           /* IF: per warp, the lanes of the else side */
  guint64 *arrived;         /* sync frames: per warp, lanes whose BSYNC an inner frame emitted */
} SimtFrame;

typedef struct {
  guint8 *data;
  gsize cap;
} SimtChunk;

typedef struct {
  MdlSimtBlock pub;
  MdlSimt *gpu;
  guint32 launch;
  guint32 block_id;
  guint n_warps;
  guint64 *mask;            /* per warp: lanes for which the instruction takes effect */
  guint64 *issue;           /* per warp: lanes that issue it (differs under predication) */
  SimtFrame frames[MDL_SIMT_MAX_DEPTH];
  guint depth;
  gboolean bssy_pending;
  gboolean join_pending;
  guint machine;            /* open mdl_simt_machine_begin() scopes: events get MDL_WARP_MACHINE */
  guint atom_op;            /* the MdlSimtAtomOp of the atomic being issued */
  const guint64 *atom_cmp;  /* its compare values (CAS) */
  guint8 atom_flags;        /* MDL_WARP_ATOM_RED, MDL_WARP_ATOM_CAS of its events */
  guint64 cas_failed;       /* the warp's CAS lanes so far whose compare failed (lane bits) */
  guint64 *frame_masks;     /* MDL_SIMT_MAX_DEPTH x 4 x n_warps */
  guint8 *cond;             /* n_threads condition bytes */
  guint8 *local;            /* n_threads x local_bytes */
  guint32 shared_bytes;
  guint32 local_bytes;
  guint64 launch_threads;   /* threads in the whole launch, for the local interleave */
  guint cap_warps;
  guint cap_threads;
  GArray *arena;            /* SimtChunk: lane vectors, reset at every block */
  guint arena_chunk;
  gsize arena_used;
  /* Interleaved launches (resident >= 2) only: */
  guint slot;               /* its index among the resident blocks */
  gboolean live;            /* its fiber still has blocks to run */
  SimtFiber fiber;          /* the stack the slot's blocks run on */
} SimtBlock;

/* A block of batch memory: the layer's batches are slices of it, lent to the sinks
 * (MdlBatchKeep), so that a threaded pipeline keeps them rather than copying them. */
typedef struct {
  MdlBatchKeep keep;        /* first member: the hold converts back; the layer holds one reference */
  MdlWarpEvent *events;
  guint64 *lanes;
} SimtLend;

typedef struct {
  guint64 addr;             /* device address */
  gsize bytes;
  guint8 *data;
} SimtBuffer;

/* A live slot of the clocked schedule and its clock: when its next instruction issues. */
typedef struct {
  guint64 clock_ps;
  guint slot;
} SimtClockSlot;

/* An interleaved launch: the kernel, the next block to start, and the launcher's own stack, to
 * which the last slot to end switches back. */
typedef struct {
  SimtFiber launcher;
  guint32 next_block;       /* the next block of the grid to start */
  guint32 n_blocks;
  MdlSimtKernel kernel;
  void *args;
  const MdlSimtClock *clock; /* the clocked schedule's latencies; NULL: round robin */
  guint64 turn_events;      /* clocked: the GPU's events when the running slot's turn began */
  SimtClockSlot *heap;      /* clocked: the live slots, a binary heap by (clock, slot) */
  guint n_heap;
  gboolean arrive;          /* clocked, MDL_SIMT_EFFECT_ARRIVE: a slot's clock is when its pending
                             * memory instruction acts, and the switch comes before it */
  guint64 *ready_ps;        /* arrive: per slot, when it may issue its next instruction */
  guint64 jitter_state;     /* clocked with jitter: the generator's state (0: no jitter) */
} SimtSchedule;

struct MdlSimt {
  MdlSink sink;
  gboolean has_sink;
  guint warp_width;
  guint16 site;
  guint32 n_launches;
  guint64 n_events;
  GArray *bufs;             /* SimtBuffer, in address order */
  guint last_buf;
  guint64 next_addr;
  GPtrArray *lends;         /* SimtLend *, every block of batch memory made (its hold owns it) */
  SimtLend *lend;           /* the block the pending batch is in */
  MdlWarpEvent *events;     /* the pending batch: its events, in @lend */
  gsize n_events_pending;
  guint64 *lane_addrs;      /* its lane addresses, in @lend */
  gsize n_lane_addrs;
  GError *error;            /* the kernel's first fault */
  GError *sink_error;       /* the sink's first failure */
  SimtBlock blk;             /* the block of a sequential launch */
  SimtBlock *cur;           /* the block running now (errors name it) */
  SimtBlock **slots;        /* an interleaved launch's resident blocks, kept between launches */
  guint n_slots;
  guint n_slots_running;    /* resident blocks of the interleaved launch running now (0: none) */
  SimtSchedule sched;
};

/* simt.c: sizes @blk's arrays for @shape (kept from launch to launch; @blk->arena exists). */
void mdl_simt_block_setup (MdlSimt *gpu, SimtBlock *blk, const MdlSimtLaunch *shape);
/* simt.c: runs block @block_id of the launch @blk was set up for, from its start to its end. */
void mdl_simt_block_run (SimtBlock *blk, guint32 block_id, MdlSimtKernel kernel, void *args);

/* schedule.c: runs the blocks of launch @launch of shape @s (resident >= 2), interleaved. */
void mdl_simt_run_interleaved (MdlSimt *gpu, const MdlSimtLaunch *s, guint32 launch,
                               MdlSimtKernel kernel, void *args);
/* schedule.c: after global memory instruction @op (an MdlWarpOp: load, store, atomic) of @blk in
 * an interleaved launch: switches to the next resident block (round robin, or the earliest clock)
 * and returns when the turn comes back to @blk. */
void mdl_simt_yield (SimtBlock *blk, guint op);
/* schedule.c: before global memory instruction @op of @blk when ops act at their arrival
 * (SimtSchedule.arrive): sets the slot's clock to when @op will act and returns when that is the
 * earliest, so that @op sees every instruction that acts before it and none after. */
void mdl_simt_arrive (SimtBlock *blk, guint op);

#endif
