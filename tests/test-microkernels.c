/* Tests of the SIMT micro-kernels (src/algos/simt/micro.c) through the GPU engines: every row is a
 * count derived by hand from the kernel and the engine's rule, at the size the H100 ran
 * (src/algos/gpu-sizes.h), and equal to what Nsight Compute measured there
 * (docs/results/h100/ncu.csv; docs/models/gpu.md lists the counters that differ and why). */
#include "helpers.h"

#include <math.h>
#include <string.h>

/* Runs the algorithm spec @spec ("gpu/NAME:key=value,...", n from the spec or the family's
 * default) through coalesce, banks and divergence on the h100 preset. */
static GPtrArray *
run_spec (const char *spec, guint64 n)
{
  static const char *const engines[] = { "coalesce:machine=h100", "banks:machine=h100",
                                         "divergence:machine=h100", NULL };
  return test_run_algo_all (spec, n, 7, engines, NULL);
}

static const MdlCounter *
find (GPtrArray *reports, const char *name)
{
  for (guint i = 0; i < reports->len; i++)
    {
      const MdlCounter *c = mdl_report_lookup (g_ptr_array_index (reports, i), name);
      if (c)
        return c;
    }
  fail_msg ("no counter %s", name);
  return NULL;
}

/* Counts are totals over the launch; "per warp" is what the derivation reasons about. */
static const struct {
  const char *spec;
  guint64 n;
  const char *counter;
  guint64 expect;
} rows[] = {
  /* global-stride, n = 1024 threads = 32 warps, one LDG and one STG per warp. */
  /* 4-byte unit stride: a warp reads 128 contiguous aligned bytes: 4 sectors. */
  { "gpu/global-stride:op=ld,width=4,stride=1", 1024, "gld_sectors", 32 * 4 },
  /* misaligned by one element: bytes 4..131 of a line pair: 5 sectors, 2 lines. */
  { "gpu/global-stride:op=ld,width=4,stride=1,misalign=1", 1024, "gld_sectors", 32 * 5 },
  { "gpu/global-stride:op=ld,width=4,stride=1,misalign=1", 1024, "gld_lines", 32 * 2 },
  /* one request per instruction whatever the width (H100). */
  { "gpu/global-stride:op=ld,width=16,stride=2", 1024, "gld_requests", 32 },
  /* 16-byte elements 32 bytes apart: each lane its own sector, 1024 bytes: 32 sectors, 8 lines. */
  { "gpu/global-stride:op=ld,width=16,stride=2", 1024, "gld_sectors", 32 * 32 },
  { "gpu/global-stride:op=ld,width=16,stride=2", 1024, "gld_lines", 32 * 8 },
  /* stride 33 of 8 bytes: 264 bytes apart, every lane its own sector and line. */
  { "gpu/global-stride:op=st,width=8,stride=33,misalign=1", 1024, "gst_sectors", 32 * 32 },
  { "gpu/global-stride:op=st,width=8,stride=33,misalign=1", 1024, "gst_lines", 32 * 32 },
  /* global-atomic stride 32: words 128 bytes apart: 32 sectors per ATOMG. */
  { "gpu/global-atomic:stride=32", 1024, "gatom_sectors", 32 * 32 },
  /* shared-stride, n = 256 = 8 one-warp blocks; the fill is 33 unit-stride STS per warp. */
  { "gpu/shared-stride:op=ld,width=4,stride=1", 256, "shst_wavefronts", 8 * 33 },
  /* stride 0 store: all 32 lanes write one 4-byte word, one bank: 1 wavefront per STS. */
  { "gpu/shared-stride:op=st,width=4,stride=0", 256, "shst_wavefronts", 8 * 1 },
  /* even lanes only (mask 0x55555555), all on word 0 (idx 0.32 puts the odd lanes, masked, on
   * word 32): one word of one bank, 1 wavefront per LDS; the STG writes the even lanes' words,
   * which still reach all 4 sectors of the warp's 128 bytes. */
  { "gpu/shared-gather:op=ld,width=4,idx=0.32,mask=55555555", 256, "shld_wavefronts", 8 * 1 },
  { "gpu/shared-gather:op=ld,width=4,idx=0.32,mask=55555555", 256, "gst_sectors", 8 * 4 },
  /* 4-byte stride 2: lanes l and l+16 share a bank (2l mod 32): 2 wavefronts, 1 conflict. */
  { "gpu/shared-stride:op=ld,width=4,stride=2", 256, "shld_wavefronts", 8 * 2 },
  { "gpu/shared-stride:op=ld,width=4,stride=2", 256, "shld_bank_conflicts", 8 * 1 },
  /* 4-byte stride 32: all 32 lanes in bank 0, distinct words: 32 wavefronts, 31 conflicts. */
  { "gpu/shared-stride:op=st,width=4,stride=32", 256, "shst_wavefronts", 8 * 32 },
  { "gpu/shared-stride:op=st,width=4,stride=32", 256, "shst_bank_conflicts", 8 * 31 },
  /* 8-byte unit stride: 2 passes of 16 lanes (128 bytes each), conflict-free. */
  { "gpu/shared-stride:op=ld,width=8,stride=1", 256, "shld_wavefronts", 8 * 2 },
  /* 8-byte stride 4: lane l at byte 32l; a pass of 16 lanes covers banks {0, 8, 16, 24} 4 times
   * each: 4 wavefronts per pass, 2 passes: 8, of which 6 are conflicts. */
  { "gpu/shared-stride:op=ld,width=8,stride=4", 256, "shld_wavefronts", 8 * 8 },
  { "gpu/shared-stride:op=ld,width=8,stride=4", 256, "shld_bank_conflicts", 8 * 6 },
  /* 16-byte stride 8: lane l at byte 128l: 8 lanes per pass all in banks 0..3: 8 per pass, 4
   * passes: 32 wavefronts, 28 conflicts. */
  { "gpu/shared-stride:op=ld,width=16,stride=8", 256, "shld_wavefronts", 8 * 32 },
  { "gpu/shared-stride:op=ld,width=16,stride=8", 256, "shld_bank_conflicts", 8 * 28 },
  /* 16-byte broadcast: one request per 4-lane group, but a pass never crosses a half-warp: 2. */
  { "gpu/shared-gather:width=16,idx=0", 256, "shld_wavefronts", 8 * 2 },
  /* 8-byte broadcast: 8 groups of one request each fit one pass: 1 wavefront. */
  { "gpu/shared-gather:width=8,idx=0", 256, "shld_wavefronts", 8 * 1 },
  /* 8-byte, lanes 16..31 repeat lanes 0..15: 32 requests (groups merge only their own lanes), 2
   * passes of 128 bytes. */
  { "gpu/shared-gather:width=8,idx=0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15", 256, "shld_wavefronts", 8 * 2 },
  /* 8-byte, lanes 2k and 2k+1 share a word: 2 requests per group, 16 in all: one pass. */
  { "gpu/shared-gather:width=8,idx=0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15",
    256, "shld_wavefronts", 8 * 1 },
  /* 8-byte, lanes 4..7 of each 8 repeat lanes 0..3: no merging inside a 4-lane group: 2 passes
   * (the probe that showed groups are 4 lanes, not 8). */
  { "gpu/shared-gather:width=8,idx=0.1.2.3.0.1.2.3.4.5.6.7.4.5.6.7.8.9.10.11.8.9.10.11.12.13.14.15.12.13.14.15",
    256, "shld_wavefronts", 8 * 2 },
  /* transpose of 256 x 256 words: 64 blocks of 8 warps, 4 row moves per warp. */
  /* naive: loads read one row segment (4 sectors), stores write 32 rows (32 sectors, 32 lines). */
  { "gpu/transpose:variant=naive", 65536, "gld_sectors", 512 * 4 * 4 },
  { "gpu/transpose:variant=naive", 65536, "gst_sectors", 512 * 4 * 32 },
  /* shared, no padding: a column read hits one bank 32 times: 32 wavefronts, 31 conflicts. */
  { "gpu/transpose:variant=shared,pad=0", 65536, "shld_wavefronts", 512 * 4 * 32 },
  { "gpu/transpose:variant=shared,pad=0", 65536, "shld_bank_conflicts", 512 * 4 * 31 },
  /* padded: lane l reads word 33l + c, bank (l + c) mod 32: conflict-free. */
  { "gpu/transpose:variant=shared,pad=1", 65536, "shld_bank_conflicts", 0 },
  /* reduce, 16 blocks of 8 warps. sequential: level h touches h threads (h/32 warps, at least
   * one), 2 conflict-free loads each: 2 x (4+2+1+1+1+1+1+1) x 16 = 384, plus s[0] once per block. */
  { "gpu/reduce:variant=sequential", 4096, "shld_wavefronts", 384 + 16 },
  { "gpu/reduce:variant=sequential", 4096, "shld_bank_conflicts", 0 },
  /* divergent: every level's active lanes are multiples of 2d, banks t mod 32 distinct: no
   * conflict. */
  { "gpu/reduce:variant=divergent", 4096, "shld_bank_conflicts", 0 },
  /* interleaved, per block (4-byte loads of active lanes at spacing 8d bytes, bank = 2dt mod 32):
   * d=1: one LDS.64 at 8t for t < 128: 4 warps x 2 conflict-free passes = 8;
   * d=2: t < 64 (2 warps), 2 loads at 16t: 8 banks x 4 lanes: 2 x 2 x 4 = 16;
   * d=4: t < 32, 4 banks x 8 lanes: 2 x 8 = 16; d=8: t < 16, 2 banks x 8: 2 x 8 = 16;
   * d=16: t < 8, all bank 0: 2 x 8 = 16; d=32: 2 x 4 = 8; d=64: 2 x 2 = 4; d=128: 2 x 1 = 2;
   * s[0] at the end: 1. Sum 87, x 16 blocks. Passes: 8 + 4 + 6 x 2 + 1 = 25, so 62 conflicts. */
  { "gpu/reduce:variant=interleaved", 4096, "shld_wavefronts", 16 * 87 },
  { "gpu/reduce:variant=interleaved", 4096, "shld_bank_conflicts", 16 * 62 },
  /* branch, 256 threads = 8 warps. half: a divergent conditional branch and a jump per warp. */
  { "gpu/branch:variant=half", 256, "branches", 8 * 2 },
  { "gpu/branch:variant=half", 256, "divergent_branches", 8 * 1 },
  /* if (no else): one divergent branch per warp, no jump. */
  { "gpu/branch:variant=if", 256, "branches", 8 * 1 },
  /* nested: outer branch + jump, inner branch + jump: 4, 2 of them divergent. */
  { "gpu/branch:variant=nested", 256, "branches", 8 * 4 },
  { "gpu/branch:variant=nested", 256, "divergent_branches", 8 * 2 },
  /* per warp: 12 before the branch, 1 branch, 32 + jump, BSYNC, 32 + ISETP, branch, 32 + jump,
   * BSYNC, 32, BSYNC, 5 after: 153. */
  { "gpu/branch:variant=nested", 256, "warp_insts", 8 * 153 },
  /* uniform: odd blocks take the if side (branch + jump), even ones branch only: 4x2 + 4x1. */
  { "gpu/branch:variant=uniform", 256, "branches", 12 },
  { "gpu/branch:variant=uniform", 256, "divergent_branches", 0 },
  /* loop, trips lane % 4 + 1: 4 bottom tests per warp, the first 3 divergent. */
  { "gpu/branch:variant=loop", 256, "branches", 8 * 4 },
  { "gpu/branch:variant=loop", 256, "divergent_branches", 8 * 3 },
  /* threads: 12 x 32 before, 35 x (32 + 24 + 16 + 8) in the loop, 4 BSYNCs of 8, 5 x 32. */
  { "gpu/branch:variant=loop", 256, "thread_insts", 8 * (12 * 32 + 35 * 80 + 32 + 5 * 32) },
};

/* Ensure every micro-kernel counter equals its hand derivation (and the H100's count). */
static void
test_microkernel_counts (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (GPtrArray) reports = run_spec (rows[i].spec, rows[i].n);
      const MdlCounter *c = find (reports, rows[i].counter);
      if (c->count != rows[i].expect)
        fail_msg ("%s: %s is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].spec,
                  rows[i].counter, c->count, rows[i].expect);
    }
}

/* Ensure branch uniformity is not applicable without branches, and 25% for the loop (8 uniform
 * final tests of 32 branches), and threads per instruction of the half split is 1616/84. */
static void
test_microkernel_ratios (void **state)
{
  g_autoptr (GPtrArray) none = run_spec ("gpu/global-stride", 1024);
  g_autoptr (GPtrArray) loop = run_spec ("gpu/branch:variant=loop", 256);
  g_autoptr (GPtrArray) half = run_spec ("gpu/branch:variant=half", 256);
  (void) state;
  assert_true (isnan (find (none, "branch_uniformity_pct")->real));
  assert_true (fabs (find (loop, "branch_uniformity_pct")->real - 25.0) < 1e-9);
  assert_true (fabs (find (half, "threads_per_inst")->real - 1616.0 / 84.0) < 1e-9);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_microkernel_counts),
    cmocka_unit_test (test_microkernel_ratios),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
