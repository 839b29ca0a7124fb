/* Private to the engines of the warp stream (gpu/coalesce.c, banks.c, divergence.c, and agpu.c,
 * kmodel.c, msimd.c): what several of them do alike, written once.
 *  - GpuSet, a small set of 64-bit keys for counting distinct sectors, lines and bank words within
 *    one warp instruction. It is cleared in O(1) by bumping a generation stamp, since the engines
 *    use it once per instruction and a memset of the table would cost more than the lookups.
 *  - Cutting a warp instruction into groups of lanes, and the words a group touches.
 *  - Distinct values of a group's words, and the longest bank queue they make.
 *  - Report counters named PREFIX_KEY and described "WHAT: TEXT" (coalesce, banks). */
#ifndef MDL_MODELS_GPU_H
#define MDL_MODELS_GPU_H

#include <glib.h>
#include <models/event.h>
#include <models/report.h>

#include "core/ledger.h"   /* mdl_report_keeps_names */
#include "models/u64map.h"

#include <string.h>

/* Slots of the set: a power of two, more than twice the most keys one instruction adds
 * (64 lanes x 2 sectors each for a misaligned access). */
#define GPU_SET_SLOTS 512

typedef struct {
  guint64 key[GPU_SET_SLOTS];
  guint32 gen[GPU_SET_SLOTS];
  guint32 now;
  guint n;
} GpuSet;

static inline void
gpu_set_clear (GpuSet *s)
{
  s->n = 0;
  if (G_UNLIKELY (++s->now == 0))
    {
      memset (s->gen, 0, sizeof s->gen);
      s->now = 1;
    }
}

/* Adds @key; TRUE when it was not there yet. */
static inline gboolean
gpu_set_add (GpuSet *s, guint64 key)
{
  guint i = (guint) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 55) & (GPU_SET_SLOTS - 1);
  while (s->gen[i] == s->now)
    {
      if (s->key[i] == key)
        return FALSE;
      i = (i + 1) & (GPU_SET_SLOTS - 1);
    }
  s->gen[i] = s->now;
  s->key[i] = key;
  s->n++;
  return TRUE;
}

/* The lanes 0..@span-1 (1 <= @span <= 64): shifted left by g, the group of lanes g..g+@span-1 when
 * an instruction is cut into groups of @span consecutive lanes. */
static inline guint64
gpu_group_mask (guint span)
{
  return span >= 64 ? G_MAXUINT64 : ((guint64) 1 << span) - 1;
}

/* Writes to @out the words of 2^@word_shift bytes that the lanes of @group touch, lane l the bytes
 * [@addrs[l], @addrs[l] + max(@width, 1)), in lane order and one per lane and word (a word two
 * lanes touch comes twice); returns how many. */
static inline guint
gpu_group_words (const guint64 *addrs, guint64 group, guint width, guint word_shift, guint64 *out)
{
  guint n = 0;
  width = MAX (width, 1u);
  /* The common case: a lane no wider than a word touches one word, or two when it straddles. An
   * access that wraps past the top of the address space (last < first) touches none. */
  if (width <= 1u << word_shift)
    for (guint64 r = group; r; r &= r - 1)
      {
        guint64 addr = addrs[__builtin_ctzll (r)];
        guint64 first = addr >> word_shift, last = (addr + width - 1) >> word_shift;
        if (G_UNLIKELY (last < first))
          continue;
        out[n++] = first;
        if (last != first)
          out[n++] = last;
      }
  else
    for (guint64 r = group; r; r &= r - 1)
      {
        guint64 addr = addrs[__builtin_ctzll (r)];
        guint64 last = (addr + width - 1) >> word_shift;
        /* The break: with 1-byte words, a lane ending on the last byte of the address space
         * has last = 2^64 - 1, which every w satisfies (the loop ran off the end of @out). */
        for (guint64 w = addr >> word_shift; w <= last; w++)
          {
            out[n++] = w;
            if (w == last)
              break;
          }
      }
  return n;
}

/* TRUE when gpu_popcount() may use the POPCNT instruction: always where the build has it; in the
 * default x86-64 build (no -mpopcnt) where the CPU has it, by libgcc's CPU flags read once at
 * start (one load and a branch the predictor learns); FALSE elsewhere. */
static inline gboolean
gpu_has_popcnt (void)
{
#ifdef __POPCNT__
  return TRUE;
#elif defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports ("popcnt");
#else
  return FALSE;
#endif
}

/* Bits set in @x, by the instruction when @hw (gpu_has_popcnt()), else by a few shifts and masks
 * (not a call into libgcc, which every event paid for). A loop that counts per event tests the
 * CPU once: it is written once as an inline function of @hw and called with TRUE and with FALSE
 * (gpu_popcount()'s test per call is three operations, a seventh of divergence's loop). */
static inline guint
gpu_popcount_by (guint64 x, gboolean hw)
{
#ifdef __POPCNT__
  (void) hw;
  return (guint) __builtin_popcountll (x);
#else
#if defined(__x86_64__) && defined(__GNUC__)
  if (hw)
    {
      guint64 n;
      __asm__ ("popcnt %1, %0" : "=r" (n) : "rm" (x) : "cc");
      return (guint) n;
    }
#else
  (void) hw;
#endif
  x -= (x >> 1) & G_GUINT64_CONSTANT (0x5555555555555555);
  x = (x & G_GUINT64_CONSTANT (0x3333333333333333)) + ((x >> 2) & G_GUINT64_CONSTANT (0x3333333333333333));
  x = (x + (x >> 4)) & G_GUINT64_CONSTANT (0x0f0f0f0f0f0f0f0f);
  return (guint) ((x * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56);
#endif
}

/* Bits set in @x: the instruction where the build or the CPU has it (gpu_has_popcnt()); the
 * engines call it per group and per event. */
static inline guint
gpu_popcount (guint64 x)
{
  return gpu_popcount_by (x, G_LIKELY (gpu_has_popcnt ()));
}

/* @bits with bit @n mod 64 set: x86's BTS, one operation where GCC emits four (a constant 1,
 * a copy of the count, the shift, the OR); the engines' maps of words set one per lane. */
static inline guint64
gpu_bit_set (guint64 bits, guint64 n)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __asm__ ("btsq %1, %0" : "+r" (bits) : "r" (n) : "cc");
  return bits;
#else
  return bits | G_GUINT64_CONSTANT (1) << (n & 63);
#endif
}

/* Words within three aligned rows of 64 words: the row below the first word's (none when that is
 * row 0), its own and the one above, as one bitmap per row. The sorts' shared accesses
 * are such lists, in data-dependent order: their bank queues (gpu_rows_queue()) and agpu's
 * per-row marks then come from three words, not from one pass over the list per question. */
typedef struct {
  guint64 row0;      /* the first row: bit i of bits[j] is word (row0 + j) x 64 + i */
  guint64 bits[3];
} GpuRows;

/* Fills @r with the words @v[i] >> @shift of the @n values @v (1 <= @n <= 64), from the first
 * one's rows, repeats merged, and sets *@any to the OR of the values; FALSE when a word lies
 * outside the three rows (@r is then undefined). One pass, no branch per value. */
static inline gboolean
gpu_rows_fill (const guint64 *v, guint n, guint shift, GpuRows *r, guint64 *any)
{
  guint64 row = (v[0] >> shift) >> 6, origin, rows = 0, or_all = 0, bits[4] = { 0, 0, 0, 0 };
  r->row0 = row ? row - 1 : 0;
  origin = r->row0 << 6;
  for (guint i = 0; i < n; i++)
    {
      /* A word below origin wraps to a huge offset: outside, as one above the third row. Such a
       * word sets a bit beyond 3 in rows, or lands in bits[3]. */
      guint64 d = (v[i] >> shift) - origin;
      or_all |= v[i];
      rows |= d >> 6;
      bits[(d >> 6) & 3] |= G_GUINT64_CONSTANT (1) << (d & 63);
    }
  memcpy (r->bits, bits, sizeof r->bits);
  *any = or_all;
  return rows <= 3 && bits[3] == 0;
}

/* gpu_rows_fill() of the @n words @words (1 <= @n <= 64), TRUE only when none comes twice. */
static inline gboolean
gpu_rows_of (const guint64 *words, guint n, GpuRows *r)
{
  guint64 any;
  return gpu_rows_fill (words, n, 0, r, &any)
         && gpu_popcount (r->bits[0]) + gpu_popcount (r->bits[1]) + gpu_popcount (r->bits[2]) == n;
}

/* The longest bank queue of the words of @r over @bank_mask + 1 banks (8 to 64): since the banks
 * divide a row, bit j of every row is bank j & @bank_mask. The count per bit over the three rows
 * is kept bit-sliced (slice k: bit k of every count), the halves of a row folded onto each other
 * down to the banks' width, and the largest count read from the top slice down. O(1): about 40
 * operations for 32 banks, whatever the number of words. */
static inline guint
gpu_rows_queue_any (const GpuRows *r, guint64 bank_mask)
{
  guint64 a = r->bits[0], b = r->bits[1], c = r->bits[2], s[8], cand;
  guint slices = 2, q = 0;
  s[0] = a ^ b ^ c;
  s[1] = (a & b) | (c & (a ^ b));
  /* Unrolled where the banks are a constant (gpu_rows_queue()). */
#pragma GCC unroll 6
  for (guint width = 32; width > bank_mask; width /= 2)
    {
      guint64 low = (G_GUINT64_CONSTANT (1) << width) - 1, carry = 0;
#pragma GCC unroll 8
      for (guint k = 0; k < slices; k++)
        {
          guint64 x = s[k] & low, y = (s[k] >> width) & low;
          s[k] = x ^ y ^ carry;
          carry = (x & y) | (carry & (x ^ y));
        }
      s[slices++] = carry;
    }
  cand = gpu_group_mask ((guint) bank_mask + 1);
#pragma GCC unroll 8
  for (gint k = (gint) slices - 1; k >= 0; k--)
    if (cand & s[k])
      {
        cand &= s[k];
        q |= 1u << k;
      }
  return q;
}

/* gpu_rows_queue_any(), with its loops unrolled for the common banks, 16 (kmodel's k) and 32
 * (the H100's banks, agpu's b): about a third of the operations. */
static inline guint
gpu_rows_queue (const GpuRows *r, guint64 bank_mask)
{
  if (bank_mask == 31)
    return gpu_rows_queue_any (r, 31);
  if (bank_mask == 15)
    return gpu_rows_queue_any (r, 15);
  return gpu_rows_queue_any (r, bank_mask);
}

/* The longest bank queue of the @n word requests @words: the most of them that any one bank
 * (word & @bank_mask) serves. @count: [@bank_mask + 1] zeros, left as zeros. */
static inline guint
gpu_bank_queue (guint *count, const guint64 *words, guint n, guint64 bank_mask)
{
  guint worst = 0, rising = 1;
  /* The common case first: words strictly rising within one row of banks, one per bank. */
  while (rising < n && words[rising] > words[rising - 1])
    rising++;
  if (n > 0 && rising == n && words[n - 1] - words[0] <= bank_mask)
    return 1;
  /* Next, distinct rising words within two rows of banks (the bitonic tiles' compare-exchange
   * steps): a bank serves two of them exactly when two are one row apart. */
  if (n > 0 && rising == n && bank_mask < 32 && words[n - 1] - words[0] <= 2 * bank_mask + 1)
    {
      guint64 rows = 0;
      for (guint i = 0; i < n; i++)
        rows |= G_GUINT64_CONSTANT (1) << (words[i] - words[0]);
      return (rows & (rows >> (bank_mask + 1))) ? 2 : 1;
    }
  for (guint i = 0; i < n; i++)
    {
      guint q = ++count[words[i] & bank_mask];
      worst = MAX (worst, q);
    }
  for (guint i = 0; i < n; i++)
    count[words[i] & bank_mask] = 0;
  return worst;
}

/* The addresses of strided @e's first active lane (*@lo) and last (*@hi): what the engines'
 * closed forms of strided instructions start from. Anything for the explicit form (unsigned
 * arithmetic: its base and stride are not meant to be read, but may be). */
static inline void
gpu_strided_ends (const MdlWarpEvent *e, guint64 *lo, guint64 *hi)
{
  *lo = e->base + (guint64) __builtin_ctzll (e->active) * (guint64) e->stride;
  *hi = e->base + (guint64) (63 - __builtin_clzll (e->active)) * (guint64) e->stride;
}

/* The strided form's common case, where a memory instruction needs no lane addresses at all:
 * lane l touches exactly word *@word0 + l of 2^@word_shift bytes (stride one word, lanes no wider
 * than a word, the base on a word boundary, and no lane past the top of the address space).
 * FALSE otherwise; the lane-by-lane way then gives the same counts. */
static inline gboolean
gpu_lane_words (const MdlWarpEvent *e, guint word_shift, guint64 *word0)
{
  guint64 word_bytes = (guint64) 1 << word_shift;
  if (!(e->flags & MDL_WARP_STRIDED) || e->stride != (gint64) word_bytes || e->width > word_bytes
      || (e->base & (word_bytes - 1)) != 0
      || e->base > G_MAXUINT64 - MDL_WARP_MAX_LANES * word_bytes)
    return FALSE;
  *word0 = e->base >> word_shift;
  return TRUE;
}

/* The common case of a memory instruction's general path: every active lane of @e touches one
 * word of 2^@word_shift bytes alone (no wider than a word, not straddling two). Then @out[i] =
 * the word of the i-th active lane, in lane order (for the explicit form read straight from the
 * batch's list), and the words of a group of lanes are the slice of @out from the active lanes
 * below it: what gpu_group_words() lists from lane-indexed addresses, without scattering them by
 * lane and gathering them back (two passes per lane of every engine's general path). FALSE when
 * some lane's bytes reach into a second word; @out is then undefined. With TRUE, *@top (when
 * @top is not NULL) is the highest word of the list, taken in the same pass. */
static inline gboolean
gpu_list_words (const MdlEventBatch *batch, const MdlWarpEvent *e, guint word_shift, guint64 *out,
                guint64 *top)
{
  guint64 low = ((guint64) 1 << word_shift) - 1, width = MAX (e->width, 1u) - 1, bad = 0, hi = 0;
  guint n = 0;
  /* A lane within one word: its last byte's offset in the word is at most the word's last. */
  if (e->flags & MDL_WARP_STRIDED)
    for (guint64 r = e->active; r; r &= r - 1)
      {
        guint64 addr = e->base + (guint64) ((gint64) __builtin_ctzll (r) * e->stride);
        bad |= ((addr & low) + width) & ~low;
        out[n++] = addr >> word_shift;
        if (top)
          hi = MAX (hi, addr);
      }
  else
    {
      const guint64 *src = batch->lane_addrs + e->first_addr;
      guint64 any = 0;
      n = gpu_popcount (e->active);
      for (guint i = 0; i < n; i++)
        {
          any |= src[i];
          out[i] = src[i] >> word_shift;
          if (top)
            hi = MAX (hi, src[i]);
        }
      /* The common case with no test per lane: when no lane's offset in its word shares a bit
       * with width - 1 (aligned lanes of a power-of-two width), offset + width - 1 is their OR,
       * within the word's bits. */
      if (width > low || (any & width) != 0)
        for (guint i = 0; i < n; i++)
          bad |= ((src[i] & low) + width) & ~low;
    }
  if (top)
    *top = hi >> word_shift;
  return bad == 0;
}

/* The words a group of lanes of a memory instruction touches, as one 64-bit map: the sorts' shared
 * accesses (data-dependent lane addresses, but rising or falling within 64 words) in one cheap
 * pass over the lanes, with no list of words, no sort and no count per bank. */
typedef struct {
  guint64 first;   /* the word of bit 0 */
  guint64 bits;    /* bit i: some lane touches word first + i */
  guint n;         /* lanes (requests) */
} GpuWindow;

/* Fills @w with the words of 2^@word_shift bytes that the lanes @group (not 0) of memory
 * instruction @e touch, explicit or strided (@at: how many active lanes of @e lie below
 * @group, the place of its first address in the explicit form's list); FALSE (and @w undefined) unless every lane's width
 * is a power of two no wider than a word, every lane is aligned to it (so it touches one word),
 * every word lies within 64 of the lower of the group's first and last lane's word, and those 64
 * words end below the top of the address space. One
 * pass of about six operations per lane; the range and alignment are both read off the OR of
 * the lanes' offsets from the window's first byte. */
static inline gboolean
gpu_window_fill (const MdlEventBatch *batch, const MdlWarpEvent *e, guint64 group, guint at,
                 guint word_shift, GpuWindow *w)
{
  guint64 width = MAX (e->width, 1u), low = ((guint64) 1 << word_shift) - 1, any = 0, bits = 0;
  guint first = (guint) __builtin_ctzll (group), last = 63 - (guint) __builtin_clzll (group);
  guint64 origin;
  if ((width & (width - 1)) != 0 || width > low + 1)
    return FALSE;
  w->n = gpu_popcount (group);
  if (e->flags & MDL_WARP_STRIDED)
    {
      guint64 lo = e->base + (guint64) ((gint64) first * e->stride);
      guint64 hi = e->base + (guint64) ((gint64) last * e->stride);
      origin = MIN (lo, hi) & ~low;
      if (((MAX (lo, hi) - origin) >> word_shift) >= 64)
        return FALSE;   /* the end lanes alone rule it out: no pass over the lanes */
      /* A run of lanes (a whole warp, mostly) steps by the stride, with no bit scan per lane. */
      if (((group >> first) & ((group >> first) + 1)) == 0)
        for (guint64 d = lo - origin, i = 0; i < w->n; i++, d += (guint64) e->stride)
          {
            any |= d;
            bits = gpu_bit_set (bits, d >> word_shift);
          }
      else
        for (guint64 r = group; r; r &= r - 1)
          {
            guint64 d = e->base - origin + (guint64) ((gint64) __builtin_ctzll (r) * e->stride);
            any |= d;
            bits = gpu_bit_set (bits, d >> word_shift);
          }
    }
  else
    {
      const guint64 *src = batch->lane_addrs + e->first_addr + at;
      origin = MIN (src[0], src[w->n - 1]) & ~low;
      if (((MAX (src[0], src[w->n - 1]) - origin) >> word_shift) >= 64)
        return FALSE;
#pragma GCC unroll 4
      for (guint i = 0; i < w->n; i++)
        {
          guint64 d = src[i] - origin;
          any |= d;
          bits = gpu_bit_set (bits, d >> word_shift);
        }
    }
  w->first = origin >> word_shift;
  w->bits = bits;
  /* A lane below origin wraps to a huge offset, one beyond the window to a large one; a window
   * reaching past the top of the address space is left to the general paths (a lane's offset
   * from origin may have wrapped around 2^64 into it). */
  return (any >> word_shift) < 64 && (any & (width - 1)) == 0
         && origin <= G_MAXUINT64 - ((guint64) 64 << word_shift) + 1;
}

/* The longest bank queue (most words of one bank) of the words of @w over @bank_mask + 1 banks
 * (8 to 64): a bank's words lie @bank_mask + 1 apart, whatever word the window starts at. */
static inline guint
gpu_window_queue (const GpuWindow *w, guint64 bank_mask)
{
  GpuRows r = { 0, { w->bits, 0, 0 } };
  return gpu_rows_queue (&r, bank_mask);
}

/* How many distinct values (@offset + l) >> @chunk_shift take over the lanes l of @group (not 0),
 * @offset < 2^@chunk_shift: the distinct chunks (blocks, segments) that words @offset + l of
 * consecutive lanes fall in, when the first word sits @offset words into its chunk. */
static inline guint
gpu_lane_chunks (guint64 group, guint64 offset, guint chunk_shift)
{
  guint first = (guint) __builtin_ctzll (group), last = 63 - (guint) __builtin_clzll (group);
  guint64 c0 = (offset + first) >> chunk_shift, c1 = (offset + last) >> chunk_shift;
  guint n = 0;
  /* Chunks of 64 words or more: the lanes span at most two, each holding an end lane. */
  if (chunk_shift >= 6 || c0 == c1)
    return 1 + (c0 != c1);
  for (guint64 c = c0; c <= c1; c++)
    {
      /* Lanes whose word falls in chunk c: [c x C − offset, (c + 1) x C − offset). */
      gint64 lo = (gint64) (c << chunk_shift) - (gint64) offset, hi = lo + ((gint64) 1 << chunk_shift);
      guint64 lanes = hi >= 64 ? G_MAXUINT64 : ((guint64) 1 << hi) - 1;
      if (lo > 0)
        lanes &= ~(((guint64) 1 << lo) - 1);
      n += (group & lanes) != 0;
    }
  return n;
}

/* Same-address contention of one atomic instruction: the lanes that hit one address one after the
 * other (an atomic's updates to one word serialize: Cederman's "all additions being serialized"). */
typedef struct {
  guint64 insts;
  guint64 same_addr_lanes;   /* per instruction, the most lanes on one address, summed */
  guint64 addr_conflicts;    /* per instruction, active lanes - distinct addresses, summed */
  guint64 same_addr_max;     /* the most lanes on one address in any instruction */
} GpuContention;

/* Adds the instruction whose active lanes @active have addresses @addrs (lane-indexed) to @c.
 * O(lanes^2) at worst, for atomics only (32 lanes: at most 496 comparisons). */
static inline void
gpu_contention_add (GpuContention *c, const guint64 *addrs, guint64 active)
{
  guint lanes[MDL_WARP_MAX_LANES], n = 0, distinct = 0, worst = 0;
  for (guint64 r = active; r; r &= r - 1)
    lanes[n++] = (guint) __builtin_ctzll (r);
  for (guint i = 0; i < n; i++)
    {
      guint same = 1, j;
      for (j = 0; j < i && addrs[lanes[j]] != addrs[lanes[i]]; j++)
        ;
      if (j < i)
        continue;   /* counted with its first lane */
      distinct++;
      for (j = i + 1; j < n; j++)
        same += addrs[lanes[j]] == addrs[lanes[i]];
      worst = MAX (worst, same);
    }
  c->insts++;
  c->same_addr_lanes += worst;
  c->addr_conflicts += n - distinct;
  c->same_addr_max = MAX (c->same_addr_max, (guint64) worst);
}

/* Cuts an atomic's active lanes @active into rounds: round r holds, for every address, the r-th
 * lane (in lane order) that asks for it, so no round has two lanes on one address. Writes the
 * rounds' lane masks to @rounds (MDL_WARP_MAX_LANES slots) and returns how many there are (the
 * most lanes on one address). The H100 serves an atomic so: per round, the sectors (global) or
 * bank words (shared) it touches (docs/models/gpu.md, "Atomics"). O(lanes^2) at worst. */
static inline guint
gpu_atomic_rounds (const guint64 *addrs, guint64 active, guint64 *rounds)
{
  guint n = 0;
  for (guint64 r = active; r; r &= r - 1)
    {
      guint l = (guint) __builtin_ctzll (r), occ = 0;
      for (guint64 e = active & (((guint64) 1 << l) - 1); e; e &= e - 1)
        occ += addrs[__builtin_ctzll (e)] == addrs[l];
      if (occ == n)
        rounds[n++] = 0;
      rounds[occ] |= (guint64) 1 << l;
    }
  return n;
}

/* Contention between warps: per address, how many atomic warp instructions of the open launch hit
 * it (a map cleared at every launch), and the most of any address so far. */
typedef struct {
  MdlU64Map per_addr;
  guint64 max_warps;
} GpuAddrWarps;

/* Counts one atomic instruction for each distinct key among its active lanes' @keys
 * (lane-indexed). A key equal to the map's empty marker (address 2^64 - 1) is not counted. */
static inline void
gpu_addr_warps_add (GpuAddrWarps *w, const guint64 *keys, guint64 active)
{
  if (w->per_addr.keys == NULL)
    mdl_u64map_init (&w->per_addr, 64);
  for (guint64 r = active; r; r &= r - 1)
    {
      guint l = (guint) __builtin_ctzll (r);
      guint64 earlier = active & (((guint64) 1 << l) - 1), *n;
      gboolean seen = FALSE, inserted;
      for (; earlier && !seen; earlier &= earlier - 1)
        seen = keys[__builtin_ctzll (earlier)] == keys[l];
      if (seen || keys[l] == MDL_U64MAP_EMPTY)
        continue;
      n = mdl_u64map_upsert (&w->per_addr, keys[l], 0, &inserted);
      ++*n;
      w->max_warps = MAX (w->max_warps, *n);
    }
}

/* The launch boundary: counts start again. */
static inline void
gpu_addr_warps_launch (GpuAddrWarps *w)
{
  if (w->per_addr.keys)
    mdl_u64map_clear (&w->per_addr);
}

static inline void
gpu_addr_warps_free (GpuAddrWarps *w)
{
  if (w->per_addr.keys)
    mdl_u64map_destroy (&w->per_addr);
}

/* Atomics on one address serialize across a whole launch, whatever warp or block issues them: the
 * launch lasts at least as many atomic steps as the lane updates on its busiest address (the
 * spin of a CAS lock is such a chain: every failed try is an update of the lock word the memory
 * system serves in turn). Per launch, the lane updates of each address (a map cleared at every
 * launch) and the most of any; over launches, the sum of those maxima, and the CAS lanes and
 * those whose compare failed (the event's taken mask). */
typedef struct {
  MdlU64Map per_addr;
  guint64 launch_max;
  guint64 chain;
  guint64 cas_lanes, cas_failed;
} GpuAtomicChain;

/* Counts the active lanes of atomic @e at their addresses @addrs (lane-indexed). */
static inline void
gpu_atomic_chain_add (GpuAtomicChain *c, const MdlWarpEvent *e, const guint64 *addrs)
{
  gboolean inserted;
  if (c->per_addr.keys == NULL)
    mdl_u64map_init (&c->per_addr, 64);
  for (guint64 r = e->active; r; r &= r - 1)
    {
      guint64 key = addrs[__builtin_ctzll (r)], *n;
      if (key == MDL_U64MAP_EMPTY)
        continue;
      n = mdl_u64map_upsert (&c->per_addr, key, 0, &inserted);
      ++*n;
      c->launch_max = MAX (c->launch_max, *n);
    }
  if (e->flags & MDL_WARP_ATOM_CAS)
    {
      c->cas_lanes += (guint64) __builtin_popcountll (e->active);
      c->cas_failed += (guint64) __builtin_popcountll (e->taken);
    }
}

/* The launch boundary: the open launch's chain joins the sum. */
static inline void
gpu_atomic_chain_launch (GpuAtomicChain *c)
{
  c->chain += c->launch_max;
  c->launch_max = 0;
  if (c->per_addr.keys)
    mdl_u64map_clear (&c->per_addr);
}

static inline void
gpu_atomic_chain_free (GpuAtomicChain *c)
{
  if (c->per_addr.keys)
    mdl_u64map_destroy (&c->per_addr);
}

/* Appends atomic_chain (closed launches' chains plus the open one's), cas_lanes and
 * cas_failed_lanes of @c. */
void mdl_gpu_atomic_chain_report (MdlReport *out, const GpuAtomicChain *c);

/* Appends the contention counters PREFIX_same_addr_lanes, PREFIX_addr_conflicts,
 * PREFIX_same_addr_max of @c and PREFIX_addr_warps_max of @w, described "WHAT: ...". */
void mdl_gpu_contention_report (MdlReport *out, const char *prefix, const char *what,
                                const GpuContention *c, const GpuAddrWarps *w);

/* Sorts @v[0..@n) and keeps one of each value, in order; returns how many there are. */
guint mdl_gpu_sort_unique (guint64 *v, guint n);

/* Writes the NULL-terminated list of strings after @size to @out, one after the other, truncated
 * to @size bytes with the terminator. Reports are made at every phase marker (the core's
 * snapshots), where g_snprintf's formatting cost more than the engines' counting. */
void mdl_gpu_concat (char *out, gsize size, ...) G_GNUC_NULL_TERMINATED;

/* Appends the count PREFIX_KEY of @unit, described "WHAT: TEXT"; @metric NULL for none. */
void mdl_gpu_report_add (MdlReport *out, const char *prefix, const char *key, const char *unit,
                         const char *what, const char *text, const char *metric, guint64 value);

#endif
