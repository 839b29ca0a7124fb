/* Cross-validation of the experiments' cost models (cv.h). Every fit is non-negative least squares
 * (fit.c's Lawson-Hanson solver): a count's cost cannot be negative, and an unconstrained fit trades
 * correlated counts against each other. The held-out rows are never handed to the solver: the
 * fits see a copy of the training rows only. */
#include "experiments/cv.h"
#include "experiments/fit.h"

#include <math.h>
#include <string.h>

gboolean
mdl_cv_fit (const MdlCvData *d, const gboolean *use, double *coef)
{
  g_autofree double *x = g_new (double, d->n_rows * d->n_cols);
  g_autofree double *y = g_new (double, d->n_rows);
  g_autofree double *w = g_new (double, d->n_rows);
  gsize n = 0;
  MdlFit fit;
  for (gsize r = 0; r < d->n_rows; r++)
    if (use == NULL || use[r])
      {
        memcpy (x + n * d->n_cols, d->x + r * d->n_cols, d->n_cols * sizeof (double));
        y[n] = d->y[r];
        w[n] = d->weight ? d->weight[r] : 1;
        n++;
      }
  if (n < d->n_cols || !mdl_fit_nnls (x, y, w, n, d->n_cols, &fit, NULL))
    return FALSE;
  memcpy (coef, fit.coef, d->n_cols * sizeof (double));
  return TRUE;
}

double
mdl_cv_predict (const MdlCvData *d, const double *coef, gsize r)
{
  double p = 0;
  for (guint j = 0; j < d->n_cols; j++)
    p += coef[j] * d->x[r * d->n_cols + j];
  return p;
}

void
mdl_cv_leave_one_out (const MdlCvData *d, double *pred)
{
  g_autofree gboolean *use = g_new (gboolean, MAX (d->n_rows, 1));
  double coef[MDL_FIT_MAX_COEF];
  for (gsize r = 0; r < d->n_rows; r++)
    pred[r] = NAN;
  for (guint g = 0; g < d->n_groups; g++)
    {
      for (gsize r = 0; r < d->n_rows; r++)
        use[r] = d->group[r] != g;
      if (!mdl_cv_fit (d, use, coef))
        continue;
      for (gsize r = 0; r < d->n_rows; r++)
        if (!use[r])
          pred[r] = mdl_cv_predict (d, coef, r);
    }
}

void
mdl_cv_split (const MdlCvData *d, const gboolean *train, double *pred)
{
  double coef[MDL_FIT_MAX_COEF];
  gboolean ok = mdl_cv_fit (d, train, coef);
  for (gsize r = 0; r < d->n_rows; r++)
    pred[r] = ok && !train[r] ? mdl_cv_predict (d, coef, r) : NAN;
}

double
mdl_cv_r2 (const double *y, const double *pred, gsize n)
{
  double mean = 0, rss = 0, tss = 0;
  gsize k = 0;
  for (gsize r = 0; r < n; r++)
    if (!isnan (pred[r]))
      mean += y[r], k++;
  if (k < 2)
    return NAN;
  mean /= (double) k;
  for (gsize r = 0; r < n; r++)
    if (!isnan (pred[r]))
      {
        rss += (y[r] - pred[r]) * (y[r] - pred[r]);
        tss += (y[r] - mean) * (y[r] - mean);
      }
  return tss > 0 ? 1 - rss / tss : NAN;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

void
mdl_cv_rel_errors (const MdlCvData *d, const double *pred, guint group, double *median,
                   double *max)
{
  g_autoptr (GArray) errs = g_array_new (FALSE, FALSE, sizeof (double));
  for (gsize r = 0; r < d->n_rows; r++)
    if ((group == G_MAXUINT || d->group[r] == group) && !isnan (pred[r]))
      {
        double e = fabs (pred[r] - d->y[r]) / d->y[r];
        g_array_append_val (errs, e);
      }
  *median = *max = NAN;
  if (errs->len == 0)
    return;
  g_array_sort (errs, cmp_double);
  *max = g_array_index (errs, double, errs->len - 1);
  *median = errs->len % 2 ? g_array_index (errs, double, errs->len / 2)
                          : (g_array_index (errs, double, errs->len / 2 - 1)
                             + g_array_index (errs, double, errs->len / 2)) / 2;
}
