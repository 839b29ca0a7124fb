/* Tests of the `count` engine (src/models/count.c): every counter on one hand-written stream, the
 * counter list itself, and random streams against a plain record-by-record count. Expected values
 * are added up by hand in the comments. */
#include "helpers.h"

#include <string.h>

/* CPU records: sizes 1, 2, 4, 8 twice, 16, 32, 64, and the "other" sizes 3 and 512; and one
 * instruction fetch of 5 bytes, which is counted as a fetch only (no read, bytes or size). */
static const MdlCpuEvent cpu_stream[] = {
  { .kind = MDL_CPU_READ, .size = 1, .addr = 0x1000 },
  { .kind = MDL_CPU_READ, .size = 2, .addr = 0x1002 },
  { .kind = MDL_CPU_READ, .size = 4, .addr = 0x1004 },
  { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1008 },
  { .kind = MDL_CPU_WRITE, .size = 16, .addr = 0x2000 },
  { .kind = MDL_CPU_WRITE, .size = 32, .addr = 0x2020 },
  { .kind = MDL_CPU_MODIFY, .size = 64, .addr = 0x3000 },
  { .kind = MDL_CPU_READ, .size = 3, .addr = 0x1010 },
  { .kind = MDL_CPU_OPS, .size = 0, .addr = 10 },
  { .kind = MDL_CPU_WRITE, .size = 512, .addr = 0x4000 },
  { .kind = MDL_CPU_OPS, .size = 0, .addr = 5 },
  { .kind = MDL_CPU_MODIFY, .size = 8, .addr = 0x3040 },
  { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 5, .addr = 0x400000 },
  /* branches: neither accesses nor operations, whatever their addr */
  { .kind = MDL_CPU_BRANCH, .flags = MDL_CPU_FLAG_TAKEN, .addr = 0x1000 },
  { .kind = MDL_CPU_BRANCH, .addr = 7 },
};

/* Warp instructions, with their active lanes: 4 + 32 + 1 + 2 + 8 + 4 + 32 + 1 = 84. */
static const MdlWarpEvent warp_stream[] = {
  { .active = 0xf, .width = 4, .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL,
    .flags = MDL_WARP_STRIDED, .base = 0x100, .stride = 4 },
  { .active = 0xffffffff, .width = 4, .op = MDL_WARP_LOAD, .space = MDL_SPACE_SHARED,
    .flags = MDL_WARP_STRIDED, .base = 0, .stride = 4 },
  { .active = 0x1, .width = 8, .op = MDL_WARP_STORE, .space = MDL_SPACE_GLOBAL, .first_addr = 0 },
  { .active = 0x3, .width = 4, .op = MDL_WARP_ATOMIC, .space = MDL_SPACE_LOCAL, .first_addr = 1 },
  { .active = 0xff, .op = MDL_WARP_ALU },
  { .active = 0xf0, .taken = 0x30, .op = MDL_WARP_BRANCH },
  { .active = 0xffffffff, .op = MDL_WARP_BARRIER },
  { .active = 0x10, .width = 4, .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL,
    .flags = MDL_WARP_STRIDED, .base = 0x200, .stride = 0 },
};

static const guint64 lane_addrs[] = { 0x800, 0x900, 0x904 };

/* Markers: 1 launch, 2 barriers, 1 sync, 1 phase begin and end, 1 site name. */
static const MdlMarker markers[] = {
  { .kind = MDL_MARK_SITE, .site = 1, .name = "loop" },
  { .kind = MDL_MARK_LAUNCH, .launch = 1, .grid_blocks = 2, .block_threads = 64, .warp_width = 32 },
  { .kind = MDL_MARK_PHASE_BEGIN, .name = "k" },
  { .kind = MDL_MARK_BARRIER, .launch = 1, .block = 0 },
  { .kind = MDL_MARK_BARRIER, .launch = 1, .block = 1 },
  { .kind = MDL_MARK_PHASE_END, .name = "k" },
  { .kind = MDL_MARK_SYNC },
};

/* Rows: every counter of the report, in report order, and its value for the streams above.
 *   reads 1,2,4,8,3 = 5; writes 16,32,512 = 3; modifies 64,8 = 2
 *   bytes_read = 1+2+4+8+3 + (64+8) = 90; bytes_written = 16+32+512 + (64+8) = 632
 *   ram_ops = 10 + 5 = 15; size buckets over the 10 accesses (ops records have none). */
static const struct {
  const char *name;
  guint64 value;
} counter_rows[] = {
  { "cpu_reads", 5 },
  { "cpu_writes", 3 },
  { "cpu_modifies", 2 },
  { "cpu_fetches", 1 },
  { "bytes_read", 90 },
  { "bytes_written", 632 },
  { "ram_ops", 15 },
  { "cpu_branches", 2 },
  { "size_1", 1 },
  { "size_2", 1 },
  { "size_4", 1 },
  { "size_8", 2 },
  { "size_16", 1 },
  { "size_32", 1 },
  { "size_64", 1 },
  { "size_other", 2 },
  { "warp_ld_global", 2 },
  { "warp_ld_shared", 1 },
  { "warp_ld_local", 0 },
  { "warp_st_global", 1 },
  { "warp_st_shared", 0 },
  { "warp_st_local", 0 },
  { "warp_atom_global", 0 },
  { "warp_atom_shared", 0 },
  { "warp_atom_local", 1 },
  { "warp_alu", 1 },
  { "warp_branch", 1 },
  { "warp_bar", 1 },
  { "warp_jump", 0 },   /* no jump in the stream */
  { "warp_shfl", 0 },   /* nor shuffles */
  { "warp_vote", 0 },   /* nor votes */
  { "warp_insts", 8 },
  { "warp_lanes", 84 },
  { "markers_launch", 1 },
  { "markers_barrier", 2 },
  { "markers_sync", 1 },
  { "markers_phase_begin", 1 },
  { "markers_phase_end", 1 },
  { "markers_site", 1 },
};

static MdlEngine *
count_new (void)
{
  g_autoptr (GError) error = NULL;
  MdlEngine *e = mdl_engine_new ("count", &error);
  if (e == NULL)
    fail_msg ("count: %s", error->message);
  return e;
}

/* Feeds the three streams: CPU events in two batches, warp events in one, markers around them. */
static void
feed_all (MdlEngine *e)
{
  MdlEventBatch cpu1 = { .cpu = cpu_stream, .n_cpu = 5 };
  MdlEventBatch cpu2 = { .cpu = cpu_stream + 5, .n_cpu = G_N_ELEMENTS (cpu_stream) - 5 };
  MdlEventBatch warp = { .warp = warp_stream, .n_warp = G_N_ELEMENTS (warp_stream),
                         .lane_addrs = lane_addrs, .n_lane_addrs = G_N_ELEMENTS (lane_addrs) };
  g_autoptr (GError) error = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (warp_stream); i++)
    if (!mdl_warp_event_check (&warp, &warp_stream[i], 32, &error))
      fail_msg ("warp event %u of the test stream is invalid: %s", i, error->message);
  assert_true (mdl_engine_marker (e, &markers[0], NULL));
  assert_true (mdl_engine_consume (e, &cpu1, NULL));
  assert_true (mdl_engine_marker (e, &markers[1], NULL));
  assert_true (mdl_engine_marker (e, &markers[2], NULL));
  assert_true (mdl_engine_consume (e, &warp, NULL));
  for (guint i = 3; i < G_N_ELEMENTS (markers); i++)
    assert_true (mdl_engine_marker (e, &markers[i], NULL));
  assert_true (mdl_engine_consume (e, &cpu2, NULL));
}

/* Ensure every counter, in order and with nothing else, has its hand-counted value. */
static void
test_counts_every_kind_size_op_space_and_marker (void **state)
{
  g_autoptr (MdlEngine) e = count_new ();
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  feed_all (e);
  r = mdl_engine_report (e);
  assert_int_equal (mdl_report_n_counters (r), G_N_ELEMENTS (counter_rows));
  for (guint i = 0; i < G_N_ELEMENTS (counter_rows); i++)
    {
      const MdlCounter *c = mdl_report_counter (r, i);
      if (strcmp (c->name, counter_rows[i].name) != 0)
        fail_msg ("counter %u: expected %s, got %s", i, counter_rows[i].name, c->name);
      if (c->is_real || c->count != counter_rows[i].value)
        fail_msg ("%s: expected %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT, c->name,
                  counter_rows[i].value, c->count);
    }
}

/* Ensure the phase "k" holds exactly the warp batch and the barriers fed inside it. */
static void
test_phase_holds_what_was_fed_inside_it (void **state)
{
  g_autoptr (MdlEngine) e = count_new ();
  g_autoptr (MdlReport) r = NULL;
  const MdlReport *k;
  (void) state;
  feed_all (e);
  r = mdl_engine_report (e);
  assert_int_equal (mdl_report_n_phases (r), 1);
  k = mdl_report_phase (r, 0);
  assert_string_equal (mdl_report_engine (k), "k");
  assert_int_equal (mdl_report_lookup (k, "warp_insts")->count, 8);
  assert_int_equal (mdl_report_lookup (k, "warp_lanes")->count, 84);
  assert_int_equal (mdl_report_lookup (k, "markers_barrier")->count, 2);
  assert_int_equal (mdl_report_lookup (k, "cpu_reads")->count, 0);
  assert_int_equal (mdl_report_lookup (k, "markers_sync")->count, 0);
}

/* Rows: an access size and its bucket (powers of two up to 64; everything else is "other"). */
static const struct {
  guint16 size;
  const char *bucket;
} size_rows[] = {
  { 1, "size_1" }, { 2, "size_2" }, { 3, "size_other" }, { 4, "size_4" }, { 6, "size_other" },
  { 10, "size_other" }, { 64, "size_64" }, { 128, "size_other" }, { 512, "size_other" },
  { 65535, "size_other" }, { 32768, "size_other" },
};

/* Ensure each access size lands in its bucket and nowhere else. */
static void
test_size_buckets (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (size_rows); i++)
    {
      g_autoptr (MdlEngine) e = count_new ();
      g_autoptr (MdlReport) r = NULL;
      MdlCpuEvent ev = { .kind = MDL_CPU_WRITE, .size = size_rows[i].size, .addr = 0x40 };
      MdlEventBatch b = { .cpu = &ev, .n_cpu = 1 };
      guint64 total = 0;
      assert_true (mdl_engine_consume (e, &b, NULL));
      r = mdl_engine_report (e);
      for (guint c = 0; c < mdl_report_n_counters (r); c++)
        {
          const MdlCounter *k = mdl_report_counter (r, c);
          if (!g_str_has_prefix (k->name, "size_"))
            continue;
          total += k->count;
          if (k->count != (strcmp (k->name, size_rows[i].bucket) == 0))
            fail_msg ("size %u: %s = %" G_GUINT64_FORMAT ", expected it in %s", size_rows[i].size,
                      k->name, k->count, size_rows[i].bucket);
        }
      assert_int_equal (total, 1);
      assert_int_equal (mdl_report_lookup (r, "bytes_written")->count, size_rows[i].size);
    }
}

/* Ensure the branch-free loop agrees with a record-by-record count, written the obvious way here,
 * on random streams: every kind, sizes in and out of the buckets, fetches among the reads. */
static void
test_random_streams_match_a_plain_count (void **state)
{
  static const guint16 sizes[] = { 1, 2, 3, 4, 8, 16, 24, 32, 64, 65, 128, 4096, 65535 };
  static const char *const bucket_names[] = { "size_1", "size_2", "size_4", "size_8", "size_16",
                                              "size_32", "size_64", "size_other" };
  (void) state;
  for (guint seed = 1; seed <= 20; seed++)
    {
      g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
      g_autoptr (MdlEngine) e = count_new ();
      g_autoptr (MdlReport) r = NULL;
      /* The last seed's stream is long enough to cross the engine's emptying of its per-lane
       * counters (every 120 records, and every 245760 into 64 bits: count.c). */
      guint n = seed == 20 ? 300001 : (guint) g_rand_int_range (rand, 1, 3000);
      g_autofree MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
      guint64 records[MDL_CPU_N_KINDS] = { 0 }, bytes[MDL_CPU_N_KINDS] = { 0 }, buckets[8] = { 0 };
      guint64 fetches = 0;
      MdlEventBatch b = { .cpu = ev, .n_cpu = n };
      for (guint i = 0; i < n; i++)
        {
          guint kind = (guint) g_rand_int_range (rand, 0, MDL_CPU_N_KINDS);
          ev[i].kind = (guint8) kind;
          ev[i].addr = (guint64) g_rand_int (rand) << 20 | g_rand_int (rand);
          if (kind == MDL_CPU_OPS)
            {
              records[kind]++;
              bytes[kind] += ev[i].addr;
              continue;
            }
          if (kind == MDL_CPU_BRANCH)
            {
              ev[i].flags = g_rand_boolean (rand) ? MDL_CPU_FLAG_TAKEN : 0;
              records[kind]++;
              continue;
            }
          ev[i].size = sizes[g_rand_int_range (rand, 0, G_N_ELEMENTS (sizes))];
          if (kind == MDL_CPU_READ && g_rand_int_range (rand, 0, 4) == 0)
            {
              ev[i].flags = MDL_CPU_FLAG_FETCH;
              fetches++;
              continue;
            }
          records[kind]++;
          bytes[kind] += ev[i].size;
          {
            guint bucket = 7;
            for (guint k = 0; k < 7; k++)
              if (ev[i].size == 1u << k)
                bucket = k;
            buckets[bucket]++;
          }
        }
      assert_true (mdl_engine_consume (e, &b, NULL));
      r = mdl_engine_report (e);
      assert_int_equal (mdl_report_lookup (r, "cpu_reads")->count, records[MDL_CPU_READ]);
      assert_int_equal (mdl_report_lookup (r, "cpu_writes")->count, records[MDL_CPU_WRITE]);
      assert_int_equal (mdl_report_lookup (r, "cpu_modifies")->count, records[MDL_CPU_MODIFY]);
      assert_int_equal (mdl_report_lookup (r, "cpu_fetches")->count, fetches);
      assert_int_equal (mdl_report_lookup (r, "ram_ops")->count, bytes[MDL_CPU_OPS]);
      assert_int_equal (mdl_report_lookup (r, "cpu_branches")->count, records[MDL_CPU_BRANCH]);
      assert_int_equal (mdl_report_lookup (r, "bytes_read")->count,
                        bytes[MDL_CPU_READ] + bytes[MDL_CPU_MODIFY]);
      assert_int_equal (mdl_report_lookup (r, "bytes_written")->count,
                        bytes[MDL_CPU_WRITE] + bytes[MDL_CPU_MODIFY]);
      for (guint k = 0; k < 8; k++)
        assert_int_equal (mdl_report_lookup (r, bucket_names[k])->count, buckets[k]);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_counts_every_kind_size_op_space_and_marker),
    cmocka_unit_test (test_phase_holds_what_was_fed_inside_it),
    cmocka_unit_test (test_size_buckets),
    cmocka_unit_test (test_random_streams_match_a_plain_count),
  };
  return cmocka_run_group_tests_name ("count", tests, NULL, NULL);
}
