/* Shortest round-trip formatting of doubles (src/core/dtoa.h). Every precision from 1 to 17
 * significant digits is tried and the shortest text that parses back exactly wins: the fewest
 * digits is not always the shortest text (1000 is "1e+03" with one digit, "1000" with four). */
#include "core/dtoa.h"

#include <string.h>

char *
mdl_dtoa_shortest (double v, char *buf)
{
  gsize best = G_MAXSIZE;
  for (int prec = 1; prec <= 17; prec++)
    {
      char fmt[8], candidate[G_ASCII_DTOSTR_BUF_SIZE];
      g_snprintf (fmt, sizeof fmt, "%%.%dg", prec);
      g_ascii_formatd (candidate, sizeof candidate, fmt, v);
      if (g_ascii_strtod (candidate, NULL) == v && strlen (candidate) < best)
        {
          best = strlen (candidate);
          memcpy (buf, candidate, best + 1);
        }
    }
  return buf;
}
