/* Tests of the `host` machine preset (src/core/host-machine.c): the sysfs cache reader on the
 * fixture tests/data/sysfs-cache (an Intel-like part, its directories out of order), the cpuid
 * decoders on register values decoded by hand from the manuals, and the preset's place in the
 * machine list. */
#include "helpers.h"

#include "core/host-machine.h"

#include <string.h>

/* Ensure the fixture's four caches come back sorted by level, data before instruction, with
 * sizes in bytes (the K suffix) and the sharing list kept. */
static void
test_sysfs_fixture_reads_four_caches (void **state)
{
  g_autoptr (GError) error = NULL;
  MdlHostMachine m = { 0 };
  (void) state;
  assert_true (mdl_host_read_sysfs_caches ("tests/data/sysfs-cache", &m, &error));
  assert_int_equal (m.n_caches, 4);
  assert_string_equal (m.cache_source, "sysfs");
  assert_int_equal (m.caches[0].level, 1);
  assert_string_equal (m.caches[0].type, "Data");
  assert_int_equal (m.caches[0].bytes, 48 * 1024);
  assert_int_equal (m.caches[0].assoc, 12);
  assert_string_equal (m.caches[1].type, "Instruction");
  assert_int_equal (m.caches[1].bytes, 32 * 1024);
  assert_int_equal (m.caches[2].level, 2);
  assert_int_equal (m.caches[2].bytes, 2048 * 1024);
  assert_int_equal (m.caches[3].level, 3);
  assert_int_equal (m.caches[3].bytes, (guint64) 107520 * 1024);
  assert_int_equal (m.caches[3].assoc, 15);
  assert_int_equal (m.caches[3].line_bytes, 64);
  assert_string_equal (m.caches[3].shared_cpus, "0-55");
}

/* Ensure a malformed size is a format error naming the file, and a missing directory an I/O
 * error naming it; the machine's caches stay as they were. */
static void
test_sysfs_errors_name_the_file (void **state)
{
  GError *error = NULL;
  MdlHostMachine m = { 0 };
  (void) state;
  assert_false (mdl_host_read_sysfs_caches ("tests/data/sysfs-cache-bad", &m, &error));
  assert_int_equal (error->code, MDL_ERROR_FORMAT);
  assert_non_null (strstr (error->message, "sysfs-cache-bad/index0/size"));
  assert_non_null (strstr (error->message, "\"lots\""));
  g_clear_error (&error);
  assert_false (mdl_host_read_sysfs_caches ("tests/data/no-such-dir", &m, &error));
  assert_int_equal (error->code, MDL_ERROR_IO);
  assert_non_null (strstr (error->message, "no-such-dir"));
  g_clear_error (&error);
  assert_int_equal (m.n_caches, 0);
}

/* Ensure AMD's leaves decode as the APM's tables say, on the registers of the AMD EPYC VM this
 * project runs on. By hand: 0x80000005 ebx = ff 60 ff 40: 4 KiB L1 DTLB fully associative (ff)
 * with 0x60 = 96 entries; eax = ff 60 ff 40 the same for 2 MiB pages; ecx = 30 0c 01 40: L1d
 * 0x30 = 48 KiB, 12 ways, 64-byte lines. 0x80000006 ebx = 6 080 4 040: L2 DTLB code 6 = 8 ways,
 * 0x080 = 128 entries; ecx = 0400 6 1 40: L2 0x400 = 1024 KiB, code 6 = 8 ways; edx = 0fe09140:
 * bits 31:18 = 0x3f8 = 1016 units of 512 KiB, code 9 (see leaf 0x8000001D: unknown, 16 taken). */
static void
test_amd_leaves_decode_by_hand (void **state)
{
  const guint32 l1[4] = { 0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140 };
  const guint32 l2[4] = { 0x40802040, 0x60804040, 0x04006140, 0x0fe09140 };
  MdlHostMachine m = { 0 };
  (void) state;
  mdl_host_decode_amd (l1, l2, &m);
  assert_int_equal (m.l1_dtlb.entries, 96);
  assert_int_equal (m.l1_dtlb.assoc, 0);
  assert_int_equal (m.l1_dtlb_huge.entries, 96);
  assert_int_equal (m.l2_tlb.entries, 128);
  assert_int_equal (m.l2_tlb.assoc, 8);
  assert_string_equal (m.tlb_source, "cpuid 0x80000005/6");
  assert_int_equal (m.n_caches, 4);
  assert_int_equal (m.caches[0].bytes, 48 * 1024);
  assert_int_equal (m.caches[0].assoc, 12);
  assert_int_equal (m.caches[2].bytes, 1024 * 1024);
  assert_int_equal (m.caches[2].assoc, 8);
  assert_int_equal (m.caches[3].bytes, (guint64) 1016 * 512 * 1024);
  assert_int_equal (m.caches[3].assoc, 16);
}

/* Ensure AMD's caches do not replace what sysfs gave. */
static void
test_amd_leaves_keep_sysfs_caches (void **state)
{
  const guint32 l1[4] = { 0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140 };
  const guint32 l2[4] = { 0x40802040, 0x60804040, 0x04006140, 0x0fe09140 };
  MdlHostMachine m = { 0 };
  (void) state;
  assert_true (mdl_host_read_sysfs_caches ("tests/data/sysfs-cache", &m, NULL));
  mdl_host_decode_amd (l1, l2, &m);
  assert_string_equal (m.cache_source, "sysfs");
  assert_int_equal (m.caches[2].bytes, 2048 * 1024);
}

/* Ensure Intel's leaf 0x18 yields the data TLBs. Subleaves built from the SDM's layout: edx
 * type 1 (data) or 3 (unified), level in bits 7:5, bit 8 fully associative; ebx page sizes in
 * bits 0..3 and ways in 31:16; ecx sets. Rows: a 4-way 16-set L1 DTLB for 4 KiB (64 entries), a
 * fully associative 32-entry one for 2 MiB, an instruction TLB (ignored), a 12-way 128-set
 * unified L2 for 4 KiB and 2 MiB (1536 entries). */
static void
test_intel_leaf_0x18_decodes_by_hand (void **state)
{
  const guint32 sub[4][4] = {
    { 3, (4u << 16) | 1, 16, (1u << 5) | 1 },
    { 0, (32u << 16) | 2, 1, (1u << 8) | (1u << 5) | 1 },
    { 0, (8u << 16) | 1, 16, (1u << 5) | 2 },
    { 0, (12u << 16) | 3, 128, (2u << 5) | 3 },
  };
  MdlHostMachine m = { 0 };
  (void) state;
  mdl_host_decode_intel_tlb (sub, 4, &m);
  assert_int_equal (m.l1_dtlb.entries, 64);
  assert_int_equal (m.l1_dtlb.assoc, 4);
  assert_int_equal (m.l1_dtlb_huge.entries, 32);
  assert_int_equal (m.l1_dtlb_huge.assoc, 0);
  assert_int_equal (m.l2_tlb.entries, 1536);
  assert_int_equal (m.l2_tlb.assoc, 12);
  assert_int_equal (m.l1_dtlb_giant.entries, 0);
  assert_string_equal (m.tlb_source, "cpuid 0x18");
}

/* Ensure the preset text carries the keys the cache and tlb engines read, with the fixture's
 * values, and parses as a key file. */
static void
test_ini_has_engine_keys (void **state)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  MdlHostMachine m = { .page_bytes = 4096, .tlb_source = "test", .thp_mode = "never",
                       .cpu_model = "fixture" };
  (void) state;
  assert_true (mdl_host_read_sysfs_caches ("tests/data/sysfs-cache", &m, NULL));
  m.l1_dtlb = (MdlHostTlb) { 64, 4 };
  m.l2_tlb = (MdlHostTlb) { 1536, 12 };
  mdl_host_machine_ini (&m, text);
  assert_true (g_key_file_load_from_data (kf, text->str, text->len, G_KEY_FILE_NONE, NULL));
  {
    static const struct { const char *key, *value; } rows[] = {
      { "l1d_bytes", "49152" }, { "l1d_assoc", "12" }, { "l2_bytes", "2097152" },
      { "l3_bytes", "110100480" }, { "l3_assoc", "15" }, { "l3_shared_cpus", "0-55" },
      { "l1_dtlb_entries", "64" }, { "l2_tlb_entries", "1536" }, { "page_bytes", "4096" },
      { "cache_source", "sysfs" }, { "thp_mode", "never" }, { "line_bytes", "64" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
      {
        g_autofree char *v = g_key_file_get_value (kf, "host", rows[i].key, NULL);
        if (v == NULL || strcmp (v, rows[i].value) != 0)
          fail_msg ("%s: expected %s, got %s", rows[i].key, rows[i].value, v ? v : "(none)");
      }
  }
  assert_false (g_key_file_has_key (kf, "host", "huge_page_bytes", NULL));
}

/* Ensure `host` is listed last among the presets and reaches the cache and tlb engines. */
static void
test_host_preset_is_listed_and_usable (void **state)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = mdl_machine_names (&error);
  g_autofree char *source = NULL;
  g_autoptr (MdlEngine) cache = NULL, tlb = NULL;
  (void) state;
  assert_non_null (names);
  assert_string_equal (names[g_strv_length (names) - 1], "host");
  assert_true (mdl_machine_get ("host", "tlb_source", &source, &error));
  assert_non_null (source);
  cache = mdl_engine_new ("cache:machine=host", &error);
  assert_non_null (cache);
  tlb = mdl_engine_new ("tlb:machine=host", &error);
  assert_non_null (tlb);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sysfs_fixture_reads_four_caches),
    cmocka_unit_test (test_sysfs_errors_name_the_file),
    cmocka_unit_test (test_amd_leaves_decode_by_hand),
    cmocka_unit_test (test_amd_leaves_keep_sysfs_caches),
    cmocka_unit_test (test_intel_leaf_0x18_decodes_by_hand),
    cmocka_unit_test (test_ini_has_engine_keys),
    cmocka_unit_test (test_host_preset_is_listed_and_usable),
  };
  g_unsetenv ("MODELS_MACHINES");
  return cmocka_run_group_tests_name ("host-machine", tests, NULL, NULL);
}
