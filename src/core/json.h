/* Private: JSON (and CSV) text pieces every writer of the library shares (reports, the CLI's lists, the
 * experiments), so that one escaping rule holds everywhere. */
#ifndef MDL_JSON_H
#define MDL_JSON_H

#include <glib.h>

/* Appends @s (NULL reads as "") to @out as a JSON string: quoted, with '"', '\' and the control
 * characters escaped. Bytes that are not UTF-8 (a file name on Linux can hold any byte but '/'
 * and NUL) are written as U+FFFD, so the document stays valid JSON. */
void mdl_json_string (GString *out, const char *s);

/* Appends @s (NULL: nothing) to @out as one CSV field: quoted (RFC 4180) when it holds a comma, a
 * quote or a line break. Defined in report.c, the first CSV writer. */
void mdl_csv_append_field (GString *out, const char *s);

#endif
