/* Large zeroed tables (zeroed.h). */
#include "models/vat/zeroed.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

/* From this size on a table is mapped: below it, clearing costs less than a system call. */
#define MAPPED_BYTES ((gsize) 1 << 20)

gpointer
mdl_vat_zeroed_new (gsize bytes)
{
#ifdef __linux__
  if (bytes >= MAPPED_BYTES)
    {
      void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
      if (p == MAP_FAILED)
        g_error ("vat: cannot map %zu bytes of tables", bytes);
      return p;
    }
#endif
  return g_malloc0 (bytes);
}

void
mdl_vat_zeroed_free (gpointer table, gsize bytes)
{
  if (table == NULL)
    return;
#ifdef __linux__
  if (bytes >= MAPPED_BYTES)
    {
      munmap (table, bytes);
      return;
    }
#endif
  g_free (table);
}
