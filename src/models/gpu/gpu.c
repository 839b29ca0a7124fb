/* What the warp engines share that is not inline (gpu.h): the distinct values of a group's words,
 * and the report counters of coalesce and banks. */
#include "models/gpu/gpu.h"

#include <stdarg.h>
#include <stdlib.h>

static int
cmp_u64 (const void *x, const void *y)
{
  guint64 u = *(const guint64 *) x, v = *(const guint64 *) y;
  return u < v ? -1 : u > v;
}

guint
mdl_gpu_sort_unique (guint64 *v, guint n)
{
  guint u = n > 0, sorted = 1;
  /* A group's words are few (one or two per lane) and mostly in order already (in most kernels
   * lane order is address order): in order, no sort at all (a lane touching several words, as
   * agpu:w=8 makes it, gives more than 32 of them); up to 32 of them, insertion sort, linear on
   * sorted input. Over qsort alone on bench-gpu-engines' stream: kmodel 15 -> 27 M warp
   * instructions/s, agpu 9 -> 11.5, msimd 5.0 -> 5.5 (CPU time). */
  while (sorted < n && v[sorted - 1] <= v[sorted])
    sorted++;
  if (sorted < n && n <= 32)
    for (guint i = sorted; i < n; i++)
      {
        guint64 x = v[i];
        guint j = i;
        for (; j > 0 && v[j - 1] > x; j--)
          v[j] = v[j - 1];
        v[j] = x;
      }
  else if (sorted < n)
    qsort (v, n, sizeof v[0], cmp_u64);
  for (guint i = 1; i < n; i++)
    if (v[i] != v[u - 1])
      v[u++] = v[i];
  return u;
}

void
mdl_gpu_concat (char *out, gsize size, ...)
{
  va_list args;
  const char *piece;
  gsize len = 0;
  va_start (args, size);
  while ((piece = va_arg (args, const char *)) != NULL)
    {
      gsize n = MIN (strlen (piece), size - 1 - len);
      memcpy (out + len, piece, n);
      len += n;
    }
  va_end (args);
  out[len] = '\0';
}

void
mdl_gpu_report_add (MdlReport *out, const char *prefix, const char *key, const char *unit,
                    const char *what, const char *text, const char *metric, guint64 value)
{
  char name[64], desc[160];
  if (!mdl_report_keeps_names (out))
    {
      mdl_report_add_count (out, key, unit, NULL, NULL, value);
      return;
    }
  mdl_gpu_concat (name, sizeof name, prefix, "_", key, NULL);
  mdl_gpu_concat (desc, sizeof desc, what, ": ", text, NULL);
  mdl_report_add_count (out, name, unit, desc, metric, value);
}

void
mdl_gpu_atomic_chain_report (MdlReport *out, const GpuAtomicChain *c)
{
  mdl_report_add_count (out, "atomic_chain", "count",
                        "per launch, the atomic lane updates on its busiest global address, summed "
                        "over launches (they follow one another whatever warp issues them)", NULL,
                        c->chain + c->launch_max);
  mdl_report_add_count (out, "cas_lanes", "count", "global CAS lanes (attempts)", NULL,
                        c->cas_lanes);
  mdl_report_add_count (out, "cas_failed_lanes", "count",
                        "global CAS lanes whose compare failed (a retry loop tries again)", NULL,
                        c->cas_failed);
}

void
mdl_gpu_contention_report (MdlReport *out, const char *prefix, const char *what,
                           const GpuContention *c, const GpuAddrWarps *w)
{
  mdl_gpu_report_add (out, prefix, "same_addr_lanes", "count", what,
                      "per instruction, the most active lanes on one address (serialized updates), "
                      "summed", NULL, c->same_addr_lanes);
  mdl_gpu_report_add (out, prefix, "addr_conflicts", "count", what,
                      "per instruction, active lanes beyond one per distinct address, summed", NULL,
                      c->addr_conflicts);
  mdl_gpu_report_add (out, prefix, "same_addr_max", "count", what,
                      "the most active lanes on one address in any one instruction", NULL,
                      c->same_addr_max);
  mdl_gpu_report_add (out, prefix, "addr_warps_max", "count", what,
                      "the most warp instructions on one address in one launch", NULL,
                      w->max_warps);
}
