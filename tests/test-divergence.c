/* Tests of the divergence engine (src/models/gpu/divergence.c) on hand-built instruction streams,
 * in both counting modes. */
#include "helpers.h"

#include <math.h>

static MdlReport *
count (const char *spec, const MdlWarpEvent *w, gsize n)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new (spec, &error);
  MdlEventBatch b = { .warp = w, .n_warp = n };
  if (e == NULL || !mdl_engine_consume (e, &b, &error))
    fail_msg ("%s: %s", spec, error->message);
  return mdl_engine_report (e);
}

/* A half-split if/else of one warp as the SIMT layer emits it: the branch (32 active, 16 take
 * it), 2 ALU on each side, the jump over the else side (16 lanes), as nvcc lays it out. */
static const MdlWarpEvent if_else[] = {
  { .active = 0xffffffff, .taken = 0x0000ffff, .op = MDL_WARP_BRANCH },
  { .active = 0x0000ffff, .op = MDL_WARP_ALU },
  { .active = 0x0000ffff, .op = MDL_WARP_ALU },
  { .active = 0x0000ffff, .op = MDL_WARP_JUMP },
  { .active = 0xffff0000, .op = MDL_WARP_ALU },
  { .active = 0xffff0000, .op = MDL_WARP_ALU },
  { .active = 0xffffffff, .taken = 0xffffffff, .op = MDL_WARP_BRANCH },   /* uniform */
};

/* Ensure count=sass counts the jump as a uniform branch and an instruction: 3 branches (1
 * divergent), uniformity 2/3, 7 instructions of 32+16x5+32 = 144 threads. */
static void
test_sass_mode_counts_jumps (void **state)
{
  g_autoptr (MdlReport) r = count ("divergence", if_else, G_N_ELEMENTS (if_else));
  (void) state;
  assert_int_equal (mdl_report_lookup (r, "branches")->count, 3);
  assert_int_equal (mdl_report_lookup (r, "divergent_branches")->count, 1);
  assert_int_equal (mdl_report_lookup (r, "uniform_branches")->count, 2);
  assert_int_equal (mdl_report_lookup (r, "serialized_paths")->count, 1);
  assert_int_equal (mdl_report_lookup (r, "warp_insts")->count, 7);
  assert_int_equal (mdl_report_lookup (r, "thread_insts")->count, 32 + 16 * 5 + 32);
  assert_true (fabs (mdl_report_lookup (r, "branch_uniformity_pct")->real - 200.0 / 3) < 1e-9);
  assert_true (fabs (mdl_report_lookup (r, "threads_per_inst")->real - 144.0 / 7) < 1e-9);
  assert_string_equal (mdl_report_lookup (r, "branches")->metric, "smsp__sass_inst_executed_op_branch.sum");
}

/* Ensure count=source ignores jumps: 2 branches (1 divergent), 6 instructions of 128 threads,
 * and reports no Nsight Compute metric names (they count machine branches). */
static void
test_source_mode_ignores_jumps (void **state)
{
  g_autoptr (MdlReport) r = count ("divergence:count=source", if_else, G_N_ELEMENTS (if_else));
  (void) state;
  assert_int_equal (mdl_report_lookup (r, "branches")->count, 2);
  assert_int_equal (mdl_report_lookup (r, "divergent_branches")->count, 1);
  assert_int_equal (mdl_report_lookup (r, "warp_insts")->count, 6);
  assert_int_equal (mdl_report_lookup (r, "thread_insts")->count, 128);
  assert_true (fabs (mdl_report_lookup (r, "branch_uniformity_pct")->real - 50.0) < 1e-9);
  assert_null (mdl_report_lookup (r, "branches")->metric);
}

/* Ensure a stream without branches reports uniformity as not applicable (NaN), and a branch that
 * no lane takes is uniform. */
static void
test_no_branch_is_not_applicable (void **state)
{
  static const MdlWarpEvent alu[] = { { .active = 0xff, .op = MDL_WARP_ALU } };
  static const MdlWarpEvent none_taken[] = { { .active = 0xff, .taken = 0, .op = MDL_WARP_BRANCH } };
  g_autoptr (MdlReport) a = count ("divergence", alu, 1);
  g_autoptr (MdlReport) b = count ("divergence", none_taken, 1);
  (void) state;
  assert_true (isnan (mdl_report_lookup (a, "branch_uniformity_pct")->real));
  assert_int_equal (mdl_report_lookup (b, "divergent_branches")->count, 0);
  assert_true (fabs (mdl_report_lookup (b, "branch_uniformity_pct")->real - 100.0) < 1e-9);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sass_mode_counts_jumps),
    cmocka_unit_test (test_source_mode_ignores_jumps),
    cmocka_unit_test (test_no_branch_is_not_applicable),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
