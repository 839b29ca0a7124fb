/* The set of nodes touched so far (seen.h), for the `compulsory` counter. */
#include "models/vat/seen.h"
#include "models/vat/zeroed.h"

#include <string.h>

/* How many pages ahead the leaf chunk's table slot is prefetched: the table outgrows L1 on random
 * pages, and the lookups of a batch are independent until their bits are set. */
#define AHEAD 8

/* The bits of layer @l's node numbers, at most depth * k_bits. */
static guint
layer_bits (const VatSeen *seen, guint l)
{
  return seen->k_bits * (seen->depth - l);
}

static gsize
bitmap_bytes (const VatSeen *seen, guint l)
{
  return 8 * (((G_GUINT64_CONSTANT (1) << layer_bits (seen, l)) + 63) / 64);
}

/* The bytes of layer @l's radix table: a chunk number per 512 nodes. */
static gsize
radix_bytes (const VatSeen *seen, guint l)
{
  return 4 * (G_GUINT64_CONSTANT (1) << (layer_bits (seen, l) - 9));
}

void
mdl_vat_seen_init (VatSeen *seen, guint depth, guint k_bits)
{
  memset (seen, 0, sizeof *seen);
  seen->depth = depth;
  seen->k_bits = k_bits;
  for (guint l = 0; l <= depth; l++)
    if (layer_bits (seen, l) <= SEEN_DIRECT_BITS)
      seen->direct[l] = mdl_vat_zeroed_new (bitmap_bytes (seen, l));
    else if (layer_bits (seen, l) <= SEEN_RADIX_BITS)
      seen->radix[l] = mdl_vat_zeroed_new (radix_bytes (seen, l));
  seen->mask = 63;
  seen->shift = 64 - 6;
  seen->slots = g_new (guint64, 2 * (seen->mask + 1));
  for (gsize i = 0; i <= seen->mask; i++)
    seen->slots[2 * i] = VAT_NO_NODE;
  for (guint l = 0; l <= VAT_MAX_DEPTH; l++)
    seen->memo_key[l] = VAT_NO_NODE;
}

void
mdl_vat_seen_finalize (VatSeen *seen)
{
  for (guint l = 0; l <= seen->depth; l++)
    {
      mdl_vat_zeroed_free (seen->direct[l], bitmap_bytes (seen, l));
      if (seen->radix[l])
        mdl_vat_zeroed_free (seen->radix[l], radix_bytes (seen, l));
    }
  g_free (seen->slots);
  g_free (seen->bits);
  memset (seen, 0, sizeof *seen);
}

static inline gsize
home (const VatSeen *seen, guint64 key)
{
  /* Multiply-shift: chunk keys come in dense runs; the top bits of the product are the best mixed. */
  return (gsize) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> seen->shift);
}

/* The slot of @key, or the free slot where it would go. */
static inline guint64 *
slot_of (const VatSeen *seen, guint64 key)
{
  return vat_pair_find (seen->slots, seen->mask, home (seen, key), key);
}

static void
grow (VatSeen *seen)
{
  guint64 *old = seen->slots;
  gsize old_mask = seen->mask;
  seen->mask = 2 * old_mask + 1;
  seen->shift--;
  seen->slots = g_new (guint64, 2 * (seen->mask + 1));
  for (gsize i = 0; i <= seen->mask; i++)
    seen->slots[2 * i] = VAT_NO_NODE;
  for (gsize i = 0; i <= old_mask; i++)
    if (old[2 * i] != VAT_NO_NODE)
      {
        guint64 *e = slot_of (seen, old[2 * i]);
        e[0] = old[2 * i];
        e[1] = old[2 * i + 1];
      }
  g_free (old);
}

/* The number of a new empty chunk (which may move `bits`). */
static guint64
chunk_new (VatSeen *seen)
{
  if (seen->n_chunks == seen->cap_chunks)
    {
      seen->cap_chunks = MAX (64, 2 * seen->cap_chunks);
      seen->bits = g_renew (guint64, seen->bits, 8 * seen->cap_chunks);
    }
  memset (&seen->bits[8 * seen->n_chunks], 0, 8 * sizeof (guint64));
  return seen->n_chunks++;
}

/* The chunk of @key, a new empty one when absent. */
static guint64
chunk_of (VatSeen *seen, guint64 key)
{
  guint64 *e = slot_of (seen, key);
  if (G_LIKELY (e[0] == key))
    return e[1];
  if (2 * (seen->n_chunks + 1) > seen->mask + 1)
    {
      grow (seen);
      e = slot_of (seen, key);
    }
  e[0] = key;
  e[1] = chunk_new (seen);
  return e[1];
}

/* The word holding node @index of a layer with a radix table @radix. */
static inline guint64 *
radix_word (VatSeen *seen, guint32 *radix, guint64 index)
{
  guint32 *chunk = &radix[index >> 9];
  if (G_UNLIKELY (*chunk == 0))
    *chunk = (guint32) chunk_new (seen) + 1;
  return &seen->bits[8 * (gsize) (*chunk - 1) + ((index >> 6) & 7)];
}

static inline guint64
chunk_key (guint layer, guint64 index)
{
  return vat_node_make (layer, 0, index) >> 9;
}

/* The word holding layer @l's node @index. */
static inline guint64 *
word_of (VatSeen *seen, guint l, guint64 index)
{
  guint64 key;
  if (seen->direct[l])
    return &seen->direct[l][index >> 6];
  if (seen->radix[l])
    return radix_word (seen, seen->radix[l], index);
  key = chunk_key (l, index);
  if (seen->memo_key[l] != key)
    {
      seen->memo_key[l] = key;
      seen->memo_chunk[l] = chunk_of (seen, key);
    }
  return &seen->bits[8 * seen->memo_chunk[l] + ((index >> 6) & 7)];
}

/* Adds the path of @page from layer @from up, stopping at the first node already in the set. */
static inline void
add_path (VatSeen *seen, guint64 page, guint from)
{
  for (guint l = from; l <= seen->depth; l++)
    {
      guint64 index = page >> (seen->k_bits * l);
      guint64 bit = G_GUINT64_CONSTANT (1) << (index & 63), *word = word_of (seen, l, index);
      if (*word & bit)
        break;
      *word |= bit;
      seen->distinct++;
      seen->distinct_layer[l]++;
    }
}

/* The paths of @pages[0..@n) where the leaves have a bitmap, or with @radix_leaves their radix
 * table, and their parents a bitmap: both are set without asking first (a parent whose leaf was
 * there already is there too), since whether a leaf is new is a coin toss on random pages, and
 * only a new parent sends the path on up. @radix_leaves is a constant where this is expanded, so
 * that each layout gets a loop of its own (scan/random's radix leaves: 63 -> 47 instructions per
 * page, callgrind). */
static inline __attribute__ ((always_inline)) void
add_paths_from_bitmaps (VatSeen *seen, const guint64 *pages, gsize n, gboolean radix_leaves)
{
  /* The counts in locals: the bitmaps' words are guint64 like them, so the compiler would
   * otherwise load and store them around every bitmap store (bench-vat lru: 45 -> 43
   * instructions per access here, callgrind). */
  guint64 *leaves = seen->direct[0], *parents = seen->direct[1];
  guint32 *radix = seen->radix[0];
  guint64 new_leaves = 0, new_parents = 0;
  guint k_bits = seen->k_bits;
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i], up = page >> k_bits;
      guint64 *leaf = radix_leaves ? radix_word (seen, radix, page) : &leaves[page >> 6];
      guint64 bit0 = G_GUINT64_CONSTANT (1) << (page & 63), old0 = *leaf;
      guint64 bit1 = G_GUINT64_CONSTANT (1) << (up & 63), old1 = parents[up >> 6];
      guint64 new0 = (old0 & bit0) == 0, new1 = (old1 & bit1) == 0;
      /* A radix table's chunks are found only by the lookup itself. */
      if (!radix_leaves && i + AHEAD < n)
        __builtin_prefetch (&leaves[pages[i + AHEAD] >> 6]);
      *leaf = old0 | bit0;
      parents[up >> 6] = old1 | bit1;
      new_leaves += new0;
      new_parents += new1;
      if (G_UNLIKELY (new1))
        add_path (seen, page, 2);
    }
  seen->distinct_layer[0] += new_leaves;
  seen->distinct_layer[1] += new_parents;
  seen->distinct += new_leaves + new_parents;
}

void
mdl_vat_seen_add_paths (VatSeen *seen, const guint64 *pages, gsize n)
{
  if (seen->depth >= 1 && seen->direct[1] && (seen->direct[0] || seen->radix[0]))
    {
      if (seen->direct[0])
        add_paths_from_bitmaps (seen, pages, n, FALSE);
      else
        add_paths_from_bitmaps (seen, pages, n, TRUE);
      return;
    }
  for (gsize i = 0; i < n; i++)
    {
      if (i + AHEAD < n)
        __builtin_prefetch (seen->direct[0] ? &seen->direct[0][pages[i + AHEAD] >> 6]
                            : &seen->slots[2 * home (seen, chunk_key (0, pages[i + AHEAD]))]);
      add_path (seen, pages[i], 0);
    }
}
