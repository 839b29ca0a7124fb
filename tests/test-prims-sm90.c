/* The warp-primitive micro-kernels (gpu/shuffle, gpu/vote, gpu/atomic) predicted against what
 * Nsight Compute measured for their CUDA twins on sm_90 (tests/data/sm90-prims: the raw counters
 * of `tools/gpu-prims.sh`, run on the lent machine, an H200, whose SMs are the H100's; the
 * comparison uses the h100 preset). Every measured counter of every case must equal the engines'
 * prediction, row by row, except where docs/models/gpu.md says why not: 8-byte shared atomicAdd
 * and atomicMin are compiled to a CAS loop (ATOMS.CAST.SPIN.64) whose trip count depends on the
 * hardware's order, which the SIMT twin, one native atomic, does not mirror. */
#include "helpers.h"

#include <string.h>

#define DIR "tests/data/sm90-prims"

/* The cases whose SASS is a CAS loop (see the head). */
static gboolean
is_cas_loop (const char *spec)
{
  return strstr (spec, "space=shared") && strstr (spec, "width=8")
         && (strstr (spec, "op=add,") || strstr (spec, "op=min,"));
}

/* Ensure all 101 cases passed the CUDA check, and that every counter with a measured value
 * matches the prediction, outside the CAS loops, where some counter must differ (the loop's
 * branches, loads and CAS wavefronts). */
static void
test_predictions_equal_measured_counters (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = mdl_gpu_compare (DIR, "h100", NULL, &error);
  guint n_cases, n_matched = 0, n_loops = 0;
  (void) state;
  if (cmp == NULL)
    fail_msg ("%s", error->message);
  n_cases = mdl_gpu_comparison_n_cases (cmp);
  assert_int_equal (n_cases, 101);
  for (guint i = 0; i < n_cases; i++)
    {
      const MdlGpuCase *c = mdl_gpu_comparison_case (cmp, i);
      gboolean loop = is_cas_loop (c->spec), loop_differs = FALSE;
      assert_true (c->cuda_check);
      n_loops += loop;
      for (guint k = 0; k < c->n_rows; k++)
        {
          const MdlGpuRow *r = mdl_gpu_comparison_row (cmp, i, k);
          if (!r->have_measured)
            continue;
          if (loop)
            {
              loop_differs |= r->verdict == MDL_GPU_DIFFERS;
              continue;
            }
          if (r->verdict != MDL_GPU_MATCH && r->verdict != MDL_GPU_NOT_APPLICABLE)
            fail_msg ("%s: %s (%s) predicted %g, measured %g", c->spec, r->counters, r->metric,
                      r->predicted, r->measured);
          n_matched++;
        }
      if (loop && !loop_differs)
        fail_msg ("%s: a CAS loop, but every counter matches the one native atomic", c->spec);
    }
  assert_int_equal (n_loops, 4);
  /* 97 cases x 29 metrics with a column (the local-memory ones too, all 0). */
  assert_int_equal (n_matched, 97 * 29);
}

/* Ensure the counters that carry the findings have the measured values, worked out by hand:
 * 32 warps per case (1024 threads). */
static void
test_findings (void **state)
{
  static const struct {
    const char *spec, *metric;
    double measured;
  } rows[] = {
    /* all 32 lanes on one global word: 32 rounds of 1 sector per warp, 1 request. */
    { "gpu/atomic:op=add,space=global,k=32", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 32 * 32 },
    { "gpu/atomic:op=add,space=global,k=32", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 32 },
    /* 4 lanes per word, 8 words 128 bytes apart: 4 rounds of 8 sectors. */
    { "gpu/atomic:op=add,space=global,k=4,stride=32", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 32 * 32 },
    /* an unused result: RED, counted under _op_red. */
    { "gpu/atomic:op=add,space=global,k=1,ret=0", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 32 },
    { "gpu/atomic:op=add,space=global,k=1,ret=0", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0 },
    /* shared: 32 lanes on one word, 32 rounds of 1 wavefront, 31 conflicts. */
    { "gpu/atomic:op=add,space=shared,k=32", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", 32 * 32 },
    { "gpu/atomic:op=add,space=shared,k=32", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", 32 * 31 },
    /* a CAS doubles the wavefronts (2 per round) but not the conflicts. */
    { "gpu/atomic:op=cas,space=shared,k=32", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", 32 * 64 },
    { "gpu/atomic:op=cas,space=shared,k=32", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", 32 * 31 },
    /* 8-byte exchange on one word: half-warp passes of 16 rounds: 32 wavefronts, 30 conflicts. */
    { "gpu/atomic:op=exch,space=shared,k=32,width=8", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", 32 * 32 },
    { "gpu/atomic:op=exch,space=shared,k=32,width=8", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", 32 * 30 },
    /* the vote's lanes outside the mask skip the load: half a warp, 2 sectors. */
    { "gpu/vote:mode=ballot,mask=0000ffff", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 32 * 2 },
    { "gpu/vote:mode=ballot,mask=0000ffff", "smsp__sass_branch_targets_threads_divergent.sum", 32 },
  };
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlGpuComparison) cmp = mdl_gpu_compare (DIR, "h100", NULL, &error);
  (void) state;
  assert_non_null (cmp);
  for (guint j = 0; j < G_N_ELEMENTS (rows); j++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < mdl_gpu_comparison_n_cases (cmp) && !found; i++)
        {
          const MdlGpuCase *c = mdl_gpu_comparison_case (cmp, i);
          if (strcmp (c->spec, rows[j].spec) != 0)
            continue;
          for (guint k = 0; k < c->n_rows; k++)
            {
              const MdlGpuRow *r = mdl_gpu_comparison_row (cmp, i, k);
              if (strcmp (r->metric, rows[j].metric) != 0)
                continue;
              found = TRUE;
              if (!r->have_measured || r->measured != rows[j].measured
                  || r->predicted != rows[j].measured)
                fail_msg ("%s: %s: measured %g, predicted %g, expected %g", rows[j].spec,
                          rows[j].metric, r->measured, r->predicted, rows[j].measured);
            }
        }
      if (!found)
        fail_msg ("no row %s of %s", rows[j].metric, rows[j].spec);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_predictions_equal_measured_counters),
    cmocka_unit_test (test_findings),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
