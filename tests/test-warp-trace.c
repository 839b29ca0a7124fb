/* Tests of the warp text format (src/traces/reader-warp.c, writer-warp.c, docs/trace-format.md):
 * a hand-written trace reads into the events it describes, SIMT micro-kernels survive a round
 * trip through the text, detection, and bad lines are errors that name the file and line. */
#include "helpers.h"

#include <string.h>

static TestCollector *
read_text (const char *text, GError **error)
{
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (g_strdup (text), (gssize) strlen (text),
                                                                      g_free);
  g_autoptr (MdlTraceReader) r = mdl_trace_reader_new (in, "t.warp", MDL_TRACE_AUTO, error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  if (r == NULL || (assert_int_equal (mdl_trace_reader_format (r), MDL_TRACE_WARP), FALSE)
      || !mdl_trace_reader_pump (r, &sink, 0, &done, error))
    {
      test_collector_free (c);
      return NULL;
    }
  assert_true (done);
  return c;
}

/* Ensure each line kind becomes its event: the launch (warp width 16), a load with prefixed and
 * bare hex addresses, a branch, a jump, an ALU, a barrier arrival, the barrier and a sync. */
static void
test_read_every_line_kind (void **state)
{
  static const char text[] =
    "# comment\n"
    "launch 3 grid=2 block=32 shared=128 warp=16\n"
    "1 0 ld shared 8 5 0x10 20\n"
    "\n"
    "1 1 branch ffff 0xff\n"
    "1 1 jump ff\n"
    "1 0 alu 3\n"
    "1 0 bar ffff\n"
    "bar 1\n"
    "sync\n";
  g_autoptr (GError) error = NULL;
  TestCollector *c = read_text (text, &error);
  const MdlWarpEvent *e;
  guint64 addrs[MDL_WARP_MAX_LANES];
  MdlEventBatch b;
  (void) state;
  if (c == NULL)
    fail_msg ("%s", error->message);
  assert_string_equal (c->order->str, "mwwwwwmm");
  assert_int_equal (((TestMarker *) g_ptr_array_index (c->markers, 0))->marker.warp_width, 16);
  e = &g_array_index (c->warp, MdlWarpEvent, 0);
  b = (MdlEventBatch) { .lane_addrs = (const guint64 *) (void *) c->lane_addrs->data,
                        .n_lane_addrs = c->lane_addrs->len };
  mdl_warp_addrs (&b, e, addrs);
  assert_int_equal (e->launch, 3);
  assert_int_equal (e->block, 1);
  assert_int_equal (e->space, MDL_SPACE_SHARED);
  assert_int_equal (e->width, 8);
  assert_int_equal (addrs[0], 0x10);
  assert_int_equal (addrs[2], 0x20);
  assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 1).taken, 0xff);
  assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 2).op, MDL_WARP_JUMP);
  assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 4).op, MDL_WARP_BARRIER);
  assert_int_equal (((TestMarker *) g_ptr_array_index (c->markers, 1))->marker.block, 1);
  test_collector_free (c);
}

/* Ensure the ".m" suffix marks a machine instruction (MDL_WARP_MACHINE) on any op, and a CAS's
 * failed=MASK its failed lanes (the taken mask), and that the text writer writes both back. */
static void
test_machine_suffix_round_trip (void **state)
{
  static const char text[] =
    "launch 0 grid=1 block=32 shared=0\n"
    "0 0 alu.m ffffffff\n"
    "0 0 ld.m global 4 3 1000 1004\n"
    "0 0 branch.m ffffffff ffff\n"
    "0 0 alu ffffffff\n"
    "0 0 atom.cas global 4 f 1000 1000 1000 1000 failed=e\n"
    "0 0 atom.cas global 4 3 1000 1004\n"
    "sync\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_new (out, "mem", MDL_TRACE_WARP, FALSE);
  TestCollector *c = read_text (text, &error);
  MdlSink sink = mdl_trace_writer_sink (w);
  g_autofree char *back = NULL;
  (void) state;
  if (c == NULL)
    fail_msg ("%s", error->message);
  for (guint i = 0; i < 4; i++)
    assert_int_equal (g_array_index (c->warp, MdlWarpEvent, i).flags & MDL_WARP_MACHINE,
                      i < 3 ? MDL_WARP_MACHINE : 0);
  assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 4).taken, 0xe);
  assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 5).taken, 0);
  assert_true (test_collector_replay (c, &sink, 0, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  back = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                    g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
  assert_string_equal (back, text);
  test_collector_free (c);
}

/* Ensure SIMT streams (branches, jumps, shared and global accesses, barriers) come back from the
 * text identical. */
static void
test_simt_round_trip (void **state)
{
  static const char *const specs[][2] = {
    { "gpu/branch", "variant=nested" }, { "gpu/transpose", "variant=shared" },
    { "gpu/reduce", "variant=interleaved" }, { "gpu/global-atomic", "stride=3" },
    { "balance/lockfree", "blocks=3" }, { "gpu/atomic", "op=cas,k=4" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (GError) error = NULL;
      const MdlAlgo *a = mdl_algo_lookup (specs[i][0], NULL);
      g_auto (GStrv) assign = g_strsplit (specs[i][1], ",", -1);
      g_autoptr (MdlParams) p = mdl_params_parse (a->name, a->params, (const char **) assign, NULL);
      g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
      g_autoptr (MdlTraceWriter) w = mdl_trace_writer_new (out, "mem", MDL_TRACE_WARP, FALSE);
      TestCollector *orig = test_collector_new (), *back;
      MdlSink sinks[2] = { test_collector_sink (orig), mdl_trace_writer_sink (w) };
      MdlRecorder *rec;
      guint64 sum;
      g_autofree char *text = NULL;
      for (guint k = 0; k < 2; k++)
        {
          rec = mdl_recorder_new (&sinks[k], 0);
          if (!a->run (p, 64, 3, rec, &sum, &error) || !mdl_recorder_finish (rec, &error))
            fail_msg ("%s: %s", a->name, error->message);
          mdl_recorder_free (rec);
        }
      assert_true (mdl_trace_writer_close (w, &error));
      text = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                        g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
      back = read_text (text, &error);
      if (back == NULL)
        fail_msg ("%s: %s", a->name, error->message);
      test_collector_assert_equal (orig, back);
      test_collector_free (orig);
      test_collector_free (back);
    }
}

/* Ensure a trace longer than one batch in both events (4096) and lane addresses (32768) reads
 * back whole, lane by lane, through the arrays that grow to a batch: 3000 loads of 32 lanes at
 * distinct addresses (96000 addresses), each followed by an ALU instruction (6000 events). */
static void
test_more_than_one_batch (void **state)
{
  enum { LOADS = 3000, LANES = 32 };
  g_autoptr (GString) text = g_string_new ("launch 0 grid=1 block=32 shared=0\n");
  g_autoptr (GError) error = NULL;
  TestCollector *c;
  MdlEventBatch b;
  (void) state;
  for (guint i = 0; i < LOADS; i++)
    {
      g_string_append_printf (text, "0 %u ld global 4 ffffffff", i % 4);
      for (guint l = 0; l < LANES; l++)
        g_string_append_printf (text, " %x", 0x1000 * i + 4 * l);
      g_string_append_printf (text, "\n0 %u alu ffffffff\n", i % 4);
    }
  c = read_text (text->str, &error);
  if (c == NULL)
    fail_msg ("%s", error->message);
  assert_int_equal (c->warp->len, 2 * LOADS);
  b = (MdlEventBatch) { .lane_addrs = (const guint64 *) (void *) c->lane_addrs->data,
                        .n_lane_addrs = c->lane_addrs->len };
  for (guint i = 0; i < LOADS; i++)
    {
      const MdlWarpEvent *ld = &g_array_index (c->warp, MdlWarpEvent, 2 * i);
      guint64 addrs[MDL_WARP_MAX_LANES];
      assert_int_equal (ld->op, MDL_WARP_LOAD);
      assert_int_equal (ld->warp, i % 4);
      assert_int_equal (g_array_index (c->warp, MdlWarpEvent, 2 * i + 1).op, MDL_WARP_ALU);
      mdl_warp_addrs (&b, ld, addrs);
      for (guint l = 0; l < LANES; l++)
        assert_int_equal (addrs[l], 0x1000 * i + 4 * l);
    }
  test_collector_free (c);
}

/* Ensure a bad line is MDL_ERROR_FORMAT "t.warp:LINE: why in \"line\"". */
static void
test_bad_lines_name_the_line (void **state)
{
  static const struct { const char *text, *expect; } rows[] = {
    { "launch 0 grid=1 block=32 shared=0\n0 0 ld global 4 3 1000\n",
      "t.warp:2: mask 3 has 2 active lanes but the line has 1 addresses" },
    { "sync\n0 0 ld global 4 1 12g\n", "t.warp:2: address \"12g\": a character that is not a hexadecimal" },
    { "sync\n\n0 0 branch f 1f\n", "t.warp:3: taken lanes that are not active" },
    { "sync\n0 0 alu 0\n", "t.warp:2: empty active mask" },
    { "sync\n0 0 ld shared 0 1 10\n", "t.warp:2: access width \"0\" is not a decimal 1..64" },
    { "sync\n0 0 mov 1\n", "t.warp:2: unknown op \"mov\" (valid: ld, st, atom, atom.red, atom.cas, alu, "
      "branch, jump, bar, shfl, vote, each with .m for a machine instruction)" },
    { "sync\n0 0 alu.red 1\n", "t.warp:2: unknown op \"alu.red\"" },
    { "sync\n0 0 shfl global 4 1 10\n", "t.warp:2: expected \"B W shfl MASK\"" },
    { "sync\n0 0 alu.x 1\n", "t.warp:2: unknown op \"alu.x\"" },
    { "sync\n0 0 ld texture 4 1 10\n", "t.warp:2: unknown space \"texture\"" },
    { "launch 0 grid=1 block=32\n", "t.warp:1: expected \"launch ID grid=GX block=BX shared=BYTES" },
    { "launch 0 grid=1 block=32 shared=0 warp=8\n0 0 alu 100\n", "t.warp:2: active lanes beyond the warp width" },
    { "sync\nbar x\n", "t.warp:2: expected \"bar BLOCK\"" },
    { "sync\n70000 70000 alu 1\n", "t.warp:2: expected \"BLOCK WARP OP" },
    /* "... 700000000600" cut short is still a valid address: only the missing newline tells. */
    { "sync\n0 0 st global 4 1 70000000060", "t.warp:2: the last line, \"0 0 st global 4 1 "
      "70000000060\", has no newline: the trace ends mid-line" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;
      TestCollector *c = read_text (rows[i].text, &error);
      if (c != NULL)
        fail_msg ("row %u: read without error", i);
      assert_mdl_error (error, MDL_ERROR_FORMAT, rows[i].expect);
    }
}

/* Ensure the writer refuses CPU events and counts the phase markers it drops. */
static void
test_writer_limits (void **state)
{
  g_autoptr (GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr (MdlTraceWriter) w = mdl_trace_writer_new (out, "mem", MDL_TRACE_WARP, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlCpuEvent cpu = { .kind = MDL_CPU_READ, .size = 4, .addr = 16 };
  MdlEventBatch b = { .cpu = &cpu, .n_cpu = 1 };
  MdlMarker begin = { .kind = MDL_MARK_PHASE_BEGIN, .name = "p" };
  GError *error = NULL;
  (void) state;
  assert_true (sink.marker (sink.data, &begin, NULL));
  assert_int_equal (mdl_trace_writer_n_dropped (w), 1);
  assert_false (sink.batch (sink.data, &b, &error));
  assert_mdl_error (error, MDL_ERROR_UNSUPPORTED, "warp text cannot carry CPU events");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_read_every_line_kind),
    cmocka_unit_test (test_simt_round_trip),
    cmocka_unit_test (test_machine_suffix_round_trip),
    cmocka_unit_test (test_bad_lines_name_the_line),
    cmocka_unit_test (test_writer_limits),
    cmocka_unit_test (test_more_than_one_batch),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
