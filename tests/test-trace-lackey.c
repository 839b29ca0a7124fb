/* Tests of Valgrind Lackey text (src/traces/reader-lackey.c, writer-lackey.c): which lines become
 * which records, what is skipped and counted, the exact error for each kind of bad line, and the
 * exact text the writer produces. Expected records are written as short strings: "o3" is an op
 * count of 3, "r7ff0/8" a read of 8 bytes at 0x7ff0, "w" a write, "m" a modify. */
#include "helpers.h"

#include <string.h>
#include <gio/gio.h>

/* The collected CPU events as the short strings above, space-separated. */
static char *
render (const TestCollector *c)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < c->cpu->len; i++)
    {
      const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
      if (i > 0)
        g_string_append_c (s, ' ');
      if (e->thread != 0 || e->site != 0 || e->flags != 0)
        g_string_append_c (s, '!');
      if (e->kind == MDL_CPU_OPS)
        g_string_append_printf (s, "o%" G_GUINT64_FORMAT "%s", e->addr, e->size ? "!" : "");
      else
        g_string_append_printf (s, "%c%" G_GINT64_MODIFIER "x/%u", "rwm"[e->kind], e->addr, e->size);
    }
  return g_string_free (s, FALSE);
}

/* Reads @text as "prog.lackey" into @c; returns the error or NULL; keeps the reader in @keep. */
static GError *
read_text (const char *text, gsize len, MdlTraceFormat format, guint64 max_records,
           TestCollector *c, MdlTraceReader **keep)
{
  GInputStream *in = g_memory_input_stream_new_from_data (text, (gssize) len, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "prog.lackey", format, &error);

  g_object_unref (in);
  return test_collector_drain (c, r, max_records, keep, error);
}

/* Ensure each kind of Lackey line maps to the documented record, instruction runs merge into one
 * op count, and Valgrind's own lines and empty lines are skipped and counted; whatever the number
 * of records per pump call. Expected records worked out by hand from the line rules. */
static const struct {
  const char *name;
  const char *text;
  const char *expect;
  guint skipped;
} good_rows[] = {
  { "one of each", "I  04011d0,3\n L 1ffefff8a8,8\n S 1ffefff8a0,4\n M 0421c7f0,2\n",
    "o1 r1ffefff8a8/8 w1ffefff8a0/4 m421c7f0/2", 0 },
  { "instruction runs merge", "I  1,1\nI  2,1\nI  3,7\n L 10,1\nI  4,1\n", "o3 r10/1 o1", 0 },
  { "Valgrind lines are skipped",
    "==1234== Lackey, an example Valgrind tool\n==1234== Command: ./a\n\nI  0,1\n"
    "--1234-- warning: something\n**1234** oops\n",
    "o1", 5 },
  { "runs merge across skipped lines", "I  1,1\n==1== x\n\nI  2,1\n S 8,8\n", "o2 w8/8", 2 },
  { "blanks after the final newline", " L 7ff0,8\n \t", "r7ff0/8", 0 },
  { "CRLF line ends", " L 7ff0,8\r\n S 10,1\r\n", "r7ff0/8 w10/1", 0 },
  /* the largest size ending on the last byte of memory; one byte further is refused
   * (tests/test-limits.c) */
  { "leading zeros, 64-bit address, largest size",
    " L 0000000000000000ffffffffffff0001,65535\n", "rffffffffffff0001/65535", 0 },
  { "upper-case hex", " S ABCDEF,1\n", "wabcdef/1", 0 },
  { "instruction sizes are ignored", "I  0,0\nI  0,99999999999999999999\n", "o2", 0 },
  { "empty input", "", "", 0 },
  { "only a banner", "==1== hi\n", "", 1 },
};

static void
test_lackey_lines_map_to_records (void **state)
{
  static const guint64 budgets[] = { 0, 1, 2 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (good_rows); i++)
    for (guint j = 0; j < G_N_ELEMENTS (budgets); j++)
      {
        TestCollector *c = test_collector_new ();
        MdlTraceReader *r = NULL;
        GError *error = read_text (good_rows[i].text, strlen (good_rows[i].text), MDL_TRACE_LACKEY,
                                   budgets[j], c, &r);
        g_autofree char *got = NULL;
        if (error)
          fail_msg ("%s: %s", good_rows[i].name, error->message);
        got = render (c);
        if (strcmp (got, good_rows[i].expect) != 0)
          fail_msg ("%s (budget %" G_GUINT64_FORMAT "): expected \"%s\", got \"%s\"",
                    good_rows[i].name, budgets[j], good_rows[i].expect, got);
        if (mdl_trace_reader_n_skipped (r) != good_rows[i].skipped)
          fail_msg ("%s: skipped %" G_GUINT64_FORMAT ", expected %u", good_rows[i].name,
                    mdl_trace_reader_n_skipped (r), good_rows[i].skipped);
        assert_int_equal (mdl_trace_reader_n_records (r), c->cpu->len);
        assert_int_equal (mdl_trace_reader_n_bytes (r), strlen (good_rows[i].text));
        assert_int_equal (mdl_trace_reader_format (r), MDL_TRACE_LACKEY);
        /* The only metadata of Lackey text: the programs of Valgrind's Command: lines. */
        if (strstr (good_rows[i].text, "== Command: ") != NULL)
          {
            assert_int_equal (g_hash_table_size (mdl_trace_reader_meta (r)), 1);
            assert_string_equal (g_hash_table_lookup (mdl_trace_reader_meta (r), "commands"),
                                 "./a\n");
          }
        else
          assert_int_equal (g_hash_table_size (mdl_trace_reader_meta (r)), 0);
        mdl_trace_reader_free (r);
        test_collector_free (c);
      }
}

/* Ensure every kind of bad line is an MDL_ERROR_FORMAT naming the file and line, quoting the line
 * with unprintable bytes escaped. */
static const struct {
  const char *name;
  const char *text;
  const char *needle;
} bad_rows[] = {
  { "unknown letter", "I  1,1\n X 7ff0,8\n",
    "prog.lackey:2: expected \"<I|L|S|M> addr,size\", got \" X 7ff0,8\"" },
  { "non-hex digit", " L 7fg0,8\n", "prog.lackey:1: 'g' is not a hex digit in \" L 7fg0,8\"" },
  { "overlong address", " L 1ffffffffffffffff,8\n",
    "prog.lackey:1: address wider than 64 bits in \" L 1ffffffffffffffff,8\"" },
  { "missing comma", "==9== hi\n\n L 7ff0 8\n",
    "prog.lackey:3: expected ',' after the address in \" L 7ff0 8\"" },
  { "missing address", " L ,8\n", "prog.lackey:1: missing address in \" L ,8\"" },
  { "0x prefix", " L 0x7ff0,8\n", "prog.lackey:1: 'x' is not a hex digit" },
  { "size 0", " S 7ff0,0\n", "prog.lackey:1: size 0 outside 1..65535 in \" S 7ff0,0\"" },
  { "size too large", " S 7ff0,65536\n", "prog.lackey:1: size 65536 outside 1..65535" },
  { "huge size", " S 7ff0,99999999999\n", "prog.lackey:1: size 4294967295+ outside 1..65535" },
  { "missing size", " M 10,\n", "prog.lackey:1: missing size in \" M 10,\"" },
  { "size not decimal", " M 10,a\n", "prog.lackey:1: expected a decimal size after ','" },
  { "trailing junk", " M 10,4 x\n", "prog.lackey:1: trailing characters after the size in" },
  { "instruction with one space", "I 04011d0,3\n", "got \"I 04011d0,3\"" },
  { "instruction with a bad address", "I  04z11d0,3\n", "prog.lackey:1: 'z' is not a hex digit" },
  { "tab instead of space", "\tL 10,4\n", "prog.lackey:1: expected \"<I|L|S|M> addr,size\", got \"\\x09L 10,4\"" },
  { "binary junk", "I  1,1\n\x01\"\xff\n", "prog.lackey:2: expected \"<I|L|S|M> addr,size\", got \"\\x01\\x22\\xff\"" },
  /* " L 7ff8,16" cut after its "1" reads as a valid 1-byte load: only the missing newline tells. */
  { "cut mid-line (no final newline)", "I  0400d7d4,8\n L 7ff8,16\n L 7ff8,1",
    "prog.lackey:3: the last line, \" L 7ff8,1\", has no newline: the trace ends mid-line" },
  { "cut mid-line after a banner", "==1== hi\n L 7ff8,16\n==1== Total", "prog.lackey:3: the last line" },
  { "lone carriage return", "I  1,1\r\r\n", "prog.lackey:1: trailing characters after the size in \"I  1,1\\x0d\"" },
};

static void
test_lackey_rejects_bad_lines_naming_the_line (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_rows); i++)
    {
      TestCollector *c = test_collector_new ();
      GError *error = read_text (bad_rows[i].text, strlen (bad_rows[i].text), MDL_TRACE_LACKEY, 0,
                                 c, NULL);
      if (error == NULL || error->code != MDL_ERROR_FORMAT
          || strstr (error->message, bad_rows[i].needle) == NULL)
        fail_msg ("%s: expected \"%s\", got %s", bad_rows[i].name, bad_rows[i].needle,
                  error ? error->message : "no error");
      g_error_free (error);
      test_collector_free (c);
    }
}

/* Ensure a long bad line is quoted only in part, and a line beyond the 64 KiB limit is an error
 * rather than a reason to grow the buffer. */
static void
test_lackey_long_lines_are_bounded (void **state)
{
  GString *text = g_string_new ("I  1,1\n L ");
  TestCollector *c = test_collector_new ();
  GError *error;
  (void) state;

  for (guint i = 0; i < 200; i++)
    g_string_append_c (text, 'q');
  g_string_append (text, ",8\n");
  error = read_text (text->str, text->len, MDL_TRACE_AUTO, 0, c, NULL);
  {
    /* 80 bytes of the line are quoted: " L " and 77 of the q's */
    g_autofree char *qs = g_strnfill (77, 'q');
    g_autofree char *needle = g_strdup_printf ("prog.lackey:2: 'q' is not a hex digit in \" L %s...\"", qs);
    assert_mdl_error (error, MDL_ERROR_FORMAT, needle);
  }
  g_string_truncate (text, 0);
  g_string_append (text, "==1== ");
  for (guint i = 0; i < 70000; i++)
    g_string_append_c (text, 'x');
  g_string_append (text, "\nI  1,1\n");
  error = read_text (text->str, text->len, MDL_TRACE_AUTO, 0, c, NULL);
  assert_mdl_error (error, MDL_ERROR_FORMAT, "prog.lackey:1: line longer than 65536 bytes in \"==1== xxx");
  g_string_free (text, TRUE);
  test_collector_free (c);
}

/* Ensure detection accepts a Lackey log that starts with Valgrind's banner or a record, after
 * empty lines, and refuses text that is neither, with the documented message. */
static void
test_lackey_detection (void **state)
{
  static const struct {
    const char *text;
    gboolean lackey;
  } rows[] = {
    { "==4242== Lackey, an example Valgrind tool\n", TRUE },
    { "\n\nI  04011d0,3\n", TRUE },
    { " L 7ff0,8\n", TRUE },
    { " M 7ff0,8\n", TRUE },
    { "hello\n", FALSE },
    { "\n\n", FALSE },
    { " L x\n", FALSE },
    { "MDLTRACX", FALSE },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GInputStream *in = g_memory_input_stream_new_from_data (rows[i].text, -1, NULL);
      GError *error = NULL;
      MdlTraceReader *r = mdl_trace_reader_new (in, "x.txt", MDL_TRACE_AUTO, &error);
      if (rows[i].lackey)
        {
          if (r == NULL)
            fail_msg ("row %u: %s", i, error->message);
          assert_int_equal (mdl_trace_reader_format (r), MDL_TRACE_LACKEY);
        }
      else
        assert_mdl_error (error, MDL_ERROR_FORMAT,
                          "cannot detect the format of x.txt (expected a binary trace starting "
                          "with MDLTRACE, Valgrind Lackey text");
      mdl_trace_reader_free (r);
      g_object_unref (in);
    }
}

/* Ensure the writer prints each access as Lackey does (at least 8 hex digits), an op count of n as
 * n instruction lines, drops thread and site, and drops and counts markers. */
static void
test_lackey_writer_prints_lackey_lines (void **state)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "out.lackey", MDL_TRACE_LACKEY, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlCpuEvent cpu[] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0x7ff0, .thread = 3, .site = 4 },
    { .kind = MDL_CPU_OPS, .addr = 3 },
    { .kind = MDL_CPU_WRITE, .size = 4, .addr = 0x1ffefff8a0 },
    { .kind = MDL_CPU_MODIFY, .size = 65535, .addr = G_MAXUINT64 - 65534 },   /* ends at the top */
    { .kind = MDL_CPU_OPS, .addr = 0 },
    { .kind = MDL_CPU_READ, .size = 1, .addr = 0 },
  };
  MdlMarker phase = { .kind = MDL_MARK_PHASE_BEGIN, .name = "p" };
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  GError *error = NULL;
  const char *expect = " L 00007ff0,8\n"
                       "I  00000000,0\nI  00000000,0\nI  00000000,0\n"
                       " S 1ffefff8a0,4\n"
                       " M ffffffffffff0001,65535\n"
                       " L 00000000,1\n";
  (void) state;

  mdl_trace_writer_set_meta (w, "algorithm", "ignored");
  assert_true (sink.marker (sink.data, &phase, &error));
  assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = cpu, .n_cpu = G_N_ELEMENTS (cpu) },
                           &error));
  assert_true (sink.marker (sink.data, &sync, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  assert_int_equal (mdl_trace_writer_n_records (w), G_N_ELEMENTS (cpu));
  assert_int_equal (mdl_trace_writer_n_dropped (w), 2);
  mdl_trace_writer_free (w);
  assert_int_equal (g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)),
                    strlen (expect));
  assert_memory_equal (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)), expect,
                       strlen (expect));
  g_object_unref (out);
}

/* Ensure warp events and op counts too large to spell out line by line are refused with
 * MDL_ERROR_UNSUPPORTED, and invalid CPU records with MDL_ERROR_FORMAT. */
static void
test_lackey_writer_refuses_what_it_cannot_carry (void **state)
{
  MdlWarpEvent warp = { .active = 1, .op = MDL_WARP_ALU };
  MdlCpuEvent bad = { .kind = MDL_CPU_WRITE };
  MdlCpuEvent huge = { .kind = MDL_CPU_OPS, .addr = ((guint64) 1 << 30) + 1 };
  const MdlEventBatch batches[] = { { .warp = &warp, .n_warp = 1 }, { .cpu = &bad, .n_cpu = 1 },
                                    { .cpu = &huge, .n_cpu = 1 } };
  static const struct {
    int code;
    const char *needle;
  } expect[] = {
    { MDL_ERROR_UNSUPPORTED, "out.lackey: cannot write record 1: lackey text cannot carry warp events" },
    { MDL_ERROR_FORMAT, "out.lackey: cannot write record 1: write record has size 0" },
    { MDL_ERROR_UNSUPPORTED, "out.lackey: cannot write record 1: an op count of 1073741825 would be "
      "as many Lackey lines (at most 1073741824)" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (batches); i++)
    {
      GOutputStream *out = g_memory_output_stream_new_resizable ();
      MdlTraceWriter *w = mdl_trace_writer_new (out, "out.lackey", MDL_TRACE_LACKEY, FALSE);
      MdlSink sink = mdl_trace_writer_sink (w);
      GError *error = NULL;
      assert_false (sink.batch (sink.data, &batches[i], &error));
      assert_mdl_error (error, expect[i].code, expect[i].needle);
      mdl_trace_writer_free (w);
      g_object_unref (out);
    }
}

/* Ensure a corrupt gzip stream is placed near the damage, not at "byte 0". The stream is built by
 * hand (RFC 1951 stored blocks, so every byte's place is known): a 10-byte gzip header, a stored
 * block of 2000 bytes of Lackey lines (its header byte, LEN and NLEN at bytes 10..14, the data at
 * 15..2014), then a
 * second block header at byte 2015 whose NLEN is not the complement of LEN. zlib fails on it, and
 * the message must name a range of the file that holds byte 2015 and starts after byte 1023
 * (inflate is fed 1 KiB at a time; the second KiB is the rest of the 2036-byte file), with the
 * bytes inflated before it (the first call holds 1024 - 15 = 1009 bytes of data). */
static void
test_corrupt_gzip_is_placed_near_the_damage (void **state)
{
  static const guint8 gzip_header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
  const guint data_len = 2000;
  GByteArray *gz = g_byte_array_new ();
  guint8 block[5] = { 0x00, data_len & 0xff, data_len >> 8, (guint8) ~data_len,
                      (guint8) (~data_len >> 8) };
  guint8 bad_block[5] = { 0x01, 0x10, 0x00, 0x00, 0x00 };   /* LEN 16, NLEN 0: not ~LEN */
  TestCollector *c = test_collector_new ();
  GError *error;
  (void) state;
  g_byte_array_append (gz, gzip_header, sizeof gzip_header);
  g_byte_array_append (gz, block, sizeof block);
  for (guint i = 0; i < data_len / 10; i++)
    g_byte_array_append (gz, (const guint8 *) " L 1000,8\n", 10);
  assert_int_equal (gz->len, 2015);
  g_byte_array_append (gz, bad_block, sizeof bad_block);
  for (guint i = 0; i < 16; i++)
    g_byte_array_append (gz, (const guint8 *) "x", 1);

  error = read_text ((const char *) gz->data, gz->len, MDL_TRACE_LACKEY, 0, c, NULL);
  assert_mdl_error (error, MDL_ERROR_FORMAT,
                    "prog.lackey: corrupt or truncated gzip data after 1009 decompressed bytes "
                    "(bytes 1024..2035 of the file)");
  g_byte_array_unref (gz);
  test_collector_free (c);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_lackey_lines_map_to_records),
    cmocka_unit_test (test_lackey_rejects_bad_lines_naming_the_line),
    cmocka_unit_test (test_corrupt_gzip_is_placed_near_the_damage),
    cmocka_unit_test (test_lackey_long_lines_are_bounded),
    cmocka_unit_test (test_lackey_detection),
    cmocka_unit_test (test_lackey_writer_prints_lackey_lines),
    cmocka_unit_test (test_lackey_writer_refuses_what_it_cannot_carry),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
