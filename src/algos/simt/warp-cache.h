/* Private to src/algos/simt: the cache of one processor of the warp-centric I/O model (Jurkiewicz's
 * thesis §4.1; spec vat-thesis-jurkiewicz.md §5.9-5.10) as the SIMT algorithms warpio/k-merge and
 * warpio/k-partition hold it: c blocks of S 32-bit keys in the shared memory of a block of one
 * warp, padded with MDL_WARP_CACHE_PAD up to a power of two so that a bitonic network sorts it.
 * Moving a block between global memory and the cache is one global instruction of S lanes (one
 * exchange under the warpio engine, S <= warp width); the sort is shared-memory work, free in the
 * model and counted by the hardware engines. docs/models/warpio.md. */
#ifndef MDL_WARP_CACHE_H
#define MDL_WARP_CACHE_H

#include "algos/simt/simt-algo.h"

#include "algos/keys.h"

/* The key that pads the cache: it sorts after every key (a key equal to it is interchangeable). */
#define MDL_WARP_CACHE_PAD G_GUINT64_CONSTANT (0xffffffff)

typedef struct {
  guint S;             /* keys per block */
  guint slots;         /* c x S: the keys the cache holds */
  guint size;          /* the least power of two >= slots: the sorting network's width */
  guint64 *at, *x, *y, *down;   /* lane vectors of the block's warp */
} MdlWarpCache;

/* Shared bytes a cache of @slots keys needs (the launch's shared_bytes). */
guint mdl_warp_cache_bytes (guint slots);
/* Sets up @cache of @c blocks of @S keys in @blk's shared memory, every key MDL_WARP_CACHE_PAD
 * (stores of the whole network width). */
void mdl_warp_cache_init (MdlSimtBlock *blk, MdlWarpCache *cache, guint S, guint c);
/* Key @i of the cache, read without an instruction (the kernel's uniform control values). */
guint32 mdl_warp_cache_key (const MdlSimtBlock *blk, guint i);
/* Lanes 0..@count-1 (@count <= S) load the keys at global @src and store them at cache key
 * @slot: one global load. */
void mdl_warp_cache_read (MdlSimtBlock *blk, MdlWarpCache *cache, guint64 src, guint slot,
                          guint count);
/* Lanes 0..@count-1 (@count <= S) load cache keys @slot.. and store them at global @dst: one
 * global store. */
void mdl_warp_cache_write (MdlSimtBlock *blk, MdlWarpCache *cache, guint slot, guint count,
                           guint64 dst);
/* Cache keys @from..@to-1 become MDL_WARP_CACHE_PAD (shared stores). */
void mdl_warp_cache_pad (MdlSimtBlock *blk, MdlWarpCache *cache, guint from, guint to);
/* Sorts the whole cache ascending, pads last: the bitonic network in shared memory, a warp's
 * lanes taking a pair each (two shared loads, min and max, two shared stores). */
void mdl_warp_cache_sort (MdlSimtBlock *blk, MdlWarpCache *cache);

/* The parameter rows warpio/k-merge and warpio/k-partition share (after their own k row). */
#define MDL_WARP_CACHE_ROWS                                                                        \
  { "c", MDL_PARAM_UINT, "8", NULL, 2, 4096, NULL, 0,                                              \
    "blocks the warp's cache holds (the model's c), at least k" },                                 \
  { "S", MDL_PARAM_UINT, "32", NULL, 1, 64, NULL, MDL_PARAM_POW2,                                  \
    "keys per block (the model's S; give warpio the same S), at most w" },                         \
  { "w", MDL_PARAM_UINT, "32", NULL, 1, 64, NULL, MDL_PARAM_POW2, "lanes per warp" },              \
  { "warps", MDL_PARAM_UINT, "1", NULL, 1, 65535, NULL, 0,                                         \
    "warps, each on its own share of the input (a block of one warp each)" },                      \
  MDL_KEYS_DIST_ROW

/* TRUE when @c, @S, @w fit @algo with @k (c >= k, S <= w, the cache within a block's shared
 * memory); else an error naming @algo and the parameter. */
gboolean mdl_warp_cache_check (const char *algo, guint k, guint c, guint S, guint w,
                               GError **error);
/* The input: @padded keys at a new allocation (*@addr), the first @n drawn from @dist and @seed,
 * the rest MDL_WARP_CACHE_PAD, so that every run or share is whole blocks (the pads sort last);
 * NULL on error. */
guint32 *mdl_warp_cache_input (MdlSimt *gpu, guint64 n, guint64 padded, MdlKeyDist dist,
                               guint64 seed, guint64 *addr, GError **error);

#endif
