/* A slow, obviously correct reference for page reuse (stack) distances, for tests/test-footprint.c.
 *
 * It keeps Mattson's LRU stack as a plain array, most recently touched page first. The distance
 * of a touch is the position of its page in the stack (the number of distinct other pages touched
 * since its previous touch); the page then moves to the top. O(pages) per touch, on purpose: no
 * tree, no renumbering, nothing that could share a mistake with the engine. */
#ifndef TESTS_REF_REUSE_H
#define TESTS_REF_REUSE_H

#include <glib.h>

/* RefReuse: the LRU stack; create with ref_reuse_new(). */
typedef struct {
  GArray *stack; /* guint64 pages; index 0 is the most recent */
} RefReuse;

#define REF_REUSE_COLD ((gint64) -1)

RefReuse *ref_reuse_new (void);
void ref_reuse_free (RefReuse *r);

/* Touches @page and returns its stack distance, or REF_REUSE_COLD for a first touch. */
gint64 ref_reuse_touch (RefReuse *r, guint64 page);

/* Distinct pages touched so far. */
guint ref_reuse_pages (const RefReuse *r);

#endif
