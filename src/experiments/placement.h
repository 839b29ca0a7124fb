/* Private to src/experiments: canonical addresses for an instrumented run's arrays. The engines
 * of the VAT experiment count what a real address implies (a TC path, a cache set, a TLB set),
 * and malloc places an array by the history of its thread: the same point would count differently
 * on another worker thread or after other points. A placement records the arrays a run allocates
 * (src/algos/alloc-watch.h) and moves every access into a canonical copy of them: laid out in
 * allocation order from CANONICAL_BASE, each at the next multiple of its alignment after the one
 * before, as a fresh heap would place them, the same on any thread in any order. */
#ifndef MDL_EXPERIMENTS_PLACEMENT_H
#define MDL_EXPERIMENTS_PLACEMENT_H

#include <glib.h>
#include <models/event.h>

/* One array: its real bytes [start, end) and where its copy begins. */
typedef struct {
  guint64 start, end;
  guint64 canonical;
} MdlPlacedArray;

typedef struct {
  GArray *arrays;        /* MdlPlacedArray, in allocation order */
  guint64 next;          /* the canonical end of the last array */
  guint last;            /* the array the previous access fell in: accesses come in runs */
} MdlPlacement;

void mdl_placement_init (MdlPlacement *p);
void mdl_placement_clear (MdlPlacement *p);

/* An MdlAllocWatchFunc (@data an MdlPlacement): places an array. An array that reuses the bytes
 * of an earlier, freed one replaces it. */
void mdl_placement_add (void *data, const void *start, gsize bytes, gsize align);

/* Moves the accesses of @events (op counts and branches keep their numbers) to their canonical
 * addresses; FALSE with MDL_ERROR_MODEL naming the first address outside every array (a run that
 * reads memory it did not allocate through mdl_algo_alloc_pages cannot be placed). */
gboolean mdl_placement_map (MdlPlacement *p, MdlCpuEvent *events, gsize n, GError **error);

#endif
