/* Allocation of the CPU algorithms' arrays with a chosen page size (the `pages` parameter). The
 * VAT experiments need both sides of the huge-page comparison on any kernel setting: with
 * transparent huge pages in "always" mode, plain malloc memory may already be huge, so `4k` refuses
 * them explicitly (MADV_NOHUGEPAGE), and `huge` asks for them (MADV_HUGEPAGE) on a 2 MiB-aligned
 * block, before the first touch so that the faults can allocate huge pages. Whether the kernel
 * grants them is its decision; the experiment checks /proc/self/smaps (docs/experiments/vat.md).
 * This file is compiled once: it is not an algorithm. */
#include "algos/alloc-watch.h"
#include "algos/cpu/cpu-algo.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_BYTES ((gsize) 2 << 20)
#define SMALL_BYTES ((gsize) 4096)

enum { PAGES_DEFAULT, PAGES_4K, PAGES_HUGE };

/* Per thread: one experiment's worker must not see another's arrays. */
static _Thread_local MdlAllocWatchFunc watch_func;
static _Thread_local void *watch_data;

void
mdl_algo_watch_allocations (MdlAllocWatchFunc func, void *data)
{
  watch_func = func;
  watch_data = data;
}

static void *
watched (void *p, gsize bytes, gsize align)
{
  if (p && watch_func)
    watch_func (watch_data, p, bytes, align);
  return p;
}

void
mdl_algo_size_error (guint64 n, gsize elem_bytes, const char *what, GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": cannot allocate the "
               "%s (%" G_GUINT64_FORMAT " elements of %" G_GSIZE_FORMAT " bytes)%s", n, what, n,
               elem_bytes, n == 0 ? "; n must be at least 1" : "");
}

void *
mdl_algo_alloc_pages (const MdlParams *params, guint64 n, gsize elem_bytes, const char *what,
                      GError **error)
{
  guint pages = params ? mdl_params_choice (params, "pages") : PAGES_DEFAULT;
  gsize bytes, align = pages == PAGES_HUGE ? HUGE_BYTES : SMALL_BYTES;
  void *p = NULL;

  if (pages == PAGES_DEFAULT)
    return watched (mdl_algo_alloc (n, elem_bytes, what, error), (gsize) n * elem_bytes, 16);
  if (n == 0 || n > G_MAXSIZE / elem_bytes || !g_size_checked_mul (&bytes, (gsize) n, elem_bytes)
      || bytes > G_MAXSIZE - align)
    return mdl_algo_alloc (n, elem_bytes, what, error);   /* the same message for a bad size */
  bytes = (bytes + align - 1) & ~(align - 1);
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  if (posix_memalign (&p, align, bytes) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": cannot allocate "
                   "the %s (%" G_GSIZE_FORMAT " bytes aligned to %" G_GSIZE_FORMAT ")", n, what,
                   bytes, align);
      return NULL;
    }
  /* madvise fails with EINVAL when the kernel has no transparent huge pages at all; the 4k side
   * has then nothing to refuse, the huge side cannot be had. */
  if (madvise (p, bytes, pages == PAGES_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0
      && pages == PAGES_HUGE)
    {
      free (p);
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "pages=huge: madvise(MADV_HUGEPAGE) "
                   "failed for the %s; this kernel has no transparent huge pages", what);
      return NULL;
    }
  return watched (p, bytes, align);
#else
  (void) bytes, (void) p;
  g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "pages=%s: this system has no "
               "madvise(MADV_HUGEPAGE)", pages == PAGES_HUGE ? "huge" : "4k");
  return NULL;
#endif
}
