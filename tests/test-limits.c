/* Limits, stated and checked at their edges (docs/design.md, "Limits"): a binary trace longer than
 * 4 GiB is read whole, with 64-bit byte offsets; record counts past 2^32 are counted, written and
 * checked exactly; an access whose bytes would run past 2^64 - 1 is refused by every reader and
 * writer, while the last bytes of memory themselves are counted by every engine; every algorithm
 * refuses sizes n it cannot allocate before it emits anything; and the VAT engine's K, d, W and P
 * work at their extremes and are refused one step beyond. Expected counts are derived by hand. */
#include "helpers.h"
#include "traces/trace-private.h"

#include <string.h>
#include <gio/gio.h>

/* ---- a generated binary trace: no disk, any length ---- */

/* A GInputStream that produces a binary trace of @n_records CPU records (reads of 8 bytes at
 * 0x1000) and an end record that says @end_count, computed from the read position: a trace of
 * any length costs no memory or disk. */
typedef struct {
  GInputStream parent;
  guint64 n_records;
  guint64 end_count;
  guint64 pos;
  guint8 pattern[4096];      /* records, repeated (an instance is at most 64 KiB) */
} GenStream;

typedef struct {
  GInputStreamClass parent;
} GenStreamClass;

GType gen_stream_get_type (void);
G_DEFINE_TYPE (GenStream, gen_stream, G_TYPE_INPUT_STREAM)

static gssize
gen_stream_read (GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
                 GError **error)
{
  GenStream *g = (GenStream *) stream;
  guint8 *out = buffer;
  guint64 body_end = 16 + 16 * g->n_records, total = body_end + 16;
  gsize done = 0;
  (void) cancellable, (void) error;

  while (done < count && g->pos < total)
    {
      if (g->pos >= 16 && g->pos < body_end)
        {
          gsize off = (gsize) ((g->pos - 16) % sizeof g->pattern);
          gsize n = (gsize) MIN ((guint64) MIN (count - done, sizeof g->pattern - off),
                                 body_end - g->pos);
          memcpy (out + done, g->pattern + off, n);
          done += n;
          g->pos += n;
          continue;
        }
      /* the header (magic, version 1, no flags, no metadata) and the end record, byte by byte */
      if (g->pos < 16)
        out[done] = g->pos < 8 ? (guint8) "MDLTRACE"[g->pos] : g->pos == 8 ? 1 : 0;
      else
        {
          guint64 k = g->pos - body_end;
          out[done] = k == 0 ? MDL_REC_END : k < 8 ? 0 : (guint8) (g->end_count >> (8 * (k - 8)));
        }
      done++;
      g->pos++;
    }
  return (gssize) done;
}

static void
gen_stream_class_init (GenStreamClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = gen_stream_read;
}

static void
gen_stream_init (GenStream *g)
{
  for (gsize i = 0; i < sizeof g->pattern; i += 16)
    {
      MdlCpuEvent e = { .kind = MDL_CPU_READ, .size = 8, .addr = 0x1000 };
      mdl_store32 (g->pattern + i, (guint32) e.kind | (guint32) e.size << 16);
      mdl_store32 (g->pattern + i + 4, 0);
      mdl_store64 (g->pattern + i + 8, e.addr);
    }
}

static GInputStream *
gen_stream_new (guint64 n_records, guint64 end_count)
{
  GenStream *g = g_object_new (gen_stream_get_type (), NULL);
  g->n_records = n_records;
  g->end_count = end_count;
  return G_INPUT_STREAM (g);
}

/* A sink that counts what it is given. */
typedef struct {
  guint64 cpu;
  guint64 markers;
} Tally;

static gboolean
tally_batch (void *data, const MdlEventBatch *b, GError **error)
{
  (void) error;
  ((Tally *) data)->cpu += b->n_cpu;
  return TRUE;
}

static gboolean
tally_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) m, (void) error;
  ((Tally *) data)->markers++;
  return TRUE;
}

/* Pumps @r to its end into a tally; returns the error, if any. */
static GError *
pump_all (MdlTraceReader *r, Tally *t)
{
  MdlSink sink = { tally_batch, tally_marker, t };
  GError *error = NULL;
  gboolean done = FALSE;
  while (!done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
    ;
  return error;
}

/* Ensure a binary trace of 4 GiB and more (2^28 + 1000 records of 16 bytes, generated as it is
 * read) is read whole: every record reaches the sink, and the record count and byte count are
 * exact past 2^32 bytes. */
static void
test_trace_over_4_gib_is_read_whole (void **state)
{
  guint64 n = ((guint64) 1 << 28) + 1000;
  GInputStream *in = gen_stream_new (n, n);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "big.bin", MDL_TRACE_BIN, &error);
  Tally t = { 0 };
  (void) state;

  assert_non_null (r);
  error = pump_all (r, &t);
  if (error)
    fail_msg ("%s", error->message);
  assert_int_equal (t.cpu, n);
  assert_int_equal (mdl_trace_reader_n_records (r), n);
  assert_int_equal (mdl_trace_reader_n_bytes (r), 16 + 16 * n + 16);
  assert_true (mdl_trace_reader_n_bytes (r) > G_MAXUINT32);
  mdl_trace_reader_free (r);
  g_object_unref (in);
}

/* Ensure record counts past 2^32 are exact in the reader (the end record's count is checked
 * against it, and a lie is reported with both numbers) and in the writer (its end record). The
 * counters start just below 2^32, as after 4 G records: reading that many records takes minutes,
 * and what could break at 2^32 is the width of the counters, which this reaches. */
static void
test_record_counts_past_2_to_the_32 (void **state)
{
  guint64 start = ((guint64) 1 << 32) - 5;
  GError *error = NULL;
  Tally t = { 0 };
  (void) state;

  for (guint lie = 0; lie < 2; lie++)
    {
      GInputStream *in = gen_stream_new (10, start + 10 + lie);
      MdlTraceReader *r = mdl_trace_reader_new (in, "big.bin", MDL_TRACE_BIN, &error);
      assert_non_null (r);
      r->n_records = start;
      error = pump_all (r, &t);
      if (lie == 0)
        {
          if (error)
            fail_msg ("%s", error->message);
          assert_int_equal (mdl_trace_reader_n_records (r), start + 10);
        }
      else
        assert_mdl_error (error, MDL_ERROR_FORMAT, "big.bin: record 4294967302 (byte 176): record "
                          "count lies: the end record says 4294967302 records, the trace holds "
                          "4294967301");
      mdl_trace_reader_free (r);
      g_object_unref (in);
    }

  {
    GOutputStream *mem = g_memory_output_stream_new_resizable ();
    MdlTraceWriter *w = mdl_trace_writer_new (mem, "mem", MDL_TRACE_BIN, FALSE);
    MdlSink sink = mdl_trace_writer_sink (w);
    MdlCpuEvent e[3] = { { .kind = MDL_CPU_READ, .size = 1 }, { .kind = MDL_CPU_OPS, .addr = 1 },
                         { .kind = MDL_CPU_WRITE, .size = 2 } };
    const guint8 *bytes;
    gsize len;
    w->n_records = start;
    assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = 3 }, &error));
    assert_true (mdl_trace_writer_close (w, &error));
    assert_int_equal (mdl_trace_writer_n_records (w), start + 3);
    bytes = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem));
    len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
    assert_int_equal (bytes[len - 16], MDL_REC_END);
    assert_int_equal (mdl_load64 (bytes + len - 8), start + 3);
    mdl_trace_writer_free (w);
    g_object_unref (mem);
  }
}

/* ---- the top of the 64-bit address space ---- */

/* Reads @text as @format; returns the error, if any, and the events in *@c. */
static GError *
read_text (const char *text, MdlTraceFormat format, TestCollector *c)
{
  GInputStream *in = g_memory_input_stream_new_from_data (text, (gssize) strlen (text), NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "t", format, &error);
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  while (r && !done && mdl_trace_reader_pump (r, &sink, 0, &done, &error))
    ;
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return error;
}

/* Ensure an access whose last byte would be past 2^64 - 1 is refused, naming its line or record,
 * by the Lackey, din and binary readers and by every writer that carries CPU events, while the
 * same access ending exactly at 2^64 - 1 is read and written as it is. */
static void
test_access_past_the_top_of_memory_is_refused (void **state)
{
  static const struct {
    MdlTraceFormat format;
    const char *ok;     /* 8 bytes ending at 2^64 - 1 */
    const char *bad;    /* 8 bytes from 2^64 - 4 */
    const char *expect;
  } rows[] = {
    { MDL_TRACE_LACKEY, " L fffffffffffffff8,8\n", " L fffffffffffffffc,8\n",
      "t:1: the access runs past the top of the 64-bit address space" },
    { MDL_TRACE_DIN, "r fffffffffffffff8 8\n", "r fffffffffffffffc 8\n",
      "t:1: the access runs past the top of the 64-bit address space" },
  };
  const MdlCpuEvent top = { .kind = MDL_CPU_READ, .size = 8, .addr = G_MAXUINT64 - 7 };
  const MdlCpuEvent wraps = { .kind = MDL_CPU_READ, .size = 8, .addr = G_MAXUINT64 - 3 };
  static const MdlTraceFormat writers[] = { MDL_TRACE_BIN, MDL_TRACE_LACKEY, MDL_TRACE_DIN };
  (void) state;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      TestCollector *c = test_collector_new ();
      GError *error = read_text (rows[i].ok, rows[i].format, c);
      if (error)
        fail_msg ("%s: %s", rows[i].ok, error->message);
      assert_int_equal (c->cpu->len, 1);
      assert_memory_equal (&g_array_index (c->cpu, MdlCpuEvent, 0), &top, sizeof top);
      error = read_text (rows[i].bad, rows[i].format, c);
      assert_mdl_error (error, MDL_ERROR_FORMAT, rows[i].expect);
      test_collector_free (c);
    }

  for (guint i = 0; i < G_N_ELEMENTS (writers); i++)
    for (guint bad = 0; bad < 2; bad++)
      {
        GOutputStream *mem = g_memory_output_stream_new_resizable ();
        MdlTraceWriter *w = mdl_trace_writer_new (mem, "out", writers[i], FALSE);
        MdlSink sink = mdl_trace_writer_sink (w);
        GError *error = NULL;
        gboolean ok = sink.batch (sink.data, &(MdlEventBatch) { .cpu = bad ? &wraps : &top,
                                                                .n_cpu = 1 }, &error)
                      && mdl_trace_writer_close (w, &error);
        if (bad)
          {
            assert_false (ok);
            assert_mdl_error (error, MDL_ERROR_FORMAT, "out: cannot write record 1: read of 8 "
                              "bytes at 0xfffffffffffffffc runs past the top of the 64-bit "
                              "address space");
          }
        else if (!ok)
          fail_msg ("%s: %s", mdl_trace_format_name (writers[i]), error->message);
        else if (writers[i] == MDL_TRACE_BIN)
          {
            /* the binary reader refuses the same record once its address is changed in place */
            gsize len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem));
            guint8 *bytes = g_memdup2 (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)), len);
            GInputStream *in;
            MdlTraceReader *r;
            Tally t = { 0 };
            gsize at = len - 32;   /* the record before the end record */
            mdl_store64 (bytes + at + 8, wraps.addr);
            in = g_memory_input_stream_new_from_data (bytes, (gssize) len, g_free);
            r = mdl_trace_reader_new (in, "t.bin", MDL_TRACE_BIN, &error);
            assert_non_null (r);
            error = pump_all (r, &t);
            {
              g_autofree char *expect = g_strdup_printf (
                "t.bin: record 1 (byte %" G_GSIZE_FORMAT "): read of 8 bytes at 0xfffffffffffffffc "
                "runs past the top of the 64-bit address space", at);
              assert_mdl_error (error, MDL_ERROR_FORMAT, expect);
            }
            assert_int_equal (t.cpu, 0);
            mdl_trace_reader_free (r);
            g_object_unref (in);
          }
        mdl_trace_writer_free (w);
        g_object_unref (mem);
      }
}

/* Ensure the last 8 bytes of memory are one access of one page, line or block for every engine
 * that splits accesses, and a translation-tree path of d+1 nodes for VAT when the tree covers
 * all 2^64 bytes (P = 2^12, K = 2, d = 52): nothing wraps to address 0. */
static void
test_engines_count_the_last_bytes_of_memory (void **state)
{
  static const struct {
    const char *spec;
    const char *counter;
    guint64 expect;
  } rows[] = {
    { "count", "bytes_read", 8 },
    { "footprint", "pages", 1 },
    { "footprint", "lines", 1 },
    { "cache:machine=x86-64", "refs", 1 },
    { "tlb:machine=x86-64", "translations", 1 },
    { "em:M=1k,B=64", "block_refs", 1 },
    { "vat:P=4096,K=2,d=52", "accesses", 1 },
    { "vat:P=4096,K=2,d=52", "tc_misses", 53 },   /* a cold path: d + 1 nodes */
  };
  const MdlCpuEvent top = { .kind = MDL_CPU_READ, .size = 8, .addr = G_MAXUINT64 - 7 };
  (void) state;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlEngine *e = test_engine_new (rows[i].spec);
      guint64 got;
      test_feed_cpu (e, &top, 1);
      got = test_engine_count (e, rows[i].counter);
      if (got != rows[i].expect)
        fail_msg ("%s: %s = %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].spec,
                  rows[i].counter, got, rows[i].expect);
      mdl_engine_free (e);
    }
}

/* ---- sizes ---- */

/* Ensure every algorithm refuses n = 2^64 - 1 and n = 2^61 (whose 8-byte array would be 2^64
 * bytes, wrapping to 0) with MDL_ERROR_PARAM naming n, before it delivers any event. */
static void
test_every_algorithm_refuses_n_it_cannot_hold_before_any_work (void **state)
{
  guint n_algos;
  const MdlAlgo *algos = mdl_algos (&n_algos);
  static const guint64 sizes[] = { G_MAXUINT64, (guint64) 1 << 61 };
  (void) state;

  assert_true (n_algos > 0);
  for (guint a = 0; a < n_algos; a++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autoptr (MdlParams) params = NULL;
        GError *error = NULL;
        Tally t = { 0 };
        MdlSink sink = { tally_batch, tally_marker, &t };
        params = mdl_params_parse (algos[a].name, algos[a].params, NULL, &error);
        if (params == NULL)
          fail_msg ("%s: %s", algos[a].name, error->message);
        if (mdl_algo_run_into (&algos[a], params, sizes[s], 1, &sink, NULL, &error))
          fail_msg ("%s accepted n=%" G_GUINT64_FORMAT, algos[a].name, sizes[s]);
        if (error->code != MDL_ERROR_PARAM || strstr (error->message, "n=") == NULL)
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": %s", algos[a].name, sizes[s], error->message);
        if (t.cpu + t.markers != 0)
          fail_msg ("%s n=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " events before the error",
                    algos[a].name, sizes[s], t.cpu + t.markers);
        g_error_free (error);
      }
}

/* Ensure engines whose tables grow with a parameter check them against the memory budget when
 * they are created, before any work, naming the parameter and the bytes: vat's W (index, ring or
 * tournament per cell; 6496512 cells of lru need 4 * (W + 1 + 2^24) + 12 * (W + 1) + 8 * W
 * bytes), em's M / B blocks (17 bytes each for lru), a TLB's arrays (16 bytes per entry, the L1's
 * 64 entries already taken). Under MODELS_MEMORY_BUDGET=128M, the budget of the fuzz targets,
 * these are refused and W = 2^20 still works; ismin at W = 2^26 is over any default budget
 * (at most 4 GiB). */
static void
test_tables_over_the_budget_are_refused_before_any_work (void **state)
{
  static const struct {
    const char *spec, *budget, *error;
  } rows[] = {
    { "vat:W=6496512", "128M", "vat: W=6496512 (policy lru) needs 223025168 bytes (212.7 MiB) of "
      "tables, over the memory budget of 134217728 bytes (128 MiB, set by MODELS_MEMORY_BUDGET)" },
    { "vat:W=1000000,curve=1,curve_max=1048576,K=2,d=56", "128M",
      "vat: W=1000000 (policy lru, with the curve to curve_max) needs 1093547564 bytes" },
    { "vat:W=67108864,policy=ismin", NULL,
      "vat: W=67108864 (policy ismin) needs 4294967312 bytes (4.0 GiB) of tables, over the "
      "memory budget of " },
    { "em:M=1G,B=64", "128M", "em: M=1073741824 of 16777216 blocks of B=64 bytes needs 285212672 "
      "bytes (272 MiB) of tables, over the memory budget of 134217728 bytes" },
    { "tlb:l2_entries=16777216,l2_assoc=16", "128M", "tlb: the second-level TLB needs 167772160 "
      "bytes (160 MiB) of tables plus the 1024 bytes already taken, over the memory budget of "
      "134217728 bytes (128 MiB, set by MODELS_MEMORY_BUDGET); choose smaller tables" },
    { "vat:W=1048576", "128M", NULL },
    { "vat:W=1048576,policy=ismin", "128M", NULL },
    { "em:M=64M,B=64", "128M", NULL },
    { "tlb:l2_entries=1048576,l2_assoc=16", "128M", NULL },
  };
  (void) state;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;
      MdlEngine *e;
      if (rows[i].budget)
        g_setenv ("MODELS_MEMORY_BUDGET", rows[i].budget, TRUE);
      else
        g_unsetenv ("MODELS_MEMORY_BUDGET");
      e = mdl_engine_new (rows[i].spec, &error);
      g_unsetenv ("MODELS_MEMORY_BUDGET");
      if (rows[i].error == NULL)
        {
          if (e == NULL)
            fail_msg ("%s within %s: %s", rows[i].spec, rows[i].budget, error->message);
          mdl_engine_free (e);
          continue;
        }
      if (e != NULL)
        fail_msg ("%s accepted under budget %s", rows[i].spec, rows[i].budget);
      assert_mdl_error (error, MDL_ERROR_PARAM, rows[i].error);
    }
}

/* Ensure the VAT engine works at the extremes of K, d, W and P (one access at address 0 misses
 * its whole cold path: d + 1 nodes, whatever W), and refuses, naming the parameter, one step
 * beyond each. W's own maximum, 2^26, works too but sets up 1.5 GiB of TC state (2.5 GiB for
 * min) before the first event, in 14 s (23 s): too much for `make check`, so W = 2^20 stands
 * for a large TC here (docs/design.md, "Limits"). */
static void
test_vat_parameters_at_their_extremes (void **state)
{
  static const struct {
    const char *spec;
    guint d;               /* the spec's d: the expected misses are d + 1 */
    const char *error;     /* NULL: works */
  } rows[] = {
    { "vat:W=1", 4, NULL },
    { "vat:W=1048576", 4, NULL },
    { "vat:W=1048576,policy=min", 4, NULL },
    { "vat:W=5,policy=islru", 4, NULL },
    { "vat:K=72057594037927936,d=1", 1, NULL },
    { "vat:K=2,d=56", 56, NULL },
    { "vat:K=2,d=56,P=1099511627776", 56, NULL },
    { "vat:P=1,K=2,d=1", 1, NULL },
    { "vat:W=0", 0, "W=0 is out of range" },
    { "vat:W=67108865", 0, "W=67108865 is out of range" },
    { "vat:W=4,policy=islru", 0, "W=4 is too small for policy islru" },
    { "vat:K=144115188075855872", 0, "K=144115188075855872 is out of range" },
    { "vat:K=1", 0, "K=1 is out of range" },
    { "vat:d=57", 0, "d=57 is out of range" },
    { "vat:d=0", 0, "d=0 is out of range" },
    { "vat:P=2199023255552", 0, "P=2199023255552 is out of range" },
    { "vat:P=18446744073709551615", 0, "P=18446744073709551615 is out of range" },
    { "vat:W=18446744073709551616", 0, "W" },
  };
  const MdlCpuEvent first = { .kind = MDL_CPU_READ, .size = 1, .addr = 0 };
  (void) state;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (rows[i].spec, &error);
      if (rows[i].error)
        {
          if (e != NULL)
            fail_msg ("%s: accepted", rows[i].spec);
          assert_int_equal (error->code, MDL_ERROR_PARAM);
          if (strstr (error->message, rows[i].error) == NULL)
            fail_msg ("%s: expected \"%s\" in: %s", rows[i].spec, rows[i].error, error->message);
          g_error_free (error);
          continue;
        }
      if (e == NULL)
        fail_msg ("%s: %s", rows[i].spec, error->message);
      test_feed_cpu (e, &first, 1);
      assert_int_equal (test_engine_count (e, "accesses"), 1);
      if (test_engine_count (e, "tc_misses") != rows[i].d + 1)
        fail_msg ("%s: %" G_GUINT64_FORMAT " misses, expected d + 1 = %u", rows[i].spec,
                  test_engine_count (e, "tc_misses"), rows[i].d + 1);
      mdl_engine_free (e);
    }
}

/* Ensure VAT's cost, ram_ops + tau * tc_misses, is exact up to 2^64 - 1 and saturates there
 * rather than wrapping to a small number: an op count of 2^64 - 11 and one cold access (d + 1 = 5
 * misses) cost 2^64 - 6 at tau = 1, and more than 2^64 - 1 at tau = 2^32. */
static void
test_vat_cost_saturates_instead_of_wrapping (void **state)
{
  const MdlCpuEvent ev[2] = { { .kind = MDL_CPU_OPS, .addr = G_MAXUINT64 - 10 },
                              { .kind = MDL_CPU_READ, .size = 1, .addr = 0 } };
  static const struct { const char *spec; guint64 cost; } rows[] = {
    { "vat:tau=1", G_MAXUINT64 - 5 },
    { "vat:tau=4294967296", G_MAXUINT64 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      MdlEngine *e = test_engine_new (rows[i].spec);
      test_feed_cpu (e, ev, 2);
      assert_int_equal (test_engine_count (e, "tc_misses"), 5);
      assert_int_equal (test_engine_count (e, "ram_ops"), G_MAXUINT64 - 10);
      if (test_engine_count (e, "cost") != rows[i].cost)
        fail_msg ("%s: cost %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT, rows[i].spec,
                  test_engine_count (e, "cost"), rows[i].cost);
      mdl_engine_free (e);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_trace_over_4_gib_is_read_whole),
    cmocka_unit_test (test_record_counts_past_2_to_the_32),
    cmocka_unit_test (test_access_past_the_top_of_memory_is_refused),
    cmocka_unit_test (test_engines_count_the_last_bytes_of_memory),
    cmocka_unit_test (test_every_algorithm_refuses_n_it_cannot_hold_before_any_work),
    cmocka_unit_test (test_tables_over_the_budget_are_refused_before_any_work),
    cmocka_unit_test (test_vat_parameters_at_their_extremes),
    cmocka_unit_test (test_vat_cost_saturates_instead_of_wrapping),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
