/* Tests of the `footprint` engine (src/models/footprint.c): distinct pages and lines, and the
 * histogram of page reuse (stack) distances. Micro-traces are worked out by hand; random traces
 * are checked against the explicit LRU stack of tests/ref/reuse.c, including runs long enough to
 * make the engine renumber its Fenwick tree (more than 65536 page touches). */
#include "helpers.h"
#include "ref/reuse.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED 20240611u

static MdlEngine *
footprint_new (const char *spec)
{
  g_autoptr (GError) error = NULL;
  MdlEngine *e = mdl_engine_new (spec, &error);
  if (e == NULL)
    fail_msg ("%s: %s", spec, error->message);
  return e;
}

/* Parses a micro-trace: space-separated "ADDR/SIZE" reads, "wADDR/SIZE" writes, "mADDR/SIZE"
 * modifies (ADDR in hex) and "ops" operation counts. */
static GArray *
parse_trace (const char *text)
{
  g_auto (GStrv) tokens = g_strsplit (text, " ", -1);
  GArray *events = g_array_new (FALSE, TRUE, sizeof (MdlCpuEvent));
  for (char **t = tokens; *t; t++)
    {
      MdlCpuEvent ev = { .kind = MDL_CPU_READ };
      const char *p = *t;
      char *end;
      if (strcmp (p, "ops") == 0)
        {
          ev.kind = MDL_CPU_OPS;
          ev.addr = 7;
          g_array_append_val (events, ev);
          continue;
        }
      if (*p == 'w' || *p == 'm')
        ev.kind = *p++ == 'w' ? MDL_CPU_WRITE : MDL_CPU_MODIFY;
      ev.addr = g_ascii_strtoull (p, &end, 16);
      g_assert (*end == '/');
      ev.size = (guint16) g_ascii_strtoull (end + 1, NULL, 10);
      g_array_append_val (events, ev);
    }
  return events;
}

/* Rows: micro-traces with their page and line size; expected page touches, distinct pages and
 * lines, and the reuse histogram for buckets=6 (0, 1, 2-3, 4-7, 8-15, 16 and up), each worked out
 * by hand in the comment above the row. */
static const struct {
  const char *name;
  guint page_bytes;
  guint line_bytes;
  const char *trace;
  guint64 page_accesses, pages, lines;
  guint64 hist[6];
} micro_rows[] = {
  /* Pages A B A C B A: distances -, -, 1, -, 2, 2. Lines 0, 64, 0, 128, 64, 63: four. */
  { "A B A C B A", 4096, 64, "0/8 1000/8 8/8 2000/8 1010/8 ff8/8", 6, 3, 4, { 0, 1, 2, 0, 0, 0 } },
  /* One line of one page, three times: distances -, 0, 0. */
  { "immediate reuse", 4096, 64, "40/4 44/4 48/4", 3, 1, 1, { 2, 0, 0, 0, 0, 0 } },
  /* Bytes 0xffc..0x1003: pages 0 and 1, lines 63 and 64. */
  { "straddling access", 4096, 64, "ffc/8", 2, 2, 2, { 0 } },
  /* Touches page 0, page 1, then page 0 again at distance 1; lines 63, 64, 0. */
  { "straddle then reuse", 4096, 64, "ffc/8 0/1", 3, 2, 3, { 0, 1, 0, 0, 0, 0 } },
  /* 64-byte pages, 16-byte lines: bytes 0x3c..0x43 are pages 0, 1 and lines 3, 4. */
  { "small pages", 64, 16, "3c/8", 2, 2, 2, { 0 } },
  /* Bytes 0x3c..0x83 of 64-byte pages and lines: pages and lines 0, 1, 2. */
  { "one access over three pages", 64, 64, "3c/72", 3, 3, 3, { 0 } },
  /* Writes and modifies touch like reads: pages 0, 1, 0 at distance 1. */
  { "writes and modifies", 4096, 64, "w0/8 m1000/8 0/8", 3, 2, 2, { 0, 1, 0, 0, 0, 0 } },
  /* Operation counts touch nothing: still pages 0, 1, 0. */
  { "ops ignored", 4096, 64, "ops 0/8 ops ops 1000/8 ops 0/8", 3, 2, 2, { 0, 1, 0, 0, 0, 0 } },
  /* The last 8 bytes of the address space: one page, one line. */
  { "top of the address space", 4096, 64, "fffffffffffffff8/8", 1, 1, 1, { 0 } },
  /* Bytes 0xff..fc to 0x3 wrap; the access ends at the top: one page, one line. */
  { "wrapping access", 4096, 64, "fffffffffffffffc/8", 1, 1, 1, { 0 } },
  /* The smallest pages and lines, at the very last byte: page and line 2^63 - 1, twice. */
  { "last byte, 2-byte pages", 2, 2, "ffffffffffffffff/1 ffffffffffffffff/1", 2, 1, 1,
    { 1, 0, 0, 0, 0, 0 } },
  /* Pages 0..4, then 0: distance 4. */
  { "distance 4", 4096, 64, "0/1 1000/1 2000/1 3000/1 4000/1 0/1", 6, 5, 5, { 0, 0, 0, 1, 0, 0 } },
};

static void
check_report (const char *row, const MdlReport *r, guint64 page_accesses, guint64 pages,
              guint64 lines, const guint64 *hist, guint n_buckets)
{
  if (test_report_count (r, "page_accesses") != page_accesses
      || test_report_count (r, "pages") != pages
      || test_report_count (r, "lines") != lines || test_report_count (r, "reuse_cold") != pages)
    fail_msg ("%s: page_accesses %" G_GUINT64_FORMAT " (expected %" G_GUINT64_FORMAT "), pages %"
              G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT "), lines %" G_GUINT64_FORMAT " (%"
              G_GUINT64_FORMAT "), reuse_cold %" G_GUINT64_FORMAT, row,
              test_report_count (r, "page_accesses"), page_accesses,
              test_report_count (r, "pages"), pages,
              test_report_count (r, "lines"), lines, test_report_count (r, "reuse_cold"));
  assert_int_equal (mdl_report_n_counters (r), 4 + n_buckets);
  for (guint b = 0; b < n_buckets; b++)
    {
      const MdlCounter *c = mdl_report_counter (r, 4 + b);
      if (c->count != hist[b])
        fail_msg ("%s: %s = %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, row, c->name,
                  c->count, hist[b]);
    }
}

/* Ensure each hand-worked micro-trace gives its page touches, pages, lines and histogram. */
static void
test_micro_traces (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (micro_rows); i++)
    {
      g_autofree char *spec = g_strdup_printf ("footprint:page_bytes=%u,line_bytes=%u,buckets=6",
                                               micro_rows[i].page_bytes, micro_rows[i].line_bytes);
      g_autoptr (MdlEngine) e = footprint_new (spec);
      g_autoptr (GArray) events = parse_trace (micro_rows[i].trace);
      g_autoptr (MdlReport) r = NULL;
      MdlEventBatch b = { .cpu = (const MdlCpuEvent *) (void *) events->data, .n_cpu = events->len };
      assert_true (mdl_engine_consume (e, &b, NULL));
      r = mdl_engine_report (e);
      check_report (micro_rows[i].name, r, micro_rows[i].page_accesses, micro_rows[i].pages,
                    micro_rows[i].lines, micro_rows[i].hist, 6);
    }
}

/* Rows: a stack distance d (pages 0..d touched, then page 0 again) and the bucket it must land in,
 * for the bucket count given: bucket 0 is d = 0, bucket b >= 1 is 2^(b-1)..2^b - 1, and the last
 * bucket is open-ended. */
static const struct {
  guint buckets;
  guint64 distance;
  const char *bucket;
} distance_rows[] = {
  { 6, 0, "reuse_0" },
  { 6, 1, "reuse_1" },
  { 6, 2, "reuse_2_3" },
  { 6, 3, "reuse_2_3" },
  { 6, 4, "reuse_4_7" },
  { 6, 7, "reuse_4_7" },
  { 6, 8, "reuse_8_15" },
  { 6, 15, "reuse_8_15" },
  { 6, 16, "reuse_16_up" },
  { 6, 100, "reuse_16_up" },
  { 22, 1000, "reuse_512_1023" },
  { 22, 1024, "reuse_1024_2047" },
  { 2, 1, "reuse_1_up" },
  { 2, 5, "reuse_1_up" },
  { 3, 1, "reuse_1" },
  { 3, 2, "reuse_2_up" },
};

/* Ensure each stack distance lands in its bucket, and no reuse lands anywhere else. */
static void
test_distances_land_in_their_buckets (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (distance_rows); i++)
    {
      g_autofree char *spec = g_strdup_printf ("footprint:buckets=%u", distance_rows[i].buckets);
      g_autoptr (MdlEngine) e = footprint_new (spec);
      g_autoptr (GArray) events = g_array_new (FALSE, TRUE, sizeof (MdlCpuEvent));
      g_autoptr (MdlReport) r = NULL;
      MdlEventBatch b;
      gboolean found = FALSE;
      guint64 d = distance_rows[i].distance;
      /* d = 0 is page 0 twice; otherwise pages 0..d, then page 0. */
      for (guint64 p = 0; p <= d; p++)
        {
          MdlCpuEvent ev = { .kind = MDL_CPU_READ, .size = 4, .addr = p * 4096 };
          g_array_append_val (events, ev);
        }
      g_array_append_val (events, ((MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 4, .addr = 0 }));
      b = (MdlEventBatch) { .cpu = (const MdlCpuEvent *) (void *) events->data, .n_cpu = events->len };
      assert_true (mdl_engine_consume (e, &b, NULL));
      r = mdl_engine_report (e);
      assert_int_equal (mdl_report_n_counters (r), 4 + distance_rows[i].buckets);
      for (guint c = 4; c < mdl_report_n_counters (r); c++)
        {
          const MdlCounter *k = mdl_report_counter (r, c);
          gboolean here = strcmp (k->name, distance_rows[i].bucket) == 0;
          found |= here;
          if (k->count != (here ? 1u : 0u))
            fail_msg ("buckets=%u, distance %" G_GUINT64_FORMAT ": %s = %" G_GUINT64_FORMAT
                      ", expected the reuse in %s", distance_rows[i].buckets, d, k->name, k->count,
                      distance_rows[i].bucket);
        }
      if (!found)
        fail_msg ("buckets=%u: no counter named %s", distance_rows[i].buckets,
                  distance_rows[i].bucket);
    }
}

/* Ensure the bucket names for the smallest, default and largest bucket counts. */
static void
test_bucket_names (void **state)
{
  g_autoptr (MdlEngine) two = footprint_new ("footprint:buckets=2");
  g_autoptr (MdlEngine) def = footprint_new ("footprint");
  g_autoptr (MdlEngine) max = footprint_new ("footprint:buckets=64");
  g_autoptr (MdlReport) r2 = mdl_engine_report (two);
  g_autoptr (MdlReport) r22 = mdl_engine_report (def);
  g_autoptr (MdlReport) r64 = mdl_engine_report (max);
  GError *error = NULL;
  (void) state;
  assert_int_equal (mdl_report_n_counters (r2), 6);
  assert_string_equal (mdl_report_counter (r2, 0)->name, "page_accesses");
  assert_string_equal (mdl_report_counter (r2, 1)->name, "pages");
  assert_string_equal (mdl_report_counter (r2, 2)->name, "lines");
  assert_string_equal (mdl_report_counter (r2, 3)->name, "reuse_cold");
  assert_string_equal (mdl_report_counter (r2, 4)->name, "reuse_0");
  assert_string_equal (mdl_report_counter (r2, 5)->name, "reuse_1_up");
  /* 22 buckets: the last is 2^20 and up, the one before 2^19..2^20 - 1. */
  assert_int_equal (mdl_report_n_counters (r22), 26);
  assert_string_equal (mdl_report_counter (r22, 24)->name, "reuse_524288_1048575");
  assert_string_equal (mdl_report_counter (r22, 25)->name, "reuse_1048576_up");
  /* 64 buckets: the last is 2^62 and up. */
  assert_int_equal (mdl_report_n_counters (r64), 68);
  assert_string_equal (mdl_report_counter (r64, 66)->name,
                       "reuse_2305843009213693952_4611686018427387903");
  assert_string_equal (mdl_report_counter (r64, 67)->name, "reuse_4611686018427387904_up");

  assert_null (mdl_engine_new ("footprint:buckets=65", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "footprint: buckets=65 is out of range (valid: 2..64)");
  assert_null (mdl_engine_new ("footprint:page_bytes=1", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "footprint: page_bytes=1 is out of range (valid: 2..1099511627776)");
  assert_null (mdl_engine_new ("footprint:line_bytes=48", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "footprint: line_bytes=48 is not a power of two");
}

/* Ensure each active lane of a warp memory instruction is an access, in lane order, through both
 * address forms, while other instructions touch nothing. Worked by hand, 4 KiB pages:
 *   strided load, lanes 0, 1, 3 at 0x1000 + lane * 0x1000: pages 1, 2, 4 (cold)
 *   listed store, lanes 0, 1 at 0x1008, 0x1010: page 1 at distance 2 (pages 2, 4), then 0
 *   alu: nothing
 *   strided 8-byte load, lane 0 at 0x2ffc: pages 2 (distance 2: pages 4, 1) and 3 (cold)
 * Page touches 7, pages 4, lines 64, 128, 256, 191, 192 = 5; reuse_0 1, reuse_2_3 2. */
static void
test_warp_lanes_are_accesses (void **state)
{
  static const guint64 lanes[] = { 0x1008, 0x1010 };
  static const MdlWarpEvent warp[] = {
    { .active = 0xb, .base = 0x1000, .stride = 0x1000, .flags = MDL_WARP_STRIDED, .width = 4,
      .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL },
    { .active = 0x3, .first_addr = 0, .width = 8, .op = MDL_WARP_STORE, .space = MDL_SPACE_GLOBAL },
    { .active = 0xff, .op = MDL_WARP_ALU },
    { .active = 0x1, .base = 0x2ffc, .stride = 0, .flags = MDL_WARP_STRIDED, .width = 8,
      .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL },
  };
  static const guint64 hist[6] = { 1, 0, 2, 0, 0, 0 };
  MdlEventBatch b = { .warp = warp, .n_warp = G_N_ELEMENTS (warp), .lane_addrs = lanes,
                      .n_lane_addrs = G_N_ELEMENTS (lanes) };
  g_autoptr (MdlEngine) e = footprint_new ("footprint:buckets=6");
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (warp); i++)
    assert_true (mdl_warp_event_check (&b, &warp[i], 32, NULL));
  assert_true (mdl_engine_consume (e, &b, NULL));
  r = mdl_engine_report (e);
  check_report ("warp lanes", r, 7, 4, 5, hist, 6);
}

/* Ensure instruction fetches (reads flagged MDL_CPU_FLAG_FETCH) touch nothing: they are RAM
 * operations, not data accesses. One fetch at page 5 and one read at page 1: one page, one line. */
static void
test_fetches_are_not_accesses (void **state)
{
  static const MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 4, .addr = 0x5000 },
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 },
  };
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
  g_autoptr (MdlEngine) e = footprint_new ("footprint");
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  assert_true (mdl_engine_consume (e, &b, NULL));
  r = mdl_engine_report (e);
  assert_int_equal (test_report_count (r, "page_accesses"), 1);
  assert_int_equal (test_report_count (r, "pages"), 1);
  assert_int_equal (test_report_count (r, "lines"), 1);
}

/* Feeds @n_passes sequential passes over pages 0..@n_pages-1 (4 KiB pages, one 8-byte read each),
 * in batches of 1000. */
static void
feed_passes (MdlEngine *e, guint64 n_pages, guint n_passes)
{
  MdlCpuEvent buf[1000];
  gsize len = 0;
  for (guint pass = 0; pass < n_passes; pass++)
    for (guint64 p = 0; p < n_pages; p++)
      {
        buf[len++] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = p * 4096 };
        if (len == G_N_ELEMENTS (buf) || (pass + 1 == n_passes && p + 1 == n_pages))
          {
            MdlEventBatch b = { .cpu = buf, .n_cpu = len };
            assert_true (mdl_engine_consume (e, &b, NULL));
            len = 0;
          }
      }
}

/* Ensure distances stay exact across Fenwick renumbering with many live pages. Three passes over
 * 40000 pages: 120000 touches, 40000 cold, and 80000 reuses each at distance 39999, which lies in
 * 2^15..2^16 - 1 (bucket reuse_32768_65535). The engine's tree holds 65536 times, so it renumbers
 * at touch 65536 (40000 live pages; room grows to 2 * 40000 + 1024 = 81024) and again at touch
 * 65536 + 81024 - 40000 = 106560. */
static void
test_distances_survive_renumbering_with_many_pages (void **state)
{
  g_autoptr (MdlEngine) e = footprint_new ("footprint");
  g_autoptr (MdlReport) r = NULL;
  guint64 hist[22] = { 0 };
  (void) state;
  feed_passes (e, 40000, 3);
  r = mdl_engine_report (e);
  hist[16] = 80000;
  assert_string_equal (mdl_report_counter (r, 4 + 16)->name, "reuse_32768_65535");
  check_report ("3 x 40000 pages", r, 120000, 40000, 40000, hist, 22);
}

/* Ensure distances stay exact across renumbering with few live pages: pages 0 and 1 alternate for
 * 70000 touches; after the two cold touches every reuse is at distance 1. */
static void
test_distances_survive_renumbering_with_two_pages (void **state)
{
  g_autoptr (MdlEngine) e = footprint_new ("footprint:buckets=4");
  g_autoptr (MdlReport) r = NULL;
  guint64 hist[4] = { 0, 69998, 0, 0 };
  (void) state;
  feed_passes (e, 2, 35000);
  r = mdl_engine_report (e);
  check_report ("2 pages x 35000", r, 70000, 2, 2, hist, 4);
}

/* ---- property test against tests/ref/reuse.c ---- */

/* The bucket of stack distance @d among @n: 0 for d = 0, else 1 + floor(log2 d), capped. */
static guint
ref_bucket (guint64 d, guint n)
{
  guint b = 0;
  guint64 lo = 1;
  if (d > 0)
    for (b = 1; lo * 2 <= d && lo * 2 != 0; b++)
      lo *= 2;
  return MIN (b, n - 1);
}

typedef struct {
  RefReuse *stack;
  GArray *lines;       /* guint64, every line touched, duplicates included */
  guint64 *hist;
  guint64 page_accesses;
  guint page_shift, line_shift, n_buckets;
} Expect;

static void
expect_access (Expect *x, guint64 addr, guint64 size)
{
  guint64 last = addr + size - 1; /* the generator keeps addresses far below 2^64 */
  for (guint64 p = addr >> x->page_shift; p <= last >> x->page_shift; p++)
    {
      gint64 d = ref_reuse_touch (x->stack, p);
      x->page_accesses++;
      if (d != REF_REUSE_COLD)
        x->hist[ref_bucket ((guint64) d, x->n_buckets)]++;
    }
  for (guint64 l = addr >> x->line_shift; l <= last >> x->line_shift; l++)
    g_array_append_val (x->lines, l);
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static guint64
distinct_lines (GArray *lines)
{
  guint64 n = 0;
  qsort (lines->data, lines->len, sizeof (guint64), cmp_u64);
  for (guint i = 0; i < lines->len; i++)
    n += i == 0 || g_array_index (lines, guint64, i) != g_array_index (lines, guint64, i - 1);
  return n;
}

/* Draws the next address of a trace: random within the region, sequential, or near the last. */
static guint64
next_addr (GRand *rng, guint64 base, guint64 region_bytes, guint64 page_bytes, guint64 *cursor,
           guint mode)
{
  switch (mode)
    {
    case 0: /* random */
      *cursor = (guint64) g_rand_double_range (rng, 0, (double) region_bytes);
      break;
    case 1: /* sequential */
      *cursor += (guint64) g_rand_int_range (rng, 1, 17);
      break;
    default: /* local: within three pages either side, wrapping around the region */
      {
        gint64 c = (gint64) *cursor
                   + g_rand_int_range (rng, -3 * (gint32) page_bytes, 3 * (gint32) page_bytes);
        c %= (gint64) region_bytes;
        *cursor = (guint64) (c < 0 ? c + (gint64) region_bytes : c);
      }
      break;
    }
  *cursor %= region_bytes;
  return base + *cursor;
}

/* Runs one random trace through the engine and the reference and compares every counter. Traces
 * mix random, sequential and local accesses, CPU batches of random length and strided or listed
 * warp instructions; @long_run makes it longer than 65536 page touches. */
static void
run_random_trace (guint32 seed, guint trace, gboolean long_run)
{
  g_autoptr (GRand) rng = g_rand_new_with_seed (seed + trace);
  guint page_shift = (guint) g_rand_int_range (rng, 6, 14);           /* 64 B .. 8 KiB */
  guint line_shift = (guint) g_rand_int_range (rng, 4, MIN (page_shift, 8) + 1);
  guint n_buckets = (guint) g_rand_int_range (rng, 2, 25);
  guint64 page_bytes = 1ull << page_shift;
  guint64 region_pages = long_run ? (guint64) g_rand_int_range (rng, 8, 200)
                                  : (guint64) g_rand_int_range (rng, 1, 1500);
  guint64 region_bytes = region_pages * page_bytes;
  guint64 base = (guint64) g_rand_int_range (rng, 0, 1 << 20) << 24;
  guint64 target = long_run ? 70000 + (guint64) g_rand_int_range (rng, 0, 20000)
                            : (guint64) g_rand_int_range (rng, 1, 3000);
  guint64 cursor = 0;
  g_autofree char *spec = g_strdup_printf ("footprint:page_bytes=%" G_GUINT64_FORMAT
                                           ",line_bytes=%u,buckets=%u", page_bytes,
                                           1u << line_shift, n_buckets);
  g_autoptr (MdlEngine) e = footprint_new (spec);
  g_autoptr (MdlReport) r = NULL;
  g_autofree guint64 *hist = g_new0 (guint64, n_buckets);
  Expect x = { ref_reuse_new (), g_array_new (FALSE, FALSE, sizeof (guint64)), hist, 0,
               page_shift, line_shift, n_buckets };
  g_autoptr (GArray) cpu = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));

  while (x.page_accesses < target)
    {
      guint mode = (guint) g_rand_int_range (rng, 0, 3);
      if (g_rand_int_range (rng, 0, 20) == 0)
        {
          /* A warp memory instruction: lanes in lane order, strided or listed. */
          guint64 addrs[MDL_WARP_MAX_LANES];
          MdlWarpEvent w = { .active = ((guint64) g_rand_int (rng) << 32 | g_rand_int (rng)) | 1,
                             .width = (guint16) (1u << g_rand_int_range (rng, 0, 4)),
                             .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL };
          MdlEventBatch b = { .warp = &w, .n_warp = 1 };
          guint n = 0;
          if (g_rand_boolean (rng))
            {
              w.flags = MDL_WARP_STRIDED;
              w.base = next_addr (rng, base, region_bytes, page_bytes, &cursor, mode);
              w.stride = g_rand_int_range (rng, 0, 3) * (gint64) w.width;
              w.active &= 0xffffffff;
            }
          else
            {
              for (guint64 m = w.active; m; m &= m - 1)
                addrs[n++] = next_addr (rng, base, region_bytes, page_bytes, &cursor, mode);
              b.lane_addrs = addrs;
              b.n_lane_addrs = n;
            }
          assert_true (mdl_warp_event_check (&b, &w, 64, NULL));
          for (guint64 m = w.active, i = 0; m; m &= m - 1, i++)
            {
              guint lane = (guint) __builtin_ctzll (m);
              expect_access (&x, w.flags ? w.base + (guint64) ((gint64) lane * w.stride) : addrs[i],
                             w.width);
            }
          assert_true (mdl_engine_consume (e, &b, NULL));
          continue;
        }
      /* A run of CPU accesses of one mode, now and then spanning several pages. */
      for (gint k = g_rand_int_range (rng, 1, 300); k > 0; k--)
        {
          MdlCpuEvent ev = { .kind = (guint8) g_rand_int_range (rng, 0, MDL_CPU_N_KINDS) };
          if (!mdl_cpu_is_access (ev.kind))   /* an op count or a branch: touches nothing */
            ev.addr = 3;
          else
            {
              ev.size = g_rand_int_range (rng, 0, 50) == 0
                          ? (guint16) MIN (g_rand_int_range (rng, 1, 4 * (gint32) page_bytes), 65535)
                          : (guint16) g_rand_int_range (rng, 1, 65);
              ev.addr = next_addr (rng, base, region_bytes, page_bytes, &cursor, mode);
              expect_access (&x, ev.addr, ev.size);
            }
          g_array_append_val (cpu, ev);
        }
      {
        MdlEventBatch b = { .cpu = (const MdlCpuEvent *) (void *) cpu->data, .n_cpu = cpu->len };
        assert_true (mdl_engine_consume (e, &b, NULL));
        g_array_set_size (cpu, 0);
      }
    }

  r = mdl_engine_report (e);
  {
    g_autofree char *row = g_strdup_printf ("seed %u (MODELS_TEST_SEED), trace %u, %s, %"
                                            G_GUINT64_FORMAT " page touches", seed, trace, spec,
                                            x.page_accesses);
    check_report (row, r, x.page_accesses, ref_reuse_pages (x.stack), distinct_lines (x.lines),
                  hist, n_buckets);
  }
  ref_reuse_free (x.stack);
  g_array_unref (x.lines);
}

/* Ensure the engine's counts equal the slow reference's on 200 seeded random traces, every 25th
 * of them longer than 65536 page touches (so that the Fenwick tree is renumbered). */
static void
test_agrees_with_reference_on_random_traces (void **state)
{
  guint32 seed = test_seed (DEFAULT_SEED);
  (void) state;
  for (guint t = 0; t < 200; t++)
    run_random_trace (seed, t, t % 25 == 24);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_micro_traces),
    cmocka_unit_test (test_distances_land_in_their_buckets),
    cmocka_unit_test (test_bucket_names),
    cmocka_unit_test (test_warp_lanes_are_accesses),
    cmocka_unit_test (test_fetches_are_not_accesses),
    cmocka_unit_test (test_distances_survive_renumbering_with_many_pages),
    cmocka_unit_test (test_distances_survive_renumbering_with_two_pages),
    cmocka_unit_test (test_agrees_with_reference_on_random_traces),
  };
  return cmocka_run_group_tests_name ("footprint", tests, NULL, NULL);
}
