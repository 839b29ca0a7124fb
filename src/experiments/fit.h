/* Private to the library: linear least squares for the experiments (src/experiments/fit.c), used to
 * fit the per-operation cost and tau of the VAT model to measured times, slopes of normalized
 * time against log2 n, and the GPU experiment's non-negative cost models. Tests reach it through
 * this header. */
#ifndef MDL_EXPERIMENTS_FIT_H
#define MDL_EXPERIMENTS_FIT_H

#include <glib.h>

/* The most coefficients a fit may have (one intercept per algorithm plus a few shared terms). */
#define MDL_FIT_MAX_COEF 40

/**
 * MdlFit: the result of a least-squares fit.
 * @n_coef: number of coefficients (columns of the design matrix).
 * @coef: the coefficients, in column order.
 * @r2: the coefficient of determination, 1 - RSS/TSS, TSS taken about the (weighted) mean of y;
 *   1 is a perfect fit, 0 no better than the mean, negative worse.
 * @rss: the (weighted) residual sum of squares.
 * @n_points: number of rows fitted.
 */
typedef struct {
  guint n_coef;
  double coef[MDL_FIT_MAX_COEF];
  double r2;
  double rss;
  gsize n_points;
} MdlFit;

/**
 * mdl_fit_least_squares: minimizes sum_i w_i (y_i - sum_j x_ij c_j)^2 by Householder QR on the
 * weighted design matrix, its columns first scaled to unit length (which keeps columns of very
 * different magnitudes, ns per operation beside misses per operation, well conditioned).
 * @x: the design matrix, row-major, @n_rows x @n_cols.
 * @y: the observations, @n_rows.
 * @w: (nullable) non-negative weights, @n_rows; NULL for all 1.
 * @n_rows: at least @n_cols.
 * @n_cols: 1..MDL_FIT_MAX_COEF.
 * @fit: (out) the coefficients and R^2.
 * @error: MDL_ERROR_PARAM when there are fewer rows than columns, a value is not finite, or the
 *   columns are linearly dependent (naming the first dependent column).
 * Returns: FALSE on error (@fit is then untouched). Cost: O(n_rows n_cols^2).
 */
gboolean mdl_fit_least_squares (const double *x, const double *y, const double *w, gsize n_rows,
                                guint n_cols, MdlFit *fit, GError **error);

/**
 * mdl_fit_nnls: as mdl_fit_least_squares(), with every coefficient >= 0 (Lawson and Hanson's
 * active-set method): a cost model's terms (time per launch, per sector, per instruction) cannot
 * be negative, and an unconstrained fit happily trades one correlated term against another.
 * Columns that the constraint drops, and columns linearly dependent on those kept, get 0.
 * @error: MDL_ERROR_PARAM when there are fewer rows than columns or a value is not finite.
 * Returns: FALSE on error (@fit is then untouched). Cost: O(n_cols) least-squares fits.
 */
gboolean mdl_fit_nnls (const double *x, const double *y, const double *w, gsize n_rows,
                       guint n_cols, MdlFit *fit, GError **error);

/**
 * mdl_fit_line: the ordinary least-squares line y = intercept + slope x.
 * @x, @y: @n points; at least two distinct x.
 * @slope, @intercept, @r2: (out) (nullable).
 * Returns: FALSE when the line is undefined (fewer than two distinct x).
 */
gboolean mdl_fit_line (const double *x, const double *y, gsize n, double *slope, double *intercept,
                       double *r2);

#endif
