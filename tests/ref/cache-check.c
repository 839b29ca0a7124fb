/* tests/ref/cache-check.h: the cache engine's report against the slow reference. */
#include "helpers.h"
#include "cache-check.h"

void
ref_cache_record (RefCache *ref, const MdlCpuEvent *x)
{
  gboolean fetch = (x->flags & MDL_CPU_FLAG_FETCH) != 0;
  if (!mdl_cpu_is_access (x->kind))
    return;
  ref_cache_access (ref, x->kind, fetch,
                    fetch ? 0 : x->flags & (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE), x->addr,
                    x->size);
}

void
ref_cache_check_level (MdlEngine *e, const RefCache *ref, guint i, const char *prefix,
                       const char *what)
{
  static const char *const names[] = { "read_refs", "write_refs", "fetch_refs", "read_misses",
                                       "write_misses", "fetch_misses", "evictions", "compulsory",
                                       "capacity", "conflict", "back_invalidations",
                                       "dependent_misses", "chase_misses" };
  const RefLevelCounts *c = ref_cache_level (ref, i);
  guint64 want[] = { c->refs[0], c->refs[1], c->refs[2], c->misses[0], c->misses[1], c->misses[2],
                     c->evictions, c->compulsory, c->capacity, c->conflict,
                     c->back_invalidations, c->dependent_misses, c->chase_misses };
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    {
      g_autofree char *key = g_strconcat (prefix, names[k], NULL);
      const MdlCounter *got = mdl_report_lookup (r, key);
      if (got == NULL)
        {
          if (want[k] != 0)
            fail_msg ("%s: no counter %s (the reference counts %" G_GUINT64_FORMAT ")", what, key,
                      want[k]);
          continue;
        }
      if (got->count != want[k])
        fail_msg ("%s: %s: engine %" G_GUINT64_FORMAT ", reference %" G_GUINT64_FORMAT, what, key,
                  got->count, want[k]);
    }
}
