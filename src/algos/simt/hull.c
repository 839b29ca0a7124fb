/* The MSIMD 2D convex hull (Jurkiewicz & Danilewski §3, A.3) in SIMT C: one warp is one
 * SIMD-processor (a block of 32 threads, so that the msimd engine's processor of block b is b).
 *
 * A problem is (l, r, the points strictly left of l→r), kept in a slot range [lo, lo + n) of a
 * buffer; the hull is found clockwise. Slots hold points, hull vertices or the empty marker (NaN);
 * a vertex and an empty slot are written to both buffers, so that when every problem is done
 * either buffer holds the hull in order with gaps, and a stable compaction ends the run.
 *
 *   init     (A.3 Init., 5 launches) each processor reduces its ⌈n/P⌉ points to its four extremes,
 *            one processor picks the primary quadrilateral ABCD, each processor counts its points
 *            above each edge, one processor scans the counts, each processor copies its points
 *            into the bins [A][above AB][B][above BC][C][above CD][D][above DA]; points inside
 *            ABCD are dropped; bins get processors in proportion to their sizes, at least one each;
 *   collab   (one round per iteration, 5 launches) every problem with two or more processors:
 *            each reduces its share to the point furthest along the normal of the problem's random
 *            pair (Alg. 3), one processor picks m per problem (a segmented argmax; m = l or r is a
 *            failed attempt, redone on lr's own normal, which always yields a vertex); each
 *            processor classifies its share against lm and mr, pairs neighbours of one class
 *            (Alg. 4's pruning, A.3 ⑦) and overwrites a pruned point by m, and stores its two
 *            counts; one processor scans them; Lemma 1 assigns the children their processors
 *            (mdl_mqs_assign, shared with sort/msimd-quicksort); each processor copies its share's
 *            survivors to the other buffer (left child, m, right child, empties);
 *   indep    (1 launch) each processor solves the problems it owns alone with a stack of problems
 *            in shared memory, the larger child pushed first (depth <= log2 n): part=copy with the
 *            same three passes (pivot, count, copy to the other buffer), part=alg5 with Algorithm 5
 *            (pivot, then one in-place pass from both ends through a 2S-point register buffer);
 *   final    (3 launches) count the non-empty slots per processor, scan, copy them to the output.
 *
 * Decisions where the paper is unclear (docs/models/hull.md): exact predicates on the grid of
 * src/algos/points.h; ties of the pivot broken along the pair's direction (so m is a strict vertex);
 * of a pair within one class, q is pruned when it lies in the closed triangle (a, p, c) of the
 * child's base a→c, else p when in (a, q, c), so a duplicate loses one copy, never both; part=copy
 * is not in place (two buffers, as the collaborative stage's U), so the independent stage reads a
 * point three times per iteration (pivot, count, copy) where part=alg5 reads it twice; Algorithm
 * 5's gaps (neither half full, both full, unaligned stores) are filled as its section says.
 * The driver's work between launches (assignments, descriptors) is host code, unpriced.
 * Spec: msimd-jurkiewicz-danilewski.md §4–5, V8–V14. */
#include "algos/simt/simt-algo.h"
#include "algos/simt/hull.h"
#include "algos/simt/msimd-quicksort.h"
#include "algos/points.h"

#include <math.h>
#include <string.h>

const MdlParamSpec mdl_hull_msimd_params[] = {
  { "P", MDL_PARAM_UINT, "480", NULL, 4, 65535, NULL, 0,
    "SIMD-processors (warps; one block of 32 threads each); 480 is the paper's GTX 285" },
  { "dist", MDL_PARAM_CHOICE, "disc", NULL, 0, 0, MDL_POINT_DIST_CHOICES, 0,
    "points: " MDL_POINT_DIST_CHOICES " (src/algos/points.h)" },
  { "prec", MDL_PARAM_CHOICE, "f32", NULL, 0, 0, MDL_POINT_PREC_CHOICES, 0,
    "coordinates: f32 (8-byte points, the paper's) or f64 (16-byte points)" },
  { "part", MDL_PARAM_CHOICE, "copy", NULL, 0, 0, MDL_HULL_PART_CHOICES, 0,
    "the independent stage's partition: copy: classify and count, then copy the survivors to the "
    "other buffer (three reads a point); alg5: Algorithm 5, in place from both ends through a "
    "2S-point register buffer (two reads a point)" },
  { NULL }
};

#define S 32u            /* lanes = points per chunk */
#define DESC 16u         /* words per processor descriptor (one 64-byte load) */
#define ENTRY 8u         /* words per stack entry */
#define STACK 64u        /* entries of a processor's stack: the smaller child is on top */
#define NONE G_MAXUINT32 /* no slot */
#define RETRIES 8u       /* failed collaborative partitions of a problem before one processor
                            takes it alone */

enum { D_LO, D_N, D_PS, D_RANK, D_FIRST, D_L, D_R, D_A, D_B, D_SRC, D_ACTIVE, D_PERP };

typedef struct { double x, y; } Pt;
/* A pivot direction: maximize nrm·p, then d·p (so the winner is an extreme point). */
typedef struct { Pt nrm, d; } Dir;

/* What the consult of the pivots knows of each processor (its descriptor's words). */
typedef struct {
  Dir dir;
  Pt l, r;
  guint src;
  gboolean active, last;
} Proc;

typedef struct {
  guint64 n, P, seed, slots;
  MdlPointPrec prec;
  guint pb;                 /* bytes per point */
  gboolean alg5;            /* part=alg5 */
  guint64 in, buf[2], out;  /* device addresses */
  guint64 desc, cand, cnt, piv, quad;
  guint64 scan_words;       /* scan_kernel: words of cnt */
  Proc *procs;
  MdlHullStats *st;
  guint64 *iters;           /* independent iterations per processor */
} Hull;

/* ---- lanes ---- */

/* The active lanes load point @idx[t] of the array at @base[t] of @space (one 8- or 16-byte
 * load). */
static void
ld_pts_in (MdlSimtBlock *blk, const Hull *h, MdlSpace space, const guint64 *base,
           const guint64 *idx, Pt *p)
{
  guint64 *at = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 2);
  MDL_SIMT_EACH (blk, t)
    at[t] = base[t] + h->pb * idx[t];
  mdl_simt_ld (blk, space, h->pb, at, v);
  MDL_SIMT_EACH (blk, t)
    {
      if (h->prec == MDL_POINTS_F32)
        {
          guint32 w[2] = { (guint32) v[t], (guint32) (v[t] >> 32) };
          float f[2];
          memcpy (f, w, sizeof f);
          p[t].x = f[0], p[t].y = f[1];
        }
      else
        memcpy (&p[t], v + 2 * t, sizeof (Pt));
    }
}

static void
ld_pts (MdlSimtBlock *blk, const Hull *h, const guint64 *base, const guint64 *idx, Pt *p)
{
  ld_pts_in (blk, h, MDL_SPACE_GLOBAL, base, idx, p);
}

static void
st_pts_in (MdlSimtBlock *blk, const Hull *h, MdlSpace space, guint64 base, const guint64 *idx,
           const Pt *p)
{
  guint64 *at = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 2);
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = base + h->pb * idx[t];
      if (h->prec == MDL_POINTS_F32)
        {
          float f[2] = { (float) p[t].x, (float) p[t].y };
          guint32 w[2];
          memcpy (w, f, sizeof w);
          v[t] = w[0] | (guint64) w[1] << 32;
        }
      else
        memcpy (v + 2 * t, &p[t], sizeof (Pt));
    }
  mdl_simt_st (blk, space, h->pb, at, v);
}

static void
st_pts (MdlSimtBlock *blk, const Hull *h, guint64 base, const guint64 *idx, const Pt *p)
{
  st_pts_in (blk, h, MDL_SPACE_GLOBAL, base, idx, p);
}

static guint64 *
same (MdlSimtBlock *blk, guint64 v)
{
  guint64 *r = mdl_simt_reg (blk, 1);
  for (guint t = 0; t < S; t++)
    r[t] = v;
  return r;
}

/* Lanes 0..@k−1 load slot @slot[i] of buffer @src; every lane gets all (2k shuffles). */
static void
ld_few (MdlSimtBlock *blk, const Hull *h, guint src, guint k, const guint64 *slot, Pt *out)
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  Pt p[S];
  mdl_simt_algo_pred_range (blk, 0, 0, k);
  MDL_SIMT_EACH (blk, t)
    idx[t] = slot[t];
  ld_pts (blk, h, same (blk, h->buf[src]), idx, p);
  mdl_simt_pred_end (blk);
  mdl_simt_alu (blk, 2 * k);
  memcpy (out, p, k * sizeof (Pt));
}

static void
load_desc (MdlSimtBlock *blk, const Hull *h, guint64 p, guint64 d[DESC])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  mdl_simt_algo_pred_range (blk, 0, 0, DESC);
  MDL_SIMT_EACH (blk, t)
    idx[t] = p * DESC + t;
  mdl_simt_algo_ld_words (blk, h->desc, idx, v);
  mdl_simt_pred_end (blk);
  memcpy (d, v, DESC * sizeof (guint64));
}

/* ---- geometry ---- */

static double
cross (Pt a, Pt b, Pt c)
{
  return mdl_point_cross (a.x, a.y, b.x, b.y, c.x, c.y);
}

static gboolean
pt_eq (Pt a, Pt b)
{
  return a.x == b.x && a.y == b.y;
}

/* Alg. 3's direction: the normal of the pair a→b that points away from l→r, or l→r's own normal
 * when the pair gives none (a = b, ab perpendicular to the normal of lr, or @perp). */
static Dir
direction (Pt l, Pt r, Pt a, Pt b, gboolean perp)
{
  Pt out = { -(r.y - l.y), r.x - l.x }, d = { b.x - a.x, b.y - a.y }, nrm = { -d.y, d.x };
  double side = nrm.x * out.x + nrm.y * out.y;
  if (perp || side == 0)
    return (Dir) { out, { r.x - l.x, r.y - l.y } };
  if (side < 0)
    return (Dir) { { -nrm.x, -nrm.y }, { -d.x, -d.y } };
  return (Dir) { nrm, d };
}

/* TRUE when @p beats @q along @dir (exact: grid points, see points.h). */
static gboolean
beats (const Dir *dir, Pt p, Pt q)
{
  double a = dir->nrm.x * p.x + dir->nrm.y * p.y, b = dir->nrm.x * q.x + dir->nrm.y * q.y;
  return a > b || (a == b && dir->d.x * p.x + dir->d.y * p.y > dir->d.x * q.x + dir->d.y * q.y);
}

/* The child of a point for the pivot m of problem (l, r): 0 left (strictly left of l→m), 1 right
 * (strictly left of m→r), 2 dropped (in the closed triangle l, m, r). */
static guint
side_of (Pt l, Pt m, Pt r, Pt p)
{
  return cross (l, m, p) > 0 ? 0 : cross (m, r, p) > 0 ? 1 : 2;
}

/* Of a pair p, q of the child with base a→c (both strictly left of it): TRUE when q lies in the
 * closed triangle (a, p, c), so it is no strict vertex (or a copy of p). */
static gboolean
covered (Pt a, Pt c, Pt p, Pt q)
{
  return cross (a, p, q) <= 0 && cross (p, c, q) <= 0;
}

/* The four directions of the primary quadrilateral, clockwise from the top-left: A maximizes
 * −x+y, then x+y (the next one), B x+y then x−y, C x−y then −x−y, D −x−y then −x+y. */
static const Dir quad_dirs[4] = {
  { { -1, 1 }, { 1, 1 } }, { { 1, 1 }, { 1, -1 } }, { { 1, -1 }, { -1, -1 } }, { { -1, -1 }, { -1, 1 } },
};

/* ---- the passes of one processor over slots [@a, @b) of buffer @src ---- */

/* Alg. 3 line 3 on [@a, @b): the slot of the furthest point along @dir (NONE if empty) and the
 * point, after a warp argmax (5 steps of 2 shuffles, 2 compares, 2 selects). */
static guint64
pivot_pass (MdlSimtBlock *blk, const Hull *h, guint src, guint64 a, guint64 b, const Dir *dir,
            Pt *best)
{
  guint64 *idx = mdl_simt_reg (blk, 1), slot = NONE;
  Pt p[S];
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->buf[src]), idx, p);
      mdl_simt_alu (blk, 8);
      MDL_SIMT_EACH (blk, t)
        if (slot == NONE || beats (dir, p[t], *best))
          *best = p[t], slot = idx[t];
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 5 * 8);
  return slot;
}

/* The count phase on [@a, @b) for pivot @m of (l, r): classifies, prunes pairs of one class
 * (ranks 2j and 2j+1 among the chunk's lanes of that class), overwrites a pruned point by @m in
 * place (A.3 step 3) and counts the survivors of each child into @kept. */
static void
count_pass (MdlSimtBlock *blk, Hull *h, guint src, guint64 a, guint64 b, Pt l, Pt m, Pt r,
            guint64 kept[2])
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  Pt p[S], fill[S];
  kept[0] = kept[1] = 0;
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      guint cls[S], rank_of[2][S], n_cls[2] = { 0, 0 }, dropped = 0;
      gboolean drop[S] = { FALSE };
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->buf[src]), idx, p);
      /* Two cross products, then per class a ballot and a masked popc. */
      mdl_simt_alu (blk, 10 + 4);
      MDL_SIMT_EACH (blk, t)
        {
          cls[t] = side_of (l, m, r, p[t]);
          if (cls[t] < 2)
            rank_of[cls[t]][n_cls[cls[t]]++] = t;
        }
      /* ⑦: partners swap coordinates (2 shuffles, the partner's lane found by an fns), then two
       * triangle tests of two cross products each. */
      mdl_simt_alu (blk, 3 + 8);
      for (guint k = 0; k < 2; k++)
        for (guint j = 0; j + 1 < n_cls[k]; j += 2)
          {
            guint tp = rank_of[k][j], tq = rank_of[k][j + 1];
            Pt base_a = k == 0 ? l : m, base_c = k == 0 ? m : r;
            if (covered (base_a, base_c, p[tp], p[tq]))
              drop[tq] = TRUE;
            else if (covered (base_a, base_c, p[tq], p[tp]))
              drop[tp] = TRUE;
          }
      MDL_SIMT_EACH (blk, t)
        {
          dropped += drop[t];
          if (cls[t] < 2 && !drop[t])
            kept[cls[t]]++;
          fill[t] = m;
        }
      if (dropped)
        {
          guint8 *cond = mdl_simt_cond (blk);
          MDL_SIMT_EACH (blk, t)
            cond[t] = drop[t];
          mdl_simt_pred_begin (blk);
          st_pts (blk, h, h->buf[src], idx, fill);
          mdl_simt_pred_end (blk);
          h->st->pruned += dropped;
        }
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 2 * 5 * 2);
}

/* The commit on [@a, @b): each chunk's left points to buffer @dst at *@pos_l on, its right ones
 * at *@pos_r on (one store per class and chunk; pruned points are m now, dropped as inside). */
static void
copy_pass (MdlSimtBlock *blk, const Hull *h, guint src, guint dst, guint64 a, guint64 b, Pt l,
           Pt m, Pt r, guint64 *pos_l, guint64 *pos_r)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *out = mdl_simt_reg (blk, 1);
  Pt p[S];
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      guint cls[S], count[3] = { 0, 0, 0 };
      guint64 *pos[2] = { pos_l, pos_r };
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->buf[src]), idx, p);
      mdl_simt_alu (blk, 10 + 4);
      MDL_SIMT_EACH (blk, t)
        {
          cls[t] = side_of (l, m, r, p[t]);
          out[t] = *pos[MIN (cls[t], 1)] + count[cls[t]]++;
        }
      for (guint k = 0; k < 2; k++)
        if (count[k])
          {
            guint8 *cond = mdl_simt_cond (blk);
            MDL_SIMT_EACH (blk, t)
              cond[t] = cls[t] == k;
            mdl_simt_pred_begin (blk);
            st_pts (blk, h, h->buf[dst], out, p);
            mdl_simt_pred_end (blk);
            *pos[k] += count[k];
          }
      mdl_simt_pred_end (blk);
    }
}

/* Lane 0 writes @m to slot @slot of buffer @buf, or of both when @buf is 2. */
static void
put_vertex (MdlSimtBlock *blk, const Hull *h, guint buf, guint64 slot, Pt m)
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  Pt p[S];
  mdl_simt_algo_pred_range (blk, 0, 0, 1);
  idx[0] = slot, p[0] = m;
  for (guint k = 0; k < 2; k++)
    if (buf == 2 || buf == k)
      st_pts (blk, h, h->buf[k], idx, p);
  mdl_simt_pred_end (blk);
}

/* Empty markers into slots [@a, @b) of both buffers. */
static void
fill_empty (MdlSimtBlock *blk, const Hull *h, guint64 a, guint64 b)
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  Pt p[S];
  for (guint t = 0; t < S; t++)
    p[t] = (Pt) { NAN, NAN };
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      for (guint k = 0; k < 2; k++)
        st_pts (blk, h, h->buf[k], idx, p);
      mdl_simt_pred_end (blk);
    }
}

/* The block [*a, *b) that processor @rank of @ps claims of @n slots at @lo. */
static void
claim (guint64 lo, guint64 n, guint64 ps, guint64 rank, guint64 *a, guint64 *b)
{
  guint64 m = (n + ps - 1) / ps;
  *a = MIN (lo + rank * m, lo + n);
  *b = MIN (*a + m, lo + n);
}

/* ---- one-processor kernels (the paper's single block) ---- */

/* Exclusive scan of cnt[0 .. scan_words) in place, the total at cnt[scan_words]. */
static void
scan_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), carry = 0;
  for (guint64 c = 0; c * S < h->scan_words; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, 0, h->scan_words);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      mdl_simt_algo_ld_words (blk, h->cnt, idx, v);
      mdl_simt_alu (blk, 5 * 2 + 2);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 x = v[t];
          v[t] = carry;
          carry += x;
        }
      mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->cnt, idx, v);
      mdl_simt_pred_end (blk);
    }
  mdl_simt_algo_st_word0 (blk, h->cnt, h->scan_words, carry, idx, v);
}

/* The primary quadrilateral: the extremes of the processors' candidates (qc[4p + e]) → quad[e]. */
static void
quad_consult_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), best[4] = { NONE, NONE, NONE, NONE };
  Pt p[S], bp[4];
  for (guint64 c = 0; c * S < 4 * h->P; c++)
    {
      guint8 *cond;
      mdl_simt_algo_pred_range (blk, c * S, 0, 4 * h->P);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      mdl_simt_algo_ld_words (blk, h->cand, idx, v);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        cond[t] = v[t] != NONE;
      mdl_simt_pred_begin (blk);
      ld_pts (blk, h, same (blk, h->in), v, p);
      mdl_simt_alu (blk, 5 * 8);
      MDL_SIMT_EACH (blk, t)
        {
          guint e = (c * S + t) % 4;
          if (best[e] == NONE || beats (&quad_dirs[e], p[t], bp[e]))
            best[e] = v[t], bp[e] = p[t];
        }
      mdl_simt_pred_end (blk);
      mdl_simt_pred_end (blk);
    }
  mdl_simt_algo_pred_range (blk, 0, 0, 4);
  MDL_SIMT_EACH (blk, t)
    idx[t] = t, v[t] = best[t];
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->quad, idx, v);
  mdl_simt_pred_end (blk);
}

/* The pivot of every shared problem: a segmented argmax over the processors' candidates; the
 * last processor of a problem gets piv = the winner's slot, or NONE when l or r is further. */
static void
pivot_consult_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *base = mdl_simt_reg (blk, 1);
  guint64 run = NONE;
  Pt p[S], bp = { 0, 0 };
  for (guint64 c = 0; c * S < h->P; c++)
    {
      guint8 *cond;
      mdl_simt_algo_pred_range (blk, c * S, 0, h->P);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      mdl_simt_algo_ld_words (blk, h->cand, idx, v);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = v[t] != NONE;
          base[t] = h->buf[h->procs[c * S + t].src];
        }
      mdl_simt_pred_begin (blk);
      ld_pts (blk, h, base, v, p);
      mdl_simt_pred_end (blk);
      /* The segmented scan: 5 steps of 3 shuffles, 2 compares and 2 selects, then l and r. */
      mdl_simt_alu (blk, 5 * 7 + 6);
      MDL_SIMT_EACH (blk, t)
        {
          const Proc *q = &h->procs[c * S + t];
          if (v[t] != NONE && q->active && (run == NONE || beats (&q->dir, p[t], bp)))
            run = v[t], bp = p[t];
          cond[t] = q->active && q->last;
          if (cond[t])
            {
              if (run != NONE && (beats (&q->dir, q->l, bp) || beats (&q->dir, q->r, bp)))
                run = NONE;
              v[t] = run;
              run = NONE;
            }
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->piv, idx, v);
      mdl_simt_pred_end (blk);
      mdl_simt_pred_end (blk);
    }
}

/* ---- the primary quadrilateral (normal kernels) ---- */

/* Each processor's four extremes of its ⌈n/P⌉ input points → cand[4p + e]. */
static void
quad_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), a, b, best[4] = { NONE, NONE, NONE, NONE };
  Pt p[S], bp[4];
  claim (0, h->n, h->P, blk->idx_x, &a, &b);
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->in), idx, p);
      mdl_simt_alu (blk, 4 * 6);
      MDL_SIMT_EACH (blk, t)
        for (guint e = 0; e < 4; e++)
          if (best[e] == NONE || beats (&quad_dirs[e], p[t], bp[e]))
            best[e] = idx[t], bp[e] = p[t];
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 5 * 4 * 6);
  mdl_simt_algo_pred_range (blk, 0, 0, 4);
  MDL_SIMT_EACH (blk, t)
    idx[t] = 4 * blk->idx_x + t, v[t] = best[t];
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->cand, idx, v);
  mdl_simt_pred_end (blk);
}

/* The edge of ABCD a point is above (0..3: AB, BC, CD, DA), or 4. At most one: the vertices are
 * extreme points (V11, checked by the tests). */
static guint
edge_of (const Pt q[4], Pt p)
{
  for (guint e = 0; e < 4; e++)
    if (cross (q[e], q[(e + 1) % 4], p) > 0)
      return e;
  return 4;
}

/* Lanes 0..3 load ABCD from the input (one gather); every lane gets them. */
static void
load_quad (MdlSimtBlock *blk, const Hull *h, Pt q[4])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  Pt p[S];
  mdl_simt_algo_pred_range (blk, 0, 0, 4);
  MDL_SIMT_EACH (blk, t)
    idx[t] = t;
  mdl_simt_algo_ld_words (blk, h->quad, idx, v);
  ld_pts (blk, h, same (blk, h->in), v, p);
  mdl_simt_pred_end (blk);
  mdl_simt_alu (blk, 8);
  memcpy (q, p, 4 * sizeof (Pt));
}

/* Counts of each processor's points above each edge → cnt[e P + p]. */
static void
bin_count_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), a, b, count[5] = { 0 };
  Pt q[4], p[S];
  load_quad (blk, h, q);
  claim (0, h->n, h->P, blk->idx_x, &a, &b);
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->in), idx, p);
      mdl_simt_alu (blk, 4 * 5 + 4);
      MDL_SIMT_EACH (blk, t)
        count[edge_of (q, p[t])]++;
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 4 * 5 * 2);
  mdl_simt_algo_pred_range (blk, 0, 0, 4);
  MDL_SIMT_EACH (blk, t)
    idx[t] = t * h->P + blk->idx_x, v[t] = count[t];
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->cnt, idx, v);
  mdl_simt_pred_end (blk);
}

/* Each processor copies its points into the bins; processor 0 writes ABCD's slots (a vertex equal
 * to an earlier one leaves its slot empty). */
static void
bin_copy_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *out = mdl_simt_reg (blk, 1);
  guint64 a, b, pos[4], start[4];
  Pt q[4], p[S];
  load_quad (blk, h, q);
  /* Lanes 0..7 gather the scanned counts: this processor's and each bin's first. */
  mdl_simt_algo_pred_range (blk, 0, 0, 8);
  MDL_SIMT_EACH (blk, t)
    idx[t] = (t % 4) * h->P + (t < 4 ? blk->idx_x : 0);
  mdl_simt_algo_ld_words (blk, h->cnt, idx, v);
  mdl_simt_pred_end (blk);
  for (guint e = 0; e < 4; e++)
    start[e] = v[4 + e], pos[e] = 1 + e + v[e];
  claim (0, h->n, h->P, blk->idx_x, &a, &b);
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      guint cls[S], count[5] = { 0 };
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->in), idx, p);
      mdl_simt_alu (blk, 4 * 5 + 4 * 2);
      MDL_SIMT_EACH (blk, t)
        {
          cls[t] = edge_of (q, p[t]);
          out[t] = cls[t] < 4 ? pos[cls[t]] + count[cls[t]] : 0;
          count[cls[t]]++;
        }
      for (guint e = 0; e < 4; e++)
        if (count[e])
          {
            guint8 *cond = mdl_simt_cond (blk);
            MDL_SIMT_EACH (blk, t)
              cond[t] = cls[t] == e;
            mdl_simt_pred_begin (blk);
            st_pts (blk, h, h->buf[0], out, p);
            mdl_simt_pred_end (blk);
            pos[e] += count[e];
          }
      mdl_simt_pred_end (blk);
    }
  if (blk->idx_x == 0)
    {
      Pt w[S];
      mdl_simt_algo_pred_range (blk, 0, 0, 4);
      MDL_SIMT_EACH (blk, t)
        {
          gboolean dup = FALSE;
          for (guint e = 0; e < t; e++)
            dup |= pt_eq (q[e], q[t]);
          idx[t] = t + start[t];   /* vertex e sits just before bin e */
          w[t] = dup ? (Pt) { NAN, NAN } : q[t];
        }
      mdl_simt_alu (blk, 6);
      for (guint k = 0; k < 2; k++)
        st_pts (blk, h, h->buf[k], idx, w);
      mdl_simt_pred_end (blk);
    }
}

/* ---- the collaborative stage (normal kernels) ---- */

/* The problem's l and r, and with @pair its random pair a, b (one gather). */
static void
load_ends (MdlSimtBlock *blk, const Hull *h, const guint64 d[DESC], gboolean pair, Pt e[4])
{
  guint64 slot[4] = { d[D_L], d[D_R], d[D_A], d[D_B] };
  ld_few (blk, h, (guint) d[D_SRC], pair ? 4 : 2, slot, e);
}

static void
collab_pivot_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 d[DESC], a, b, *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  Pt e[4], best = { 0, 0 };
  Dir dir;
  load_desc (blk, h, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  load_ends (blk, h, d, TRUE, e);
  dir = direction (e[0], e[1], e[2], e[3], d[D_PERP] != 0);
  mdl_simt_alu (blk, 8);
  claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &a, &b);
  v[0] = pivot_pass (blk, h, (guint) d[D_SRC], a, b, &dir, &best);
  mdl_simt_algo_st_word0 (blk, h->cand, blk->idx_x, v[0], idx, v);
}

/* l, r and m of an active processor's problem (m's slot from piv of the problem's last). */
static void
load_lmr (MdlSimtBlock *blk, const Hull *h, const guint64 d[DESC], Pt *l, Pt *m, Pt *r,
          guint64 *m_slot)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), slot[3];
  Pt e[3];
  *m_slot = mdl_simt_algo_ld_word0 (blk, h->piv, d[D_FIRST] + d[D_PS] - 1, idx, v);
  slot[0] = d[D_L], slot[1] = *m_slot, slot[2] = d[D_R];
  ld_few (blk, h, (guint) d[D_SRC], 3, slot, e);
  *l = e[0], *m = e[1], *r = e[2];
}

static void
collab_count_kernel (MdlSimtBlock *blk, void *args)
{
  Hull *h = args;
  guint64 d[DESC], a, b, m_slot, kept[2], *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  Pt l, m, r;
  load_desc (blk, h, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  load_lmr (blk, h, d, &l, &m, &r, &m_slot);
  claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &a, &b);
  count_pass (blk, h, (guint) d[D_SRC], a, b, l, m, r, kept);
  /* Class-major counters: cnt[2 f + c P_s + rank]. */
  mdl_simt_algo_pred_range (blk, 0, 0, 2);
  MDL_SIMT_EACH (blk, t)
    idx[t] = 2 * d[D_FIRST] + t * d[D_PS] + d[D_RANK], v[t] = kept[t];
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, h->cnt, idx, v);
  mdl_simt_pred_end (blk);
}

static void
collab_copy_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 d[DESC], a, b, m_slot, *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  guint64 pos_l, pos_r, nl, f, ps;
  Pt l, m, r;
  load_desc (blk, h, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  load_lmr (blk, h, d, &l, &m, &r, &m_slot);
  f = d[D_FIRST], ps = d[D_PS];
  /* Lanes 0..4 gather the scanned counters: own left, own right, the problem's three bounds. */
  mdl_simt_algo_pred_range (blk, 0, 0, 5);
  {
    guint64 at[5] = { 2 * f + d[D_RANK], 2 * f + ps + d[D_RANK], 2 * f, 2 * f + ps, 2 * f + 2 * ps };
    MDL_SIMT_EACH (blk, t)
      idx[t] = at[t];
  }
  mdl_simt_algo_ld_words (blk, h->cnt, idx, v);
  mdl_simt_pred_end (blk);
  nl = v[3] - v[2];
  pos_l = d[D_LO] + v[0] - v[2];
  pos_r = d[D_LO] + nl + 1 + v[1] - v[3];
  claim (d[D_LO], d[D_N], ps, d[D_RANK], &a, &b);
  copy_pass (blk, h, (guint) d[D_SRC], 1 - (guint) d[D_SRC], a, b, l, m, r, &pos_l, &pos_r);
  if (d[D_RANK] == 0)
    put_vertex (blk, h, 1 - (guint) d[D_SRC], d[D_LO] + nl, m);
}

/* A.3 step 6, after the copy (the copy still reads these slots of the source): the empty marker
 * to the slots no child uses, in both buffers, and m (which the copy put in the destination) to
 * its slot of the source too; the counts come from the copy's scan. */
static void
collab_empty_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 d[DESC], a, b, nl, nr, f, ps, *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  guint src;
  load_desc (blk, h, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  f = d[D_FIRST], ps = d[D_PS], src = (guint) d[D_SRC];
  mdl_simt_algo_pred_range (blk, 0, 0, 3);
  MDL_SIMT_EACH (blk, t)
    idx[t] = 2 * f + t * ps;
  mdl_simt_algo_ld_words (blk, h->cnt, idx, v);
  mdl_simt_pred_end (blk);
  nl = v[1] - v[0], nr = v[2] - v[1];
  if (d[D_RANK] == 0)
    {
      guint64 slot[1] = { d[D_LO] + nl };
      Pt m;
      ld_few (blk, h, 1 - src, 1, slot, &m);
      put_vertex (blk, h, src, slot[0], m);
    }
  claim (d[D_LO] + nl + 1 + nr, d[D_N] - nl - 1 - nr, ps, d[D_RANK], &a, &b);
  fill_empty (blk, h, a, b);
}

/* ---- Algorithm 5: the independent stage's partition in place (part=alg5) ---- */

/* Shared bytes of the counting sort's 2S points, after the stack. */
#define SORT_AT (4 * ENTRY * STACK)
#define SORT_BYTES (2 * S * 16)

enum { LEFT, RIGHT, FREE };

/* The 2S-point register buffer (③): lane t holds slots t and t + S. The sort (⑥) packs it as
 * [left][free][right]; 'discard' is free, its point never stored. */
typedef struct {
  Pt p[2 * S];
  guint cls[2 * S];
  guint n[2];               /* live points of each class */
} Regs;

/* One partition (Algorithm 5 lines 6–30) of the @n slots at @lo of buffer @src for pivot @m of
 * (l, r): each point is read once, from one end or the other; the left child's survivors are
 * stored from the front on, the right child's from the back down. */
typedef struct {
  const Hull *h;
  guint src;
  Pt l, m, r;
  guint64 lo, n;
  guint64 rf, rb;           /* unread slots: [rf, rb) */
  guint64 wf, wb;           /* next front store at wf, back stores end at wb */
  Regs regs;
} Alg5;

/* Reads @k points into slots [@first, @first + k) (distinct lanes: k <= S) from the front or
 * the back of the unread range, and classifies them (④). */
static void
alg5_read (MdlSimtBlock *blk, Alg5 *a, gboolean front, guint first, guint k)
{
  guint64 *idx = mdl_simt_reg (blk, 1), from = front ? a->rf : a->rb - k;
  guint8 *cond = mdl_simt_cond (blk);
  guint slot_of[S];
  Pt p[S];
  for (guint j = 0; j < k; j++)
    slot_of[(first + j) % S] = first + j;
  MDL_SIMT_EACH (blk, t)
    {
      cond[t] = (t + S - first % S) % S < k;
      if (cond[t])
        idx[t] = from + (slot_of[t] - first);
    }
  mdl_simt_pred_begin (blk);
  ld_pts (blk, a->h, same (blk, a->h->buf[a->src]), idx, p);
  mdl_simt_alu (blk, 10);
  MDL_SIMT_EACH (blk, t)
    {
      guint s = slot_of[t];
      g_assert (a->regs.cls[s] == FREE);
      a->regs.p[s] = p[t];
      a->regs.cls[s] = side_of (a->l, a->m, a->r, p[t]);
      if (a->regs.cls[s] != FREE)
        a->regs.n[a->regs.cls[s]]++;
    }
  mdl_simt_pred_end (blk);
  if (front)
    a->rf += k;
  else
    a->rb -= k;
  a->h->st->loop_reads += k;
}

/* ⑥: the 3-key counting sort of the 2S slots, left first, right last: ranks by ballots and
 * popcounts, then each lane's live points through shared memory (2 stores, 2 loads). */
static void
alg5_sort (MdlSimtBlock *blk, Alg5 *a)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *sort_base = same (blk, SORT_AT);
  guint next[2] = { 0, 2 * S - a->regs.n[RIGHT] }, dest[2 * S];
  Regs *g = &a->regs;
  Pt p[S];
  mdl_simt_alu (blk, 2 * 2 * 3);
  for (guint s = 0; s < 2 * S; s++)
    if (g->cls[s] != FREE)
      dest[s] = next[g->cls[s]]++;
  for (guint half = 0; half < 2; half++)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = g->cls[half * S + t] != FREE;
          if (cond[t])
            idx[t] = dest[half * S + t], p[t] = g->p[half * S + t];
        }
      mdl_simt_pred_begin (blk);
      st_pts_in (blk, a->h, MDL_SPACE_SHARED, SORT_AT, idx, p);
      mdl_simt_pred_end (blk);
    }
  for (guint s = 0; s < 2 * S; s++)
    g->cls[s] = s < g->n[LEFT] ? LEFT : s >= 2 * S - g->n[RIGHT] ? RIGHT : FREE;
  for (guint half = 0; half < 2; half++)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = g->cls[half * S + t] != FREE;
          idx[t] = half * S + t;
        }
      mdl_simt_pred_begin (blk);
      ld_pts_in (blk, a->h, MDL_SPACE_SHARED, sort_base, idx, p);
      MDL_SIMT_EACH (blk, t)
        g->p[half * S + t] = p[t];
      mdl_simt_pred_end (blk);
    }
}

/* ⑦ and ⑧: connectInPairsAndDiscardSome on the points of class @c in slots [@first, @first +
 * @k) (partners s and s ^ 1, both in the range), then storeChunk: the survivors to the front
 * (left) or the back (right) of the problem, in one store; a child that ends with one point (a
 * vertex: no problem is pushed for it) goes to the other buffer too. @last: a final store
 * (lines 27 and 30) rather than one inside the loop (lines 18 and 22). */
static void
alg5_store (MdlSimtBlock *blk, Alg5 *a, guint c, guint first, guint k, gboolean last)
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  Regs *g = &a->regs;
  gboolean drop[2 * S] = { FALSE };
  Pt base_a = c == LEFT ? a->l : a->m, base_c = c == LEFT ? a->m : a->r, p[S];
  guint kept = 0, rank[2 * S];
  guint64 at;
  gboolean alone;
  guint8 *cond;
  mdl_simt_alu (blk, 3 + 8);
  for (guint s = first; s < first + k; s++)
    {
      guint q = s ^ 1;
      g_assert (g->cls[s] == c);
      if (q < s || q >= first + k)
        continue;
      if (covered (base_a, base_c, g->p[s], g->p[q]))
        drop[q] = TRUE;
      else if (covered (base_a, base_c, g->p[q], g->p[s]))
        drop[s] = TRUE;
    }
  mdl_simt_alu (blk, 4);
  for (guint s = first; s < first + k; s++)
    if (!drop[s])
      rank[s] = kept++;
  a->h->st->pruned += k - kept;
  at = c == LEFT ? a->wf : a->wb - kept;
  alone = kept == 1 && (c == LEFT ? a->wf == a->lo : a->wb == a->lo + a->n);
  g_assert (c == LEFT ? a->wf + kept <= a->rf || a->rf == a->rb
                      : a->wb - kept >= a->rb || a->rf == a->rb);
  cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    {
      guint s = first + (t + S - first % S) % S;
      cond[t] = s < first + k && !drop[s];
      if (cond[t])
        idx[t] = at + rank[s], p[t] = g->p[s];
    }
  mdl_simt_pred_begin (blk);
  for (guint b = 0; b < (alone ? 2u : 1u); b++)
    st_pts (blk, a->h, a->h->buf[b == 0 ? a->src : 1 - a->src], idx, p);
  mdl_simt_pred_end (blk);
  for (guint s = first; s < first + k; s++)
    g->cls[s] = FREE;
  g->n[c] -= k;
  if (c == LEFT)
    a->wf += kept;
  else
    a->wb -= kept;
  if (last)
    a->h->st->flush_max = MAX (a->h->st->flush_max, kept);
  else
    {
      a->h->st->stores++;
      a->h->st->store_min = MIN (a->h->st->store_min, kept);
      a->h->st->store_max = MAX (a->h->st->store_max, kept);
    }
}

/* Lines 6–30: the loop reads into the half the last store emptied, from that store's end (the
 * first time from the back, ⑤); when no half filled up ([D] gap i) into the free slots, from
 * the same end as before. At most one half is stored per read ([D] gap ii: an else-if), so a
 * full read refills each end before it is written again: at least S read slots always lie ahead
 * of each end's stores (⑧). */
static void
alg5_partition (MdlSimtBlock *blk, Alg5 *a, guint64 kept[2])
{
  Regs *g = &a->regs;
  gboolean front = FALSE;
  guint first = S, room = S;
  memset (g, 0, sizeof *g);
  for (guint s = 0; s < 2 * S; s++)
    g->cls[s] = FREE;
  a->rf = a->wf = a->lo, a->rb = a->wb = a->lo + a->n;
  a->h->st->parted += a->n;
  alg5_read (blk, a, TRUE, 0, (guint) MIN (S, a->n));
  while (a->rf < a->rb)
    {
      alg5_read (blk, a, front, first, (guint) MIN (MIN (room, S), a->rb - a->rf));
      alg5_sort (blk, a);
      mdl_simt_alu (blk, 4);
      room = S;
      if (g->n[LEFT] >= S)
        alg5_store (blk, a, LEFT, 0, S, FALSE), front = TRUE, first = 0;
      else if (g->n[RIGHT] >= S)
        alg5_store (blk, a, RIGHT, S, S, FALSE), front = FALSE, first = S;
      else
        first = g->n[LEFT], room = 2 * S - g->n[LEFT] - g->n[RIGHT];
    }
  alg5_sort (blk, a);
  if (g->n[LEFT])
    alg5_store (blk, a, LEFT, 0, g->n[LEFT], TRUE);
  if (g->n[RIGHT])
    alg5_store (blk, a, RIGHT, 2 * S - g->n[RIGHT], g->n[RIGHT], TRUE);
  kept[0] = a->wf - a->lo, kept[1] = a->lo + a->n - a->wb;
  /* m is read and dropped, so a slot is left between the children for it. */
  g_assert (kept[0] + kept[1] < a->n);
}

/* V12: one partition of a problem of @n points on a random pair into children of @nl and @nr
 * points (@split FALSE: the pivot came out as l or r). */
static void
lemma_trial (MdlHullStats *st, guint64 n, gboolean split, guint64 nl, guint64 nr)
{
  if (n < 8)
    return;
  st->lemma_trials++;
  st->lemma_78 += split && 8 * MAX (nl, nr) <= 7 * n;
  st->lemma_left_34 += split && 4 * nl <= 3 * n;
}

/* ---- the independent stage ---- */

static void
push (MdlSimtBlock *blk, guint64 *depth, const guint64 w[ENTRY])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  g_assert (*depth < STACK);
  mdl_simt_algo_pred_range (blk, 0, 0, ENTRY);
  MDL_SIMT_EACH (blk, t)
    idx[t] = ENTRY * *depth + t, v[t] = w[t];
  mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, idx, v);
  mdl_simt_pred_end (blk);
  (*depth)++;
}

static void
pop (MdlSimtBlock *blk, guint64 *depth, guint64 w[ENTRY])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  (*depth)--;
  mdl_simt_algo_pred_range (blk, 0, 0, ENTRY);
  MDL_SIMT_EACH (blk, t)
    idx[t] = ENTRY * *depth + t;
  {
    guint64 *at = mdl_simt_reg (blk, 1);
    MDL_SIMT_EACH (blk, t)
      at[t] = 4 * idx[t];
    mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, v);
  }
  mdl_simt_pred_end (blk);
  mdl_simt_alu (blk, ENTRY);
  memcpy (w, v, ENTRY * sizeof (guint64));
}

enum { E_LO, E_N, E_L, E_R, E_SRC, E_PERP };

/* The random pair of a problem at @lo of @n points: slots i and i + n/2, i from a hash. */
static void
pair_of (guint64 seed, guint64 lo, guint64 n, guint64 *a, guint64 *b)
{
  guint64 i = n >= 2 ? mdl_splitmix64_mix (seed ^ (lo * MDL_SPLITMIX64_GAMMA) ^ (n << 1)) % (n / 2) : 0;
  *a = lo + i;
  *b = lo + i + n / 2;
}

static void
independent_kernel (MdlSimtBlock *blk, void *args)
{
  Hull *h = args;
  guint64 d[DESC], depth = 0, w[ENTRY] = { 0 };
  load_desc (blk, h, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  w[E_LO] = d[D_LO], w[E_N] = d[D_N], w[E_L] = d[D_L], w[E_R] = d[D_R], w[E_SRC] = d[D_SRC];
  w[E_PERP] = d[D_PERP];
  push (blk, &depth, w);
  while (depth > 0)
    {
      guint64 lo, n, slot[4], m_slot, kept[2], pos_l, pos_r, nl, nr;
      guint src, dst;
      Pt e[4], m = { 0, 0 };
      Dir dir;
      pop (blk, &depth, w);
      h->st->max_stack = MAX (h->st->max_stack, depth + 1);
      lo = w[E_LO], n = w[E_N], src = (guint) w[E_SRC], dst = 1 - src;
      h->iters[blk->idx_x]++;
      slot[0] = w[E_L], slot[1] = w[E_R];
      pair_of (h->seed, lo, n, &slot[2], &slot[3]);
      ld_few (blk, h, src, 4, slot, e);
      dir = direction (e[0], e[1], e[2], e[3], w[E_PERP] != 0);
      mdl_simt_alu (blk, 8);
      m_slot = pivot_pass (blk, h, src, lo, lo + n, &dir, &m);
      mdl_simt_alu (blk, 4);
      if (beats (&dir, e[0], m) || beats (&dir, e[1], m))
        {
          /* m would be l or r: retry on lr's normal, which always finds a vertex. */
          if (!w[E_PERP])
            lemma_trial (h->st, n, FALSE, 0, 0);
          h->st->indep_retries++;
          w[E_PERP] = 1;
          push (blk, &depth, w);
          continue;
        }
      (void) m_slot;
      if (h->alg5)
        {
          /* In place: the left child at the front, the right one at the back, m after the left
             child and the empty marker between (cleanEmptySpace). */
          Alg5 a = { .h = h, .src = src, .l = e[0], .m = m, .r = e[1], .lo = lo, .n = n };
          alg5_partition (blk, &a, kept);
          nl = kept[0], nr = kept[1], dst = src;
          put_vertex (blk, h, 2, lo + nl, m);
          fill_empty (blk, h, lo + nl + 1, lo + n - nr);
        }
      else
        {
          count_pass (blk, h, src, lo, lo + n, e[0], m, e[1], kept);
          nl = kept[0], nr = kept[1];
          pos_l = lo, pos_r = lo + nl + 1;
          copy_pass (blk, h, src, dst, lo, lo + n, e[0], m, e[1], &pos_l, &pos_r);
          g_assert (pos_l == lo + nl && pos_r == lo + nl + 1 + nr);
          put_vertex (blk, h, 2, lo + nl, m);
          fill_empty (blk, h, lo + nl + 1 + nr, lo + n);
        }
      if (!w[E_PERP])
        lemma_trial (h->st, n, TRUE, nl, nr);
      {
        guint64 left[ENTRY] = { lo, nl, w[E_L], lo + nl, dst, 0 };
        guint64 right[ENTRY] = { h->alg5 ? lo + n - nr : lo + nl + 1, nr, lo + nl, w[E_R], dst, 0 };
        const guint64 *big = nl >= nr ? left : right, *small = nl >= nr ? right : left;
        /* Algorithm 5 pushes only problems of two or more points (lines 32–33): its one-point
           child is a vertex, already in both buffers. */
        guint64 least = h->alg5 ? 2 : 1;
        mdl_simt_alu (blk, 4);
        if (big[E_N] >= least)
          push (blk, &depth, big);
        if (small[E_N] >= least)
          push (blk, &depth, small);
      }
    }
}

/* ---- the final compaction ---- */

static gboolean
slot_empty (const Pt *p)
{
  return isnan (p->x);
}

static void
final_count_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), a, b, count = 0;
  Pt p[S];
  claim (0, h->slots, h->P, blk->idx_x, &a, &b);
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->buf[0]), idx, p);
      mdl_simt_alu (blk, 3);
      MDL_SIMT_EACH (blk, t)
        count += !slot_empty (&p[t]);
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 5 * 2);
  mdl_simt_algo_st_word0 (blk, h->cnt, blk->idx_x, count, idx, v);
}

static void
final_copy_kernel (MdlSimtBlock *blk, void *args)
{
  const Hull *h = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *out = mdl_simt_reg (blk, 1);
  guint64 a, b, pos;
  Pt p[S];
  pos = mdl_simt_algo_ld_word0 (blk, h->cnt, blk->idx_x, idx, v);
  claim (0, h->slots, h->P, blk->idx_x, &a, &b);
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      guint8 *cond;
      guint kept = 0;
      mdl_simt_algo_pred_range (blk, c * S, a, b);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      ld_pts (blk, h, same (blk, h->buf[0]), idx, p);
      mdl_simt_alu (blk, 5);
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = !slot_empty (&p[t]);
          out[t] = pos + kept;
          kept += cond[t];
        }
      mdl_simt_pred_begin (blk);
      if (kept)
        st_pts (blk, h, h->out, out, p);
      mdl_simt_pred_end (blk);
      mdl_simt_pred_end (blk);
      pos += kept;
    }
}

/* ---- host side ---- */

typedef struct {
  guint64 lo, n, ps, first, l, r, src, failures;
  gboolean perp;
} Prob;

static gboolean
launch_shared (MdlSimt *gpu, Hull *h, guint32 grid, guint32 shared_bytes, MdlSimtKernel kernel,
               GError **error)
{
  MdlSimtLaunch shape = { .grid_x = grid, .block_x = S, .shared_bytes = shared_bytes };
  return mdl_simt_launch (gpu, &shape, kernel, h, error);
}

static gboolean
launch (MdlSimt *gpu, Hull *h, guint32 grid, MdlSimtKernel kernel, GError **error)
{
  return launch_shared (gpu, h, grid, 4 * ENTRY * STACK, kernel, error);
}

static void
set_desc (guint32 *desc, guint64 p, const Prob *u, guint64 rank, guint64 a, guint64 b)
{
  guint32 *d = desc + p * DESC;
  memset (d, 0, DESC * 4);
  d[D_LO] = (guint32) u->lo, d[D_N] = (guint32) u->n, d[D_PS] = (guint32) u->ps;
  d[D_RANK] = (guint32) rank, d[D_FIRST] = (guint32) u->first;
  d[D_L] = (guint32) u->l, d[D_R] = (guint32) u->r, d[D_A] = (guint32) a, d[D_B] = (guint32) b;
  d[D_SRC] = (guint32) u->src, d[D_ACTIVE] = 1, d[D_PERP] = u->perp;
}

static Pt
host_pt (MdlSimt *gpu, const Hull *h, guint src, guint64 slot)
{
  Pt p;
  mdl_point_get (mdl_simt_host (gpu, h->buf[src]), h->prec, slot, &p.x, &p.y);
  return p;
}

/* Init: the bins and their processors (A.3 step 7: in proportion to size, at least one each). */
static gboolean
hull_init (MdlSimt *gpu, Hull *h, GArray *shared, GArray *own, GError **error)
{
  guint32 *cnt = mdl_simt_host (gpu, h->cnt), *quad = mdl_simt_host (gpu, h->quad);
  guint64 size[4], ps[4] = { 0 }, home[4], total, given = 0, big = 0, first = 0;
  if (!launch (gpu, h, (guint32) h->P, quad_kernel, error)
      || !launch (gpu, h, 1, quad_consult_kernel, error)
      || !launch (gpu, h, (guint32) h->P, bin_count_kernel, error))
    return FALSE;
  h->scan_words = 4 * h->P;
  if (!launch (gpu, h, 1, scan_kernel, error)
      || !launch (gpu, h, (guint32) h->P, bin_copy_kernel, error))
    return FALSE;
  total = cnt[4 * h->P];
  h->slots = 4 + total;
  h->st->quad_kept = total;
  for (guint e = 0; e < 4; e++)
    {
      Pt q;
      size[e] = (e < 3 ? cnt[(e + 1) * h->P] : total) - cnt[e * h->P];
      home[e] = e + cnt[e * h->P];
      mdl_point_get (mdl_simt_host (gpu, h->in), h->prec, quad[e], &q.x, &q.y);
      for (guint k = 0; k < e; k++)
        {
          Pt o;
          mdl_point_get (mdl_simt_host (gpu, h->in), h->prec, quad[k], &o.x, &o.y);
          if (pt_eq (o, q))
            {
              home[e] = home[k];
              break;
            }
        }
      if (size[e])
        ps[e] = MAX (1, h->P * size[e] / total), given += ps[e];
      if (size[e] > size[big])
        big = e;
    }
  /* At most 4 bins and P >= 4, so trimming the largest share always fits. */
  while (given > h->P)
    {
      guint64 most = 0;
      for (guint e = 1; e < 4; e++)
        if (ps[e] > ps[most])
          most = e;
      ps[most]--, given--;
    }
  if (total)
    ps[big] += h->P - given;
  for (guint e = 0; e < 4; e++)
    if (size[e])
      {
        Prob u = { 1 + e + cnt[e * h->P], size[e], ps[e], first, home[e], home[(e + 1) % 4], 0, 0,
                   FALSE };
        g_array_append_val (ps[e] >= 2 ? shared : own, u);
        first += ps[e];
      }
  return TRUE;
}

/* The collaborative stage: rounds while a problem has two or more processors. */
static gboolean
hull_collab (MdlSimt *gpu, Hull *h, GArray *shared, GArray *own, GError **error)
{
  guint32 *desc = mdl_simt_host (gpu, h->desc), *cnt = mdl_simt_host (gpu, h->cnt);
  guint32 *piv = mdl_simt_host (gpu, h->piv);
  guint64 g = (h->st->quad_kept + h->P - 1) / h->P, rng = h->seed;
  g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (Prob));
  while (shared->len)
    {
      g_autofree gboolean *won = g_new0 (gboolean, shared->len);
      h->st->collab_rounds++;
      memset (desc, 0, 4 * DESC * h->P);
      memset (h->procs, 0, h->P * sizeof (Proc));
      for (guint i = 0; i < shared->len; i++)
        {
          Prob *u = &g_array_index (shared, Prob, i);
          guint64 a, b;
          Dir dir;
          pair_of (mdl_splitmix64 (&rng), u->lo, u->n, &a, &b);
          dir = direction (host_pt (gpu, h, (guint) u->src, u->l), host_pt (gpu, h, (guint) u->src, u->r),
                           host_pt (gpu, h, (guint) u->src, a), host_pt (gpu, h, (guint) u->src, b), u->perp);
          for (guint64 r = 0; r < u->ps; r++)
            {
              Proc *q = &h->procs[u->first + r];
              set_desc (desc, u->first + r, u, r, a, b);
              q->dir = dir, q->src = (guint) u->src, q->active = TRUE, q->last = r + 1 == u->ps;
              q->l = host_pt (gpu, h, (guint) u->src, u->l), q->r = host_pt (gpu, h, (guint) u->src, u->r);
            }
        }
      if (!launch (gpu, h, (guint32) h->P, collab_pivot_kernel, error)
          || !launch (gpu, h, 1, pivot_consult_kernel, error))
        return FALSE;
      /* A problem whose pivot came out as l or r sits the round out and retries on lr's normal. */
      for (guint i = 0; i < shared->len; i++)
        {
          Prob *u = &g_array_index (shared, Prob, i);
          won[i] = piv[u->first + u->ps - 1] != NONE;
          for (guint64 r = 0; r < u->ps; r++)
            desc[(u->first + r) * DESC + D_ACTIVE] = won[i];
        }
      memset (cnt, 0, 4 * (2 * h->P + 1));
      h->scan_words = 2 * h->P;
      if (!launch (gpu, h, (guint32) h->P, collab_count_kernel, error)
          || !launch (gpu, h, 1, scan_kernel, error))
        return FALSE;
      g_array_set_size (next, 0);
      for (guint i = 0; i < shared->len; i++)
        {
          Prob u = g_array_index (shared, Prob, i);
          guint64 base = 2 * u.first, p[2], nl, nr, m_slot;
          nl = cnt[base + u.ps] - cnt[base], nr = cnt[base + 2 * u.ps] - cnt[base + u.ps];
          if (!u.perp)
            lemma_trial (h->st, u.n, won[i], nl, nr);
          if (!won[i])
            {
              h->st->collab_failed++;
              u.perp = TRUE;
              g_array_append_val (next, u);
              continue;
            }
          /* A bin that got its one processor by the at-least-one rule may hold more than ps·g
             points; Lemma 1 then needs this problem's own g. */
          if (!mdl_mqs_assign (MDL_MQS_SPARE, nl / g + nr / g > u.ps ? (u.n + u.ps - 1) / u.ps : g,
                               u.ps, nl, nr, &p[0], &p[1]))
            {
              /* Lemma 1 gives a non-empty child no processor: redo, or hand it to one. */
              h->st->collab_failed++;
              u.failures++, u.perp = FALSE;
              for (guint64 r = 0; r < u.ps; r++)
                desc[(u.first + r) * DESC + D_ACTIVE] = 0;
              if (u.failures >= RETRIES)
                u.ps = 1;
              g_array_append_val (u.ps >= 2 ? next : own, u);
              continue;
            }
          m_slot = u.lo + nl;
          {
            Prob kid[2] = { { u.lo, nl, p[0], u.first, u.l, m_slot, 1 - u.src, 0, FALSE },
                            { m_slot + 1, nr, p[1], u.first + p[0], m_slot, u.r, 1 - u.src, 0, FALSE } };
            for (guint c = 0; c < 2; c++)
              if (kid[c].n)
                g_array_append_val (kid[c].ps >= 2 ? next : own, kid[c]);
          }
        }
      if (!launch (gpu, h, (guint32) h->P, collab_copy_kernel, error)
          || !launch (gpu, h, (guint32) h->P, collab_empty_kernel, error))
        return FALSE;
      h->st->collab_launches += 6;
      g_array_set_size (shared, 0);
      g_array_append_vals (shared, next->data, next->len);
    }
  return TRUE;
}

/* The output's @g vertices against the monotone chain of the input. */
static gboolean
hull_check (MdlSimt *gpu, const Hull *h, guint64 g, GError **error)
{
  g_autofree double *xy = g_new (double, 2 * MAX (h->n, 1));
  g_autofree double *ref = g_new (double, 2 * h->n + 2);
  g_autofree double *got = g_new (double, 2 * MAX (g, 1));
  int64_t hv, at;
  for (guint64 k = 0; k < h->n; k++)
    mdl_point_get (mdl_simt_host (gpu, h->in), h->prec, k, &xy[2 * k], &xy[2 * k + 1]);
  for (guint64 k = 0; k < g; k++)
    mdl_point_get (mdl_simt_host (gpu, h->out), h->prec, k, &got[2 * k], &got[2 * k + 1]);
  hv = mdl_hull_chain (xy, h->n, ref);
  at = mdl_hull_diff (ref, hv, got, (int64_t) g);
  if (at < 0)
    return TRUE;
  if (at == hv)
    g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "hull/msimd: %" G_GUINT64_FORMAT " vertices, "
                 "the monotone chain has %" G_GINT64_FORMAT, g, hv);
  else
    g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "hull/msimd: vertex %" G_GINT64_FORMAT " of %"
                 G_GINT64_FORMAT " (counter-clockwise from the smallest) is not (%.9g, %.9g)", at,
                 hv, ref[2 * at], ref[2 * at + 1]);
  return FALSE;
}

gboolean
mdl_hull_msimd_run_stats (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                          MdlHullStats *st, guint64 *checksum, GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  g_autoptr (GArray) shared = g_array_new (FALSE, FALSE, sizeof (Prob));
  g_autoptr (GArray) own = g_array_new (FALSE, FALSE, sizeof (Prob));
  g_autofree Proc *procs = NULL;
  g_autofree guint64 *iters = NULL;
  Hull h = { 0 };
  guint32 *desc;
  guint64 room;
  if (n > (G_GUINT64_CONSTANT (1) << 26))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "hull/msimd: n=%" G_GUINT64_FORMAT
                   " is above 2^26", n);
      return FALSE;
    }
  memset (st, 0, sizeof *st);
  h.n = n, h.seed = seed, h.st = st;
  h.P = mdl_params_uint (params, "P");
  h.prec = (MdlPointPrec) mdl_params_choice (params, "prec");
  h.pb = mdl_point_bytes (h.prec);
  h.alg5 = mdl_params_choice (params, "part") == 1;
  st->store_min = G_MAXUINT64;
  h.procs = procs = g_new0 (Proc, h.P);
  h.iters = iters = g_new0 (guint64, h.P);
  room = h.pb * (n + 4);
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(h.in = mdl_simt_alloc (gpu, h.pb * MAX (n, 1), error))
      || !(h.buf[0] = mdl_simt_alloc (gpu, room, error))
      || !(h.buf[1] = mdl_simt_alloc (gpu, room, error))
      || !(h.out = mdl_simt_alloc (gpu, room, error))
      || !(h.desc = mdl_simt_alloc (gpu, 4 * DESC * h.P, error))
      || !(h.cand = mdl_simt_alloc (gpu, 4 * 4 * h.P, error))
      || !(h.cnt = mdl_simt_alloc (gpu, 4 * (4 * h.P + 1), error))
      || !(h.piv = mdl_simt_alloc (gpu, 4 * h.P, error))
      || !(h.quad = mdl_simt_alloc (gpu, 4 * 4, error)))
    return FALSE;
  mdl_points_fill (mdl_simt_host (gpu, h.in), n, (MdlPointDist) mdl_params_choice (params, "dist"),
                   h.prec, seed);
  if (n > 0)
    {
      if (!hull_init (gpu, &h, shared, own, error) || !hull_collab (gpu, &h, shared, own, error))
        return FALSE;
      desc = mdl_simt_host (gpu, h.desc);
      memset (desc, 0, 4 * DESC * h.P);
      for (guint i = 0; i < own->len; i++)
        {
          const Prob *u = &g_array_index (own, Prob, i);
          st->max_share = MAX (st->max_share, u->n);
          set_desc (desc, u->first, u, 0, 0, 0);
        }
      /* Algorithm 5's counting sort needs its 2S points of shared memory after the stack. */
      if (!launch_shared (gpu, &h, (guint32) h.P, SORT_AT + (h.alg5 ? SORT_BYTES : 0),
                          independent_kernel, error)
          || !launch (gpu, &h, (guint32) h.P, final_count_kernel, error))
        return FALSE;
      h.scan_words = h.P;
      if (!launch (gpu, &h, 1, scan_kernel, error)
          || !launch (gpu, &h, (guint32) h.P, final_copy_kernel, error))
        return FALSE;
      st->h = ((guint32 *) mdl_simt_host (gpu, h.cnt))[h.P];
    }
  st->indep_min = G_MAXUINT64;
  for (guint64 p = 0; p < h.P; p++)
    {
      st->indep_total += iters[p];
      st->indep_min = MIN (st->indep_min, iters[p]);
      st->indep_max = MAX (st->indep_max, iters[p]);
    }
  if (!st->stores)
    st->store_min = 0;
  if (!hull_check (gpu, &h, st->h, error))
    return FALSE;
  *checksum = mdl_simt_algo_checksum (mdl_simt_host (gpu, h.out), h.pb * MAX (st->h, 1));
  return TRUE;
}

static gboolean
hull_msimd_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                 guint64 *checksum, GError **error)
{
  MdlHullStats st;
  /* The registry's entry points refuse n = 0 as every algorithm does; the tests call
     mdl_hull_msimd_run_stats for it. */
  return mdl_simt_algo_size_ok ("hull/msimd", n, G_GUINT64_CONSTANT (1) << 26, error)
         && mdl_hull_msimd_run_stats (params, n, seed, rec, &st, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (hull_msimd, hull_msimd_body)
