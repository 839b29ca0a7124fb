/* Tests of the GPU comparison (include/models/experiment.h, src/experiments/gpu.c) on a measured
 * directory written by hand (tests/data/gpu-measured): two cases, the first profiled over two
 * launches, a baseline, and reduce/cascade, whose two launches are two kernels. The predictions
 * are derived here from the kernel: gpu/global-stride with 4-byte loads at stride 1 runs n = 1024
 * threads, 32 warps of one load request each, 128 bytes = 4 sectors per request, and 15 warp
 * instructions per warp (the SASS count in src/algos/simt/micro.c). */
#include "helpers.h"

#include <math.h>
#include <string.h>

#define DIR "tests/data/gpu-measured"

/* The row of case @i whose metric is @metric. */
static const MdlGpuRow *
row_of (const MdlGpuComparison *cmp, guint i, const char *metric)
{
  const MdlGpuCase *c = mdl_gpu_comparison_case (cmp, i);
  for (guint k = 0; k < c->n_rows; k++)
    if (strcmp (mdl_gpu_comparison_row (cmp, i, k)->metric, metric) == 0)
      return mdl_gpu_comparison_row (cmp, i, k);
  fail_msg ("%s: no row for %s", c->spec, metric);
  return NULL;
}

/* Ensure counts of a case's launches are added ("1,000" read as ncu prints it), a ratio of several
 * launches has no measured value, and the verdicts follow. */
static void
test_launches_are_summed (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = mdl_gpu_compare (DIR, "h100", NULL, &error);
  const MdlGpuRow *r;
  (void) state;
  assert_non_null (cmp);
  assert_int_equal (mdl_gpu_comparison_n_cases (cmp), 4);
  r = row_of (cmp, 0, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  assert_true (r->predicted == 32 && r->have_measured && r->measured == 32);
  assert_int_equal (r->verdict, MDL_GPU_MATCH);
  r = row_of (cmp, 0, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  assert_true (r->predicted == 128 && r->measured == 128);
  assert_int_equal (r->verdict, MDL_GPU_MATCH);
  r = row_of (cmp, 0, "smsp__inst_executed.sum");
  assert_true (r->predicted == 480 && r->measured == 1240);
  assert_int_equal (r->verdict, MDL_GPU_DIFFERS);
  r = row_of (cmp, 0, "smsp__thread_inst_executed_per_inst_executed.ratio");
  assert_true (r->is_real && fabs (r->predicted - 32.0) < 1e-9 && !r->have_measured);
  assert_int_equal (r->verdict, MDL_GPU_NO_COLUMN);
}

/* Ensure a case's later launches count when they are other kernels than its first (reduce/cascade
 * sums columns in cascade_rows, then finishes with reduce/tree's tree_level). At n = 4096, b = 32,
 * k = 16: cascade_rows has 16 blocks of one warp load 8 rows of 32 words each, 128 requests of 4
 * sectors; tree_level's one block loads one 2b-word chunk of the partial sums, 2 requests of 4
 * sectors (`models run reduce/cascade --n 4096 -p b=32 -p k=16 -e coalesce` gives 130 and 520). */
static void
test_later_launches_of_other_kernels_count (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = mdl_gpu_compare (DIR, "h100", NULL, &error);
  const MdlGpuRow *r;
  (void) state;
  assert_non_null (cmp);
  assert_string_equal (mdl_gpu_comparison_case (cmp, 3)->spec, "reduce/cascade:n=4096,b=32,k=16");
  r = row_of (cmp, 3, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
  assert_true (r->predicted == 128 + 2 && r->have_measured && r->measured == 128 + 2);
  assert_int_equal (r->verdict, MDL_GPU_MATCH);
  r = row_of (cmp, 3, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  assert_true (r->predicted == 512 + 8 && r->have_measured && r->measured == 512 + 8);
  assert_int_equal (r->verdict, MDL_GPU_MATCH);
  r = row_of (cmp, 3, "smsp__inst_executed.sum");
  assert_true (r->have_measured && r->measured == 600 + 50);
}

/* Ensure a launch of another kernel is not taken for the case's (no measured value), a failed CUDA
 * check is counted, a baseline is measured only (no rows), and a filter keeps only the cases it
 * names. */
static void
test_kernel_names_checks_and_filters (void **state)
{
  const char *const only_reduce[] = { "gpu/reduce", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) all = mdl_gpu_compare (DIR, "h100", NULL, &error);
  g_autoptr (MdlGpuComparison) some = mdl_gpu_compare (DIR, "h100", only_reduce, &error);
  const MdlGpuCase *c;
  (void) state;
  assert_non_null (all);
  assert_non_null (some);
  c = mdl_gpu_comparison_case (all, 1);
  assert_string_equal (c->spec, "gpu/reduce:variant=sequential");
  assert_false (c->cuda_check);
  assert_true (c->median_us == 4.25);
  for (guint k = 0; k < c->n_rows; k++)
    assert_false (mdl_gpu_comparison_row (all, 1, k)->have_measured);
  assert_int_equal (mdl_gpu_comparison_count (all, -1), 1);
  assert_string_equal (mdl_gpu_comparison_case (all, 2)->spec, "baseline/memcpy:n=1024");
  assert_int_equal (mdl_gpu_comparison_case (all, 2)->n_rows, 0);
  assert_int_equal (mdl_gpu_comparison_n_cases (some), 1);
  assert_string_equal (mdl_gpu_comparison_case (some, 0)->spec, c->spec);
}

/* Ensure bad input is an error naming the file or the case. */
static void
test_errors_name_the_place (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (mdl_gpu_compare ("tests/data/no-such-dir", "h100", NULL, &error));
  assert_mdl_error (error, MDL_ERROR_IO, "tests/data/no-such-dir/timings.csv");
  error = NULL;
  assert_null (mdl_gpu_compare (DIR, "z80", NULL, &error));
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "unknown machine \"z80\"");
}

/* Ensure the metrics to profile include every metric the engines predict and the duration. */
static void
test_profile_metrics_cover_the_engines (void **state)
{
  g_auto (GStrv) metrics = mdl_gpu_profile_metrics ("h100");
  (void) state;
  assert_true (g_strv_contains ((const char *const *) metrics,
                                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
  assert_true (g_strv_contains ((const char *const *) metrics,
                                "smsp__sass_branch_targets_threads_divergent.sum"));
  assert_true (g_strv_contains ((const char *const *) metrics, "gpu__time_duration.sum"));
}

/* The column of the last character of @word in @line (its right edge), or -1. */
static gssize
right_edge (const char *line, const char *word)
{
  const char *at = strstr (line, word);
  return at ? (at - line) + (gssize) strlen (word) - 1 : -1;
}

/* Ensure the table says which column is which: every case is followed by a header line naming
 * predicted and measured, and the values sit under their names (right-aligned to the same
 * column). gld_requests of the first case is predicted 32 and measured 32 (the derivation at the
 * top), so its two "32"s end under "predicted" and "measured". */
static void
test_table_has_a_column_header (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = mdl_gpu_compare (DIR, "h100", NULL, &error);
  g_autoptr (GString) out = g_string_new (NULL);
  g_auto (GStrv) lines = NULL;
  guint n_headers = 0;
  (void) state;
  assert_non_null (cmp);
  mdl_gpu_comparison_write (cmp, MDL_FORMAT_TABLE, out);
  lines = g_strsplit (out->str, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      const char *row;
      gssize pred_end, meas_end, first_32, second_32;
      if (strstr (lines[i], " predicted ") == NULL)
        continue;
      n_headers++;
      if (i == 0 || strstr (lines[i - 1], "(") == NULL)
        fail_msg ("header line %u does not follow a case line: %s", i, lines[i]);
      assert_non_null (strstr (lines[i], " measured "));
      if (n_headers > 1)
        continue;
      row = lines[i + 1];
      assert_non_null (strstr (row, "gld_requests"));
      pred_end = right_edge (lines[i], "predicted");
      meas_end = right_edge (lines[i], "measured");
      first_32 = right_edge (row, " 32");
      second_32 = first_32 >= 0 ? first_32 + 1 + right_edge (row + first_32 + 1, " 32") : -1;
      if (first_32 != pred_end || second_32 != meas_end)
        fail_msg ("values not under their names:\n%s\n%s", lines[i], row);
    }
  assert_int_equal (n_headers, mdl_gpu_comparison_n_cases (cmp));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_launches_are_summed),
    cmocka_unit_test (test_later_launches_of_other_kernels_count),
    cmocka_unit_test (test_kernel_names_checks_and_filters),
    cmocka_unit_test (test_errors_name_the_place),
    cmocka_unit_test (test_profile_metrics_cover_the_engines),
    cmocka_unit_test (test_table_has_a_column_header),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
