/* The warp engines' fast paths for the strided form of an event (lanes at base + lane x stride,
 * handled from the lane mask without listing addresses) against their lane-by-lane way: every
 * engine must report exactly the same whether a memory instruction comes strided or with one
 * explicit address per lane (the form the strided fast paths never see; its own fast path, lanes
 * of one word each read straight from the list (gpu_list_words), is thus checked against the
 * strided form's lane-by-lane way). Random streams of loads, stores
 * and atomics of every width, strides that hit and miss each fast path (one word per lane, runs,
 * overlaps, negative and zero strides, misaligned bases, bases at a bitmap page edge, near 2^32
 * words and at the top of the address space), masks that are full, runs, sparse or one lane, and
 * ALU, branch and barrier events between them, over several launches, blocks and warps.
 * Seed: MODELS_TEST_SEED (default 1818), named in every failure. */
#include "helpers.h"

#include <models/models.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#define N_EVENTS 600
#define ROUNDS 40

static const char *const specs[] = {
  "count",
  "divergence",
  "coalesce",
  "coalesce:rule=cc1.0",
  "coalesce:rule=cc1.2",
  "coalesce:rule=l1lines",
  "banks",
  "banks:rule=halfwarp,banks=16",
  "banks:rule=split",
  "banks:bank_bytes=8",
  "banks:banks=64",
  "agpu",
  "agpu:b=8,k=3",
  "agpu:b=64",
  "agpu:w=8",
  "agpu:w=64,broadcast=1",
  "agpu:virtual=1",
  "agpu:volatile=0,b=16",
  "kmodel",
  "kmodel:k=32",
  "kmodel:k=4,broadcast=1",
  "kmodel:fuse=0",
  "kmodel:k=64",
  "msimd",
  "msimd:S=8,P=7",
  "msimd:policy=serial,ww=1",
  "msimd:S=64,P=3",
  "warpio",
  "warpio:S=8,P=7",
  "warpio:elem=8,S=4",
};

typedef struct {
  GArray *events;    /* MdlWarpEvent, strided where drawn so */
  GArray *markers;   /* Mark */
} Stream;

typedef struct {
  MdlMarker m;
  guint before;      /* the first event after it */
} Mark;

static guint64
draw_mask (GRand *r, guint lanes)
{
  guint64 all = lanes == 64 ? G_MAXUINT64 : ((guint64) 1 << lanes) - 1, m;
  guint a, b;
  switch (g_rand_int_range (r, 0, 6))
    {
    case 0:
    case 1:
      return all;
    case 2:   /* a run */
      a = (guint) g_rand_int_range (r, 0, (gint32) lanes);
      b = (guint) g_rand_int_range (r, (gint32) a, (gint32) lanes);
      return (b - a == 63 ? G_MAXUINT64 : (((guint64) 1 << (b - a + 1)) - 1)) << a;
    case 3:   /* one lane */
      return (guint64) 1 << g_rand_int_range (r, 0, (gint32) lanes);
    default:
      m = ((guint64) g_rand_int (r) << 32 | g_rand_int (r)) & all;
      return m ? m : 1;
    }
}

static guint64
draw_base (GRand *r, MdlSpace space, guint width)
{
  static const guint64 globals[] = { 0x700000000000ull, (1u << 17) - 96, (1ull << 34) - 200,
                                     G_MAXUINT64 - 300, 0 };
  guint64 base;
  if (space == MDL_SPACE_SHARED)
    {
      /* Below kmodel's sigma mostly, and now and then near agpu's 2^32 words of shared memory. */
      base = g_rand_int_range (r, 0, 8) == 0 ? (4ull << 32) - 4 * (guint64) g_rand_int_range (r, 1, 100)
                                             : (guint64) g_rand_int_range (r, 0, 40000);
    }
  else
    base = globals[g_rand_int_range (r, 0, G_N_ELEMENTS (globals))] + (guint64) g_rand_int_range (r, 0, 4096);
  if (g_rand_int_range (r, 0, 4) != 0)
    base &= ~(guint64) (width - 1);   /* aligned, mostly */
  return base;
}

static gint64
draw_stride (GRand *r, guint width)
{
  /* 64, 132, -256, 4100: the transposes' columns, whose banks repeat every 1 to 32 lanes */
  static const gint64 others[] = { 0, 1, 2, 4, 8, 16, 32, 128, -4, -8, 3, 12, 64, 132, -256, 4100 };
  switch (g_rand_int_range (r, 0, 4))
    {
    case 0:
    case 1:
      return width;
    case 2:
      return 4;
    default:
      return others[g_rand_int_range (r, 0, G_N_ELEMENTS (others))];
    }
}

static Stream
draw_stream (GRand *r)
{
  static const guint widths[] = { 4, 4, 4, 8, 1, 2, 16 };
  Stream s = { g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent)), g_array_new (FALSE, FALSE, sizeof (Mark)) };
  guint lanes = 32, launch = 0;
  for (guint i = 0; i < N_EVENTS; i++)
    {
      MdlWarpEvent e = { 0 };
      guint kind = (guint) g_rand_int_range (r, 0, 10);
      if (i == 0 || g_rand_int_range (r, 0, 150) == 0)
        {
          Mark k = { { .kind = MDL_MARK_SYNC }, s.events->len };
          if (i > 0)
            g_array_append_val (s.markers, k);
          lanes = g_rand_int_range (r, 0, 4) == 0 ? 64 : 32;
          k = (Mark) { { .kind = MDL_MARK_LAUNCH, .launch = ++launch, .grid_blocks = 5,
                         .block_threads = 2 * lanes, .shared_bytes = 4096, .warp_width = lanes },
                       s.events->len };
          g_array_append_val (s.markers, k);
        }
      e.launch = launch;
      e.block = (guint32) g_rand_int_range (r, 0, 5);
      e.warp = (guint16) g_rand_int_range (r, 0, 2);
      e.active = draw_mask (r, lanes);
      if (kind < 7)
        {
          e.op = kind < 3 ? MDL_WARP_LOAD : kind < 6 ? MDL_WARP_STORE : MDL_WARP_ATOMIC;
          e.space = g_rand_int_range (r, 0, 5) == 0 ? MDL_SPACE_LOCAL
                    : g_rand_int_range (r, 0, 2) ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL;
          e.width = (guint16) widths[g_rand_int_range (r, 0, G_N_ELEMENTS (widths))];
          if (e.op == MDL_WARP_ATOMIC)
            e.width = g_rand_boolean (r) ? 4 : 8;
          e.flags = MDL_WARP_STRIDED;
          e.base = draw_base (r, e.space, e.width);
          e.stride = draw_stride (r, e.width);
          /* A second shared load with the same mask now and then, which kmodel fuses. */
          if (e.op == MDL_WARP_LOAD && e.space == MDL_SPACE_SHARED && g_rand_int_range (r, 0, 2) == 0)
            {
              MdlWarpEvent f = e;
              g_array_append_val (s.events, f);
              e.base = draw_base (r, e.space, e.width);
              e.stride = g_rand_boolean (r) ? e.stride : draw_stride (r, e.width);
            }
        }
      else if (kind == 7)
        {
          e.op = MDL_WARP_BRANCH;
          e.taken = e.active & ((guint64) g_rand_int (r) << 32 | g_rand_int (r));
        }
      else
        e.op = kind == 8 ? MDL_WARP_ALU : g_rand_boolean (r) ? MDL_WARP_BARRIER : MDL_WARP_JUMP;
      if (g_rand_int_range (r, 0, 30) == 0)
        e.flags |= MDL_WARP_MACHINE;
      g_array_append_val (s.events, e);
    }
  return s;
}

/* Feeds @s to @e, strided events as they are or expanded to one address per lane; returns the
 * report as text, or the first error's message. */
static char *
run (const char *spec, const Stream *s, gboolean expand)
{
  g_autoptr (MdlEngine) e = mdl_engine_new (spec, NULL);
  g_autoptr (GArray) events = g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent));
  g_autoptr (GArray) addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlReport) report = NULL;
  GString *out = g_string_new (NULL);
  guint at = 0;
  assert_non_null (e);
  for (guint i = 0; i < s->events->len; i++)
    {
      MdlWarpEvent w = g_array_index (s->events, MdlWarpEvent, i);
      if (expand && (w.flags & MDL_WARP_STRIDED))
        {
          w.flags &= (guint8) ~MDL_WARP_STRIDED;
          w.first_addr = addrs->len;
          for (guint64 m = w.active; m; m &= m - 1)
            {
              guint64 a = w.base + (guint64) ((gint64) __builtin_ctzll (m) * w.stride);
              g_array_append_val (addrs, a);
            }
          w.base = 0;
          w.stride = 0;
        }
      g_array_append_val (events, w);
    }
  for (guint k = 0; k <= s->markers->len && error == NULL; k++)
    {
      guint end = k < s->markers->len ? g_array_index (s->markers, Mark, k).before : events->len;
      /* Batches of at most 7 events, so that kmodel's fused pairs straddle batches. */
      while (at < end && error == NULL)
        {
          guint len = MIN (end - at, 7u);
          MdlEventBatch b = { .warp = &g_array_index (events, MdlWarpEvent, at), .n_warp = len,
                              .lane_addrs = (const guint64 *) (void *) addrs->data,
                              .n_lane_addrs = addrs->len };
          mdl_engine_consume (e, &b, &error);
          at += len;
        }
      if (k < s->markers->len && error == NULL)
        mdl_engine_marker (e, &g_array_index (s->markers, Mark, k).m, &error);
    }
  if (error)
    g_string_append_printf (out, "error: %s; ", error->message);
  report = mdl_engine_report (e);
  test_report_append_text (out, report);
  return g_string_free (out, FALSE);
}

/* Ensure every warp engine reports the same for a stream whether its memory instructions come
 * in the strided form or with one address per lane. */
static void
test_strided_form_costs_what_lane_addresses_cost (void **state)
{
  guint32 seed = test_seed (1818);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < ROUNDS; round++)
    {
      Stream s = draw_stream (r);
      for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
        {
          g_autofree char *fast = run (specs[i], &s, FALSE);
          g_autofree char *slow = run (specs[i], &s, TRUE);
          if (strcmp (fast, slow) != 0)
            {
              g_auto (GStrv) f = g_strsplit (fast, " ", -1), w = g_strsplit (slow, " ", -1);
              guint k = 0;
              while (f[k] && w[k] && strcmp (f[k], w[k]) == 0)
                k++;
              fail_msg ("seed %u, round %u, %s: strided %s, by lane %s", seed, round, specs[i],
                        f[k] ? f[k] : "(end)", w[k] ? w[k] : "(end)");
            }
        }
      g_array_unref (s.events);
      g_array_unref (s.markers);
    }
  g_rand_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_strided_form_costs_what_lane_addresses_cost),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
