/* Private: the memory budget of an engine's tables. An engine whose parameters ask for tables
 * larger than the budget is refused when it is created, with the sizes in the message, instead of
 * aborting inside g_malloc or touching tens of GiB before the first event (cache:size=64G). */
#ifndef MDL_BUDGET_H
#define MDL_BUDGET_H

#include <glib.h>

/* The budget of one engine's tables in bytes: MODELS_MEMORY_BUDGET if set (a size such as 16G),
 * else the smaller of 4 GiB and half of this machine's physical memory. */
#define MDL_BUDGET_DEFAULT_MAX (G_GUINT64_CONSTANT (4) << 30)
gboolean mdl_budget_bytes (guint64 *bytes, GError **error);

/* Checks that @used + @bytes fits the budget and adds @bytes to @used. On failure, the error
 * (MDL_ERROR_PARAM) reads "@owner: @what needs N bytes (X GiB) of tables, which with the M bytes
 * already taken is over the memory budget of B bytes (...)". */
gboolean mdl_budget_take (const char *owner, const char *what, guint64 bytes, guint64 *used,
                          GError **error);

/* g_try_malloc_n, with MDL_ERROR_PARAM naming @owner, @what and the size when it fails. */
gpointer mdl_budget_try_alloc (const char *owner, const char *what, guint64 n, guint64 size,
                               GError **error);

#endif
