/* The warp engines of issue 18's row (divergence, coalesce, banks) under the cuts their fast
 * loops make: a report must not depend on how the stream is cut into batches (divergence sums
 * ops in 16-bit fields it unpacks every 65535 events, so a stream longer than that as one batch
 * and in batches of random sizes must agree), and under the compute capability 1.x and Fermi
 * rules every active half-warp or request group of a global access moves at least one
 * transaction, whichever half or group of the warp it is.
 * Seed: MODELS_TEST_SEED (default 1018), named in every failure. */
#include "helpers.h"

#include <models/models.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

/* More than the 65535 events of one op that a 16-bit field of divergence's sums can hold. */
#define LONG_STREAM 80000

static const char *const specs[] = {
  "divergence", "divergence:count=source", "coalesce", "banks", "banks:rule=split",
};

static guint64
draw_mask (GRand *r)
{
  guint64 m = g_rand_int (r);
  switch (g_rand_int_range (r, 0, 4))
    {
    case 0:
      return 0xffffffffu;
    case 1:
      return 0xffff0000u;   /* the upper half-warp alone */
    default:
      return m ? m : 1;
    }
}

/* A random valid instruction of op @op (MDL_WARP_N_OPS: any but an atomic), memory ones
 * strided, into @events. */
static void
draw_event (GRand *r, guint op, GArray *events)
{
  MdlWarpEvent e = { .active = draw_mask (r), .launch = 0, .warp = (guint16) g_rand_int_range (r, 0, 8) };
  e.op = (guint8) (op < MDL_WARP_N_OPS ? op : (guint) g_rand_int_range (r, 0, MDL_WARP_N_OPS));
  if (e.op == MDL_WARP_ATOMIC)
    e.op = MDL_WARP_ALU;
  if (e.op <= MDL_WARP_STORE)
    {
      e.space = g_rand_boolean (r) ? MDL_SPACE_GLOBAL : MDL_SPACE_SHARED;
      e.width = g_rand_boolean (r) ? 4 : 8;
      e.flags = MDL_WARP_STRIDED;
      e.base = (guint64) g_rand_int_range (r, 0, 4096) * e.width;
      e.stride = (gint64) e.width * g_rand_int_range (r, 0, 40);
    }
  else if (e.op == MDL_WARP_BRANCH)
    e.taken = e.active & g_rand_int (r);
  g_array_append_val (events, e);
}

/* The report of @spec over @events fed in batches of at most @most events (0: one batch), as
 * text. */
static char *
report_text (const char *spec, const GArray *events, guint most, GRand *r)
{
  g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
  g_autoptr (MdlReport) report = NULL;
  GString *out = g_string_new (NULL);
  assert_non_null (e);
  for (guint at = 0; at < events->len;)
    {
      guint len = most ? (guint) g_rand_int_range (r, 1, (gint32) most + 1) : events->len;
      MdlEventBatch b = { .warp = &g_array_index (events, MdlWarpEvent, at),
                          .n_warp = MIN (len, events->len - at) };
      g_autoptr (GError) error = NULL;
      assert_true (mdl_engine_consume (e, &b, &error));
      at += b.n_warp;
    }
  report = mdl_engine_report (e);
  test_report_append_text (out, report);
  return g_string_free (out, FALSE);
}

/* Ensure each engine reports the same for a stream with more than 65535 branches and every op
 * whether it comes as one batch or in batches of random sizes. */
static void
test_reports_do_not_depend_on_batches (void **state)
{
  guint32 seed = test_seed (1018);
  GRand *r = g_rand_new_with_seed (seed);
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent));
  (void) state;
  for (guint i = 0; i < LONG_STREAM; i++)
    draw_event (r, i % 8 ? MDL_WARP_BRANCH : MDL_WARP_N_OPS, events);
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autofree char *whole = report_text (specs[i], events, 0, r);
      g_autofree char *cut = report_text (specs[i], events, 5000, r);
      if (strcmp (whole, cut) != 0)
        fail_msg ("seed %u, %s: one batch %s, in batches %s", seed, specs[i], whole, cut);
    }
  g_rand_free (r);
}

/* Ensure that under cc1.0 and cc1.2 every active half-warp of a global load or store, and under
 * l1lines every active request group, moves at least one transaction: instructions of one
 * half-warp, the upper one included, and of lanes spread over both, with coalesced and
 * scattered addresses. */
static void
test_every_active_part_moves_a_transaction (void **state)
{
  static const struct { const char *spec; guint lanes; } rules[] = {
    { "coalesce:rule=cc1.0", 16 }, { "coalesce:rule=cc1.2", 16 }, { "coalesce:rule=l1lines", 32 },
  };
  guint32 seed = test_seed (1018);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 200; round++)
    {
      guint64 addrs[MDL_WARP_MAX_LANES], active = draw_mask (r);
      gboolean scattered = g_rand_boolean (r);
      guint n = 0;
      MdlWarpEvent e = { .active = active, .op = g_rand_boolean (r) ? MDL_WARP_LOAD : MDL_WARP_STORE,
                         .space = MDL_SPACE_GLOBAL, .width = 4 };
      MdlEventBatch b = { .warp = &e, .n_warp = 1, .lane_addrs = addrs };
      for (guint64 m = active; m; m &= m - 1)
        addrs[n++] = 0x10000 + 4 * (guint64) __builtin_ctzll (m) * (scattered ? 97 : 1);
      b.n_lane_addrs = n;
      for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
        {
          g_autoptr (MdlEngine) engine = mdl_engine_new (rules[i].spec, NULL);
          g_autoptr (GError) error = NULL;
          guint parts = 0;
          guint64 moved;
          for (guint l = 0; l < 32; l += rules[i].lanes)
            parts += (active >> l & ((G_GUINT64_CONSTANT (1) << rules[i].lanes) - 1)) != 0;
          assert_true (mdl_engine_consume (engine, &b, &error));
          moved = test_engine_count (engine, e.op == MDL_WARP_LOAD ? "gld_transactions"
                                                                   : "gst_transactions");
          if (moved < parts)
            fail_msg ("seed %u, round %u, %s: lanes %#" G_GINT64_MODIFIER "x in %u parts moved %"
                      G_GUINT64_FORMAT " transactions", seed, round, rules[i].spec, active, parts,
                      moved);
        }
    }
  g_rand_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_reports_do_not_depend_on_batches),
    cmocka_unit_test (test_every_active_part_moves_a_transaction),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
