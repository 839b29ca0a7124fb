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

/* Fills @fit with @coef and its (weighted) RSS and R^2. */
static void
fit_finish (const double *x, const double *y, const double *w, gsize n_rows, guint n_cols,
            const double *coef, MdlFit *fit)
{
  double wsum = 0, ymean = 0, rss = 0, tss = 0;
  for (gsize i = 0; i < n_rows; i++)
    {
      wsum += w ? w[i] : 1.0;
      ymean += (w ? w[i] : 1.0) * y[i];
    }
  ymean /= wsum > 0 ? wsum : 1;
  for (gsize i = 0; i < n_rows; i++)
    {
      double wi = w ? w[i] : 1.0, pred = 0;
      for (guint j = 0; j < n_cols; j++)
        pred += x[i * n_cols + j] * coef[j];
      rss += wi * (y[i] - pred) * (y[i] - pred);
      tss += wi * (y[i] - ymean) * (y[i] - ymean);
    }
  memset (fit, 0, sizeof *fit);
  fit->n_coef = n_cols;
  for (guint j = 0; j < n_cols; j++)
    fit->coef[j] = coef[j];
  fit->rss = rss;
  fit->r2 = tss > 0 ? 1 - rss / tss : (rss == 0 ? 1 : 0);
  fit->n_points = n_rows;
}

gboolean
mdl_fit_least_squares (const double *x, const double *y, const double *w, gsize n_rows,
                       guint n_cols, MdlFit *fit, GError **error)
{
  g_autofree double *a = NULL;  /* the weighted, scaled design matrix, column-major */
  g_autofree double *b = NULL;  /* the weighted observations, reflected along */
  double scale[MDL_FIT_MAX_COEF], coef[MDL_FIT_MAX_COEF];

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

  for (guint j = 0; j < n_cols; j++)
    coef[j] /= scale[j];
  fit_finish (x, y, w, n_rows, n_cols, coef, fit);
  return TRUE;
}

/* Non-negative least squares, Lawson and Hanson, "Solving Least Squares Problems" (1974), ch. 23:
 * the passive set P holds the columns free to be positive; the column of the largest gradient of
 * the weighted residual joins P, P's unconstrained fit is taken as far as it stays non-negative,
 * and the columns it would drive below zero leave P, until no column outside P could lower the
 * residual. Gradients are compared on unit-length columns, so the choice does not depend on the
 * columns' units. */
gboolean
mdl_fit_nnls (const double *x, const double *y, const double *w, gsize n_rows, guint n_cols,
              MdlFit *fit, GError **error)
{
  g_autofree double *sub = NULL;
  double coef[MDL_FIT_MAX_COEF] = { 0 }, norm[MDL_FIT_MAX_COEF], ynorm = 0;
  gboolean passive[MDL_FIT_MAX_COEF] = { FALSE }, excluded[MDL_FIT_MAX_COEF] = { FALSE };
  MdlFit probe;

  g_return_val_if_fail (x != NULL && y != NULL && fit != NULL, FALSE);
  /* The unconstrained fit of the first column checks the sizes and the values for us. */
  if (n_cols == 0 || n_cols > MDL_FIT_MAX_COEF || n_rows < n_cols)
    return mdl_fit_least_squares (x, y, w, n_rows, n_cols, fit, error);
  for (gsize i = 0; i < n_rows; i++)
    {
      double wi = w ? w[i] : 1.0;
      if (!isfinite (y[i]) || !isfinite (wi) || wi < 0)
        return mdl_fit_least_squares (x, y, w, n_rows, n_cols, fit, error);
      ynorm += wi * y[i] * y[i];
      for (guint j = 0; j < n_cols; j++)
        if (!isfinite (x[i * n_cols + j]))
          return mdl_fit_least_squares (x, y, w, n_rows, n_cols, fit, error);
    }
  ynorm = sqrt (ynorm);
  for (guint j = 0; j < n_cols; j++)
    {
      norm[j] = 0;
      for (gsize i = 0; i < n_rows; i++)
        norm[j] += (w ? w[i] : 1.0) * x[i * n_cols + j] * x[i * n_cols + j];
      norm[j] = sqrt (norm[j]);
      excluded[j] = norm[j] == 0;   /* an all-zero column cannot lower the residual */
    }
  sub = g_new (double, n_rows * n_cols);
  for (guint iter = 0; iter < 3 * n_cols + 3; iter++)
    {
      double best = 0;
      guint enter = n_cols, n_passive = 0, cols[MDL_FIT_MAX_COEF];
      for (guint j = 0; j < n_cols; j++)
        if (!passive[j] && !excluded[j])
          {
            double g = 0;
            for (gsize i = 0; i < n_rows; i++)
              {
                double r = y[i];
                for (guint k = 0; k < n_cols; k++)
                  r -= x[i * n_cols + k] * coef[k];
                g += (w ? w[i] : 1.0) * x[i * n_cols + j] * r;
              }
            g /= norm[j];
            if (g > best)
              {
                best = g;
                enter = j;
              }
          }
      /* Why 1e-10: below that share of |y| the gain is rounding, and taking it could cycle. */
      if (enter == n_cols || best <= 1e-10 * ynorm)
        break;
      passive[enter] = TRUE;
      for (;;)
        {
          double alpha = 1;
          guint leave = n_cols;
          n_passive = 0;
          for (guint j = 0; j < n_cols; j++)
            if (passive[j])
              cols[n_passive++] = j;
          for (gsize i = 0; i < n_rows; i++)
            for (guint p = 0; p < n_passive; p++)
              sub[i * n_passive + p] = x[i * n_cols + cols[p]];
          if (!mdl_fit_least_squares (sub, y, w, n_rows, n_passive, &probe, NULL))
            {
              /* Dependent on the columns kept: it can add nothing they do not. */
              passive[enter] = FALSE;
              excluded[enter] = TRUE;
              break;
            }
          for (guint p = 0; p < n_passive; p++)
            if (probe.coef[p] <= 0 && coef[cols[p]] - probe.coef[p] > 0
                && coef[cols[p]] / (coef[cols[p]] - probe.coef[p]) < alpha)
              {
                alpha = coef[cols[p]] / (coef[cols[p]] - probe.coef[p]);
                leave = cols[p];
              }
          for (guint p = 0; p < n_passive; p++)
            coef[cols[p]] += alpha * (probe.coef[p] - coef[cols[p]]);
          if (alpha >= 1)
            break;
          /* The step stops where column @leave reaches zero; rounding can leave it a hair above,
           * and it must leave P, or the same step is taken again forever. */
          coef[leave] = 0;
          for (guint p = 0; p < n_passive; p++)
            if (coef[cols[p]] <= 0)
              {
                coef[cols[p]] = 0;
                passive[cols[p]] = FALSE;
              }
        }
    }
  fit_finish (x, y, w, n_rows, n_cols, coef, fit);
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
