/* The AGPU merge sorts in SIMT C: Koike & Sadakane's I/O-optimal d-way merge sort (§7.3) and
 * GPU-Warpsort as the paper models it (§7.1.2: the same four parts with d = 2). One block of b
 * threads is one AGPU multiprocessor; the plan (parts, steps, run lengths) is
 * src/algos/merge-sort-plan.h, shared with the CUDA twin (src/algos/cuda/merge-sort.cu).
 *
 * The d-way merge of one block (Lemma 7.7) is the paper's heap: d leaves (sorted ranges of global
 * memory), d−1 internal nodes each holding b sorted keys X in shared memory, and a key per node,
 * the last (largest) value moved out of it. take(i) hands node i's parent the b smallest keys left
 * in i's subtree: at a leaf, the next aligned b-word block (one global read); at an internal node,
 * take() from the child of smaller key, merge those b with X in a 2b workspace (the last phase of a
 * bitonic sort: one flip stage, log b half-cleaners), keep the upper b as X and pass the lower b
 * up. Initialisation: X_i = take(2i) for i = d−1 .. 1; then each take(1) gives b output keys.
 * Ranges that do not start on a block are read from the block that holds their start, the keys
 * before it standing in as zeros, and ranges end in keys 0xffffffff: the zeros come out first and
 * are skipped, the tail is never written, so every read and (in parts 1-2) every write is one
 * aligned block: a pass costs exactly 2⌈n/b⌉ I/Os (Lemma 7.2, 7.7; docs/models/sort-merge.md).
 * The keys of the nodes are uniform bookkeeping, charged as one ALU instruction per level.
 * Spec: agpu-koike-sadakane.md §5.3-5.6, V10; docs/models/sort-merge.md. */
#include "algos/simt/simt-algo.h"
#include "algos/keys.h"
#include "algos/merge-sort-plan.h"
#include "core/clones.h"

#include <string.h>

#define MAX_D 256
#define KEY_MAX G_GUINT64_CONSTANT (0xffffffff)

#define DIST_ROW                                                                                   \
  { "dist", MDL_PARAM_CHOICE, "uniform", NULL, 0, 0, MDL_KEY_DIST_CHOICES, 0,                      \
    "input keys: " MDL_KEY_DIST_CHOICES " (src/algos/keys.h)" }
#define B_ROW                                                                                      \
  { "b", MDL_PARAM_UINT, "32", NULL, 2, 1024, NULL, MDL_PARAM_POW2,                                \
    "threads per block = AGPU cores = keys per block of global memory" }
#define L_ROW                                                                                      \
  { "l", MDL_PARAM_UINT, "0", NULL, 0, 1u << 20, NULL, 0,                                          \
    "part 2 merges column-wise until at most l runs are left (the paper's ℓ; 1: no parts 3-4; "  \
    "0: the largest power of two whose square is at most n/b)" }
#define SIGMA_ROW                                                                                  \
  { "sigma", MDL_PARAM_UINT, "0", NULL, 0, 1u << 30, NULL, 0,                                      \
    "part 3 takes every sigma-th key of each run as a separator (groups of about sigma keys; "   \
    "0: half a run)" }

const MdlParamSpec mdl_sort_dway_params[] = {
  B_ROW,
  { "d", MDL_PARAM_UINT, "4", NULL, 2, MAX_D, NULL, MDL_PARAM_POW2,
    "runs merged at once by one block (d−1 nodes of b keys in shared memory)" },
  L_ROW, SIGMA_ROW, DIST_ROW, MDL_KEYS_TYPE_ROW, { NULL }
};
const MdlParamSpec mdl_sort_warpsort_params[] = {
  B_ROW, L_ROW, SIGMA_ROW, DIST_ROW, MDL_KEYS_TYPE_ROW, { NULL }
};

/* One merge launch. Column mode (pos == 0): block g merges runs gd .. gd+d−1 of length @run of
 * the @n keys at @src into the same places of @dst. Row mode (part 4 step t, @span = d^(t−1)):
 * block (group j, g) merges the group's current pieces gd .. gd+d−1, each @span pieces of the
 * partition; at step 1 (@span 1) piece i of group j is [pos[j][i], pos[j+1][i]) of the runs at
 * @src, later ones [off[j][i·span], off[j][(i+1)·span]) of @src; the result goes to @dst from
 * off[j][g·d·span]. */
typedef struct {
  guint64 src, dst, n, run;
  guint64 pos, off;     /* device addresses of the tables (row mode) */
  guint64 width;        /* ℓ': pieces per group = runs after part 2 */
  guint64 span, per_group;
  guint b, d;
} MergeArgs;

/* The state of one block's merge. */
typedef struct {
  MdlSimtBlock *blk;
  const MergeArgs *a;
  guint b, d;
  guint64 lo[MAX_D], hi[MAX_D], cur[MAX_D];
  guint64 key[2 * MAX_D];
  guint64 *f, *x, *y, *at, *at2;
  /* The workspace's word offsets, the same in every node merge, so computed once a block: its
   * lower and upper b words, the upper reversed (the flip stage), and the comparators' pairs at
   * distance j = b/2, b/4, .., 1 (pair_at[k], pair_at2[k] for j = b >> (k + 1)). */
  const guint64 *w_lo, *w_hi, *w_rev;
  const guint64 *pair_at[32], *pair_at2[32];
} Merge;

/* The lower element of comparator @t's pair at distance @j (a power of two): t with a 0 bit put in
 * at j's place, (t / j)·2j + t mod j, with no division per lane. */
static inline guint64
pair_low (guint t, guint j)
{
  return (guint64) t + (t & ~(j - 1));
}

/* Lanes 0..@n-1 of a run from thread @t: the byte offsets of their comparators' words at
 * distance @j in the workspace at @ws (the lower into @at, the upper into @at2). A whole warp (@n
 * a constant 32) vectorizes: 64-bit arithmetic throughout, and shifts, not multiplications (GCC
 * 12 vectorizes neither a 32-bit index widened per lane nor a 64-bit multiply, even by 4). */
static inline __attribute__ ((always_inline)) void
pair_words_run (guint64 *restrict at, guint64 *restrict at2, guint64 ws, guint64 t, guint64 j,
                guint n)
{
  for (guint i = 0; i < n; i++, t++)
    {
      guint64 e = t + (t & ~(j - 1));   /* pair_low() */
      at[i] = ws + (e << 2);
      at2[i] = ws + ((e + j) << 2);
    }
}

static void
pred_begin_lanes (MdlSimtBlock *blk, guint64 lanes)
{
  mdl_simt_pred_range (blk, 0, lanes);
}

/* Shared compare-exchange of words @at and @at2 (byte offsets) of every active lane: two loads,
 * min and max, two stores. */
MDL_CLONES static void
compare_exchange (MdlSimtBlock *blk, const guint64 *at, const guint64 *at2, guint64 *x, guint64 *y)
{
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at2, y);
  mdl_simt_alu (blk, 2);
  mdl_simt_algo_exchange (blk, x, y, at, 0, 0, 0);   /* smaller first in every lane */
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at2, y);
}

/* Lanes 0..@n-1 of a run from thread @t: @f[i] = 0 where t + i < @below, else KEY_MAX, by the
 * sign of t + i − below (both under 2^63): no compare, so that a whole warp (@n a constant 32)
 * vectorizes in SSE2 too. */
static inline __attribute__ ((always_inline)) void
pad_run (guint64 *restrict f, guint64 t, guint64 below, guint n)
{
  for (guint i = 0; i < n; i++, t++)
    f[i] = KEY_MAX & (((t - below) >> 63) - 1);
}

/* The next b keys of leaf @r into f: its next aligned block (lanes outside [lo, hi) predicated
 * off, standing in as 0 before and 0xffffffff after), or all 0xffffffff once it is exhausted. */
static void
leaf_take (Merge *s, guint r)
{
  MdlSimtBlock *blk = s->blk;
  guint64 cur = s->cur[r], lo = s->lo[r], hi = s->hi[r];
  guint64 below = lo > cur ? lo - cur : 0;   /* thread t is before the leaf when t < below */
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH_RUN (blk, t, n)
    if (n == 32)
      pad_run (s->f + t, t, below, 32);
    else
      pad_run (s->f + t, t, below, n);
  if (cur >= hi)
    return;
  mdl_simt_algo_lane_words (blk, s->at, s->a->src + 4 * cur, FALSE);
  mdl_simt_algo_pred_range (blk, cur, lo, hi);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, s->at, s->f);
  mdl_simt_pred_end (blk);
  s->cur[r] = cur + s->b;
}

/* Node @i (internal) merges its X with the b keys in f: X and f into the workspace W, the flip
 * stage (W[t] with W[2b−1−t]), half-cleaners at distances b/2 .. 1, the upper b back to X, the
 * lower b into f. */
static void
node_merge (Merge *s, guint i)
{
  MdlSimtBlock *blk = s->blk;
  guint b = s->b;
  guint64 xs = 4 * (guint64) (i - 1) * b;
  mdl_simt_algo_lane_words (blk, s->at, xs, FALSE);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, s->at, s->x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, s->w_lo, s->x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, s->w_hi, s->f);
  compare_exchange (blk, s->w_lo, s->w_rev, s->x, s->y);
  for (guint k = 0; b >> (k + 1) > 0; k++)
    compare_exchange (blk, s->pair_at[k], s->pair_at2[k], s->x, s->y);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, s->w_hi, s->x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, s->at, s->x);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, s->w_lo, s->f);
}

/* Fills @s's workspace offsets (Merge) for all the block's threads, whichever are active. */
static void
workspace_words (Merge *s)
{
  MdlSimtBlock *blk = s->blk;
  guint64 ws = 4 * (guint64) (s->d - 1) * s->b, nt = blk->n_threads;
  guint64 *lo = mdl_simt_reg (blk, 1), *hi = mdl_simt_reg (blk, 1), *rev = mdl_simt_reg (blk, 1);
  mdl_simt_algo_lane_words_run (lo, ws, 0, 0, nt);
  mdl_simt_algo_lane_words_run (hi, ws + 4 * (guint64) s->b, 0, 0, nt);
  mdl_simt_algo_lane_words_run (rev, ws + 4 * (2 * (guint64) s->b - 1), G_MAXUINT64, 0, nt);
  s->w_lo = lo, s->w_hi = hi, s->w_rev = rev;
  for (guint k = 0; s->b >> (k + 1) > 0; k++)
    {
      guint64 *at = mdl_simt_reg (blk, 1), *at2 = mdl_simt_reg (blk, 1);
      pair_words_run (at, at2, ws, 0, s->b >> (k + 1), nt);
      s->pair_at[k] = at, s->pair_at2[k] = at2;
    }
}

/* take(i): the b smallest keys left in node @i's subtree into f, and the key of @i. */
static void
take (Merge *s, guint i)
{
  if (i >= s->d)
    leaf_take (s, i - s->d);
  else
    {
      /* The child of smaller key (the left one on a tie). */
      guint c = s->key[2 * i] <= s->key[2 * i + 1] ? 2 * i : 2 * i + 1;
      mdl_simt_alu (s->blk, 1);
      take (s, c);
      node_merge (s, i);
    }
  s->key[i] = s->f[s->b - 1];
}

/* Reads @count words of the table at @table from index @first, @stride apart, index clamped to
 * @last, into @vals: ⌈count/b⌉ predicated global loads. */
static void
table_load (Merge *s, guint64 table, guint64 first, guint64 stride, guint64 last, guint64 count,
            guint64 *vals)
{
  MdlSimtBlock *blk = s->blk;
  for (guint64 c = 0; c < count; c += s->b)
    {
      pred_begin_lanes (blk, count - c);
      MDL_SIMT_EACH (blk, t)
        s->at[t] = table + 4 * MIN (first + (c + t) * stride, last);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, s->at, s->x);
      MDL_SIMT_EACH (blk, t)
        vals[c + t] = s->x[t];
      mdl_simt_pred_end (blk);
    }
}

/* The leaves' ranges and the output place of this block; returns the first output index. */
static guint64
merge_ranges (Merge *s)
{
  const MergeArgs *a = s->a;
  guint d = s->d, bid = s->blk->idx_x;
  guint64 v[MAX_D + 1], w[MAX_D + 1];
  if (a->pos == 0)
    {
      for (guint r = 0; r < d; r++)
        {
          s->lo[r] = MIN (((guint64) bid * d + r) * a->run, a->n);
          s->hi[r] = MIN (s->lo[r] + a->run, a->n);
        }
      return s->lo[0];
    }
  guint64 j = bid / a->per_group, g = bid % a->per_group, row = a->width + 1;
  guint64 first = g * d * a->span;
  if (a->span == 1)
    {
      /* step 1: the pieces of group j in the runs; the output from off[j][gd] */
      table_load (s, a->pos, j * a->width + first, 1, (j + 1) * a->width - 1, d, v);
      table_load (s, a->pos, (j + 1) * a->width + first, 1, (j + 2) * a->width - 1, d, w);
      for (guint r = 0; r < d; r++)
        {
          gboolean in = first + r < a->width;
          s->lo[r] = in ? v[r] : 0;
          s->hi[r] = in ? w[r] : 0;
        }
      table_load (s, a->off, j * row + first, 1, j * row + first, 1, v);
      return v[0];
    }
  table_load (s, a->off, j * row + first, a->span, j * row + a->width, d + 1, v);
  for (guint r = 0; r < d; r++)
    {
      s->lo[r] = v[r];
      s->hi[r] = v[r + 1];
    }
  return v[0];
}

static void
merge_kernel (MdlSimtBlock *blk, void *p)
{
  const MergeArgs *a = p;
  /* Not zeroed whole (10 KiB for a merge of d <= 4): merge_ranges() sets the d leaves' ranges,
   * and the keys of the 2d nodes are cleared below. */
  Merge s;
  guint64 out, junk = 0, count = 0;
  s.blk = blk;
  s.a = a;
  s.b = a->b;
  s.d = a->d;
  s.f = mdl_simt_reg (blk, 1);
  s.x = mdl_simt_reg (blk, 1);
  s.y = mdl_simt_reg (blk, 1);
  s.at = mdl_simt_reg (blk, 1);
  s.at2 = mdl_simt_reg (blk, 1);
  workspace_words (&s);
  out = merge_ranges (&s);
  for (guint r = 0; r < s.d; r++)
    {
      s.cur[r] = s.lo[r] / s.b * s.b;
      if (s.lo[r] < s.hi[r])
        {
          junk += s.lo[r] - s.cur[r];
          count += s.hi[r] - s.lo[r];
        }
      else
        s.cur[r] = s.hi[r];
    }
  memset (s.key, 0, 2 * s.d * sizeof s.key[0]);
  for (guint i = s.d - 1; i >= 1; i--)
    {
      guint64 xs = 4 * (guint64) (i - 1) * s.b;
      take (&s, 2 * i);
      mdl_simt_algo_lane_words (blk, s.at, xs, FALSE);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, s.at, s.f);
    }
  for (guint64 m = 0; m * s.b < junk + count; m++)
    {
      take (&s, 1);
      /* output index m·b + t − junk, written when in [0, count) */
      mdl_simt_algo_lane_words (blk, s.at, a->dst + 4 * (out + m * s.b - junk), FALSE);
      mdl_simt_algo_pred_range (blk, m * s.b, junk, junk + count);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, s.at, s.f);
      mdl_simt_pred_end (blk);
    }
}

/* ---- part 1: bitonic sort of each block of b keys ---- */

typedef struct {
  guint64 src, dst, n;
  guint b;
} BlockArgs;

static void
block_sort_kernel (MdlSimtBlock *blk, void *p)
{
  const BlockArgs *a = p;
  guint b = a->b;
  guint64 base = (guint64) blk->idx_x * b, *x = mdl_simt_reg (blk, 1), *y = mdl_simt_reg (blk, 1);
  guint64 *at = mdl_simt_reg (blk, 1), *at2 = mdl_simt_reg (blk, 1);
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    x[t] = KEY_MAX;
  pred_begin_lanes (blk, a->n - base);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->src + 4 * (base + t);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_pred_end (blk);
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * (guint64) t;
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, x);
  /* stage (k, j): lanes t < b/2 compare elements e and e + j, ascending where e & k == 0 */
  for (guint k = 2; k <= b; k *= 2)
    for (guint j = k / 2; j > 0; j /= 2)
      {
        pred_begin_lanes (blk, b / 2);
        MDL_SIMT_EACH (blk, t)
          {
            guint64 e = pair_low (t, j);
            gboolean up = (e & k) == 0;
            at[t] = 4 * (up ? e : e + j);
            at2[t] = 4 * (up ? e + j : e);
          }
        compare_exchange (blk, at, at2, x, y);
        mdl_simt_pred_end (blk);
      }
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * (guint64) t;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->dst + 4 * (base + t);
  mdl_simt_algo_pred_range (blk, base, 0, a->n);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_pred_end (blk);
}

/* ---- part 3: separators and the split ---- */

typedef struct {
  guint64 keys, samples, pos, off;
  const MdlMergePlan *plan;
  guint b;
} PartArgs;

/* Separator k (one lane each): key (c+1)·sigma − 1 of run k / per_run, c = k mod per_run. */
static void
sample_kernel (MdlSimtBlock *blk, void *p)
{
  const PartArgs *a = p;
  const MdlMergePlan *pl = a->plan;
  guint64 first = (guint64) blk->idx_x * a->b, *x = mdl_simt_reg (blk, 1);
  guint64 *at = mdl_simt_reg (blk, 1);
  pred_begin_lanes (blk, pl->m - first);
  mdl_simt_alu (blk, 2);
  MDL_SIMT_EACH (blk, t)
    {
      guint64 k = first + t;
      at[t] = a->keys + 4 * (k / pl->per_run * pl->run + (k % pl->per_run + 1) * pl->sigma - 1);
    }
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->samples + 4 * (first + t);
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_pred_end (blk);
}

/* The binary searches a lane does over a run of @run keys: ⌈log2 (run + 1)⌉. */
static guint
search_steps (guint64 run)
{
  guint steps = 0;
  while ((G_GUINT64_CONSTANT (1) << steps) <= run)
    steps++;
  return steps;
}

/* pos[j][i] (one lane each, j = 0 .. m+1, i < ℓ'): where run i's keys reach separator j: its
 * start for j = 0, its end for j = m+1, else the first key not below separator j−1 of the sorted
 * list (lower bound, a fixed number of predicated steps). */
static void
search_kernel (MdlSimtBlock *blk, void *p)
{
  const PartArgs *a = p;
  const MdlMergePlan *pl = a->plan;
  guint64 first = (guint64) blk->idx_x * a->b, entries = (pl->m + 2) * pl->runs;
  guint64 *x = mdl_simt_reg (blk, 1), *sep = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  guint64 *lo = mdl_simt_reg (blk, 1), *len = mdl_simt_reg (blk, 1);
  guint8 *cond;
  guint steps = search_steps (pl->run);
  pred_begin_lanes (blk, entries - first);
  mdl_simt_alu (blk, 3);
  MDL_SIMT_EACH (blk, t)
    {
      guint64 k = first + t, j = k / pl->runs, i = k % pl->runs;
      guint64 start = i * pl->run, end = MIN (start + pl->run, pl->n);
      lo[t] = j == pl->m + 1 ? end : start;
      len[t] = j == 0 || j == pl->m + 1 ? 0 : end - start;
      at[t] = a->samples + 4 * (j ? j - 1 : 0);
    }
  cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = len[t] > 0;
  mdl_simt_pred_begin (blk);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, sep);
  mdl_simt_pred_end (blk);
  for (guint s = 0; s < steps; s++)
    {
      cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = len[t] > 0;
          at[t] = a->keys + 4 * (lo[t] + len[t] / 2);
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
      mdl_simt_alu (blk, 2);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 half = len[t] / 2;
          if (x[t] < sep[t])
            {
              lo[t] += half + 1;
              len[t] -= half + 1;
            }
          else
            len[t] = half;
        }
      mdl_simt_pred_end (blk);
    }
  MDL_SIMT_EACH (blk, t)
    {
      at[t] = a->pos + 4 * (first + t);
      x[t] = lo[t];
    }
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_pred_end (blk);
}

/* off[j][i] (block j, i = 0 .. ℓ'): where piece i of group j starts in the sorted output: the keys
 * below separator j in every run, plus those of group j in runs before i. The block loads rows j
 * and j+1 of pos, scans (⌈ℓ'/b⌉ + log b ALU instructions: each lane sums its part, then a block
 * scan) and stores the row. */
static void
offset_kernel (MdlSimtBlock *blk, void *p)
{
  const PartArgs *a = p;
  const MdlMergePlan *pl = a->plan;
  guint64 j = blk->idx_x, w = pl->runs, base = 0, run_of = 0;
  guint64 *x = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  g_autofree guint64 *row = g_new (guint64, 2 * w), *off = g_new (guint64, w + 1);
  for (guint64 r = 0; r < 2; r++)
    for (guint64 c = 0; c < w; c += a->b)
      {
        pred_begin_lanes (blk, w - c);
        MDL_SIMT_EACH (blk, t)
          at[t] = a->pos + 4 * ((j + r) * w + c + t);
        mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
        MDL_SIMT_EACH (blk, t)
          row[r * w + c + t] = x[t];
        mdl_simt_pred_end (blk);
      }
  mdl_simt_alu (blk, (guint) ((w + a->b - 1) / a->b) + (guint) __builtin_ctz (a->b));
  for (guint64 i = 0; i < w; i++)
    base += row[i] - i * pl->run;
  for (guint64 i = 0; i <= w; i++)
    {
      off[i] = base + run_of;
      if (i < w)
        run_of += row[w + i] - row[i];
    }
  for (guint64 c = 0; c <= w; c += a->b)
    {
      pred_begin_lanes (blk, w + 1 - c);
      MDL_SIMT_EACH (blk, t)
        {
          at[t] = a->off + 4 * (j * (w + 1) + c + t);
          x[t] = off[c + t];
        }
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
      mdl_simt_pred_end (blk);
    }
}

/* ---- the host side ---- */

/* A zero-filled buffer of @words words whose first word sits on a b-word block (cudaMalloc's 256
 * bytes are not enough for b > 64); 0 on error. */
static guint64
aligned_alloc_words (MdlSimt *gpu, guint64 words, guint b, GError **error)
{
  guint64 bytes = 4 * (guint64) b, addr = mdl_simt_alloc (gpu, 4 * MAX (words, 1) + bytes, error);
  return addr ? (addr + bytes - 1) / bytes * bytes : 0;
}

static gboolean
launch (MdlSimt *gpu, MdlRecorder *rec, const char *phase, guint64 blocks, guint b,
        guint64 shared_words, MdlSimtKernel kernel, void *args, GError **error)
{
  MdlSimtLaunch shape = { .grid_x = (guint32) blocks, .block_x = b,
                          .shared_bytes = (guint32) (4 * shared_words) };
  gboolean ok;
  if (rec)
    mdl_recorder_phase_begin (rec, phase);
  ok = mdl_simt_launch (gpu, &shape, kernel, args, error);
  if (rec && ok)
    mdl_recorder_phase_end (rec, phase);
  return ok;
}

/* Column-wise merges of the @n keys at *@src (runs of @run) until one run is left or @until
 * steps are done, ping-ponging between *@src and *@dst (on return *@src holds the result). */
static gboolean
column_merges (MdlSimt *gpu, MdlRecorder *rec, const char *phase, guint64 *src, guint64 *dst,
               guint64 n, guint64 run, guint64 steps, guint b, guint d, GError **error)
{
  for (guint64 s = 0; s < steps; s++, run *= d)
    {
      MergeArgs a = { .src = *src, .dst = *dst, .n = n, .run = run, .b = b, .d = d };
      guint64 t = *src;
      if (!launch (gpu, rec, phase, mdl_merge_ceil_div (n, run * d), b, (guint64) b * (d + 1),
                   merge_kernel, &a, error))
        return FALSE;
      *src = *dst;
      *dst = t;
    }
  return TRUE;
}

static gboolean
sort_body (const char *algo, guint d, const MdlParams *params, guint64 n, guint64 seed,
           MdlRecorder *rec, guint64 *checksum, GError **error)
{
  guint b = (guint) mdl_params_uint (params, "b");
  MdlKeyDist dist = (MdlKeyDist) mdl_params_choice (params, "dist");
  gboolean f32 = mdl_params_choice (params, "keys") == 1;
  g_autofree guint32 *copy = NULL;
  MdlMergePlan pl;
  g_autoptr (MdlSimt) gpu = NULL;
  guint64 in, buf[2], src, dst;
  guint32 *keys;
  if (!mdl_simt_algo_size_ok (algo, n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  pl = mdl_merge_plan (n, b, d, mdl_params_uint (params, "l"), mdl_params_uint (params, "sigma"));
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(in = aligned_alloc_words (gpu, n, b, error))
      || !(buf[0] = aligned_alloc_words (gpu, n, b, error))
      || !(buf[1] = aligned_alloc_words (gpu, n, b, error)))
    return FALSE;
  keys = mdl_simt_host (gpu, in);
  if (!mdl_keys_fill_typed (keys, n, dist, seed, f32))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT ": out of memory",
                   algo, n);
      return FALSE;
    }
  copy = g_memdup2 (keys, 4 * n);
  if (f32 && !mdl_simt_keys_order (gpu, in, in, n, FALSE, error))
    return FALSE;
  /* Pass q of the P passes writes buf[(P − 1 − q) mod 2], so that the last one writes buf[0]. */
  dst = buf[(pl.passes - 1) % 2];
  src = buf[pl.passes % 2];
  {
    BlockArgs a = { .src = in, .dst = dst, .n = n, .b = b };
    if (!launch (gpu, rec, "initialize", mdl_merge_ceil_div (n, b), b, b, block_sort_kernel, &a,
                 error))
      return FALSE;
  }
  {
    guint64 t = src;
    src = dst;
    dst = t;
  }
  if (!column_merges (gpu, rec, "column-merge", &src, &dst, n, b, pl.s0, b, d, error))
    return FALSE;
  if (pl.runs > 1)
    {
      guint64 w = pl.runs, groups = pl.m + 1, sm = MAX (pl.m, 1), s0, s1, span = 1;
      PartArgs pa = { .keys = src, .plan = &pl, .b = b };
      if (!(s0 = aligned_alloc_words (gpu, sm, b, error))
          || !(s1 = aligned_alloc_words (gpu, sm, b, error))
          || !(pa.pos = aligned_alloc_words (gpu, (pl.m + 2) * w, b, error))
          || !(pa.off = aligned_alloc_words (gpu, groups * (w + 1), b, error)))
        return FALSE;
      pa.samples = s0;
      if (pl.m > 0)
        {
          guint64 steps = 0;
          for (guint64 r = pl.per_run; r < pl.m; r *= d)
            steps++;
          if (!launch (gpu, rec, "partition", mdl_merge_ceil_div (pl.m, b), b, 0, sample_kernel,
                       &pa, error)
              || !column_merges (gpu, rec, "partition", &s0, &s1, pl.m, pl.per_run, steps, b, d,
                                 error))
            return FALSE;
          pa.samples = s0;
        }
      if (!launch (gpu, rec, "partition", mdl_merge_ceil_div ((pl.m + 2) * w, b), b, 0,
                   search_kernel, &pa, error)
          || !launch (gpu, rec, "partition", groups, b, 0, offset_kernel, &pa, error))
        return FALSE;
      for (guint64 t = 0; t < pl.t0; t++, span *= d)
        {
          guint64 pieces = mdl_merge_ceil_div (w, span);
          MergeArgs a = { .src = src, .dst = dst, .n = n, .pos = pa.pos, .off = pa.off,
                          .width = w, .span = span, .per_group = mdl_merge_ceil_div (pieces, d),
                          .b = b, .d = d };
          guint64 tmp = src;
          if (!launch (gpu, rec, "row-merge", groups * a.per_group, b, (guint64) b * (d + 1),
                       merge_kernel, &a, error))
            return FALSE;
          src = dst;
          dst = tmp;
        }
    }
  g_assert (src == buf[0]);
  if (f32 && !mdl_simt_keys_order (gpu, src, src, n, TRUE, error))
    return FALSE;
  {
    const guint32 *out = mdl_simt_host (gpu, src);
    guint64 first = 0, bad = mdl_keys_check_typed (copy, out, n, f32, &first);
    if (bad)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: %" G_GUINT64_FORMAT " of %"
                     G_GUINT64_FORMAT " keys out of place, the first at %" G_GUINT64_FORMAT,
                     algo, bad, n, first);
        return FALSE;
      }
    *checksum = mdl_simt_algo_checksum (out, 4 * n);
  }
  return TRUE;
}

static gboolean
dway_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
           GError **error)
{
  return sort_body ("sort/dway-merge", (guint) mdl_params_uint (params, "d"), params, n, seed, rec,
                    checksum, error);
}

static gboolean
warpsort_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
               guint64 *checksum, GError **error)
{
  return sort_body ("sort/warpsort", 2, params, n, seed, rec, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (sort_dway, dway_body)
MDL_SIMT_ENTRY_POINTS (sort_warpsort, warpsort_body)
