/* The `agpu` engine: Koike & Sadakane's AGPU(p, b, M, w) over the SIMT warp stream.
 * One multiprocessor (MP) has b cores; b is also the number of shared banks and the global block
 * size in words (w-bit words). A warp instruction is cut into groups of b lanes by thread index
 * (t = warp x warp_width + lane, group t / b); each group with an active lane is one MP
 * instruction on the MP running its block (block i runs on MP i mod k, k = p / b). Costs:
 *  - global load/store/atomic: c = distinct blocks floor(word / b) the active lanes touch;
 *    time += c and io += c (Fig. 3);
 *  - shared load/store/atomic: the most lanes mapping to one bank (word mod b); with broadcast=1
 *    the most distinct words per bank (Fig. 4b; the paper does not say, literal is the default);
 *  - an atomic costs at least the most lanes of the group on one word (they update it one after
 *    the other; the I/O stays c);
 *  - local accesses (a core's private variables, conflict-free), ALU, branch, jump, shuffle and
 *    vote: 1;
 *  - barrier arrivals: 0 (AGPU has no synchronisation inside an MP).
 * Divergent paths all count, since each side arrives as its own events. A launch costs the most
 * time of any MP (virtual=1: Theorem 4.9's bound ceil(G / k) x the most time of any block, G the
 * blocks of the launch); time is the sum over launches, io the sum over everything.
 * Outside AGPU: with launch_ns set, every launch also costs the MP instructions that one kernel
 * launch and its host synchronisation stand for, so that a host loop of s launches pays s of them
 * (Cederman's static list pays 7 on tube 500k, a persistent kernel 2; docs/models/agpu.md says how
 * ns become MP instructions and why that reading). 0, the default, is AGPU's rule: launches free.
 * Likewise atomic_ps: with atomics=serial, one lane update of a launch's busiest address holds it
 * atomic_ps picoseconds, so the chain lasts chain x atomic_ps in MP instructions, rounded up per
 * launch (0: one MP instruction an update). It lets a card whose same-address atomics are faster
 * or slower than an AGPU step say so; picoseconds, as a recent card's may take under 1 ns
 * (docs/models/agpu.md, "Atomic chains").
 * Rules, ambiguities and defaults: spec agpu-koike-sadakane.md §1.8, docs/models/agpu.md. */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"
#include "models/pages.h"
#include "models/u64map.h"

#include <math.h>
#include <string.h>

#define MAX_B 1024
#define BITMAP_PAGE_BYTES 4096                            /* 512 bitmaps of 64 words */
#define BITMAPS_PER_PAGE (BITMAP_PAGE_BYTES / 8)
#define BITMAP_PAGE_SHIFT 15                              /* words per page: 2^15 */
#define MAX_WORDS_PER_GROUP (MDL_WARP_MAX_LANES * 64)   /* 64 lanes x 64 one-byte words (w=8) */
#define MAX_LAUNCH_NS G_GUINT64_CONSTANT (1000000000)           /* 1 s */
#define MAX_DRAM_BYTES_PER_US G_GUINT64_CONSTANT (1000000000)   /* 1 PB/s: the product fits 64 bits */
#define MAX_ATOMIC_PS G_GUINT64_CONSTANT (1000000000)              /* 1 ms an update */

typedef struct {
  /* parameters */
  guint64 b;                 /* cores per MP = banks = block words */
  guint b_shift;             /* log2 b */
  guint64 k;                 /* multiprocessors, p / b */
  guint64 M;                 /* shared words per MP */
  guint word_bytes;          /* w / 8 */
  guint word_shift;          /* log2 word_bytes */
  gboolean broadcast;
  gboolean volatile_;
  gboolean virtual_;
  gboolean serial_atomics;   /* atomics=serial: a launch lasts at least its atomic chain */
  guint64 launch_steps;      /* MP instructions a launch and its host synchronisation cost */
  guint64 atomic_ps_bytes;   /* atomic_ps x dram_bytes_per_us (0: an update is one MP instruction) */
  guint64 step_bytes_ps;     /* 10^6 x k x b x w/8: ps x bytes/us of one MP instruction */
  GpuAtomicChain chain;      /* global atomics' chains and CAS lanes */
  guint64 chain_addrs[MDL_WARP_MAX_LANES];
  /* totals over closed launches */
  guint64 time;
  guint64 io;
  guint64 launches;
  guint64 shared_words;      /* m: the most shared words any launch gives a block */
  guint64 stale_reads;
  /* the open launch */
  gboolean open;
  guint32 launch;
  guint32 grid_blocks;       /* from the launch marker, 0 when none came */
  guint warp_width;
  guint span;                /* lanes per MP instruction: min(b, warp_width) */
  guint64 group_mask;        /* gpu_group_mask (span) */
  guint64 worst;             /* the open launch's largest MP time (virtual=1: block time) */
  MdlU64Map block_time;      /* virtual=1: block -> MP instructions in the open launch */
  guint64 stored_rows;       /* 64-word bitmaps per block in stored (0: the map written) */
  MdlPages stored;           /* bitmaps of the shared words each block stored, block by block */
  MdlU64Map written;         /* the same, (block << 26 | word / 64) -> bitmap, for the others */
  MdlPages touched;          /* bitmaps of the global words touched */
  guint64 n_global_words;    /* bits set in touched */
  guint64 *mp_time;          /* k: MP instructions of each MP in the open launch */
  guint32 charged_block;     /* the block last charged when not virtual, and its MP's time: */
  guint64 *charged_time;     /* NULL when none (block % k is a division per event otherwise) */
  /* per-instruction scratch */
  guint64 addrs[MDL_WARP_MAX_LANES];
  guint64 list[MDL_WARP_MAX_LANES];   /* gpu_list_words() of the instruction */
  guint64 words[MAX_WORDS_PER_GROUP];
  guint bank_count[MAX_B];
} Agpu;

static const MdlParamSpec agpu_params[] = {
  { "p", MDL_PARAM_UINT, "0", NULL, 0, 0, NULL, 0,
    "total cores (0: k x b); must be a multiple of b" },
  { "b", MDL_PARAM_UINT, "32", "warp_width", 1, MAX_B, NULL, MDL_PARAM_POW2,
    "cores per multiprocessor = shared banks = global block size in words" },
  { "k", MDL_PARAM_UINT, "16", "sm_count", 1, 1u << 20, NULL, 0,
    "multiprocessors (ignored when p is set: k = p / b)" },
  { "M", MDL_PARAM_UINT, "12288", NULL, 1, 0, NULL, 0, "shared memory per multiprocessor, in words" },
  { "w", MDL_PARAM_UINT, "32", NULL, 8, 512, NULL, MDL_PARAM_POW2, "word length in bits" },
  { "broadcast", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "lanes reading one shared word share a bank access (0: literal AGPU, they conflict)" },
  { "volatile", MDL_PARAM_BOOL, "1", NULL, 0, 0, NULL, 0,
    "shared memory is erased at every launch (AGPU); 0: kept (AGPU')" },
  { "virtual", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "cost a launch of G blocks as ceil(G/k) x its slowest block (Theorem 4.9)" },
  { "atomics", MDL_PARAM_CHOICE, "lanes", NULL, 0, 0, "lanes|serial", 0,
    "lanes: an atomic costs its lanes on one word, per MP (AGPU's rule); serial: also, a launch "
    "lasts at least its busiest global address's atomic lane updates, from every MP" },
  { "launch_ns", MDL_PARAM_UINT, "0", "launch_ns", 0, MAX_LAUNCH_NS, NULL, 0,
    "ns a kernel launch and its host synchronisation take, added to time per launch (0: free, "
    "AGPU's rule)" },
  { "dram_bytes_per_us", MDL_PARAM_UINT, "0", "dram_bytes_per_us", 0, MAX_DRAM_BYTES_PER_US, NULL,
    0, "DRAM bandwidth in bytes per us: an MP instruction stands for the ns an MP takes to move "
    "one b-word block at its 1/k share (needed when launch_ns or atomic_ps > 0)" },
  { "atomic_ps", MDL_PARAM_UINT, "0", "atomic_ps", 0, MAX_ATOMIC_PS, NULL, 0,
    "with atomics=serial, picoseconds one atomic lane update holds its address (0: one MP "
    "instruction, AGPU's step)" },
  { NULL }
};

/* Sets a->launch_steps from @launch_ns: an MP instruction stands for the ns one MP takes to move
 * one b-word block at its 1/k share of @dram_bytes_per_us, so a launch costs, rounded up,
 * launch_ns x dram_bytes_per_us / (1000 x k x b x w/8) instructions. Why this reading and not the
 * issue rate: docs/models/agpu.md, "Launches". */
static gboolean
launch_steps_of (Agpu *a, guint64 launch_ns, guint64 dram_bytes_per_us, GError **error)
{
  guint64 step_bytes_ns = 1000 * a->k * a->b * a->word_bytes;   /* < 2^20 x 2^10 x 2^6 x 1000 */
  a->launch_steps = 0;
  if (launch_ns == 0)
    return TRUE;
  if (dram_bytes_per_us == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "agpu: launch_ns=%" G_GUINT64_FORMAT " needs "
                   "dram_bytes_per_us > 0 (it sets the ns an MP instruction stands for)", launch_ns);
      return FALSE;
    }
  /* Why no overflow: both factors are at most 10^9 (the rows' limits). */
  a->launch_steps = (launch_ns * dram_bytes_per_us + step_bytes_ns - 1) / step_bytes_ns;
  return TRUE;
}

/* Why groups of min(b, warp_width) lanes: with b >= warp_width a warp lies inside one b-lane group
 * (both are powers of two); with b smaller it spans warp_width / b groups. Kept per launch, not
 * derived per event. */
static void
set_warp_width (Agpu *a, guint warp_width)
{
  a->warp_width = warp_width;
  a->span = (guint) MIN (a->b, (guint64) warp_width);
  a->group_mask = gpu_group_mask (a->span);
}

/* Keeps what chain_steps() needs for @atomic_ps, in the same reading of an MP instruction as a
 * launch's (launch_steps_of). A preset's atomic_ps (@given FALSE) is the card's, whichever
 * atomics= a run asks for, so only one given in the spec is refused with atomics=lanes. */
static gboolean
atomic_cost_of (Agpu *a, guint64 atomic_ps, gboolean given, guint64 dram_bytes_per_us,
                GError **error)
{
  a->step_bytes_ps = 1000000 * a->k * a->b * a->word_bytes;   /* < 2^20 x 2^10 x 2^6 x 10^6 */
  a->atomic_ps_bytes = atomic_ps * dram_bytes_per_us;         /* <= 10^9 x 10^9 */
  if (atomic_ps > 0 && !a->serial_atomics && given)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "agpu: atomic_ps=%" G_GUINT64_FORMAT " prices "
                   "the atomic chain, which only atomics=serial charges", atomic_ps);
      return FALSE;
    }
  if (atomic_ps > 0 && dram_bytes_per_us == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "agpu: atomic_ps=%" G_GUINT64_FORMAT " needs "
                   "dram_bytes_per_us > 0 (it sets the ns an MP instruction stands for)", atomic_ps);
      return FALSE;
    }
  return TRUE;
}

/* The MP instructions a chain of @updates lane updates on one address lasts: one each, or
 * updates x atomic_ps rounded up. 128 bits: atomic_ps_bytes reaches 10^18, and 19 updates of
 * that pass 2^64. */
static guint64
chain_steps (const Agpu *a, guint64 updates)
{
  unsigned __int128 bytes;
  if (a->atomic_ps_bytes == 0)
    return updates;
  bytes = (unsigned __int128) updates * a->atomic_ps_bytes;
  return (guint64) ((bytes + a->step_bytes_ps - 1) / a->step_bytes_ps);
}

static gboolean
agpu_init (void *state, const MdlParams *params, GError **error)
{
  Agpu *a = state;
  guint64 p = mdl_params_uint (params, "p");
  a->b = mdl_params_uint (params, "b");
  a->b_shift = (guint) __builtin_ctzll (a->b);
  a->k = mdl_params_uint (params, "k");
  a->M = mdl_params_uint (params, "M");
  a->word_bytes = (guint) mdl_params_uint (params, "w") / 8;
  a->word_shift = (guint) __builtin_ctz (a->word_bytes);
  a->broadcast = mdl_params_bool (params, "broadcast");
  a->volatile_ = mdl_params_bool (params, "volatile");
  a->virtual_ = mdl_params_bool (params, "virtual");
  a->serial_atomics = mdl_params_choice (params, "atomics") == 1;
  if (p != 0)
    {
      if (p % a->b != 0 || p / a->b > (1u << 20))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "agpu: p=%" G_GUINT64_FORMAT " must be a "
                       "multiple of b=%" G_GUINT64_FORMAT " with p/b <= %u", p, a->b, 1u << 20);
          return FALSE;
        }
      if (mdl_params_is_set (params, "k") && a->k != p / a->b)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "agpu: k=%" G_GUINT64_FORMAT " disagrees "
                       "with p=%" G_GUINT64_FORMAT " and b=%" G_GUINT64_FORMAT " (k = p/b = %"
                       G_GUINT64_FORMAT ")", a->k, p, a->b, p / a->b);
          return FALSE;
        }
      a->k = p / a->b;
    }
  if (!launch_steps_of (a, mdl_params_uint (params, "launch_ns"),
                        mdl_params_uint (params, "dram_bytes_per_us"), error)
      || !atomic_cost_of (a, mdl_params_uint (params, "atomic_ps"),
                          mdl_params_is_set (params, "atomic_ps"),
                          mdl_params_uint (params, "dram_bytes_per_us"), error))
    return FALSE;
  set_warp_width (a, 32);
  mdl_u64map_init (&a->block_time, 64);
  mdl_pages_init (&a->stored, BITMAP_PAGE_BYTES);
  mdl_u64map_init (&a->written, 64);
  mdl_pages_init (&a->touched, BITMAP_PAGE_BYTES);
  a->mp_time = g_new0 (guint64, a->k);
  return TRUE;
}

static void
agpu_finalize (void *state)
{
  Agpu *a = state;
  if (a->block_time.keys)
    mdl_u64map_destroy (&a->block_time);
  if (a->written.keys)
    mdl_u64map_destroy (&a->written);
  mdl_pages_destroy (&a->stored);
  mdl_pages_destroy (&a->touched);
  gpu_atomic_chain_free (&a->chain);
  g_free (a->mp_time);
}

/* The time of the open launch: the slowest MP, or Theorem 4.9's bound with virtual=1, and with
 * atomics=serial at least the launch's atomic chain. O(1): the core asks for it at every phase
 * marker, and a scan at n = 2^27 has 400 K of them in launches of 64 K blocks. */
static guint64
open_launch_time (const Agpu *a)
{
  guint64 blocks, t = a->worst;
  if (a->open && a->virtual_)
    {
      blocks = MAX (a->block_time.len, a->grid_blocks);
      t = a->worst * ((blocks + a->k - 1) / a->k);
    }
  return a->serial_atomics ? MAX (t, chain_steps (a, a->chain.launch_max)) : t;
}

/* Charges @cost MP instructions to @block of the open launch. */
static void
charge (Agpu *a, guint32 block, guint64 cost)
{
  guint64 *t;
  gboolean inserted;
  if (a->virtual_)
    t = mdl_u64map_upsert (&a->block_time, block, 0, &inserted);
  else if (a->charged_time && block == a->charged_block)
    t = a->charged_time;
  else
    {
      t = a->charged_time = &a->mp_time[block % a->k];
      a->charged_block = block;
    }
  *t += cost;
  a->worst = MAX (a->worst, *t);
}

static void
close_launch (Agpu *a)
{
  if (!a->open)
    return;
  a->time += open_launch_time (a);
  gpu_atomic_chain_launch (&a->chain);
  a->worst = 0;
  memset (a->mp_time, 0, a->k * sizeof a->mp_time[0]);
  mdl_u64map_clear (&a->block_time);
  if (a->volatile_)
    {
      mdl_pages_recycle (&a->stored);
      mdl_u64map_clear (&a->written);
    }
  a->open = FALSE;
}

/* Opens @launch; @shared_words: its blocks' shared memory in words, 0 when unknown. */
static void
open_launch (Agpu *a, guint32 launch, guint32 grid_blocks, guint warp_width, guint64 shared_words)
{
  close_launch (a);
  a->stored_rows = a->volatile_ ? (shared_words + 63) / 64 : 0;
  a->open = TRUE;
  a->launch = launch;
  a->grid_blocks = grid_blocks;
  set_warp_width (a, warp_width);
  a->launches++;
  a->time += a->launch_steps;
}

/* The bitmap of global words @word & ~63 .. @word | 63: bit i set when word (@word & ~63) + i was
 * touched. */
static inline guint64 *
touched_bitmap (Agpu *a, guint64 word)
{
  guint64 *page = (guint64 *) (void *) mdl_pages_get (&a->touched, word >> BITMAP_PAGE_SHIFT);
  return &page[(word / 64) % BITMAPS_PER_PAGE];
}

/* The bitmap of the shared words of @block from @word & ~63 to @word | 63 that the block stored;
 * NULL when the map holds none and not @create. In the launch's pages, indexed by block and word,
 * when the launch marker gave the shared size (and shared memory is volatile: in AGPU' a block's
 * words outlive the launch and its shape); in the map otherwise. */
static inline guint64 *
stored_bitmap (Agpu *a, guint32 block, guint64 word, gboolean create)
{
  gboolean inserted;
  guint64 key;
  if (word / 64 < a->stored_rows)
    {
      guint64 i = (guint64) block * a->stored_rows + word / 64;
      guint64 *page = (guint64 *) (void *) mdl_pages_get (&a->stored, i / BITMAPS_PER_PAGE);
      return &page[i % BITMAPS_PER_PAGE];
    }
  key = (guint64) block << 26 | word / 64;
  if (!create)
    {
      gsize slot = mdl_u64map_slot (&a->written, key);
      return a->written.keys[slot] == key ? &a->written.values[slot] : NULL;
    }
  return mdl_u64map_upsert (&a->written, key, 0, &inserted);
}

/* Marks the @n shared words in a->words as stored by @block (@store), or counts those it has not
 * stored as stale reads. A word is its low 32 bits (shared memory is far smaller). */
static void
shared_words (Agpu *a, guint32 block, guint n, gboolean store)
{
  guint64 run = G_MAXUINT64, stored = 0, *have = NULL;
  for (guint i = 0; i < n; i++)
    {
      guint64 word = a->words[i] & 0xffffffffu;
      if (word / 64 != run)
        {
          run = word / 64;
          have = stored_bitmap (a, block, word, store);
          stored = have ? *have : 0;
        }
      if (store)
        *have |= G_GUINT64_CONSTANT (1) << (word % 64);
      else
        a->stale_reads += !(stored >> (word % 64) & 1);
    }
}

/* Words row x 64 .. row x 64 + 63 of @block in the set @bits: marks them stored (@store), or
 * counts those it has not stored as stale reads (shared_words() for a whole row at once). */
static void
shared_row (Agpu *a, guint32 block, guint64 row, guint64 bits, gboolean store)
{
  guint64 *have;
  if (bits == 0)
    return;
  have = stored_bitmap (a, block, row * 64, store);
  if (store)
    *have |= bits;
  else
    a->stale_reads += gpu_popcount (bits & ~(have ? *have : 0));
}

/* The shared words @word0 + i of the set bits i of @bits (a word is its low 32 bits, and those of
 * @word0 + 63 must not wrap), read by event @e (counted as stale when the block has not stored
 * them) or stored by it: the reads of an atomic are checked before its stores are marked. */
static void
shared_marks (Agpu *a, const MdlWarpEvent *e, guint64 word0, guint64 bits)
{
  guint shift = (guint) (word0 % 64);
  guint64 row = (word0 & G_MAXUINT32) / 64, low = bits << shift, high = shift ? bits >> (64 - shift) : 0;
  if (e->op != MDL_WARP_STORE)
    {
      shared_row (a, e->block, row, low, FALSE);
      shared_row (a, e->block, row + 1, high, FALSE);
    }
  if (e->op != MDL_WARP_LOAD)
    {
      shared_row (a, e->block, row, low, TRUE);
      shared_row (a, e->block, row + 1, high, TRUE);
    }
}

/* The cost of shared load or store @e (groups of @span lanes) when b and @span are 8 to 64 and each group's
 * words are distinct and fit one window (gpu_window_fill()): a group's marks two rows at a time
 * and its bank queue from the window, with no list of words. Sets *@cost and returns TRUE; FALSE,
 * with nothing counted, for any other instruction. */
static gboolean
shared_windows (Agpu *a, const MdlEventBatch *batch, const MdlWarpEvent *e, guint span, guint64 *cost)
{
  GpuWindow win[MDL_WARP_MAX_LANES / 8];
  guint64 group_mask = gpu_group_mask (span);
  guint n = 0, at = 0, end = 64 - (guint) __builtin_clzll (e->active);   /* lanes past the last active one */
  if (a->b < 8 || a->b > 64 || span < 8)   /* span: min(b, warp width) */
    return FALSE;
  for (guint g = 0; g < end; g += span)
    {
      guint64 group = e->active & (group_mask << g);
      GpuWindow *w = &win[n];
      if (group == 0)
        continue;
      /* Distinct words: a lane is a bank request (broadcast=0) and a stale read of its own. */
      if (!gpu_window_fill (batch, e, group, at, a->word_shift, w) || gpu_popcount (w->bits) != w->n
          || (w->first >> 32) != ((w->first + 63) >> 32))
        return FALSE;
      at += w->n;
      n++;
    }
  *cost = 0;
  for (guint i = 0; i < n; i++)
    {
      shared_marks (a, e, win[i].first, win[i].bits);
      *cost += gpu_window_queue (&win[i], a->b - 1);
    }
  return TRUE;
}

/* shared_words() and the bank queue of the @n (> 0) shared words in a->words of event @e, when
 * they are distinct and lie within three rows of 64 (gpu_rows_of()) whose low 32 bits do not
 * wrap: a row at a time, and the queue from the rows (repeats aside, broadcast changes nothing).
 * Sets *@queue and returns TRUE; FALSE, with nothing counted, for any other list. */
static gboolean
shared_rows (Agpu *a, const MdlWarpEvent *e, guint n, guint64 *queue)
{
  GpuRows r;
  guint64 low_row;
  if (a->b < 8 || a->b > 64 || !gpu_rows_of (a->words, n, &r)
      || (r.row0 >> 26) != ((r.row0 + 2) >> 26))
    return FALSE;
  low_row = r.row0 & ((G_GUINT64_CONSTANT (1) << 26) - 1);   /* the rows of the words' low 32 bits */
  for (guint j = 0; j < 3 && e->op != MDL_WARP_STORE; j++)
    shared_row (a, e->block, low_row + j, r.bits[j], FALSE);
  for (guint j = 0; j < 3 && e->op != MDL_WARP_LOAD; j++)
    shared_row (a, e->block, low_row + j, r.bits[j], TRUE);
  *queue = gpu_rows_queue (&r, a->b - 1);
  return TRUE;
}

/* Cost of one MP instruction: the lanes of @group of event @e, whose @n words (gpu_group_words())
 * are in a->words. */
static guint64
group_cost_words (Agpu *a, const MdlWarpEvent *e, guint64 group, guint n)
{
  guint64 queue;
  /* Runs of lanes mostly share their 64-word bitmaps: one lookup per run. */
  if (e->space == MDL_SPACE_GLOBAL)
    {
      guint64 c, run = G_MAXUINT64, *have = NULL;
      for (guint i = 0; i < n; i++)
        {
          guint64 bit = G_GUINT64_CONSTANT (1) << (a->words[i] % 64);
          if (a->words[i] / 64 != run)
            {
              run = a->words[i] / 64;
              have = touched_bitmap (a, a->words[i]);
            }
          a->n_global_words += !(*have & bit);
          *have |= bit;
          a->words[i] >>= a->b_shift;
        }
      c = mdl_gpu_sort_unique (a->words, n);
      a->io += c;
      /* An atomic's lanes on one word update it one after the other: at least that many
       * steps (docs/models/agpu.md, "Warp primitives"); the I/O stays c blocks. */
      if (e->op == MDL_WARP_ATOMIC)
        {
          guint64 rounds[MDL_WARP_MAX_LANES];
          c = MAX (c, (guint64) gpu_atomic_rounds (a->addrs, group, rounds));
        }
      return c;
    }
  if (n > 0 && shared_rows (a, e, n, &queue))
    ;
  else
    {
      /* shared: the reads of an atomic are checked before its stores are marked */
      if (e->op != MDL_WARP_STORE)
        shared_words (a, e->block, n, FALSE);
      if (e->op != MDL_WARP_LOAD)
        shared_words (a, e->block, n, TRUE);
      if (a->broadcast)
        n = mdl_gpu_sort_unique (a->words, n);
      queue = gpu_bank_queue (a->bank_count, a->words, n, a->b - 1);
    }
  if (e->op == MDL_WARP_ATOMIC)
    {
      guint64 rounds[MDL_WARP_MAX_LANES];
      return MAX (queue, gpu_atomic_rounds (a->addrs, group, rounds));
    }
  return queue;
}

/* Cost of one MP instruction: the lanes of @group of event @e (lane addresses in a->addrs). */
static guint64
group_cost (Agpu *a, const MdlWarpEvent *e, guint64 group)
{
  if (!mdl_warp_is_memory (e))
    return e->op == MDL_WARP_BARRIER ? 0 : 1;
  if (e->space == MDL_SPACE_LOCAL)
    return 1;
  return group_cost_words (a, e, group, gpu_group_words (a->addrs, group, e->width, a->word_shift,
                                                         a->words));
}

/* group_cost() of a memory instruction whose lane l touches word @word0 + l alone
 * (gpu_lane_words(); shared words below 2^32 - 64): the same costs from the lane mask, with no
 * list of words. The group's words are distinct and lie within b consecutive words (the group
 * spans at most b lanes), so a shared access is one bank row; a global access costs its distinct
 * blocks; the words' bits go into the 64-word bitmaps a row at a time. */
static guint64
group_cost_lanes (Agpu *a, const MdlWarpEvent *e, guint64 group, guint64 word0)
{
  guint shift = (guint) (word0 % 64);
  guint64 row = word0 / 64, low = group << shift, high = shift ? group >> (64 - shift) : 0;
  if (e->space == MDL_SPACE_GLOBAL)
    {
      guint64 c = gpu_lane_chunks (group, word0 & (a->b - 1), a->b_shift);
      for (guint i = 0; i < 2; i++)
        {
          guint64 bits = i ? high : low, *have;
          if (bits == 0)
            continue;
          have = touched_bitmap (a, (row + i) * 64);
          a->n_global_words += gpu_popcount (bits & ~*have);
          *have |= bits;
        }
      a->io += c;
      return c;
    }
  shared_marks (a, e, word0, group);
  return 1;
}

/* The MP instructions memory or other instruction @e costs, its block's share of the launch. */
static guint64
event_cost (Agpu *a, const MdlEventBatch *batch, const MdlWarpEvent *e)
{
  guint span = a->span;
  guint64 group_mask = a->group_mask;
  guint64 cost = 0, word0 = 0;
  guint end = 64 - (guint) __builtin_clzll (e->active);   /* no group past the last active lane */
  gboolean lanes = FALSE;
  if (mdl_warp_is_memory (e) && e->space != MDL_SPACE_LOCAL)
    lanes = gpu_lane_words (e, a->word_shift, &word0)
            && (e->space == MDL_SPACE_GLOBAL || word0 < G_MAXUINT32 - MDL_WARP_MAX_LANES);
  if (!lanes && e->space == MDL_SPACE_SHARED && (e->op == MDL_WARP_LOAD || e->op == MDL_WARP_STORE)
      && shared_windows (a, batch, e, span, &cost))
    return cost;
  /* An atomic's rounds need its lanes' addresses; other one-word lanes need only their list. */
  if (mdl_warp_is_memory (e) && e->space != MDL_SPACE_LOCAL && !lanes && e->op != MDL_WARP_ATOMIC
      && gpu_list_words (batch, e, a->word_shift, a->list, NULL))
    {
      guint at = 0;
      for (guint g = 0; g < end; g += span)
        {
          guint64 group = e->active & (group_mask << g);
          guint n = gpu_popcount (group);
          if (group == 0)
            continue;
          memcpy (a->words, a->list + at, n * sizeof a->words[0]);
          at += n;
          cost += group_cost_words (a, e, group, n);
        }
      return cost;
    }
  if (mdl_warp_is_memory (e) && e->space != MDL_SPACE_LOCAL)
    {
      if (!lanes)
        mdl_warp_addrs (batch, e, a->addrs);
      if (e->op == MDL_WARP_ATOMIC && e->space == MDL_SPACE_GLOBAL)
        {
          mdl_warp_addrs (batch, e, a->chain_addrs);
          gpu_atomic_chain_add (&a->chain, e, a->chain_addrs);
        }
    }
  for (guint g = 0; g < end; g += span)
    {
      guint64 group = e->active & (group_mask << g);
      if (group)
        cost += lanes ? group_cost_lanes (a, e, group, word0) : group_cost (a, e, group);
    }
  return cost;
}

static gboolean
agpu_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  Agpu *a = state;
  (void) error;
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      /* The machine's instructions are not the algorithm's (MDL_WARP_MACHINE). */
      if (e->flags & MDL_WARP_MACHINE)
        continue;
      if (!a->open || e->launch != a->launch)
        open_launch (a, e->launch, 0, a->warp_width, 0);
      /* One call site, so that charge() is inlined (as a call it was 27 instructions per event). */
      charge (a, e->block, event_cost (a, batch, e));
    }
  return TRUE;
}

static gboolean
agpu_marker (void *state, const MdlMarker *m, GError **error)
{
  Agpu *a = state;
  guint64 m_words;
  if (m->kind != MDL_MARK_LAUNCH)
    return TRUE;
  m_words = ((guint64) m->shared_bytes + a->word_bytes - 1) / a->word_bytes;
  if (m_words > a->M)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "agpu: launch %u uses m=%" G_GUINT64_FORMAT
                   " shared words per block, more than M=%" G_GUINT64_FORMAT, m->launch, m_words,
                   a->M);
      return FALSE;
    }
  a->shared_words = MAX (a->shared_words, m_words);
  open_launch (a, m->launch, m->grid_blocks, m->warp_width ? m->warp_width : 32, m_words);
  return TRUE;
}

static void
agpu_report (void *state, MdlReport *out)
{
  Agpu *a = state;
  mdl_report_add_count (out, "time", "count", "AGPU time: MP instructions, slowest MP, summed "
                        "over launches, plus launch_time", NULL, a->time + open_launch_time (a));
  mdl_report_add_count (out, "io", "count", "AGPU I/O: global block accesses of all MPs", NULL,
                        a->io);
  mdl_report_add_peak (out, "shared_words", "words", "m: most shared words one block uses", NULL,
                        a->shared_words);
  mdl_report_add_peak (out, "global_words", "words", "distinct global words touched", NULL,
                        a->n_global_words);
  mdl_report_add_real (out, "multiplicity", "ratio", "M/m (NaN when no shared memory is used)",
                       NULL, a->shared_words ? (double) a->M / (double) a->shared_words : NAN);
  mdl_report_add_count (out, "launches", "count", "kernel launches (host synchronisations)", NULL,
                        a->launches);
  mdl_report_add_count (out, "launch_time", "count", "launches x the MP instructions one launch "
                        "and its host synchronisation cost (launch_ns; 0 when free)", NULL,
                        a->launches * a->launch_steps);
  mdl_report_add_count (out, "stale_shared_reads", "count", "volatile: shared words read in a "
                        "launch before the block stored them in it", NULL, a->stale_reads);
  mdl_gpu_atomic_chain_report (out, &a->chain);
}

static void
agpu_reset (void *state)
{
  Agpu *a = state;
  a->time = a->io = a->launches = a->shared_words = a->stale_reads = a->n_global_words = 0;
  a->open = FALSE;
  set_warp_width (a, 32);
  a->worst = 0;
  gpu_atomic_chain_free (&a->chain);
  a->chain = (GpuAtomicChain) { 0 };
  memset (a->mp_time, 0, a->k * sizeof a->mp_time[0]);
  mdl_u64map_clear (&a->block_time);
  a->stored_rows = 0;
  mdl_pages_recycle (&a->stored);
  mdl_u64map_clear (&a->written);
  mdl_pages_recycle (&a->touched);
}

const MdlEngineClass mdl_agpu_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "agpu",
  .summary = "AGPU (Koike & Sadakane): time, I/O and multiplicity of multiprocessors of b cores",
  .params = agpu_params,
  .state_size = sizeof (Agpu),
  .init = agpu_init,
  .consume = agpu_consume,
  .marker = agpu_marker,
  .report = agpu_report,
  .reset = agpu_reset,
  .finalize = agpu_finalize,
};
