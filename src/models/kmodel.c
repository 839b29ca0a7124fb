/* The `kmodel` engine: Capannini's K-model(k, σ) over the SIMT warp stream. One instruction unit
 * issues to k scalar units; the internal memory (shared) has k banks (word mod k); the external
 * memory (global) is read in aligned k-word segments. A warp instruction is cut into groups of
 * k lanes by lane index (a 32-lane warp is two half-warp instructions when k = 16: the thesis's
 * "parallel loop over m > k operations is ceil(m/k) instructions over consecutive chunks of k").
 * Each group with an active lane is one issued instruction: ℓ += 1, W += active lanes, and
 *  - arithmetic, branch, jump, local (register) access: T += 1;
 *  - shared access: T += the longest bank queue (requests per bank; broadcast=1: distinct words);
 *  - global access: G += distinct segments floor(word / k), and nothing else: the thesis keeps
 *    external transactions out of T, W and ℓ;
 *  - barrier arrivals are not instructions.
 * fuse=1 (the default, the thesis's toy example) issues two consecutive shared loads of one warp
 * with the same mask as one instruction of 2L requests and length L. Words are 4 bytes.
 * T and W are also reported split by instruction class (shared loads, shared stores and atomics,
 * arithmetic and local accesses, branches and jumps), so that a cost the thesis counts alone (the
 * up-sweep's stores of §3.3.3) can be read off a run; the classes add up to T and W.
 * A stream element (block) may use at most σ words of internal memory.
 * Rules and ambiguities: spec kmodel-capannini.md §1.6, docs/models/kmodel.md. */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

#include <math.h>
#include <string.h>

#define MAX_K 64
#define MAX_WARPS 64
#define WORD_SHIFT 2   /* words are 4 bytes */
#define WORD_BYTES (1u << WORD_SHIFT)
#define LANE_WORDS 17   /* words one lane's access touches at most: 64 bytes, misaligned */
#define MAX_REQS (2 * MDL_WARP_MAX_LANES * LANE_WORDS)   /* two fused loads of 64 lanes */

/* The classes T and W are split by (report order). */
typedef enum {
  CLASS_SHARED_LOAD = 0,
  CLASS_SHARED_STORE,   /* stores and atomics: both write the bank */
  CLASS_ARITH,          /* arithmetic and local (register) accesses */
  CLASS_CONTROL,        /* branches and jumps */
  N_CLASSES
} InstrClass;

static const struct { const char *T, *W, *T_help, *W_help; } class_counters[N_CLASSES] = {
  { "T_shared_loads", "W_shared_loads", "part of T: shared (internal-memory) loads",
    "part of W: shared (internal-memory) loads" },
  { "T_shared_stores", "W_shared_stores", "part of T: shared (internal-memory) stores and atomics",
    "part of W: shared (internal-memory) stores and atomics" },
  { "T_arith", "W_arith", "part of T: arithmetic instructions and local (register) accesses",
    "part of W: arithmetic instructions and local (register) accesses" },
  { "T_control", "W_control", "part of T: branches and jumps", "part of W: branches and jumps" },
};

/* A shared load waiting for a second one to fuse with, per warp index. Its requests are kept per
 * group as the latency needs them: with broadcast=0 as a count per bank (a fused pair's queue is
 * then the largest sum, with no list of 2 x span words to copy and count again), with
 * broadcast=1 as words (repeats across the two loads must be seen). */
typedef struct {
  gboolean used;
  guint32 launch, block;
  guint64 active;
  gboolean lanes;                   /* group i's words are word0 + its lanes, not kept */
  guint64 word0;
  gboolean mapped;                  /* group i's words are maps[i] (group_maps()), not kept */
  guint64 maps[MDL_WARP_MAX_LANES / 8];
  guint n[MDL_WARP_MAX_LANES];      /* requests per group */
  guint64 *words;                   /* broadcast=1, MAX_REQS: group i's at i x span x 2 x
                                       LANE_WORDS; NULL until the warp's first fused load (64 of
                                       17 KiB each were most of building the engine) */
  guint16 *queues;                  /* broadcast=0, MDL_WARP_MAX_LANES x k: group i's requests
                                       per bank at i x k (at most 2 x 64 x 17); NULL until then */
} Pending;

typedef struct {
  guint64 k;                 /* units = banks = segment words */
  guint k_shift;             /* log2 k */
  guint64 sigma;             /* internal-memory words per stream element */
  gboolean broadcast;
  gboolean fuse;
  guint span;                /* lanes per instruction: min(k, warp width) */
  guint64 T[N_CLASSES], W[N_CLASSES];   /* per class; the totals are their sums */
  guint64 G, instructions;
  guint warp_width;
  Pending pending[MAX_WARPS];
  guint64 addrs[MDL_WARP_MAX_LANES];
  guint64 list[MDL_WARP_MAX_LANES];   /* gpu_list_words() of the instruction */
  GpuAtomicChain chain;      /* global atomics' chains and CAS lanes (counted, not charged) */
  guint64 chain_addrs[MDL_WARP_MAX_LANES];
  guint64 reqs[MAX_REQS];
  guint bank_count[MAX_K];
} Kmodel;

static const MdlParamSpec kmodel_params[] = {
  { "k", MDL_PARAM_UINT, "16", "shared_banks", 1, MAX_K, NULL, MDL_PARAM_POW2,
    "scalar units = internal-memory banks = external segment size in words" },
  { "sigma", MDL_PARAM_UINT, "12288", NULL, 1, 0, NULL, 0,
    "internal-memory words available to one stream element (block)" },
  { "broadcast", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "requests for one word share a bank slot (0: every request queues)" },
  { "fuse", MDL_PARAM_BOOL, "1", NULL, 0, 0, NULL, 0,
    "two consecutive shared loads of a warp are one instruction (0: separate)" },
  { NULL }
};

static gboolean
kmodel_init (void *state, const MdlParams *params, GError **error)
{
  Kmodel *m = state;
  (void) error;
  m->k = mdl_params_uint (params, "k");
  m->k_shift = (guint) __builtin_ctzll (m->k);
  m->sigma = mdl_params_uint (params, "sigma");
  m->broadcast = mdl_params_bool (params, "broadcast");
  m->fuse = mdl_params_bool (params, "fuse");
  m->warp_width = 32;
  m->span = (guint) MIN (m->k, (guint64) m->warp_width);
  return TRUE;
}

static void
kmodel_finalize (void *state)
{
  Kmodel *m = state;
  for (guint i = 0; i < MAX_WARPS; i++)
    {
      g_free (m->pending[i].words);
      g_free (m->pending[i].queues);
    }
  gpu_atomic_chain_free (&m->chain);
}

/* Counts the @n word requests @words into @q, the requests per bank (word mod k). */
static inline void
queue_count (const Kmodel *m, guint16 *q, const guint64 *words, guint n)
{
  for (guint i = 0; i < n; i++)
    q[words[i] & (m->k - 1)]++;
}

/* The longest of the k bank queues @q. */
static inline guint
queue_max (const Kmodel *m, const guint16 *q)
{
  guint worst = 0;
  for (guint b = 0; b < m->k; b++)
    worst = MAX (worst, q[b]);
  return worst;
}

/* The longest bank queue of the @n word requests @words (broadcast=1: of the distinct words).
 * Counted per bank: a count and a pass over k banks cost less than gpu_bank_queue()'s checks of
 * rising words, which the sorts' data-dependent shared accesses mostly fail. */
static guint
bank_latency (Kmodel *m, const guint64 *words, guint n)
{
  guint16 q[MAX_K];
  if (m->broadcast)
    {
      if (words != m->reqs)
        memcpy (m->reqs, words, n * sizeof *words);
      n = mdl_gpu_sort_unique (m->reqs, n);
      return gpu_bank_queue (m->bank_count, m->reqs, n, m->k - 1);
    }
  memset (q, 0, m->k * sizeof *q);
  queue_count (m, q, words, n);
  return queue_max (m, q);
}

/* The words of @group when its lane l touches word @word0 + l alone (gpu_lane_words()), in lane
 * order, as gpu_group_words() would list them; returns how many. */
static guint
lane_word_list (guint64 group, guint64 word0, guint64 *out)
{
  guint n = 0;
  for (; group; group &= group - 1)
    out[n++] = word0 + (guint64) __builtin_ctzll (group);
  return n;
}

/* The banks (word mod k) of the words @word0 + l of the lanes l of @group, a group of the span
 * that starts at lane @g: the group's lane bits turned by word0 + g within k bits. */
static guint64
lane_banks (const Kmodel *m, guint64 group, guint g, guint64 word0)
{
  guint64 r = group >> g, all = gpu_group_mask ((guint) m->k);
  guint turn = (guint) ((word0 + g) & (m->k - 1));
  return turn ? ((r << turn) | (r >> (m->k - turn))) & all : r;
}

/* The bank-aligned map of the lanes of @group, a group of the span that starts at lane @g, when
 * lane l touches word @word0 + l alone (gpu_lane_words()): bit p for word w when w = p mod 64,
 * so that bit p's bank is p mod k (k divides 64) wherever the words lie; the group's lane bits
 * turned by word0 + g. */
static inline guint64
lane_map (guint64 group, guint g, guint64 word0)
{
  guint64 r = group >> g;
  guint turn = (guint) ((word0 + g) & 63);
  return turn ? (r << turn) | (r >> (64 - turn)) : r;
}

/* The longest bank queue of the requests of the bank-aligned map @a: a lone instruction's group.
 * Inlined, with no second map, the bit-sliced count (gpu_rows_queue()) has one slice to fold,
 * not two, and no call. */
static inline guint
map_queue (const Kmodel *m, guint64 a)
{
  GpuWindow w = { 0, a, 0 };
  return gpu_window_queue (&w, m->k - 1);
}

/* The longest bank queue of the requests of the bank-aligned maps @a and @b: a fused pair's
 * queue is the largest sum of the two loads' requests per bank. O(1). */
static guint
maps_queue (const Kmodel *m, guint64 a, guint64 b)
{
  GpuRows r = { 0, { a, b, 0 } };
  return gpu_rows_queue (&r, m->k - 1);
}

/* The bank-aligned map (lane_map()'s form: bit p for the words w = p mod 64) of the word
 * requests of the lanes @group (not 0) of shared instruction @e (@at: how many active lanes lie
 * below @group, the place of its first address in the explicit form's list). FALSE unless every
 * lane touches one word (a power-of-two width no wider, aligned to it), no two lanes' words agree
 * mod 64 and the OR of the addresses is a word below sigma (so is every word; a larger OR is left
 * to the lists, which name the word beyond sigma). Then the map holds every request, and as k
 * divides 64 a bank's requests are its bits, wherever the words lie: with no window to fit, one
 * pass of four operations per lane. */
static gboolean
group_map (const Kmodel *m, const MdlEventBatch *batch, const MdlWarpEvent *e, guint64 group,
           guint at, guint64 *map)
{
  guint64 width = MAX (e->width, 1u), any = 0, bits = 0;
  guint n = gpu_popcount (group);
  if ((width & (width - 1)) != 0 || width > WORD_BYTES)
    return FALSE;
  if (e->flags & MDL_WARP_STRIDED)
    {
      guint first = (guint) __builtin_ctzll (group);
      guint64 a = e->base + (guint64) ((gint64) first * e->stride);
      /* A run of lanes (a whole group, mostly) steps by the stride, with no bit scan per lane. */
      if (((group >> first) & ((group >> first) + 1)) == 0)
        for (guint i = 0; i < n; i++, a += (guint64) e->stride)
          {
            any |= a;
            bits = gpu_bit_set (bits, a >> WORD_SHIFT);
          }
      else
        for (guint64 r = group; r; r &= r - 1)
          {
            a = e->base + (guint64) ((gint64) __builtin_ctzll (r) * e->stride);
            any |= a;
            bits = gpu_bit_set (bits, a >> WORD_SHIFT);
          }
    }
  else
    {
      const guint64 *src = batch->lane_addrs + e->first_addr + at;
#pragma GCC unroll 4
      for (guint i = 0; i < n; i++)
        {
          any |= src[i];
          bits = gpu_bit_set (bits, src[i] >> WORD_SHIFT);
        }
    }
  *map = bits;
  return (any & (width - 1)) == 0 && any >> WORD_SHIFT < m->sigma && gpu_popcount (bits) == n;
}

/* Fills @maps (one per group of the span, 0 for an idle group) with the bank-aligned maps
 * (group_map()) of shared instruction @e, when broadcast=0 (requests, so repeats must not merge)
 * and k and the span are at least 8 (gpu_rows_queue()'s banks): the sorts' data-dependent lists,
 * costed with no list of words and no count per bank. FALSE otherwise. */
static gboolean
group_maps (const Kmodel *m, const MdlEventBatch *batch, const MdlWarpEvent *e, guint64 *maps)
{
  guint64 group_mask = gpu_group_mask (m->span);
  guint at = 0, end = 64 - (guint) __builtin_clzll (e->active);   /* lanes past the last active one */
  if (m->broadcast || m->k < 8 || m->span < 8)
    return FALSE;
  for (guint g = 0, gi = 0; g < end; g += m->span, gi++)
    {
      guint64 group = e->active & (group_mask << g);
      maps[gi] = 0;
      if (group == 0)
        continue;
      if (!group_map (m, batch, e, group, at, &maps[gi]))
        return FALSE;
      at += gpu_popcount (group);
    }
  return TRUE;
}

/* Adds the @n word requests @words to group @gi of the pending load @p. */
static void
pending_keep (const Kmodel *m, Pending *p, guint gi, const guint64 *words, guint n)
{
  if (m->broadcast)
    memcpy (p->words + (gsize) gi * m->span * 2 * LANE_WORDS + p->n[gi], words, n * sizeof *words);
  else
    {
      guint16 *q = p->queues + (gsize) gi * m->k;
      if (p->n[gi] == 0)
        memset (q, 0, m->k * sizeof *q);
      queue_count (m, q, words, n);
    }
  p->n[gi] += n;
}

/* Keeps the words of a pending load kept as word0 + lane (Pending.lanes) or as maps
 * (Pending.mapped, broadcast=0), as any other's. */
static void
pending_list (Kmodel *m, Pending *p)
{
  guint64 group_mask = gpu_group_mask (m->span);
  if (!p->lanes && !p->mapped)
    return;
  for (guint g = 0, gi = 0; g < MDL_WARP_MAX_LANES; g += m->span, gi++)
    {
      guint64 group = p->active & (group_mask << g);
      if (group && p->lanes)
        {
          p->n[gi] = 0;
          pending_keep (m, p, gi, m->reqs, lane_word_list (group, p->word0, m->reqs));
        }
      else if (group)
        {
          /* A map's bit b is a request to bank b mod k. */
          guint16 *q = p->queues + (gsize) gi * m->k;
          memset (q, 0, m->k * sizeof *q);
          for (guint64 r = p->maps[gi]; r; r &= r - 1)
            q[__builtin_ctzll (r) & (m->k - 1)]++;
        }
    }
  p->lanes = p->mapped = FALSE;
}

/* The longest bank queue of group @gi of the pending load @p. */
static guint
pending_queue (Kmodel *m, const Pending *p, guint gi)
{
  if (m->broadcast)
    return bank_latency (m, p->words + (gsize) gi * m->span * 2 * LANE_WORDS, p->n[gi]);
  return queue_max (m, p->queues + (gsize) gi * m->k);
}

/* The T of a pending load issued alone. */
static guint64
pending_latency (Kmodel *m, const Pending *p)
{
  guint64 t = 0;
  for (guint g = 0, i = 0; g < MDL_WARP_MAX_LANES; g += m->span, i++)
    if (p->n[i] && p->lanes)
      t++;   /* distinct words of at most k consecutive lanes: one bank each */
    else if (p->n[i] && p->mapped)
      t += map_queue (m, p->maps[i]);
    else if (p->n[i])
      t += pending_queue (m, p, i);
  return t;
}

static guint64
pending_groups (Kmodel *m, const Pending *p, guint64 *lanes)
{
  guint64 g_count = 0;
  *lanes = 0;
  for (guint g = 0; g < MDL_WARP_MAX_LANES; g += m->span)
    {
      guint64 mask = gpu_group_mask (m->span) << g;
      if (p->active & mask)
        {
          g_count++;
          *lanes += gpu_popcount (p->active & mask);
        }
    }
  return g_count;
}

/* Issues the pending load, alone or fused (its T given as @t, G_MAXUINT64: from its words). */
static void
flush_pending_t (Kmodel *m, Pending *p, guint64 t)
{
  guint64 lanes;
  if (!p->used)
    return;
  m->T[CLASS_SHARED_LOAD] += t == G_MAXUINT64 ? pending_latency (m, p) : t;
  m->instructions += pending_groups (m, p, &lanes);
  m->W[CLASS_SHARED_LOAD] += lanes;
  p->used = FALSE;
}

static void
flush_pending (Kmodel *m, Pending *p)
{
  flush_pending_t (m, p, G_MAXUINT64);
}

static gboolean
check_sigma (Kmodel *m, const MdlWarpEvent *e, const guint64 *words, guint n, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (words[i] >= m->sigma)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "kmodel: launch %u block %u warp %u uses "
                     "internal-memory word %" G_GUINT64_FORMAT ", beyond sigma=%" G_GUINT64_FORMAT
                     " words", e->launch, e->block, e->warp, words[i], m->sigma);
        return FALSE;
      }
  return TRUE;
}

/* check_sigma() over the words of every group of the shared instruction @e (lane addresses in
 * m->addrs), before it changes any state: an instruction beyond sigma fails whole, so the counts
 * reported after the error are those before it (a pending load half overwritten used to count
 * stale words of an older instruction). */
static gboolean
sigma_ok (Kmodel *m, const MdlWarpEvent *e, GError **error)
{
  guint64 group_mask = gpu_group_mask (m->span), last = 0, wraps = 0;
  guint width = MAX (e->width, 1u);
  /* The common case in one pass over the lanes, with no list of words: no lane's bytes wrap past
   * the top of the address space and the highest byte's word is below sigma. The lists below
   * only name the first word beyond it (they were a fifth of the engine's time on the sorts). */
  for (guint64 r = e->active; r; r &= r - 1)
    {
      guint64 addr = m->addrs[__builtin_ctzll (r)], end = addr + width - 1;
      wraps |= end < addr;
      last = MAX (last, end);
    }
  if (!wraps && last >> WORD_SHIFT < m->sigma)
    return TRUE;
  for (guint g = 0; g < MDL_WARP_MAX_LANES; g += m->span)
    {
      guint64 group = e->active & (group_mask << g);
      if (group && !check_sigma (m, e, m->reqs, gpu_group_words (m->addrs, group, e->width,
                                                                  WORD_SHIFT, m->reqs), error))
        return FALSE;
    }
  return TRUE;
}

/* The words of the lanes @group of @e, as gpu_group_words() lists them from m->addrs (into
 * @out), or when @listed the group's slice of m->list (not copied); how many in *@n. */
static const guint64 *
group_words (const Kmodel *m, const MdlWarpEvent *e, guint64 group, gboolean listed, guint64 *out,
             guint *n)
{
  if (!listed)
    {
      *n = gpu_group_words (m->addrs, group, e->width, WORD_SHIFT, out);
      return out;
    }
  *n = gpu_popcount (group);
  return m->list + gpu_popcount (e->active & ((group & -group) - 1));
}

static InstrClass
class_of (const MdlWarpEvent *e)
{
  if (e->op == MDL_WARP_BRANCH || e->op == MDL_WARP_JUMP)
    return CLASS_CONTROL;
  if (!mdl_warp_is_memory (e) || e->space != MDL_SPACE_SHARED)
    return CLASS_ARITH;
  return e->op == MDL_WARP_LOAD ? CLASS_SHARED_LOAD : CLASS_SHARED_STORE;
}

static gboolean
kmodel_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  Kmodel *m = state;
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      /* The machine's instructions are not the algorithm's (MDL_WARP_MACHINE). */
      if (e->flags & MDL_WARP_MACHINE)
        continue;
      Pending *p = &m->pending[e->warp % MAX_WARPS];
      gboolean shared_load = e->op == MDL_WARP_LOAD && e->space == MDL_SPACE_SHARED;
      guint64 group_mask = gpu_group_mask (m->span);
      InstrClass cls = class_of (e);
      guint64 word0 = 0, top, maps[MDL_WARP_MAX_LANES / 8];
      guint end = 64 - (guint) __builtin_clzll (e->active);   /* no group past the last active lane */
      gboolean lanes = FALSE, listed = FALSE, mapped = FALSE;
      if (p->used && (p->launch != e->launch || p->block != e->block || !shared_load
                      || p->active != e->active))
        flush_pending (m, p);
      if (e->op == MDL_WARP_BARRIER)
        continue;
      /* Lanes of one word each (gpu_lane_words) need no addresses; in shared memory, only below
       * sigma (check_sigma then names the first word beyond it). Local accesses need none. */
      if (mdl_warp_is_memory (e) && e->space != MDL_SPACE_LOCAL)
        {
          lanes = gpu_lane_words (e, WORD_SHIFT, &word0)
                  && (e->space == MDL_SPACE_GLOBAL
                      || (word0 < m->sigma && m->sigma - word0 >= MDL_WARP_MAX_LANES));
          if (e->op == MDL_WARP_ATOMIC && e->space == MDL_SPACE_GLOBAL)
            {
              mdl_warp_addrs (batch, e, m->chain_addrs);
              gpu_atomic_chain_add (&m->chain, e, m->chain_addrs);
            }
          /* Shared words in windows need no list, unless a pending load kept as a list waits
           * for them. */
          mapped = !lanes && e->space == MDL_SPACE_SHARED && e->op != MDL_WARP_ATOMIC
                   && (!shared_load || !m->fuse || !p->used || p->lanes || p->mapped)
                   && group_maps (m, batch, e, maps);
          /* Other lanes of one word each come straight from the list (an atomic's rounds need
           * addresses by lane); the rest, and an instruction beyond sigma, by lane. */
          /* the list's own sigma check: its highest word (sigma_ok() names the first beyond) */
          listed = !lanes && !mapped && e->op != MDL_WARP_ATOMIC
                   && gpu_list_words (batch, e, WORD_SHIFT, m->list, &top)
                   && (e->space == MDL_SPACE_GLOBAL || top < m->sigma);
          if (!lanes && !listed && !mapped)
            {
              mdl_warp_addrs (batch, e, m->addrs);
              if (e->space == MDL_SPACE_SHARED && !sigma_ok (m, e, error))
                return FALSE;
            }
        }
      if (shared_load && m->fuse)
        {
          gboolean second = p->used;
          if (m->broadcast && p->words == NULL)
            p->words = g_new (guint64, MAX_REQS);
          if (!m->broadcast && p->queues == NULL)
            p->queues = g_new (guint16, MDL_WARP_MAX_LANES * m->k);
          if (!second)
            {
              p->used = TRUE;
              p->launch = e->launch;
              p->block = e->block;
              p->active = e->active;
              p->lanes = lanes;
              p->word0 = word0;
              p->mapped = mapped;
              if (mapped)
                memcpy (p->maps, maps, sizeof maps);
            }
          else if (p->lanes && lanes && !m->broadcast)
            {
              /* Two loads of one word per lane: a group's queue is 2 where a bank serves both. */
              guint64 t = 0;
              for (guint g = 0; g < end; g += m->span)
                {
                  guint64 group = e->active & (group_mask << g);
                  if (group)
                    t += (lane_banks (m, group, g, p->word0) & lane_banks (m, group, g, word0)) ? 2 : 1;
                }
              flush_pending_t (m, p, t);
              continue;
            }
          else if (!m->broadcast && (p->lanes || p->mapped) && (lanes || mapped))
            {
              /* Either load in maps: the pair's queue per group from the two maps. */
              guint64 t = 0;
              for (guint g = 0, gi = 0; g < end; g += m->span, gi++)
                {
                  guint64 group = e->active & (group_mask << g);
                  if (group)
                    t += maps_queue (m, p->mapped ? p->maps[gi] : lane_map (group, g, p->word0),
                                     mapped ? maps[gi] : lane_map (group, g, word0));
                }
              flush_pending_t (m, p, t);
              continue;
            }
          else
            pending_list (m, p);
          /* Every group: a first load zeroes the counts of those it leaves idle. */
          for (guint g = 0, gi = 0; g < MDL_WARP_MAX_LANES; g += m->span, gi++)
            {
              guint64 group = e->active & (group_mask << g);
              const guint64 *words;
              guint n;
              if (!second)
                p->n[gi] = 0;
              if (!group)
                continue;
              if (!second && (lanes || mapped))
                {
                  p->n[gi] = gpu_popcount (group);   /* the words stay word0 + lane, or maps */
                  continue;
                }
              if (lanes)
                words = m->reqs, n = lane_word_list (group, word0, m->reqs);
              else
                words = group_words (m, e, group, listed, m->reqs, &n);
              pending_keep (m, p, gi, words, n);
            }
          if (second)
            flush_pending (m, p);
          continue;
        }
      /* W: every active lane of an issued instruction (global accesses are not issued). */
      if (!mdl_warp_is_memory (e) || e->space != MDL_SPACE_GLOBAL)
        m->W[cls] += gpu_popcount (e->active);
      for (guint g = 0, gi = 0; g < end; g += m->span, gi++)
        {
          guint64 group = e->active & (group_mask << g);
          guint n;
          if (!group)
            continue;
          if (mdl_warp_is_memory (e) && e->space == MDL_SPACE_GLOBAL && lanes)
            {
              m->G += gpu_lane_chunks (group, word0 & (m->k - 1), m->k_shift);
              continue;
            }
          if (mdl_warp_is_memory (e) && e->space == MDL_SPACE_GLOBAL)
            {
              const guint64 *words = group_words (m, e, group, listed, m->reqs, &n);
              guint segs;
              for (guint j = 0; j < n; j++)
                m->reqs[j] = words[j] >> m->k_shift;
              /* At least one: a group whose every access wraps past the top of the address
               * space lists no word, and has always counted one segment. */
              segs = mdl_gpu_sort_unique (m->reqs, n);
              m->G += MAX (segs, 1u);
              continue;
            }
          m->instructions++;
          if (mdl_warp_is_memory (e) && e->space == MDL_SPACE_SHARED && lanes)
            m->T[cls]++;   /* distinct words of at most k consecutive lanes: one bank each */
          else if (mapped)
            m->T[cls] += map_queue (m, maps[gi]);
          else if (mdl_warp_is_memory (e) && e->space == MDL_SPACE_SHARED)
            {
              const guint64 *words = group_words (m, e, group, listed, m->reqs, &n);
              guint lat = bank_latency (m, words, n);
              /* An atomic's lanes on one word update it one after the other, whatever the
               * broadcast rule (docs/models/kmodel.md, "Warp primitives"). */
              if (e->op == MDL_WARP_ATOMIC)
                {
                  guint64 rounds[MDL_WARP_MAX_LANES];
                  lat = MAX (lat, gpu_atomic_rounds (m->addrs, group, rounds));
                }
              m->T[cls] += lat;
            }
          else
            m->T[cls]++;
        }
    }
  return TRUE;
}

static gboolean
kmodel_marker (void *state, const MdlMarker *mk, GError **error)
{
  Kmodel *m = state;
  guint64 words;
  if (mk->kind != MDL_MARK_LAUNCH)
    return TRUE;
  words = ((guint64) mk->shared_bytes + WORD_BYTES - 1) / WORD_BYTES;
  if (words > m->sigma)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "kmodel: launch %u gives each stream element "
                   "%" G_GUINT64_FORMAT " words of internal memory, more than sigma=%"
                   G_GUINT64_FORMAT, mk->launch, words, m->sigma);
      return FALSE;
    }
  for (guint i = 0; i < MAX_WARPS; i++)
    flush_pending (m, &m->pending[i]);
  gpu_atomic_chain_launch (&m->chain);
  m->warp_width = mk->warp_width ? mk->warp_width : 32;
  m->span = (guint) MIN (m->k, (guint64) m->warp_width);
  return TRUE;
}

static void
kmodel_report (void *state, MdlReport *out)
{
  Kmodel *m = state;
  guint64 Tc[N_CLASSES], Wc[N_CLASSES], T = 0, W = 0, l = m->instructions;
  memcpy (Tc, m->T, sizeof Tc);
  memcpy (Wc, m->W, sizeof Wc);
  /* A load still waiting for a partner counts as issued alone (report must not change state). */
  for (guint i = 0; i < MAX_WARPS; i++)
    if (m->pending[i].used)
      {
        guint64 lanes;
        Tc[CLASS_SHARED_LOAD] += pending_latency (m, &m->pending[i]);
        l += pending_groups (m, &m->pending[i], &lanes);
        Wc[CLASS_SHARED_LOAD] += lanes;
      }
  for (guint c = 0; c < N_CLASSES; c++)
    {
      T += Tc[c];
      W += Wc[c];
    }
  mdl_report_add_count (out, "T", "count", "K-model time: sum of instruction latencies", NULL, T);
  mdl_report_add_count (out, "W", "count", "K-model work: sum of instruction lengths (active units)",
                        NULL, W);
  mdl_report_add_count (out, "G", "count", "external-memory transactions (aligned k-word segments)",
                        NULL, m->G);
  mdl_report_add_count (out, "instructions", "count", "l: instructions issued", NULL, l);
  mdl_report_add_real (out, "efficiency", "ratio", "W / (k T) (NaN when T = 0)", NULL,
                       T ? (double) W / ((double) m->k * (double) T) : NAN);
  for (guint c = 0; c < N_CLASSES; c++)
    mdl_report_add_count (out, class_counters[c].T, "count", class_counters[c].T_help, NULL, Tc[c]);
  for (guint c = 0; c < N_CLASSES; c++)
    mdl_report_add_count (out, class_counters[c].W, "count", class_counters[c].W_help, NULL, Wc[c]);
  mdl_gpu_atomic_chain_report (out, &m->chain);
}

static void
kmodel_reset (void *state)
{
  Kmodel *m = state;
  memset (m->T, 0, sizeof m->T);
  memset (m->W, 0, sizeof m->W);
  m->G = m->instructions = 0;
  gpu_atomic_chain_free (&m->chain);
  m->chain = (GpuAtomicChain) { 0 };
  for (guint i = 0; i < MAX_WARPS; i++)
    m->pending[i].used = FALSE;
  m->warp_width = 32;
  m->span = (guint) MIN (m->k, (guint64) m->warp_width);
}

const MdlEngineClass mdl_kmodel_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "kmodel",
  .summary = "K-model (Capannini): latency T, work W, transactions G of a k-unit SIMD processor",
  .params = kmodel_params,
  .state_size = sizeof (Kmodel),
  .init = kmodel_init,
  .consume = kmodel_consume,
  .marker = kmodel_marker,
  .report = kmodel_report,
  .reset = kmodel_reset,
  .finalize = kmodel_finalize,
};
