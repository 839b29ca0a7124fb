/* GPU-Quicksort (Cederman and Tsigas, ESA'08/JEA'09; Cederman's thesis ch. 2) in SIMT C.
 *
 * Phase one (Algorithm 1 on the host, Algorithm 2 on the GPU): the host cuts every sequence still
 * to partition into blocks of total/maxseq keys; each thread block counts its keys < and > the
 * sequence's pivot (pass 1), sums the per-thread counts (the block's cumulative sum, §2.6), takes
 * its regions of the other buffer by fetch-and-add on the sequence's two cursors, scatters its keys
 * there (pass 2), and the block that brings the sequence's block counter to zero (the last one)
 * writes the pivot run into the final buffer d and the pivots of the two new sequences. Phase two
 * (Algorithm 3): one block per sequence, a shared stack of sequences (the shorter on top), the same
 * two passes with the median of three as pivot, and a bitonic sort in shared memory below MINSIZE.
 * Every partition reads from one buffer and writes to the other; pivots and sorted runs always go
 * to d. phase1=host is the thesis's variant for GPUs without atomics: the same step as three
 * kernels (count, scatter, pivots) with the blocks' cumulative sum on the host between them. The
 * choices where the thesis is silent or garbled are in docs/models/sort-gpu-quicksort.md.
 *
 * Instructions mirror src/algos/cuda/gpu-quicksort.cu: every global or shared load and store of
 * the kernels is an event; comparisons and counter updates are ALU instructions; a pass's loop test
 * is a branch. The host side (building the block list, reading back the sequence records) emits
 * nothing, as the thesis's CPU part. Spec: ../shared/spec/gpu-quicksort-cederman.md §2.2-2.13. */
#include "algos/simt/gpu-quicksort.h"

#include <string.h>

#include <models/error.h>

#include "algos/keys.h"
#include "algos/simt/simt-algo.h"

/* ---- device records (32-bit words) ---- */

/* A sequence of phase one: its two cursors, its original bounds, the counter of its blocks not yet
 * done, its pivot, its blocks, and the pivots of its two new sequences (written by its last
 * block). */
enum {
  SQ_SSTART, SQ_SEND, SQ_OLDSTART, SQ_OLDEND, SQ_COUNT, SQ_PIVOT, SQ_FIRST, SQ_NBLOCKS,
  SQ_LPIVOT, SQ_GPIVOT, SQ_WORDS = 16
};
/* A block of phase one: its keys [start, end) and its sequence. */
enum { BD_START, BD_END, BD_SEQ, BD_WORDS = 4 };
/* phase1=host: a block's totals (from the count kernel) and its regions (from the host). */
enum { HB_LT, HB_GT, HB_LBEG, HB_GBEG, HB_WORDS = 4 };
/* A block's minimum and maximum of the keys < pivot and of those > pivot. */
enum { MM_LMIN, MM_LMAX, MM_GMIN, MM_GMAX, MM_WORDS = 4 };
/* A sequence of phase two: [start, end) in buffer flip (0: d, 1: the auxiliary buffer). */
enum { P2_START, P2_END, P2_FLIP, P2_WORDS = 4 };

#define KEY_MAX 0xffffffffu

typedef struct {
  const MdlGqsConfig *cfg;
  MdlGqsStats *st;
  guint64 buf[2];        /* device addresses: d, aux */
  guint32 *host[2];      /* their host views (the invariant check) */
  guint64 seqs, blocks, mm, p2;
  guint64 hb, off;       /* phase1=host: block sums and regions; per-thread offsets (2T a block) */
  int cur;               /* phase one: the buffer read */
  gboolean overflow;     /* phase two: the stack bound failed */
} Args;

/* Lane vectors of one kernel. */
typedef struct {
  guint64 *at, *x, *y, *i, *lt, *gt, *olt, *ogt, *tlt, *tgt, *mn0, *mx0, *mn1, *mx1;
} Regs;

static void
regs_init (MdlSimtBlock *blk, Regs *r)
{
  guint64 **all[] = { &r->at, &r->x, &r->y, &r->i, &r->lt, &r->gt, &r->olt, &r->ogt,
                      &r->tlt, &r->tgt, &r->mn0, &r->mx0, &r->mn1, &r->mx1 };
  for (gsize k = 0; k < G_N_ELEMENTS (all); k++)
    *all[k] = mdl_simt_reg (blk, 1);
}

static guint64
n_active (MdlSimtBlock *blk)
{
  guint64 c = 0;
  for (guint w = 0; w * blk->warp_width < blk->n_threads; w++)
    c += (guint64) __builtin_popcountll (blk->active[w]);
  return c;
}

/* Every active lane loads the 4-byte word at @addr of @space into @dst (a uniform load). */
static void
ld_uniform (MdlSimtBlock *blk, MdlSpace space, guint64 addr, guint64 *at, guint64 *dst)
{
  mdl_simt_algo_fill (blk, at, addr);
  mdl_simt_ld (blk, space, 4, at, dst);
}

/* Opens `if (threadIdx.x == 0)`. */
static void
if_thread0 (MdlSimtBlock *blk)
{
  mdl_simt_if_range (blk, 0, 1);
}

/* Opens an if whose condition @c is the same for every lane; the caller runs its body only when
 * @c holds. */
static void
if_uniform (MdlSimtBlock *blk, gboolean c)
{
  mdl_simt_if_range (blk, 0, c ? G_MAXUINT64 : 0);   /* every thread, or none */
}

/* Thread 0 stores @v at @addr of @space (its lane only; the others idle). */
static void
st_lane0 (MdlSimtBlock *blk, MdlSpace space, guint64 addr, guint64 v, Regs *r)
{
  mdl_simt_algo_fill (blk, r->at, addr);
  mdl_simt_algo_fill (blk, r->y, v);
  mdl_simt_st (blk, space, 4, r->at, r->y);
}

/* ---- the passes ---- */

typedef void (*Body) (MdlSimtBlock *blk, Regs *r, void *ctx);

/* for (i = lo + tid; i < hi; i += T) body: the loop test is a branch, the increment one ALU op. */
static void
strided (MdlSimtBlock *blk, Regs *r, guint64 lo, guint64 hi, Body body, void *ctx)
{
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    r->i[t] = lo + t;
  mdl_simt_loop_begin (blk);
  for (;;)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = r->i[t] < hi;
      if (!mdl_simt_loop_test (blk))
        break;
      body (blk, r, ctx);
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        r->i[t] += blk->n_threads;
    }
}

typedef struct {
  Args *a;
  guint64 src, dst;
  guint32 pivot;
  gboolean minmax;   /* pass 1 also keeps the minimum and maximum of each side */
} Pass;

/* Pass 1: count the keys < pivot (lt) and > pivot (gt); with minmax, their extremes too. */
static void
count_body (MdlSimtBlock *blk, Regs *r, void *ctx)
{
  Pass *p = ctx;
  MDL_SIMT_EACH (blk, t)
    r->at[t] = p->src + 4 * r->i[t];
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
  p->a->st->key_reads += n_active (blk);
  mdl_simt_alu (blk, p->minmax ? 8 : 4);
  MDL_SIMT_EACH (blk, t)
    {
      guint64 x = r->x[t];
      if (x < p->pivot)
        {
          r->lt[t]++;
          r->mn0[t] = MIN (r->mn0[t], x);
          r->mx0[t] = MAX (r->mx0[t], x);
        }
      if (x > p->pivot)
        {
          r->gt[t]++;
          r->mn1[t] = MIN (r->mn1[t], x);
          r->mx1[t] = MAX (r->mx1[t], x);
        }
    }
}

/* Pass 2: keys < pivot to dst[lfrom++] (lfrom in olt), keys > pivot to dst[gfrom++] (in ogt),
 * each a predicated store. */
static void
scatter_body (MdlSimtBlock *blk, Regs *r, void *ctx)
{
  Pass *p = ctx;
  guint8 *cond;
  MDL_SIMT_EACH (blk, t)
    r->at[t] = p->src + 4 * r->i[t];
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
  p->a->st->key_reads += n_active (blk);
  for (int side = 0; side < 2; side++)
    {
      guint64 *from = side ? r->ogt : r->olt;
      mdl_simt_alu (blk, 1);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = side ? r->x[t] > p->pivot : r->x[t] < p->pivot;
      mdl_simt_pred_begin (blk);
      MDL_SIMT_EACH (blk, t)
        r->at[t] = p->dst + 4 * from[t];
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
      p->a->st->aux_writes += n_active (blk);
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        from[t]++;
      mdl_simt_pred_end (blk);
    }
}

/* The pivot run: d[i] = pivot. */
static void
fill_body (MdlSimtBlock *blk, Regs *r, void *ctx)
{
  Pass *p = ctx;
  MDL_SIMT_EACH (blk, t)
    {
      r->at[t] = p->a->buf[0] + 4 * r->i[t];
      r->x[t] = p->pivot;
    }
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
  p->a->st->pivot_writes += n_active (blk);
}

/* ---- the block's cumulative sum (§2.6) ---- */

/* From the per-thread counts lt, gt: each thread's offsets olt, ogt (its region's start in the
 * block's left and right regions) and the totals tlt, tgt, through the shared words lt[0..T] at
 * byte @lt_at and gt[0..T] at @gt_at. Starts with a barrier-free store and ends after a barrier;
 * the caller has put a barrier between the last reads of these words and this call. */
static void
cumsum (MdlSimtBlock *blk, MdlGqsSum sum, guint64 lt_at, guint64 gt_at, Regs *r)
{
  guint T = blk->n_threads;
  if (sum == MDL_GQS_SUM_FAA)
    {
      /* One shared counter per side, zeroed by thread 0; every thread adds its count and gets
       * its offset back: the additions serialize on one word. */
      if_thread0 (blk);
      st_lane0 (blk, MDL_SPACE_SHARED, lt_at + 4 * T, 0, r);
      st_lane0 (blk, MDL_SPACE_SHARED, gt_at + 4 * T, 0, r);
      mdl_simt_endif (blk);
      mdl_simt_sync (blk);
      MDL_SIMT_EACH (blk, t)
        r->at[t] = lt_at + 4 * T;
      mdl_simt_atom_add (blk, MDL_SPACE_SHARED, 4, r->at, r->lt, r->olt);
      MDL_SIMT_EACH (blk, t)
        r->at[t] = gt_at + 4 * T;
      mdl_simt_atom_add (blk, MDL_SPACE_SHARED, 4, r->at, r->gt, r->ogt);
      mdl_simt_sync (blk);
      ld_uniform (blk, MDL_SPACE_SHARED, lt_at + 4 * T, r->at, r->tlt);
      ld_uniform (blk, MDL_SPACE_SHARED, gt_at + 4 * T, r->at, r->tgt);
      return;
    }
  MDL_SIMT_EACH (blk, t)
    r->at[t] = lt_at + 4 * t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->lt);
  MDL_SIMT_EACH (blk, t)
    r->at[t] = gt_at + 4 * t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->gt);
  mdl_simt_sync (blk);
  if (sum == MDL_GQS_SUM_SERIAL)
    {
      /* Thread 0 walks both arrays: load, store the running sum, add. */
      guint64 s0 = 0, s1 = 0;
      if_thread0 (blk);
      for (guint k = 0; k < T; k++)
        {
          guint64 v0, v1;
          ld_uniform (blk, MDL_SPACE_SHARED, lt_at + 4 * k, r->at, r->x);
          ld_uniform (blk, MDL_SPACE_SHARED, gt_at + 4 * k, r->at, r->y);
          v0 = r->x[0];
          v1 = r->y[0];
          st_lane0 (blk, MDL_SPACE_SHARED, lt_at + 4 * k, s0, r);
          st_lane0 (blk, MDL_SPACE_SHARED, gt_at + 4 * k, s1, r);
          mdl_simt_alu (blk, 3);   /* two adds, the loop's increment and test */
          s0 += v0;
          s1 += v1;
        }
      st_lane0 (blk, MDL_SPACE_SHARED, lt_at + 4 * T, s0, r);
      st_lane0 (blk, MDL_SPACE_SHARED, gt_at + 4 * T, s1, r);
      mdl_simt_endif (blk);
      mdl_simt_sync (blk);
    }
  else
    {
      /* Blelloch (Harris, Sengupta and Owens), exclusive, on both arrays at once; thread 0 moves
       * the totals to word T before clearing the roots. */
      guint offset = 1;
      for (guint d = T >> 1; d > 0; d >>= 1, offset <<= 1)
        {
          mdl_simt_if_range (blk, 0, d);
          for (int side = 0; side < 2; side++)
            {
              guint64 base = side ? gt_at : lt_at;
              MDL_SIMT_EACH (blk, t)
                r->at[t] = base + 4 * (offset * (2 * t + 1) - 1);
              mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->x);
              MDL_SIMT_EACH (blk, t)
                r->at[t] = base + 4 * (offset * (2 * t + 2) - 1);
              mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->y);
              mdl_simt_alu (blk, 1);
              MDL_SIMT_EACH (blk, t)
                r->y[t] += r->x[t];
              mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->y);
            }
          mdl_simt_endif (blk);
          mdl_simt_sync (blk);
        }
      if_thread0 (blk);
      for (int side = 0; side < 2; side++)
        {
          guint64 base = side ? gt_at : lt_at;
          ld_uniform (blk, MDL_SPACE_SHARED, base + 4 * (T - 1), r->at, r->x);
          st_lane0 (blk, MDL_SPACE_SHARED, base + 4 * T, r->x[0], r);
          st_lane0 (blk, MDL_SPACE_SHARED, base + 4 * (T - 1), 0, r);
        }
      mdl_simt_endif (blk);
      mdl_simt_sync (blk);
      for (guint d = 1; d < T; d <<= 1)
        {
          offset >>= 1;
          mdl_simt_if_range (blk, 0, d);
          for (int side = 0; side < 2; side++)
            {
              guint64 base = side ? gt_at : lt_at;
              guint64 *ai = r->olt, *bi = r->ogt;   /* free until the loads below */
              MDL_SIMT_EACH (blk, t)
                {
                  ai[t] = base + 4 * (offset * (2 * t + 1) - 1);
                  bi[t] = base + 4 * (offset * (2 * t + 2) - 1);
                }
              mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, ai, r->x);
              mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, bi, r->y);
              mdl_simt_st (blk, MDL_SPACE_SHARED, 4, ai, r->y);
              mdl_simt_alu (blk, 1);
              MDL_SIMT_EACH (blk, t)
                r->y[t] = (r->y[t] + r->x[t]) & KEY_MAX;
              mdl_simt_st (blk, MDL_SPACE_SHARED, 4, bi, r->y);
            }
          mdl_simt_endif (blk);
          mdl_simt_sync (blk);
        }
    }
  MDL_SIMT_EACH (blk, t)
    r->at[t] = lt_at + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->olt);
  MDL_SIMT_EACH (blk, t)
    r->at[t] = gt_at + 4 * t;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->ogt);
  ld_uniform (blk, MDL_SPACE_SHARED, lt_at + 4 * T, r->at, r->tlt);
  ld_uniform (blk, MDL_SPACE_SHARED, gt_at + 4 * T, r->at, r->tgt);
}

/* The block's minimum of mn0, mn1 and maximum of mx0, mx1 by a tree in the shared words at byte
 * @at (4T words), ending in thread 0's lanes of the four vectors; ends after a barrier. */
static void
minmax_reduce (MdlSimtBlock *blk, guint64 at, Regs *r)
{
  guint T = blk->n_threads;
  guint64 *v[4] = { r->mn0, r->mx0, r->mn1, r->mx1 };
  for (int k = 0; k < 4; k++)
    {
      mdl_simt_algo_lane_words (blk, r->at, at + 4 * (k * T), FALSE);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, v[k]);
    }
  mdl_simt_sync (blk);
  for (guint s = T / 2; s > 0; s >>= 1)
    {
      mdl_simt_if_range (blk, 0, s);
      for (int k = 0; k < 4; k++)
        {
          mdl_simt_algo_lane_words (blk, r->at, at + 4 * (k * T + s), FALSE);
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->x);
          mdl_simt_alu (blk, 1);
          MDL_SIMT_EACH (blk, t)
            {
              v[k][t] = k % 2 ? MAX (v[k][t], r->x[t]) : MIN (v[k][t], r->x[t]);
              r->at[t] = at + 4 * (k * T + t);
            }
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, v[k]);
        }
      mdl_simt_endif (blk);
      mdl_simt_sync (blk);
    }
}

static guint32
median3 (guint32 a, guint32 b, guint32 c)
{
  return MAX (MIN (a, b), MIN (MAX (a, b), c));
}

/* The pivot of [lo, hi) of buffer @src after a partition: the min/max average or the median of
 * three; @empty when the sequence has no key. */
static guint32
midpoint (guint32 mn, guint32 mx)
{
  return mn + (mx - mn) / 2;
}

/* ---- phase one: Algorithm 2 ---- */

/* Shared words of phase one: lt[0..T], gt[0..T], the extremes' tree (4T), three words. */
#define P1_LT(T) 0
#define P1_GT(T) (4 * ((guint64) (T) + 1))
#define P1_MM(T) (4 * (2 * (guint64) (T) + 2))
#define P1_SC(T) (4 * (6 * (guint64) (T) + 2))

/* The start of a phase-one kernel: block record, sequence and pivot; @pass gets the pivot. Returns
 * the sequence's address. */
static guint64
p1_block (MdlSimtBlock *blk, Args *a, Pass *pass, Regs *r, guint32 *start, guint32 *end)
{
  guint64 bd = a->blocks + 4 * BD_WORDS * (guint64) blk->idx_x, seq;
  ld_uniform (blk, MDL_SPACE_GLOBAL, bd + 4 * BD_START, r->at, r->x);
  ld_uniform (blk, MDL_SPACE_GLOBAL, bd + 4 * BD_END, r->at, r->y);
  *start = (guint32) r->x[0];
  *end = (guint32) r->y[0];
  ld_uniform (blk, MDL_SPACE_GLOBAL, bd + 4 * BD_SEQ, r->at, r->x);
  seq = a->seqs + 4 * SQ_WORDS * r->x[0];
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_PIVOT, r->at, r->x);
  pass->pivot = (guint32) r->x[0];
  return seq;
}

/* Pass 1 of the block's keys [start, end), the block's cumulative sum (each thread's offsets in
 * olt, ogt, the totals in tlt, tgt) and, with minmax, the block's extremes stored in its mm
 * record. */
static void
p1_count (MdlSimtBlock *blk, Args *a, Pass *pass, Regs *r, guint32 start, guint32 end)
{
  guint T = blk->n_threads;
  MDL_SIMT_EACH (blk, t)
    {
      r->mn0[t] = r->mn1[t] = KEY_MAX;
      r->mx0[t] = r->mx1[t] = 0;
    }
  mdl_simt_phase_begin (blk, "p1-count");
  strided (blk, r, start, end, count_body, pass);
  mdl_simt_phase_end (blk, "p1-count");
  mdl_simt_phase_begin (blk, "p1-cumsum");
  cumsum (blk, a->cfg->sum, P1_LT (T), P1_GT (T), r);
  mdl_simt_phase_end (blk, "p1-cumsum");
  if (pass->minmax)
    {
      minmax_reduce (blk, P1_MM (T), r);
      if_thread0 (blk);
      for (int k = 0; k < 4; k++)
        {
          guint64 v = (guint64[]) { r->mn0[0], r->mx0[0], r->mn1[0], r->mx1[0] }[k];
          st_lane0 (blk, MDL_SPACE_GLOBAL, a->mm + 4 * (MM_WORDS * (guint64) blk->idx_x + k), v,
                    r);
        }
      mdl_simt_endif (blk);
    }
}

/* Pass 2 from the block's regions, which start at lane vectors x (left) and y (right). */
static void
p1_scatter (MdlSimtBlock *blk, Pass *pass, Regs *r, guint32 start, guint32 end)
{
  mdl_simt_alu (blk, 2);
  MDL_SIMT_EACH (blk, t)
    {
      r->olt[t] += r->x[t];
      r->ogt[t] += r->y[t];
    }
  mdl_simt_phase_begin (blk, "p1-scatter");
  strided (blk, r, start, end, scatter_body, pass);
  mdl_simt_phase_end (blk, "p1-scatter");
}

/* The end of a sequence's partition, once all its blocks have scattered: the pivot run to d and
 * the pivots of the two new sequences. */
static void
p1_finish (MdlSimtBlock *blk, Args *a, Pass *pass, Regs *r, guint64 seq)
{
  guint T = blk->n_threads;
  guint32 sstart, send, oldstart, oldend;
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_SSTART, r->at, r->x);
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_SEND, r->at, r->y);
  sstart = (guint32) r->x[0];
  send = (guint32) r->y[0];
  mdl_simt_phase_begin (blk, "p1-pivots");
  strided (blk, r, sstart, send, fill_body, pass);
  mdl_simt_phase_end (blk, "p1-pivots");
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_OLDSTART, r->at, r->x);
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_OLDEND, r->at, r->y);
  oldstart = (guint32) r->x[0];
  oldend = (guint32) r->y[0];
  if (pass->minmax)
    {
      /* The sequence's extremes: each thread folds blocks first + t, first + t + T, ...,
       * then the tree. */
      guint32 first, nb;
      ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_FIRST, r->at, r->x);
      ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_NBLOCKS, r->at, r->y);
      first = (guint32) r->x[0];
      nb = (guint32) r->y[0];
      MDL_SIMT_EACH (blk, t)
        {
          r->mn0[t] = r->mn1[t] = KEY_MAX;
          r->mx0[t] = r->mx1[t] = 0;
        }
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        r->i[t] = first + t;
      mdl_simt_loop_begin (blk);
      for (;;)
        {
          guint8 *cond = mdl_simt_cond (blk);
          guint64 *v[4] = { r->mn0, r->mx0, r->mn1, r->mx1 };
          MDL_SIMT_EACH (blk, t)
            cond[t] = r->i[t] < (guint64) first + nb;
          if (!mdl_simt_loop_test (blk))
            break;
          for (int k = 0; k < 4; k++)
            {
              MDL_SIMT_EACH (blk, t)
                r->at[t] = a->mm + 4 * (MM_WORDS * r->i[t] + k);
              mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
              mdl_simt_alu (blk, 1);
              MDL_SIMT_EACH (blk, t)
                v[k][t] = k % 2 ? MAX (v[k][t], r->x[t]) : MIN (v[k][t], r->x[t]);
            }
          mdl_simt_alu (blk, 1);
          MDL_SIMT_EACH (blk, t)
            r->i[t] += T;
        }
      minmax_reduce (blk, P1_MM (T), r);
      if_thread0 (blk);
      mdl_simt_alu (blk, 4);
      st_lane0 (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_LPIVOT,
                midpoint ((guint32) r->mn0[0], (guint32) r->mx0[0]), r);
      st_lane0 (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_GPIVOT,
                midpoint ((guint32) r->mn1[0], (guint32) r->mx1[0]), r);
      mdl_simt_endif (blk);
    }
  else
    {
      /* Thread 0: the median of the first, middle and last key of each new sequence. */
      guint32 lo[2] = { oldstart, send }, hi[2] = { sstart, oldend };
      if_thread0 (blk);
      for (int side = 0; side < 2; side++)
        {
          guint32 sm[3] = { 0, 0, 0 };
          if (lo[side] < hi[side])
            {
              guint32 at[3] = { lo[side], lo[side] + (hi[side] - lo[side]) / 2, hi[side] - 1 };
              for (int k = 0; k < 3; k++)
                {
                  ld_uniform (blk, MDL_SPACE_GLOBAL, pass->dst + 4 * (guint64) at[k], r->at, r->x);
                  sm[k] = (guint32) r->x[0];
                }
              a->st->sample_reads += 3;
            }
          mdl_simt_alu (blk, 3);
          st_lane0 (blk, MDL_SPACE_GLOBAL, seq + 4 * (side ? SQ_GPIVOT : SQ_LPIVOT),
                    median3 (sm[0], sm[1], sm[2]), r);
        }
      mdl_simt_endif (blk);
    }
}

static Pass
p1_pass (Args *a)
{
  return (Pass) { a, a->buf[a->cur], a->buf[1 - a->cur], 0,
                  a->cfg->pivot == MDL_GQS_PIVOT_MINMAX };
}

/* phase1=atomic: the whole partition step in one kernel, a sequence's blocks meeting by FAA. */
static void
gqsort_kernel (MdlSimtBlock *blk, void *p)
{
  Args *a = p;
  guint T = blk->n_threads;
  Regs r;
  Pass pass = p1_pass (a);
  guint64 sc_at = P1_SC (T), seq;
  guint32 start, end;
  gboolean last;
  regs_init (blk, &r);
  seq = p1_block (blk, a, &pass, &r, &start, &end);
  p1_count (blk, a, &pass, &r, start, end);

  /* Thread 0 takes the block's regions: lbeg = FAA (sstart, lt_sum), gbeg = FAA (send, -gt_sum)
   * - gt_sum; a barrier, and every thread reads them. */
  if_thread0 (blk);
  MDL_SIMT_EACH (blk, t)
    {
      r.at[t] = seq + 4 * SQ_SSTART;
      r.y[t] = r.tlt[t];
    }
  mdl_simt_atom_add (blk, MDL_SPACE_GLOBAL, 4, r.at, r.y, r.x);
  st_lane0 (blk, MDL_SPACE_SHARED, sc_at, r.x[0], &r);
  MDL_SIMT_EACH (blk, t)
    {
      r.at[t] = seq + 4 * SQ_SEND;
      r.y[t] = (guint32) -r.tgt[t];
    }
  mdl_simt_atom_add (blk, MDL_SPACE_GLOBAL, 4, r.at, r.y, r.x);
  mdl_simt_alu (blk, 1);
  st_lane0 (blk, MDL_SPACE_SHARED, sc_at + 4, (guint32) (r.x[0] - r.tgt[0]), &r);
  mdl_simt_endif (blk);
  mdl_simt_sync (blk);
  ld_uniform (blk, MDL_SPACE_SHARED, sc_at, r.at, r.x);
  ld_uniform (blk, MDL_SPACE_SHARED, sc_at + 4, r.at, r.y);
  p1_scatter (blk, &pass, &r, start, end);

  /* __threadfence and a barrier (every key and extreme of the block out), then thread 0: last =
   * FAA (blockcount, -1) == 1; a barrier. */
  mdl_simt_alu (blk, 1);
  mdl_simt_sync (blk);
  if_thread0 (blk);
  MDL_SIMT_EACH (blk, t)
    {
      r.at[t] = seq + 4 * SQ_COUNT;
      r.y[t] = KEY_MAX;
    }
  mdl_simt_atom_add (blk, MDL_SPACE_GLOBAL, 4, r.at, r.y, r.x);
  mdl_simt_alu (blk, 1);
  st_lane0 (blk, MDL_SPACE_SHARED, sc_at + 8, r.x[0] == 1, &r);
  mdl_simt_endif (blk);
  mdl_simt_sync (blk);
  a->st->p1_atomics += 3;
  ld_uniform (blk, MDL_SPACE_SHARED, sc_at + 8, r.at, r.x);
  last = r.x[0] != 0;
  if_uniform (blk, last);
  if (last)
    {
      a->st->last_blocks++;
      mdl_simt_alu (blk, 1);   /* __threadfence */
      p1_finish (blk, a, &pass, &r, seq);
    }
  mdl_simt_endif (blk);
}

/* phase1=host: what kernels 1 and 2 share: the block's part of its sequence, and its slices of
 * the offset array (2T words: every thread's left offset, then its right one) and of the block
 * sums. */
typedef struct {
  Pass pass;
  guint32 start, end;
  guint64 off, hb;
} HostBlock;

static void
host_block (MdlSimtBlock *blk, Args *a, Regs *r, HostBlock *h)
{
  h->off = a->off + 4 * 2 * (guint64) blk->n_threads * blk->idx_x;
  h->hb = a->hb + 4 * HB_WORDS * (guint64) blk->idx_x;
  h->pass = p1_pass (a);
  regs_init (blk, r);
  p1_block (blk, a, &h->pass, r, &h->start, &h->end);
}

/* The addresses of every thread's left (@side 0) or right (@side 1) offset word. */
static void
offset_words (MdlSimtBlock *blk, const HostBlock *h, guint side, Regs *r)
{
  MDL_SIMT_EACH (blk, t)
    r->at[t] = h->off + 4 * (side * (guint64) blk->n_threads + t);
}

/* phase1=host, kernel 1 of 3: pass 1 and the block's sum; every thread stores its two offsets
 * and thread 0 the block's totals. */
static void
p1_count_kernel (MdlSimtBlock *blk, void *p)
{
  Args *a = p;
  Regs r;
  HostBlock h;
  host_block (blk, a, &r, &h);
  p1_count (blk, a, &h.pass, &r, h.start, h.end);
  offset_words (blk, &h, 0, &r);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r.at, r.olt);
  offset_words (blk, &h, 1, &r);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r.at, r.ogt);
  if_thread0 (blk);
  st_lane0 (blk, MDL_SPACE_GLOBAL, h.hb + 4 * HB_LT, r.tlt[0], &r);
  st_lane0 (blk, MDL_SPACE_GLOBAL, h.hb + 4 * HB_GT, r.tgt[0], &r);
  mdl_simt_endif (blk);
}

/* phase1=host, kernel 2 of 3: every thread reads its offsets and the block's regions (summed by
 * the host) and scatters. */
static void
p1_scatter_kernel (MdlSimtBlock *blk, void *p)
{
  Args *a = p;
  Regs r;
  HostBlock h;
  host_block (blk, a, &r, &h);
  offset_words (blk, &h, 0, &r);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r.at, r.olt);
  offset_words (blk, &h, 1, &r);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r.at, r.ogt);
  ld_uniform (blk, MDL_SPACE_GLOBAL, h.hb + 4 * HB_LBEG, r.at, r.x);
  ld_uniform (blk, MDL_SPACE_GLOBAL, h.hb + 4 * HB_GBEG, r.at, r.y);
  p1_scatter (blk, &h.pass, &r, h.start, h.end);
}

/* phase1=host, kernel 3 of 3: block s finishes sequence s (the launch is the barrier the atomic
 * variant's block counter stands for). */
static void
p1_pivot_kernel (MdlSimtBlock *blk, void *p)
{
  Args *a = p;
  guint64 seq = a->seqs + 4 * SQ_WORDS * (guint64) blk->idx_x;
  Regs r;
  Pass pass = p1_pass (a);
  regs_init (blk, &r);
  ld_uniform (blk, MDL_SPACE_GLOBAL, seq + 4 * SQ_PIVOT, r.at, r.x);
  pass.pivot = (guint32) r.x[0];
  a->st->last_blocks++;
  p1_finish (blk, a, &pass, &r, seq);
}

/* ---- phase two: Algorithm 3 ---- */

/* Shared words of lqsort: lt[0..T], gt[0..T], the stack (start, end, flip; MDL_GQS_STACK each),
 * its depth, the bitonic buffer (MINSIZE words). */
typedef struct {
  guint64 lt, gt, stack, sp, sort;
} LqLayout;

static LqLayout
lq_layout (guint T)
{
  LqLayout l;
  l.lt = 0;
  l.gt = 4 * (T + 1);
  l.stack = 4 * (2 * T + 2);
  l.sp = l.stack + 4 * 3 * MDL_GQS_STACK;
  l.sort = l.sp + 4;
  return l;
}

static void
loop_rounds_if (MdlSimtBlock *blk, guint64 first, guint64 bound)
{
  mdl_simt_if_range (blk, 0, bound > first ? bound - first : 0);   /* first + t < bound */
}

/* The alternative sort: [start, start + len) of buffer @flip loaded into the shared buffer, padded
 * with KEY_MAX to sb = the power of two >= len, sorted by the bitonic network (a barrier after each
 * of its log sb (log sb + 1)/2 stages), written to d[start..). Ends with a barrier, so that the
 * next sort may fill the buffer again. */
static void
altsort (MdlSimtBlock *blk, Args *a, const LqLayout *l, guint32 start, guint32 len, int flip,
         Regs *r)
{
  guint T = blk->n_threads;
  guint64 sb = 1, src = a->buf[flip];
  guint8 *cond;
  while (sb < len)
    sb *= 2;
  a->st->altsorts++;
  a->st->key_reads += len;
  if (flip)
    a->st->altsort_from_aux += len;
  mdl_simt_phase_begin (blk, "p2-bitonic");
  for (guint64 first = 0; first < sb; first += T)
    {
      loop_rounds_if (blk, first, sb);
      mdl_simt_algo_fill (blk, r->x, KEY_MAX);
      mdl_simt_algo_pred_range (blk, first, 0, len);   /* first + t < len */
      MDL_SIMT_EACH (blk, t)
        r->at[t] = src + 4 * (start + first + t);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
      mdl_simt_pred_end (blk);
      mdl_simt_algo_lane_words (blk, r->at, l->sort + 4 * first, FALSE);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->x);
      mdl_simt_endif (blk);
    }
  mdl_simt_sync (blk);
  for (guint64 k = 2; k <= sb; k <<= 1)
    for (guint64 j = k >> 1; j > 0; j >>= 1)
      {
        for (guint64 first = 0; first < sb; first += T)
          {
            loop_rounds_if (blk, first, sb);
            mdl_simt_alu (blk, 1);
            cond = mdl_simt_cond (blk);
            MDL_SIMT_EACH (blk, t)
              cond[t] = ((first + t) ^ j) > first + t;
            mdl_simt_if (blk);
            mdl_simt_algo_lane_words (blk, r->at, l->sort + 4 * first, FALSE);
            mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->x);
            MDL_SIMT_EACH (blk, t)
              r->i[t] = l->sort + 4 * ((first + t) ^ j);
            mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->i, r->y);
            mdl_simt_alu (blk, 3);
            cond = mdl_simt_cond (blk);
            MDL_SIMT_EACH (blk, t)
              {
                gboolean up = ((first + t) & k) == 0;
                cond[t] = up ? r->x[t] > r->y[t] : r->x[t] < r->y[t];
              }
            mdl_simt_pred_begin (blk);
            mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at, r->y);
            mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->i, r->x);
            mdl_simt_pred_end (blk);
            mdl_simt_endif (blk);
            mdl_simt_endif (blk);
          }
        mdl_simt_sync (blk);
      }
  for (guint64 first = 0; first < len; first += T)
    {
      loop_rounds_if (blk, first, len);
      mdl_simt_algo_lane_words (blk, r->at, l->sort + 4 * first, FALSE);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at, r->x);
      MDL_SIMT_EACH (blk, t)
        r->at[t] = a->buf[0] + 4 * (start + first + t);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r->at, r->x);
      a->st->sorted_writes += n_active (blk);
      mdl_simt_endif (blk);
    }
  mdl_simt_sync (blk);
  mdl_simt_phase_end (blk, "p2-bitonic");
}

/* Host side of a kernel: the pivot invariant of one partition of [lo, hi) with @pivot, whose
 * keys < pivot went to [lo, lo + nl) of @dst, those > pivot to [hi - ng, hi), and the pivot run
 * between to d. Counts failures. */
static void
check_partition (Args *a, const guint32 *dst, guint32 lo, guint32 hi, guint32 nl, guint32 ng,
                 guint32 pivot)
{
  const guint32 *d = a->host[0];
  if (!a->cfg->check)
    return;
  if (nl + ng > hi - lo)
    {
      a->st->violations++;
      return;
    }
  for (guint32 i = lo; i < lo + nl; i++)
    a->st->violations += dst[i] >= pivot;
  for (guint32 i = lo + nl; i < hi - ng; i++)
    a->st->violations += d[i] != pivot;
  for (guint32 i = hi - ng; i < hi; i++)
    a->st->violations += dst[i] <= pivot;
}

/* Thread 0 pushes [lo, hi) of buffer @flip on the shared stack. */
static void
push (MdlSimtBlock *blk, Args *a, const LqLayout *l, guint32 lo, guint32 hi, int flip, guint *sp,
      Regs *r)
{
  if (*sp >= MDL_GQS_STACK)
    {
      a->overflow = TRUE;
      return;
    }
  if_thread0 (blk);
  st_lane0 (blk, MDL_SPACE_SHARED, l->stack + 4 * (0 * MDL_GQS_STACK + *sp), lo, r);
  st_lane0 (blk, MDL_SPACE_SHARED, l->stack + 4 * (1 * MDL_GQS_STACK + *sp), hi, r);
  st_lane0 (blk, MDL_SPACE_SHARED, l->stack + 4 * (2 * MDL_GQS_STACK + *sp), (guint64) flip, r);
  mdl_simt_alu (blk, 1);
  st_lane0 (blk, MDL_SPACE_SHARED, l->sp, *sp + 1, r);
  mdl_simt_endif (blk);
  (*sp)++;
  a->st->max_stack = MAX (a->st->max_stack, *sp);
}

static void
lqsort_kernel (MdlSimtBlock *blk, void *p)
{
  Args *a = p;
  guint T = blk->n_threads, minsize = a->cfg->minsize, sp = 0;
  LqLayout l = lq_layout (T);
  Regs r;
  guint64 p2 = a->p2 + 4 * P2_WORDS * (guint64) blk->idx_x;
  guint32 v[3];
  regs_init (blk, &r);

  /* Thread 0 reads the block's sequence and pushes it. */
  if_thread0 (blk);
  for (int k = 0; k < 3; k++)
    {
      ld_uniform (blk, MDL_SPACE_GLOBAL, p2 + 4 * k, r.at, r.x);
      v[k] = (guint32) r.x[0];
    }
  mdl_simt_endif (blk);
  push (blk, a, &l, v[0], v[1], (int) v[2], &sp, &r);
  mdl_simt_sync (blk);

  mdl_simt_loop_begin (blk);
  for (;;)
    {
      guint8 *cond;
      guint32 start, end, len, pivot, nl, ng;
      int flip;
      Pass pass;
      ld_uniform (blk, MDL_SPACE_SHARED, l.sp, r.at, r.x);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = r.x[t] > 0;
      if (!mdl_simt_loop_test (blk))
        break;
      /* Every thread reads the top; a barrier; thread 0 pops it. */
      ld_uniform (blk, MDL_SPACE_SHARED, l.stack + 4 * (0 * MDL_GQS_STACK + sp - 1), r.at, r.x);
      start = (guint32) r.x[0];
      ld_uniform (blk, MDL_SPACE_SHARED, l.stack + 4 * (1 * MDL_GQS_STACK + sp - 1), r.at, r.x);
      end = (guint32) r.x[0];
      ld_uniform (blk, MDL_SPACE_SHARED, l.stack + 4 * (2 * MDL_GQS_STACK + sp - 1), r.at, r.x);
      flip = (int) r.x[0];
      mdl_simt_sync (blk);
      sp--;
      if_thread0 (blk);
      mdl_simt_alu (blk, 1);
      st_lane0 (blk, MDL_SPACE_SHARED, l.sp, sp, &r);
      mdl_simt_endif (blk);
      len = end - start;
      mdl_simt_alu (blk, 1);
      if_uniform (blk, len < minsize);
      if (len < minsize)
        {
          /* Only a sequence from phase one can be this short here (§2.5: guard at pop time). */
          if (len > 0)
            altsort (blk, a, &l, start, len, flip, &r);
          mdl_simt_endif (blk);
          mdl_simt_sync (blk);
          continue;
        }
      mdl_simt_endif (blk);

      pass = (Pass) { a, a->buf[flip], a->buf[1 - flip], 0, FALSE };
      {
        guint32 at[3] = { start, start + len / 2, end - 1 }, s[3];
        for (int k = 0; k < 3; k++)
          {
            ld_uniform (blk, MDL_SPACE_GLOBAL, pass.src + 4 * (guint64) at[k], r.at, r.x);
            s[k] = (guint32) r.x[0];
          }
        a->st->sample_reads += 3;
        mdl_simt_alu (blk, 4);
        pivot = pass.pivot = median3 (s[0], s[1], s[2]);
      }
      a->st->p2_partitions++;
      MDL_SIMT_EACH (blk, t)
        r.lt[t] = r.gt[t] = 0;
      mdl_simt_phase_begin (blk, "p2-count");
      strided (blk, &r, start, end, count_body, &pass);
      mdl_simt_phase_end (blk, "p2-count");
      mdl_simt_phase_begin (blk, "p2-cumsum");
      cumsum (blk, a->cfg->sum, l.lt, l.gt, &r);
      mdl_simt_phase_end (blk, "p2-cumsum");
      nl = (guint32) r.tlt[0];
      ng = (guint32) r.tgt[0];
      /* lfrom = start + lt[tid]; gfrom = end - (gt[tid] + own count), the right region filled
       * from the back in thread order (Algorithm 3's end - gt[tid+1]). */
      mdl_simt_alu (blk, 3);
      MDL_SIMT_EACH (blk, t)
        {
          r.olt[t] += start;
          r.ogt[t] = end - (r.ogt[t] + r.gt[t]);
        }
      mdl_simt_phase_begin (blk, "p2-scatter");
      strided (blk, &r, start, end, scatter_body, &pass);
      mdl_simt_phase_end (blk, "p2-scatter");
      /* When the sequence lives in d, the pivot run overwrites keys that other warps may still
       * be reading in pass 2 (the CUDA twin failed at n >= 2^20 without this barrier). */
      mdl_simt_sync (blk);
      mdl_simt_phase_begin (blk, "p2-pivots");
      mdl_simt_alu (blk, 2);
      strided (blk, &r, start + nl, end - ng, fill_body, &pass);
      mdl_simt_phase_end (blk, "p2-pivots");
      check_partition (a, a->host[1 - flip], start, end, nl, ng, pivot);
      /* The new sequences' keys came from every thread of the block. */
      mdl_simt_sync (blk);
      {
        guint32 lo[2] = { start, end - ng }, hi[2] = { start + nl, end };
        int longer = ng > nl;   /* push the longer first: the shorter ends on top */
        mdl_simt_alu (blk, 2);
        for (int k = 0; k < 2; k++)
          {
            int c = k == 0 ? longer : 1 - longer;
            guint32 clen = hi[c] - lo[c];
            if_uniform (blk, clen >= minsize);
            if (clen >= minsize)
              push (blk, a, &l, lo[c], hi[c], 1 - flip, &sp, &r);
            mdl_simt_else (blk);
            if (clen < minsize && clen > 0)
              altsort (blk, a, &l, lo[c], clen, 1 - flip, &r);
            mdl_simt_endif (blk);
          }
      }
      /* The next pop reads the stack and the next pass reuses lt and gt. */
      mdl_simt_sync (blk);
    }
}

/* ---- the host: Algorithm 1 ---- */

typedef struct {
  guint32 start, end, pivot;
} Work;

typedef struct {
  guint32 start, end, flip;
} Done;

static int
done_longer_first (gconstpointer x, gconstpointer y)
{
  const Done *a = x, *b = y;
  guint32 la = a->end - a->start, lb = b->end - b->start;
  if (la != lb)
    return la > lb ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

/* phase1=host: the count kernel, the host's cumulative sum of each sequence's blocks (in block
 * order: left regions from the front, right ones from the back, as the FAAs hand them out when
 * the blocks arrive in order), the scatter kernel and the pivot kernel over the @n_seqs
 * sequences. */
static gboolean
p1_host_step (MdlSimt *gpu, Args *a, const MdlSimtLaunch *shape, guint n_seqs, GError **error)
{
  guint32 *seqs = mdl_simt_host (gpu, a->seqs), *hb = mdl_simt_host (gpu, a->hb);
  MdlSimtLaunch one_per_seq = *shape;
  if (!mdl_simt_launch (gpu, shape, p1_count_kernel, a, error))
    return FALSE;
  for (guint s = 0; s < n_seqs; s++)
    {
      guint32 *q = seqs + SQ_WORDS * s;
      for (guint32 b = q[SQ_FIRST]; b < q[SQ_FIRST] + q[SQ_NBLOCKS]; b++)
        {
          guint32 *h = hb + HB_WORDS * b;
          h[HB_LBEG] = q[SQ_SSTART];
          q[SQ_SSTART] += h[HB_LT];
          q[SQ_SEND] -= h[HB_GT];
          h[HB_GBEG] = q[SQ_SEND];
          a->st->host_sums++;
        }
    }
  one_per_seq.grid_x = n_seqs;
  return mdl_simt_launch (gpu, shape, p1_scatter_kernel, a, error)
         && mdl_simt_launch (gpu, &one_per_seq, p1_pivot_kernel, a, error);
}

MdlGqsConfig
mdl_gqs_config_default (void)
{
  return (MdlGqsConfig) { .threads = 128, .maxseq = 512, .minsize = 256,
                          .pivot = MDL_GQS_PIVOT_MINMAX, .sum = MDL_GQS_SUM_SCAN,
                          .phase1 = MDL_GQS_PHASE1_ATOMIC };
}

static gboolean
config_ok (const MdlGqsConfig *cfg, GError **error)
{
  const char *why = NULL;
  if (cfg->threads < 32 || cfg->threads > 1024 || (cfg->threads & (cfg->threads - 1)))
    why = "threads must be a power of two, 32..1024";
  else if (cfg->maxseq < 1 || cfg->maxseq > (1u << 20))
    why = "maxseq must be 1..2^20";
  else if (cfg->minsize < 1 || cfg->minsize > 8192 || (cfg->minsize & (cfg->minsize - 1)))
    why = "minsize must be a power of two, 1..8192";
  if (why)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/gpu-quicksort: %s", why);
  return why == NULL;
}

gboolean
mdl_gqs_sort (MdlSimt *gpu, const MdlGqsConfig *cfg, guint64 d, guint64 n, MdlGqsStats *stats,
              GError **error)
{
  MdlGqsStats local = { 0 };
  MdlGqsStats *st = stats ? stats : &local;
  Args a = { .cfg = cfg, .st = st };
  guint T = cfg->threads;
  guint64 cap_blocks = 3 * (guint64) cfg->maxseq + 1, cap_p2 = 2 * (guint64) cfg->maxseq + 1;
  g_autoptr (GArray) work = g_array_new (FALSE, FALSE, sizeof (Work));
  g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (Work));
  g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (Done));
  guint32 *seqs, *blocks, *list;
  *st = (MdlGqsStats) { 0 };
  if (!config_ok (cfg, error))
    return FALSE;
  if (n > (G_GUINT64_CONSTANT (1) << 31))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/gpu-quicksort: n must be at most 2^31");
      return FALSE;
    }
  if (n == 0)
    return TRUE;
  a.buf[0] = d;
  if (!(a.buf[1] = mdl_simt_alloc (gpu, 4 * n, error))
      || !(a.seqs = mdl_simt_alloc (gpu, 4 * SQ_WORDS * (gsize) cfg->maxseq, error))
      || !(a.blocks = mdl_simt_alloc (gpu, 4 * BD_WORDS * cap_blocks, error))
      || !(a.mm = mdl_simt_alloc (gpu, 4 * MM_WORDS * cap_blocks, error))
      || !(a.p2 = mdl_simt_alloc (gpu, 4 * P2_WORDS * cap_p2, error)))
    return FALSE;
  st->aux_bytes = 4 * n;
  st->bookkeeping_bytes = 4 * (SQ_WORDS * (guint64) cfg->maxseq + (BD_WORDS + MM_WORDS) * cap_blocks
                               + P2_WORDS * cap_p2);
  if (cfg->phase1 == MDL_GQS_PHASE1_HOST)
    {
      if (!(a.hb = mdl_simt_alloc (gpu, 4 * HB_WORDS * cap_blocks, error))
          || !(a.off = mdl_simt_alloc (gpu, 4 * 2 * (guint64) T * cap_blocks, error)))
        return FALSE;
      st->bookkeeping_bytes += 4 * (HB_WORDS + 2 * (guint64) T) * cap_blocks;
    }
  a.host[0] = mdl_simt_host (gpu, a.buf[0]);
  a.host[1] = mdl_simt_host (gpu, a.buf[1]);
  seqs = mdl_simt_host (gpu, a.seqs);
  blocks = mdl_simt_host (gpu, a.blocks);
  list = mdl_simt_host (gpu, a.p2);

  /* The first pivot from d[0], d[n/2], d[n-1] (read by the host). */
  {
    guint32 s0 = a.host[0][0], s1 = a.host[0][n / 2], s2 = a.host[0][n - 1];
    Work w = { 0, (guint32) n, cfg->pivot == MDL_GQS_PIVOT_MEDIAN
                                 ? median3 (s0, s1, s2)
                                 : midpoint (MIN (s0, MIN (s1, s2)), MAX (s0, MAX (s1, s2))) };
    st->sample_reads += 3;
    g_array_append_val (work, w);
  }
  a.cur = 0;
  while (work->len > 0 && work->len + done->len < cfg->maxseq)
    {
      guint64 total = 0, blocksize, nb = 0, minlength = MAX (n / cfg->maxseq, cfg->minsize);
      MdlSimtLaunch shape = { 0 };
      for (guint s = 0; s < work->len; s++)
        total += g_array_index (work, Work, s).end - g_array_index (work, Work, s).start;
      /* Algorithm 1's total/maxseq, but never fewer keys than threads (only below n = maxseq T,
       * where the thesis's rule would launch blocks of one key). */
      blocksize = MAX (total / cfg->maxseq, T);
      for (guint s = 0; s < work->len; s++)
        {
          Work *w = &g_array_index (work, Work, s);
          guint64 count = (w->end - w->start + blocksize - 1) / blocksize;
          guint32 *q = seqs + SQ_WORDS * s;
          q[SQ_SSTART] = q[SQ_OLDSTART] = w->start;
          q[SQ_SEND] = q[SQ_OLDEND] = w->end;
          q[SQ_COUNT] = (guint32) count;
          q[SQ_PIVOT] = w->pivot;
          q[SQ_FIRST] = (guint32) nb;
          q[SQ_NBLOCKS] = (guint32) count;
          for (guint64 k = 0; k < count; k++, nb++)
            {
              guint32 *b = blocks + BD_WORDS * nb;
              g_assert (nb < cap_blocks);
              b[BD_START] = (guint32) (w->start + k * blocksize);
              b[BD_END] = (guint32) (k + 1 == count ? w->end : w->start + (k + 1) * blocksize);
              b[BD_SEQ] = s;
            }
        }
      shape.grid_x = (guint32) nb;
      shape.block_x = T;
      shape.shared_bytes = 4 * (6 * T + 6);
      if (cfg->phase1 == MDL_GQS_PHASE1_ATOMIC
              ? !mdl_simt_launch (gpu, &shape, gqsort_kernel, &a, error)
              : !p1_host_step (gpu, &a, &shape, work->len, error))
        return FALSE;
      st->p1_launches += cfg->phase1 == MDL_GQS_PHASE1_ATOMIC ? 1 : 3;
      st->iterations++;
      st->p1_blocks += nb;
      st->p1_partitions += work->len;
      g_array_set_size (next, 0);
      for (guint s = 0; s < work->len; s++)
        {
          const guint32 *q = seqs + SQ_WORDS * s;
          Work kids[2] = { { q[SQ_OLDSTART], q[SQ_SSTART], q[SQ_LPIVOT] },
                           { q[SQ_SEND], q[SQ_OLDEND], q[SQ_GPIVOT] } };
          check_partition (&a, a.host[1 - a.cur], q[SQ_OLDSTART], q[SQ_OLDEND],
                           q[SQ_SSTART] - q[SQ_OLDSTART], q[SQ_OLDEND] - q[SQ_SEND], q[SQ_PIVOT]);
          for (int k = 0; k < 2; k++)
            {
              guint32 len = kids[k].end - kids[k].start;
              Done dn = { kids[k].start, kids[k].end, (guint32) (1 - a.cur) };
              if (len == 0)
                continue;
              if (len < minlength)
                g_array_append_val (done, dn);
              else
                g_array_append_val (next, kids[k]);
            }
        }
      g_array_set_size (work, 0);
      g_array_append_vals (work, next->data, next->len);
      a.cur = 1 - a.cur;
    }
  for (guint s = 0; s < work->len; s++)
    {
      Work *w = &g_array_index (work, Work, s);
      Done dn = { w->start, w->end, (guint32) a.cur };
      g_array_append_val (done, dn);
    }
  st->sequences = done->len;
  if (st->violations)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/gpu-quicksort: %" G_GUINT64_FORMAT
                   " keys break the pivot invariant in phase one", st->violations);
      return FALSE;
    }
  if (done->len == 0)
    return TRUE;
  g_assert (done->len <= cap_p2);
  g_array_sort (done, done_longer_first);
  for (guint s = 0; s < done->len; s++)
    {
      const Done *dn = &g_array_index (done, Done, s);
      list[P2_WORDS * s + P2_START] = dn->start;
      list[P2_WORDS * s + P2_END] = dn->end;
      list[P2_WORDS * s + P2_FLIP] = dn->flip;
    }
  {
    MdlSimtLaunch shape = { .grid_x = done->len, .block_x = T };
    shape.shared_bytes = (guint32) (lq_layout (T).sort + 4 * (guint64) cfg->minsize);
    if (!mdl_simt_launch (gpu, &shape, lqsort_kernel, &a, error))
      return FALSE;
  }
  if (a.overflow || st->violations)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/gpu-quicksort: %s",
                   a.overflow ? "the phase-two stack passed its bound of 32 entries"
                              : "a phase-two partition broke the pivot invariant");
      return FALSE;
    }
  return TRUE;
}

/* ---- the registry row ---- */

const MdlParamSpec mdl_gpu_quicksort_params[] = {
  MDL_KEYS_DIST_ROW,
  MDL_KEYS_TYPE_ROW,
  { "threads", MDL_PARAM_UINT, "128", NULL, 32, 1024, NULL, MDL_PARAM_POW2,
    "T, threads per block of both phases" },
  { "maxseq", MDL_PARAM_UINT, "512", NULL, 1, 1u << 20, NULL, 0,
    "the most sequences phase one makes before phase two takes over" },
  { "minsize", MDL_PARAM_UINT, "256", NULL, 1, 8192, NULL, MDL_PARAM_POW2,
    "S (MINSIZE): shorter sequences are sorted by the bitonic sort in shared memory" },
  { "pivot", MDL_PARAM_CHOICE, "minmax", NULL, 0, 0, "minmax|median", 0,
    "phase one's pivots: the average of min and max (the thesis's experiments) or the median of "
    "three (Algorithm 2)" },
  { "sum", MDL_PARAM_CHOICE, "scan", NULL, 0, 0, "scan|serial|faa", 0,
    "the block's cumulative sum: Blelloch scan of both arrays, thread 0 alone, or one shared FAA "
    "per thread" },
  { "phase1", MDL_PARAM_CHOICE, "atomic", NULL, 0, 0, "atomic|host", 0,
    "how phase one's blocks of a sequence meet: FAA in one kernel, or the 8800GTX's way without "
    "atomics: count, scatter and pivot kernels with the block sums on the host" },
  { NULL }
};

static gboolean
gqs_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
          GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree guint32 *in = NULL;
  MdlGqsConfig cfg = mdl_gqs_config_default ();
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  gboolean f32 = mdl_params_choice (params, "keys") == 1;
  guint64 d, first = 0, bad;
  guint32 *keys;
  if (!mdl_simt_algo_size_ok ("sort/gpu-quicksort", n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  cfg.threads = (guint) mdl_params_uint (params, "threads");
  cfg.maxseq = (guint) mdl_params_uint (params, "maxseq");
  cfg.minsize = (guint) mdl_params_uint (params, "minsize");
  cfg.pivot = (MdlGqsPivot) mdl_params_choice (params, "pivot");
  cfg.sum = (MdlGqsSum) mdl_params_choice (params, "sum");
  cfg.phase1 = (MdlGqsPhase1) mdl_params_choice (params, "phase1");
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(d = mdl_simt_alloc (gpu, 4 * n, error)))
    return FALSE;
  keys = mdl_simt_host (gpu, d);
  if (!mdl_keys_fill_typed (keys, n, dist, seed, f32) || !(in = g_try_new (guint32, n)))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/gpu-quicksort: out of memory");
      return FALSE;
    }
  memcpy (in, keys, 4 * n);
  if ((f32 && !mdl_simt_keys_order (gpu, d, d, n, FALSE, error))
      || !mdl_gqs_sort (gpu, &cfg, d, n, NULL, error)
      || (f32 && !mdl_simt_keys_order (gpu, d, d, n, TRUE, error)))
    return FALSE;
  bad = mdl_keys_check_typed (in, keys, n, f32, &first);
  if (bad)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/gpu-quicksort: %" G_GUINT64_FORMAT
                   " of %" G_GUINT64_FORMAT " keys out of place, the first at %" G_GUINT64_FORMAT,
                   bad, n, first);
      return FALSE;
    }
  *checksum = mdl_simt_algo_checksum (keys, 4 * n);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (gpu_quicksort, gqs_body)
