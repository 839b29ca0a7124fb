/* Private: the shortest text that reads back as the same double, locale-independent. Used for
 * normalized specs and for JSON/CSV numbers, so that 5.3e-05 is not printed as
 * 5.3000000000000001e-05 and a spec prints as it was written. */
#ifndef MDL_DTOA_H
#define MDL_DTOA_H

#include <glib.h>

/* Writes @v into @buf (at least G_ASCII_DTOSTR_BUF_SIZE bytes) and returns @buf. @v must be finite. */
char *mdl_dtoa_shortest (double v, char *buf);

#endif
