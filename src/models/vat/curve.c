/* What the two one-pass curves share (VatCurveBase in curve.h). */
#include "models/vat/curve.h"

#include <string.h>

void
mdl_vat_curve_base_init (VatCurveBase *b, guint32 wmax)
{
  b->wmax = wmax;
  b->hist = g_new0 (guint64, wmax);
  mdl_vat_index_init (&b->entries, wmax);
  b->beyond = 0;
}

void
mdl_vat_curve_base_clear (VatCurveBase *b)
{
  mdl_vat_index_clear (&b->entries);
  memset (b->hist, 0, b->wmax * sizeof *b->hist);
  b->beyond = 0;
}

void
mdl_vat_curve_base_free (VatCurveBase *b)
{
  mdl_vat_index_free (&b->entries);
  g_free (b->hist);
}

void
mdl_vat_curve_base_misses (const VatCurveBase *b, guint64 *out)
{
  guint64 sum = b->beyond;
  out[b->wmax] = sum;
  for (guint32 w = b->wmax; w-- > 0;)
    {
      sum += b->hist[w];
      out[w] = sum;
    }
}
