/* Private to src/algos and the experiments: a watch on the arrays the CPU algorithms allocate
 * (mdl_algo_alloc_pages, src/algos/pages.c) on the calling thread. The VAT experiment runs its
 * instrumented passes on several threads at once, where malloc places the same arrays elsewhere
 * on every thread and after every history; it learns each array's place from this watch and
 * hands the engines canonical addresses instead (src/experiments/placement.h). */
#ifndef MDL_ALGOS_ALLOC_WATCH_H
#define MDL_ALGOS_ALLOC_WATCH_H

#include <glib.h>

/* Called after each array allocated on the watched thread: its first byte, its size and the
 * alignment asked for (4096, or 2 MiB for pages=huge; 16 for pages=default). */
typedef void (*MdlAllocWatchFunc) (void *data, const void *start, gsize bytes, gsize align);

/* Watches this thread's allocations with @func (NULL: stop watching). One watch per thread; the
 * caller clears it before @data goes away. */
void mdl_algo_watch_allocations (MdlAllocWatchFunc func, void *data);

#endif
