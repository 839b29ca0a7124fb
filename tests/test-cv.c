/* Tests of the cost models' validation (src/experiments/cv.c) and of the stream detector beside it
 * (src/experiments/streams.c): the bookkeeping of leave-one-algorithm-out and the size split on
 * synthetic data whose answers are known exactly, R^2 and relative errors on hand cases, and the
 * detector on a hand-made line sequence. */
#include "helpers.h"

#include "experiments/cv.h"
#include "experiments/streams.h"

#include <math.h>

enum { ROWS = 12, COLS = 2 };

/* Three algorithms of four rows. Groups 0 and 1 follow y = 2 x0 + 3 x1 exactly; group 2's times
 * are not numbers, so any fit that saw one of its rows would fail or give NaN. */
static void
synthetic (double *x, double *y, guint *group)
{
  for (guint r = 0; r < ROWS; r++)
    {
      x[r * COLS] = 1 + r;
      x[r * COLS + 1] = (double) ((r * 7) % 5) + 0.5;
      group[r] = r / 4;
      y[r] = group[r] == 2 ? NAN : 2 * x[r * COLS] + 3 * x[r * COLS + 1];
    }
}

/* Ensure the held-out algorithm is never fitted: group 2 (NaN times) is predicted exactly by the
 * fit on groups 0 and 1, while groups 0 and 1, whose training sets include group 2, get no
 * prediction (that fit fails on the NaN rows rather than skipping them silently). */
static void
test_leave_one_out_never_sees_the_held_out_algorithm (void **state)
{
  double x[ROWS * COLS], y[ROWS], pred[ROWS];
  guint group[ROWS];
  MdlCvData d = { .x = x, .y = y, .group = group, .n_rows = ROWS, .n_cols = COLS,
                  .n_groups = 3 };
  (void) state;
  synthetic (x, y, group);
  mdl_cv_leave_one_out (&d, pred);
  for (guint r = 0; r < ROWS; r++)
    if (group[r] == 2)
      assert_float_equal (pred[r], 2 * x[r * COLS] + 3 * x[r * COLS + 1], 1e-9);
    else
      assert_true (isnan (pred[r]));
}

/* Ensure the size split fits only the training rows and predicts only the others: rows 8..11
 * (group 2, NaN times) are in training nowhere, so training on rows 0..5 predicts rows 6..11
 * exactly and leaves rows 0..5 without a prediction. */
static void
test_split_predicts_only_the_rows_left_out (void **state)
{
  double x[ROWS * COLS], y[ROWS], pred[ROWS];
  guint group[ROWS];
  gboolean train[ROWS];
  const double weight[ROWS] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
  MdlCvData d = { .x = x, .y = y, .group = group, .n_rows = ROWS, .n_cols = COLS,
                  .n_groups = 3, .weight = weight };
  (void) state;
  synthetic (x, y, group);
  for (guint r = 0; r < ROWS; r++)
    train[r] = r < 6;
  mdl_cv_split (&d, train, pred);
  for (guint r = 0; r < ROWS; r++)
    if (train[r])
      assert_true (isnan (pred[r]));
    else
      assert_float_equal (pred[r], 2 * x[r * COLS] + 3 * x[r * COLS + 1], 1e-9);
}

/* Ensure a fit with fewer training rows than columns predicts nothing. */
static void
test_too_few_rows_predict_nothing (void **state)
{
  double x[ROWS * COLS], y[ROWS], pred[ROWS];
  guint group[ROWS];
  gboolean train[ROWS] = { TRUE };   /* one row for two columns */
  MdlCvData d = { .x = x, .y = y, .group = group, .n_rows = ROWS, .n_cols = COLS,
                  .n_groups = 3 };
  (void) state;
  synthetic (x, y, group);
  mdl_cv_split (&d, train, pred);
  for (guint r = 0; r < ROWS; r++)
    assert_true (isnan (pred[r]));
}

/* Ensure R^2 and the relative errors on hand cases. y = 1, 2, 3, 4 with predictions 1, 2, 4 and
 * none: the mean of the three is 2, TSS = 1 + 0 + 1 = 2, RSS = 1, R^2 = 0.5. Relative errors
 * 0, 0, 1/3: median 0, largest 1/3; of group 1 (rows 2 and 3, one predicted) both 1/3. */
static void
test_r2_and_relative_errors_by_hand (void **state)
{
  const double y[] = { 1, 2, 3, 4 }, pred[] = { 1, 2, 4, NAN }, x[4] = { 0 };
  const guint group[] = { 0, 0, 1, 1 };
  MdlCvData d = { .x = x, .y = y, .group = group, .n_rows = 4, .n_cols = 1, .n_groups = 2 };
  double median, max;
  (void) state;
  assert_float_equal (mdl_cv_r2 (y, pred, 4), 0.5, 1e-12);
  mdl_cv_rel_errors (&d, pred, G_MAXUINT, &median, &max);
  assert_float_equal (median, 0, 1e-12);
  assert_float_equal (max, 1.0 / 3, 1e-12);
  mdl_cv_rel_errors (&d, pred, 1, &median, &max);
  assert_float_equal (median, 1.0 / 3, 1e-12);
  assert_float_equal (max, 1.0 / 3, 1e-12);
  assert_true (isnan (mdl_cv_r2 (y, (const double[]) { NAN, NAN, 1, NAN }, 4)));
}

/* Ensure the stream detector on a hand sequence: 10 starts a stream (no), 11 and 12 continue it,
 * 500 starts another, 13 continues the first, 499 the second (descending), 12 the first again
 * (one back); then 16 far-apart lines fill every entry, so 14 starts anew. */
static void
test_streams_follow_neighbouring_lines (void **state)
{
  const guint64 lines[] = { 10, 11, 12, 500, 13, 499, 12 };
  const gboolean expect[] = { FALSE, TRUE, TRUE, FALSE, TRUE, TRUE, TRUE };
  MdlStreams s;
  (void) state;
  mdl_streams_init (&s);
  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    if (mdl_streams_follow (&s, lines[i]) != expect[i])
      fail_msg ("step %u (line %" G_GUINT64_FORMAT "): expected %d", i, lines[i], expect[i]);
  for (guint i = 0; i < MDL_STREAMS; i++)
    assert_false (mdl_streams_follow (&s, 100000 + 1000 * (guint64) i));
  assert_false (mdl_streams_follow (&s, 14));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_leave_one_out_never_sees_the_held_out_algorithm),
    cmocka_unit_test (test_split_predicts_only_the_rows_left_out),
    cmocka_unit_test (test_too_few_rows_predict_nothing),
    cmocka_unit_test (test_r2_and_relative_errors_by_hand),
    cmocka_unit_test (test_streams_follow_neighbouring_lines),
  };
  return cmocka_run_group_tests_name ("cv", tests, NULL, NULL);
}
