/* Private: JSON text pieces every writer of the library shares (reports, the CLI's lists, the
 * experiments), so that one escaping rule holds everywhere. */
#ifndef MDL_JSON_H
#define MDL_JSON_H

#include <glib.h>

/* Appends @s (NULL reads as "") to @out as a JSON string: quoted, with '"', '\' and the control
 * characters escaped. Other bytes pass through: the library's strings are UTF-8 or ASCII. */
void mdl_json_string (GString *out, const char *s);

#endif
