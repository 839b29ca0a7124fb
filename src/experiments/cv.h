/* Private to the library: honest validation of a cost model (src/experiments/cv.c). A model is a
 * design matrix (one row per measured point, one column per count) fitted to measured times by
 * non-negative least squares; its predictions are judged on points its fit never saw: each
 * algorithm predicted by the fit on the others (leave one algorithm out), and the large sizes by
 * the fit on the small ones (a size split). Tests reach it through this header. */
#ifndef MDL_EXPERIMENTS_CV_H
#define MDL_EXPERIMENTS_CV_H

#include <glib.h>

/**
 * MdlCvData: the points of one model, borrowed.
 * @x: row-major @n_rows x @n_cols counts (per element).
 * @y: measured times (per element), positive.
 * @group: per row, its algorithm, 0..@n_groups-1.
 * @weight: (nullable) per row, the weight of its squared error; NULL for all 1.
 */
typedef struct {
  const double *x;
  const double *y;
  const guint *group;
  gsize n_rows;
  guint n_cols;
  guint n_groups;
  const double *weight;
} MdlCvData;

/* The NNLS fit of the rows whose @use is TRUE (all when @use is NULL) into @coef (@n_cols);
 * FALSE when fewer rows than columns are used. */
gboolean mdl_cv_fit (const MdlCvData *d, const gboolean *use, double *coef);

/* @coef applied to row @r. */
double mdl_cv_predict (const MdlCvData *d, const double *coef, gsize r);

/* Leave one algorithm out: @pred[r] is row r predicted by the fit on the rows of the other
 * algorithms (NaN when they have fewer rows than columns). */
void mdl_cv_leave_one_out (const MdlCvData *d, double *pred);

/* The size split: @pred[r] for the rows with @train[r] FALSE is their prediction by the fit on
 * the rows with @train[r] TRUE (NaN when those are too few); rows in training get NaN. */
void mdl_cv_split (const MdlCvData *d, const gboolean *train, double *pred);

/* 1 - RSS/TSS of @pred against @y over the rows where @pred is a number (TSS about their mean);
 * NaN when fewer than two such rows. */
double mdl_cv_r2 (const double *y, const double *pred, gsize n);

/* The median and the largest |pred - y| / y over the rows of @group (all groups when @group is
 * G_MAXUINT) where @pred is a number; NaN when none. */
void mdl_cv_rel_errors (const MdlCvData *d, const double *pred, guint group, double *median,
                        double *max);

#endif
