/* Allocation of the CPU algorithms' arrays with a chosen page size (the `pages` parameter). The
 * VAT experiments need both sides of the huge-page comparison on any kernel setting: with
 * transparent huge pages in "always" mode, plain malloc memory may already be huge, so `4k` refuses
 * them explicitly (MADV_NOHUGEPAGE), and `huge` asks for them (MADV_HUGEPAGE) on a 2 MiB-aligned
 * block, before the first touch so that the faults can allocate huge pages. Whether the kernel
 * grants them is its decision, at each fault: a native `huge` array is therefore emptied and
 * touched once per 2 MiB right away, and the growth of AnonHugePages says how much of it the kernel
 * backed with huge pages (pages.h). This file is compiled once: it is not an algorithm. */
#include "algos/cpu/cpu-algo.h"
#include "algos/pages.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_BYTES ((gsize) 2 << 20)
#define SMALL_BYTES ((gsize) 4096)

enum { PAGES_DEFAULT, PAGES_4K, PAGES_HUGE };

static _Atomic guint64 huge_asked, huge_granted;

gint64
mdl_algo_anon_huge_bytes (void)
{
  g_autofree char *text = NULL;
  const char *line;
  if (!g_file_get_contents ("/proc/self/smaps_rollup", &text, NULL, NULL)
      || (line = strstr (text, "AnonHugePages:")) == NULL)
    return -1;
  return g_ascii_strtoll (line + strlen ("AnonHugePages:"), NULL, 10) * 1024;
}

void
mdl_algo_huge_tally (MdlHugeTally *out)
{
  out->asked_bytes = atomic_load (&huge_asked);
  out->granted_bytes = atomic_load (&huge_granted);
}

#ifdef MADV_DONTNEED
/* Counts what the kernel grants @p's @bytes (2 MiB-aligned, madvised): its pages are dropped
 * first (glibc may hand back a block an earlier repetition faulted in, whose pages would grow
 * nothing), then one byte per 2 MiB is touched, each fault deciding its 2 MiB. The block is fresh
 * from the allocator, so its contents are not the caller's yet. */
static void
count_huge_grant (void *p, gsize bytes)
{
  gint64 before, after;
  atomic_fetch_add (&huge_asked, bytes);
  if (madvise (p, bytes, MADV_DONTNEED) != 0 || (before = mdl_algo_anon_huge_bytes ()) < 0)
    return;
  for (gsize off = 0; off < bytes; off += HUGE_BYTES)
    ((volatile char *) p)[off] = 0;
  after = mdl_algo_anon_huge_bytes ();
  if (after > before)
    atomic_fetch_add (&huge_granted, MIN ((guint64) (after - before), bytes));
}
#endif

void
mdl_algo_size_error (guint64 n, gsize elem_bytes, const char *what, GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": cannot allocate the "
               "%s (%" G_GUINT64_FORMAT " elements of %" G_GSIZE_FORMAT " bytes)%s", n, what, n,
               elem_bytes, n == 0 ? "; n must be at least 1" : "");
}

void *
mdl_algo_alloc_pages (MdlRecorder *rec, const MdlParams *params, guint64 n, gsize elem_bytes,
                      const char *what, GError **error)
{
  guint pages = params ? mdl_params_choice (params, "pages") : PAGES_DEFAULT;
  gsize bytes, align = pages == PAGES_HUGE ? HUGE_BYTES : SMALL_BYTES;
  void *p = NULL;

  if (pages == PAGES_DEFAULT)
    return mdl_algo_alloc (rec, n, elem_bytes, what, error);
  if (n == 0 || n > G_MAXSIZE / elem_bytes || !g_size_checked_mul (&bytes, (gsize) n, elem_bytes)
      || bytes > G_MAXSIZE - align)
    return mdl_algo_alloc (rec, n, elem_bytes, what, error);   /* the same message for a bad size */
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
  if (rec)
    mdl_recorder_map (rec, p, bytes);
#ifdef MADV_DONTNEED
  else if (pages == PAGES_HUGE)
    count_huge_grant (p, bytes);
#endif
  return p;
#else
  (void) bytes, (void) p;
  g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "pages=%s: this system has no "
               "madvise(MADV_HUGEPAGE)", pages == PAGES_HUGE ? "huge" : "4k");
  return NULL;
#endif
}
