/* Tests of the Dinero din reader and writer (src/traces/reader-din.c, writer-din.c), the raw
 * address reader (reader-raw.c), and instruction fetches kept as records (Lackey and din): the
 * records each fixture in tests/data/din/ gives, written out by hand; errors that name FILE:LINE;
 * detection; the din writer's exact text and its round trip, op counts included (Lackey to din
 * keeps VAT's cost); pumping one record at a time. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>

typedef struct {
  guint8 kind;
  guint8 flags;
  guint16 size;
  guint64 addr;
} Want;

#define R(size, addr) { MDL_CPU_READ, 0, size, addr }
#define W(size, addr) { MDL_CPU_WRITE, 0, size, addr }
#define F(size, addr) { MDL_CPU_READ, MDL_CPU_FLAG_FETCH, size, addr }
#define OPS(n) { MDL_CPU_OPS, 0, 0, n }

static char *
fixture (const char *name)
{
  g_autofree char *src = g_path_get_dirname (__FILE__);
  return g_build_filename (src, "data", "din", name, NULL);
}

/* Reads @path as @format (fetches kept or not) in pump steps of @budget records; returns the
 * collector, or fails the test with the reader's error. *@skipped gets the skip count. */
static TestCollector *
read_all (const char *path, MdlTraceFormat format, gboolean fetches, guint64 budget,
          MdlTraceFormat *detected, guint64 *skipped)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceReader) r = mdl_trace_reader_open (path, format, &error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  if (r == NULL)
    fail_msg ("%s: %s", path, error->message);
  mdl_trace_reader_set_fetches (r, fetches);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, budget, &done, &error))
      fail_msg ("%s: %s", path, error->message);
  if (detected)
    *detected = mdl_trace_reader_format (r);
  if (skipped)
    *skipped = mdl_trace_reader_n_skipped (r);
  return c;
}

/* Like assert_records, for a read in small pump steps: a step may end inside a run of
 * instructions, which then makes two op counts rather than one; the accesses and fetches must be
 * the same, in order, and the op counts must add up to the same number. */
static void
assert_records_split (const char *what, const TestCollector *c, const Want *want, guint n)
{
  guint k = 0;
  guint64 ops = 0, want_ops = 0;
  for (guint i = 0; i < n; i++)
    if (want[i].kind == MDL_CPU_OPS)
      want_ops += want[i].addr;
  for (guint i = 0; i < c->cpu->len; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (e->kind == MDL_CPU_OPS)
        {
          ops += e->addr;
          continue;
        }
      while (k < n && want[k].kind == MDL_CPU_OPS)
        k++;
      if (k == n || e->kind != want[k].kind || e->flags != want[k].flags || e->size != want[k].size
          || e->addr != want[k].addr)
        fail_msg ("%s: access %u differs", what, i + 1);
      k++;
    }
  while (k < n && want[k].kind == MDL_CPU_OPS)
    k++;
  if (k != n || ops != want_ops)
    fail_msg ("%s: %u of %u accesses, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " ops", what, k,
              n, ops, want_ops);
}

static void
assert_records (const char *what, const TestCollector *c, const Want *want, guint n)
{
  if (c->cpu->len != n)
    fail_msg ("%s: %u records, expected %u", what, c->cpu->len, n);
  for (guint i = 0; i < n; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (e->kind != want[i].kind || e->flags != want[i].flags || e->size != want[i].size
          || e->addr != want[i].addr)
        fail_msg ("%s: record %u: got kind %u flags %u size %u addr 0x%" G_GINT64_MODIFIER "x, "
                  "expected kind %u flags %u size %u addr 0x%" G_GINT64_MODIFIER "x", what, i + 1,
                  e->kind, e->flags, e->size, e->addr, want[i].kind, want[i].flags, want[i].size,
                  want[i].addr);
    }
}

/* classic.din, line by line: a comment (skipped); "0 1000" read; "1 0x2004 ..." write (the rest
 * ignored); two fetches (one op count of 2); "0 1003" a read of the word at 0x1000 (Dinero rounds
 * to 4 bytes); an empty line (skipped); "3 5000" misc, a read; labels 4 and 5 (skipped); "  1
 * ABCDEF" a write of the word at 0xabcdec. Four lines skipped. Every reference is 4 bytes. */
static const Want classic_want[] = {
  R (4, 0x1000), W (4, 0x2004), OPS (2), R (4, 0x1000), R (4, 0x5000), W (4, 0xabcdec),
};
/* The same with fetches kept: the op count comes first, then the two fetches. */
static const Want classic_fetch_want[] = {
  R (4, 0x1000), W (4, 0x2004), OPS (2), F (4, 0x400000), F (4, 0x400004), R (4, 0x1000),
  R (4, 0x5000), W (4, 0xabcdec),
};
/* extended.din: a comment; r 8 bytes; w 4 bytes at 0x2004; i and I (fetches of 3 and 5 bytes);
 * m (misc: a read) of 0x10 bytes; c and v (skipped); W 1 byte. Three lines skipped. */
static const Want extended_want[] = {
  R (8, 0x1000), W (4, 0x2004), OPS (2), R (16, 0x5000), W (1, 0x7fffffffe000),
};
static const Want extended_fetch_want[] = {
  R (8, 0x1000), W (4, 0x2004), OPS (2), F (3, 0x400000), F (5, 0x400003), R (16, 0x5000),
  W (1, 0x7fffffffe000),
};

/* Ensure both din variants give the records derived above, are detected, and count what they skip. */
static void
test_din_fixtures (void **state)
{
  static const struct {
    const char *file;
    gboolean fetches;
    const Want *want;
    guint n;
    guint64 skipped;
  } rows[] = {
    { "classic.din", FALSE, classic_want, G_N_ELEMENTS (classic_want), 4 },
    { "classic.din", TRUE, classic_fetch_want, G_N_ELEMENTS (classic_fetch_want), 4 },
    { "extended.din", FALSE, extended_want, G_N_ELEMENTS (extended_want), 3 },
    { "extended.din", TRUE, extended_fetch_want, G_N_ELEMENTS (extended_fetch_want), 3 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    for (guint64 budget = 0; budget < 3; budget++)
      {
        g_autofree char *path = fixture (rows[i].file);
        MdlTraceFormat detected;
        guint64 skipped;
        TestCollector *c = read_all (path, MDL_TRACE_AUTO, rows[i].fetches, budget, &detected,
                                     &skipped);
        g_autofree char *what = g_strdup_printf ("%s%s, steps of %" G_GUINT64_FORMAT, rows[i].file,
                                                 rows[i].fetches ? " with fetches" : "", budget);
        assert_int_equal (detected, MDL_TRACE_DIN);
        assert_int_equal (skipped, rows[i].skipped);
        if (budget == 0)
          assert_records (what, c, rows[i].want, rows[i].n);
        else
          assert_records_split (what, c, rows[i].want, rows[i].n);
        test_collector_free (c);
      }
}

/* Lackey text with fetches kept: the op count of each run of "I" lines comes first, then one
 * fetch per line; without, only the op counts. */
static void
test_lackey_fetches (void **state)
{
  static const char text[] = "==1== banner\nI  04000000,3\nI  04000003,2\n L 1000,8\n S 2000,4\n"
                             "I  04000005,1\n";
  static const Want with[] = {
    OPS (2), F (3, 0x4000000), F (2, 0x4000003), R (8, 0x1000), W (4, 0x2000), OPS (1),
    F (1, 0x4000005),
  };
  static const Want without[] = { OPS (2), R (8, 0x1000), W (4, 0x2000), OPS (1) };
  g_autofree char *path = test_write_temp ("f.lackey", text, strlen (text));
  (void) state;
  for (guint64 budget = 0; budget < 3; budget++)
    {
      TestCollector *a = read_all (path, MDL_TRACE_AUTO, TRUE, budget, NULL, NULL);
      TestCollector *b = read_all (path, MDL_TRACE_AUTO, FALSE, budget, NULL, NULL);
      if (budget == 0)
        {
          assert_records ("lackey with fetches", a, with, G_N_ELEMENTS (with));
          assert_records ("lackey without fetches", b, without, G_N_ELEMENTS (without));
        }
      assert_records_split ("lackey with fetches", a, with, G_N_ELEMENTS (with));
      assert_records_split ("lackey without fetches", b, without, G_N_ELEMENTS (without));
      test_collector_free (a);
      test_collector_free (b);
    }
  g_unlink (path);
}

static const struct {
  const char *text;
  const char *needle;
} bad_din[] = {
  { "0 1000\nr 2000 4\n", "bad.din:2: expected a classic din record" },
  { "r 1000 4\n\n0 2000\n", "bad.din:3: expected an extended din record" },
  { "0 1000\n7 1000\n", "bad.din:2: unknown label (valid: 0 read, 1 write" },
  { "0 10g0\n", "bad.din:1: address: 'g' is not a hex digit" },
  { "# c\nr 1000\n", "bad.din:2: missing size (hex)" },
  { "r 1000 0\n", "bad.din:1: size 0x0 outside 1..0xffff" },
  { "r 1000 10000\n", "bad.din:1: size 0x10000 outside" },
  { "rw 1000 4\n", "bad.din:1: the access type is one letter" },
  { "0\n", "bad.din:1: missing address (hex)" },
  { "0 1000\n0 20", "bad.din:2: the last line, \"0 20\", has no newline" },
  { "x 1000 4\n", "bad.din:1: expected a din record: \"LABEL ADDRESS\" (classic) or" },
  { "0 11111111111111111\n", "bad.din:1: address wider than 64 bits" },
  { "0 1000\n0 2000\n0 3x00\n", "bad.din:3: address: 'x' is not a hex digit, got \"0 3x00\"" },
};

/* Ensure malformed din fails with MDL_ERROR_FORMAT naming FILE:LINE and the problem. */
static void
test_din_errors_name_file_and_line (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_din); i++)
    {
      g_autofree char *path = test_write_temp ("bad.din", bad_din[i].text, strlen (bad_din[i].text));
      g_autoptr (MdlTraceReader) r = NULL;
      GError *error = NULL;
      MdlSink sink = { NULL, NULL, NULL };
      TestCollector *c = test_collector_new ();
      gboolean done = FALSE;
      sink = test_collector_sink (c);
      r = mdl_trace_reader_open (path, MDL_TRACE_DIN, &error);
      assert_non_null (r);
      while (!done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
        ;
      if (done)
        fail_msg ("row %u: \"%s\" was accepted", i, bad_din[i].text);
      assert_mdl_error (error, MDL_ERROR_FORMAT, bad_din[i].needle);
      test_collector_free (c);
      g_unlink (path);
    }
}

/* Ensure the writer writes extended din exactly: a modify as r then w, a fetch as i, an op count
 * as that many "i" lines (the fetch that follows the count of 5 is one of them, so 4 placeholders
 * "i 0 1" come before the next data access), markers left out and counted; and that reading it
 * back gives the same accesses and the same 5 operations. */
static void
test_din_writer (void **state)
{
  static const MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 },
    { .kind = MDL_CPU_WRITE, .size = 4, .addr = 0x2004 },
    { .kind = MDL_CPU_MODIFY, .size = 2, .addr = 0x30 },
    { .kind = MDL_CPU_OPS, .addr = 5 },
    { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 3, .addr = 0x400000 },
    { .kind = MDL_CPU_READ, .size = 0x1234, .addr = 0 },
    { .kind = MDL_CPU_OPS, .addr = 2 },
  };
  static const char expect[] = "r 1000 8\nw 2004 4\nr 30 2\nw 30 2\ni 400000 3\n"
                               "i 0 1\ni 0 1\ni 0 1\ni 0 1\nr 0 1234\ni 0 1\ni 0 1\n";
  /* Read back with fetches kept: the run of five "i" lines is an op count of 5 and five fetches,
   * the last two lines an op count of 2 and two fetches. */
  static const Want back[] = {
    R (8, 0x1000), W (4, 0x2004), R (2, 0x30), W (2, 0x30), OPS (5), F (3, 0x400000), F (1, 0),
    F (1, 0), F (1, 0), F (1, 0), R (0x1234, 0), OPS (2), F (1, 0), F (1, 0),
  };
  /* Read back without fetches: the op counts alone. */
  static const Want back_ops[] = {
    R (8, 0x1000), W (4, 0x2004), R (2, 0x30), W (2, 0x30), OPS (5), R (0x1234, 0), OPS (2),
  };
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("models-din-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.din", NULL);
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_open (path, MDL_TRACE_AUTO, &error);
  MdlSink sink;
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
  MdlMarker phase = { .kind = MDL_MARK_PHASE_BEGIN, .name = "p" };
  MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "p" };
  g_autofree char *text = NULL;
  TestCollector *c;
  (void) state;
  assert_non_null (w);
  sink = mdl_trace_writer_sink (w);
  assert_true (sink.marker (sink.data, &phase, &error));
  assert_true (sink.batch (sink.data, &b, &error));
  assert_true (sink.marker (sink.data, &end, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  assert_int_equal (mdl_trace_writer_n_dropped (w), 2);
  assert_true (g_file_get_contents (path, &text, NULL, NULL));
  assert_string_equal (text, expect);
  c = read_all (path, MDL_TRACE_AUTO, TRUE, 0, NULL, NULL);
  assert_records ("din read back", c, back, G_N_ELEMENTS (back));
  test_collector_free (c);
  c = read_all (path, MDL_TRACE_AUTO, FALSE, 0, NULL, NULL);
  assert_records ("din read back without fetches", c, back_ops, G_N_ELEMENTS (back_ops));
  test_collector_free (c);
  g_unlink (path);
  g_rmdir (dir);
}

/* Converts @in (format detected, fetches kept or not) to din text at @out through the library's
 * reader and writer, as `models convert` does; returns the writer's dropped count. */
static guint64
convert_to_din (const char *in, gboolean fetches, const char *out)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceReader) r = mdl_trace_reader_open (in, MDL_TRACE_AUTO, &error);
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_open (out, MDL_TRACE_DIN, &error);
  MdlSink sink;
  gboolean done = FALSE;
  assert_non_null (r);
  assert_non_null (w);
  mdl_trace_reader_set_fetches (r, fetches);
  sink = mdl_trace_writer_sink (w);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      fail_msg ("%s -> %s: %s", in, out, error->message);
  if (!mdl_trace_writer_close (w, &error))
    fail_msg ("%s: %s", out, error->message);
  return mdl_trace_writer_n_dropped (w);
}

/* The VAT report of the trace at @path, read as detected. */
static MdlReport *
vat_report_of (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (MdlTraceReader) r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  MdlSink sink;
  gboolean done = FALSE;
  MdlReport **reports, *vat;
  assert_non_null (r);
  assert_true (mdl_pipeline_add_engine_spec (p, "vat:machine=x86-64,policy=lru,W=8", &error));
  sink = mdl_pipeline_sink (p);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      fail_msg ("%s: %s", path, error->message);
  reports = mdl_pipeline_reports (p, NULL);
  vat = reports[0];
  g_free (reports);
  return vat;
}

/* A Lackey trace with 7 instructions in three runs (3, 1, 3) around four data accesses on three
 * pages, one of them a modify. */
static const char lackey_text[] =
  "==7== Lackey, an example Valgrind tool\n"
  "I  04000ac0,3\nI  04000ac3,4\nI  04000ac7,5\n"
  " S 1ffefffd08,8\n"
  "I  04000acc,2\n"
  " L 04223e70,8\n M 04222fc8,4\n"
  "I  04000ace,3\nI  04000ad1,3\nI  04000ad4,6\n"
  " L 7f0000001000,8\n";

/* Ensure converting Lackey to din keeps every RAM operation (issue 20: all 304,744 of a real
 * trace were dropped, so VAT's cost changed): the din trace reads back with the 7 operations
 * counted above, the same TC misses and so the same cost, and nothing is reported dropped. With
 * fetches kept, the conversion is exact: the same records, the fetches' addresses included. */
static void
test_lackey_to_din_keeps_ram_ops (void **state)
{
  g_autofree char *lackey = test_write_temp ("ops.lackey", lackey_text, strlen (lackey_text));
  g_autofree char *din = g_strconcat (lackey, ".din", NULL);
  g_autoptr (MdlReport) before = NULL, after = NULL;
  TestCollector *a, *b;
  (void) state;
  assert_int_equal (convert_to_din (lackey, FALSE, din), 0);
  before = vat_report_of (lackey);
  after = vat_report_of (din);
  assert_int_equal (test_report_count (before, "ram_ops"), 7);
  assert_int_equal (test_report_count (after, "ram_ops"), 7);
  assert_int_equal (test_report_count (after, "tc_misses"), test_report_count (before, "tc_misses"));
  assert_int_equal (test_report_count (after, "cost"), test_report_count (before, "cost"));

  assert_int_equal (convert_to_din (lackey, TRUE, din), 0);
  a = read_all (lackey, MDL_TRACE_AUTO, TRUE, 0, NULL, NULL);
  b = read_all (din, MDL_TRACE_AUTO, TRUE, 0, NULL, NULL);
  /* The one modify is a read and a write in din, Dinero having no modify; everything else, op
   * counts and fetches included, is the same record for record. */
  assert_int_equal (b->cpu->len, a->cpu->len + 1);
  for (guint i = 0, j = 0; i < a->cpu->len; i++, j++)
    {
      const MdlCpuEvent *x = &g_array_index (a->cpu, MdlCpuEvent, i);
      const MdlCpuEvent *y = &g_array_index (b->cpu, MdlCpuEvent, j);
      guint8 kind = x->kind == MDL_CPU_MODIFY ? MDL_CPU_READ : x->kind;
      if (y->kind != kind || y->flags != x->flags || y->size != x->size || y->addr != x->addr)
        fail_msg ("record %u of the Lackey trace (kind %u addr 0x%" G_GINT64_MODIFIER "x) differs "
                  "in din (kind %u addr 0x%" G_GINT64_MODIFIER "x)", i + 1, x->kind, x->addr,
                  y->kind, y->addr);
      if (x->kind == MDL_CPU_MODIFY)
        {
          y = &g_array_index (b->cpu, MdlCpuEvent, ++j);
          assert_true (y->kind == MDL_CPU_WRITE && y->addr == x->addr && y->size == x->size);
        }
    }
  test_collector_free (a);
  test_collector_free (b);
  g_unlink (lackey);
  g_unlink (din);
}

/* Ensure an op count too large to spell out as "i" lines is refused, naming the record. */
static void
test_din_writer_refuses_huge_op_counts (void **state)
{
  static const MdlCpuEvent ev[] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 },
    { .kind = MDL_CPU_OPS, .addr = ((guint64) 1 << 30) + 1 },
  };
  g_autofree char *path = test_write_temp ("huge.din", "", 0);
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_open (path, MDL_TRACE_DIN, NULL);
  MdlEventBatch b = { .cpu = ev, .n_cpu = G_N_ELEMENTS (ev) };
  GError *error = NULL;
  MdlSink sink;
  (void) state;
  assert_non_null (w);
  sink = mdl_trace_writer_sink (w);
  assert_false (sink.batch (sink.data, &b, &error));
  assert_mdl_error (error, MDL_ERROR_UNSUPPORTED, "huge.din: cannot write record 2: an op count "
                    "of 1073741825 would be as many din lines (at most 1073741824)");
  g_unlink (path);
}

/* Ensure raw arrays read as 1-byte reads, only when asked for by name, and that a partial last
 * address is an error naming the record and byte. */
static void
test_raw_addresses (void **state)
{
  static const guint8 bytes[] = {
    0x00, 0x10, 0, 0, 0, 0, 0, 0,                     /* 0x1000 */
    0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,   /* 0x0123456789abcdef */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,   /* the top byte */
    0x01, 0x02, 0x03, 0x04,                           /* half an address */
  };
  static const Want want[] = { R (1, 0x1000), R (1, 0x0123456789abcdefull), R (1, G_MAXUINT64) };
  g_autofree char *good = test_write_temp ("a.raw", bytes, 24);
  g_autofree char *bad = test_write_temp ("b.raw", bytes, sizeof bytes);
  GError *error = NULL;
  MdlTraceReader *r;
  (void) state;
  for (guint64 budget = 0; budget < 3; budget++)
    {
      TestCollector *c = read_all (good, MDL_TRACE_RAW, FALSE, budget, NULL, NULL);
      assert_records ("raw", c, want, G_N_ELEMENTS (want));
      test_collector_free (c);
    }
  /* Not detected: there is no magic to see. */
  r = mdl_trace_reader_open (good, MDL_TRACE_AUTO, &error);
  assert_null (r);
  assert_mdl_error (error, MDL_ERROR_FORMAT, "raw address arrays need");
  error = NULL;
  r = mdl_trace_reader_open (bad, MDL_TRACE_RAW, &error);
  assert_non_null (r);
  {
    TestCollector *c = test_collector_new ();
    MdlSink sink = test_collector_sink (c);
    gboolean done = FALSE;
    while (!done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      ;
    assert_false (done);
    assert_mdl_error (error, MDL_ERROR_FORMAT, "b.raw: record 4 (byte 24): 4 trailing bytes");
    test_collector_free (c);
  }
  mdl_trace_reader_free (r);
  g_unlink (good);
  g_unlink (bad);
}

/* Ensure the format names round-trip. */
static void
test_format_names (void **state)
{
  MdlTraceFormat f;
  GError *error = NULL;
  (void) state;
  assert_true (mdl_trace_format_from_name ("din", &f, NULL));
  assert_int_equal (f, MDL_TRACE_DIN);
  assert_true (mdl_trace_format_from_name ("raw", &f, NULL));
  assert_int_equal (f, MDL_TRACE_RAW);
  assert_string_equal (mdl_trace_format_name (MDL_TRACE_DIN), "din");
  assert_false (mdl_trace_format_from_name ("dinero", &f, &error));
  assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, "din, raw");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_din_fixtures),
    cmocka_unit_test (test_lackey_fetches),
    cmocka_unit_test (test_din_errors_name_file_and_line),
    cmocka_unit_test (test_din_writer),
    cmocka_unit_test (test_lackey_to_din_keeps_ram_ops),
    cmocka_unit_test (test_din_writer_refuses_huge_op_counts),
    cmocka_unit_test (test_raw_addresses),
    cmocka_unit_test (test_format_names),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
