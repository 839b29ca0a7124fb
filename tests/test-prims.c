/* Tests of the warp primitives (include/models/simt.h: mdl_simt_atom, mdl_simt_shfl,
 * mdl_simt_vote; include/models/event.h: MDL_WARP_SHFL, MDL_WARP_VOTE, the atomic flags): the
 * values each primitive computes, the events it emits, how the GPU engines count them, and their
 * round trip through the binary and warp text trace formats. Every expected number is worked out
 * by hand in the comment above its row. */
#include "helpers.h"

#include <glib/gstdio.h>
#include <string.h>

/* ---- atomics: one block of 32 threads, every lane on word 0 of @space ---- */

typedef struct {
  MdlSpace space;
  MdlSimtAtomOp op;
  guint width;
  guint64 init;
  guint64 base, step;     /* lane l's operand: base + l * step (wrapping at width) */
  guint64 compare;        /* every lane's compare value (CAS) */
  gboolean ret;
  guint64 buf;            /* global word 0 (and the old values at +8 * lane) */
} AtomArgs;

static void
atom_kernel (MdlSimtBlock *b, void *p)
{
  AtomArgs *a = p;
  guint64 *addr = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1), *c = mdl_simt_reg (b, 1);
  guint64 *old = mdl_simt_reg (b, 1), *keep = mdl_simt_reg (b, 1), *w = mdl_simt_reg (b, 1);
  MDL_SIMT_EACH (b, t)
    {
      addr[t] = a->space == MDL_SPACE_SHARED ? 0 : a->buf;
      v[t] = a->base + t * a->step;
      c[t] = a->compare;
      keep[t] = a->buf + 8 + 8 * t;
      w[t] = a->init;
    }
  if (a->space == MDL_SPACE_SHARED)
    mdl_simt_st (b, MDL_SPACE_SHARED, a->width, addr, w);
  mdl_simt_atom (b, a->space, a->op, a->width, addr, v, c, a->ret ? old : NULL);
  if (a->ret)
    mdl_simt_st (b, MDL_SPACE_GLOBAL, 8, keep, old);
  if (a->space == MDL_SPACE_SHARED)
    {
      /* Copy word 0 back to global memory to look at it. */
      mdl_simt_ld (b, MDL_SPACE_SHARED, a->width, addr, w);
      MDL_SIMT_EACH (b, t)
        addr[t] = a->buf;
      mdl_simt_st (b, MDL_SPACE_GLOBAL, a->width, addr, w);
    }
}

static const struct {
  const char *name;
  MdlSimtAtomOp op;
  guint width;
  guint64 init, base, step, compare;
  guint64 final;
  guint64 old_lane5;      /* the old value lane 5 sees (lanes 0..4 went first) */
} atom_rows[] = {
  /* 5 + (0 + 1 + ... + 31) = 5 + 496; lane 5 sees 5 + 0+1+2+3+4 = 15. */
  { "add", MDL_SIMT_ATOM_ADD, 4, 5, 0, 1, 0, 501, 15 },
  /* 0xffffffff + 2 x 32 wraps at 32 bits: 63; lane 5 sees 0xffffffff + 10 = 9. */
  { "add wraps", MDL_SIMT_ATOM_ADD, 4, 0xffffffff, 2, 0, 0, 63, 9 },
  /* 2^40 + 32 x 2^33 = 2^40 + 2^38; lane 5: 2^40 + 5 x 2^33. */
  { "add 8B", MDL_SIMT_ATOM_ADD, 8, G_GUINT64_CONSTANT (1) << 40, G_GUINT64_CONSTANT (1) << 33, 0,
    0, (G_GUINT64_CONSTANT (1) << 40) + (G_GUINT64_CONSTANT (1) << 38),
    (G_GUINT64_CONSTANT (1) << 40) + 5 * (G_GUINT64_CONSTANT (1) << 33) },
  /* operands l - 16 as int32: -16 .. 15; signed min from 0 is -16 (lane 0 at once). */
  { "min signed", MDL_SIMT_ATOM_MIN, 4, 0, 0xfffffff0, 1, 0, 0xfffffff0, 0xfffffff0 },
  /* the same operands unsigned: 0xfffffff0.. are large, 0..15 small; min stays 0. */
  { "min unsigned", MDL_SIMT_ATOM_UMIN, 4, 0, 0xfffffff0, 1, 0, 0, 0 },
  /* signed max of -16..15 from 0: 15, reached at lane 31; lane 5 sees 0 (lanes 0..4 negative). */
  { "max signed", MDL_SIMT_ATOM_MAX, 4, 0, 0xfffffff0, 1, 0, 15, 0 },
  /* unsigned max: 0xffffffff (-1, lane 15); lane 5 sees lane 4's 0xfffffff4. */
  { "max unsigned", MDL_SIMT_ATOM_UMAX, 4, 0, 0xfffffff0, 1, 0, 0xffffffff, 0xfffffff4 },
  /* 8-byte signed min of -l x 2^32: -31 x 2^32; lane 5 sees -4 x 2^32. */
  { "min signed 8B", MDL_SIMT_ATOM_MIN, 8, 0, 0, (guint64) -(G_GINT64_CONSTANT (1) << 32), 0,
    (guint64) (-31 * (G_GINT64_CONSTANT (1) << 32)), (guint64) (-4 * (G_GINT64_CONSTANT (1) << 32)) },
  /* exchange: the last lane's 100 + 31 stays; lane 5 gets lane 4's 104. */
  { "exch", MDL_SIMT_ATOM_EXCH, 4, 7, 100, 1, 0, 131, 104 },
  /* CAS compare 7 on 7: lane 0 swaps in 100, every later lane fails and sees 100. */
  { "cas", MDL_SIMT_ATOM_CAS, 4, 7, 100, 1, 7, 100, 100 },
  /* CAS whose compare never matches: the word stays 7. */
  { "cas fails", MDL_SIMT_ATOM_CAS, 8, 7, 100, 1, 8, 7, 7 },
  /* and of 0xfff with 0xff0 + l: lanes 0..15 leave 0xff0, lane 16's 0x1000 clears it: 0. */
  { "and", MDL_SIMT_ATOM_AND, 4, 0xfff, 0xff0, 1, 0, 0, 0xff0 },
  /* every lane ors 1 into 0: 1, set by lane 0. */
  { "or", MDL_SIMT_ATOM_OR, 4, 0, 1, 0, 0, 1, 1 },
  /* xor of 0..31: 0 (each bit is set in 16 of them); lane 5 sees 0^1^2^3^4 = 4. */
  { "xor", MDL_SIMT_ATOM_XOR, 4, 0, 0, 1, 0, 0, 4 },
};

/* Runs atom_rows[@row] in @space with the old values returned or not; returns the events. */
static TestCollector *
run_atom_row (guint row, MdlSpace space, gboolean ret, guint64 *final, guint64 *old5)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  g_autoptr (GError) error = NULL;
  AtomArgs a = { .space = space, .op = atom_rows[row].op, .width = atom_rows[row].width,
                 .init = atom_rows[row].init, .base = atom_rows[row].base,
                 .step = atom_rows[row].step, .compare = atom_rows[row].compare, .ret = ret };
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32, .shared_bytes = 64 };
  guint8 *host;
  a.buf = mdl_simt_alloc (gpu, 8 + 8 * 32, NULL);
  host = mdl_simt_host (gpu, a.buf);
  memcpy (host, &a.init, 8);
  if (!mdl_simt_launch (gpu, &shape, atom_kernel, &a, &error))
    fail_msg ("%s: %s", atom_rows[row].name, error->message);
  *final = 0;
  memcpy (final, host, a.width);
  memcpy (old5, host + 8 + 8 * 5, 8);
  return c;
}

/* Ensure each atomic op leaves the hand-derived word, lanes applying in lane order, in global and
 * shared memory, and each lane's old value is the word as the lanes before it left it. */
static void
test_atomic_values (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (atom_rows); i++)
    for (guint s = 0; s < 2; s++)
      {
        MdlSpace space = s ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL;
        guint64 final, old5;
        guint64 want_final = atom_rows[i].final;
        TestCollector *c;
        c = run_atom_row (i, space, TRUE, &final, &old5);
        if (final != want_final || old5 != atom_rows[i].old_lane5)
          fail_msg ("%s in %s: word 0x%" G_GINT64_MODIFIER "x (want 0x%" G_GINT64_MODIFIER "x), lane 5 "
                    "saw 0x%" G_GINT64_MODIFIER "x (want 0x%" G_GINT64_MODIFIER "x)", atom_rows[i].name,
                    mdl_space_name (space), final, want_final, old5, atom_rows[i].old_lane5);
        test_collector_free (c);
      }
}

/* The first event of @c with op @op. */
static const MdlWarpEvent *
first_op (const TestCollector *c, guint op)
{
  for (guint i = 0; i < c->warp->len; i++)
    if (g_array_index (c->warp, MdlWarpEvent, i).op == op)
      return &g_array_index (c->warp, MdlWarpEvent, i);
  fail_msg ("no %s event", mdl_warp_op_name (op));
  return NULL;
}

/* Ensure an atomic is one event per warp with its width and space, flagged MDL_WARP_ATOM_RED when
 * no old value is asked for and the op has a reduction form (not exch), MDL_WARP_ATOM_CAS for a
 * CAS (which stays returning). */
static void
test_atomic_events (void **state)
{
  guint64 final, old5;
  TestCollector *c;
  const MdlWarpEvent *e;
  (void) state;
  c = run_atom_row (0, MDL_SPACE_GLOBAL, FALSE, &final, &old5);
  e = first_op (c, MDL_WARP_ATOMIC);
  assert_int_equal (e->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS), MDL_WARP_ATOM_RED);
  assert_int_equal (e->width, 4);
  assert_int_equal (e->space, MDL_SPACE_GLOBAL);
  assert_int_equal (e->active, 0xffffffff);
  assert_int_equal (final, 501);
  test_collector_free (c);
  c = run_atom_row (9, MDL_SPACE_SHARED, FALSE, &final, &old5);   /* cas */
  e = first_op (c, MDL_WARP_ATOMIC);
  assert_int_equal (e->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS), MDL_WARP_ATOM_CAS);
  assert_int_equal (e->space, MDL_SPACE_SHARED);
  assert_int_equal (final, 100);
  test_collector_free (c);
  c = run_atom_row (8, MDL_SPACE_GLOBAL, FALSE, &final, &old5);   /* exch: no RED form */
  assert_int_equal (first_op (c, MDL_WARP_ATOMIC)->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS), 0);
  test_collector_free (c);
  c = run_atom_row (2, MDL_SPACE_GLOBAL, TRUE, &final, &old5);   /* add 8B, returning */
  e = first_op (c, MDL_WARP_ATOMIC);
  assert_int_equal (e->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS), 0);
  assert_int_equal (e->width, 8);
  test_collector_free (c);
}

static void
atom_add_kernel (MdlSimtBlock *b, void *p)
{
  guint64 buf = *(guint64 *) p;
  guint64 *addr = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  MDL_SIMT_EACH (b, t)
    {
      addr[t] = buf + 4 * (t % 2);
      v[t] = 1;
    }
  mdl_simt_atom_add (b, MDL_SPACE_GLOBAL, 4, addr, v, NULL);
}

/* Ensure mdl_simt_atom_add() keeps its meaning: with old NULL the event is a plain (returning)
 * atomic, and 16 lanes add 1 to each of two words. */
static void
test_atom_add_unchanged (void **state)
{
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
  guint64 buf = mdl_simt_alloc (gpu, 8, NULL);
  guint32 *w = mdl_simt_host (gpu, buf);
  MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
  (void) state;
  assert_true (mdl_simt_launch (gpu, &shape, atom_add_kernel, &buf, NULL));
  assert_int_equal (w[0], 16);
  assert_int_equal (w[1], 16);
  assert_int_equal (first_op (c, MDL_WARP_ATOMIC)->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS), 0);
  test_collector_free (c);
}

typedef struct {
  MdlSpace space;
  MdlSimtAtomOp op;
  guint width;
  gboolean no_compare;
} BadAtom;

static void
bad_atom_kernel (MdlSimtBlock *b, void *p)
{
  BadAtom *a = p;
  guint64 *addr = mdl_simt_reg (b, 1), *v = mdl_simt_reg (b, 1);
  mdl_simt_atom (b, a->space, a->op, a->width, addr, v, a->no_compare ? NULL : v, v);
}

/* Ensure a local atomic, a 2-byte atomic, an unknown op and a CAS without compare values fail the
 * launch with a message that names the problem. */
static void
test_atomic_errors (void **state)
{
  static const struct {
    BadAtom a;
    const char *needle;
  } rows[] = {
    { { MDL_SPACE_LOCAL, MDL_SIMT_ATOM_ADD, 4, FALSE }, "an atomic in memory space 3" },
    { { MDL_SPACE_SHARED, MDL_SIMT_ATOM_ADD, 2, FALSE }, "an atomic of width 2 (4 or 8)" },
    { { MDL_SPACE_SHARED, (MdlSimtAtomOp) 99, 4, FALSE }, "an atomic of unknown op 99" },
    { { MDL_SPACE_SHARED, MDL_SIMT_ATOM_CAS, 4, TRUE }, "with no compare values" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
      GError *error = NULL;   /* test_assert_error frees it */
      MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32, .shared_bytes = 64, .local_bytes = 8 };
      BadAtom a = rows[i].a;
      assert_false (mdl_simt_launch (gpu, &shape, bad_atom_kernel, &a, &error));
      test_assert_error (error, MDL_ERROR_MODEL, rows[i].needle, __FILE__, __LINE__);
    }
}

/* ---- shuffles and votes ---- */

typedef struct {
  MdlSimtShflMode mode;
  guint width;
  guint64 sel;
  guint32 pred_mask;      /* lanes that run the instruction (the others keep their value) */
  guint64 out[32];
} ShflArgs;

static void
shfl_kernel (MdlSimtBlock *b, void *p)
{
  ShflArgs *a = p;
  guint64 *v = mdl_simt_reg (b, 1), *sel = mdl_simt_reg (b, 1);
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    {
      v[t] = 1000 + t + (G_GUINT64_CONSTANT (7) << 32);   /* high bits are not shuffled */
      sel[t] = a->sel;
      cond[t] = (a->pred_mask >> t) & 1;
    }
  mdl_simt_pred_begin (b);
  mdl_simt_shfl (b, a->mode, a->width, v, sel, v);
  mdl_simt_pred_end (b);
  MDL_SIMT_EACH (b, t)
    a->out[t] = v[t];
}

/* Lane @lane's expected source under CUDA's rules, or -1: keeps its own (unshuffled) value. */
static const struct {
  const char *name;
  MdlSimtShflMode mode;
  guint width;
  guint64 sel;
  guint32 pred_mask;
  guint lane;
  guint64 want;
} shfl_rows[] = {
  /* idx 5 in one segment: every lane reads lane 5. */
  { "idx broadcast", MDL_SIMT_SHFL_IDX, 32, 5, 0xffffffff, 17, 1005 },
  /* idx 13 with width 8: 13 mod 8 = 5 of the lane's segment; lane 17 is in segment 16..23. */
  { "idx segment", MDL_SIMT_SHFL_IDX, 8, 13, 0xffffffff, 17, 1021 },
  /* up 3 in segments of 8: lane 13 (index 5) reads 10; lane 10 (index 2 < 3) keeps its own. */
  { "up reads", MDL_SIMT_SHFL_UP, 8, 3, 0xffffffff, 13, 1010 },
  { "up keeps", MDL_SIMT_SHFL_UP, 8, 3, 0xffffffff, 10, 1010 },
  /* down 4 in segments of 16: lane 11 reads 15; lane 12 (12 + 4 = 16, past the segment) keeps. */
  { "down reads", MDL_SIMT_SHFL_DOWN, 16, 4, 0xffffffff, 11, 1015 },
  { "down keeps", MDL_SIMT_SHFL_DOWN, 16, 4, 0xffffffff, 12, 1012 },
  /* xor 16 over the warp: lane 3 reads 19. */
  { "xor warp", MDL_SIMT_SHFL_XOR, 32, 16, 0xffffffff, 3, 1019 },
  /* xor 16 in segments of 8: lane 3 would read 19, a later segment: keeps its own; lane 19 reads
   * lane 3 of an earlier segment. */
  { "xor later segment", MDL_SIMT_SHFL_XOR, 8, 16, 0xffffffff, 3, 1003 },
  { "xor earlier segment", MDL_SIMT_SHFL_XOR, 8, 16, 0xffffffff, 19, 1003 },
  /* only even lanes run: lane 3 is left as it was, with its high bits; lane 2 reads lane 5's
   * register although lane 5 does not run (the layer's choice; CUDA leaves it undefined). */
  { "inactive lane untouched", MDL_SIMT_SHFL_IDX, 32, 5, 0x55555555, 3,
    1003 + (G_GUINT64_CONSTANT (7) << 32) },
  { "reads an inactive lane", MDL_SIMT_SHFL_IDX, 32, 5, 0x55555555, 2, 1005 },
};

/* Ensure each shuffle mode reads the lane CUDA's rules name, within segments of width lanes, as
 * 32-bit values, after every lane has read; and that it is one SHFL event per warp under the
 * current mask, with no space, width or addresses. */
static void
test_shuffle (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (shfl_rows); i++)
    {
      TestCollector *c = test_collector_new ();
      MdlSink sink = test_collector_sink (c);
      g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
      ShflArgs a = { .mode = shfl_rows[i].mode, .width = shfl_rows[i].width, .sel = shfl_rows[i].sel,
                     .pred_mask = shfl_rows[i].pred_mask };
      MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
      const MdlWarpEvent *e;
      assert_true (mdl_simt_launch (gpu, &shape, shfl_kernel, &a, NULL));
      if (a.out[shfl_rows[i].lane] != shfl_rows[i].want)
        fail_msg ("%s: lane %u got %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, shfl_rows[i].name,
                  shfl_rows[i].lane, a.out[shfl_rows[i].lane], shfl_rows[i].want);
      assert_int_equal (c->warp->len, 1);
      e = first_op (c, MDL_WARP_SHFL);
      assert_int_equal (e->active, shfl_rows[i].pred_mask);
      assert_int_equal (e->space, MDL_SPACE_NONE);
      assert_int_equal (e->width, 0);
      test_collector_free (c);
    }
}

typedef struct {
  MdlSimtVoteMode mode;
  guint32 pred_mask;
  guint32 yes;            /* lanes whose predicate holds */
  guint64 out[32];
} VoteArgs;

static void
vote_kernel (MdlSimtBlock *b, void *p)
{
  VoteArgs *a = p;
  guint64 *v = mdl_simt_reg (b, 1);
  guint8 *cond = mdl_simt_cond (b);
  MDL_SIMT_EACH (b, t)
    {
      v[t] = (a->yes >> t) & 1 ? 2 + t : 0;   /* any nonzero value is true */
      cond[t] = (a->pred_mask >> t) & 1;
    }
  mdl_simt_pred_begin (b);
  mdl_simt_vote (b, a->mode, v, v);
  mdl_simt_pred_end (b);
  MDL_SIMT_EACH (b, t)
    a->out[t] = v[t];
}

static const struct {
  const char *name;
  MdlSimtVoteMode mode;
  guint32 pred_mask, yes;
  guint64 want;           /* what every running lane gets */
} vote_rows[] = {
  /* odd lanes true, all running: 0xaaaaaaaa. */
  { "ballot", MDL_SIMT_VOTE_BALLOT, 0xffffffff, 0xaaaaaaaa, 0xaaaaaaaa },
  /* the low half runs: only its odd lanes count. */
  { "ballot under mask", MDL_SIMT_VOTE_BALLOT, 0x0000ffff, 0xaaaaaaaa, 0x0000aaaa },
  /* true lanes only outside the mask: any is 0. */
  { "any false", MDL_SIMT_VOTE_ANY, 0x0000ffff, 0xffff0000, 0 },
  { "any true", MDL_SIMT_VOTE_ANY, 0xffffffff, 0x00010000, 1 },
  /* every running lane true (the others false): all is 1. */
  { "all under mask", MDL_SIMT_VOTE_ALL, 0x55555555, 0x55555555, 1 },
  { "all false", MDL_SIMT_VOTE_ALL, 0xffffffff, 0x7fffffff, 0 },
};

/* Ensure ballot, any and all count only the running lanes, give every running lane the result,
 * and are one VOTE event per warp. */
static void
test_vote (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (vote_rows); i++)
    {
      TestCollector *c = test_collector_new ();
      MdlSink sink = test_collector_sink (c);
      g_autoptr (MdlSimt) gpu = mdl_simt_new (&sink, 32);
      VoteArgs a = { .mode = vote_rows[i].mode, .pred_mask = vote_rows[i].pred_mask,
                     .yes = vote_rows[i].yes };
      MdlSimtLaunch shape = { .grid_x = 1, .block_x = 32 };
      guint lane = (guint) __builtin_ctz (vote_rows[i].pred_mask);
      assert_true (mdl_simt_launch (gpu, &shape, vote_kernel, &a, NULL));
      if (a.out[lane] != vote_rows[i].want)
        fail_msg ("%s: got 0x%" G_GINT64_MODIFIER "x, want 0x%" G_GINT64_MODIFIER "x", vote_rows[i].name,
                  a.out[lane], vote_rows[i].want);
      assert_int_equal (c->warp->len, 1);
      assert_int_equal (first_op (c, MDL_WARP_VOTE)->active, vote_rows[i].pred_mask);
      test_collector_free (c);
    }
}

/* ---- engines ---- */

/* Feeds one warp event with lane addresses @addrs (lane-indexed) to @e. */
static void
feed (MdlEngine *e, guint op, guint space, guint width, guint flags, guint64 active,
      const guint64 *addrs)
{
  guint64 lanes[64];
  guint n = 0;
  g_autoptr (GError) error = NULL;
  MdlWarpEvent w = { .active = active, .op = (guint8) op, .space = (guint8) space,
                     .width = (guint16) width, .flags = (guint8) flags };
  for (guint64 r = active; addrs && r; r &= r - 1)
    lanes[n++] = addrs[__builtin_ctzll (r)];
  MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = lanes, .n_lane_addrs = n };
  if (!mdl_engine_consume (e, &b, &error))
    fail_msg ("%s", error->message);
}

/* Ensure global atomics and reductions are counted apart (ATOM: _op_atom, RED: _op_red), a CAS
 * with the atomics; and that the contention counters hold the lanes per address. */
static void
test_coalesce_atomics (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("coalesce:machine=h100");
  guint64 one[32], pairs[32], spread[32];
  (void) state;
  for (guint l = 0; l < 32; l++)
    {
      one[l] = 0x1000;              /* one word: 1 sector, 32 lanes on one address */
      pairs[l] = 0x1000 + 4 * (l / 2);   /* 16 words in 64 bytes: 2 sectors, 2 lanes each */
      spread[l] = 0x1000 + 128 * l;  /* 32 lines */
    }
  feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, 0, 0xffffffff, one);
  feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, MDL_WARP_ATOM_CAS, 0xffffffff, pairs);
  feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, MDL_WARP_ATOM_RED, 0xffffffff, spread);
  feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 8, MDL_WARP_ATOM_RED, 0x0000000f, one);
  /* ATOM: 2 requests. Sectors per round of distinct addresses: 32 lanes on one word are 32
   * rounds of 1 sector; the pairs are 2 rounds of 16 words in 2 sectors: 32 + 4. */
  assert_int_equal (test_engine_count (e, "gatom_requests"), 2);
  assert_int_equal (test_engine_count (e, "gatom_sectors"), 36);
  /* their lines (L1 tags) are distinct lines, not per round: 1 + 1. */
  assert_int_equal (test_engine_count (e, "gatom_lines"), 2);
  /* RED: 32 sectors in one round, then 4 lanes of 8 bytes on one word: 4 rounds of 1. */
  assert_int_equal (test_engine_count (e, "gred_requests"), 2);
  assert_int_equal (test_engine_count (e, "gred_sectors"), 36);
  /* contention, ATOM: most lanes on one address 32, then 2: 34; lanes beyond distinct 31 + 16. */
  assert_int_equal (test_engine_count (e, "gatom_same_addr_lanes"), 34);
  assert_int_equal (test_engine_count (e, "gatom_addr_conflicts"), 47);
  assert_int_equal (test_engine_count (e, "gatom_same_addr_max"), 32);
  /* RED: 1 (all distinct), then 4. */
  assert_int_equal (test_engine_count (e, "gred_same_addr_lanes"), 5);
  assert_int_equal (test_engine_count (e, "gred_addr_conflicts"), 3);
  assert_int_equal (test_engine_count (e, "gred_same_addr_max"), 4);
  /* warps on one address: 0x1000 is hit by both ATOMs and by both REDs. */
  assert_int_equal (test_engine_count (e, "gatom_addr_warps_max"), 2);
  assert_int_equal (test_engine_count (e, "gred_addr_warps_max"), 2);
  {
    /* a new launch starts the count again: one more ATOM on 0x1000 is its first there. */
    MdlMarker launch = { .kind = MDL_MARK_LAUNCH, .launch = 1, .grid_blocks = 1,
                         .block_threads = 32, .warp_width = 32 };
    assert_true (mdl_engine_marker (e, &launch, NULL));
    feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, 0, 0xffffffff, one);
    assert_int_equal (test_engine_count (e, "gatom_addr_warps_max"), 2);
    feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, 0, 0x1, one);
    feed (e, MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, 0, 0x2, one);
    assert_int_equal (test_engine_count (e, "gatom_addr_warps_max"), 3);
  }
}

/* Ensure shared atomics get wavefronts under the load rule and their contention counted, and
 * shuffles and votes touch no memory counter but count as instructions. */
static void
test_banks_and_divergence (void **state)
{
  g_autoptr (MdlEngine) banks = test_engine_new ("banks:machine=h100");
  g_autoptr (MdlEngine) div = test_engine_new ("divergence:machine=h100");
  g_autoptr (MdlEngine) co = test_engine_new ("coalesce:machine=h100");
  guint64 same_bank[32], one[32];
  (void) state;
  for (guint l = 0; l < 32; l++)
    {
      same_bank[l] = 128 * l;   /* 32 words of bank 0: 32 wavefronts */
      one[l] = 64;              /* one word: 1 wavefront */
    }
  feed (banks, MDL_WARP_ATOMIC, MDL_SPACE_SHARED, 4, 0, 0xffffffff, same_bank);
  feed (banks, MDL_WARP_ATOMIC, MDL_SPACE_SHARED, 4, MDL_WARP_ATOM_RED, 0xffffffff, one);
  feed (banks, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  /* 32 distinct words of bank 0 in one round: 32 wavefronts; 32 lanes on one word: 32 rounds of
   * 1 (unlike a load, which broadcasts it in 1). One pass each: conflicts 31 + 31. */
  assert_int_equal (test_engine_count (banks, "shatom_requests"), 2);
  assert_int_equal (test_engine_count (banks, "shatom_wavefronts"), 64);
  assert_int_equal (test_engine_count (banks, "shatom_bank_conflicts"), 62);
  assert_int_equal (test_engine_count (banks, "shatom_same_addr_lanes"), 1 + 32);
  assert_int_equal (test_engine_count (banks, "shatom_same_addr_max"), 32);
  assert_int_equal (test_engine_count (banks, "shld_requests"), 0);
  /* one warp instruction on each address so far; the one-word atomic again makes 2. */
  assert_int_equal (test_engine_count (banks, "shatom_addr_warps_max"), 1);
  feed (banks, MDL_WARP_ATOMIC, MDL_SPACE_SHARED, 4, 0, 0x3, one);
  assert_int_equal (test_engine_count (banks, "shatom_addr_warps_max"), 2);
  {
    g_autoptr (MdlEngine) cas = test_engine_new ("banks:machine=h100");
    guint64 pairs[32];
    for (guint l = 0; l < 32; l++)
      pairs[l] = 8 * (l / 2);   /* 8-byte words, two lanes each: 16 addresses in 128 bytes */
    /* an 8-byte CAS: passes of 16 lanes; each pass 2 rounds of 8 words in one row (1 wavefront
     * each): 4 wavefronts, doubled for the compare operand: 8; conflicts 4 - 2 passes = 2. */
    feed (cas, MDL_WARP_ATOMIC, MDL_SPACE_SHARED, 8, MDL_WARP_ATOM_CAS, 0xffffffff, pairs);
    assert_int_equal (test_engine_count (cas, "shatom_wavefronts"), 8);
    assert_int_equal (test_engine_count (cas, "shatom_bank_conflicts"), 2);
    assert_int_equal (test_engine_count (cas, "shatom_ideal_wavefronts"), 2);
  }
  feed (div, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (div, MDL_WARP_VOTE, MDL_SPACE_NONE, 0, 0, 0x0000ffff, NULL);
  feed (div, MDL_WARP_VOTE, MDL_SPACE_NONE, 0, 0, 0x1, NULL);
  assert_int_equal (test_engine_count (div, "shfl_insts"), 1);
  assert_int_equal (test_engine_count (div, "vote_insts"), 2);
  assert_int_equal (test_engine_count (div, "warp_insts"), 3);
  assert_int_equal (test_engine_count (div, "thread_insts"), 32 + 16 + 1);
  assert_int_equal (test_engine_count (div, "branches"), 0);
  feed (co, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (co, MDL_WARP_VOTE, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  assert_int_equal (test_engine_count (co, "gld_requests") + test_engine_count (co, "gst_requests")
                    + test_engine_count (co, "gatom_requests"), 0);
}

/* Feeds a launch of one block of 32 threads, a shuffle, a vote and an atomic of 32 lanes on one
 * word of @space, and the kernel's end, to @e. */
static void
feed_prims_kernel (MdlEngine *e, MdlSpace space)
{
  guint64 one[32];
  MdlMarker launch = { .kind = MDL_MARK_LAUNCH, .grid_blocks = 1, .block_threads = 32,
                       .shared_bytes = 128, .warp_width = 32 };
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  for (guint l = 0; l < 32; l++)
    one[l] = space == MDL_SPACE_SHARED ? 64 : 0x1000;
  assert_true (mdl_engine_marker (e, &launch, NULL));
  feed (e, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (e, MDL_WARP_VOTE, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (e, MDL_WARP_ATOMIC, space, 4, 0, 0xffffffff, one);
  assert_true (mdl_engine_marker (e, &sync, NULL));
}

/* Ensure the abstract models charge a shuffle and a vote as one instruction (step), and an atomic
 * of 32 lanes on one word as 32 serialized updates, even where reads of one word would be one
 * (agpu and kmodel with broadcast=1, msimd's CRCW). */
static void
test_abstract_models_charge_prims (void **state)
{
  g_autoptr (MdlEngine) agpu = test_engine_new ("agpu:b=32,k=1,broadcast=1");
  g_autoptr (MdlEngine) agpu_g = test_engine_new ("agpu:b=32,k=1");
  g_autoptr (MdlEngine) km = test_engine_new ("kmodel:k=32,broadcast=1");
  g_autoptr (MdlEngine) ms = test_engine_new ("msimd:S=32,P=1");
  (void) state;
  /* agpu: 1 + 1 + 32 (the shared word's bank would broadcast: 1). */
  feed_prims_kernel (agpu, MDL_SPACE_SHARED);
  assert_int_equal (test_engine_count (agpu, "time"), 34);
  /* agpu, global: 1 + 1 + max (1 block, 32 updates); the I/O is the one block. */
  feed_prims_kernel (agpu_g, MDL_SPACE_GLOBAL);
  assert_int_equal (test_engine_count (agpu_g, "time"), 34);
  assert_int_equal (test_engine_count (agpu_g, "io"), 1);
  /* kmodel: T = 1 + 1 + 32, W = 3 x 32 lanes, 3 instructions. */
  feed_prims_kernel (km, MDL_SPACE_SHARED);
  assert_int_equal (test_engine_count (km, "T"), 34);
  assert_int_equal (test_engine_count (km, "W"), 96);
  assert_int_equal (test_engine_count (km, "instructions"), 3);
  /* msimd: 2 steps; the atomic is 32 reads and 32 writes of one cell. */
  feed_prims_kernel (ms, MDL_SPACE_GLOBAL);
  assert_int_equal (test_engine_count (ms, "steps"), 2);
  assert_int_equal (test_engine_count (ms, "reads"), 32);
  assert_int_equal (test_engine_count (ms, "writes"), 32);
}

/* Ensure the count engine names the new ops. */
static void
test_count_names_new_ops (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("count");
  (void) state;
  feed (e, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (e, MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  feed (e, MDL_WARP_VOTE, MDL_SPACE_NONE, 0, 0, 0xffffffff, NULL);
  assert_int_equal (test_engine_count (e, "warp_shfl"), 2);
  assert_int_equal (test_engine_count (e, "warp_vote"), 1);
}

/* Ensure the event rules: shuffles and votes take no space or width; the atomic flags only on
 * atomics, and never both. */
static void
test_event_rules (void **state)
{
  static const struct {
    guint op, space, width, flags;
    const char *why;
  } rows[] = {
    { MDL_WARP_SHFL, MDL_SPACE_SHARED, 4, 0, "memory space does not match the op" },
    { MDL_WARP_VOTE, MDL_SPACE_NONE, 4, 0, "addresses on an instruction that is not a memory access" },
    { MDL_WARP_LOAD, MDL_SPACE_GLOBAL, 4, MDL_WARP_ATOM_RED, "atomic flags on an instruction" },
    { MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS,
      "a compare-and-swap flagged as a reduction" },
    { MDL_WARP_ATOMIC, MDL_SPACE_GLOBAL, 4, 0x10, "unknown flags" },
    { MDL_WARP_SHFL, MDL_SPACE_NONE, 0, 0, NULL },
    { MDL_WARP_ATOMIC, MDL_SPACE_SHARED, 8, MDL_WARP_ATOM_CAS, NULL },
  };
  guint64 lanes[1] = { 0x40 };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;   /* test_assert_error frees it */
      MdlWarpEvent w = { .active = 1, .op = (guint8) rows[i].op, .space = (guint8) rows[i].space,
                         .width = (guint16) rows[i].width, .flags = (guint8) rows[i].flags };
      MdlEventBatch b = { .warp = &w, .n_warp = 1, .lane_addrs = lanes, .n_lane_addrs = 1 };
      gboolean ok = mdl_warp_event_check (&b, &w, 32, &error);
      if (rows[i].why == NULL)
        assert_true (ok);
      else
        test_assert_error (error, MDL_ERROR_FORMAT, rows[i].why, __FILE__, __LINE__);
    }
  assert_string_equal (mdl_warp_op_name (MDL_WARP_SHFL), "shfl");
  assert_string_equal (mdl_warp_op_name (MDL_WARP_VOTE), "vote");
}

/* ---- trace formats ---- */

/* A stream with every new event: shuffles, votes, a reduction, a CAS, a returning min, from the
 * micro-kernels, through the SIMT layer. */
static TestCollector *
prims_stream (void)
{
  static const char *const specs[] = { "gpu/shuffle:mode=xor,width=8", "gpu/vote:mask=0000ffff",
                                       "gpu/atomic:op=add,ret=0,k=4",
                                       "gpu/atomic:op=cas,space=shared,k=32",
                                       "gpu/atomic:op=min,width=8" };
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *name = NULL;
      g_auto (GStrv) assigns = NULL;
      g_autoptr (MdlParams) params = NULL;
      g_autoptr (MdlRecorder) rec = mdl_recorder_new (&sink, 0);
      const MdlAlgo *algo = NULL;
      guint64 sum;
      if (!mdl_spec_split (specs[i], &name, &assigns, &error)
          || !(algo = mdl_algo_lookup (name, &error))
          || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error))
          || !algo->run (params, 256, 1, rec, &sum, &error) || !mdl_recorder_finish (rec, &error))
        fail_msg ("%s: %s", specs[i], error->message);
    }
  return c;
}

/* Ensure the new ops and flags survive a binary file and a warp text file, written and read. */
static void
test_trace_round_trip (void **state)
{
  static const char *const suffixes[] = { "bin", "warp" };
  g_autofree char *dir = test_temp_dir ();
  TestCollector *orig = prims_stream ();
  guint n_shfl = 0, n_vote = 0, n_red = 0, n_cas = 0;
  (void) state;
  for (guint i = 0; i < orig->warp->len; i++)
    {
      const MdlWarpEvent *e = &g_array_index (orig->warp, MdlWarpEvent, i);
      n_shfl += e->op == MDL_WARP_SHFL;
      n_vote += e->op == MDL_WARP_VOTE;
      n_red += (e->flags & MDL_WARP_ATOM_RED) != 0;
      n_cas += (e->flags & MDL_WARP_ATOM_CAS) != 0;
    }
  /* 256 threads = 8 warps each. */
  assert_int_equal (n_shfl, 8);
  assert_int_equal (n_vote, 8);
  assert_int_equal (n_red, 8);
  assert_int_equal (n_cas, 8);
  for (guint f = 0; f < G_N_ELEMENTS (suffixes); f++)
    {
      g_autofree char *path = g_strdup_printf ("%s/prims.%s", dir, suffixes[f]);
      g_autoptr (GError) error = NULL;
      MdlTraceWriter *w = mdl_trace_writer_open (path, MDL_TRACE_AUTO, &error);
      MdlTraceReader *r;
      TestCollector *back = test_collector_new ();
      MdlSink sink;
      gboolean done = FALSE;
      assert_non_null (w);
      sink = mdl_trace_writer_sink (w);
      assert_true (test_collector_replay (orig, &sink, 1000, &error));
      assert_true (mdl_trace_writer_close (w, &error));
      mdl_trace_writer_free (w);
      r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
      assert_non_null (r);
      sink = test_collector_sink (back);
      while (!done)
        if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
          fail_msg ("%s: %s", path, error->message);
      mdl_trace_reader_free (r);
      test_collector_assert_equal (orig, back);
      test_collector_free (back);
      g_unlink (path);
    }
  g_rmdir (dir);
  test_collector_free (orig);
}

/* Ensure a warp text file of the old ops reads as before (an "atom" line is a returning atomic
 * with no flags) and the new lines read as their events. */
static void
test_warp_text_lines (void **state)
{
  static const char text[] = "launch 0 grid=1 block=32 shared=0\n"
                             "0 0 atom global 4 3 100 104\n"
                             "0 0 atom.red global 4 1 100\n"
                             "0 0 atom.cas.m shared 8 1 8\n"
                             "0 0 shfl ffffffff\n"
                             "0 0 vote.m ffff\n";
  g_autoptr (GInputStream) in = g_memory_input_stream_new_from_data (text, sizeof text - 1, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceReader) r = mdl_trace_reader_new (in, "t.warp", MDL_TRACE_AUTO, &error);
  TestCollector *c = test_collector_new ();
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  static const struct { guint op, flags; guint64 active; } want[] = {
    { MDL_WARP_ATOMIC, 0, 3 },
    { MDL_WARP_ATOMIC, MDL_WARP_ATOM_RED, 1 },
    { MDL_WARP_ATOMIC, MDL_WARP_ATOM_CAS | MDL_WARP_MACHINE, 1 },
    { MDL_WARP_SHFL, 0, 0xffffffff },
    { MDL_WARP_VOTE, MDL_WARP_MACHINE, 0xffff },
  };
  (void) state;
  assert_non_null (r);
  assert_int_equal (mdl_trace_reader_format (r), MDL_TRACE_WARP);
  assert_true (mdl_trace_reader_pump (r, &sink, 0, &done, &error));
  assert_int_equal (c->warp->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const MdlWarpEvent *e = &g_array_index (c->warp, MdlWarpEvent, i);
      assert_int_equal (e->op, want[i].op);
      assert_int_equal (e->flags & ~MDL_WARP_STRIDED, want[i].flags);
      assert_int_equal (e->active, want[i].active);
    }
  test_collector_free (c);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_atomic_values),
    cmocka_unit_test (test_atomic_events),
    cmocka_unit_test (test_atom_add_unchanged),
    cmocka_unit_test (test_atomic_errors),
    cmocka_unit_test (test_shuffle),
    cmocka_unit_test (test_vote),
    cmocka_unit_test (test_coalesce_atomics),
    cmocka_unit_test (test_banks_and_divergence),
    cmocka_unit_test (test_abstract_models_charge_prims),
    cmocka_unit_test (test_count_names_new_ops),
    cmocka_unit_test (test_event_rules),
    cmocka_unit_test (test_trace_round_trip),
    cmocka_unit_test (test_warp_text_lines),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
