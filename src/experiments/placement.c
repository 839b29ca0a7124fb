/* Canonical addresses for an instrumented run's arrays (placement.h). Lookups try the array of
 * the previous access first: runs of accesses to one array are the common case, and a run has
 * only a few arrays to search otherwise. */
#include "experiments/placement.h"

#include <models/error.h>

/* Where the first array's copy begins: a multiple of 2^40, so that the nodes of a four-level
 * translation tree (spans up to 512 GiB), the sets of any cache and the pages of any TLB see the
 * arrays from the same offsets as long as they fit in the 2^40 bytes above it. */
#define CANONICAL_BASE (G_GUINT64_CONSTANT (1) << 40)

void
mdl_placement_init (MdlPlacement *p)
{
  p->arrays = g_array_new (FALSE, FALSE, sizeof (MdlPlacedArray));
  p->next = CANONICAL_BASE;
  p->last = 0;
}

void
mdl_placement_clear (MdlPlacement *p)
{
  g_clear_pointer (&p->arrays, g_array_unref);
}

void
mdl_placement_add (void *data, const void *start, gsize bytes, gsize align)
{
  MdlPlacement *p = data;
  MdlPlacedArray a = { .start = (guint64) (guintptr) start };
  a.end = a.start + bytes;
  align = MAX (align, 64);
  /* Freed arrays whose bytes the new one reuses are gone; the others keep their copies. */
  for (guint i = p->arrays->len; i-- > 0;)
    {
      const MdlPlacedArray *old = &g_array_index (p->arrays, MdlPlacedArray, i);
      if (old->start < a.end && a.start < old->end)
        g_array_remove_index (p->arrays, i);
    }
  a.canonical = (p->next + align - 1) / align * align;
  p->next = a.canonical + bytes;
  g_array_append_val (p->arrays, a);
  p->last = 0;
}

gboolean
mdl_placement_map (MdlPlacement *p, MdlCpuEvent *events, gsize n, GError **error)
{
  const MdlPlacedArray *arrays = (const MdlPlacedArray *) (void *) p->arrays->data;
  guint n_arrays = p->arrays->len, last = p->last;
  for (gsize i = 0; i < n; i++)
    {
      guint64 addr = events[i].addr;
      if (!mdl_cpu_is_access (events[i].kind))
        continue;
      if (last >= n_arrays || addr < arrays[last].start || addr >= arrays[last].end)
        {
          guint a = 0;
          while (a < n_arrays && (addr < arrays[a].start || addr >= arrays[a].end))
            a++;
          if (a == n_arrays)
            {
              g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "access to 0x%" G_GINT64_MODIFIER
                           "x lies outside the %u arrays the run allocated: its counts would "
                           "depend on where malloc put it", addr, n_arrays);
              return FALSE;
            }
          last = a;
        }
      events[i].addr = addr - arrays[last].start + arrays[last].canonical;
    }
  p->last = last;
  return TRUE;
}
