/* Tests of the SIMT layer (include/models/simt.h): lock-step semantics, the events of masks,
 * branches, loops, predication and barriers, the strided form, and the errors a kernel can make. */
#include "helpers.h"

#include <string.h>

typedef struct {
  guint64 buf;          /* a global buffer of 64 words */
  guint variant;
} Args;

static MdlSimt *
gpu_with (TestCollector *c)
{
  MdlSink sink = test_collector_sink (c);
  return mdl_simt_new (&sink, 32);
}

static const MdlWarpEvent *
ev (const TestCollector *c, guint i)
{
  return &g_array_index (c->warp, MdlWarpEvent, i);
}

/* Lane t loads word (t + 1) mod 32 and stores it to word t: all lanes read before any writes, so
 * the words rotate; every lane storing to word 40 leaves the highest lane's value. */
static void
rotate_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *from = mdl_simt_reg (b, 1), *to = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  MDL_SIMT_EACH (b, t)
    {
      from[t] = a->buf + 4 * ((t + 1) % 32);
      to[t] = a->buf + 4 * t;
    }
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, from, v);
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, to, v);
  MDL_SIMT_EACH (b, t)
    {
      to[t] = a->buf + 4 * 40;
      v[t] = 100 + t;
    }
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, to, v);
}

/* Ensure a warp instruction reads all lanes before writing, the highest lane wins a store race,
 * and unit-stride addresses travel in the strided form. */
static void
test_lock_step (void **state)
{
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  g_autoptr (GError) error = NULL;
  Args a = { .buf = mdl_simt_alloc (gpu, 256, NULL) };
  guint32 *w = mdl_simt_host (gpu, a.buf);
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  (void) state;
  for (guint i = 0; i < 32; i++)
    w[i] = i;
  assert_true (mdl_simt_launch (gpu, &shape, rotate_kernel, &a, &error));
  for (guint i = 0; i < 32; i++)
    assert_int_equal (w[i], (i + 1) % 32);
  assert_int_equal (w[40], 131);
  assert_int_equal (c->warp->len, 3);
  assert_true (ev (c, 1)->flags & MDL_WARP_STRIDED);
  assert_int_equal (ev (c, 1)->stride, 4);
  assert_string_equal (c->order->str, "mwwwm");   /* launch, 3 instructions, sync */
  test_collector_free (c);
}

/* if (lane < 16) { 1 ALU } else { 2 ALU } with a BSSY around it, in a block of 64 threads. */
static void
branch_kernel (MdlSimtBlock *b, void *p)
{
  guint8 *cond = mdl_simt_cond (b);
  (void) p;
  MDL_SIMT_EACH (b, t)
    cond[t] = t % 32 < 16 || t >= 32;   /* warp 1 takes the if side uniformly */
  mdl_simt_bssy (b);
  mdl_simt_if (b);
  mdl_simt_alu (b, 1);
  mdl_simt_else (b);
  mdl_simt_alu (b, 2);
  mdl_simt_endif (b);
}

/* Ensure the if/else events: BSSY per warp; the branch with its taken lanes; the if side under
 * the taken lanes; the jump and BSYNC of the lanes that ran it; the else side; its BSYNC. Warp
 * 1, all on the if side, has no else events. */
static void
test_if_else_events (void **state)
{
  static const struct { guint op, warp; guint64 active, taken; } want[] = {
    { MDL_WARP_ALU, 0, 0xffffffff, 0 }, { MDL_WARP_ALU, 1, 0xffffffff, 0 },        /* BSSY */
    { MDL_WARP_BRANCH, 0, 0xffffffff, 0xffff }, { MDL_WARP_BRANCH, 1, 0xffffffff, 0xffffffff },
    { MDL_WARP_ALU, 0, 0xffff, 0 }, { MDL_WARP_ALU, 1, 0xffffffff, 0 },             /* if side */
    { MDL_WARP_JUMP, 0, 0xffff, 0 }, { MDL_WARP_ALU, 0, 0xffff, 0 },                /* jump, BSYNC */
    { MDL_WARP_JUMP, 1, 0xffffffff, 0 }, { MDL_WARP_ALU, 1, 0xffffffff, 0 },
    { MDL_WARP_ALU, 0, 0xffff0000, 0 }, { MDL_WARP_ALU, 0, 0xffff0000, 0 },         /* else side */
    { MDL_WARP_ALU, 0, 0xffff0000, 0 },                                             /* BSYNC */
  };
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 64 };
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, branch_kernel, NULL, NULL));
  assert_int_equal (c->warp->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    if (ev (c, i)->op != want[i].op || ev (c, i)->warp != want[i].warp
        || ev (c, i)->active != want[i].active || ev (c, i)->taken != want[i].taken)
      fail_msg ("event %u: op %s warp %u active %" G_GINT64_MODIFIER "x taken %" G_GINT64_MODIFIER
                "x", i, mdl_warp_op_name (ev (c, i)->op), ev (c, i)->warp, ev (c, i)->active,
                ev (c, i)->taken);
  test_collector_free (c);
}

/* A do-while loop that lane l runs l % 4 + 1 times, then a predicated load under lane < 8 and a
 * load with every lane predicated off. */
static void
loop_pred_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *k = mdl_simt_reg (b, 1), *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint8 *cond;
  mdl_simt_loop_begin (b);
  do
    {
      cond = mdl_simt_cond (b);
      MDL_SIMT_EACH (b, t)
        cond[t] = ++k[t] < t % 4 + 1;
    }
  while (mdl_simt_loop_test (b));
  MDL_SIMT_EACH (b, t)
    at[t] = a->buf + 4 * t;
  for (guint limit = 8; ; limit = 0)
    {
      cond = mdl_simt_cond (b);
      MDL_SIMT_EACH (b, t)
        cond[t] = t < limit;
      mdl_simt_pred_begin (b);
      mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
      mdl_simt_alu (b, 1);
      mdl_simt_pred_end (b);
      if (limit == 0)
        break;
    }
}

/* Ensure the loop tests carry the lanes still inside (32, 24, 16, 8), the last one uniform;
 * predicated instructions: the load has the predicate's lanes, the ALU every issuing lane, and
 * a load with all lanes off becomes an ALU event of the issuing lanes. */
static void
test_loop_and_predication (void **state)
{
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  Args a = { .buf = mdl_simt_alloc (gpu, 256, NULL) };
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, loop_pred_kernel, &a, NULL));
  assert_int_equal (c->warp->len, 8);
  assert_int_equal (ev (c, 0)->active, 0xffffffff);
  assert_int_equal (ev (c, 0)->taken, 0xeeeeeeee);
  assert_int_equal (ev (c, 1)->active, 0xeeeeeeee);
  assert_int_equal (ev (c, 2)->active, 0xcccccccc);
  assert_int_equal (ev (c, 3)->active, 0x88888888);
  assert_int_equal (ev (c, 3)->taken, 0);
  assert_int_equal (ev (c, 4)->op, MDL_WARP_LOAD);
  assert_int_equal (ev (c, 4)->active, 0xff);
  assert_int_equal (ev (c, 5)->op, MDL_WARP_ALU);
  assert_int_equal (ev (c, 5)->active, 0xffffffff);
  assert_int_equal (ev (c, 6)->op, MDL_WARP_ALU);
  assert_int_equal (ev (c, 6)->active, 0xffffffff);
  test_collector_free (c);
}

static void
sync_kernel (MdlSimtBlock *b, void *p)
{
  (void) p;
  mdl_simt_sync (b);
}

/* Ensure a barrier is an arrival event per warp, then the block's barrier marker; the launch
 * marker carries the shape and the launch ends with a sync marker. */
static void
test_barrier_and_markers (void **state)
{
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  MdlSimtLaunch shape = { .grid_x = 2, .block_x = 40, .shared_bytes = 16 };
  const TestMarker *m;
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, sync_kernel, NULL, NULL));
  assert_string_equal (c->order->str, "mwwmwwmm");
  m = g_ptr_array_index (c->markers, 0);
  assert_int_equal (m->marker.kind, MDL_MARK_LAUNCH);
  assert_int_equal (m->marker.grid_blocks, 2);
  assert_int_equal (m->marker.block_threads, 40);
  assert_int_equal (ev (c, 1)->active, 0xff);   /* warp 1 has 8 threads */
  assert_int_equal (((const TestMarker *) g_ptr_array_index (c->markers, 2))->marker.block, 1);
  assert_int_equal (((const TestMarker *) g_ptr_array_index (c->markers, 3))->marker.kind, MDL_MARK_SYNC);
  assert_int_equal (mdl_simt_n_events (gpu), 4);
  test_collector_free (c);
}

static void
oob_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  MDL_SIMT_EACH (b, t)
    at[t] = a->buf + 4 * t + (t == 3 ? 4096 : 0);
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
}

static void
open_if_kernel (MdlSimtBlock *b, void *p)
{
  (void) p;
  mdl_simt_if (b);
}

static void
shared_oob_kernel (MdlSimtBlock *b, void *p)
{
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  (void) p;
  MDL_SIMT_EACH (b, t)
    at[t] = 8 * t;
  mdl_simt_st (b, MDL_SPACE_SHARED, 8, at, v);
}

/* Ensure kernel faults are MDL_ERROR_MODEL naming the launch, block and thread, and the GPU
 * refuses further launches; a bad shape is MDL_ERROR_PARAM. */
static void
test_kernel_errors (void **state)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autoptr (MdlSimt) gpu2 = mdl_simt_new (NULL, 32);
  g_autoptr (MdlSimt) gpu3 = mdl_simt_new (NULL, 32);
  g_autoptr (MdlSimt) gpu4 = mdl_simt_new (NULL, 32);
  Args a = { .buf = mdl_simt_alloc (gpu, 128, NULL) };
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32, .shared_bytes = 64 };
  MdlSimtLaunch bad = { .grid_x = 1, .block_x = 2048 };
  GError *error = NULL;
  (void) state;
  assert_false (mdl_simt_launch (gpu, &shape, oob_kernel, &a, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "launch 0, block 0: thread 3: global load of 4 bytes at");
  error = NULL;
  assert_false (mdl_simt_launch (gpu, &shape, oob_kernel, &a, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "unusable after an earlier error");
  error = NULL;
  assert_false (mdl_simt_launch (gpu2, &shape, open_if_kernel, NULL, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "returned with 1 if, loop or predicate frames open");
  error = NULL;
  assert_false (mdl_simt_launch (gpu3, &shape, shared_oob_kernel, NULL, &error));
  assert_mdl_error (error, MDL_ERROR_MODEL, "thread 8: shared store of 8 bytes at offset 64 is outside");
  error = NULL;
  assert_false (mdl_simt_launch (gpu4, &bad, shared_oob_kernel, NULL, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "bad launch shape");
}

/* Ensure every gpu/ algorithm computes the same checksum with and without events, and emits
 * events only in the instrumented build. */
static void
test_algorithms_native_agree (void **state)
{
  guint n;
  const MdlAlgo *all = mdl_algos (&n);
  (void) state;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MdlParams) params = NULL;
      TestCollector *c;
      MdlSink sink;
      MdlRecorder *rec;
      guint64 s1 = 1, s2 = 2;
      if (all[i].run_timed != NULL)
        continue;   /* CPU algorithms; the SIMT ones (gpu/..., reduce/...) have no timed build */
      params = mdl_params_parse (all[i].name, all[i].params, NULL, &error);
      c = test_collector_new ();
      sink = test_collector_sink (c);
      rec = mdl_recorder_new (&sink, 0);
      if (!all[i].run (params, 300, 5, rec, &s1, &error) || !mdl_recorder_finish (rec, &error)
          || !all[i].run_native (params, 300, 5, NULL, &s2, &error))
        fail_msg ("%s: %s", all[i].name, error->message);
      if (s1 != s2 || c->warp->len == 0)
        fail_msg ("%s: checksums %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT ", %u events",
                  all[i].name, s1, s2, c->warp->len);
      mdl_recorder_free (rec);
      test_collector_free (c);
    }
}

/* One ALU of the algorithm, then in a machine scope two ALU and a load, then one ALU again. */
static void
machine_kernel (MdlSimtBlock *b, void *p)
{
  Args *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  mdl_simt_alu (b, 1);
  mdl_simt_machine_begin (b);
  mdl_simt_alu (b, 2);
  MDL_SIMT_EACH (b, t)
    at[t] = a->buf + 4 * t;
  mdl_simt_ld (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_machine_end (b);
  mdl_simt_alu (b, 1);
}

/* Ensure a machine scope marks exactly its instructions MDL_WARP_MACHINE, that the hardware engines
 * count them and the abstract models do not: divergence sees 5 warp instructions; agpu's time and
 * msimd's steps count the algorithm's 2 ALU instructions alone, and neither sees the load; kmodel
 * has T_arith 2. */
static void
test_machine_scope (void **state)
{
  static const guint8 machine[] = { 0, 1, 1, 1, 0 };
  const char *const specs[] = { "divergence", "agpu:b=32,k=1", "msimd:P=1,S=32", "kmodel:k=32",
                                NULL };
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlPipeline) pipe = mdl_pipeline_new ();
  Args a = { .buf = mdl_simt_alloc (gpu, 256, NULL) };
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  MdlSink sink = mdl_pipeline_sink (pipe);
  MdlReport **r;
  guint n;
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, machine_kernel, &a, &error));
  assert_int_equal (c->warp->len, G_N_ELEMENTS (machine));
  for (guint i = 0; i < G_N_ELEMENTS (machine); i++)
    assert_int_equal ((ev (c, i)->flags & MDL_WARP_MACHINE) != 0, machine[i]);
  for (const char *const *sp = specs; *sp; sp++)
    assert_true (mdl_pipeline_add_engine_spec (pipe, *sp, NULL));
  assert_true (test_collector_replay (c, &sink, 0, &error));
  r = mdl_pipeline_reports (pipe, &n);
  assert_int_equal (test_report_count (r[0], "warp_insts"), 5);
  assert_int_equal (test_report_count (r[1], "time"), 2);
  assert_int_equal (test_report_count (r[1], "io"), 0);
  assert_int_equal (test_report_count (r[2], "steps"), 2);
  assert_int_equal (test_report_count (r[2], "reads"), 0);
  assert_int_equal (test_report_count (r[3], "T_arith"), 2);
  for (guint i = 0; i < n; i++)
    mdl_report_free (r[i]);
  g_free (r);
  test_collector_free (c);
}

/* Random lane addresses: thread t of 64 (two warps) loads word word[t] of a 64-word buffer under
 * predicate on[t], in global or shared memory (filled with 1000 + word first), and stores what it
 * loaded to word t of a global buffer. */
typedef struct {
  guint64 in, out;
  guint32 word[64];
  gboolean on[64];
  gboolean shared;
} GatherArgs;

static void
gather_kernel (MdlSimtBlock *b, void *p)
{
  GatherArgs *a = p;
  MdlSpace space = a->shared ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL;
  guint64 base = a->shared ? 0 : a->in;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint8 *cond;
  MDL_SIMT_EACH (b, t)
    {
      at[t] = base + 4 * t;
      v[t] = 1000 + t;
    }
  mdl_simt_st (b, space, 4, at, v);
  mdl_simt_sync (b);
  cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    {
      cond[t] = (guint8) a->on[t];
      at[t] = base + 4 * (guint64) a->word[t];
    }
  mdl_simt_pred_begin (b);
  mdl_simt_ld (b, space, 4, at, v);
  MDL_SIMT_EACH (b, t)
    at[t] = a->out + 4 * t;
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_pred_end (b);
}

/* Ensure random gathers under random predicates (one run of lanes, several runs, one lane, none)
 * deliver each active lane's address in lane order, in the strided form only where it holds, and
 * load what lies there, and that a lane one word past the buffer faults: the layer's straight
 * paths for a run of lanes against the lane masks.
 * Seed: MODELS_TEST_SEED (default 1313), named in every failure. */
static void
test_random_gathers_carry_every_lane (void **state)
{
  guint32 seed = test_seed (1313);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 400; round++)
    {
      TestCollector *c = test_collector_new ();
      g_autoptr (MdlSimt) gpu = gpu_with (c);
      GatherArgs a = { .in = mdl_simt_alloc (gpu, 256, NULL), .out = mdl_simt_alloc (gpu, 256, NULL),
                       .shared = g_rand_boolean (r) };
      MdlSimtLaunch shape = { .grid_x = 1, .block_x = 64, .shared_bytes = 256 };
      guint shape_of = (guint) g_rand_int_range (r, 0, 4), lo = (guint) g_rand_int_range (r, 0, 64);
      guint hi = (guint) g_rand_int_range (r, (gint32) lo, 64), stride = (guint) g_rand_int_range (r, 0, 3);
      guint found = 0, warps_on = 0, far = (guint) g_rand_int_range (r, 0, 64);
      gboolean fault = g_rand_int_range (r, 0, 8) == 0;
      g_autoptr (GError) error = NULL;
      const guint32 *out;
      for (guint t = 0; t < 64; t++)
        {
          /* 0: a run of lanes lo..hi; 1: random lanes; 2: all; 3: the run, at a stride */
          a.on[t] = shape_of == 1 ? g_rand_boolean (r) : shape_of == 2 || (t >= lo && t <= hi);
          a.word[t] = shape_of == 3 ? (guint32) ((t * stride) % 64) : (guint32) g_rand_int_range (r, 0, 64);
        }
      if (fault)
        {
          /* one lane just past the 64 words: the instruction faults and names it */
          a.on[far] = TRUE;
          a.word[far] = 64;
          assert_false (mdl_simt_launch (gpu, &shape, gather_kernel, &a, &error));
          if (strstr (error->message, "outside") == NULL)
            fail_msg ("seed %u: round %u: thread %u past the end: %s", seed, round, far,
                      error->message);
          test_collector_free (c);
          continue;
        }
      assert_true (mdl_simt_launch (gpu, &shape, gather_kernel, &a, NULL));
      for (guint i = 0; i < c->warp->len; i++)
        {
          const MdlWarpEvent *e = ev (c, i);
          guint w = e->warp, k = 0;
          guint64 want = 0;
          if (e->op != MDL_WARP_LOAD)
            continue;
          found++;
          for (guint l = 0; l < 32; l++)
            want |= (guint64) a.on[32 * w + l] << l;
          if (e->active != want)
            fail_msg ("seed %u: round %u: warp %u: active %" G_GINT64_MODIFIER "x, want %"
                      G_GINT64_MODIFIER "x", seed, round, w, e->active, want);
          for (guint l = 0; l < 32; l++)
            {
              guint64 addr, expect = (a.shared ? 0 : a.in) + 4 * (guint64) a.word[32 * w + l];
              if (!(want >> l & 1))
                continue;
              addr = e->flags & MDL_WARP_STRIDED ? e->base + (guint64) ((gint64) l * e->stride)
                                                 : g_array_index (c->lane_addrs, guint64, e->first_addr + k);
              k++;
              if (addr != expect)
                fail_msg ("seed %u: round %u: warp %u lane %u: address %" G_GUINT64_FORMAT
                          ", want %" G_GUINT64_FORMAT, seed, round, w, l, addr, expect);
            }
        }
      /* a warp with no lane on issues no load (an ALU event); every other warp one */
      for (guint w = 0; w < 2; w++)
        {
          gboolean any = FALSE;
          for (guint l = 0; l < 32; l++)
            any |= a.on[32 * w + l];
          warps_on += any;
        }
      if (found != warps_on)
        fail_msg ("seed %u: round %u: %u loads for %u warps with lanes on", seed, round, found,
                  warps_on);
      out = mdl_simt_host (gpu, a.out);
      for (guint t = 0; t < 64; t++)
        if (out[t] != (a.on[t] ? 1000 + a.word[t] : 0))
          fail_msg ("seed %u: round %u: thread %u loaded %u", seed, round, t, out[t]);
      test_collector_free (c);
    }
  g_rand_free (r);
}

/* A random predicate, then a second one and an if/else on the threads from <= t < to: by
 * mdl_simt_pred_range() and mdl_simt_if_range() (@by_range) or by condition bytes. */
typedef struct {
  guint64 buf;
  guint64 from, to;
  gboolean on[96];
  gboolean by_range;
} RangeArgs;

/* The condition bytes of the active threads: from <= t < to. */
static void
cond_range (MdlSimtBlock *b, const RangeArgs *a)
{
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    cond[t] = a->from <= t && t < a->to;
}

static void
range_kernel (MdlSimtBlock *b, void *p)
{
  RangeArgs *a = p;
  guint64 *at = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    {
      cond[t] = (guint8) a->on[t];
      at[t] = a->buf + 4 * t;
      v[t] = t;
    }
  mdl_simt_pred_begin (b);
  if (a->by_range)
    mdl_simt_pred_range (b, a->from, a->to);
  else
    {
      cond_range (b, a);
      mdl_simt_pred_begin (b);
    }
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_alu (b, 1);
  mdl_simt_pred_end (b);
  if (a->by_range)
    mdl_simt_if_range (b, a->from, a->to);
  else
    {
      cond_range (b, a);
      mdl_simt_if (b);
    }
  mdl_simt_st (b, MDL_SPACE_GLOBAL, 4, at, v);
  mdl_simt_else (b);
  mdl_simt_alu (b, 1);
  mdl_simt_endif (b);
  mdl_simt_pred_end (b);
}

/* Ensure mdl_simt_pred_range() and mdl_simt_if_range() give the events that condition bytes
 * from <= t < to give under mdl_simt_pred_begin() and mdl_simt_if(), below a random predicate, in
 * a block of 80 threads (a partial third warp), for ranges inside, across and beyond the block,
 * empty and reversed.
 * Seed: MODELS_TEST_SEED (default 4242), named in every failure. */
static void
test_ranges_match_condition_bytes (void **state)
{
  guint32 seed = test_seed (4242);
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  const guint64 ends[] = { 0, 1, 31, 32, 33, 63, 64, 65, 79, 80, 81, 96, 1000, G_MAXUINT64 };
  (void) state;
  for (guint trial = 0; trial < 200; trial++)
    {
      RangeArgs a = { 0 };
      TestCollector *c[2];
      MdlSimtLaunch shape = { .grid_x = 1, .block_x = 80 };
      a.from = trial < 40 ? ends[trial % G_N_ELEMENTS (ends)] : (guint64) g_rand_int_range (r, 0, 90);
      a.to = trial < 40 ? ends[(trial * 7 + 3) % G_N_ELEMENTS (ends)] : (guint64) g_rand_int_range (r, 0, 90);
      for (guint t = 0; t < 96; t++)
        a.on[t] = g_rand_int_range (r, 0, 4) != 0;
      for (guint k = 0; k < 2; k++)
        {
          g_autoptr (MdlSimt) gpu = NULL;
          c[k] = test_collector_new ();
          gpu = gpu_with (c[k]);
          a.buf = mdl_simt_alloc (gpu, 4 * 96, NULL);
          a.by_range = k == 1;
          if (!mdl_simt_launch (gpu, &shape, range_kernel, &a, NULL))
            fail_msg ("seed %u, trial %u: the launch failed", seed, trial);
        }
      if (c[0]->warp->len != c[1]->warp->len)
        fail_msg ("seed %u, trial %u (from %" G_GUINT64_FORMAT ", to %" G_GUINT64_FORMAT "): %u "
                  "events by condition bytes, %u by range", seed, trial, a.from, a.to,
                  c[0]->warp->len, c[1]->warp->len);
      test_collector_assert_equal (c[0], c[1]);
      test_collector_free (c[0]);
      test_collector_free (c[1]);
    }
}

/* What reg_release_kernel saw. */
typedef struct {
  gboolean reused, zeroed, big_reused, kept;
} Reuse;

/* Allocates, releases and allocates again: a lane vector after a release takes the released
 * memory, zero-filled, also when the released ones had moved on to a further arena chunk (a
 * vector of 1024 words a lane is one whole 256 KiB chunk for 32 threads). */
static void
reg_release_kernel (MdlSimtBlock *b, void *p)
{
  Reuse *r = p;
  guint64 *kept = mdl_simt_reg (b, 1), *first, *big, *again;
  MdlSimtRegMark mark;
  MDL_SIMT_EACH (b, t)
    kept[t] = 7 + t;
  mark = mdl_simt_reg_mark (b);
  first = mdl_simt_reg (b, 1);
  MDL_SIMT_EACH (b, t)
    first[t] = ~(guint64) 0;
  mdl_simt_reg_release (b, mark);
  again = mdl_simt_reg (b, 1);
  r->reused = again == first;
  r->zeroed = TRUE;
  MDL_SIMT_EACH (b, t)
    r->zeroed = r->zeroed && again[t] == 0;
  big = mdl_simt_reg (b, 1024);
  memset (big, 0xff, 1024 * 32 * sizeof (guint64));
  mdl_simt_reg_release (b, mark);
  again = mdl_simt_reg (b, 1);
  r->reused = r->reused && again == first;
  r->big_reused = mdl_simt_reg (b, 1024) == big;
  r->kept = TRUE;
  MDL_SIMT_EACH (b, t)
    r->kept = r->kept && kept[t] == 7 + t;
}

/* Ensure mdl_simt_reg_release() gives the lane vectors since its mark back, keeps those before
 * and leaves the next ones zero-filled. */
static void
test_reg_release_reuses (void **state)
{
  TestCollector *c = test_collector_new ();
  g_autoptr (MdlSimt) gpu = gpu_with (c);
  g_autoptr (GError) error = NULL;
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  Reuse r = { 0 };
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, reg_release_kernel, &r, &error));
  assert_true (r.reused);
  assert_true (r.zeroed);
  assert_true (r.big_reused);
  assert_true (r.kept);
  test_collector_free (c);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_lock_step),
    cmocka_unit_test (test_if_else_events),
    cmocka_unit_test (test_loop_and_predication),
    cmocka_unit_test (test_barrier_and_markers),
    cmocka_unit_test (test_kernel_errors),
    cmocka_unit_test (test_machine_scope),
    cmocka_unit_test (test_random_gathers_carry_every_lane),
    cmocka_unit_test (test_ranges_match_condition_bytes),
    cmocka_unit_test (test_algorithms_native_agree),
    cmocka_unit_test (test_reg_release_reuses),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
