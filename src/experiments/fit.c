/* Linear least squares by Householder QR (Golub and Van Loan, "Matrix Computations", 5.3): the
 * design matrix is reduced to upper-triangular R by reflections that are also applied to y, and the
 * coefficients come from back substitution. QR rather than the normal equations because those
 * square the condition number, and our columns differ by orders of magnitude (an intercept of a few
 * ns per operation beside TC misses per operation near 1e-3). Columns are also scaled to unit
 * length first; a column whose remaining norm after the earlier reflections is below 1e-10 of its
 * own is linearly dependent on them, and the fit is refused. */
#include <models/error.h>

#include "experiments/fit.h"

#include <math.h>
#include <string.h>

#define DEPENDENT_TOLERANCE 1e-10

gboolean
mdl_fit_least_squares (const double *x, const double *y, const double *w, gsize n_rows,
                       guint n_cols, MdlFit *fit, GError **error)
{
  g_autofree double *a = NULL;  /* the weighted, scaled design matrix, column-major */
  g_autofree double *b = NULL;  /* the weighted observations, reflected along */
  double scale[MDL_FIT_MAX_COEF], coef[MDL_FIT_MAX_COEF];
  double wsum = 0, ymean = 0, tss = 0, rss = 0;

  g_return_val_if_fail (x != NULL && y != NULL && fit != NULL, FALSE);
  if (n_cols == 0 || n_cols > MDL_FIT_MAX_COEF || n_rows < n_cols)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "fit: %" G_GSIZE_FORMAT " points for %u "
                   "coefficients (need at least as many points, and 1..%d coefficients)", n_rows,
                   n_cols, MDL_FIT_MAX_COEF);
      return FALSE;
    }
  a = g_new (double, n_rows * n_cols);
  b = g_new (double, n_rows);
  for (gsize i = 0; i < n_rows; i++)
    {
      double wi = w ? w[i] : 1.0, sw;
      if (!isfinite (y[i]) || !isfinite (wi) || wi < 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "fit: point %" G_GSIZE_FORMAT " has a "
                       "non-finite value or a negative weight", i);
          return FALSE;
        }
      sw = sqrt (wi);
      b[i] = sw * y[i];
      for (guint j = 0; j < n_cols; j++)
        {
          if (!isfinite (x[i * n_cols + j]))
            {
              g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "fit: point %" G_GSIZE_FORMAT
                           ", column %u is not finite", i, j);
              return FALSE;
            }
          a[j * n_rows + i] = sw * x[i * n_cols + j];
        }
      wsum += wi;
      ymean += wi * y[i];
    }
  for (guint j = 0; j < n_cols; j++)
    {
      double norm = 0;
      for (gsize i = 0; i < n_rows; i++)
        norm += a[j * n_rows + i] * a[j * n_rows + i];
      norm = sqrt (norm);
      if (norm == 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "fit: column %u is all zero", j);
          return FALSE;
        }
      scale[j] = norm;
      for (gsize i = 0; i < n_rows; i++)
        a[j * n_rows + i] /= norm;
    }

  /* Householder: column k's part below the diagonal is folded into R[k][k]. */
  for (guint k = 0; k < n_cols; k++)
    {
      double *col = a + (gsize) k * n_rows;
      double norm = 0, alpha, vnorm2 = 0;
      for (gsize i = k; i < n_rows; i++)
        norm += col[i] * col[i];
      norm = sqrt (norm);
      /* Each column had length 1 before the reflections, so this is its share that the earlier
       * columns do not explain. */
      if (norm < DEPENDENT_TOLERANCE)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "fit: column %u is a linear combination "
                       "of the columns before it", k);
          return FALSE;
        }
      alpha = col[k] > 0 ? -norm : norm;
      col[k] -= alpha;   /* v = x - alpha e1, stored in place */
      for (gsize i = k; i < n_rows; i++)
        vnorm2 += col[i] * col[i];
      for (guint j = k + 1; j < n_cols; j++)
        {
          double *cj = a + (gsize) j * n_rows, dot = 0;
          for (gsize i = k; i < n_rows; i++)
            dot += col[i] * cj[i];
          dot = 2 * dot / vnorm2;
          for (gsize i = k; i < n_rows; i++)
            cj[i] -= dot * col[i];
        }
      {
        double dot = 0;
        for (gsize i = k; i < n_rows; i++)
          dot += col[i] * b[i];
        dot = 2 * dot / vnorm2;
        for (gsize i = k; i < n_rows; i++)
          b[i] -= dot * col[i];
      }
      col[k] = alpha;    /* R[k][k]; the rest of v is not needed any more */
    }
  for (guint k = n_cols; k-- > 0;)
    {
      double s = b[k];
      for (guint j = k + 1; j < n_cols; j++)
        s -= a[(gsize) j * n_rows + k] * coef[j];
      coef[k] = s / a[(gsize) k * n_rows + k];
    }

  ymean /= wsum > 0 ? wsum : 1;
  for (gsize i = 0; i < n_rows; i++)
    {
      double wi = w ? w[i] : 1.0, pred = 0;
      for (guint j = 0; j < n_cols; j++)
        pred += x[i * n_cols + j] * coef[j] / scale[j];
      rss += wi * (y[i] - pred) * (y[i] - pred);
      tss += wi * (y[i] - ymean) * (y[i] - ymean);
    }
  memset (fit, 0, sizeof *fit);
  fit->n_coef = n_cols;
  for (guint j = 0; j < n_cols; j++)
    fit->coef[j] = coef[j] / scale[j];
  fit->rss = rss;
  fit->r2 = tss > 0 ? 1 - rss / tss : (rss == 0 ? 1 : 0);
  fit->n_points = n_rows;
  return TRUE;
}

gboolean
mdl_fit_line (const double *x, const double *y, gsize n, double *slope, double *intercept,
              double *r2)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, s;
  if (n < 2)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      mx += x[i];
      my += y[i];
    }
  mx /= (double) n;
  my /= (double) n;
  for (gsize i = 0; i < n; i++)
    {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
      syy += (y[i] - my) * (y[i] - my);
    }
  if (sxx == 0)
    return FALSE;
  s = sxy / sxx;
  if (slope)
    *slope = s;
  if (intercept)
    *intercept = my - s * mx;
  if (r2)
    *r2 = syy > 0 ? s * sxy / syy : 1;
  return TRUE;
}
