/* The memory budget of engines' tables (core/budget.h). The budget is a stated limit rather than
 * "whatever malloc gives": with overcommit, malloc of 200 GiB may succeed and the run then dies
 * (or swaps for minutes) when the tables are cleared. The default, min(4 GiB, RAM/2), holds the
 * tags of a 32 GiB cache of 64-byte lines, far beyond any real cache; MODELS_MEMORY_BUDGET raises
 * or lowers it. */
#include "core/budget.h"
#include "core/bytes.h"

#include <models/error.h>
#include <models/params.h>

#include <unistd.h>

gboolean
mdl_budget_bytes (guint64 *bytes, GError **error)
{
  const char *env = g_getenv ("MODELS_MEMORY_BUDGET");
  long pages = sysconf (_SC_PHYS_PAGES), page_bytes = sysconf (_SC_PAGESIZE);
  if (env && *env)
    {
      if (!mdl_params_parse_uint ("MODELS_MEMORY_BUDGET", "budget", env, 1, 0, 0, bytes, error))
        return FALSE;
      return TRUE;
    }
  *bytes = MDL_BUDGET_DEFAULT_MAX;
  if (pages > 0 && page_bytes > 0)
    *bytes = MIN (*bytes, (guint64) pages * (guint64) page_bytes / 2);
  return TRUE;
}

gboolean
mdl_budget_take (const char *owner, const char *what, guint64 bytes, guint64 *used,
                 GError **error)
{
  guint64 budget;
  const char *env = g_getenv ("MODELS_MEMORY_BUDGET");
  g_autofree char *need = NULL, *have = NULL, *taken = NULL;
  if (!mdl_budget_bytes (&budget, error))
    return FALSE;
  if (bytes <= budget && *used <= budget - bytes)
    {
      *used += bytes;
      return TRUE;
    }
  need = mdl_bytes_text (bytes);
  have = mdl_bytes_text (budget);
  taken = *used ? g_strdup_printf (" plus the %" G_GUINT64_FORMAT " bytes already taken", *used)
                : g_strdup ("");
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: %s needs %" G_GUINT64_FORMAT " bytes (%s) "
               "of tables%s, over the memory budget of %" G_GUINT64_FORMAT " bytes (%s, %s); "
               "choose smaller tables (for a cache, a smaller size or larger lines), or raise "
               "MODELS_MEMORY_BUDGET", owner, what,
               bytes, need, taken, budget, have,
               env && *env ? "set by MODELS_MEMORY_BUDGET"
                           : "the smaller of 4 GiB and half this machine's memory");
  return FALSE;
}

gpointer
mdl_budget_try_alloc (const char *owner, const char *what, guint64 n, guint64 size,
                      GError **error)
{
  gpointer p = NULL;
  if (n <= G_MAXSIZE && size <= G_MAXSIZE)
    p = g_try_malloc_n ((gsize) MAX (n, 1), (gsize) MAX (size, 1));
  if (p == NULL)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: cannot allocate %s (%" G_GUINT64_FORMAT
                 " x %" G_GUINT64_FORMAT " bytes)", owner, what, n, size);
  return p;
}
