/* Private: sizes in bytes as people read them, for messages and notes ("64 KiB", "6.4 MiB"). */
#ifndef MDL_BYTES_H
#define MDL_BYTES_H

#include <glib.h>

/* @bytes in the largest binary unit (bytes, KiB, MiB, ..., EiB) that keeps the number at least 1,
 * with one decimal unless it is whole: 65536 is "64 KiB", 100000 "97.7 KiB", 1000 "1000 bytes".
 * Never "0 MiB" for a size that is not 0. A plain space separates number and unit (GLib's
 * g_format_size puts U+00A0 there). (transfer full) */
char *mdl_bytes_text (guint64 bytes);

#endif
