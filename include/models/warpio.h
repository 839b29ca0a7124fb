/* libmodels: the lower bounds of the warp-centric I/O model (Jurkiewicz's thesis, §4.1).
 *
 * P processors (warps), each with a cache of c x S cells, share a global memory of 2n cells in
 * blocks of S. A turn: every processor exchanges with one block (reads it whole, writes S
 * elements into it). Elements are only moved and compared. The `warpio` engine counts the turns
 * a SIMT run takes (docs/models/warpio.md); these functions say how few any algorithm needs. */
#ifndef MODELS_WARPIO_H
#define MODELS_WARPIO_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/**
 * MdlWarpioBound: turns t needed by any algorithm.
 * @permute: the least integer t with n!/(S!)^(n/S) <= ((2n/S) C(cS, S))^(tP) (the thesis's
 *   counting inequality), evaluated with log-gamma.
 * @permute_relaxed: the thesis's closed form n log(n/(eS)) / (P log((2n/S)(ce)^S)); at most
 *   the real solution of the exact inequality, negative when n < eS.
 * @sort: the least integer t with n!/(S!)^(n/S) <= C(cS, S)^(tP): learning the order by
 *   comparisons, a read teaches at most how the block's S elements fall among the cS cached.
 * @sort_relaxed: n log(n/(eS)) / (P S log(ce)), relaxed as @permute_relaxed.
 */
typedef struct {
  double permute, permute_relaxed;
  double sort, sort_relaxed;
} MdlWarpioBound;

/**
 * mdl_warpio_bound: the lower bounds for @n elements.
 * @n: elements, >= 1; n/S need not be an integer ((S!)^(n/S) is then a real power).
 * @P: processors, >= 1.
 * @S: cells per block, >= 1.
 * @c: cache blocks per processor, >= 1.
 * @l: warps that communicate through one cache (the thesis: multiply c by l), >= 1; c x l >= 2,
 *   since a cache of one block can only write back what it read, so no bound on sorting exists.
 * @out: the bounds.
 * @error: MDL_ERROR_PARAM naming the bad argument.
 * Returns: FALSE on a bad argument.
 */
MDL_API gboolean mdl_warpio_bound (guint64 n, guint64 P, guint64 S, guint64 c, guint64 l,
                                   MdlWarpioBound *out, GError **error);

G_END_DECLS

#endif
