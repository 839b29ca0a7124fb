/* The longest bank queue, counted bank by bank (tests/ref/bank-queue.h). */
#include "ref/bank-queue.h"

guint
ref_bank_queue (const guint64 *words, guint n, guint64 banks, gboolean distinct)
{
  guint worst = 0;
  for (guint64 bank = 0; bank < banks; bank++)
    {
      guint q = 0;
      for (guint i = 0; i < n; i++)
        {
          gboolean seen = FALSE;
          if (words[i] % banks != bank)
            continue;
          for (guint j = 0; j < i && distinct && !seen; j++)
            seen = words[j] == words[i];
          q += !seen;
        }
      worst = MAX (worst, q);
    }
  return worst;
}
