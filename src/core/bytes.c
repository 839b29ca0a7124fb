/* Sizes as text (core/bytes.h). */
#include "core/bytes.h"

char *
mdl_bytes_text (guint64 bytes)
{
  static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  guint u = 0;
  while (u + 1 < G_N_ELEMENTS (units) && bytes >> (10 * (u + 1)) != 0)
    u++;
  if (u == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", bytes, bytes == 1 ? "byte" : "bytes");
  if ((bytes & ((G_GUINT64_CONSTANT (1) << (10 * u)) - 1)) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", bytes >> (10 * u), units[u]);
  return g_strdup_printf ("%.1f %s", (double) bytes / (double) (G_GUINT64_CONSTANT (1) << (10 * u)),
                          units[u]);
}
