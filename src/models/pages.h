/* Private: a sparse array of fixed-size zeroed pages, for engines that keep a few bits or bytes per
 * word or cell of an address space they only know from the stream (agpu's touched and stored
 * words, msimd's cell states). A page is found by its number through a u64map, with the last page
 * found kept in front, so a run of accesses to one page costs a compare. Forgetting every page
 * (mdl_pages_recycle) is O(pages in use): they go back to a pool and are zeroed when handed out
 * again, so the memory held is that of the most pages in use at once. Pages are cut from slabs of
 * 2 MiB on transparent huge pages where the system has them, zeroed by the system when new: msimd
 * on reduce/tree --n 4M asks for 16 MiB of them, whose 4 KiB page faults and memset took twice as
 * long as its counting. */
#ifndef MDL_PAGES_H
#define MDL_PAGES_H

#include "models/u64map.h"

typedef struct {
  guint8 *last;        /* the page numbered last_no */
  guint64 last_no;     /* G_MAXUINT64: none */
  MdlU64Map index;     /* page number -> position in pool */
  GPtrArray *pool;     /* pages; the first index.len are in use */
  gsize page_bytes;
  GArray *slabs;       /* MdlPagesSlab: the memory the pages are cut from */
  gsize slab_used;     /* bytes of the last slab handed out */
} MdlPages;

typedef struct {
  guint8 *start;       /* 2 MiB aligned where mapped */
  void *map;           /* the mapping, or NULL: start is g_malloc'd */
  gsize map_bytes;
  gsize bytes;         /* usable from start */
} MdlPagesSlab;

void mdl_pages_init (MdlPages *p, gsize page_bytes);
/* Frees the pages; @p must be initialized again before use. Safe on a zeroed MdlPages. */
void mdl_pages_destroy (MdlPages *p);
/* Forgets every page. */
void mdl_pages_recycle (MdlPages *p);
/* Page @no, zeroed the first time (out of line: the path of mdl_pages_get that looks it up). */
guint8 *mdl_pages_fetch (MdlPages *p, guint64 no);

/* Page @no (@p->page_bytes bytes), zeroed when first asked for since the last recycle. */
static inline guint8 *
mdl_pages_get (MdlPages *p, guint64 no)
{
  return G_LIKELY (no == p->last_no) ? p->last : mdl_pages_fetch (p, no);
}

#endif
