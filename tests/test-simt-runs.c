/* A differential test of the SIMT layer's memory instructions against a slow reference written
 * here: random address vectors (strided, nearly strided, random, crowded at a buffer's end, spread
 * over two global buffers, one lane out of bounds or misaligned) under random lane masks, every
 * width, loads and stores, in shared memory of sizes that are and are not powers of two and in
 * global buffers that do not start on a power of two. The layer reads a run of lanes' addresses
 * once (their AND and OR bound the window, one pass checks the stride); the reference takes every
 * lane on its own. Also the predicate's lanes from condition bytes, which the layer reads eight
 * at a time. Seed: MODELS_TEST_SEED (default 2718), named in every failure. */
#include "helpers.h"

#include <string.h>

#define THREADS 64
#define GLOBAL_BYTES 1000

typedef struct {
  MdlSpace space;
  gboolean store;
  guint width;
  guint shared_bytes;
  gboolean on[THREADS];
  guint64 addr[THREADS];       /* global: device address; shared: byte offset */
  guint64 val[THREADS][2];     /* a store's values */
  guint64 got[THREADS][2];     /* a load's values */
  guint8 shared_after[1024];   /* the block's shared memory after the instruction */
} Access;

/* The bytes every run starts from: shared memory and both global buffers hold this pattern. */
static guint8
pattern (guint64 i)
{
  return (guint8) (i * 131 + 7);
}

static void
access_kernel (MdlSimtBlock *b, void *p)
{
  Access *a = p;
  guint words = a->width == 16 ? 2 : 1;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 2);
  guint8 *cond = mdl_simt_cond (b);
  for (guint i = 0; i < a->shared_bytes; i++)
    b->shared[i] = pattern (i);
  MDL_SIMT_EACH (b, t)
    {
      at[t] = a->addr[t];
      cond[t] = (guint8) a->on[t];
      memcpy (&v[(gsize) t * words], a->val[t], words * sizeof (guint64));
    }
  mdl_simt_pred_begin (b);
  if (a->store)
    mdl_simt_st (b, a->space, a->width, at, v);
  else
    mdl_simt_ld (b, a->space, a->width, at, v);
  MDL_SIMT_EACH (b, t)
    memcpy (a->got[t], &v[(gsize) t * words], words * sizeof (guint64));
  mdl_simt_pred_end (b);
  memcpy (a->shared_after, b->shared, a->shared_bytes);
}

/* The reference: TRUE when the active lanes of @on (lanes @from..@from+31) have addresses
 * a_first + (l − first) × s for an integer s, two lanes or more (the strided form). */
static gboolean
ref_strided (const gboolean *on, const guint64 *addr, guint from, gint64 *stride)
{
  gint first = -1, second = -1;
  for (guint l = 0; l < 32; l++)
    if (on[from + l])
      {
        if (first < 0)
          first = (gint) l;
        else if (second < 0)
          second = (gint) l;
      }
  if (second < 0)
    return FALSE;
  gint64 diff = (gint64) (addr[from + second] - addr[from + first]);
  if (diff % (second - first) != 0)
    return FALSE;
  *stride = diff / (second - first);
  for (guint l = 0; l < 32; l++)
    if (on[from + l] && addr[from + l] != addr[from + first] + (guint64) ((gint64) (l - first) * *stride))
      return FALSE;
  return TRUE;
}

/* Fills the lanes of warp @w with addresses of one of five kinds, as indexes of @width-byte
 * words into a region of @n words at @base (@other: a second global region, else 0). */
static void
warp_addresses (GRand *r, Access *a, guint w, guint64 base, guint64 other, guint n)
{
  guint kind = (guint) g_rand_int_range (r, 0, other ? 5 : 4);
  gint k = g_rand_int_range (r, -2, 3);
  guint64 idx[32];
  if (31 * (guint) ABS (k) >= n)
    k = 1;
  guint i0 = k >= 0 ? (guint) g_rand_int_range (r, 0, (gint32) (n - 31 * (guint) k))
                    : 31 * (guint) -k + (guint) g_rand_int_range (r, 0, (gint32) (n - 31 * (guint) -k));
  for (guint l = 0; l < 32; l++)
    {
      switch (kind)
        {
        case 0:   /* strided: word i0 + k l */
        case 1:   /* the same with one lane moved by a word */
          idx[l] = (guint64) ((gint64) i0 + k * (gint64) l);
          break;
        case 2:
          idx[l] = (guint64) g_rand_int_range (r, 0, (gint32) n);
          break;
        default:  /* 3: the last 16 words; 4: the same or the other buffer's */
          idx[l] = n - 1 - (guint64) g_rand_int_range (r, 0, 16);
          break;
        }
      a->addr[32 * w + l] = (kind == 4 && g_rand_boolean (r) ? other : base) + idx[l] * a->width;
    }
  if (kind == 1)
    {
      guint l = (guint) g_rand_int_range (r, 0, 32);
      a->addr[32 * w + l] = base + (idx[l] + 1 < n ? idx[l] + 1 : idx[l] - 1) * a->width;
    }
}

/* Ensure each warp's memory event carries its active lanes' addresses in lane order, in the
 * strided form exactly when the reference finds a stride, that loads return and stores leave
 * what the reference's lane-by-lane pass does, and that a lane out of bounds or misaligned fails
 * the launch naming the first such thread. */
static void
test_random_runs_match_lane_by_lane (void **state)
{
  guint32 seed = test_seed (2718);
  GRand *r = g_rand_new_with_seed (seed);
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  static const guint shared_sizes[] = { 1024, 1000, 768 };
  (void) state;
  for (guint round = 0; round < 3000; round++)
    {
      TestCollector *c = test_collector_new ();
      MdlSink sink = test_collector_sink (c);
      g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
      g_autoptr (GError) error = NULL;
      Access *a = g_new0 (Access, 1);
      guint64 g0 = mdl_simt_alloc (gpu, GLOBAL_BYTES, NULL), g1 = mdl_simt_alloc (gpu, GLOBAL_BYTES, NULL);
      guint8 *h0 = mdl_simt_host (gpu, g0), *h1 = mdl_simt_host (gpu, g1);
      guint8 ref_shared[1024], ref0[GLOBAL_BYTES], ref1[GLOBAL_BYTES];
      guint64 loaded[THREADS][2] = { { 0 } };
      guint masks = (guint) g_rand_int_range (r, 0, 5), found = 0, warps_on = 0;
      gint fault = -1;
      a->space = g_rand_boolean (r) ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL;
      a->store = g_rand_boolean (r);
      a->width = widths[g_rand_int_range (r, 0, 5)];
      a->shared_bytes = shared_sizes[g_rand_int_range (r, 0, 3)];
      for (guint i = 0; i < GLOBAL_BYTES; i++)
        h0[i] = h1[i] = ref0[i] = ref1[i] = pattern (i);
      for (guint i = 0; i < a->shared_bytes; i++)
        ref_shared[i] = pattern (i);
      for (guint w = 0; w < 2; w++)
        {
          gboolean shared = a->space == MDL_SPACE_SHARED;
          guint bytes = shared ? a->shared_bytes : GLOBAL_BYTES;
          guint lo = (guint) g_rand_int_range (r, 0, 32), hi = (guint) g_rand_int_range (r, (gint32) lo, 32);
          warp_addresses (r, a, w, shared ? 0 : g0, shared ? 0 : g1, bytes / a->width);
          for (guint l = 0; l < 32; l++)
            /* 0: all lanes; 1: a run lo..hi; 2: random; 3: lane lo alone; 4: none */
            a->on[32 * w + l] = masks == 0 || (masks == 1 && l >= lo && l <= hi)
                                || (masks == 2 && g_rand_boolean (r)) || (masks == 3 && l == lo);
        }
      for (guint t = 0; t < THREADS; t++)
        for (guint k = 0; k < 2; k++)
          a->val[t][k] = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
      if (g_rand_int_range (r, 0, 10) == 0)
        {
          /* one active lane past its buffer's end, or off its alignment */
          guint t = (guint) g_rand_int_range (r, 0, THREADS);
          a->on[t] = TRUE;
          if (a->width > 1 && g_rand_boolean (r))
            a->addr[t] += 1;
          else
            a->addr[t] = (a->space == MDL_SPACE_SHARED ? a->shared_bytes : g1 + GLOBAL_BYTES)
                         / a->width * a->width;
        }
      /* the reference, lane by lane in warp and lane order */
      for (guint t = 0; t < THREADS && fault < 0; t++)
        {
          guint8 *mem;
          guint64 off;
          if (!a->on[t])
            continue;
          if (a->space == MDL_SPACE_SHARED)
            mem = ref_shared, off = a->addr[t];
          else if (a->addr[t] >= g1)
            mem = ref1, off = a->addr[t] - g1;
          else
            mem = ref0, off = a->addr[t] - g0;
          if (a->addr[t] % a->width != 0
              || off + a->width > (a->space == MDL_SPACE_SHARED ? a->shared_bytes : GLOBAL_BYTES))
            {
              fault = (gint) t;
              break;
            }
          if (a->store)
            memcpy (mem + off, a->val[t], a->width);
          else
            memcpy (loaded[t], mem + off, a->width);
        }
      if (fault >= 0)
        {
          char name[32];
          g_snprintf (name, sizeof name, "thread %d:", fault);
          assert_false (mdl_simt_launch (gpu, &(MdlSimtLaunch) { .grid_x = 1, .block_x = THREADS,
                                                               .shared_bytes = a->shared_bytes },
                                         access_kernel, a, &error));
          if (strstr (error->message, name) == NULL)
            fail_msg ("seed %u: round %u: want a fault of %s, got %s", seed, round, name,
                      error->message);
          g_free (a);
          test_collector_free (c);
          continue;
        }
      if (!mdl_simt_launch (gpu, &(MdlSimtLaunch) { .grid_x = 1, .block_x = THREADS,
                                                    .shared_bytes = a->shared_bytes },
                            access_kernel, a, &error))
        fail_msg ("seed %u: round %u: %s", seed, round, error->message);
      for (guint t = 0; t < THREADS; t++)
        if (!a->store && a->on[t] && memcmp (a->got[t], loaded[t], sizeof loaded[t]) != 0)
          fail_msg ("seed %u: round %u: thread %u loaded %" G_GINT64_MODIFIER "x, want %"
                    G_GINT64_MODIFIER "x (width %u)", seed, round, t, a->got[t][0], loaded[t][0],
                    a->width);
      if (a->space == MDL_SPACE_SHARED ? memcmp (a->shared_after, ref_shared, a->shared_bytes) != 0
                                       : memcmp (h0, ref0, GLOBAL_BYTES) != 0
                                         || memcmp (h1, ref1, GLOBAL_BYTES) != 0)
        fail_msg ("seed %u: round %u: memory after the store differs from the reference", seed,
                  round);
      for (guint i = 0; i < c->warp->len; i++)
        {
          const MdlWarpEvent *e = &g_array_index (c->warp, MdlWarpEvent, i);
          guint w = e->warp, k = 0;
          guint64 want = 0;
          gint64 stride = 0;
          gboolean strided;
          if (e->op != (a->store ? MDL_WARP_STORE : MDL_WARP_LOAD))
            continue;
          found++;
          for (guint l = 0; l < 32; l++)
            want |= (guint64) a->on[32 * w + l] << l;
          strided = ref_strided (a->on, a->addr, 32 * w, &stride);
          if (e->active != want || !(e->flags & MDL_WARP_STRIDED) != !strided
              || (strided && e->stride != stride))
            fail_msg ("seed %u: round %u: warp %u: active %" G_GINT64_MODIFIER "x strided %d "
                      "stride %" G_GINT64_FORMAT ", want %" G_GINT64_MODIFIER "x %d %" G_GINT64_FORMAT,
                      seed, round, w, e->active, (e->flags & MDL_WARP_STRIDED) != 0, e->stride,
                      want, strided, stride);
          for (guint l = 0; l < 32; l++)
            {
              guint64 got;
              if (!(want >> l & 1))
                continue;
              got = e->flags & MDL_WARP_STRIDED ? e->base + (guint64) ((gint64) l * e->stride)
                                                : g_array_index (c->lane_addrs, guint64, e->first_addr + k);
              k++;
              if (got != a->addr[32 * w + l])
                fail_msg ("seed %u: round %u: warp %u lane %u: address %" G_GINT64_MODIFIER "x, "
                          "want %" G_GINT64_MODIFIER "x", seed, round, w, l, got, a->addr[32 * w + l]);
            }
        }
      for (guint w = 0; w < 2; w++)
        {
          gboolean any = FALSE;
          for (guint l = 0; l < 32; l++)
            any |= a->on[32 * w + l];
          warps_on += any;
        }
      if (found != warps_on)
        fail_msg ("seed %u: round %u: %u memory events for %u warps with lanes on", seed, round,
                  found, warps_on);
      g_free (a);
      test_collector_free (c);
    }
  g_rand_free (r);
}

typedef struct {
  guint8 cond[MDL_SIMT_MAX_THREADS];
  guint64 active[MDL_SIMT_MAX_THREADS / 32];
} CondArgs;

static void
cond_kernel (MdlSimtBlock *b, void *p)
{
  CondArgs *a = p;
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = a->cond[t];
  mdl_simt_pred_begin (b);
  memcpy (a->active, b->active, (b->n_threads + 31) / 32 * sizeof (guint64));
  mdl_simt_pred_end (b);
}

/* Ensure the lanes a predicate keeps are those whose condition byte is nonzero, for any byte
 * value (the layer reads the bytes eight at a time) and blocks that end inside a warp. */
static void
test_random_conditions_give_their_lanes (void **state)
{
  guint32 seed = test_seed (2718);
  GRand *r = g_rand_new_with_seed (seed);
  static const guint8 tricky[] = { 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff };
  (void) state;
  for (guint round = 0; round < 500; round++)
    {
      g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
      CondArgs *a = g_new0 (CondArgs, 1);
      guint threads = (guint) g_rand_int_range (r, 1, 200);
      for (guint t = 0; t < threads; t++)
        a->cond[t] = g_rand_boolean (r) ? 0 : g_rand_boolean (r) ? tricky[g_rand_int_range (r, 0, 6)]
                                                                 : (guint8) g_rand_int_range (r, 1, 256);
      assert_true (mdl_simt_launch (gpu, &(MdlSimtLaunch) { .grid_x = 1, .block_x = threads },
                                    cond_kernel, a, NULL));
      for (guint t = 0; t < threads; t++)
        if (((a->active[t / 32] >> (t % 32)) & 1) != (a->cond[t] != 0))
          fail_msg ("seed %u: round %u: thread %u of %u with condition byte %u: active %d", seed,
                    round, t, threads, a->cond[t], (gint) ((a->active[t / 32] >> (t % 32)) & 1));
      if (a->active[(threads - 1) / 32] >> ((threads - 1) % 32) >> 1)
        fail_msg ("seed %u: round %u: lanes past the block's %u threads are active", seed, round,
                  threads);
      g_free (a);
    }
  g_rand_free (r);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_random_runs_match_lane_by_lane),
    cmocka_unit_test (test_random_conditions_give_their_lanes),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
