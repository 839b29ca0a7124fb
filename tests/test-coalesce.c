/* Tests of the coalesce engine (src/models/gpu/coalesce.c): single warp instructions built by
 * hand, counted under each rule. Every expected value is worked out in the comment above its row
 * from the rule at the head of coalesce.c. */
#include "helpers.h"

#include <string.h>

typedef struct {
  const char *name;
  const char *spec;
  guint op;          /* MdlWarpOp */
  guint width;
  guint64 base;      /* lane l reads base + l * stride */
  guint64 stride;
  guint64 active;
  const char *counter;
  guint64 expect;
} Row;

#define ALL 0xffffffffull
static const Row rows[] = {
  /* H100: 32 lanes x 4 bytes from an aligned base: 128 bytes = 4 sectors, 1 line, 1 request. */
  { "unit 4B sectors", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1000, 4, ALL, "gld_sectors", 4 },
  { "unit 4B lines", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1000, 4, ALL, "gld_lines", 1 },
  { "unit 4B requests", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1000, 4, ALL, "gld_requests", 1 },
  /* base + 4: bytes 0x1004..0x1083 touch sectors 0x1000..0x1080: 5, and 2 lines. */
  { "misaligned sectors", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1004, 4, ALL, "gld_sectors", 5 },
  { "misaligned lines", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1004, 4, ALL, "gld_lines", 2 },
  /* 16-byte lanes from base + 16: bytes 0x1010..0x120f: sectors 0x1000..0x1200: 17; lines 5. */
  { "16B misaligned sectors", "coalesce:machine=h100", MDL_WARP_STORE, 16, 0x1010, 16, ALL, "gst_sectors", 17 },
  { "16B misaligned lines", "coalesce:machine=h100", MDL_WARP_STORE, 16, 0x1010, 16, ALL, "gst_lines", 5 },
  { "16B one request", "coalesce:machine=h100", MDL_WARP_STORE, 16, 0x1010, 16, ALL, "gst_requests", 1 },
  /* 128 bytes apart: every lane its own sector and line. */
  { "scattered", "coalesce:machine=h100", MDL_WARP_ATOMIC, 4, 0x1000, 128, ALL, "gatom_sectors", 32 },
  /* lanes 0..15 only: 64 bytes: 2 sectors. */
  { "half mask", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1000, 4, 0xffff, "gld_sectors", 2 },
  /* every lane the same word: 1 sector. */
  { "broadcast", "coalesce:machine=h100", MDL_WARP_LOAD, 4, 0x1000, 0, ALL, "gld_sectors", 1 },
  /* cc1.0: each half-warp reads word k of a 64-byte aligned segment: 1 transaction of 64 each. */
  { "cc1.0 coalesced", "coalesce:machine=g80", MDL_WARP_LOAD, 4, 0x1000, 4, ALL, "gld_transactions", 2 },
  { "cc1.0 coalesced bytes", "coalesce:machine=g80", MDL_WARP_LOAD, 4, 0x1000, 4, ALL,
    "gld_transaction_bytes", 128 },
  /* cc1.0, base + 4: no half-warp starts on its segment: 32 transactions of 32 bytes. */
  { "cc1.0 misaligned", "coalesce:machine=g80", MDL_WARP_LOAD, 4, 0x1004, 4, ALL, "gld_transactions", 32 },
  { "cc1.0 misaligned bytes", "coalesce:machine=g80", MDL_WARP_LOAD, 4, 0x1004, 4, ALL,
    "gld_transaction_bytes", 1024 },
  /* cc1.2, base + 4: half 0 uses bytes 4..67 of segment 0..127 (both halves): 128; half 1 uses
   * 68..127 (upper 64, both 32-byte quarters): 64, then 128..131 of the next segment: 32. */
  { "cc1.2 misaligned", "coalesce:machine=gt200", MDL_WARP_LOAD, 4, 0x1004, 4, ALL, "gld_transactions", 3 },
  { "cc1.2 misaligned bytes", "coalesce:machine=gt200", MDL_WARP_LOAD, 4, 0x1004, 4, ALL,
    "gld_transaction_bytes", 128 + 64 + 32 },
  /* cc1.2, every lane the same word: one 128 segment per half-warp, shrunk to 32. */
  { "cc1.2 broadcast bytes", "coalesce:machine=gt200", MDL_WARP_LOAD, 4, 0x1000, 0, ALL,
    "gld_transaction_bytes", 64 },
  /* Fermi, 16-byte loads: a request per quarter-warp (128 bytes, one line each). */
  { "fermi 16B requests", "coalesce:machine=fermi", MDL_WARP_LOAD, 16, 0x1000, 16, ALL, "gld_requests", 4 },
  { "fermi 16B bytes", "coalesce:machine=fermi", MDL_WARP_LOAD, 16, 0x1000, 16, ALL,
    "gld_transaction_bytes", 512 },
  /* Fermi loads 128-byte lines even for scattered words: 32 lines; stores go in 32-byte sectors. */
  { "fermi scattered load", "coalesce:machine=fermi", MDL_WARP_LOAD, 4, 0x1000, 128, ALL,
    "gld_transaction_bytes", 32 * 128 },
  { "fermi scattered store", "coalesce:machine=fermi", MDL_WARP_STORE, 4, 0x1000, 128, ALL,
    "gst_transaction_bytes", 32 * 32 },
};

static guint64
count_one (const Row *r)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) e = mdl_engine_new (r->spec, &error);
  g_autoptr (MdlReport) rep = NULL;
  guint64 addrs[MDL_WARP_MAX_LANES];
  guint n = 0;
  MdlWarpEvent w = { .active = r->active, .op = (guint8) r->op, .space = MDL_SPACE_GLOBAL,
                     .width = (guint16) r->width };
  MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = addrs };
  const MdlCounter *c;
  if (e == NULL)
    fail_msg ("%s: %s", r->name, error->message);
  for (guint l = 0; l < 64; l++)
    if (r->active >> l & 1)
      addrs[n++] = r->base + l * r->stride;
  b.n_lane_addrs = n;
  if (!mdl_engine_consume (e, &b, &error))
    fail_msg ("%s: %s", r->name, error->message);
  rep = mdl_engine_report (e);
  c = mdl_report_lookup (rep, r->counter);
  if (c == NULL)
    fail_msg ("%s: no counter %s", r->name, r->counter);
  return c->count;
}

/* Ensure each hand-built instruction counts as derived. */
static void
test_coalesce_rows (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      guint64 got = count_one (&rows[i]);
      if (got != rows[i].expect)
        fail_msg ("%s: %s is %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].name,
                  rows[i].counter, got, rows[i].expect);
    }
}

/* Ensure the H100 counters carry Nsight Compute's metric names, the old rules none, and
 * line_bytes < sector_bytes is a parameter error. */
static void
test_coalesce_metrics_and_params (void **state)
{
  g_autoptr (MdlEngine) h = mdl_engine_new ("coalesce:machine=h100", NULL);
  g_autoptr (MdlEngine) g = mdl_engine_new ("coalesce:machine=g80", NULL);
  g_autoptr (MdlReport) rh = mdl_engine_report (h);
  g_autoptr (MdlReport) rg = mdl_engine_report (g);
  GError *error = NULL;
  (void) state;
  assert_string_equal (mdl_report_lookup (rh, "gld_sectors")->metric,
                       "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
  assert_string_equal (mdl_report_lookup (rh, "gst_lines")->metric, "smsp__sass_l1tex_tags_mem_global.sum");
  assert_null (mdl_report_lookup (rg, "gld_sectors")->metric);
  assert_null (mdl_engine_new ("coalesce:sector_bytes=256,line_bytes=128", &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "line_bytes=128 is smaller than sector_bytes=256");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_coalesce_rows),
    cmocka_unit_test (test_coalesce_metrics_and_params),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
