/* Tests of the `cache` engine (src/models/cache.c and the policies in src/models/cache/): hit and
 * miss sequences of hand-derived micro-traces per policy, level and option; miss classification
 * worked out by hand; parameter errors; and agreement with the slow reference (tests/ref/) on
 * hundreds of seeded random configurations and traces. */
#include "helpers.h"
#include "ref/cache-check.h"
#include "models/cache/sets.h"

#include <string.h>

/* ---- helpers ----------------------------------------------------------------------------------- */

/* Parses a micro-trace "R0 W3 M1 F2 D4 C5 R12+8 ..." into events: kind letter (R read, W write,
 * M modify, F fetch, D read flagged dependent, C read flagged dependent and chase), then the address in units of @unit bytes, optionally "+SIZE" in bytes
 * (default 1). */
static GArray *
parse_trace (const char *text, guint unit)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (MdlCpuEvent));
  g_auto (GStrv) words = g_strsplit (text, " ", -1);
  for (char **w = words; *w; w++)
    {
      MdlCpuEvent e = { .size = 1 };
      char *end;
      if (**w == '\0')
        continue;
      switch (**w)
        {
        case 'R': e.kind = MDL_CPU_READ; break;
        case 'W': e.kind = MDL_CPU_WRITE; break;
        case 'M': e.kind = MDL_CPU_MODIFY; break;
        case 'F': e.kind = MDL_CPU_READ; e.flags = MDL_CPU_FLAG_FETCH; break;
        case 'D': e.kind = MDL_CPU_READ; e.flags = MDL_CPU_FLAG_DEPENDENT; break;
        case 'C': e.kind = MDL_CPU_READ; e.flags = MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE; break;
        default: fail_msg ("bad trace word %s", *w);
        }
      e.addr = g_ascii_strtoull (*w + 1, &end, 10) * unit;
      if (*end == '+')
        e.size = (guint16) g_ascii_strtoull (end + 1, NULL, 10);
      g_array_append_val (a, e);
    }
  return a;
}

/* Feeds @trace one event at a time and writes, per event, 'H' when @counter did not grow and 'M'
 * when it grew by one ('2' for two, as a straddling access may). */
static char *
outcomes (const char *spec, const char *trace, guint unit, const char *counter)
{
  g_autoptr (MdlEngine) e = test_engine_new (spec);
  g_autoptr (GArray) ev = parse_trace (trace, unit);
  GString *out = g_string_new (NULL);
  guint64 before = 0;
  for (guint i = 0; i < ev->len; i++)
    {
      guint64 now;
      test_feed_cpu (e, &g_array_index (ev, MdlCpuEvent, i), 1);
      now = test_engine_count (e, counter);
      g_string_append_c (out, now == before       ? 'H'
                              : now == before + 1 ? 'M'
                                                  : (char) ('0' + now - before));
      before = now;
    }
  return g_string_free (out, FALSE);
}

/* ---- hand-derived micro-traces ------------------------------------------------------------------ */

/* Lines are 16 bytes; the trace's numbers are line numbers. A=0, B=1, C=2, D=3, E=4. */
static const struct {
  const char *name;
  const char *spec;
  const char *trace;
  const char *counter;
  const char *expect;
} rows[] = {
  /* lru, one set of 2 ways: A B fill; A hits and becomes most recent; C evicts B (least recent);
   * B misses. */
  { "lru evicts least recent", "cache:size=32,assoc=2,line=16", "R0 R1 R0 R2 R1", "misses",
    "MMHMM" },
  /* fifo, same trace: A's hit does not refresh it; C evicts A (oldest); B still hits. */
  { "fifo ignores hits", "cache:size=32,assoc=2,line=16,policy=fifo", "R0 R1 R0 R2 R1", "misses",
    "MMHMH" },
  /* lru, one set of 4: A B C D fill; A hits (order A D C B); E evicts B; B evicts C; C evicts D. */
  { "lru 4 ways", "cache:size=64,assoc=4,line=16", "R0 R1 R2 R3 R0 R4 R1 R2", "misses",
    "MMMMHMMM" },
  /* plru, 4 ways, tree bits b1 (root), b2 (ways 0-1), b3 (ways 2-3), 1 = victim on the right.
   * A->way0 (b1=1,b2=1), B->way1 (b2=0), C->way2 (b3=1,b1=0), D->way3 (b3=0). A hits: b2=1,b1=1.
   * E: root 1 -> right, b3=0 -> way2: C goes (lru would take B); b3=1,b1=0. B hits way1:
   * b2=0,b1=1. C: root 1 -> right, b3=1 -> way3: D goes. */
  { "plru 4 ways", "cache:size=64,assoc=4,line=16,policy=plru", "R0 R1 R2 R3 R0 R4 R1 R2", "misses",
    "MMMMHMHM" },
  /* fifo, same trace: E evicts A (oldest) although A was just used; B and C still hit. */
  { "fifo 4 ways", "cache:size=64,assoc=4,line=16,policy=fifo", "R0 R1 R2 R3 R0 R4 R1 R2",
    "misses", "MMMMHMHH" },
  /* random, seed 1: splitmix64 from state 1 draws 0x910a2dec89025cc1 (mod 4 = 1),
   * 0xbeeb8da1658eec67 (3), 0xf893a2eefb32555e (2), 0x71c18690ee42c90b (3), computed outside the
   * engine. A B C D fill ways 0-3; E replaces way 1 (B): A E C D. A hits; B replaces way 3 (D):
   * A E C B. C hits; D replaces way 2 (C): A E D B. C replaces way 3 (B). */
  { "random follows its draws", "cache:size=64,assoc=4,line=16,policy=random,seed=1",
    "R0 R1 R2 R3 R4 R0 R1 R2 R3 R2", "misses", "MMMMMHMHMM" },
  /* Two sets of 2 ways: even lines go to set 0, odd ones to set 1. 0 2 fill set 0; 4 evicts 0;
   * 0 evicts 2; 1 goes to set 1; 4 is still in set 0. */
  { "sets by line parity", "cache:size=64,assoc=2,line=16", "R0 R2 R4 R0 R1 R4", "misses",
    "MMMMMH" },
  /* Direct-mapped (assoc=1), 4 sets: 0 and 4 share set 0 and evict each other; 1 stays. */
  { "direct mapped", "cache:size=64,assoc=1,line=16", "R0 R4 R1 R0 R1 R4", "misses", "MMMMHM" },
  /* Fully associative (assoc=0) with 4 lines: 0 4 8 12 all fit, however they would map. */
  { "fully associative", "cache:size=64,assoc=0,line=16", "R0 R4 R8 R12 R0 R4 R8 R12", "misses",
    "MMMMHHHH" },
  /* write_allocate=1: a write miss fills, the read then hits. */
  { "write allocate", "cache:size=32,assoc=2,line=16", "W0 R0", "misses", "MH" },
  /* write_allocate=0: the write miss does not fill, so the read misses as well. */
  { "no write allocate", "cache:size=32,assoc=2,line=16,write_allocate=0", "W0 R0 R0", "misses",
    "MMH" },
  /* write_allocate=0 counts the write miss as a write miss, not a read. */
  { "no write allocate counts writes", "cache:size=32,assoc=2,line=16,write_allocate=0",
    "W0 R0", "write_misses", "MH" },
  /* A modify reads then writes: the read misses, the write hits; read_misses counts it. */
  { "modify is read then write", "cache:size=32,assoc=2,line=16", "M0 M0", "read_misses", "MH" },
  /* 8 bytes at byte 12 (unit 1: addresses in bytes) cover lines 0 and 1: two line references,
   * both miss; then 4 bytes at 16 hit line 1. */
  { "straddle is two lines", "cache:size=64,assoc=4,line=16", "R12+8 R16+4", "misses", "2H" },
  /* cachegrind=1: the same straddling access is one reference and one miss. */
  { "cachegrind straddle is one access", "cache:size=64,assoc=4,line=16,cachegrind=1",
    "R12+8 R16+4", "misses", "MH" },
  /* cachegrind=1 counts a modify as one read reference. */
  { "cachegrind modify is one read", "cache:size=64,assoc=4,line=16,cachegrind=1", "M0 M0",
    "refs", "MM" },
  /* Fetch records without icache are ignored: no reference at all. */
  { "fetches ignored without icache", "cache:size=64,assoc=4,line=16", "F0 F1", "refs", "HH" },
  /* Dependent reads' misses, counted apart, one set of 2 ways: D0 misses (dependent); R1 misses
   * but is independent; D0 hits; D2 misses and evicts 1; R1 misses (independent); D1 hits. */
  { "dependent misses apart", "cache:size=32,assoc=2,line=16", "D0 R1 D0 D2 R1 D1",
    "dependent_misses", "MHHMHH" },
  /* ... while misses counts all of them. */
  { "dependent misses are misses", "cache:size=32,assoc=2,line=16", "D0 R1 D0 D2 R1 D1",
    "misses", "MMHMMH" },
  /* A dependent read straddling two lines misses twice; a write or modify is never dependent. */
  { "dependent straddle", "cache:size=64,assoc=4,line=16", "D12+8 W32 M48 D16+4",
    "dependent_misses", "2HHH" },
  /* cachegrind=1: the straddling dependent read is one access, one dependent miss. */
  { "cachegrind dependent straddle", "cache:size=64,assoc=4,line=16,cachegrind=1",
    "D12+8 D16+4", "dependent_misses", "MH" },
  /* Chase reads' misses, one set of 2 ways: C0 misses; D1 misses, dependent but no chase; R2
   * misses and evicts 0; C0 misses again (evicts 1); C2 hits; D1 misses; C0 misses (evicts 2). */
  { "chase misses apart", "cache:size=32,assoc=2,line=16", "C0 D1 R2 C0 C2 D1 C0",
    "chase_misses", "MHHMHHM" },
  /* ... and every one of them is a dependent miss too. */
  { "chase misses are dependent misses", "cache:size=32,assoc=2,line=16", "C0 D1 R2 C0 C2 D1 C0",
    "dependent_misses", "MMHMHMM" },
  /* A chase read straddling two lines misses twice, as a dependent one does. */
  { "chase straddle", "cache:size=64,assoc=4,line=16", "C12+8 D32 C16+4", "chase_misses", "2HH" },
};

static void
test_micro_traces_per_policy (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      /* "straddle" rows give byte addresses; the others line numbers of 16-byte lines. */
      guint unit = strstr (rows[i].name, "straddle") ? 1 : 16;
      g_autofree char *got = outcomes (rows[i].spec, rows[i].trace, unit, rows[i].counter);
      if (strcmp (got, rows[i].expect) != 0)
        {
          for (guint k = 0; got[k] || rows[i].expect[k]; k++)
            if (got[k] != rows[i].expect[k])
              fail_msg ("%s: step %u: expected %c, got %c (all: expected %s, got %s)",
                        rows[i].name, k + 1, rows[i].expect[k] ? rows[i].expect[k] : '-',
                        got[k] ? got[k] : '-', rows[i].expect, got);
        }
    }
}

/* Two levels, each one set of 2 ways of 16-byte lines; A=0, B=1, C=2. */
static const struct {
  const char *name;
  const char *spec;
  const char *trace;
  const char *l1;
  const char *l2;   /* outcome per L1 miss, in order */
  guint64 l1_back_invalidations;
} level_rows[] = {
  /* nine: A, B miss in both. A hits L1 (L2 untouched: B most recent there). C misses L1 (evicts
   * B) and L2 (evicts A, least recent in L2). B misses L1 and hits L2. */
  { "non-inclusive levels", "cache:levels=32:2:16/32:2:16", "R0 R1 R0 R2 R1", "MMHMM", "MMMH", 0 },
  /* inclusive: the same until C: L2 evicts A and so removes it from L1, leaving L1 a free way;
   * C fills it without evicting B, and B then hits L1. */
  { "inclusive back-invalidates", "cache:levels=32:2:16/32:2:16,inclusion=inclusive",
    "R0 R1 R0 R2 R1", "MMHMH", "MMM", 1 },
  /* L2 of 4 ways keeps what L1 (2 ways) drops: A B C A -> L1 misses all, L2 hits the last A. */
  { "l2 catches l1 misses", "cache:levels=32:2:16/64:4:16", "R0 R1 R2 R0", "MMMM", "MMMH", 0 },
  /* L2 with 32-byte lines: L1 lines 0 and 1 are L2 line 0, so L1's second miss hits L2. */
  { "wider l2 lines", "cache:levels=32:2:16/64:2:32", "R0 R1", "MM", "MH", 0 },
};

static void
test_levels_pass_misses_down (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (level_rows); i++)
    {
      g_autofree char *l1 = outcomes (level_rows[i].spec, level_rows[i].trace, 16, "l1_misses");
      g_autoptr (MdlEngine) e = test_engine_new (level_rows[i].spec);
      g_autoptr (GArray) ev = parse_trace (level_rows[i].trace, 16);
      GString *l2 = g_string_new (NULL);
      guint64 before = 0;
      for (guint k = 0; k < ev->len; k++)
        {
          guint64 refs, now;
          guint64 refs_before = test_engine_count (e, "l2_refs");
          test_feed_cpu (e, &g_array_index (ev, MdlCpuEvent, k), 1);
          refs = test_engine_count (e, "l2_refs");
          now = test_engine_count (e, "l2_misses");
          if (refs > refs_before)
            g_string_append_c (l2, now > before ? 'M' : 'H');
          before = now;
        }
      if (strcmp (l1, level_rows[i].l1) != 0)
        fail_msg ("%s: l1: expected %s, got %s", level_rows[i].name, level_rows[i].l1, l1);
      if (strcmp (l2->str, level_rows[i].l2) != 0)
        fail_msg ("%s: l2: expected %s, got %s", level_rows[i].name, level_rows[i].l2, l2->str);
      if (strstr (level_rows[i].spec, "inclusive"))
        assert_int_equal (test_engine_count (e, "l1_back_invalidations"),
                          level_rows[i].l1_back_invalidations);
      g_string_free (l2, TRUE);
    }
}

/* Ensure the instruction cache takes fetch records and sends its misses to level 2, which counts
 * them as fetch references, while data go through level 1. */
static void
test_icache_feeds_level_two (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("cache:levels=32:2:16/64:4:16,icache=32:2:16");
  /* F0 F1: two I1 misses, two L2 fetch misses. R0: L1 miss, L2 hit (line 0 came with F0).
   * F0: I1 hit. */
  g_autoptr (GArray) ev = parse_trace ("F0 F1 R0 F0", 16);
  (void) state;
  test_feed_cpu (e, (const MdlCpuEvent *) (void *) ev->data, ev->len);
  assert_int_equal (test_engine_count (e, "i1_fetch_refs"), 3);
  assert_int_equal (test_engine_count (e, "i1_fetch_misses"), 2);
  assert_int_equal (test_engine_count (e, "l1_read_misses"), 1);
  assert_int_equal (test_engine_count (e, "l2_fetch_refs"), 2);
  assert_int_equal (test_engine_count (e, "l2_fetch_misses"), 2);
  assert_int_equal (test_engine_count (e, "l2_read_refs"), 1);
  assert_int_equal (test_engine_count (e, "l2_read_misses"), 0);
  assert_int_equal (test_engine_count (e, "fetches"), 3);
  assert_int_equal (test_engine_count (e, "fetches_ignored"), 0);
}

/* ---- miss classification ---------------------------------------------------------------------- */

/* Ensure each miss gets the cause the definitions give, worked out by hand. Direct-mapped, 2 sets
 * of 16-byte lines (so the fully associative LRU beside it holds 2 lines); lines 0, 2, 4 share set
 * 0, line 1 is in set 1.
 *   0: first touch                           -> compulsory
 *   2: first touch (evicts 0)                -> compulsory
 *   0: seen; the 2-line LRU holds {0, 2}     -> conflict
 *   4: first touch (the LRU drops 2)         -> compulsory
 *   2: seen; the LRU holds {4, 0}            -> capacity
 *   1: first touch                           -> compulsory
 *   2: hit (set 0 has 2)                     -> no miss
 *   4: seen; LRU {2, 1}, set 0 has 2         -> capacity */
static void
test_classification_by_hand (void **state)
{
  static const struct { guint64 compulsory, capacity, conflict; } after[] = {
    { 1, 0, 0 }, { 2, 0, 0 }, { 2, 0, 1 }, { 3, 0, 1 }, { 3, 1, 1 }, { 4, 1, 1 }, { 4, 1, 1 },
    { 4, 2, 1 } };
  g_autoptr (MdlEngine) e = test_engine_new ("cache:size=32,assoc=1,line=16,classify=1");
  g_autoptr (GArray) ev = parse_trace ("R0 R2 R0 R4 R2 R1 R2 R4", 16);
  (void) state;
  for (guint k = 0; k < ev->len; k++)
    {
      test_feed_cpu (e, &g_array_index (ev, MdlCpuEvent, k), 1);
      if (test_engine_count (e, "compulsory") != after[k].compulsory
          || test_engine_count (e, "capacity") != after[k].capacity
          || test_engine_count (e, "conflict") != after[k].conflict)
        fail_msg ("step %u: expected %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%"
                  G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%"
                  G_GUINT64_FORMAT, k + 1, after[k].compulsory, after[k].capacity,
                  after[k].conflict, test_engine_count (e, "compulsory"),
                  test_engine_count (e, "capacity"),
                  test_engine_count (e, "conflict"));
    }
  assert_int_equal (test_engine_count (e, "misses"), 7);
}

/* Ensure a fully associative LRU cache has no conflict misses: its shadow is itself. */
static void
test_fully_associative_has_no_conflicts (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("cache:size=256,assoc=0,line=16,classify=1");
  GRand *rand = g_rand_new_with_seed (test_seed (7));
  MdlCpuEvent ev[2000];
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (ev); i++)
    ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 4,
                            .addr = (guint64) g_rand_int_range (rand, 0, 64) * 16 };
  test_feed_cpu (e, ev, G_N_ELEMENTS (ev));
  assert_int_equal (test_engine_count (e, "conflict"), 0);
  assert_int_equal (test_engine_count (e, "compulsory") + test_engine_count (e, "capacity"),
                    test_engine_count (e, "misses"));
  g_rand_free (rand);
}

/* ---- presets and errors ------------------------------------------------------------------------- */

/* Ensure depth=2 with the x86-64 preset builds its L1d (32 KiB, 8 ways) and L2 (1 MiB, 16 ways). */
static void
test_preset_levels (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("cache:machine=x86-64,depth=2");
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  (void) state;
  assert_non_null (strstr (mdl_report_lookup (r, "l1_refs")->description, "32768 bytes, 8 ways"));
  assert_non_null (strstr (mdl_report_lookup (r, "l2_refs")->description, "1048576 bytes, 16 ways"));
  assert_null (mdl_report_lookup (r, "l3_refs"));
}

/* Ensure single-level counters carry the required names and Cachegrind's metric names. */
static void
test_single_level_names (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("cache:size=32768,assoc=8,line=64");
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  (void) state;
  assert_non_null (mdl_report_lookup (r, "misses"));
  assert_string_equal (mdl_report_lookup (r, "read_misses")->metric, "D1mr");
  assert_string_equal (mdl_report_lookup (r, "write_misses")->metric, "D1mw");
}

static const struct {
  const char *spec;
  int code;
  const char *needle;
} bad_specs[] = {
  { "cache:size=49152,assoc=8,line=64", MDL_ERROR_PARAM, "try assoc=6" },
  { "cache:size=100,assoc=1,line=64", MDL_ERROR_PARAM, "not a multiple of its line size" },
  { "cache:levels=32k:8", MDL_ERROR_PARAM, "expected SIZE:ASSOC:LINE" },
  { "cache:levels=32k:8:64:lfu", MDL_ERROR_PARAM, "unknown policy \"lfu\"" },
  { "cache:levels=32k:8:48", MDL_ERROR_PARAM, "power of two" },
  { "cache:levels=32k:8:64,size=64k", MDL_ERROR_PARAM, "give either levels" },
  { "cache:levels=32k:8:64/256k:8:32", MDL_ERROR_PARAM, "must not shrink" },
  { "cache:size=48k,assoc=12,policy=plru", MDL_ERROR_PARAM, "power-of-two associativity" },
  { "cache:depth=2", MDL_ERROR_PARAM, "machine=NAME" },
  { "cache:cachegrind=1,inclusion=inclusive", MDL_ERROR_PARAM, "not inclusive" },
  { "cache:icache=32k:8", MDL_ERROR_PARAM, "cache: icache" },
  { "cache:polcy=lru", MDL_ERROR_PARAM, "did you mean \"policy\"" },
};

/* Ensure bad specs fail with MDL_ERROR_PARAM and a message that names the problem. */
static void
test_bad_specs_are_named (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_specs); i++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (bad_specs[i].spec, &error);
      if (e != NULL)
        fail_msg ("%s: accepted", bad_specs[i].spec);
      assert_mdl_error (error, bad_specs[i].code, bad_specs[i].needle);
    }
}

/* Ensure a cache whose tables exceed the memory budget is refused when it is created, with the
 * level, its geometry and the budget in the message: size=2^40 needs 2^34 sets of 8 tags (128 GiB
 * of tags alone), over any default budget (at most 4 GiB). With MODELS_MEMORY_BUDGET=64k, a 32 KiB
 * L1 (64 sets) fits and a 1 MiB L2 (1024 sets of 16 tags = 128 KiB of tags alone) does not, and
 * the message counts the L1's share; without L2 the same budget is enough. */
static void
test_tables_over_the_budget_are_refused (void **state)
{
  GError *error = NULL;
  MdlEngine *e;
  g_autoptr (MdlEngine) small = NULL;
  (void) state;
  g_unsetenv ("MODELS_MEMORY_BUDGET");
  e = mdl_engine_new ("cache:size=1099511627776,assoc=8", &error);
  assert_null (e);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "cache: l1 of 1099511627776 bytes (2147483648 sets of 8 ways of 64-byte lines) "
                    "needs ");
  e = mdl_engine_new ("cache:size=64G,classify=1", &error);
  assert_null (e);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "over the memory budget of");

  g_setenv ("MODELS_MEMORY_BUDGET", "64k", TRUE);
  e = mdl_engine_new ("cache:levels=32k:8:64/1M:16:64", &error);
  assert_null (e);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "cache: l2 of 1048576 bytes (1024 sets of 16 ways of 64-byte lines) needs ");
  e = mdl_engine_new ("cache:levels=32k:8:64/1M:16:64", &error);
  assert_null (e);
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "bytes already taken, over the memory budget of "
                    "65536 bytes (64 KiB, set by MODELS_MEMORY_BUDGET)");
  small = mdl_engine_new ("cache:levels=32k:8:64", &error);
  g_unsetenv ("MODELS_MEMORY_BUDGET");
  if (small == NULL)
    fail_msg ("32k:8:64 within 64k: %s", error->message);
}

/* Ensure reset forgets everything: the same trace twice gives the same counts. */
static void
test_reset_is_fresh (void **state)
{
  g_autoptr (MdlEngine) e
    = test_engine_new ("cache:levels=64:2:16/128:4:16,classify=1,policy=random");
  g_autoptr (GArray) ev = parse_trace ("R0 R1 R2 R3 R4 R5 R0 W9 R1 M7 R2", 16);
  guint64 first[3];
  (void) state;
  test_feed_cpu (e, (const MdlCpuEvent *) (void *) ev->data, ev->len);
  first[0] = test_engine_count (e, "l1_misses");
  first[1] = test_engine_count (e, "l2_misses");
  first[2] = test_engine_count (e, "l1_conflict");
  mdl_engine_reset (e);
  assert_int_equal (test_engine_count (e, "l1_refs"), 0);
  test_feed_cpu (e, (const MdlCpuEvent *) (void *) ev->data, ev->len);
  assert_int_equal (test_engine_count (e, "l1_misses"), first[0]);
  assert_int_equal (test_engine_count (e, "l2_misses"), first[1]);
  assert_int_equal (test_engine_count (e, "l1_conflict"), first[2]);
}

/* ---- agreement with the reference -------------------------------------------------------------- */

static void
random_level (GRand *rand, RefLevelConfig *l, guint64 min_line, RefCachePolicy policy)
{
  static const guint64 lines[] = { 16, 32, 64 };
  guint64 line;
  do
    line = lines[g_rand_int_range (rand, 0, 3)];
  while (line < min_line);
  l->line = line;
  l->policy = policy;
  l->assoc = (guint64) 1 << g_rand_int_range (rand, 0, 4);   /* 1..8 */
  if (policy != REF_CACHE_PLRU && g_rand_boolean (rand))
    l->assoc = (guint64) g_rand_int_range (rand, 1, 7);      /* 1..6, not only powers of two */
  l->size = l->assoc * l->line * ((guint64) 1 << g_rand_int_range (rand, 0, 4));
  if (g_rand_int_range (rand, 0, 8) == 0)
    l->assoc = 0;   /* fully associative */
}

static void
random_config (GRand *rand, RefCacheConfig *c)
{
  guint64 min_line = 16;
  memset (c, 0, sizeof *c);
  c->n_data = (guint) g_rand_int_range (rand, 1, 4);
  for (guint i = 0; i < c->n_data; i++)
    {
      random_level (rand, &c->data[i], min_line,
                    (RefCachePolicy) g_rand_int_range (rand, 0, REF_CACHE_N_POLICIES));
      /* Lines must not shrink going down. */
      min_line = c->data[i].line;
    }
  c->has_icache = g_rand_boolean (rand);
  if (c->has_icache)
    random_level (rand, &c->icache, 16,
                  (RefCachePolicy) g_rand_int_range (rand, 0, REF_CACHE_N_POLICIES));
  if (c->has_icache && c->n_data > 1 && c->icache.line > c->data[1].line)
    c->icache.line = c->data[1].line;
  if (c->has_icache)
    c->icache.size = (c->icache.assoc ? c->icache.assoc : 1) * c->icache.line
                     * ((guint64) 1 << g_rand_int_range (rand, 0, 3));
  c->seed = g_rand_int (rand);
  c->write_allocate = g_rand_int_range (rand, 0, 4) != 0;
  c->cachegrind = g_rand_int_range (rand, 0, 3) == 0;
  c->inclusive = !c->cachegrind && g_rand_boolean (rand);
  c->classify = g_rand_boolean (rand);
}

/* The case a failure message names. (transfer full) */
static char *
case_name (guint32 seed, guint iter, const char *spec)
{
  return g_strdup_printf ("seed %u, iteration %u, %s", seed, iter, spec);
}

/* Ensure the engine and the slow reference agree on every counter of every level, over hundreds
 * of random configurations (levels, policies, geometry, inclusion, write allocation, icache,
 * cachegrind mode, classification) and random traces with straddling accesses, fetches and
 * dependent and chase reads. */
static void
test_agrees_with_reference (void **state)
{
  guint32 seed = test_seed (20240601);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 400; iter++)
    {
      RefCacheConfig cfg;
      g_autofree char *spec = NULL;
      g_autoptr (MdlEngine) e = NULL;
      g_autoptr (GError) error = NULL;
      RefCache *ref;
      guint n = (guint) g_rand_int_range (rand, 50, 1500);
      guint64 span = (guint64) 1 << g_rand_int_range (rand, 8, 14);
      MdlCpuEvent *ev = g_new (MdlCpuEvent, n);

      random_config (rand, &cfg);
      spec = ref_cache_spec (&cfg);
      e = mdl_engine_new (spec, &error);
      if (e == NULL)
        fail_msg ("seed %u, iteration %u: %s: %s", seed, iter, spec, error->message);
      ref = ref_cache_new (&cfg);
      for (guint k = 0; k < n; k++)
        {
          guint r = (guint) g_rand_int_range (rand, 0, 10);
          MdlCpuEvent *x = &ev[k];
          *x = (MdlCpuEvent) { .kind = r < 5 ? MDL_CPU_READ : r < 8 ? MDL_CPU_WRITE : MDL_CPU_MODIFY,
                               .size = (guint16) (1u << g_rand_int_range (rand, 0, 5)),
                               .addr = (guint64) g_rand_int_range (rand, 0, (gint32) span) };
          if (g_rand_int_range (rand, 0, 20) == 0)
            x->size = (guint16) g_rand_int_range (rand, 1, 200);   /* several lines */
          if (r == 9 && g_rand_boolean (rand))
            {
              x->kind = MDL_CPU_READ;
              x->flags = MDL_CPU_FLAG_FETCH;
              x->size = (guint16) g_rand_int_range (rand, 1, 16);
            }
          else if (r < 2)
            x->flags = r == 0 ? MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE
                              : MDL_CPU_FLAG_DEPENDENT;
          ref_cache_record (ref, x);
        }
      test_feed_cpu_batches (e, ev, n, rand, 300);
      for (guint i = 0; i < cfg.n_data + (cfg.has_icache ? 1u : 0u); i++)
        {
          gboolean single = cfg.n_data == 1 && !cfg.has_icache;
          g_autofree char *prefix = single ? g_strdup ("")
                                    : i == cfg.n_data ? g_strdup ("i1_")
                                                      : g_strdup_printf ("l%u_", i + 1);
          g_autofree char *what = case_name (seed, iter, spec);
          ref_cache_check_level (e, ref, i, prefix, what);
        }
      ref_cache_free (ref);
      g_free (ev);
    }
  g_rand_free (rand);
}

/* Ensure the one-level loop (one data level, natural mode, no classification: the engine's fast
 * path, which handles a reference to the line referenced last without a lookup) agrees with the
 * slow reference on every counter, for every policy, with and without write allocation, over
 * traces made of the patterns that path sees and those that leave it: streams of small
 * accesses along a line and across its end, returns to lines of a few streams, straddling and
 * wrapping accesses, modifies, dependent and chase reads, fetches (ignored without an icache)
 * and op records between them, fed in batches of random length. */
static void
test_one_level_loop_agrees_with_reference (void **state)
{
  guint32 seed = test_seed (20261127);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 200; iter++)
    {
      RefCacheConfig cfg = { .n_data = 1, .seed = g_rand_int (rand),
                             .write_allocate = g_rand_boolean (rand) };
      g_autofree char *spec = NULL;
      g_autoptr (MdlEngine) e = NULL;
      g_autoptr (GError) error = NULL;
      RefCache *ref;
      guint n = (guint) g_rand_int_range (rand, 100, 3000), n_streams = 1 + iter % 4;
      guint64 stream[4];
      MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);

      random_level (rand, &cfg.data[0], 16, (RefCachePolicy) (iter % REF_CACHE_N_POLICIES));
      for (guint k = 0; k < n_streams; k++)
        stream[k] = (guint64) g_rand_int_range (rand, 0, 1 << 12);
      spec = ref_cache_spec (&cfg);
      e = mdl_engine_new (spec, &error);
      if (e == NULL)
        fail_msg ("seed %u, iteration %u: %s: %s", seed, iter, spec, error->message);
      ref = ref_cache_new (&cfg);
      for (guint k = 0; k < n; k++)
        {
          guint r = (guint) g_rand_int_range (rand, 0, 20), s = (guint) g_rand_int_range (rand, 0, (gint32) n_streams);
          MdlCpuEvent *x = &ev[k];
          x->kind = r < 10 ? MDL_CPU_READ : r < 15 ? MDL_CPU_WRITE : MDL_CPU_MODIFY;
          x->flags = r < 2 ? MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE
                     : r < 4 ? MDL_CPU_FLAG_DEPENDENT : 0;
          x->size = (guint16) (1u << g_rand_int_range (rand, 0, 4));
          x->addr = stream[s];
          stream[s] += x->size;   /* along the line, and on into the next */
          if (r == 16)
            x->addr = (guint64) g_rand_int_range (rand, 0, 1 << 14);   /* a jump */
          else if (r == 17)
            x->size = (guint16) g_rand_int_range (rand, 1, 300);       /* several lines */
          else if (r == 18)
            {
              x->addr = G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 8); /* wraps */
              x->size = 16;
            }
          if (r == 19)   /* neither is a data access: with no icache, nothing to count */
            {
              *x = (MdlCpuEvent) { .kind = g_rand_boolean (rand) ? MDL_CPU_OPS : MDL_CPU_READ,
                                   .addr = stream[s], .size = 4 };
              if (x->kind == MDL_CPU_OPS)
                x->size = 0;
              else
                x->flags = MDL_CPU_FLAG_FETCH;
            }
          ref_cache_record (ref, x);
        }
      test_feed_cpu_batches (e, ev, n, rand, 400);
      {
        g_autofree char *what = case_name (seed, iter, spec);
        ref_cache_check_level (e, ref, 0, "", what);
      }
      ref_cache_free (ref);
      g_free (ev);
    }
  g_rand_free (rand);
}

/* Ensure the one-level loop, with lru's ordered sets (2..16 ways: the D1 loop of 8 ways and
 * 64-byte lines, and that of any) and the other policies' loops, counts exactly as the general path, which classify=1 takes
 * with sets that are not ordered: every counter the two reports share, for random geometries (1 to
 * 16 ways and fully associative, 1 to 64 sets, lines of 16 to 256 bytes), every policy, with and
 * without write allocation, over traces that hit at every depth of a set and miss (a few hot lines
 * per set among more lines than ways), stream along lines, straddle, wrap, modify, and mix in
 * dependent and chase reads, fetches and op records, in batches of random length. */
/* The counters of a one-level report that the general path (classify=1) and the fast paths
 * share. */
static const char *const one_level_names[] = { "accesses", "fetches", "fetches_ignored", "refs",
                                               "read_refs", "write_refs", "misses", "read_misses",
                                               "write_misses", "dependent_misses", "chase_misses",
                                               "evictions" };

/* Fails unless @fast and @general agree on every counter of one_level_names; @what names the
 * case. */
static void
assert_same_one_level_counts (const MdlReport *fast, const MdlReport *general, const char *what)
{
  for (guint i = 0; i < G_N_ELEMENTS (one_level_names); i++)
    {
      guint64 want = mdl_report_lookup (general, one_level_names[i])->count;
      guint64 got = mdl_report_lookup (fast, one_level_names[i])->count;
      if (got != want)
        fail_msg ("%s: %s: fast path %" G_GUINT64_FORMAT ", general path %" G_GUINT64_FORMAT, what,
                  one_level_names[i], got, want);
    }
}

static void
test_fast_paths_agree_with_general_path (void **state)
{
  guint32 seed = test_seed (20261128);
  GRand *rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 300; iter++)
    {
      guint assoc = (guint) g_rand_int_range (rand, 1, 17);
      guint64 n_sets = (guint64) 1 << g_rand_int_range (rand, 0, 7);
      guint64 line = (guint64) 16 << g_rand_int_range (rand, 0, 5);
      const char *policy = iter % 2 ? "lru" : mdl_cache_policies[iter / 2 % CACHE_N_POLICIES]->name;
      gboolean full = g_rand_int_range (rand, 0, 10) == 0;
      guint n = (guint) g_rand_int_range (rand, 200, 4000);
      guint64 lines_in_use = n_sets * (assoc + (guint64) g_rand_int_range (rand, 1, 8));
      g_autofree char *spec = NULL, *general = NULL;
      g_autoptr (MdlEngine) fast_e = NULL, general_e = NULL;
      g_autoptr (MdlReport) fast_r = NULL, general_r = NULL;
      MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
      guint64 stream = 0;

      if (strcmp (policy, "plru") == 0)
        assoc = 1u << g_rand_int_range (rand, 0, 5);
      if (iter % 6 == 1)
        {
          /* lru (odd iterations) of 8 ways and 64-byte lines: the D1 loop of its own */
          assoc = 8;
          line = 64;
        }
      spec = g_strdup_printf ("cache:size=%" G_GUINT64_FORMAT ",assoc=%u,line=%" G_GUINT64_FORMAT
                              ",policy=%s,write_allocate=%d,seed=%u", (full ? 1 : n_sets) * assoc * line,
                              full ? 0 : assoc, line, policy, g_rand_boolean (rand),
                              g_rand_int (rand));
      general = g_strconcat (spec, ",classify=1", NULL);
      fast_e = test_engine_new (spec);
      general_e = test_engine_new (general);
      for (guint k = 0; k < n; k++)
        {
          guint r = (guint) g_rand_int_range (rand, 0, 20);
          MdlCpuEvent *x = &ev[k];
          x->kind = r < 10 ? MDL_CPU_READ : r < 15 ? MDL_CPU_WRITE : MDL_CPU_MODIFY;
          x->flags = r < 1 ? MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE
                     : r < 3 ? MDL_CPU_FLAG_DEPENDENT : 0;
          x->size = (guint16) (1u << g_rand_int_range (rand, 0, 4));
          /* A line among a few more than the sets hold, the lowest most often: hits deep in a
           * set's recency order as well as at its front. */
          x->addr = (guint64) g_rand_int_range (rand, 0, g_rand_int_range (rand, 1, 1 + (gint32) lines_in_use))
                    * line + (guint64) g_rand_int_range (rand, 0, (gint32) line);
          if (r == 15)
            x->addr = stream += x->size;                                /* along a line */
          else if (r == 16)
            x->size = (guint16) g_rand_int_range (rand, 1, 600);       /* several lines */
          else if (r == 17)
            x->addr = G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 8);   /* wraps */
          else if (r == 18)
            *x = (MdlCpuEvent) { .kind = MDL_CPU_OPS, .addr = 3 };
          else if (r == 19)
            x->flags = MDL_CPU_FLAG_FETCH;
        }
      for (guint k = 0; k < n;)
        {
          guint len = (guint) g_rand_int_range (rand, 1, 500);
          len = MIN (len, n - k);
          test_feed_cpu (fast_e, ev + k, len);
          test_feed_cpu (general_e, ev + k, len);
          k += len;
        }
      fast_r = mdl_engine_report (fast_e);
      general_r = mdl_engine_report (general_e);
      {
        g_autofree char *what = g_strdup_printf ("seed %u, iteration %u, %s", seed, iter, spec);
        assert_same_one_level_counts (fast_r, general_r, what);
      }
      g_free (ev);
    }
  g_rand_free (rand);
}

/* Ensure the fast paths count as the general path on the traces of real algorithms (sorts,
 * searches, a heap, a transpose: runs along lines, reuse at every depth, streams of misses), for
 * every policy, over geometries that take each loop: the D1 loop, ordered sets of 4 and 16 ways
 * (the latter one fully associative set, with its filter), unordered lru of 32 ways, and 2 ways
 * without write allocation. Both engines see one run of each algorithm. */
static void
test_fast_paths_agree_on_algorithm_traces (void **state)
{
  static const char *const algos[] = { "mergesort/bottom-up", "quicksort/intro", "heap/sort",
                                       "binsearch/sorted", "transpose/rows" };
  static const char *const geometries[] = { "size=32k,assoc=8,line=64", "size=4k,assoc=4,line=32",
                                            "size=1k,assoc=16,line=64", "size=2k,assoc=0,line=64",
                                            "size=8k,assoc=2,line=128,write_allocate=0" };
  (void) state;
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    for (guint g = 0; g < G_N_ELEMENTS (geometries); g++)
      for (guint p = 0; p < CACHE_N_POLICIES; p++)
        {
          g_autofree char *fast = g_strdup_printf ("cache:%s,policy=%s", geometries[g],
                                                   mdl_cache_policies[p]->name);
          g_autofree char *general = g_strconcat (fast, ",classify=1", NULL);
          g_autofree char *what = g_strdup_printf ("%s, %s", algos[a], fast);
          const char *const specs[] = { fast, general, NULL };
          g_autoptr (GPtrArray) reports = test_run_algo_all (algos[a], 4096, 3, specs, NULL);
          assert_same_one_level_counts (reports->pdata[0], reports->pdata[1], what);
        }
}

/* Ensure a batch longer than the one-level loop's scan (2^20 records, the most its packed counts
 * hold) counts as the same records fed in short batches: hits along a few lines, with a miss
 * every 64 records. */
static void
test_one_long_batch_counts_as_short_ones (void **state)
{
  const gsize n = ((gsize) 1 << 20) + 4099;
  g_autofree MdlCpuEvent *ev = g_new0 (MdlCpuEvent, n);
  g_autoptr (MdlEngine) whole = test_engine_new ("cache:size=32k,assoc=8,line=64");
  g_autoptr (MdlEngine) parts = test_engine_new ("cache:size=32k,assoc=8,line=64");
  g_autoptr (MdlReport) whole_r = NULL, parts_r = NULL;
  (void) state;
  for (gsize k = 0; k < n; k++)
    ev[k] = (MdlCpuEvent) { .kind = (guint8) (k % 3), .size = 8, .addr = 8 * k };
  test_feed_cpu (whole, ev, n);
  for (gsize k = 0; k < n; k += 1000)
    test_feed_cpu (parts, ev + k, MIN (1000, n - k));
  whole_r = mdl_engine_report (whole);
  parts_r = mdl_engine_report (parts);
  assert_same_one_level_counts (whole_r, parts_r, "one batch against batches of 1000");
  assert_int_equal (test_report_count (whole_r, "accesses"), n);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_micro_traces_per_policy),
    cmocka_unit_test (test_levels_pass_misses_down),
    cmocka_unit_test (test_icache_feeds_level_two),
    cmocka_unit_test (test_classification_by_hand),
    cmocka_unit_test (test_fully_associative_has_no_conflicts),
    cmocka_unit_test (test_preset_levels),
    cmocka_unit_test (test_single_level_names),
    cmocka_unit_test (test_bad_specs_are_named),
    cmocka_unit_test (test_tables_over_the_budget_are_refused),
    cmocka_unit_test (test_reset_is_fresh),
    cmocka_unit_test (test_agrees_with_reference),
    cmocka_unit_test (test_one_level_loop_agrees_with_reference),
    cmocka_unit_test (test_fast_paths_agree_with_general_path),
    cmocka_unit_test (test_fast_paths_agree_on_algorithm_traces),
    cmocka_unit_test (test_one_long_batch_counts_as_short_ones),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
