/* MSIMD quicksort (Jurkiewicz & Danilewski §2, Appendix A.1) in SIMT C: one warp is one
 * SIMD-processor (a block of 32 threads, so that the msimd engine's processor of block b is b).
 *
 * Collaborative stage, one round per iteration, all subproblems that still share processors at
 * once; each round is three launches (three epochs: the kernel boundary is the global sync):
 *   collect  every processor of a subproblem s (P_s >= 2) reads its descriptor (Claim), the pivot,
 *            and its claimed block of ceil(n_s/P_s) keys chunk by chunk, counts the keys below,
 *            equal to and above the pivot (c = 3 classes) and stores its three counters class-major:
 *            cnt[c f_s + d P_s + r] (the notes' corrected ①: A[(d−1)P_s + (t−1)]);
 *   consult  one processor scans cnt[0 .. cP) (exclusive, chunk by chunk); the segmented scan the
 *            paper asks for is then scan[i] − scan[c f_s], which the commit subtracts;
 *   (driver) Lemma 1: child i gets ⌊n_i/g⌋ processors, g = ⌈n/P⌉ fixed at the root; rule=literal
 *            calls the partition unsuccessful when a non-empty child gets none, rule=spare lets
 *            such a child take one of the parent's spare processors first (the notes' V6
 *            fallback); an unsuccessful partition is redone next round with a new pivot, and its
 *            commit is skipped (the counts already tell);
 *   commit   the processors of the successful subproblems read their blocks again and move each
 *            key to its class's segment: less and greater to the other buffer, equal keys straight
 *            to the output (they are in place). commit=buffered keeps a ring of 2S keys per class
 *            in shared memory and writes only the part of one output chunk at a time (at most
 *            ⌈cnt/S⌉ + 1 writes per class: "writes = k + o(k)"); commit=direct writes each input
 *            chunk's keys of a class at once (up to c·k writes: V4's negative case).
 * Independent stage, one launch: every processor sorts the subproblem it owns alone, with the same
 * partition less the consult (a stack of subproblems in shared memory, the larger pushed), and a
 * bitonic sort in shared memory once a subproblem holds at most `base` keys.
 *
 * The driver's work between launches (the assignment of processors, writing the descriptors) is
 * host code and costs nothing in the model: the paper leaves it unpriced.
 * Spec: msimd-jurkiewicz-danilewski.md §2–3, V4–V7; docs/models/sort-msimd-quicksort.md. */
#include "algos/simt/simt-algo.h"
#include "core/clones.h"
#include "algos/simt/msimd-quicksort.h"
#include "algos/keys.h"

#include <string.h>

const MdlParamSpec mdl_msimd_quicksort_params[] = {
  { "P", MDL_PARAM_UINT, "16", NULL, 1, 65535, NULL, 0,
    "SIMD-processors (warps; one block of 32 threads each)" },
  { "rule", MDL_PARAM_CHOICE, "spare", NULL, 0, 0, "spare|literal", 0,
    "processor assignment: spare: a non-empty child without a processor takes a spare one of its "
    "parent, the rest go to the larger child; literal: Lemma 1 as written, such a partition is "
    "redone" },
  { "retries", MDL_PARAM_UINT, "64", NULL, 1, 1u << 20, NULL, 0,
    "failed partitions in a row after which a subproblem goes to its first processor alone" },
  { "commit", MDL_PARAM_CHOICE, "buffered", NULL, 0, 0, "buffered|direct", 0,
    "commit writes: buffered: one output chunk at a time; direct: each input chunk's keys of a "
    "class at once" },
  { "base", MDL_PARAM_UINT, "256", NULL, 32, 1024, NULL, MDL_PARAM_POW2,
    "a processor sorts a subproblem of at most this many keys by a bitonic sort in shared memory" },
  { "stage", MDL_PARAM_CHOICE, "all", NULL, 0, 0, "all|partition", 0,
    "all: sort; partition: one collaborative partition of the whole input by all P processors "
    "(checked as a partition)" },
  MDL_KEYS_DIST_ROW,
  MDL_KEYS_TYPE_ROW,
  { NULL }
};

#define S 32u          /* lanes = cells per chunk */
#define RING (2 * S)   /* keys per class in a commit buffer */
#define DESC 8u        /* words per processor descriptor */
#define STACK 64u      /* subproblems on one processor's stack */

/* The words of a processor's descriptor. */
enum { D_LO, D_N, D_PS, D_RANK, D_FIRST, D_PIVOT, D_SRC, D_ACTIVE };

typedef struct {
  guint64 P;
  MdlMqsRule rule;
  guint64 retries;
  gboolean direct;
  guint base;
  guint64 seed;
  guint64 buf[3];     /* device addresses: buffer 0 (the input), 1 and 2 */
  guint64 out, desc, cnt;
  guint64 n;
  guint64 part_less, part_equal;   /* stage=partition: the root's classes */
} Sort;

/* The buffer a partition of buffer @src writes its less and greater classes to. */
static guint
other_buf (guint src)
{
  return src == 1 ? 2 : 1;
}

/* ---- lanes ---- */

static void
ld_shared (MdlSimtBlock *blk, const guint64 *idx, guint64 *dst)
{
  guint64 *at = mdl_simt_reg (blk, 1);
  mdl_simt_algo_word_addrs (blk, at, 0, idx);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, dst);
}

/* Lanes 0..@k−1 load the descriptor of processor @p (one read: 8 words in one chunk). */
static void
load_desc (MdlSimtBlock *blk, const Sort *s, guint64 p, guint64 d[DESC])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  mdl_simt_algo_pred_range (blk, 0, 0, DESC);
  MDL_SIMT_EACH (blk, t)
    idx[t] = p * DESC + t;
  mdl_simt_algo_ld_words (blk, s->desc, idx, v);
  mdl_simt_pred_end (blk);
  for (guint i = 0; i < DESC; i++)
    d[i] = v[i];
}

/* Lane 0 loads key @i of buffer @src; every lane gets it (a shuffle: one step). */
static guint64
load_pivot (MdlSimtBlock *blk, const Sort *s, guint src, guint64 i)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  guint64 key = mdl_simt_algo_ld_word0 (blk, s->buf[src], i, idx, v);
  mdl_simt_alu (blk, 1);
  return key;
}

/* Loads the keys of chunk @c that lie in [@a, @b) into @key (lanes outside keep nothing) under a
 * predicate the caller closes; one read. Returns the first index of the chunk. */
static guint64
load_chunk (MdlSimtBlock *blk, guint64 base, guint64 c, guint64 a, guint64 b, guint64 *key)
{
  guint64 *idx = mdl_simt_reg (blk, 1);
  mdl_simt_algo_pred_range (blk, c * S, a, b);
  MDL_SIMT_EACH (blk, t)
    idx[t] = c * S + t;
  mdl_simt_algo_ld_words (blk, base, idx, key);
  return c * S;
}

/* The class of each active lane's key (0 less, 1 equal, 2 greater): two compares and a select. */
static void
classify (MdlSimtBlock *blk, const guint64 *key, guint64 pivot, guint64 *cls)
{
  mdl_simt_alu (blk, 3);
  /* Two compares summed (no branch on the keys, which the host mispredicted half the time). */
  MDL_SIMT_EACH (blk, t)
    cls[t] = (guint64) (key[t] >= pivot) + (key[t] > pivot);
}

/* Per class, the active lanes' count and each lane's rank among its class (three ballots, a popc
 * and a masked popc each). */
static void
rank_classes (MdlSimtBlock *blk, const guint64 *cls, guint64 *rank, guint64 count[3])
{
  /* Three counters in registers: count[cls[t]]++ chained every lane through a store and a load. */
  guint64 less = 0, equal = 0, greater = 0;
  mdl_simt_alu (blk, 9);
  MDL_SIMT_EACH (blk, t)
    {
      guint64 c = cls[t];
      rank[t] = c == 0 ? less : c == 1 ? equal : greater;
      less += c == 0, equal += c == 1, greater += c == 2;
    }
  count[0] = less, count[1] = equal, count[2] = greater;
}

/* The counts of the three classes in [@a, @b) of buffer @src: the Collect phase of one processor.
 * The lanes count in registers, then three warp sums (5 shuffle-adds each). */
static void
collect_range (MdlSimtBlock *blk, const Sort *s, guint src, guint64 a, guint64 b, guint64 pivot,
               guint64 count[3])
{
  guint64 *key = mdl_simt_reg (blk, 1), *cls = mdl_simt_reg (blk, 1);
  MdlSimtRegMark chunk_start = mdl_simt_reg_mark (blk);
  count[0] = count[1] = count[2] = 0;
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_reg_release (blk, chunk_start);   /* the last chunk's temporaries */
      load_chunk (blk, s->buf[src], c, a, b, key);
      classify (blk, key, pivot, cls);
      mdl_simt_alu (blk, 2);
      MDL_SIMT_EACH (blk, t)
        {
          count[0] += cls[t] == 0;
          count[1] += cls[t] == 1;
          count[2] += cls[t] == 2;
        }
      mdl_simt_pred_end (blk);
    }
  mdl_simt_alu (blk, 3 * 5 * 2);
}

/* A class's output during a commit: where its next key goes, and its ring in shared memory. */
typedef struct {
  guint64 dst;    /* device address of the output array */
  guint64 pos;    /* next output index */
  guint64 head, fill;
} Out;

/* Writes the @k oldest keys of class @d's ring to its output (one write, one chunk at most when
 * the caller keeps to chunk boundaries). */
static void
flush (MdlSimtBlock *blk, Out *o, guint d, guint64 k)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *oi = mdl_simt_reg (blk, 1);
  mdl_simt_algo_pred_range (blk, 0, 0, k);
  MDL_SIMT_EACH (blk, t)
    idx[t] = d * RING + (o->head + t) % RING;
  ld_shared (blk, idx, v);
  MDL_SIMT_EACH (blk, t)
    oi[t] = o->pos + t;
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, o->dst, oi, v);
  mdl_simt_pred_end (blk);
  o->pos += k;
  o->head = (o->head + k) % RING;
  o->fill -= k;
}

/* The Commit phase of one processor: the keys of [@a, @b) of buffer @src to the outputs @o of
 * their classes. */
static void
commit_range (MdlSimtBlock *blk, const Sort *s, guint src, guint64 a, guint64 b, guint64 pivot,
              Out o[3])
{
  guint64 *key = mdl_simt_reg (blk, 1), *cls = mdl_simt_reg (blk, 1), *rank = mdl_simt_reg (blk, 1);
  guint64 *idx = mdl_simt_reg (blk, 1);
  MdlSimtRegMark chunk_start = mdl_simt_reg_mark (blk);
  guint64 count[3];
  for (guint d = 0; d < 3; d++)
    o[d].head = o[d].fill = 0;
  for (guint64 c = a / S; a < b && c <= (b - 1) / S; c++)
    {
      mdl_simt_reg_release (blk, chunk_start);   /* the last chunk's temporaries and flushes */
      load_chunk (blk, s->buf[src], c, a, b, key);
      classify (blk, key, pivot, cls);
      rank_classes (blk, cls, rank, count);
      if (s->direct)
        {
          /* Each class's lanes store at once, wherever its output stands. */
          for (guint d = 0; d < 3; d++)
            {
              guint8 *cond = mdl_simt_cond (blk);
              if (!count[d])
                continue;
              MDL_SIMT_EACH (blk, t)
                cond[t] = cls[t] == d;
              mdl_simt_pred_begin (blk);
              MDL_SIMT_EACH (blk, t)
                idx[t] = o[d].pos + rank[t];
              mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, o[d].dst, idx, key);
              mdl_simt_pred_end (blk);
              o[d].pos += count[d];
            }
          mdl_simt_pred_end (blk);
          continue;
        }
      /* Into the rings: one shared store, each lane to its class's next free slot. */
      MDL_SIMT_EACH (blk, t)
        idx[t] = cls[t] * RING + (o[cls[t]].head + o[cls[t]].fill + rank[t]) % RING;
      mdl_simt_alu (blk, 2);
      mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, idx, key);
      mdl_simt_pred_end (blk);
      for (guint d = 0; d < 3; d++)
        {
          o[d].fill += count[d];
          /* Out while the ring reaches the end of the output's current chunk. */
          while (o[d].fill >= S - o[d].pos % S)
            flush (blk, &o[d], d, S - o[d].pos % S);
        }
    }
  for (guint d = 0; d < 3 && !s->direct; d++)
    if (o[d].fill)
      flush (blk, &o[d], d, o[d].fill);
}

/* ---- the collaborative stage ---- */

/* The block [*a, *b) that processor @rank of @ps claims in a subproblem of @n keys at @lo. */
static void
claim (guint64 lo, guint64 n, guint64 ps, guint64 rank, guint64 *a, guint64 *b)
{
  guint64 m = (n + ps - 1) / ps;
  *a = MIN (lo + rank * m, lo + n);
  *b = MIN (*a + m, lo + n);
}

static void
collect_kernel (MdlSimtBlock *blk, void *args)
{
  const Sort *s = args;
  guint64 d[DESC], a, b, pivot, count[3];
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  load_desc (blk, s, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  pivot = load_pivot (blk, s, (guint) d[D_SRC], d[D_PIVOT]);
  claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &a, &b);
  collect_range (blk, s, (guint) d[D_SRC], a, b, pivot, count);
  /* The three counters in one store: lane c to cnt[3 f + c P_s + r]. */
  mdl_simt_algo_pred_range (blk, 0, 0, 3);
  MDL_SIMT_EACH (blk, t)
    {
      idx[t] = 3 * d[D_FIRST] + t * d[D_PS] + d[D_RANK];
      v[t] = count[t];
    }
  mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, s->cnt, idx, v);
  mdl_simt_pred_end (blk);
}

/* One processor: the exclusive scan of cnt[0 .. 3P), a chunk at a time (a warp scan of five
 * shuffle-adds, the carry added and passed on). */
static void
consult_kernel (MdlSimtBlock *blk, void *args)
{
  const Sort *s = args;
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), carry = 0;
  guint64 words = 3 * s->P;
  for (guint64 c = 0; c * S < words; c++)
    {
      mdl_simt_algo_pred_range (blk, c * S, 0, words);
      MDL_SIMT_EACH (blk, t)
        idx[t] = c * S + t;
      mdl_simt_algo_ld_words (blk, s->cnt, idx, v);
      mdl_simt_alu (blk, 5 * 2 + 2);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 x = v[t];
          v[t] = carry;
          carry += x;
        }
      mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, s->cnt, idx, v);
      mdl_simt_pred_end (blk);
    }
}

static void
commit_kernel (MdlSimtBlock *blk, void *args)
{
  const Sort *s = args;
  guint64 d[DESC], a, b, pivot, start[3];
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  Out o[3];
  guint src;
  load_desc (blk, s, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  src = (guint) d[D_SRC];
  pivot = load_pivot (blk, s, src, d[D_PIVOT]);
  /* Lanes 0..2: its three scanned counters; lane 3: the segment's first (one load). */
  mdl_simt_algo_pred_range (blk, 0, 0, 4);
  MDL_SIMT_EACH (blk, t)
    idx[t] = t < 3 ? 3 * d[D_FIRST] + t * d[D_PS] + d[D_RANK] : 3 * d[D_FIRST];
  mdl_simt_algo_ld_words (blk, s->cnt, idx, v);
  mdl_simt_pred_end (blk);
  for (guint c = 0; c < 3; c++)
    start[c] = d[D_LO] + v[c] - v[3];
  mdl_simt_alu (blk, 2);
  for (guint c = 0; c < 3; c++)
    {
      o[c].dst = c == 1 ? s->out : s->buf[other_buf (src)];
      o[c].pos = start[c];
    }
  claim (d[D_LO], d[D_N], d[D_PS], d[D_RANK], &a, &b);
  commit_range (blk, s, src, a, b, pivot, o);
}

/* ---- the independent stage ---- */

/* Bitonic sort of keys [@lo, @lo + @n) of buffer @src (n <= base) into out[lo ..): loaded into
 * shared words [@at, @at + m), m the power of two >= n (at least S), padded with 2^32 − 1. */
MDL_CLONES static void
small_sort (MdlSimtBlock *blk, const Sort *s, guint src, guint64 lo, guint64 n, guint64 at)
{
  guint64 *key = mdl_simt_reg (blk, 1), *idx = mdl_simt_reg (blk, 1);
  guint64 *x = mdl_simt_reg (blk, 1), *y = mdl_simt_reg (blk, 1), *ix = mdl_simt_reg (blk, 1);
  guint64 *low = mdl_simt_reg (blk, 1);
  guint64 m = S;
  while (m < n)
    m *= 2;
  for (guint64 i = 0; i < m; i += S)
    {
      /* Lane t takes key lo + i + t (one load: one or two chunks), or the padding. */
      if (i < n)
        {
          mdl_simt_algo_pred_range (blk, i, 0, n);
          MDL_SIMT_EACH (blk, t)
            idx[t] = lo + i + t;
          mdl_simt_algo_ld_words (blk, s->buf[src], idx, key);
          mdl_simt_pred_end (blk);
        }
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        {
          if (i + t >= n)
            key[t] = G_MAXUINT32;
          idx[t] = at + i + t;
        }
      mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, idx, key);
    }
  for (guint64 k = 2; k <= m; k *= 2)
    for (guint64 j = k / 2; j > 0; j /= 2)
      for (guint64 r = 0; r < m / 2; r += S)
        {
          /* Pair r + t: element e = its low index, partner e + j; ascending when e & k == 0.
           * With j a power of two, e = 2j (p / j) + p % j is p plus its bits from j up: no
           * 64-bit division per lane. */
          mdl_simt_algo_pred_range (blk, r, 0, m / 2);
          MDL_SIMT_EACH (blk, t)
            {
              guint64 p = r + t, e = p + (p & ~(j - 1));
              low[t] = e;
              ix[t] = at + e;
              idx[t] = ix[t] + j;
            }
          mdl_simt_alu (blk, 4);
          ld_shared (blk, ix, x);
          ld_shared (blk, idx, y);
          mdl_simt_alu (blk, 3);
          /* Smaller first where bit log2 k of e is 0 (no branch on the keys). */
          mdl_simt_algo_exchange (blk, x, y, low, G_MAXUINT64, 0, (guint) __builtin_ctzll (k));
          mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, ix, x);
          mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, idx, y);
          mdl_simt_pred_end (blk);
        }
  for (guint64 i = 0; i < n; i += S)
    {
      mdl_simt_algo_pred_range (blk, 0, 0, MIN (S, n - i));
      MDL_SIMT_EACH (blk, t)
        idx[t] = at + i + t;
      ld_shared (blk, idx, key);
      MDL_SIMT_EACH (blk, t)
        idx[t] = lo + i + t;
      mdl_simt_algo_st_words (blk, MDL_SPACE_GLOBAL, s->out, idx, key);
      mdl_simt_pred_end (blk);
    }
}

/* The stack of a processor, in shared memory after the rings: 3 words per entry. */
#define STACK_AT (3 * RING)
#define SMALL_AT (STACK_AT + 3 * STACK)

static void
push (MdlSimtBlock *blk, guint64 *depth, guint64 lo, guint64 n, guint64 src)
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  guint64 w[3] = { lo, n, src };
  g_assert (*depth < STACK);
  mdl_simt_algo_pred_range (blk, 0, 0, 3);
  MDL_SIMT_EACH (blk, t)
    {
      idx[t] = STACK_AT + 3 * *depth + t;
      v[t] = w[t];
    }
  mdl_simt_algo_st_words (blk, MDL_SPACE_SHARED, 0, idx, v);
  mdl_simt_pred_end (blk);
  (*depth)++;
}

static void
pop (MdlSimtBlock *blk, guint64 *depth, guint64 w[3])
{
  guint64 *idx = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1);
  (*depth)--;
  mdl_simt_algo_pred_range (blk, 0, 0, 3);
  MDL_SIMT_EACH (blk, t)
    idx[t] = STACK_AT + 3 * *depth + t;
  ld_shared (blk, idx, v);
  mdl_simt_pred_end (blk);
  mdl_simt_alu (blk, 3);
  for (guint i = 0; i < 3; i++)
    w[i] = v[i];
}

/* The pivot index of a subproblem in the independent stage: a hash of the seed and its place. */
static guint64
indep_pivot (guint64 seed, guint64 lo, guint64 n)
{
  return lo + mdl_splitmix64_mix (seed ^ (lo * 0x9e3779b97f4a7c15u) ^ (n << 1)) % n;
}

static void
independent_kernel (MdlSimtBlock *blk, void *args)
{
  const Sort *s = args;
  guint64 d[DESC], depth = 0, w[3], count[3];
  MdlSimtRegMark start;
  load_desc (blk, s, blk->idx_x, d);
  if (!d[D_ACTIVE])
    return;
  push (blk, &depth, d[D_LO], d[D_N], d[D_SRC]);
  start = mdl_simt_reg_mark (blk);
  while (depth > 0)
    {
      guint64 lo, n, pivot;
      guint src;
      Out o[3];
      /* A block sorts many subproblems in one run: each turn reuses the last one's lane
       * vectors, where the arena grew by them (about 10 MB of fresh pages at 64K keys). */
      mdl_simt_reg_release (blk, start);
      pop (blk, &depth, w);
      lo = w[0], n = w[1], src = (guint) w[2];
      if (n <= s->base)
        {
          if (n)
            small_sort (blk, s, src, lo, n, SMALL_AT);
          continue;
        }
      pivot = load_pivot (blk, s, src, indep_pivot (s->seed, lo, n));
      collect_range (blk, s, src, lo, lo + n, pivot, count);
      o[0].pos = lo, o[1].pos = lo + count[0], o[2].pos = lo + count[0] + count[1];
      o[0].dst = o[2].dst = s->buf[other_buf (src)];
      o[1].dst = s->out;
      mdl_simt_alu (blk, 2);
      commit_range (blk, s, src, lo, lo + n, pivot, o);
      /* The larger child first, so the smaller is sorted next and the stack stays shallow. */
      if (count[0] >= count[2])
        {
          push (blk, &depth, lo, count[0], other_buf (src));
          push (blk, &depth, lo + count[0] + count[1], count[2], other_buf (src));
        }
      else
        {
          push (blk, &depth, lo + count[0] + count[1], count[2], other_buf (src));
          push (blk, &depth, lo, count[0], other_buf (src));
        }
    }
}

/* ---- the processor assignment (Lemma 1), shared with the tests ---- */

gboolean
mdl_mqs_assign (MdlMqsRule rule, guint64 g, guint64 ps, guint64 n_left, guint64 n_right,
                guint64 *p_left, guint64 *p_right)
{
  guint64 pl = n_left / g, pr = n_right / g, spare;
  g_return_val_if_fail (g > 0 && pl + pr <= ps, FALSE);
  spare = ps - pl - pr;
  if (rule == MDL_MQS_SPARE)
    {
      if (n_left && !pl && spare)
        pl = 1, spare--;
      if (n_right && !pr && spare)
        pr = 1, spare--;
      if (n_left >= n_right)
        pl += spare;
      else
        pr += spare;
    }
  *p_left = pl;
  *p_right = pr;
  return !((n_left && !pl) || (n_right && !pr));
}

MdlMqsStage
mdl_mqs_simulate (MdlMqsRule rule, guint64 n, guint64 P, guint64 max_rounds, guint64 seed)
{
  /* A subproblem: keys, processors, first processor. */
  typedef struct { guint64 n, ps, first; } Part;
  MdlMqsStage st = { 0 };
  guint64 g = (n + P - 1) / P, rng = seed;
  g_autofree guint64 *attempts = g_new0 (guint64, P);
  g_autoptr (GArray) cur = g_array_new (FALSE, FALSE, sizeof (Part));
  g_autoptr (GArray) nxt = g_array_new (FALSE, FALSE, sizeof (Part));
  Part root = { n, P, 0 };
  if (P >= 2 && n > 0)
    g_array_append_val (cur, root);
  else
    st.max_size = n;
  while (cur->len && st.rounds < max_rounds)
    {
      st.rounds++;
      g_array_set_size (nxt, 0);
      for (guint i = 0; i < cur->len; i++)
        {
          Part u = g_array_index (cur, Part, i);
          guint64 r = mdl_splitmix64 (&rng) % u.n, p[2];
          Part kid[2] = { { r, 0, u.first }, { u.n - 1 - r, 0, 0 } };
          st.partitions++;
          for (guint64 q = u.first; q < u.first + u.ps; q++)
            {
              attempts[q]++;
              st.max_attempts = MAX (st.max_attempts, attempts[q]);
            }
          if (!mdl_mqs_assign (rule, g, u.ps, kid[0].n, kid[1].n, &p[0], &p[1]))
            {
              st.failures++;
              g_array_append_val (nxt, u);
              continue;
            }
          kid[0].ps = p[0], kid[1].ps = p[1], kid[1].first = u.first + p[0];
          for (guint c = 0; c < 2; c++)
            if (kid[c].ps >= 2)
              g_array_append_val (nxt, kid[c]);
            else if (kid[c].n)
              st.max_size = MAX (st.max_size, kid[c].n);
        }
      g_array_set_size (cur, 0);
      g_array_append_vals (cur, nxt->data, nxt->len);
    }
  st.finished = cur->len == 0;
  return st;
}

/* ---- host side ---- */

typedef struct {
  guint64 lo, n, ps, first, src, failures;
} Sub;

/* Writes processor @p's descriptor. */
static void
set_desc (guint32 *desc, guint64 p, guint64 lo, guint64 n, guint64 ps, guint64 rank,
          guint64 first, guint64 pivot, guint64 src, gboolean active)
{
  guint32 *d = desc + p * DESC;
  d[D_LO] = (guint32) lo, d[D_N] = (guint32) n, d[D_PS] = (guint32) ps;
  d[D_RANK] = (guint32) rank, d[D_FIRST] = (guint32) first, d[D_PIVOT] = (guint32) pivot;
  d[D_SRC] = (guint32) src, d[D_ACTIVE] = active;
}

static gboolean
launch (MdlSimt *gpu, const Sort *s, guint32 grid, MdlSimtKernel kernel, GError **error)
{
  MdlSimtLaunch shape = { .grid_x = grid, .block_x = S, .shared_bytes = 4 * (SMALL_AT + s->base) };
  return mdl_simt_launch (gpu, &shape, kernel, (void *) s, error);
}

/* The collaborative stage and the independent one; @one_round stops after the root's first
 * successful partition (stage=partition). */
static gboolean
sort_run (MdlSimt *gpu, Sort *s, gboolean one_round, GError **error)
{
  guint32 *desc = mdl_simt_host (gpu, s->desc), *cnt = mdl_simt_host (gpu, s->cnt);
  guint64 g = (s->n + s->P - 1) / s->P, rng = s->seed;
  g_autoptr (GArray) subs = g_array_new (FALSE, FALSE, sizeof (Sub));
  g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (Sub));
  g_autoptr (GArray) own = g_array_new (FALSE, FALSE, sizeof (Sub));   /* one processor each */
  Sub root = { 0, s->n, s->P, 0, 0, 0 };
  g_array_append_val (s->P >= 2 ? subs : own, root);
  while (subs->len)
    {
      g_autofree guint64 *pivots = g_new (guint64, subs->len);
      g_autofree gboolean *ok = g_new0 (gboolean, subs->len);
      memset (desc, 0, 4 * DESC * s->P);
      for (guint i = 0; i < subs->len; i++)
        {
          Sub *u = &g_array_index (subs, Sub, i);
          pivots[i] = u->lo + mdl_splitmix64 (&rng) % u->n;
          for (guint64 r = 0; r < u->ps; r++)
            set_desc (desc, u->first + r, u->lo, u->n, u->ps, r, u->first, pivots[i], u->src, TRUE);
        }
      if (!launch (gpu, s, (guint32) s->P, collect_kernel, error)
          || !launch (gpu, s, 1, consult_kernel, error))
        return FALSE;
      g_array_set_size (next, 0);
      for (guint i = 0; i < subs->len; i++)
        {
          Sub u = g_array_index (subs, Sub, i), kid[2];
          guint64 base = 3 * u.first, nl = cnt[base + u.ps] - cnt[base];
          guint64 ne = cnt[base + 2 * u.ps] - cnt[base + u.ps], nr = u.n - nl - ne, p[2];
          ok[i] = mdl_mqs_assign (s->rule, g, u.ps, nl, nr, &p[0], &p[1]);
          s->part_less = nl, s->part_equal = ne;
          for (guint64 r = 0; r < u.ps; r++)
            desc[(u.first + r) * DESC + D_ACTIVE] = ok[i];
          if (!ok[i])
            {
              /* Redo with a new pivot, or give up on sharing it after `retries` in a row. */
              u.failures++;
              g_array_append_val (u.failures >= s->retries ? own : next, u);
              continue;
            }
          kid[0] = (Sub) { u.lo, nl, p[0], u.first, other_buf ((guint) u.src), 0 };
          kid[1] = (Sub) { u.lo + nl + ne, nr, p[1], u.first + p[0], other_buf ((guint) u.src), 0 };
          for (guint c = 0; c < 2 && !one_round; c++)
            if (kid[c].n)
              g_array_append_val (kid[c].ps >= 2 ? next : own, kid[c]);
        }
      if (!launch (gpu, s, (guint32) s->P, commit_kernel, error))
        return FALSE;
      if (one_round && ok[0])
        return TRUE;
      g_array_set_size (subs, 0);
      g_array_append_vals (subs, next->data, next->len);
    }
  memset (desc, 0, 4 * DESC * s->P);
  for (guint i = 0; i < own->len; i++)
    {
      const Sub *u = &g_array_index (own, Sub, i);
      set_desc (desc, u->first, u->lo, u->n, 1, 0, u->first, 0, u->src, TRUE);
    }
  return launch (gpu, s, (guint32) s->P, independent_kernel, error);
}

/* stage=partition: keys [0, nl) and [nl + ne, n) of @part are the less and greater classes,
 * [nl, nl + ne) of @out the equal ones; TRUE when each class is on its side of the pivot and the
 * whole is a permutation of @in. */
static gboolean
check_partition (const Sort *s, const guint32 *in, const guint32 *part, const guint32 *out,
                 GError **error)
{
  guint64 n = s->n, nl = s->part_less, ne = s->part_equal, first = 0;
  g_autofree guint32 *b = g_new (guint32, n);
  guint32 pivot = out[nl];
  for (guint64 j = 0; j < n; j++)
    {
      int side = j < nl ? -1 : j < nl + ne ? 0 : 1;
      b[j] = side ? part[j] : out[j];
      if ((side < 0 && b[j] >= pivot) || (side == 0 && b[j] != pivot) || (side > 0 && b[j] <= pivot))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/msimd-quicksort: key %"
                       G_GUINT64_FORMAT " (0x%08x) is on the wrong side of pivot 0x%08x", j, b[j],
                       pivot);
          return FALSE;
        }
    }
  if (!mdl_keys_sort (b, n) || mdl_keys_check (in, b, n, &first) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/msimd-quicksort: the partition is "
                   "not a permutation of the input");
      return FALSE;
    }
  return TRUE;
}

static gboolean
msimd_quicksort_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                      guint64 *checksum, GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  g_autofree guint32 *copy = NULL;
  Sort s = { 0 };
  guint32 *in, *out;
  gboolean one_round = mdl_params_choice (params, "stage") == 1;
  gboolean f32 = mdl_params_choice (params, "keys") == 1;
  guint64 first = 0;
  if (!mdl_simt_algo_size_ok ("sort/msimd-quicksort", n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  s.P = mdl_params_uint (params, "P");
  s.rule = mdl_params_choice (params, "rule") == 1 ? MDL_MQS_LITERAL : MDL_MQS_SPARE;
  s.retries = mdl_params_uint (params, "retries");
  s.direct = mdl_params_choice (params, "commit") == 1;
  s.base = (guint) mdl_params_uint (params, "base");
  s.seed = seed;
  s.n = n;
  if (one_round && s.P < 2)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/msimd-quicksort: stage=partition needs "
                   "P >= 2 (a collaborative partition)");
      return FALSE;
    }
  gpu = mdl_simt_algo_gpu_new (rec);
  for (guint i = 0; i < 3; i++)
    if (!(s.buf[i] = mdl_simt_alloc (gpu, 4 * n, error)))
      return FALSE;
  if (!(s.out = mdl_simt_alloc (gpu, 4 * n, error))
      || !(s.desc = mdl_simt_alloc (gpu, 4 * DESC * s.P, error))
      || !(s.cnt = mdl_simt_alloc (gpu, 4 * 3 * s.P, error)))
    return FALSE;
  in = mdl_simt_host (gpu, s.buf[0]);
  out = mdl_simt_host (gpu, s.out);
  if (!mdl_keys_fill_typed (in, n, (MdlKeyDist) mdl_params_choice (params, "dist"), seed, f32))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sort/msimd-quicksort: out of memory");
      return FALSE;
    }
  copy = g_memdup2 (in, 4 * n);
  memset (out, 0xA5, 4 * n);
  if ((f32 && !mdl_simt_keys_order (gpu, s.buf[0], s.buf[0], n, FALSE, error))
      || !sort_run (gpu, &s, one_round, error))
    return FALSE;
  if (one_round)
    {
      /* One partition is checked in the words the sort compares. */
      for (guint64 j = 0; f32 && j < n; j++)
        copy[j] = mdl_keys_f32_order (copy[j]);
      if (!check_partition (&s, copy, mdl_simt_host (gpu, s.buf[1]), out, error))
        return FALSE;
    }
  else if ((f32 && !mdl_simt_keys_order (gpu, s.out, s.out, n, TRUE, error)))
    return FALSE;
  else if (mdl_keys_check_typed (copy, out, n, f32, &first) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "sort/msimd-quicksort: key %"
                   G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " (0x%08x) is out of place", first,
                   n, out[first]);
      return FALSE;
    }
  *checksum = mdl_simt_algo_checksum (out, 4 * n);
  return TRUE;
}

MDL_SIMT_ENTRY_POINTS (msimd_quicksort, msimd_quicksort_body)
