/* The next uses of the offline policies (min, ismin), forward and incrementally (nextuse.h): each
 * layer remembers, per node, the last access of the node's latest finished run, and when the
 * node's next run begins at access t, that access's entry gets t. A node is used by a run of
 * consecutive accesses far more often than not (every access of a page uses the same root, most
 * the same upper nodes), and inside a run the next use is simply the next access, so the table is
 * consulted only where a run ends and the next begins.
 *
 * Where a layer's node numbers are dense (below DIRECT_PER_NODE times its distinct nodes so far,
 * plus DIRECT_SLACK, as with any trace over one contiguous region) the table is a plain array
 * indexed by node number, grown as larger numbers come; the first number beyond that moves the
 * layer to a hash table (key and value side by side, one line per probe; on Linux backed by
 * transparent huge pages where the system allows it on request), which moves back to an array
 * when it is full and the numbers have become dense. Forward rather than the
 * backward pass over the finished trace this replaced, so that it runs while the stream is
 * consumed and a policy can run over the accesses whose next uses are final (issue 18: vat min's
 * pass after the recording bounded the sweep on 16 threads). */
#include "models/vat/nextuse.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* A direct array's 4 bytes per number are then at most about twice what the hash table's 16 bytes
 * per pair, at most half full, would take, and it needs no probing. Numbers below DIRECT_ANY are
 * always direct (16 MiB at most): with 2^20, bench-vat's leaves (2^22 pages) started hashed, and
 * their first 512k accesses cost twice the rest (the pass alone: 60-80 -> 38-40 ns per access
 * there, 33.5-40.9 -> 30.0-31.6 over 4M accesses). */
#define DIRECT_PER_NODE 16
#define DIRECT_SLACK (1u << 16)
#define DIRECT_ANY (1u << 22)
#define PREFETCH 32
#define NONE G_MAXUINT64

static guint64 *
pairs_alloc (gsize slots)
{
  gsize bytes = 2 * slots * sizeof (guint64);
  guint64 *kv = NULL;
  if (bytes >= (2u << 20))
    {
      if (posix_memalign ((void **) &kv, 2u << 20, bytes) != 0)
        kv = NULL;
#ifdef MADV_HUGEPAGE
      else
        madvise (kv, bytes, MADV_HUGEPAGE);
#endif
    }
  if (kv == NULL)
    kv = g_malloc (bytes);
  memset (kv, 0xff, bytes);
  return kv;
}

static inline gsize
pairs_home (gsize mask, guint64 key)
{
  return (gsize) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 24) & mask;
}

/* The hashed layer's pair of @number (or the free pair where it would go). */
static inline guint64 *
layer_pair (const VatNextUseLayer *ly, guint64 number)
{
  return vat_pair_find (ly->pairs, ly->mask, pairs_home (ly->mask, number), number);
}

/* Stores @last for @number in the hash table, which has room for it. */
static inline void
layer_hash_set (VatNextUseLayer *ly, guint64 number, guint64 last)
{
  guint64 *e = layer_pair (ly, number);
  ly->n_pairs += e[0] == VAT_NO_NODE;
  e[0] = number;
  e[1] = last;
}

/* The layer hashed, in a table of @slots pairs holding what the old table or the direct array
 * held. */
static void
layer_to_table (VatNextUseLayer *ly, gsize slots)
{
  guint64 *old = ly->pairs;
  gsize old_slots = old ? ly->mask + 1 : 0;
  ly->pairs = pairs_alloc (slots);
  ly->mask = slots - 1;
  ly->n_pairs = 0;
  for (gsize i = 0; i < old_slots; i++)
    if (old[2 * i] != VAT_NO_NODE)
      layer_hash_set (ly, old[2 * i], old[2 * i + 1]);
  for (guint64 i = 0; i < ly->n_direct; i++)
    if (ly->direct[i] != 0)
      layer_hash_set (ly, i, ly->direct[i] - 1);
  free (old);
  g_clear_pointer (&ly->direct, g_free);
  ly->n_direct = 0;
  ly->hashed = TRUE;
}

/* The layer back on a direct array of its numbers up to `top`, from its hash table. */
static void
layer_to_direct (VatNextUseLayer *ly)
{
  ly->n_direct = ly->top + 1;
  ly->direct = g_new0 (guint32, ly->n_direct);
  for (gsize i = 0; i <= ly->mask; i++)
    if (ly->pairs[2 * i] != VAT_NO_NODE)
      ly->direct[ly->pairs[2 * i]] = (guint32) (ly->pairs[2 * i + 1] + 1);
  g_clear_pointer (&ly->pairs, free);
  ly->hashed = FALSE;
}

/* Room in the direct array for @number, or the layer hashed when @number is too sparse for it
 * (DIRECT_PER_NODE). Out of line: numbers grow rarely. */
static void
layer_make_room (VatNextUseLayer *ly, guint64 number)
{
  guint64 bound = MAX ((ly->distinct + 1) * DIRECT_PER_NODE + DIRECT_SLACK, DIRECT_ANY);
  guint64 size = MIN (MAX (2 * ly->n_direct, number + 1), bound);
  if (number < bound)
    {
      ly->direct = g_renew (guint32, ly->direct, size);
      memset (ly->direct + ly->n_direct, 0, (size - ly->n_direct) * sizeof *ly->direct);
      ly->n_direct = size;
    }
  else
    {
      gsize slots = 64;
      while (slots < 4 * (ly->distinct + 1))
        slots *= 2;
      ly->top = number;
      layer_to_table (ly, slots);
    }
}

/* The last access of @number's latest finished run, NONE if it has none. */
static inline guint64
layer_last (VatNextUseLayer *ly, guint64 number)
{
  const guint64 *e;
  if (!ly->hashed)
    {
      if (number >= ly->n_direct)
        layer_make_room (ly, number);
      if (!ly->hashed)
        return (guint64) ly->direct[number] - 1;   /* 0 - 1: NONE */
    }
  ly->top = MAX (ly->top, number);
  e = layer_pair (ly, number);
  return e[0] == number ? e[1] : NONE;
}

/* @number's run has ended at access @last. @number has been looked up (layer_last) since the
 * layer last changed its form, so a direct array has room for it. A full hash table doubles, or,
 * where the numbers have turned out dense after all (a random trace's first pages are spread
 * over its whole range, and only its later ones fill it in), gives way to a direct array: on
 * bench-vat's random pages over 16 GiB that happens at a quarter of a million nodes. */
static inline void
layer_put (VatNextUseLayer *ly, guint64 number, guint64 last)
{
  if (ly->hashed && 2 * (ly->n_pairs + 1) > ly->mask + 1)
    {
      if (ly->top < ly->distinct * DIRECT_PER_NODE + DIRECT_SLACK)
        layer_to_direct (ly);
      else
        layer_to_table (ly, 2 * (ly->mask + 1));
    }
  if (!ly->hashed)
    ly->direct[number] = (guint32) (last + 1);
  else
    layer_hash_set (ly, number, last);
}

/* Leaf lookups miss the caches on scattered pages, and so does the store into the entry they find:
 * the loop prefetches the table's line PREFETCH accesses ahead, and the entry it names PREFETCH / 2
 * ahead (a number used again in between makes that a wasted fetch, nothing worse); with the
 * leaves in a loop of their own, 32 ahead beat 16 (the pass alone on bench-vat's pages, 4M
 * accesses, best of 3: 36.7-42.3 -> 32.6-35.3 ns per access). These return
 * the addresses, and the loop itself prefetches: GCC takes a function that only prefetches for one
 * without effects, and drops its calls. */
static inline const void *
leaf_line (const VatNextUseLayer *ly, guint64 number)
{
  if (ly->hashed)
    return &ly->pairs[2 * pairs_home (ly->mask, number)];
  return number < ly->n_direct ? &ly->direct[number] : NULL;
}

static inline const void *
entry_line (const VatNextUseLayer *ly, guint64 number, const guint32 *next, gsize stride)
{
  guint64 last = NONE;
  if (!ly->hashed)
    {
      if (number < ly->n_direct)
        last = (guint64) ly->direct[number] - 1;
    }
  else
    {
      const guint64 *e = &ly->pairs[2 * pairs_home (ly->mask, number)];
      last = e[0] == number ? e[1] : NONE;
    }
  return last != NONE ? &next[last * stride] : NULL;
}

void
mdl_vat_nextuse_init (VatNextUse *nu, guint depth, guint k_bits)
{
  memset (nu, 0, sizeof *nu);
  nu->next = g_array_new (FALSE, FALSE, sizeof (guint32));
  nu->depth = depth;
  nu->k_bits = k_bits;
  for (guint l = 0; l <= depth; l++)
    nu->layer[l].run_node = VAT_NO_NODE;
}

void
mdl_vat_nextuse_finalize (VatNextUse *nu)
{
  for (guint l = 0; l <= nu->depth; l++)
    {
      g_free (nu->layer[l].direct);
      free (nu->layer[l].pairs);
    }
  if (nu->next)
    g_array_unref (nu->next);
  memset (nu, 0, sizeof *nu);
}

/* Layer @l's entries where its table is a direct array with room for every number of the batch
 * (the common case: on bench-vat's pages every layer once the first 512k accesses have gone by),
 * in a loop with the table in registers and no branch but the run's, which each layer predicts
 * well (the root's runs are long, the leaves' hardly ever more than one access). The entry a
 * run's first access patches is a select, its own entry where its node is new (overwritten just
 * after), since whether a leaf was seen is a coin toss on random pages. Only the leaves (@leaves,
 * a constant at each call) prefetch. The pass alone on bench-vat's 4M pages: 185.7 -> 128.6
 * instructions per access (callgrind) and 32.2-36.0 -> 25.5-28.3 ns (3 alternated rounds) with
 * this loop, where a backward pass over the finished trace takes 19.1-19.5 ns. */
static inline __attribute__ ((always_inline)) void
direct_add (VatNextUseLayer *ly, gboolean leaves, guint shift, guint l, const guint64 *pages,
            gsize n, gsize first, guint32 *next, gsize stride)
{
  guint32 *direct = ly->direct;
  guint64 run = ly->run_node, fresh = 0;
  for (gsize i = 0; i < n; i++)
    {
      guint32 t = (guint32) (first + i), *entry;
      guint64 number = pages[i] >> shift, last;
      if (leaves && i + PREFETCH < n)
        __builtin_prefetch (&direct[pages[i + PREFETCH]], 1);
      if (leaves && i + PREFETCH / 2 < n)
        {
          guint32 ahead = direct[pages[i + PREFETCH / 2]];
          __builtin_prefetch (&next[(gsize) (ahead != 0 ? ahead - 1 : t) * stride], 1);
        }
      if (number == run)
        {
          next[(gsize) (t - 1) * stride + l] = t;
          next[(gsize) t * stride + l] = G_MAXUINT32;
          continue;
        }
      /* Why run is a number here: the caller takes this loop only after the layer's first
       * access. */
      direct[run] = t;   /* the run ended at access t - 1, stored + 1 */
      last = (guint64) direct[number] - 1;   /* 0 - 1: NONE */
      entry = last != NONE ? &next[last * stride + l] : &next[(gsize) t * stride + l];
      fresh += last == NONE;
      *entry = t;
      next[(gsize) t * stride + l] = G_MAXUINT32;
      run = number;
    }
  ly->distinct += fresh;
  ly->run_node = run;
}

/* The largest of @pages[0..@n). */
static guint64
pages_top (const guint64 *pages, gsize n)
{
  guint64 top = 0;
  for (gsize i = 0; i < n; i++)
    top = MAX (top, pages[i]);
  return top;
}

/* One layer's entries for the accesses first .. first + n - 1 (@top: the largest page): a layer
 * at a time, so that each loop keeps its layer's state in registers and only the leaves (@l = 0,
 * whose tables miss the caches on scattered pages) prefetch; by direct_add where it can. */
static void
layer_add (VatNextUseLayer *ly, guint l, guint k_bits, const guint64 *pages, gsize n, guint64 top,
           gsize first, guint32 *next, gsize stride)
{
  guint64 run = ly->run_node;
  guint shift = k_bits * l;
  if (!ly->hashed && run != VAT_NO_NODE && (top >> shift) < ly->n_direct)
    {
      if (l == 0)
        direct_add (ly, TRUE, 0, 0, pages, n, first, next, stride);
      else
        direct_add (ly, FALSE, shift, l, pages, n, first, next, stride);
      return;
    }
  for (gsize i = 0; i < n; i++)
    {
      /* Why t fits in 32 bits: the caller stays below G_MAXUINT32 - 1 accesses. */
      guint32 t = (guint32) (first + i);
      guint64 number = pages[i] >> shift, last;
      if (l == 0 && i + PREFETCH < n)
        __builtin_prefetch (leaf_line (ly, pages[i + PREFETCH]), 1);
      if (l == 0 && i + PREFETCH / 2 < n)
        __builtin_prefetch (entry_line (ly, pages[i + PREFETCH / 2], next, stride), 1);
      next[(gsize) t * stride + l] = G_MAXUINT32;
      if (number == run)
        {
          next[(gsize) (t - 1) * stride + l] = t;
          continue;
        }
      if (run != VAT_NO_NODE)
        layer_put (ly, run, t - 1);
      last = layer_last (ly, number);
      if (last == NONE)
        ly->distinct++;
      else
        next[last * stride + l] = t;
      run = number;
    }
  ly->run_node = run;
}

void
mdl_vat_nextuse_add (VatNextUse *nu, const guint64 *pages, gsize n)
{
  gsize stride = nu->depth + 1, first = nu->n;
  guint64 top;
  guint32 *next;
  if (n == 0)
    return;
  g_array_set_size (nu->next, (first + n) * stride);
  next = (guint32 *) (gpointer) nu->next->data;
  top = pages_top (pages, n);
  for (guint l = 0; l <= nu->depth; l++)
    layer_add (&nu->layer[l], l, nu->k_bits, pages, n, top, first, next, stride);
  nu->n = first + n;
  /* Why amortized O(d+1) per access: final_upto only moves forward. */
  for (; nu->final_upto < nu->n; nu->final_upto++)
    {
      const guint32 *e = next + nu->final_upto * stride;
      guint l = 0;
      while (l <= nu->depth && e[l] != G_MAXUINT32)
        l++;
      if (l <= nu->depth)
        break;
    }
}
