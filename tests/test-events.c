/* Tests of the event vocabulary (include/models/event.h): the names of kinds, ops, spaces and
 * markers, and every rule of mdl_warp_event_check(), each with the message it gives. */
#include "helpers.h"

#include <string.h>

/* A valid event to break one field at a time: a 4-lane global load of launch 1, block 2, warp 3,
 * whose lane addresses are the batch's 4 entries. */
static MdlWarpEvent
valid_load (void)
{
  return (MdlWarpEvent) { .active = 0xf, .launch = 1, .block = 2, .warp = 3, .width = 4,
                          .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL };
}

static const guint64 four_addrs[4] = { 0x1000, 0x1004, 0x1008, 0x100c };

/* The rows name the rule, state the change from valid_load(), and give the expected message tail
 * (NULL: the event is valid). The messages are the ones event.c documents per rule. */
static const struct {
  const char *name;
  guint8 op;
  guint8 space;
  guint16 width;
  guint8 flags;
  guint64 active;
  guint64 taken;
  guint32 first_addr;
  guint warp_width;
  const char *expect;
} rule_rows[] = {
  { "valid load",                    MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, 0, 0xf, 0, 0, 32, NULL },
  { "valid strided store",           MDL_WARP_STORE, MDL_SPACE_SHARED, 8, MDL_WARP_STRIDED,
    0xffffffff, 0, 0, 32, NULL },
  { "valid atomic, width 1",         MDL_WARP_ATOMIC, MDL_SPACE_LOCAL, 1, 0, 0x5, 0, 0, 32, NULL },
  { "valid load, width 64",          MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 64, 0, 0xf, 0, 0, 32, NULL },
  { "valid 64-lane warp",            MDL_WARP_STORE, MDL_SPACE_GLOBAL, 4, MDL_WARP_STRIDED,
    G_MAXUINT64, 0, 0, 64, NULL },
  { "valid branch, taken subset",    MDL_WARP_BRANCH, MDL_SPACE_NONE, 0, 0, 0xf0, 0x30, 0, 32, NULL },
  { "valid alu",                     MDL_WARP_ALU, MDL_SPACE_NONE, 0, 0, 0x1, 0, 0, 32, NULL },
  { "valid barrier arrival",         MDL_WARP_BARRIER, MDL_SPACE_NONE, 0, 0, 0xffffffff, 0, 0, 32,
    NULL },
  { "unknown op",                    MDL_WARP_N_OPS, MDL_SPACE_NONE, 0, 0, 0x1, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, ?): unknown op" },
  { "empty active mask",             MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, 0, 0, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, ld): empty active mask" },
  { "lane 32 of a 32-lane warp",     MDL_WARP_ALU, MDL_SPACE_NONE, 0, 0, 1ull << 32, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, alu): active lanes beyond the warp width" },
  { "lane 8 of an 8-lane warp",      MDL_WARP_ALU, MDL_SPACE_NONE, 0, 0, 0x1ff, 0, 0, 8,
    "active lanes beyond the warp width" },
  { "taken lane not active",         MDL_WARP_BRANCH, MDL_SPACE_NONE, 0, 0, 0xf0, 0x18, 0, 32,
    "warp event (launch 1, block 2, warp 3, branch): taken lanes that are not active" },
  { "taken mask on an alu",          MDL_WARP_ALU, MDL_SPACE_NONE, 0, 0, 0xf, 0x1, 0, 32,
    "warp event (launch 1, block 2, warp 3, alu): taken mask on an instruction that is neither a branch nor a CAS" },
  { "load without a space",          MDL_WARP_LOAD, MDL_SPACE_NONE, 4, 0, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, ld): memory space does not match the op" },
  { "alu with a space",              MDL_WARP_ALU, MDL_SPACE_SHARED, 0, 0, 0xf, 0, 0, 32,
    "memory space does not match the op" },
  { "space out of range",            MDL_WARP_STORE, MDL_SPACE_N, 4, 0, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, st): memory space does not match the op" },
  { "load of width 0",               MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 0, 0, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, ld): access width outside 1..64 bytes" },
  { "atomic of width 65",            MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 65, 0, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, atom): access width outside 1..64 bytes" },
  { "alu with a width",              MDL_WARP_ALU, MDL_SPACE_NONE, 4, 0, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, alu): addresses on an instruction that is not a "
    "memory access" },
  { "barrier marked strided",        MDL_WARP_BARRIER, MDL_SPACE_NONE, 0, MDL_WARP_STRIDED, 0xf, 0,
    0, 32, "warp event (launch 1, block 2, warp 3, bar): addresses on an instruction that is not "
    "a memory access" },
  { "unknown flag",                  MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, 0x10, 0xf, 0, 0, 32,
    "warp event (launch 1, block 2, warp 3, ld): unknown flags" },
  /* 4 active lanes from index 1 need entries 1..4, but the batch has 0..3. */
  { "lane addresses past the end",   MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, 0, 0xf, 0, 1, 32,
    "warp event (launch 1, block 2, warp 3, ld): lane addresses outside the batch" },
  /* first_addr + popcount must not wrap around in 32 bits. */
  { "first_addr near 2^32",          MDL_WARP_STORE, MDL_SPACE_GLOBAL, 4, 0, 0xf, 0, G_MAXUINT32,
    32, "lane addresses outside the batch" },
  { "5 lanes, 4 addresses",          MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, 0, 0x1f, 0, 0, 32,
    "lane addresses outside the batch" },
};

/* Ensure each rule of mdl_warp_event_check() accepts the valid events and rejects the broken one
 * with MDL_ERROR_FORMAT and a message naming the event and the rule. */
static void
test_warp_check_names_each_broken_rule (void **state)
{
  MdlEventBatch batch = { .lane_addrs = four_addrs, .n_lane_addrs = G_N_ELEMENTS (four_addrs) };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rule_rows); i++)
    {
      MdlWarpEvent w = valid_load ();
      GError *error = NULL;
      gboolean ok;
      w.op = rule_rows[i].op;
      w.space = rule_rows[i].space;
      w.width = rule_rows[i].width;
      w.flags = rule_rows[i].flags;
      w.active = rule_rows[i].active;
      w.taken = rule_rows[i].taken;
      w.first_addr = rule_rows[i].first_addr;
      ok = mdl_warp_event_check (&batch, &w, rule_rows[i].warp_width, &error);
      if (rule_rows[i].expect == NULL)
        {
          if (!ok)
            fail_msg ("%s: rejected: %s", rule_rows[i].name, error ? error->message : "?");
          continue;
        }
      if (ok || error == NULL)
        fail_msg ("%s: accepted, expected \"%s\"", rule_rows[i].name, rule_rows[i].expect);
      if (error->domain != MDL_ERROR || error->code != MDL_ERROR_FORMAT
          || strstr (error->message, rule_rows[i].expect) == NULL)
        fail_msg ("%s: expected MDL_ERROR_FORMAT with \"%s\", got code %d: %s", rule_rows[i].name,
                  rule_rows[i].expect, error->code, error->message);
      g_error_free (error);
    }
}

/* Ensure strides up to MDL_WARP_STRIDE_MAX either way pass and one more is rejected: mdl_warp_addrs
 * multiplies the stride by lanes up to 63 in 64 bits. */
static void
test_warp_check_limits_the_stride (void **state)
{
  static const struct { gint64 stride; gboolean ok; } rows[] = {
    { MDL_WARP_STRIDE_MAX, TRUE }, { -MDL_WARP_STRIDE_MAX, TRUE },
    { MDL_WARP_STRIDE_MAX + 1, FALSE }, { G_MININT64, FALSE },
  };
  MdlEventBatch batch = { 0 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlWarpEvent w = valid_load ();
      GError *error = NULL;
      w.flags = MDL_WARP_STRIDED;
      w.stride = rows[i].stride;
      if (mdl_warp_event_check (&batch, &w, 32, &error) != rows[i].ok)
        fail_msg ("stride %" G_GINT64_FORMAT ": expected %s", rows[i].stride,
                  rows[i].ok ? "valid" : "rejected");
      if (!rows[i].ok)
        assert_mdl_error (error, MDL_ERROR_FORMAT, "stride out of range");
    }
}

/* Ensure a strided memory op needs no lane addresses in the batch, and a NULL error is allowed. */
static void
test_warp_check_strided_needs_no_lane_addresses (void **state)
{
  MdlEventBatch empty = { 0 };
  MdlWarpEvent w = valid_load ();
  (void) state;
  w.flags = MDL_WARP_STRIDED;
  w.base = 0x4000;
  w.stride = -8;
  assert_true (mdl_warp_event_check (&empty, &w, 32, NULL));
  w.flags = 0;
  assert_false (mdl_warp_event_check (&empty, &w, 32, NULL));
}

/* The names are the ones event.h documents; rows list every valid value and the first invalid. */
static const struct {
  const char *name;
  const char *(*fn) (guint);
  guint value;
  const char *expect;
} name_rows[] = {
  { "cpu read",       mdl_cpu_kind_name, MDL_CPU_READ, "read" },
  { "cpu write",      mdl_cpu_kind_name, MDL_CPU_WRITE, "write" },
  { "cpu modify",     mdl_cpu_kind_name, MDL_CPU_MODIFY, "modify" },
  { "cpu ops",        mdl_cpu_kind_name, MDL_CPU_OPS, "ops" },
  { "cpu invalid",    mdl_cpu_kind_name, MDL_CPU_N_KINDS, NULL },
  { "op load",        mdl_warp_op_name, MDL_WARP_LOAD, "ld" },
  { "op store",       mdl_warp_op_name, MDL_WARP_STORE, "st" },
  { "op atomic",      mdl_warp_op_name, MDL_WARP_ATOMIC, "atom" },
  { "op alu",         mdl_warp_op_name, MDL_WARP_ALU, "alu" },
  { "op branch",      mdl_warp_op_name, MDL_WARP_BRANCH, "branch" },
  { "op barrier",     mdl_warp_op_name, MDL_WARP_BARRIER, "bar" },
  { "op invalid",     mdl_warp_op_name, MDL_WARP_N_OPS, NULL },
  { "space none",     mdl_space_name, MDL_SPACE_NONE, "none" },
  { "space global",   mdl_space_name, MDL_SPACE_GLOBAL, "global" },
  { "space shared",   mdl_space_name, MDL_SPACE_SHARED, "shared" },
  { "space local",    mdl_space_name, MDL_SPACE_LOCAL, "local" },
  { "space invalid",  mdl_space_name, MDL_SPACE_N, NULL },
  { "mark launch",    mdl_marker_kind_name, MDL_MARK_LAUNCH, "launch" },
  { "mark barrier",   mdl_marker_kind_name, MDL_MARK_BARRIER, "barrier" },
  { "mark sync",      mdl_marker_kind_name, MDL_MARK_SYNC, "sync" },
  { "mark begin",     mdl_marker_kind_name, MDL_MARK_PHASE_BEGIN, "phase-begin" },
  { "mark end",       mdl_marker_kind_name, MDL_MARK_PHASE_END, "phase-end" },
  { "mark site",      mdl_marker_kind_name, MDL_MARK_SITE, "site" },
  { "mark invalid",   mdl_marker_kind_name, MDL_MARK_N_KINDS, NULL },
  { "huge value",     mdl_marker_kind_name, G_MAXUINT, NULL },
};

/* Ensure every kind, op, space and marker kind has its documented name, and invalid values NULL. */
static void
test_names_cover_every_value (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (name_rows); i++)
    {
      const char *got = name_rows[i].fn (name_rows[i].value);
      if (g_strcmp0 (got, name_rows[i].expect) != 0)
        fail_msg ("%s: expected %s, got %s", name_rows[i].name,
                  name_rows[i].expect ? name_rows[i].expect : "NULL", got ? got : "NULL");
    }
}

/* Ensure mdl_warp_addrs() expands both address forms by lane, leaving inactive slots alone. */
static void
test_warp_addrs_expands_both_forms (void **state)
{
  static const guint64 listed[3] = { 0x30, 0x10, 0x20 };
  MdlEventBatch batch = { .lane_addrs = listed, .n_lane_addrs = 3 };
  MdlWarpEvent strided = { .active = 0x9, .base = 0x100, .stride = -4, .flags = MDL_WARP_STRIDED,
                           .width = 4, .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL };
  MdlWarpEvent list = { .active = 0x16, .first_addr = 0, .width = 4, .op = MDL_WARP_STORE,
                        .space = MDL_SPACE_SHARED };
  guint64 out[MDL_WARP_MAX_LANES];
  (void) state;
  memset (out, 0xab, sizeof out);
  mdl_warp_addrs (&batch, &strided, out);
  /* lanes 0 and 3: 0x100 + 0 * -4 and 0x100 + 3 * -4 = 0xf4 */
  assert_int_equal (out[0], 0x100);
  assert_int_equal (out[3], 0xf4);
  assert_int_equal (out[1], 0xababababababababull);
  /* lanes 1, 2, 4 take the listed addresses in lane order */
  mdl_warp_addrs (&batch, &list, out);
  assert_int_equal (out[1], 0x30);
  assert_int_equal (out[2], 0x10);
  assert_int_equal (out[4], 0x20);
  assert_true (mdl_warp_is_memory (&list));
  list.op = MDL_WARP_ALU;
  assert_false (mdl_warp_is_memory (&list));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_warp_check_names_each_broken_rule),
    cmocka_unit_test (test_warp_check_strided_needs_no_lane_addresses),
    cmocka_unit_test (test_warp_check_limits_the_stride),
    cmocka_unit_test (test_names_cover_every_value),
    cmocka_unit_test (test_warp_addrs_expands_both_forms),
  };
  return cmocka_run_group_tests_name ("events", tests, NULL, NULL);
}
