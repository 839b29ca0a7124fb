/* Tests of the banks engine (src/models/gpu/banks.c): one shared-memory instruction of a warp per
 * row, lane l at element idx(l) of `width` bytes, the lanes of `mask` active. The sm90 rows are
 * the H100 probes of src/algos/gpu-algos.h (gpu/shared-gather and gpu/shared-stride) with the
 * wavefronts and conflicts Nsight Compute measured per warp (docs/results/h100); each comment
 * derives the value from the rule at the head of banks.c. Loads: 4-lane groups merge equal
 * addresses; a pass holds <= 128 bytes of requests and its groups lie within 256 bytes of lane
 * slots. Stores: passes of 128 / width lanes, nothing merged. Wavefronts per pass = most distinct
 * 4-byte words in one bank. */
#include "helpers.h"

#include "models/gpu/gpu.h"   /* gpu_group_mask */

#include <string.h>

typedef struct {
  const char *name;
  const char *spec;
  guint width;
  const char *idx;        /* '.'-separated element indexes, repeated over the lanes */
  guint stride;           /* when idx is NULL: lane l at element l * stride */
  gboolean store;
  guint32 mask;           /* active lanes; 0: all 32 */
  guint64 wavefronts;
  guint64 conflicts;
} Row;

static const Row rows[] = {
  /* 4-byte: one pass; wavefronts = most lanes on one bank with distinct words. */
  { "4B stride 1", "banks:machine=h100", 4, NULL, 1, FALSE, 0, 1, 0 },
  { "4B stride 2", "banks:machine=h100", 4, NULL, 2, FALSE, 0, 2, 1 },
  { "4B stride 32", "banks:machine=h100", 4, NULL, 32, FALSE, 0, 32, 31 },
  { "4B stride 33", "banks:machine=h100", 4, NULL, 33, FALSE, 0, 1, 0 },
  { "4B broadcast", "banks:machine=h100", 4, "0", 0, FALSE, 0, 1, 0 },
  /* words 0 and 32 share bank 0: 2 wavefronts. */
  { "4B two words one bank", "banks:machine=h100", 4, "0.32", 0, FALSE, 0, 2, 1 },
  /* lanes 0..15 at words 32k (bank 0, 16 distinct), lanes 16..31 unit: 16. */
  { "4B 16-way", "banks:machine=h100", 4,
    "0.32.64.96.128.160.192.224.256.288.320.352.384.416.448.480.16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31",
    0, FALSE, 0, 16, 15 },
  /* 8-byte unit stride: 32 requests x 8 = 256 bytes: 2 passes of 128, conflict-free. */
  { "8B stride 1", "banks:machine=h100", 8, NULL, 1, FALSE, 0, 2, 0 },
  /* 8-byte stride 16: byte 128l, 16 lanes per pass on banks 0-1: 16 per pass. */
  { "8B stride 16", "banks:machine=h100", 8, NULL, 16, FALSE, 0, 32, 30 },
  /* 8 groups of 4 lanes, one request each: one pass, one word. */
  { "8B broadcast", "banks:machine=h100", 8, "0", 0, FALSE, 0, 1, 0 },
  /* lanes 2k, 2k+1 share: 2 requests per group, 16 in one pass covering 128 bytes once. */
  { "8B pairs", "banks:machine=h100", 8,
    "0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15", 0, FALSE, 0, 1, 0 },
  /* lanes 16..31 repeat 0..15 in other groups: 32 requests: 2 passes (not 1). */
  { "8B halves repeat", "banks:machine=h100", 8, "0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15", 0, FALSE, 0, 2, 0 },
  /* groups alternate words 0 and 1: 2 requests each, 16 in one pass. */
  { "8B two words", "banks:machine=h100", 8, "0.1", 0, FALSE, 0, 1, 0 },
  /* lanes 4..7 repeat 0..3: nothing merges inside a group: 32 requests, 2 passes. */
  { "8B groups of 4", "banks:machine=h100", 8,
    "0.1.2.3.0.1.2.3.4.5.6.7.4.5.6.7.8.9.10.11.8.9.10.11.12.13.14.15.12.13.14.15", 0, FALSE, 0, 2, 0 },
  /* pass 1 (lanes 0..15) has 16 distinct words on banks 0-1: 16; pass 2 unit: 1. */
  { "8B 16-way", "banks:machine=h100", 8,
    "0.32.64.96.128.160.192.224.256.288.320.352.384.416.448.480.16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31",
    0, FALSE, 0, 17, 15 },
  /* 16-byte unit stride: 4 passes of 8 lanes. */
  { "16B stride 1", "banks:machine=h100", 16, NULL, 1, FALSE, 0, 4, 0 },
  /* a pass never crosses a half-warp: broadcast takes 2. */
  { "16B broadcast", "banks:machine=h100", 16, "0", 0, FALSE, 0, 2, 0 },
  /* lanes 2k, 2k+1 share: 8 requests per half-warp fit one pass each: 2. */
  { "16B pairs", "banks:machine=h100", 16,
    "0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15", 0, FALSE, 0, 2, 0 },
  /* elements 0 and 32 (bytes 0 and 512) share banks 0-3: 2 per half-warp pass: 4, 2 conflicts. */
  { "16B two words one bank", "banks:machine=h100", 16, "0.32", 0, FALSE, 0, 4, 2 },
  /* 16-byte stride 8: byte 128l: a pass of 8 lanes all on banks 0-3: 8 per pass, 4 passes. */
  { "16B stride 8", "banks:machine=h100", 16, NULL, 8, FALSE, 0, 32, 28 },
  /* Stores (measured on the H100): nothing merges, passes of 128 / width lanes. 8-byte, every
   * lane word 0: 2 half-warp passes of 1. */
  { "8B store broadcast", "banks:machine=h100", 8, "0", 0, TRUE, 0, 2, 0 },
  /* 16-byte: 4 quarter-warp passes of 1. */
  { "16B store broadcast", "banks:machine=h100", 16, "0", 0, TRUE, 0, 4, 0 },
  /* pairs sharing a word: still 2 (4) passes of 1. */
  { "8B store pairs", "banks:machine=h100", 8,
    "0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15", 0, TRUE, 0, 2, 0 },
  { "16B store pairs", "banks:machine=h100", 16,
    "0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15", 0, TRUE, 0, 4, 0 },
  /* elements 0 and 32 share banks in every pass: 2 per pass. */
  { "8B store two words one bank", "banks:machine=h100", 8, "0.32", 0, TRUE, 0, 4, 2 },
  { "16B store two words one bank", "banks:machine=h100", 16, "0.32", 0, TRUE, 0, 8, 4 },
  /* 16-byte stride 3: a quarter's 8 lanes at bytes 48l, banks 12l mod 32: disjoint: 1 per pass. */
  { "16B store stride 3", "banks:machine=h100", 16, NULL, 3, TRUE, 0, 4, 0 },
  /* a pass with no active lane costs nothing: lanes 0..15 are 1 half-warp (8-byte) or 2
   * quarter-warps (16-byte); even lanes or alternate quarters touch both halves, all quarters. */
  { "8B store broadcast lanes 0-15", "banks:machine=h100", 8, "0", 0, TRUE, 0x0000ffff, 1, 0 },
  { "8B store broadcast even lanes", "banks:machine=h100", 8, "0", 0, TRUE, 0x55555555, 2, 0 },
  { "8B store broadcast quarters 0, 2, 4, 6", "banks:machine=h100", 8, "0", 0, TRUE, 0x0f0f0f0f,
    2, 0 },
  { "16B store broadcast lanes 0-15", "banks:machine=h100", 16, "0", 0, TRUE, 0x0000ffff, 2, 0 },
  { "16B store broadcast even lanes", "banks:machine=h100", 16, "0", 0, TRUE, 0x55555555, 4, 0 },
  { "16B store broadcast quarters 0, 2, 4, 6", "banks:machine=h100", 16, "0", 0, TRUE, 0x0f0f0f0f,
    4, 0 },
  /* Loads with idle groups: the groups of a pass lie within 256 bytes of slots by their places, so
   * 16-byte groups 0 and 2 share a pass and 4 and 6 another (not all four one pass). */
  { "16B broadcast quarters 0, 2, 4, 6", "banks:machine=h100", 16, "0", 0, FALSE, 0x0f0f0f0f, 2,
    0 },
  { "16B broadcast even lanes", "banks:machine=h100", 16, "0", 0, FALSE, 0x55555555, 2, 0 },
  { "16B broadcast lanes 0-15", "banks:machine=h100", 16, "0", 0, FALSE, 0x0000ffff, 1, 0 },
  /* 8-byte even lanes at stride 1: 16 requests of 8 bytes in one pass, bytes 16l: lanes l and
   * l + 8 share banks: 2 wavefronts, 1 conflict. */
  { "8B stride 1 even lanes", "banks:machine=h100", 8, NULL, 1, FALSE, 0x55555555, 2, 1 },
  /* Compute capability 1.x: 16 banks, each half-warp a pass. Stride 16 words: a half-warp on
   * bank 0: 16 each. */
  { "cc1 stride 1", "banks:machine=g80", 4, NULL, 1, FALSE, 0, 2, 0 },
  { "cc1 stride 16", "banks:machine=g80", 4, NULL, 16, FALSE, 0, 32, 30 },
  { "cc1 broadcast", "banks:machine=g80", 4, "0", 0, FALSE, 0, 2, 0 },
  /* split rule (Fermi): 8-byte lanes in passes of 128 / 8 = 16 lanes. */
  { "split 8B stride 1", "banks:machine=fermi", 8, NULL, 1, FALSE, 0, 2, 0 },
  { "split 8B broadcast", "banks:machine=fermi", 8, "0", 0, FALSE, 0, 2, 0 },
};

static void
run_row (const Row *r, guint64 *wavefronts, guint64 *conflicts)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new (r->spec, &error);
  g_autoptr (MdlReport) rep = NULL;
  g_auto (GStrv) idx = r->idx ? g_strsplit (r->idx, ".", 0) : NULL;
  guint64 addrs[32];
  guint n = 0;
  MdlWarpEvent w = { .active = r->mask ? r->mask : 0xffffffffu,
                     .op = r->store ? MDL_WARP_STORE : MDL_WARP_LOAD, .space = MDL_SPACE_SHARED,
                     .width = (guint16) r->width };
  MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
  if (e == NULL)
    fail_msg ("%s: %s", r->name, error->message);
  for (guint l = 0; l < 32; l++)
    if ((w.active >> l) & 1)
      addrs[n++] = (guint64) r->width
                   * (idx ? g_ascii_strtoull (idx[l % g_strv_length (idx)], NULL, 10)
                          : (guint64) l * r->stride);
  b.n_lane_addrs = n;
  if (!mdl_engine_consume (e, &b, &error))
    fail_msg ("%s: %s", r->name, error->message);
  rep = mdl_engine_report (e);
  *wavefronts = mdl_report_lookup (rep, r->store ? "shst_wavefronts" : "shld_wavefronts")->count;
  *conflicts = mdl_report_lookup (rep, r->store ? "shst_bank_conflicts"
                                                 : "shld_bank_conflicts")->count;
}

/* Ensure every pattern costs the derived (and, for sm90, measured) wavefronts and conflicts. */
static void
test_banks_rows (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 wf, bc;
      run_row (&rows[i], &wf, &bc);
      if (wf != rows[i].wavefronts || bc != rows[i].conflicts)
        fail_msg ("%s: %" G_GUINT64_FORMAT " wavefronts, %" G_GUINT64_FORMAT " conflicts; expected %"
                  G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT, rows[i].name, wf, bc, rows[i].wavefronts,
                  rows[i].conflicts);
    }
}

/* Ensure partial masks only count the active lanes: lanes 0 and 16 at words 0 and 32 conflict
 * once; a store is counted apart from loads; global accesses are ignored. */
static void
test_banks_masks_and_ops (void **state)
{
  g_autoptr (MdlEngine) e = mdl_engine_new ("banks", NULL);
  g_autoptr (MdlReport) rep = NULL;
  guint64 addrs[] = { 0, 128, 0x1000 };
  MdlWarpEvent w[] = {
    { .active = 0x10001, .op = MDL_WARP_STORE, .space = MDL_SPACE_SHARED, .width = 4, .first_addr = 0 },
    { .active = 0x1, .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL, .width = 4, .first_addr = 2 },
  };
  MdlEventBatch b = { .warp = w, .n_warp = 2, .lane_addrs = addrs, .n_lane_addrs = 3 };
  (void) state;
  assert_true (mdl_engine_consume (e, &b, NULL));
  rep = mdl_engine_report (e);
  assert_int_equal (mdl_report_lookup (rep, "shst_requests")->count, 1);
  assert_int_equal (mdl_report_lookup (rep, "shst_wavefronts")->count, 2);
  assert_int_equal (mdl_report_lookup (rep, "shst_bank_conflicts")->count, 1);
  assert_int_equal (mdl_report_lookup (rep, "shld_requests")->count, 0);
  assert_string_equal (mdl_report_lookup (rep, "shst_bank_conflicts")->metric,
                       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
}

/* The wavefronts of lanes @part of one pass, straightforwardly: for each bank, the distinct bank
 * words the lanes' bytes [addr, addr + width) overlap; the most of any bank. */
static guint64
pass_naive (const guint64 *addrs, guint64 part, guint width, guint banks, guint bank_bytes)
{
  guint64 words[64 * 16];
  guint n = 0, worst = 0;
  for (guint64 r = part; r; r &= r - 1)
    {
      guint64 a = addrs[__builtin_ctzll (r)];
      for (guint64 w = a / bank_bytes; w <= (a + width - 1) / bank_bytes; w++)
        {
          guint j = 0;
          while (j < n && words[j] != w)
            j++;
          if (j == n)
            words[n++] = w;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      guint q = 0;
      for (guint j = 0; j < n; j++)
        q += words[j] % banks == words[i] % banks;
      worst = MAX (worst, (guint) q);
    }
  return worst;
}

/* Ensure the wavefronts of random passes are the naive count: the halfwarp rule (passes of 16
 * lanes) and the split rule (passes of banks x bank_bytes / width lanes), 8 to 64 banks of 4 or 8
 * bytes, widths 1 to 16, lanes in any order, with repeats, aligned or not, within three rows of
 * 64 bank words (the rows of the engine's pass_rows()) or spread beyond them.
 * Seed: MODELS_TEST_SEED (default 2024), named in every failure. */
static void
test_banks_random_passes_match_naive_count (void **state)
{
  guint32 seed = test_seed (2024);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 3000; round++)
    {
      guint banks = 8u << g_rand_int_range (r, 0, 4), bank_bytes = 4u << g_rand_int_range (r, 0, 2);
      guint width = 1u << g_rand_int_range (r, 0, 5), spread = (guint) g_rand_int_range (r, 1, 1200);
      gboolean halfwarp = g_rand_boolean (r), aligned = g_rand_int_range (r, 0, 4) != 0;
      guint group = halfwarp ? 16 : MAX (1u, banks * bank_bytes / width);
      guint64 active = ((guint64) g_rand_int (r) << 32 | g_rand_int (r)) | 1, lane_addrs[64];
      guint64 addrs[64], base = (guint64) g_rand_int_range (r, 0, 4096), want = 0;
      g_autofree char *spec = g_strdup_printf ("banks:rule=%s,banks=%u,bank_bytes=%u",
                                               halfwarp ? "halfwarp" : "split", banks, bank_bytes);
      g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
      g_autoptr (MdlReport) rep = NULL;
      MdlWarpEvent w = { .active = active, .op = MDL_WARP_LOAD, .space = MDL_SPACE_SHARED,
                         .width = (guint16) width };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = lane_addrs };
      guint n = 0;
      for (guint l = 0; l < 64; l++)
        {
          addrs[l] = base + (guint64) g_rand_int_range (r, 0, (gint32) spread);
          if (aligned)
            addrs[l] &= ~(guint64) (width - 1);
          if (active >> l & 1)
            lane_addrs[n++] = addrs[l];
        }
      b.n_lane_addrs = n;
      for (guint g = 0; g < 64; g += group)
        {
          guint64 part = active & (gpu_group_mask (group) << g);
          if (part)
            want += pass_naive (addrs, part, width, banks, bank_bytes);
        }
      assert_non_null (e);
      assert_true (mdl_engine_consume (e, &b, NULL));
      rep = mdl_engine_report (e);
      if (mdl_report_lookup (rep, "shld_wavefronts")->count != want)
        fail_msg ("seed %u: round %u: %s, width %u, spread %u: %" G_GUINT64_FORMAT " wavefronts, "
                  "the naive count %" G_GUINT64_FORMAT, seed, round, spec, width, spread,
                  mdl_report_lookup (rep, "shld_wavefronts")->count, want);
    }
  g_rand_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_banks_rows),
    cmocka_unit_test (test_banks_masks_and_ops),
    cmocka_unit_test (test_banks_random_passes_match_naive_count),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
