/* The SIMT layer (include/models/simt.h): a simulated GPU that runs C kernels block by block and
 * turns every instruction of every warp into an MdlWarpEvent.
 *
 * Semantics, stated once:
 *  - A block runs one instruction at a time for all its warps, warp 0 first; within a warp all
 *    lanes read their operands before any lane writes (a store's lanes write in lane order, so
 *    the highest lane wins when several hit the same bytes).
 *  - Two masks per warp: @issue, the lanes that issue the instruction (what Nsight Compute's
 *    thread counts see), and @mask, the lanes for which it takes effect. They differ only under
 *    predication, where nvcc issues the instruction for every lane and the predicate switches some
 *    off: ALU, branch and barrier events carry @issue, memory events carry @mask (an address exists
 *    only for a lane that accesses memory), and a warp whose lanes are all predicated off produces
 *    no memory event (an event's mask is never empty).
 *  - The mask stack holds one frame per open if, loop or predicate; a frame saves both masks.
 * Memory: global allocations in a sorted array (one-entry cache in front of a binary search),
 * shared and local memory per block. Out-of-bounds or misaligned accesses stop the launch with an
 * error naming the thread; the kernel runs on with loads returning 0 and stores dropped. */
#include "simt/simt-private.h"
#include "core/clones.h"

#include <stdarg.h>
#include <string.h>
#ifdef G_OS_UNIX
#include <sys/mman.h>
#endif

/* GCC and clang vector types for whole warps of 32 lanes: the 4-byte words of a warp widened to
 * its 8-byte lane registers four at a time, and narrowed back for a store; and four lane addresses
 * a step in the scans, one register in the AVX2 clones of mdl_simt_ld() and mdl_simt_st()
 * (core/clones.h), two in the baseline build. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_convertvector) && __has_builtin(__builtin_shufflevector)
#define SIMT_VECTORS 1
typedef guint32 SimtU32x4 __attribute__ ((vector_size (16)));
typedef guint64 SimtU64x4 __attribute__ ((vector_size (32)));
typedef guint64 SimtU64x2 __attribute__ ((vector_size (16)));

/* The OR and the AND of the four lanes of *@v: two shuffles and two ORs (or ANDs); GCC took each
 * lane out on its own, in eight instructions. */
static inline guint64
simt_or4 (const SimtU64x4 *v)
{
  SimtU64x4 x = *v | __builtin_shufflevector (*v, *v, 2, 3, 0, 1);
  x |= __builtin_shufflevector (x, x, 1, 0, 3, 2);
  return x[0];
}

static inline guint64
simt_and4 (const SimtU64x4 *v)
{
  SimtU64x4 x = *v & __builtin_shufflevector (*v, *v, 2, 3, 0, 1);
  x &= __builtin_shufflevector (x, x, 1, 0, 3, 2);
  return x[0];
}
#endif
#endif

/* A batch: up to 4096 events and 8 lane addresses per event (485 KiB), sent when either is
 * full or at a marker. */
#define BATCH_EVENTS 4096
#define BATCH_LANES ((gsize) BATCH_EVENTS * 8)
/* A block of batch memory holds four full batches (1.9 MiB), or many more short ones: a batch a
 * sink keeps is followed by the next in the same block, whose room never cuts a batch short (so a
 * sink sees the same batches whether it keeps them or not), and one short batch does not hold a
 * block of its own. */
#define LEND_EVENTS (4 * BATCH_EVENTS)
#define LEND_LANES (4 * BATCH_LANES)
#define ARENA_CHUNK ((gsize) 256 << 10)

/* ---- batch memory ---- */

static void
lend_free (MdlBatchKeep *keep)
{
  SimtLend *lend = (SimtLend *) keep;
  g_free (lend->events);
  g_free (lend->lanes);
  g_free (lend);
}

/* A new block of batch memory, held by the layer. */
static SimtLend *
lend_new (MdlSimt *gpu)
{
  SimtLend *lend = g_new (SimtLend, 1);
  lend->keep = (MdlBatchKeep) { .refs = 1, .free_func = lend_free };
  lend->events = g_new (MdlWarpEvent, LEND_EVENTS);
  lend->lanes = g_new (guint64, LEND_LANES);
  g_ptr_array_add (gpu->lends, lend);
  return lend;
}

/* The pending batch, empty, at @events and @lanes of @lend. */
static void
batch_place (MdlSimt *gpu, SimtLend *lend, MdlWarpEvent *events, guint64 *lanes)
{
  gpu->lend = lend;
  gpu->events = events;
  gpu->lane_addrs = lanes;
  gpu->n_events_pending = 0;
  gpu->n_lane_addrs = 0;
}

/* After a batch went to the sink: where the next one goes. While no sink holds the block, at its
 * start again (it stays in the cache); else right after the batch just sent, or, with less than a
 * full batch's room left, at the start of a block no sink holds any more, or of a new one (the
 * sinks that keep batches bound how many are held: a threaded pipeline's queue). */
static void
batch_next (MdlSimt *gpu)
{
  SimtLend *lend = gpu->lend;
  MdlWarpEvent *events = gpu->events + gpu->n_events_pending;
  guint64 *lanes = gpu->lane_addrs + gpu->n_lane_addrs;
  if (mdl_batch_keep_is_free (&lend->keep))
    {
      batch_place (gpu, lend, lend->events, lend->lanes);
      return;
    }
  if (events + BATCH_EVENTS <= lend->events + LEND_EVENTS
      && lanes + BATCH_LANES <= lend->lanes + LEND_LANES)
    {
      batch_place (gpu, lend, events, lanes);
      return;
    }
  for (guint i = 0; i < gpu->lends->len; i++)
    {
      lend = g_ptr_array_index (gpu->lends, i);
      if (mdl_batch_keep_is_free (&lend->keep))
        {
          batch_place (gpu, lend, lend->events, lend->lanes);
          return;
        }
    }
  lend = lend_new (gpu);
  batch_place (gpu, lend, lend->events, lend->lanes);
}

/* ---- the GPU ---- */

#define HUGE_PAGE ((gsize) 2 << 20)

/* Zeroed host bytes for @buf->bytes of global memory: buf->data, or FALSE. A large buffer is
 * advised onto transparent huge pages where the system has them: the first touch of every 4 KiB
 * page otherwise dominated a whole run (reduce/tree --n 4M: 16 MiB of input took 60 ms of faults
 * on the development VM, against 30 ms for the kernels and their 1.7 M events). From the heap, not
 * a mapping of its own, so that a process running one algorithm after another reuses the memory
 * rather than having the system clear fresh pages each time. */
static gboolean
global_bytes_new (SimtBuffer *buf)
{
  buf->data = g_try_malloc0 (buf->bytes);
  if (buf->data == NULL)
    return FALSE;
#if defined(G_OS_UNIX) && defined(MADV_HUGEPAGE)
  if (buf->bytes >= 2 * HUGE_PAGE)
    {
      guintptr start = ((guintptr) buf->data + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1);
      guintptr end = ((guintptr) buf->data + buf->bytes) & ~(guintptr) (HUGE_PAGE - 1);
      if (end > start)
        madvise ((void *) start, end - start, MADV_HUGEPAGE);
    }
#endif
  return TRUE;
}

static void
global_bytes_free (SimtBuffer *buf)
{
  g_free (buf->data);
}

MdlSimt *
mdl_simt_new (const MdlSink *sink, guint warp_width)
{
  MdlSimt *gpu;
  g_return_val_if_fail (warp_width >= 1 && warp_width <= MDL_WARP_MAX_LANES, NULL);
  g_return_val_if_fail (sink == NULL || (sink->batch && sink->marker), NULL);
  gpu = g_new0 (MdlSimt, 1);
  if (sink)
    {
      SimtLend *lend;
      gpu->sink = *sink;
      gpu->has_sink = TRUE;
      gpu->lends = g_ptr_array_new ();
      lend = lend_new (gpu);
      batch_place (gpu, lend, lend->events, lend->lanes);
    }
  gpu->warp_width = warp_width;
  gpu->bufs = g_array_new (FALSE, FALSE, sizeof (SimtBuffer));
  gpu->next_addr = MDL_SIMT_GLOBAL_BASE;
  gpu->blk.arena = g_array_new (FALSE, FALSE, sizeof (SimtChunk));
  gpu->cur = &gpu->blk;
  return gpu;
}

/* Frees what a block's arrays and arena hold (not @blk itself). */
static void
block_clear (SimtBlock *blk)
{
  for (guint i = 0; i < blk->arena->len; i++)
    g_free (g_array_index (blk->arena, SimtChunk, i).data);
  g_array_free (blk->arena, TRUE);
  g_free (blk->mask);
  g_free (blk->issue);
  g_free (blk->frame_masks);
  g_free (blk->cond);
  g_free (blk->pub.shared);
  g_free (blk->local);
}

void
mdl_simt_free (MdlSimt *gpu)
{
  if (gpu == NULL)
    return;
  for (guint i = 0; i < gpu->bufs->len; i++)
    global_bytes_free (&g_array_index (gpu->bufs, SimtBuffer, i));
  g_array_free (gpu->bufs, TRUE);
  g_clear_error (&gpu->error);
  /* A block a sink still holds lives on until the sink lets it go. */
  for (guint i = 0; gpu->lends && i < gpu->lends->len; i++)
    mdl_batch_keep_release (&((SimtLend *) g_ptr_array_index (gpu->lends, i))->keep);
  if (gpu->lends)
    g_ptr_array_free (gpu->lends, TRUE);
  block_clear (&gpu->blk);
  for (guint i = 0; i < gpu->n_slots; i++)
    {
      block_clear (gpu->slots[i]);
      mdl_simt_fiber_clear (&gpu->slots[i]->fiber);
      g_free (gpu->slots[i]);
    }
  g_free (gpu->slots);
  mdl_simt_fiber_clear (&gpu->sched.launcher);
  g_free (gpu);
}

guint64
mdl_simt_alloc (MdlSimt *gpu, gsize bytes, GError **error)
{
  SimtBuffer buf;
  g_return_val_if_fail (gpu != NULL, 0);
  buf.bytes = bytes;
  if (bytes == 0 || bytes > ((gsize) 4 << 30) || !global_bytes_new (&buf))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "simt: cannot allocate %" G_GSIZE_FORMAT
                   " bytes of global memory (1 byte to 4 GiB)", bytes);
      return 0;
    }
  buf.addr = gpu->next_addr;
  g_array_append_val (gpu->bufs, buf);
  /* A gap of one alignment unit, so that running off the end of a buffer is an error. */
  gpu->next_addr += (bytes + 2 * MDL_SIMT_ALIGN - 1) / MDL_SIMT_ALIGN * MDL_SIMT_ALIGN;
  return buf.addr;
}

/* The buffer holding [addr, addr + len), or NULL. */
static SimtBuffer *
find_buffer (MdlSimt *gpu, guint64 addr, guint64 len)
{
  SimtBuffer *b;
  guint lo = 0, hi = gpu->bufs->len;
  if (gpu->last_buf < gpu->bufs->len)
    {
      b = &g_array_index (gpu->bufs, SimtBuffer, gpu->last_buf);
      if (addr >= b->addr && addr - b->addr < b->bytes && len <= b->bytes - (addr - b->addr))
        return b;
    }
  while (lo < hi)   /* allocations are in address order */
    {
      guint mid = (lo + hi) / 2;
      b = &g_array_index (gpu->bufs, SimtBuffer, mid);
      if (addr < b->addr)
        hi = mid;
      else if (addr - b->addr >= b->bytes)
        lo = mid + 1;
      else
        {
          gpu->last_buf = mid;
          return len <= b->bytes - (addr - b->addr) ? b : NULL;
        }
    }
  return NULL;
}

void *
mdl_simt_host (MdlSimt *gpu, guint64 addr)
{
  SimtBuffer *b;
  g_return_val_if_fail (gpu != NULL, NULL);
  b = find_buffer (gpu, addr, 1);
  return b ? b->data + (addr - b->addr) : NULL;
}

void
mdl_simt_set_site (MdlSimt *gpu, guint16 site)
{
  g_return_if_fail (gpu != NULL);
  gpu->site = site;
}

guint64
mdl_simt_n_events (const MdlSimt *gpu)
{
  g_return_val_if_fail (gpu != NULL, 0);
  return gpu->n_events;
}

/* ---- events ---- */

static void
fail (MdlSimt *gpu, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
fail (MdlSimt *gpu, const char *format, ...)
{
  va_list args;
  char *msg;
  if (gpu->error)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (&gpu->error, MDL_ERROR, MDL_ERROR_MODEL, "simt: launch %u, block %u: %s",
               gpu->cur->launch, gpu->cur->block_id, msg);
  g_free (msg);
}

static void
flush (MdlSimt *gpu)
{
  MdlEventBatch batch = { .warp = gpu->events, .n_warp = gpu->n_events_pending,
                          .lane_addrs = gpu->lane_addrs, .n_lane_addrs = gpu->n_lane_addrs,
                          .keep = &gpu->lend->keep };
  if (gpu->n_events_pending == 0)
    return;
  if (gpu->sink_error == NULL)
    gpu->sink.batch (gpu->sink.data, &batch, &gpu->sink_error);
  batch_next (gpu);
}

static void
marker (MdlSimt *gpu, const MdlMarker *m)
{
  if (!gpu->has_sink)
    return;
  flush (gpu);
  if (gpu->sink_error == NULL)
    gpu->sink.marker (gpu->sink.data, m, &gpu->sink_error);
}

/* TRUE when the set lanes of @active (not 0) are one run, lanes first..last. */
static inline gboolean
mask_is_run (guint64 active)
{
  guint64 low = active >> __builtin_ctzll (active);
  return (low & (low + 1)) == 0;
}

/* TRUE when the @active lanes' @addrs (lane-indexed) are base + lane x *@stride, for two lanes or
 * more and a stride the event can carry: the strided form of an event. */
static gboolean
lane_stride (const guint64 *addrs, guint64 active, gint64 *stride)
{
  guint first = (guint) __builtin_ctzll (active), second;
  guint64 m = active & (active - 1), diff;
  if (m == 0)
    return FALSE;
  second = (guint) __builtin_ctzll (m);
  diff = addrs[second] - addrs[first];
  /* Adjacent lanes need no division (a 64-bit idiv was a sixth of the layer's time). */
  *stride = second == first + 1 ? (gint64) diff : (gint64) diff / (gint64) (second - first);
  if ((gint64) diff != *stride * (gint64) (second - first) || *stride <= -MDL_SIMT_STRIDE_MAX
      || *stride >= MDL_SIMT_STRIDE_MAX)
    return FALSE;
  /* The common mask, one run of lanes: a straight loop with no bit scan and no branch per lane
   * (every memory instruction comes here; 110 -> 40 instructions per 32-lane event). */
  if (mask_is_run (active))
    {
      /* Consecutive differences, four independent ones per step: equal to the stride exactly
       * when every lane is first + (l - first) x stride (mod 2^64, as below). */
      guint l = second + 1, end = 64 - (guint) __builtin_clzll (active);
      guint64 s = (guint64) *stride, bad = 0;
      if (first == 0 && end == 32)
        {
          /* A whole warp of 32: a loop of constant length, which the compiler vectorizes. */
          /* Scalar loads: the algorithm has just stored the addresses one lane at a time, and a
           * 16-byte load of two such stores waits for both to reach the cache. Two chains of
           * expected addresses, even and odd lanes. */
          guint64 even = addrs[0], odd = addrs[0] + s, bad2 = 0;
          for (guint i = 0; i < 32; i += 2)
            {
              bad |= addrs[i] ^ even;
              bad2 |= addrs[i + 1] ^ odd;
              even += 2 * s;
              odd += 2 * s;
            }
          return (bad | bad2) == 0;
        }
      for (; l + 4 <= end; l += 4)
        bad |= (addrs[l] - addrs[l - 1] - s) | (addrs[l + 1] - addrs[l] - s)
               | (addrs[l + 2] - addrs[l + 1] - s) | (addrs[l + 3] - addrs[l + 2] - s);
      for (; l < end; l++)
        bad |= addrs[l] - addrs[l - 1] - s;
      return bad == 0;
    }
  for (guint64 r = m & (m - 1); r; r &= r - 1)
    {
      guint l = (guint) __builtin_ctzll (r);
      if (addrs[l] != addrs[first] + (guint64) ((gint64) (l - first) * *stride))
        return FALSE;
    }
  return TRUE;
}

/* Asks for the cache line at @p for writing (PREFETCHW; a no-op on a CPU without it; never a
 * fault, wherever @p points). Why: behind a threaded pipeline the batch memory was last read by the
 * workers' cores, and a store to a line they still hold waits for their copies to be invalidated;
 * asked for a few events ahead, that wait overlaps the layer's work. */
static inline void
prefetch_for_write (const void *p)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __asm__ ("prefetchw (%0)" : : "r" (p));
#else
  __builtin_prefetch (p, 1);
#endif
}

/* How far ahead of the pending batch's end its lines are asked for: 8 events (7 lines) and 32
 * lane addresses (4 lines). */
#define PREFETCH_EVENTS 8
#define PREFETCH_LANES 32

/* Room in the pending batch for one more event and a warp of addresses (a full batch is sent
 * first): where the next event's lane addresses go. */
static inline guint64 *
batch_room (MdlSimt *gpu)
{
  if (gpu->n_events_pending == BATCH_EVENTS || gpu->n_lane_addrs + MDL_WARP_MAX_LANES > BATCH_LANES)
    flush (gpu);
  prefetch_for_write (gpu->events + gpu->n_events_pending + PREFETCH_EVENTS);
  prefetch_for_write (gpu->lane_addrs + gpu->n_lane_addrs + PREFETCH_LANES);
  return gpu->lane_addrs + gpu->n_lane_addrs;
}

/* Appends one event's header (no addresses yet) to a batch that has room for it. Always inlined,
 * as it was before event_new() was split from it: GCC otherwise stopped inlining the ALU and
 * predicated-off events' emitters (+4.1 M instructions on gpu-quicksort's 361 M). */
static inline __attribute__ ((always_inline)) MdlWarpEvent *
event_put (SimtBlock *blk, guint op, guint space, guint width, guint warp, guint64 active,
           guint64 taken)
{
  MdlSimt *gpu = blk->gpu;
  MdlWarpEvent *e = &gpu->events[gpu->n_events_pending++];
  *e = (MdlWarpEvent) { .active = active, .taken = taken, .launch = blk->launch,
                        .block = blk->block_id, .warp = (guint16) warp, .width = (guint16) width,
                        .site = gpu->site, .op = (guint8) op, .space = (guint8) space,
                        .flags = (guint8) ((blk->machine ? MDL_WARP_MACHINE : 0)
                                           | (op == MDL_WARP_ATOMIC ? blk->atom_flags : 0)) };
  return e;
}

/* Appends one event's header (no addresses yet); NULL without a sink. */
static inline MdlWarpEvent *
event_new (SimtBlock *blk, guint op, guint space, guint width, guint warp, guint64 active,
           guint64 taken)
{
  MdlSimt *gpu = blk->gpu;
  gpu->n_events++;
  if (!gpu->has_sink)
    return NULL;
  batch_room (gpu);
  return event_put (blk, op, space, width, warp, active, taken);
}

/* Gives event @e the strided form: lane l at @first_addr + (l - @first) x @stride. */
static inline void
event_strided (MdlWarpEvent *e, guint first, guint64 first_addr, gint64 stride)
{
  e->flags |= MDL_WARP_STRIDED;
  e->base = first_addr - (guint64) ((gint64) first * stride);
  e->stride = stride;
}

/* Appends one event; @addrs (lane-indexed, active lanes only) for memory ops, else NULL, in the
 * strided form when @strided (lane_stride() gave @stride). */
static void
emit_at (SimtBlock *blk, guint op, guint space, guint width, guint warp, guint64 active,
         guint64 taken, const guint64 *addrs, gboolean strided, gint64 stride)
{
  MdlSimt *gpu = blk->gpu;
  MdlWarpEvent *e = event_new (blk, op, space, width, warp, active, taken);
  if (e == NULL || addrs == NULL)
    return;
  /* The strided form when it holds: two words instead of one per lane. */
  if (strided)
    event_strided (e, (guint) __builtin_ctzll (active), addrs[__builtin_ctzll (active)], stride);
  else if (mask_is_run (active))
    {
      /* One run of lanes (nearly every instruction): one copy, no bit scan per lane. */
      guint first = (guint) __builtin_ctzll (active);
      guint n = 64 - (guint) __builtin_clzll (active) - first;
      e->first_addr = (guint32) gpu->n_lane_addrs;
      memcpy (gpu->lane_addrs + gpu->n_lane_addrs, addrs + first, n * sizeof addrs[0]);
      gpu->n_lane_addrs += n;
    }
  else
    {
      e->first_addr = (guint32) gpu->n_lane_addrs;
      for (guint64 r = active; r; r &= r - 1)
        gpu->lane_addrs[gpu->n_lane_addrs++] = addrs[__builtin_ctzll (r)];
    }
}

/* Appends one event with no addresses. */
static inline void
emit (SimtBlock *blk, guint op, guint warp, guint64 active, guint64 taken)
{
  event_new (blk, op, MDL_SPACE_NONE, 0, warp, active, taken);
}

/* One event per warp with issuing lanes (ALU, barrier arrivals). */
static void
emit_issue (SimtBlock *blk, guint op, guint n)
{
  for (guint k = 0; k < n; k++)
    for (guint w = 0; w < blk->n_warps; w++)
      if (blk->issue[w])
        emit (blk, op, w, blk->issue[w], 0);
}

/* ---- blocks ---- */

static SimtBlock *
block_of (MdlSimtBlock *b)
{
  return (SimtBlock *) b;
}

gboolean
mdl_simt_active (const MdlSimtBlock *b, guint t)
{
  const SimtBlock *blk = (const SimtBlock *) b;
  return t < b->n_threads && ((blk->mask[t / b->warp_width] >> (t % b->warp_width)) & 1);
}

guint64 *
mdl_simt_reg (MdlSimtBlock *b, guint words)
{
  SimtBlock *blk = block_of (b);
  gsize bytes = (gsize) b->n_threads * MAX (words, 1) * sizeof (guint64);
  guint8 *p;
  for (;;)
    {
      if (blk->arena_chunk < blk->arena->len)
        {
          SimtChunk *c = &g_array_index (blk->arena, SimtChunk, blk->arena_chunk);
          if (blk->arena_used + bytes <= c->cap)
            {
              p = c->data + blk->arena_used;
              blk->arena_used += bytes;
              break;
            }
          blk->arena_chunk++;
          blk->arena_used = 0;
          continue;
        }
      SimtChunk c = { g_malloc (MAX (ARENA_CHUNK, bytes)), MAX (ARENA_CHUNK, bytes) };
      g_array_append_val (blk->arena, c);
    }
  memset (p, 0, bytes);
  return (guint64 *) p;
}

MdlSimtRegMark
mdl_simt_reg_mark (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  return (MdlSimtRegMark) { blk->arena_chunk, blk->arena_used };
}

void
mdl_simt_reg_release (MdlSimtBlock *b, MdlSimtRegMark mark)
{
  SimtBlock *blk = block_of (b);
  g_return_if_fail (mark.chunk < blk->arena_chunk
                    || (mark.chunk == blk->arena_chunk && mark.used <= blk->arena_used));
  blk->arena_chunk = mark.chunk;
  blk->arena_used = mark.used;
}

guint8 *
mdl_simt_cond (MdlSimtBlock *b)
{
  return block_of (b)->cond;
}

/* The lanes of warp @w whose condition byte is set. */
static guint64
cond_mask (const SimtBlock *blk, guint w)
{
  guint ww = blk->pub.warp_width, lanes = MIN (ww, blk->pub.n_threads - w * ww), l = 0;
  const guint8 *cond = blk->cond + (gsize) w * ww;
  const guint64 low7 = G_GUINT64_CONSTANT (0x7f7f7f7f7f7f7f7f);
  guint64 m = 0;
  /* Eight bytes a step (a byte loop was a tenth of gpu-quicksort's run): the top bit of each
   * byte is set when the byte is nonzero, and the multiply gathers the eight top bits into the
   * top byte, byte i's as bit i. */
  for (; l + 8 <= lanes; l += 8)
    {
      guint64 x;
      memcpy (&x, cond + l, 8);
      x = (((x & low7) + low7) | x) & ~low7;
      m |= ((x >> 7) * G_GUINT64_CONSTANT (0x0102040810204080)) >> 56 << l;
    }
  for (; l < lanes; l++)
    m |= (guint64) (cond[l] != 0) << l;
  return m;
}

guint64
mdl_simt_local_addr (const MdlSimtBlock *b, guint t, guint64 offset)
{
  const SimtBlock *blk = (const SimtBlock *) b;
  guint64 thread = (guint64) blk->block_id * b->n_threads + t;
  return MDL_SIMT_LOCAL_BASE + ((offset / 4) * blk->launch_threads + thread) * 4 + offset % 4;
}

/* Where lane t's access of @width bytes at @addr in @space lives on the host, and the address its
 * event carries; NULL after recording an error. */
static guint8 *
locate (SimtBlock *blk, MdlSpace space, guint t, guint64 addr, guint width, guint64 *event_addr,
        const char *what)
{
  MdlSimt *gpu = blk->gpu;
  static const char *const spaces[] = { "none", "global", "shared", "local" };
  if (addr % width != 0)
    {
      fail (gpu, "thread %u: %s %s of %u bytes at 0x%" G_GINT64_MODIFIER "x is not aligned to %u",
            t, spaces[space], what, width, addr, width);
      return NULL;
    }
  *event_addr = addr;
  switch (space)
    {
    case MDL_SPACE_GLOBAL:
      {
        SimtBuffer *b = find_buffer (gpu, addr, width);
        if (b)
          return b->data + (addr - b->addr);
        fail (gpu, "thread %u: global %s of %u bytes at 0x%" G_GINT64_MODIFIER "x is outside every "
              "allocation", t, what, width, addr);
        return NULL;
      }
    case MDL_SPACE_SHARED:
      if (addr < blk->shared_bytes && width <= blk->shared_bytes - addr)
        return blk->pub.shared + addr;
      fail (gpu, "thread %u: shared %s of %u bytes at offset %" G_GUINT64_FORMAT " is outside the "
            "block's %u bytes of shared memory", t, what, width, addr, blk->shared_bytes);
      return NULL;
    case MDL_SPACE_LOCAL:
      if (addr < blk->local_bytes && width <= blk->local_bytes - addr)
        {
          *event_addr = mdl_simt_local_addr (&blk->pub, t, addr);
          return blk->local + (gsize) t * blk->local_bytes + addr;
        }
      fail (gpu, "thread %u: local %s of %u bytes at offset %" G_GUINT64_FORMAT " is outside the "
            "thread's %u bytes of local memory", t, what, width, addr, blk->local_bytes);
      return NULL;
    default:
      fail (gpu, "thread %u: %s in memory space %u", t, what, space);
      return NULL;
    }
}

/* A memory instruction that warp @w issues with every lane predicated off: it executes (Nsight
 * Compute counts it, with its issuing lanes) but touches no memory, so it is an ALU event. */
static void
predicated_off (SimtBlock *blk, guint w)
{
  if (blk->issue[w])
    emit (blk, MDL_WARP_ALU, w, blk->issue[w], 0);
}

static gboolean
width_ok (SimtBlock *blk, guint width, MdlSpace space)
{
  if ((width == 1 || width == 2 || width == 4 || width == 8 || width == 16)
      && space >= MDL_SPACE_GLOBAL && space <= MDL_SPACE_LOCAL)
    return TRUE;
  fail (blk->gpu, "a memory instruction of width %u in space %u (widths 1, 2, 4, 8, 16; spaces "
        "global, shared, local)", width, space);
  return FALSE;
}

/* The new value of an atomic's word: @old and the operand @v, compare value @c, all @width bytes
 * (4 or 8) zero-extended; signed comparisons sign-extend from @width. */
static guint64
atom_value (guint op, guint width, guint64 old, guint64 v, guint64 c)
{
  guint64 mask = width == 8 ? G_MAXUINT64 : G_GUINT64_CONSTANT (0xffffffff);
  gint64 so, sv;
  old &= mask;
  v &= mask;
  so = width == 8 ? (gint64) old : (gint64) (gint32) (guint32) old;
  sv = width == 8 ? (gint64) v : (gint64) (gint32) (guint32) v;
  switch (op)
    {
    case MDL_SIMT_ATOM_ADD: return (old + v) & mask;
    case MDL_SIMT_ATOM_EXCH: return v;
    case MDL_SIMT_ATOM_CAS: return old == (c & mask) ? v : old;
    case MDL_SIMT_ATOM_MIN: return so <= sv ? old : v;
    case MDL_SIMT_ATOM_MAX: return so >= sv ? old : v;
    case MDL_SIMT_ATOM_UMIN: return MIN (old, v);
    case MDL_SIMT_ATOM_UMAX: return MAX (old, v);
    case MDL_SIMT_ATOM_AND: return old & v;
    case MDL_SIMT_ATOM_OR: return old | v;
    default: return old ^ v;   /* MDL_SIMT_ATOM_XOR; mdl_simt_atom() checked the op */
    }
}

/* What one lane of a memory instruction does at @p, where its bytes live (NULL after a fault: a
 * load then yields 0 and the rest does nothing). @op is a constant in each caller of
 * memory_op(), so the switch is resolved at compile time. */
static inline void
lane_access (SimtBlock *blk, guint op, guint8 *p, guint t, guint width, guint64 *dst,
             const guint64 *src)
{
  guint words = width > 8 ? 2 : 1;
  guint64 v = 0;
  switch (op)
    {
    case MDL_WARP_LOAD:
      if (width == 4 && p)
        {
          /* The common width, with a constant-size copy (a call to memmove otherwise). */
          guint32 v32;
          memcpy (&v32, p, 4);
          dst[t] = v32;
          break;
        }
      dst[(gsize) t * words] = 0;
      if (words == 2)
        dst[(gsize) t * 2 + 1] = 0;
      if (p)
        memcpy (&dst[(gsize) t * words], p, width);   /* little-endian hosts only */
      break;
    case MDL_WARP_STORE:
      if (width == 4 && p)
        memcpy (p, &src[t], 4);
      else if (p)
        memcpy (p, &src[(gsize) t * words], width);
      break;
    case MDL_WARP_ATOMIC:
    default:
      if (p)
        memcpy (&v, p, width);
      if (dst)
        dst[t] = v;
      if (p)
        {
          guint64 cmp = blk->atom_cmp ? blk->atom_cmp[t] : 0;
          /* A CAS lane that finds another value writes nothing: the event's taken mask. */
          if (blk->atom_op == MDL_SIMT_ATOM_CAS
              && v != (width == 8 ? cmp : cmp & ((G_GUINT64_CONSTANT (1) << (8 * width)) - 1)))
            blk->cas_failed |= G_GUINT64_CONSTANT (1) << (t % blk->pub.warp_width);
          v = atom_value (blk->atom_op, width, v, src[t], cmp);
          memcpy (p, &v, width);
        }
      break;
    }
}

/* The host bytes of the buffer that holds every byte of [@lo, @hi + @width) in @space (the shared
 * memory, or one global allocation), whose first byte has address *@base; NULL when none does,
 * and for local memory (each lane is then located on its own, by locate(), which names a faulting
 * lane). */
static guint8 *
window_of (SimtBlock *blk, MdlSpace space, guint width, guint64 lo, guint64 hi, guint64 *base)
{
  SimtBuffer *b;
  /* Why hi - lo is bounded: so that hi - lo + width cannot wrap (buffers are at most 4 GiB). */
  if (hi - lo > G_MAXUINT32)
    return NULL;
  *base = 0;
  if (space == MDL_SPACE_SHARED)
    return hi < blk->shared_bytes && width <= blk->shared_bytes - hi ? blk->pub.shared : NULL;
  if (space != MDL_SPACE_GLOBAL || (b = find_buffer (blk->gpu, lo, hi - lo + width)) == NULL)
    return NULL;
  *base = b->addr;
  return b->data;
}

/* The window of the @n global addresses @addrs when they are all aligned to @width: window_of()
 * their lowest and highest. */
static guint8 *
exact_window (SimtBlock *blk, MdlSpace space, guint width, const guint64 *addrs, guint n,
              guint64 *base)
{
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint i = 0; i < n; i++)
    {
      lo = MIN (lo, addrs[i]);
      hi = MAX (hi, addrs[i]);
    }
  return window_of (blk, space, width, lo, hi, base);
}

/* Where the global or shared bytes of every active lane of @active (lane-indexed @addr) live
 * when they all lie in one buffer and are aligned: that buffer's host bytes, whose first one has
 * address *@base (so lane t's bytes are at the result + @addr[t] − *@base). NULL otherwise (see
 * window_of()). One buffer lookup per warp, not per lane. For the masks that are not one run of
 * lanes (run_scan() takes those). */
static guint8 *
warp_window (SimtBlock *blk, MdlSpace space, guint width, const guint64 *addr, guint64 active,
             gboolean strided, gint64 stride, guint64 *base)
{
  guint64 lo = G_MAXUINT64, hi = 0, any = 0;
  if (strided)
    {
      /* The ends are the first and the last lane's; the lanes are aligned when the first lane
       * and the stride are (and perhaps otherwise, which then takes the lane-by-lane way). */
      guint64 first = addr[__builtin_ctzll (active)], last = addr[63 - __builtin_clzll (active)];
      lo = MIN (first, last);
      hi = MAX (first, last);
      any = first | (guint64) stride;
    }
  else
    for (guint64 r = active; r; r &= r - 1)
      {
        guint64 a = addr[__builtin_ctzll (r)];
        lo = MIN (lo, a);
        hi = MAX (hi, a);
        any |= a;
      }
  return (any & (width - 1)) == 0 ? window_of (blk, space, width, lo, hi, base) : NULL;
}

/* TRUE when the @n addresses @addrs (@n >= 2) are addrs[0] + k x @s, k = 0..@n-1 (mod 2^64, as
 * lane_stride() decides): the run's event takes the strided form. One pass of XORs against the
 * expected addresses, four lanes a step (GCC -O2 leaves the scalar loop scalar); a constant @n (a
 * whole warp) unrolls. */
static inline __attribute__ ((always_inline)) gboolean
run_is_strided (const guint64 *addrs, guint n, guint64 s)
{
  guint64 next = addrs[0], bad = 0;
  guint i = 0;
#ifdef SIMT_VECTORS
  if (n % 4 == 0)
    {
      SimtU64x4 bad4 = { 0, 0, 0, 0 }, step = { 4 * s, 4 * s, 4 * s, 4 * s };
      SimtU64x4 next4 = { next, next + s, next + 2 * s, next + 3 * s };
#pragma GCC unroll 8
      for (; i < n; i += 4)
        {
          SimtU64x4 v;
          memcpy (&v, addrs + i, sizeof v);
          bad4 |= v ^ next4;
          next4 += step;
        }
      bad = simt_or4 (&bad4);
    }
#endif
  for (next += i * s; i < n; i++)
    {
      bad |= addrs[i] ^ next;
      next += s;
    }
  return bad == 0;
}

/* A memory instruction's addresses of one run of @n lanes (@addrs: the first lane's onwards) in
 * @space, a constant at each call. Sets *@strided when they are addrs[0] + k x *@stride; else
 * copies them to @copy in lane order (the event's lane addresses), in the same pass as their
 * bounds. Returns their window as warp_window() would, or NULL.
 *  - The strided form is tried only when the last lane is where the stride of the first two
 *    puts it: most runs that are not strided (bitonic's tiles, the merges' compare-exchanges)
 *    then cost no stride check, and a strided one needs no copy and no bounds but its ends.
 *  - Shared addresses start at 0, so only the highest matters: once every address is below 2^63
 *    (their OR tells), a lane is out exactly when its address + (2^63 - 1 - last) has its sign
 *    bit set, last the highest address with room: an add and an OR per lane, which vectorize in
 *    the baseline x86-64 build, where a maximum does not.
 *  - Global addresses: their AND and OR (every address lies between the two; with the alignment
 *    that is one pass of bit operations, which vectorize), and their exact lowest and highest
 *    only when those bounds fall outside the buffer. */
static inline __attribute__ ((always_inline)) guint8 *
run_scan (SimtBlock *blk, MdlSpace space, guint width, const guint64 *restrict addrs, guint n,
          guint64 *restrict copy, gboolean *strided, gint64 *stride, guint64 *base)
{
  guint64 s = n >= 2 ? addrs[1] - addrs[0] : 0;
  /* Shared: an address a below 2^63 is past the highest with room, last, exactly when a + room
   * has its sign bit set (an add, which needs no copy of a register in SSE2, as last - a does). */
  guint64 room = G_MAXINT64 - (blk->shared_bytes - width);
  guint64 all = G_MAXUINT64, any = 0, over = 0;
  guint i = 0;
  *stride = (gint64) s;
  *strided = n >= 2 && addrs[n - 1] - addrs[0] == (n - 1) * s && (gint64) s > -MDL_SIMT_STRIDE_MAX
             && (gint64) s < MDL_SIMT_STRIDE_MAX && run_is_strided (addrs, n, s);
  if (*strided)
    return (addrs[0] | s) & (width - 1)
           ? NULL
           : window_of (blk, space, width, MIN (addrs[0], addrs[n - 1]), MAX (addrs[0], addrs[n - 1]),
                        base);
#ifdef SIMT_VECTORS
  if (n % 4 == 0)
    {
      SimtU64x4 all4 = { all, all, all, all }, any4 = { 0, 0, 0, 0 }, over4 = any4;
      SimtU64x4 room4 = { room, room, room, room };
#pragma GCC unroll 8
      for (; i < n; i += 4)
        {
          SimtU64x4 v;
          memcpy (&v, addrs + i, sizeof v);
          memcpy (copy + i, &v, sizeof v);
          any4 |= v;
          if (space == MDL_SPACE_SHARED)
            over4 |= v + room4;
          else
            all4 &= v;
        }
      any = simt_or4 (&any4);
      if (space == MDL_SPACE_SHARED)
        over = simt_or4 (&over4);
      else
        all = simt_and4 (&all4);
    }
#endif
  for (; i < n; i++)
    {
      guint64 a = addrs[i];
      copy[i] = a;
      any |= a;
      if (space == MDL_SPACE_SHARED)
        over |= a + room;
      else
        all &= a;
    }
  if (any & (width - 1))
    return NULL;
  if (space == MDL_SPACE_SHARED)
    {
      *base = 0;
      return width > blk->shared_bytes || (any | over) >> 63 ? NULL : blk->pub.shared;
    }
  guint8 *window = window_of (blk, space, width, all, any, base);
  return window ? window : exact_window (blk, space, width, copy, n, base);
}

/* Lanes @t.. of a run of @n do their part, lane i's bytes at @window + (@addrs[i] − @base).
 * Inlined with constant @op and @width, each case is a straight loop. Loads and stores walk the
 * vectors by pointer: three instructions a lane (an index, widened and scaled per lane, took
 * four and a half), unrolled whole for a whole warp (@n a constant 32; by 4, the loop's own
 * steps were another instruction a lane). */
static inline __attribute__ ((always_inline)) void
run_access (SimtBlock *blk, guint op, guint width, guint8 *window, guint64 base,
            const guint64 *addrs, guint t, guint n, guint64 *dst, const guint64 *src)
{
  guintptr host = (guintptr) window - (guintptr) base;   /* lane i's bytes: host + addrs[i] */
  const guint64 *a = addrs, *end = addrs + n;
  if (op == MDL_WARP_LOAD && width <= 8)
    {
      guint64 *d = dst + t;
#pragma GCC unroll 32
      for (; a < end; a++, d++)
        {
          /* No fault here (the window holds every lane): a plain load, zero-extended. */
          guint64 v = 0;
          memcpy (&v, (guint8 *) (host + (guintptr) *a), width);   /* little-endian hosts only */
          *d = v;
        }
    }
  else if (op == MDL_WARP_STORE && width <= 8)
    {
      const guint64 *v = src + t;
#pragma GCC unroll 32
      for (; a < end; a++, v++)
        memcpy ((guint8 *) (host + (guintptr) *a), v, width);
    }
  else
    for (guint i = 0; i < n; i++)
      lane_access (blk, op, (guint8 *) (host + (guintptr) addrs[i]), t + i, width, dst, src);
}

/* Appends the event of a run of lanes, the first at @first_addr, in the strided form or with the
 * @n addresses run_scan() copied into the batch, whose room memory_op() took before the scan
 * (the batch is not checked twice). */
static inline void
emit_run (SimtBlock *blk, guint op, guint space, guint width, guint warp, guint64 active,
          guint64 taken, guint64 first_addr, guint n, gboolean strided, gint64 stride)
{
  MdlSimt *gpu = blk->gpu;
  MdlWarpEvent *e;
  gpu->n_events++;
  if (!gpu->has_sink)
    return;
  e = event_put (blk, op, space, width, warp, active, taken);
  if (strided)
    event_strided (e, (guint) __builtin_ctzll (active), first_addr, stride);
  else
    {
      e->first_addr = (guint32) gpu->n_lane_addrs;
      gpu->n_lane_addrs += n;
    }
}

/* Every memory instruction: for each warp, the lanes in effect locate their bytes and do their
 * part (lane_access), and one event carries the warp's addresses; a warp with all its lanes
 * predicated off issues an ALU event. @dst: the loaded values, or an atomic's old ones (may then
 * be NULL); @src: the stored values, or an atomic's addends. */
static inline __attribute__ ((always_inline)) void
memory_op (MdlSimtBlock *b, guint op, MdlSpace space, guint width, const guint64 *addr,
           guint64 *dst, const guint64 *src)
{
  static const char *const what[] = { [MDL_WARP_LOAD] = "load", [MDL_WARP_STORE] = "store",
                                      [MDL_WARP_ATOMIC] = "atomic" };
  SimtBlock *blk = block_of (b);
  guint ww = b->warp_width;
  guint64 lane_addr[MDL_WARP_MAX_LANES];
  if (!width_ok (blk, width, space))
    return;
  /* Ops that act when they reach the memory are put in that order before they act. */
  if (blk->gpu->sched.arrive && space == MDL_SPACE_GLOBAL)
    mdl_simt_arrive (blk, op);
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 active = blk->mask[w];
      if (active == 0)
        {
          predicated_off (blk, w);
          continue;
        }
      const guint64 *warp_addr = addr + (gsize) w * ww;
      guint64 base, scratch[MDL_WARP_MAX_LANES], *copy = NULL;
      guint first = (guint) __builtin_ctzll (active), n = 64 - (guint) __builtin_clzll (active) - first;
      guint64 first_addr = warp_addr[first];   /* before a load that may overwrite the vector */
      gint64 stride = 0;
      gboolean strided;
      guint8 *window;
      if (mask_is_run (active))
        {
          /* One run of lanes (nearly every instruction): one pass over its addresses, which
           * also puts them where the event's go. */
          copy = blk->gpu->has_sink ? batch_room (blk->gpu) : scratch;
          if (space == MDL_SPACE_SHARED)
            window = n == 32 ? run_scan (blk, MDL_SPACE_SHARED, width, warp_addr + first, 32, copy,
                                         &strided, &stride, &base)
                             : run_scan (blk, MDL_SPACE_SHARED, width, warp_addr + first, n, copy,
                                         &strided, &stride, &base);
          else
            window = n == 32 ? run_scan (blk, space, width, warp_addr + first, 32, copy, &strided,
                                         &stride, &base)
                             : run_scan (blk, space, width, warp_addr + first, n, copy, &strided,
                                         &stride, &base);
        }
      else
        {
          strided = lane_stride (warp_addr, active, &stride);
          window = warp_window (blk, space, width, warp_addr, active, strided, stride, &base);
        }
      if (blk->gpu->error)
        window = NULL;
      if (window && strided && stride == 4 && width == 4 && op != MDL_WARP_ATOMIC && copy)
        {
          /* Consecutive 4-byte words (the commonest instruction of all): a plain copy between
           * the registers and memory, which compiles to straight moves. */
          guint t = w * ww + first;
          guint8 *p = window + (addr[t] - base);
#ifdef SIMT_VECTORS
          /* Whole warps unrolled, the lanes by a pointer and a 64-bit index (a 32-bit one took
           * an instruction a lane to widen). */
          if (op == MDL_WARP_LOAD && n == 32)
#pragma GCC unroll 8
            for (gsize i = 0; i < 32; i += 4)
              {
                SimtU32x4 v;
                SimtU64x4 wide;
                memcpy (&v, p + 4 * i, sizeof v);
                wide = __builtin_convertvector (v, SimtU64x4);
                memcpy (dst + t + i, &wide, sizeof wide);
              }
          else if (op == MDL_WARP_STORE && n == 32)
            {
              const guint64 *q = src + t;
#pragma GCC unroll 8
              for (gsize i = 0; i < 32; i += 4)
                {
                  /* Lane by lane into the vectors: the registers were just stored that way (a
                   * wide load of several such stores would wait for them to reach the cache).
                   * Two halves and one shuffle of their low words: built as one 32-byte vector,
                   * the AVX2 clone took twice the instructions. */
                  SimtU64x2 lo = { q[i], q[i + 1] }, hi = { q[i + 2], q[i + 3] };
                  SimtU32x4 v = __builtin_shufflevector ((SimtU32x4) lo, (SimtU32x4) hi, 0, 2, 4, 6);
                  memcpy (p + 4 * i, &v, sizeof v);
                }
            }
          else
#endif
          if (op == MDL_WARP_LOAD)
            for (guint i = 0; i < n; i++)
              {
                guint32 v;
                memcpy (&v, p + 4 * i, 4);
                dst[t + i] = v;
              }
          else
            for (guint i = 0; i < n; i++)
              {
                guint32 v = (guint32) src[t + i];
                memcpy (p + 4 * i, &v, 4);
              }
        }
      else if (window && copy)
        {
          /* One run of lanes: no bit scan per lane, and the common widths in loops of their own.
           * The addresses are read where the kernel put them (a strided run has no copy). */
          guint t = w * ww + first;
          if (width == 4 && op != MDL_WARP_ATOMIC && n == 32)
            /* A whole warp: a loop of constant length (an unknown one spent about 30
             * instructions a warp entering its unrolled body) */
            run_access (blk, op, 4, window, base, warp_addr + first, t, 32, dst, src);
          else if (width == 4 && op != MDL_WARP_ATOMIC)
            run_access (blk, op, 4, window, base, warp_addr + first, t, n, dst, src);
          else if (width == 8 && op != MDL_WARP_ATOMIC)
            run_access (blk, op, 8, window, base, warp_addr + first, t, n, dst, src);
          else
            run_access (blk, op, width, window, base, warp_addr + first, t, n, dst, src);
        }
      else if (window)
        for (guint64 r = active; r; r &= r - 1)
          {
            guint l = (guint) __builtin_ctzll (r), t = w * ww + l;
            lane_access (blk, op, window + (addr[t] - base), t, width, dst, src);
          }
      else
        for (guint64 r = active; r; r &= r - 1)
          {
            guint l = (guint) __builtin_ctzll (r), t = w * ww + l;
            guint8 *p = blk->gpu->error ? NULL : locate (blk, space, t, addr[t], width,
                                                         &lane_addr[l], what[op]);
            if (p == NULL)
              lane_addr[l] = addr[t];
            lane_access (blk, op, p, t, width, dst, src);
          }
      /* The lane-by-lane way may have moved the addresses (local memory's interleave). */
      if (!window)
        {
          strided = lane_stride (lane_addr, active, &stride);
          emit_at (blk, op, space, width, w, active, op == MDL_WARP_ATOMIC ? blk->cas_failed : 0,
                   lane_addr, strided, stride);
        }
      else if (copy)
        emit_run (blk, op, space, width, w, active, op == MDL_WARP_ATOMIC ? blk->cas_failed : 0,
                  first_addr, n, strided, stride);
      else
        emit_at (blk, op, space, width, w, active, op == MDL_WARP_ATOMIC ? blk->cas_failed : 0,
                 warp_addr, strided, stride);
      blk->cas_failed = 0;
    }
  /* Blocks see each other only through global memory: a switch anywhere else changes nothing
   * another block can observe, and a shared access takes a fraction of a global one's latency. */
  if (blk->gpu->n_slots_running && space == MDL_SPACE_GLOBAL)
    mdl_simt_yield (blk, op);
}

/* Loads and stores of 4-byte words (nearly all of them) have paths of their own, where the width
 * is a constant throughout, and the shared ones a path where the space is one too. */
MDL_CLONES static void
simt_load (MdlSimtBlock *b, MdlSpace space, guint width, const guint64 *addr, guint64 *dst)
{
  if (width == 4 && space == MDL_SPACE_SHARED)
    memory_op (b, MDL_WARP_LOAD, MDL_SPACE_SHARED, 4, addr, dst, NULL);
  else if (width == 4)
    memory_op (b, MDL_WARP_LOAD, space, 4, addr, dst, NULL);
  else
    memory_op (b, MDL_WARP_LOAD, space, width, addr, dst, NULL);
}

MDL_CLONES static void
simt_store (MdlSimtBlock *b, MdlSpace space, guint width, const guint64 *addr, const guint64 *src)
{
  if (width == 4 && space == MDL_SPACE_SHARED)
    memory_op (b, MDL_WARP_STORE, MDL_SPACE_SHARED, 4, addr, NULL, src);
  else if (width == 4)
    memory_op (b, MDL_WARP_STORE, space, 4, addr, NULL, src);
  else
    memory_op (b, MDL_WARP_STORE, space, width, addr, NULL, src);
}

/* The exported entry points stay plain functions, each passing on to its clones (the clones'
 * own symbol is an ifunc, another kind of symbol to nm and to the loader). */
void
mdl_simt_ld (MdlSimtBlock *b, MdlSpace space, guint width, const guint64 *addr, guint64 *dst)
{
  simt_load (b, space, width, addr, dst);
}

void
mdl_simt_st (MdlSimtBlock *b, MdlSpace space, guint width, const guint64 *addr, const guint64 *src)
{
  simt_store (b, space, width, addr, src);
}

/* Every atomic: checks, then the memory instruction with the op and flags its lanes and events
 * need. */
static void
atom (MdlSimtBlock *b, MdlSpace space, MdlSimtAtomOp op, guint width, const guint64 *addr,
      const guint64 *operand, const guint64 *compare, guint64 *old, guint8 flags)
{
  SimtBlock *blk = block_of (b);
  if (width != 4 && width != 8)
    {
      fail (blk->gpu, "an atomic of width %u (4 or 8)", width);
      return;
    }
  if (space != MDL_SPACE_GLOBAL && space != MDL_SPACE_SHARED)
    {
      fail (blk->gpu, "an atomic in memory space %u (global or shared)", space);
      return;
    }
  if ((guint) op > MDL_SIMT_ATOM_XOR || (op == MDL_SIMT_ATOM_CAS && compare == NULL))
    {
      fail (blk->gpu, (guint) op > MDL_SIMT_ATOM_XOR ? "an atomic of unknown op %u"
                                                      : "a compare-and-swap (op %u) with no compare "
                                                        "values", op);
      return;
    }
  blk->atom_op = op;
  blk->atom_cmp = compare;
  blk->atom_flags = flags;
  memory_op (b, MDL_WARP_ATOMIC, space, width, addr, old, operand);
  blk->atom_flags = 0;
  blk->atom_cmp = NULL;
}

void
mdl_simt_atom (MdlSimtBlock *b, MdlSpace space, MdlSimtAtomOp op, guint width, const guint64 *addr,
               const guint64 *operand, const guint64 *compare, guint64 *old)
{
  /* Exchange and CAS have no reduction form: nvcc emits ATOM for them even when the result is
   * unused (the H100's SASS: ATOMG.E.EXCH, ATOMG.E.CAS). */
  gboolean has_red = op != MDL_SIMT_ATOM_EXCH && op != MDL_SIMT_ATOM_CAS;
  guint8 flags = op == MDL_SIMT_ATOM_CAS ? MDL_WARP_ATOM_CAS
                 : old == NULL && has_red ? MDL_WARP_ATOM_RED : 0;
  atom (b, space, op, width, addr, operand, compare, old, flags);
}

void
mdl_simt_atom_add (MdlSimtBlock *b, MdlSpace space, guint width, const guint64 *addr,
                   const guint64 *val, guint64 *old)
{
  atom (b, space, MDL_SIMT_ATOM_ADD, width, addr, val, NULL, old, 0);
}

/* The lanes of a segment of @width lanes that lane @l's shuffle reads. */
static guint
shfl_source (MdlSimtShflMode mode, guint width, guint l, guint64 s)
{
  guint seg = l & ~(width - 1), in = l & (width - 1);
  switch (mode)
    {
    case MDL_SIMT_SHFL_IDX:
      return seg + (guint) (s & (width - 1));
    case MDL_SIMT_SHFL_UP:
      return s <= in ? l - (guint) s : l;
    case MDL_SIMT_SHFL_DOWN:
      return s < width - in ? l + (guint) s : l;
    default:
      {
        /* XOR: the lane within the warp; one in a later segment is not readable. */
        guint64 x = (guint64) l ^ s;
        return x < (guint64) seg + width ? (guint) x : l;
      }
    }
}

void
mdl_simt_shfl (MdlSimtBlock *b, MdlSimtShflMode mode, guint width, const guint64 *src,
               const guint64 *sel, guint64 *dst)
{
  SimtBlock *blk = block_of (b);
  guint ww = b->warp_width;
  guint64 got[MDL_WARP_MAX_LANES];
  if ((guint) mode > MDL_SIMT_SHFL_XOR || width == 0 || width > ww || (width & (width - 1)))
    {
      fail (blk->gpu, "a shuffle of mode %u and width %u (modes 0..3; width a power of two up to "
            "the warp width %u)", mode, width, ww);
      return;
    }
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 active = blk->mask[w];
      guint lanes = MIN (ww, b->n_threads - w * ww);
      if (active == 0)
        {
          predicated_off (blk, w);
          continue;
        }
      /* Every lane reads before any writes; a source past the block's last thread is the lane's
       * own (a partial warp's missing lanes hold nothing). */
      for (guint64 r = active; r; r &= r - 1)
        {
          guint l = (guint) __builtin_ctzll (r), t = w * ww + l;
          guint from = shfl_source (mode, width, l, sel[t]);
          got[l] = src[(gsize) w * ww + (from < lanes ? from : l)] & G_GUINT64_CONSTANT (0xffffffff);
        }
      for (guint64 r = active; r; r &= r - 1)
        {
          guint l = (guint) __builtin_ctzll (r);
          dst[(gsize) w * ww + l] = got[l];
        }
      emit (blk, MDL_WARP_SHFL, w, active, 0);
    }
}

void
mdl_simt_vote (MdlSimtBlock *b, MdlSimtVoteMode mode, const guint64 *pred, guint64 *dst)
{
  SimtBlock *blk = block_of (b);
  guint ww = b->warp_width;
  if ((guint) mode > MDL_SIMT_VOTE_ALL)
    {
      fail (blk->gpu, "a vote of unknown mode %u (0..2)", mode);
      return;
    }
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 active = blk->mask[w], yes = 0, result;
      if (active == 0)
        {
          predicated_off (blk, w);
          continue;
        }
      for (guint64 r = active; r; r &= r - 1)
        {
          guint l = (guint) __builtin_ctzll (r);
          yes |= (guint64) (pred[(gsize) w * ww + l] != 0) << l;
        }
      result = mode == MDL_SIMT_VOTE_BALLOT ? yes : mode == MDL_SIMT_VOTE_ANY ? yes != 0
                                                                             : yes == active;
      for (guint64 r = active; r; r &= r - 1)
        dst[(gsize) w * ww + (guint) __builtin_ctzll (r)] = result;
      emit (blk, MDL_WARP_VOTE, w, active, 0);
    }
}

void
mdl_simt_alu (MdlSimtBlock *b, guint n)
{
  emit_issue (block_of (b), MDL_WARP_ALU, n);
}

void
mdl_simt_machine_begin (MdlSimtBlock *b)
{
  block_of (b)->machine++;
}

void
mdl_simt_machine_end (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  g_return_if_fail (blk->machine > 0);
  blk->machine--;
}

/* ---- the mask stack ---- */

static SimtFrame *
push (SimtBlock *blk, SimtFrameKind kind)
{
  SimtFrame *f;
  guint n = blk->n_warps;
  if (blk->depth == MDL_SIMT_MAX_DEPTH)
    {
      fail (blk->gpu, "if, loop and predicate frames nest deeper than %d", MDL_SIMT_MAX_DEPTH);
      blk->depth--;   /* reuse the top frame: the launch fails anyway */
    }
  f = &blk->frames[blk->depth];
  f->kind = kind;
  f->sync = blk->bssy_pending || blk->join_pending;
  f->shares_join = blk->join_pending;
  f->saw_else = FALSE;
  f->saved_mask = blk->frame_masks + (gsize) blk->depth * 4 * n;
  f->saved_issue = f->saved_mask + n;
  f->other = f->saved_issue + n;
  f->arrived = f->other + n;
  memcpy (f->saved_mask, blk->mask, n * sizeof (guint64));
  memcpy (f->saved_issue, blk->issue, n * sizeof (guint64));
  memset (f->arrived, 0, n * sizeof (guint64));
  blk->bssy_pending = FALSE;
  blk->join_pending = FALSE;
  blk->depth++;
  return f;
}

static SimtFrame *
top (SimtBlock *blk, SimtFrameKind kind, const char *call)
{
  static const char *const names[] = { "mdl_simt_if", "mdl_simt_loop_begin", "mdl_simt_pred_begin" };
  SimtFrame *f = blk->depth ? &blk->frames[blk->depth - 1] : NULL;
  if (f && f->kind == kind)
    return f;
  fail (blk->gpu, "%s without a matching %s", call, names[kind]);
  return NULL;
}

/* The BSYNC that the lanes in @arrive execute as they reach the join of a BSSY frame. */
static void
bsync (SimtBlock *blk, SimtFrame *f, guint w, guint64 arrive)
{
  arrive &= ~f->arrived[w];
  if (arrive == 0)
    return;
  emit (blk, MDL_WARP_ALU, w, arrive, 0);
  if (f->shares_join)
    for (SimtFrame *p = f - 1; p >= blk->frames; p--)
      if (p->sync)
        {
          p->arrived[w] |= arrive;
          break;
        }
}

void
mdl_simt_bssy (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  emit_issue (blk, MDL_WARP_ALU, 1);
  blk->bssy_pending = TRUE;
}

void
mdl_simt_join_outer (MdlSimtBlock *b)
{
  block_of (b)->join_pending = TRUE;
}

/* The lanes below @k of a warp (all 64 for k >= 64). */
static inline guint64
lanes_below (guint64 k)
{
  return k >= 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << k) - 1;
}

/* The lanes of warp @w whose threads t lie in @from <= t < @to. */
static inline guint64
range_mask (const SimtBlock *blk, guint w, guint64 from, guint64 to)
{
  guint64 base = (guint64) w * blk->pub.warp_width;   /* the warp's first thread */
  return lanes_below (to > base ? to - base : 0) & ~lanes_below (from > base ? from - base : 0);
}

/* Opens an if whose condition is the condition bytes, or, @by_range, @from <= t < @to. */
static void
if_open (SimtBlock *blk, gboolean by_range, guint64 from, guint64 to)
{
  SimtFrame *f = push (blk, SIMT_FRAME_IF);
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 active = blk->mask[w], taken;
      if (active == 0)
        {
          f->other[w] = 0;
          continue;
        }
      taken = active & (by_range ? range_mask (blk, w, from, to) : cond_mask (blk, w));
      emit (blk, MDL_WARP_BRANCH, w, active, taken);
      f->other[w] = active & ~taken;
      blk->mask[w] = blk->issue[w] = taken;
    }
}

void
mdl_simt_if (MdlSimtBlock *b)
{
  if_open (block_of (b), FALSE, 0, 0);
}

void
mdl_simt_if_range (MdlSimtBlock *b, guint64 from, guint64 to)
{
  if_open (block_of (b), TRUE, from, to);
}

void
mdl_simt_else (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  SimtFrame *f = top (blk, SIMT_FRAME_IF, "mdl_simt_else");
  if (f == NULL)
    return;
  if (f->saw_else)
    {
      fail (blk->gpu, "two mdl_simt_else for one mdl_simt_if");
      return;
    }
  f->saw_else = TRUE;
  for (guint w = 0; w < blk->n_warps; w++)
    {
      if (blk->mask[w])
        emit (blk, MDL_WARP_JUMP, w, blk->mask[w], 0);
      if (f->sync)
        bsync (blk, f, w, blk->mask[w]);
      blk->mask[w] = blk->issue[w] = f->other[w];
    }
}

void
mdl_simt_endif (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  SimtFrame *f = top (blk, SIMT_FRAME_IF, "mdl_simt_endif");
  if (f == NULL)
    return;
  for (guint w = 0; w < blk->n_warps; w++)
    {
      if (f->sync)
        {
          /* Without an else, the lanes that skipped the if side reached the join first. */
          if (!f->saw_else)
            bsync (blk, f, w, f->other[w]);
          bsync (blk, f, w, blk->mask[w]);
        }
      blk->mask[w] = f->saved_mask[w];
      blk->issue[w] = f->saved_issue[w];
    }
  blk->depth--;
}

void
mdl_simt_loop_begin (MdlSimtBlock *b)
{
  push (block_of (b), SIMT_FRAME_LOOP);
}

gboolean
mdl_simt_loop_test (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  SimtFrame *f = top (blk, SIMT_FRAME_LOOP, "mdl_simt_loop_test");
  gboolean any = FALSE;
  if (f == NULL)
    return FALSE;
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 active = blk->mask[w], taken;
      if (active == 0)
        continue;
      taken = active & cond_mask (blk, w);
      emit (blk, MDL_WARP_BRANCH, w, active, taken);
      if (f->sync)
        bsync (blk, f, w, active & ~taken);
      blk->mask[w] = blk->issue[w] = taken;
      any |= taken != 0;
    }
  if (!any || blk->gpu->error)
    {
      memcpy (blk->mask, f->saved_mask, blk->n_warps * sizeof (guint64));
      memcpy (blk->issue, f->saved_issue, blk->n_warps * sizeof (guint64));
      blk->depth--;
      return FALSE;
    }
  return TRUE;
}

void
mdl_simt_pred_begin (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  push (blk, SIMT_FRAME_PRED);
  for (guint w = 0; w < blk->n_warps; w++)
    blk->mask[w] &= cond_mask (blk, w);
}

void
mdl_simt_pred_range (MdlSimtBlock *b, guint64 from, guint64 to)
{
  SimtBlock *blk = block_of (b);
  push (blk, SIMT_FRAME_PRED);
  for (guint w = 0; w < blk->n_warps; w++)
    blk->mask[w] &= range_mask (blk, w, from, to);
}

void
mdl_simt_pred_end (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  SimtFrame *f = top (blk, SIMT_FRAME_PRED, "mdl_simt_pred_end");
  if (f == NULL)
    return;
  memcpy (blk->mask, f->saved_mask, blk->n_warps * sizeof (guint64));
  memcpy (blk->issue, f->saved_issue, blk->n_warps * sizeof (guint64));
  blk->depth--;
}

void
mdl_simt_exit (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  emit_issue (blk, MDL_WARP_ALU, 1);
  for (guint w = 0; w < blk->n_warps; w++)
    {
      guint64 gone = blk->mask[w];
      blk->mask[w] &= ~gone;
      blk->issue[w] &= ~gone;
      for (guint d = 0; d < blk->depth; d++)
        {
          SimtFrame *f = &blk->frames[d];
          f->saved_mask[w] &= ~gone;
          f->saved_issue[w] &= ~gone;
          f->other[w] &= ~gone;
        }
    }
}

void
mdl_simt_sync (MdlSimtBlock *b)
{
  SimtBlock *blk = block_of (b);
  MdlMarker m = { .kind = MDL_MARK_BARRIER, .launch = blk->launch, .block = blk->block_id };
  emit_issue (blk, MDL_WARP_BARRIER, 1);
  marker (blk->gpu, &m);
}

static void
phase (MdlSimtBlock *b, MdlMarkerKind kind, const char *name)
{
  MdlMarker m = { .kind = kind, .name = name };
  g_return_if_fail (name != NULL && strlen (name) <= MDL_NAME_MAX);
  marker (block_of (b)->gpu, &m);   /* flushes the pending warp events first */
}

void
mdl_simt_phase_begin (MdlSimtBlock *b, const char *name)
{
  phase (b, MDL_MARK_PHASE_BEGIN, name);
}

void
mdl_simt_phase_end (MdlSimtBlock *b, const char *name)
{
  phase (b, MDL_MARK_PHASE_END, name);
}

/* ---- launches ---- */

static gboolean
shape_ok (const MdlSimtLaunch *s, MdlSimtLaunch *norm, GError **error)
{
  *norm = *s;
  norm->grid_y = MAX (norm->grid_y, 1);
  norm->block_y = MAX (norm->block_y, 1);
  if (s->grid_x == 0 || s->block_x == 0
      || (guint64) norm->block_x * norm->block_y > MDL_SIMT_MAX_THREADS
      || s->shared_bytes > MDL_SIMT_MAX_SHARED || s->local_bytes > MDL_SIMT_MAX_SHARED
      || s->resident > MDL_SIMT_MAX_RESIDENT)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "simt: bad launch shape: grid %ux%u, block "
                   "%ux%u, %u shared bytes, %u local bytes, %u resident blocks (blocks of 1..%d "
                   "threads, memory up to %u bytes, at most %d resident)", s->grid_x, s->grid_y,
                   s->block_x, s->block_y, s->shared_bytes, s->local_bytes, s->resident,
                   MDL_SIMT_MAX_THREADS, MDL_SIMT_MAX_SHARED, MDL_SIMT_MAX_RESIDENT);
      return FALSE;
    }
  return TRUE;
}

void
mdl_simt_block_setup (MdlSimt *gpu, SimtBlock *blk, const MdlSimtLaunch *shape)
{
  guint threads = shape->block_x * shape->block_y;
  guint warps = (threads + gpu->warp_width - 1) / gpu->warp_width;
  if (warps > blk->cap_warps)
    {
      blk->mask = g_renew (guint64, blk->mask, warps);
      blk->issue = g_renew (guint64, blk->issue, warps);
      blk->frame_masks = g_renew (guint64, blk->frame_masks, (gsize) MDL_SIMT_MAX_DEPTH * 4 * warps);
      blk->cap_warps = warps;
    }
  if (threads > blk->cap_threads)
    {
      blk->cond = g_renew (guint8, blk->cond, threads);
      blk->cap_threads = threads;
    }
  blk->pub.shared = g_realloc (blk->pub.shared, MAX (shape->shared_bytes, 1));
  blk->local = g_realloc (blk->local, MAX ((gsize) shape->local_bytes * threads, 1));
  blk->gpu = gpu;
  blk->pub.active = blk->mask;
  blk->n_warps = warps;
  blk->shared_bytes = shape->shared_bytes;
  blk->local_bytes = shape->local_bytes;
  blk->launch_threads = (guint64) threads * shape->grid_x * shape->grid_y;
  blk->pub.n_threads = threads;
  blk->pub.dim_x = shape->block_x;
  blk->pub.dim_y = shape->block_y;
  blk->pub.grid_x = shape->grid_x;
  blk->pub.grid_y = shape->grid_y;
  blk->pub.warp_width = gpu->warp_width;
}

void
mdl_simt_block_run (SimtBlock *blk, guint32 block_id, MdlSimtKernel kernel, void *args)
{
  MdlSimt *gpu = blk->gpu;
  guint rest = blk->pub.n_threads % gpu->warp_width;
  blk->pub.idx_x = block_id % blk->pub.grid_x;
  blk->pub.idx_y = block_id / blk->pub.grid_x;
  blk->block_id = block_id;
  blk->depth = 0;
  blk->bssy_pending = FALSE;
  blk->join_pending = FALSE;
  blk->machine = 0;
  for (guint w = 0; w < blk->n_warps; w++)
    blk->mask[w] = gpu->warp_width == 64 ? G_MAXUINT64 : (((guint64) 1 << gpu->warp_width) - 1);
  if (rest)
    blk->mask[blk->n_warps - 1] = ((guint64) 1 << rest) - 1;
  memcpy (blk->issue, blk->mask, blk->n_warps * sizeof (guint64));
  memset (blk->pub.shared, 0, blk->shared_bytes);
  memset (blk->local, 0, (gsize) blk->local_bytes * blk->pub.n_threads);
  blk->arena_chunk = 0;
  blk->arena_used = 0;
  kernel (&blk->pub, args);
  if (blk->depth != 0)
    fail (gpu, "the kernel returned with %u if, loop or predicate frames open", blk->depth);
  else if (blk->machine != 0)
    fail (gpu, "the kernel returned with %u machine scopes open", blk->machine);
}

gboolean
mdl_simt_launch (MdlSimt *gpu, const MdlSimtLaunch *shape, MdlSimtKernel kernel, void *args,
                 GError **error)
{
  MdlSimtLaunch s;
  MdlMarker m;
  guint32 launch, n_blocks;

  g_return_val_if_fail (gpu != NULL && shape != NULL && kernel != NULL, FALSE);
  if (gpu->error || gpu->sink_error)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "simt: the GPU is unusable after an earlier "
                   "error");
      return FALSE;
    }
  if (!shape_ok (shape, &s, error))
    return FALSE;
  launch = gpu->n_launches++;
  n_blocks = s.grid_x * s.grid_y;
  m = (MdlMarker) { .kind = MDL_MARK_LAUNCH, .launch = launch, .grid_blocks = n_blocks,
                    .block_threads = s.block_x * s.block_y, .shared_bytes = s.shared_bytes,
                    .warp_width = gpu->warp_width };
  marker (gpu, &m);
  if (s.resident >= 2 && n_blocks >= 2)
    mdl_simt_run_interleaved (gpu, &s, launch, kernel, args);
  else
    {
      gpu->cur = &gpu->blk;
      mdl_simt_block_setup (gpu, &gpu->blk, &s);
      gpu->blk.launch = launch;
      for (guint32 id = 0; id < n_blocks && !gpu->error; id++)
        mdl_simt_block_run (&gpu->blk, id, kernel, args);
    }
  m = (MdlMarker) { .kind = MDL_MARK_SYNC };
  marker (gpu, &m);
  if (gpu->has_sink)
    flush (gpu);
  if (gpu->error)
    {
      g_propagate_error (error, g_error_copy (gpu->error));
      return FALSE;
    }
  if (gpu->sink_error)
    {
      g_propagate_error (error, g_error_copy (gpu->sink_error));
      return FALSE;
    }
  return TRUE;
}
