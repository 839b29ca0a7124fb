/* Tests of the binary trace format v1 (src/traces/reader-bin.c, writer-bin.c): hostile and
 * truncated input gives the exact error with record number and byte offset, the writer's encoding
 * is byte-exact, metadata and counters come back, and records that straddle the reader's chunk
 * boundary survive. Inputs are written in a small hex notation (see assemble()) so that each row
 * shows the bytes it is about. */
#include "helpers.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include "traces/trace-private.h"

/* assert_mdl_error() frees the error; this also clears the variable for its next use. */
#define assert_error_clear(error, code, needle)                                                    \
  do                                                                                               \
    {                                                                                              \
      assert_mdl_error ((error), (code), (needle));                                                \
      (error) = NULL;                                                                              \
    }                                                                                              \
  while (0)

/* Turns a description into bytes. Tokens, separated by spaces:
 *   HDR       the 16-byte header with no metadata
 *   MAGIC     the 8 bytes "MDLTRACE"
 *   CPU       a valid 16-byte read record (8 bytes at 0x1000)
 *   END:n     an end record that counts n records
 *   Z:n       n zero bytes
 *   "text"    the bytes of text (no spaces inside), e.g. "k=v" for metadata
 *   hex       any even number of hex digits, e.g. 10030000 */
static GByteArray *
assemble (const char *description)
{
  GByteArray *out = g_byte_array_new ();
  g_auto (GStrv) tokens = g_strsplit (description, " ", -1);
  for (char **t = tokens; *t; t++)
    {
      const char *s = *t;
      guint8 rec[16] = { 0 };
      if (*s == '\0')
        continue;
      if (strcmp (s, "HDR") == 0)
        {
          g_byte_array_append (out, (const guint8 *) "MDLTRACE\x01\0\0\0\0\0\0\0", 16);
        }
      else if (strcmp (s, "MAGIC") == 0)
        g_byte_array_append (out, (const guint8 *) "MDLTRACE", 8);
      else if (strcmp (s, "CPU") == 0)
        {
          rec[2] = 8;
          rec[9] = 0x10;
          g_byte_array_append (out, rec, 16);
        }
      else if (g_str_has_prefix (s, "END:"))
        {
          rec[0] = 0x7f;
          mdl_store64 (rec + 8, g_ascii_strtoull (s + 4, NULL, 10));
          g_byte_array_append (out, rec, 16);
        }
      else if (g_str_has_prefix (s, "Z:"))
        {
          guint n = (guint) g_ascii_strtoull (s + 2, NULL, 10);
          for (guint i = 0; i < n; i++)
            g_byte_array_append (out, rec, 1);
        }
      else if (*s == '"')
        g_byte_array_append (out, (const guint8 *) s + 1, (guint) strlen (s) - 2);
      else
        {
          gsize n = strlen (s);
          if (n % 2 != 0)
            fail_msg ("odd hex token %s", s);
          for (gsize i = 0; i < n; i += 2)
            {
              int hi = g_ascii_xdigit_value (s[i]), lo = g_ascii_xdigit_value (s[i + 1]);
              guint8 byte = (guint8) (hi * 16 + lo);
              if (hi < 0 || lo < 0)
                fail_msg ("bad hex token %s", s);
              g_byte_array_append (out, &byte, 1);
            }
        }
    }
  return out;
}

/* Reads @len bytes as a trace named "trace.bin" into @c (may be NULL); returns the error or NULL.
 * @max_records is handed to every pump call. */
static GError *
read_bytes (const guint8 *data, gsize len, MdlTraceFormat format, TestCollector *c,
            guint64 max_records, MdlTraceReader **keep)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) len, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "trace.bin", format, &error);
  TestCollector *own = c ? NULL : test_collector_new ();

  g_object_unref (in);
  error = test_collector_drain (c ? c : own, r, max_records, keep, error);
  test_collector_free (own);
  return error;
}

/* As read_bytes(), from a file that mdl_trace_reader_open() maps (reader-map.c) rather than
 * reads: the bytes go to trace.bin in a fresh temporary directory, removed after. */
static GError *
read_mapped (const guint8 *data, gsize len, TestCollector *c, guint64 max_records,
             MdlTraceReader **keep)
{
  g_autofree char *dir = g_dir_make_tmp ("models-bin-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.bin", NULL);
  GError *error = NULL;
  MdlTraceReader *r;
  TestCollector *own = c ? NULL : test_collector_new ();

  if (dir == NULL || !g_file_set_contents (path, (const char *) data, (gssize) len, NULL))
    fail_msg ("cannot write %s", path);
  r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error);
  assert_true (r == NULL || r->map_fd >= 0);
  error = test_collector_drain (c ? c : own, r, max_records, keep, error);
  test_collector_free (own);
  g_unlink (path);
  g_rmdir (dir);
  return error;
}

/* Ensure every kind of malformed binary trace is rejected with MDL_ERROR_FORMAT and a message
 * naming the record number and byte offset (or the header byte) of the fault. */
static const struct {
  const char *name;
  const char *input;
  const char *needle;
} bad_rows[] = {
  /* header */
  { "empty file", "", "trace.bin: truncated header: 0 of 16 bytes" },
  { "wrong magic", "4d444c5452414358 0100 0000 00000000 END:0",
    "trace.bin: byte 0: not a libmodels binary trace" },
  { "wrong version", "MAGIC 0200 0000 00000000 END:0",
    "trace.bin: byte 8: unsupported version 2 (this reader knows version 1)" },
  { "header flags", "MAGIC 0100 0100 00000000 END:0", "trace.bin: byte 10: unknown header flags 0x0001" },
  { "huge meta_len", "MAGIC 0100 0000 ffffffff END:0",
    "trace.bin: byte 12: header metadata length 4294967295 exceeds the limit of 1048576 bytes" },
  { "meta_len just over 1 MiB", "MAGIC 0100 0000 01001000",
    "byte 12: header metadata length 1048577 exceeds" },
  { "truncated metadata", "MAGIC 0100 0000 20000000 \"k=v\"",
    "trace.bin: truncated header: the data ends after 19 of its 48 bytes" },
  { "bad metadata key", "MAGIC 0100 0000 06000000 \"a/b=1\" 0a Z:10 END:0",
    "trace.bin: header metadata line 1 (byte 16): key with a character other than" },
  { "metadata without newline", "MAGIC 0100 0000 03000000 \"k=v\" Z:13 END:0",
    "header metadata (byte 16): the last line does not end with a newline" },
  { "metadata line without =", "MAGIC 0100 0000 08000000 \"a=1\" 0a \"bc\" 0a0a Z:8 END:0",
    "header metadata line 2 (byte 20): no '=' in the line" },
  { "duplicate key", "MAGIC 0100 0000 08000000 \"a=1\" 0a \"a=2\" 0a Z:8 END:0",
    "header metadata line 2 (byte 20): duplicate key" },
  { "metadata not UTF-8", "MAGIC 0100 0000 04000000 \"a=\" ff0a Z:12 END:0",
    "header metadata (byte 16): it is not valid UTF-8" },
  { "nonzero header padding", "MAGIC 0100 0000 04000000 \"a=1\" 0a 01 Z:11 END:0",
    "trace.bin: byte 20: nonzero padding after the header metadata" },
  /* stream structure */
  { "record count lies", "HDR CPU END:2",
    "trace.bin: record 2 (byte 32): record count lies: the end record says 2 records, the trace "
    "holds 1" },
  { "missing end record", "HDR CPU CPU",
    "trace.bin: record 3 (byte 48): truncated trace: the end record is missing" },
  { "truncated record", "HDR CPU 0000080000000000",
    "trace.bin: record 2 (byte 32): truncated record: the data ends after 8 bytes" },
  { "trailing bytes", "HDR CPU END:1 00", "trace.bin: byte 48: trailing data after the end record" },
  { "end record reserved bytes", "HDR 7f01000000000000 0000000000000000",
    "record 1 (byte 16): end record has nonzero reserved bytes" },
  { "unknown record type", "HDR CPU 42 Z:15 END:2",
    "trace.bin: record 2 (byte 32): unknown record type 0x42" },
  /* CPU records */
  { "CPU flags", "HDR CPU 0101080000000000 0010000000000000 END:2",
    "record 2 (byte 32): write record has nonzero flags 0x01" },
  { "read with a fetch flag", "HDR CPU 0001080000000000 0010000000000000 END:2",
    "record 2 (byte 32): read record has flags 0x01 (valid: the dependent flag 0x04, alone or "
    "with the chase flag 0x08)" },
  { "dependent modify", "HDR 0204080000000000 0010000000000000 END:1",
    "record 1 (byte 16): modify record has nonzero flags 0x04" },
  { "CPU size 0", "HDR CPU CPU 0100000000000000 0010000000000000 END:3",
    "record 3 (byte 48): write record has size 0 (accesses are 1..65535 bytes)" },
  { "ops with a size", "HDR 0300080000000000 0500000000000000 END:1",
    "record 1 (byte 16): ops record has size 8 (op counts have size 0)" },
  { "branch with a fetch flag", "HDR 0401000000000000 0500000000000000 END:1",
    "record 1 (byte 16): branch record has flags 0x01 (only the taken flag 0x02 is valid)" },
  { "branch with a size", "HDR CPU 0402040000000000 0500000000000000 END:2",
    "record 2 (byte 32): branch record has size 4 (branches have size 0)" },
  { "unknown CPU kind", "HDR 0500000000000000 0500000000000000 END:1",
    "record 1 (byte 16): unknown record type 0x05" },
  /* warp records: ALU (op 3) is 48 bytes; a load (op 0) of global (space 1) 40 + 8 per lane */
  { "empty active mask", "HDR CPU 10030000 00000000 Z:8 Z:8 Z:8 Z:8 Z:8 END:2",
    "trace.bin: record 2 (byte 32): warp event (launch 0, block 0, warp 0, alu): empty active mask" },
  { "taken not a subset", "HDR 10040000 00000000 Z:8 Z:8 0100000000000000 0300000000000000 Z:8 END:1",
    "record 1 (byte 16): warp event (launch 0, block 0, warp 0, branch): taken lanes that are not "
    "active" },
  { "warp reserved", "HDR 10030000 00000000 Z:8 0000000001000000 0100000000000000 Z:8 Z:8 END:1",
    "record 1 (byte 16): warp record has nonzero reserved bytes 20..23" },
  { "warp id too large", "HDR 10030000 00000000 Z:8 0000010000000000 0100000000000000 Z:8 Z:8 END:1",
    "record 1 (byte 16): warp record has warp id 65536 (at most 65535)" },
  { "warp padding", "HDR 10030000 00000000 Z:8 Z:8 0100000000000000 Z:8 01 Z:7 END:1",
    "record 1 (byte 16): warp record has nonzero padding" },
  { "warp truncated lanes", "HDR 10000100 0400 0000 Z:8 Z:8 0300000000000000 Z:8 0010000000000000",
    "record 1 (byte 16): truncated warp record: the data ends after 48 of its 64 bytes" },
  { "warp unknown op", "HDR 10090000 00000000 Z:8 Z:8 0100000000000000 Z:8 Z:8 END:1",
    "warp event (launch 0, block 0, warp 0, ?): unknown op" },
  { "warp space on ALU", "HDR 10030100 00000000 Z:8 Z:8 0100000000000000 Z:8 Z:8 END:1",
    "memory space does not match the op" },
  { "warp lane beyond launch width",
    "HDR 20000000 00000000 01000000 20000000 00000000 20000000 Z:8 "
    "10030000 00000000 Z:8 Z:8 0000000001000000 Z:8 Z:8 END:2",
    "record 2 (byte 48): warp event (launch 0, block 0, warp 0, alu): active lanes beyond the warp "
    "width" },
  { "stride out of range", "HDR 10000101 0400 0000 Z:8 Z:8 0f00000000000000 Z:8 Z:8 0000000000000002 Z:8 END:1",
    "record 1 (byte 16): warp event (launch 0, block 0, warp 0, ld): stride out of range (|stride| "
    "<= MDL_WARP_STRIDE_MAX = 144115188075855871)" },
  /* markers */
  { "launch reserved", "HDR 20000001 00000000 01000000 20000000 00000000 20000000 Z:8 END:1",
    "record 1 (byte 16): launch record has nonzero reserved bytes" },
  { "launch warp width 0", "HDR 20000000 00000000 01000000 20000000 00000000 00000000 Z:8 END:1",
    "record 1 (byte 16): launch 0 has warp width 0 (valid: 1..64)" },
  { "launch warp width 65", "HDR 20000000 07000000 01000000 20000000 00000000 41000000 Z:8 END:1",
    "launch 7 has warp width 65 (valid: 1..64)" },
  { "barrier reserved", "HDR 21000000 00000000 00000000 00000001 END:1",
    "record 1 (byte 16): barrier record has nonzero reserved bytes" },
  { "sync reserved", "HDR 22 Z:14 01 END:1", "record 1 (byte 16): sync record has nonzero reserved bytes" },
  { "huge name length", "HDR 2500ffff 0100 Z:10 Z:16 END:1",
    "record 1 (byte 16): site record has a name of 65535 bytes (valid: 1..255)" },
  { "empty name", "HDR 23000000 Z:12 END:1",
    "record 1 (byte 16): phase-begin record has a name of 0 bytes" },
  { "name with NUL", "HDR 23000300 Z:12 \"a\" 00 \"b\" Z:13 END:1",
    "record 1 (byte 16): phase-begin record has a NUL byte in its name" },
  { "name not UTF-8", "HDR 25000200 0300 Z:10 c328 Z:14 END:1",
    "record 1 (byte 16): site 3: name is not valid UTF-8" },
  { "name padding", "HDR 23000100 Z:12 \"a\" 01 Z:14 END:1",
    "record 1 (byte 16): phase-begin record has nonzero padding" },
  { "phase with a site id", "HDR 23000100 0100 Z:10 \"a\" Z:15 END:1",
    "record 1 (byte 16): phase-begin record has nonzero reserved bytes" },
  { "truncated name", "HDR 25001000 0100 Z:10 \"abc\"",
    "record 1 (byte 16): truncated site: the data ends after 19 of its 32 bytes" },
  { "phase end with none open", "HDR 24000100 Z:12 \"p\" Z:15 END:1",
    "record 1 (byte 16): phase end \"p\" while no phase is open" },
  { "phase end mismatch", "HDR 23000100 Z:12 \"p\" Z:15 24000100 Z:12 \"q\" Z:15 END:2",
    "record 2 (byte 48): phase end \"q\" does not match the open phase \"p\"" },
  { "ends inside a phase", "HDR 23000100 Z:12 \"p\" Z:15 END:1",
    "record 2 (byte 48): the trace ends inside phase \"p\"" },
};

static void
test_bin_rejects_malformed_input_naming_the_place (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_rows); i++)
    {
      g_autoptr (GByteArray) bytes = assemble (bad_rows[i].input);
      GError *error = read_bytes (bytes->data, bytes->len, MDL_TRACE_BIN, NULL, 0, NULL);
      if (error == NULL || error->code != MDL_ERROR_FORMAT
          || strstr (error->message, bad_rows[i].needle) == NULL)
        fail_msg ("%s: expected \"%s\", got %s", bad_rows[i].name, bad_rows[i].needle,
                  error ? error->message : "no error");
      g_error_free (error);
    }
}

/* Ensure the same hostile inputs are also rejected when read one record per pump call, so that the
 * budget logic does not skip a check. */
static void
test_bin_rejects_malformed_input_one_record_at_a_time (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_rows); i++)
    {
      g_autoptr (GByteArray) bytes = assemble (bad_rows[i].input);
      GError *error = read_bytes (bytes->data, bytes->len, MDL_TRACE_BIN, NULL, 1, NULL);
      if (error == NULL || strstr (error->message, bad_rows[i].needle) == NULL)
        fail_msg ("%s: expected \"%s\", got %s", bad_rows[i].name, bad_rows[i].needle,
                  error ? error->message : "no error");
      g_error_free (error);
    }
}

/* Ensure the error's position is exact deep into a big file: the example from the brief, a bad
 * warp record after 2^20 CPU records (record 1048577, byte 16 + 2^20 * 16), past several chunks. */
static void
test_bin_error_position_is_exact_after_many_chunks (void **state)
{
  const gsize n_cpu = (gsize) 1 << 20;
  g_autoptr (GByteArray) head = assemble ("HDR");
  g_autoptr (GByteArray) tail = assemble ("10030000 00000000 Z:8 Z:8 Z:8 Z:8 Z:8 END:1048577");
  g_autoptr (GByteArray) all = g_byte_array_sized_new ((guint) (16 * n_cpu + 128));
  guint8 rec[16] = { 0 };
  GError *error;
  (void) state;

  g_byte_array_append (all, head->data, head->len);
  rec[0] = MDL_CPU_WRITE;
  rec[2] = 4;
  for (gsize i = 0; i < n_cpu; i++)
    g_byte_array_append (all, rec, 16);
  g_byte_array_append (all, tail->data, tail->len);
  error = read_bytes (all->data, all->len, MDL_TRACE_AUTO, NULL, 0, NULL);
  assert_mdl_error (error, MDL_ERROR_FORMAT,
                    "trace.bin: record 1048577 (byte 16777232): warp event (launch 0, block 0, "
                    "warp 0, alu): empty active mask");
}

/* The rules of a CPU record (docs/trace-format.md), written out one by one: the oracle for the
 * reader's block check below. */
static gboolean
cpu_record_valid (const guint8 *rec)
{
  guint kind = rec[0], size = rec[2] | (guint) rec[3] << 8;
  guint64 addr = 0;
  for (guint i = 0; i < 8; i++)
    addr |= (guint64) rec[8 + i] << (8 * i);
  gboolean access = kind != MDL_CPU_OPS && kind != MDL_CPU_BRANCH;
  gboolean flags_ok = rec[1] == 0 || (kind == MDL_CPU_BRANCH && rec[1] == MDL_CPU_FLAG_TAKEN)
                     || (kind == MDL_CPU_READ && rec[1] == MDL_CPU_FLAG_DEPENDENT)
                     || (kind == MDL_CPU_READ
                         && rec[1] == (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE));
  return kind < MDL_CPU_N_KINDS && flags_ok && (size == 0) == !access
         && (size == 0 || addr <= G_MAXUINT64 - (size - 1));
}

/* Ensure the reader's check of runs of CPU records (sixteen at a time in vectors, a group it
 * doubts record by record) accepts exactly what the record rules accept: random runs of valid
 * records, many of them at addresses in the top 4 GiB that the fast test leaves to the exact
 * one (in every other run only a few, and no branch or flag, so that groups the fast test passes
 * come after groups it doubts), with at most one
 * broken record (a bad kind, flags, a size that does not fit the kind, an access that wraps or
 * just fits) at a random place (branch records, size 0 and taken or not, and reads flagged
 * dependent, dependent and chase, or neither, among the valid ones), are read up to that record
 * and fail there, naming it. */
static void
test_bin_cpu_run_check_agrees_with_the_record_rules (void **state)
{
  guint32 seed = test_seed (20261127);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  (void) state;
  for (guint iter = 0; iter < 300; iter++)
    {
      guint n = (guint) g_rand_int_range (rand, 1, 200);
      gboolean plain = iter % 2 == 1;   /* reads, writes, modifies and op counts without flags */
      guint bad = g_rand_boolean (rand) ? (guint) g_rand_int_range (rand, 0, (gint32) n) : n;
      g_autoptr (GByteArray) all = assemble ("HDR");
      g_autoptr (GByteArray) end = NULL;
      g_autofree char *end_text = NULL;
      TestCollector *c = test_collector_new ();
      guint expect_read = n;
      GError *error;

      for (guint i = 0; i < n; i++)
        {
          guint8 rec[16] = { 0 };
          guint kind = (guint) g_rand_int_range (rand, 0,
                                                 plain ? MDL_CPU_BRANCH : MDL_CPU_N_KINDS);
          gboolean access = kind != MDL_CPU_OPS && kind != MDL_CPU_BRANCH;
          guint size = access ? (guint) g_rand_int_range (rand, 1, 65536) : 0;
          if (kind == MDL_CPU_BRANCH && g_rand_boolean (rand))
            rec[1] = MDL_CPU_FLAG_TAKEN;
          if (kind == MDL_CPU_READ && !plain)
            rec[1] = (guint8) ((guint[]) { 0, MDL_CPU_FLAG_DEPENDENT,
                                           MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE })
                       [g_rand_int_range (rand, 0, 3)];
          guint64 addr = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
          if (g_rand_int_range (rand, 0, plain ? 64 : 4) == 0)
            addr = G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, 1 << 20);   /* top 4 GiB */
          if (size > 0 && addr > G_MAXUINT64 - (size - 1))
            size = (guint) (G_MAXUINT64 - addr) + 1;
          if (i == bad)
            switch (g_rand_int_range (rand, 0, 5))
              {
              case 0: kind = (guint) g_rand_int_range (rand, MDL_CPU_N_KINDS, MDL_REC_WARP); break;
              case 1: rec[1] = (guint8) g_rand_int_range (rand, 1, 256); break;
              case 2: size = access ? 0 : 8; break;
              case 3:
                kind = MDL_CPU_READ;
                size = (guint) g_rand_int_range (rand, 2, 65536);
                addr = G_MAXUINT64 - (guint64) g_rand_int_range (rand, 0, (gint32) size - 1);
                break;
              default:   /* fits exactly: valid after all */
                kind = MDL_CPU_WRITE;
                size = (guint) g_rand_int_range (rand, 1, 65536);
                addr = G_MAXUINT64 - (size - 1);
              }
          rec[0] = (guint8) kind;
          rec[2] = (guint8) size;
          rec[3] = (guint8) (size >> 8);
          for (guint k = 0; k < 8; k++)
            rec[8 + k] = (guint8) (addr >> (8 * k));
          if (expect_read == n && !cpu_record_valid (rec))
            expect_read = i;
          g_byte_array_append (all, rec, 16);
        }
      end_text = g_strdup_printf ("END:%u", n);
      end = assemble (end_text);
      g_byte_array_append (all, end->data, end->len);
      error = read_bytes (all->data, all->len, MDL_TRACE_BIN, c, 0, NULL);
      if (expect_read == n)
        {
          if (error != NULL)
            fail_msg ("seed %u, iteration %u: valid records refused: %s", seed, iter,
                      error->message);
        }
      else
        {
          g_autofree char *where = g_strdup_printf ("record %u (byte %u)", expect_read + 1,
                                                    16 + 16 * expect_read);
          if (error == NULL || strstr (error->message, where) == NULL)
            fail_msg ("seed %u, iteration %u: expected an error at %s, got %s", seed, iter,
                      where, error ? error->message : "none");
          g_clear_error (&error);
        }
      /* Everything before the broken record, unchanged. */
      assert_int_equal (c->cpu->len, expect_read);
      for (guint i = 0; i < expect_read; i++)
        {
          const MdlCpuEvent *e = &g_array_index (c->cpu, MdlCpuEvent, i);
          const guint8 *rec = all->data + 16 + 16 * i;
          guint64 addr = 0;
          for (guint k = 0; k < 8; k++)
            addr |= (guint64) rec[8 + k] << (8 * k);
          assert_int_equal (e->kind, rec[0]);
          assert_int_equal (e->size, rec[2] | rec[3] << 8);
          assert_int_equal (e->addr, addr);
        }
      test_collector_free (c);
    }
}

/* Writes what @c holds as a binary trace into memory; returns the bytes. */
static GBytes *
write_bin (const TestCollector *c, guint batch, gboolean gzip)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, gzip);
  MdlSink sink = mdl_trace_writer_sink (w);
  GError *error = NULL;
  GBytes *bytes;

  if (!test_collector_replay (c, &sink, batch, &error) || !mdl_trace_writer_close (w, &error))
    fail_msg ("writing failed: %s", error->message);
  mdl_trace_writer_free (w);
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  g_object_unref (out);
  return bytes;
}

/* Ensure the writer produces exactly the documented bytes: the worked example of
 * docs/trace-format.md (header with one metadata line, a read, an op count, a strided warp load
 * found from explicit addresses, a sync, a site name and the end record). */
static void
test_bin_writer_matches_the_documented_example (void **state)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "example.bin", MDL_TRACE_BIN, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlCpuEvent cpu[2] = { { .kind = MDL_CPU_READ, .size = 8, .thread = 1, .site = 2, .addr = 0x7ff0 },
                         { .kind = MDL_CPU_OPS, .addr = 5 } };
  guint64 lanes[4] = { 0x1000, 0x1004, 0x1008, 0x100c };
  MdlWarpEvent warp = { .active = 0xf, .op = MDL_WARP_LOAD, .space = MDL_SPACE_GLOBAL, .width = 4,
                        .launch = 1, .block = 2, .warp = 3 };
  MdlEventBatch b1 = { .cpu = cpu, .n_cpu = 2 };
  MdlEventBatch b2 = { .warp = &warp, .n_warp = 1, .lane_addrs = lanes, .n_lane_addrs = 4 };
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  MdlMarker site = { .kind = MDL_MARK_SITE, .site = 2, .name = "loop" };
  g_autoptr (GByteArray) expect = assemble (
    "MAGIC 0100 0000 0f000000 \"producer=tests\" 0a 00"       /* 15 bytes of metadata, 1 of padding */
    " 00000800 01000200 f07f000000000000"                     /* read 8 bytes at 0x7ff0 */
    " 03000000 00000000 0500000000000000"                     /* 5 ops */
    " 10000101 0400 0000 01000000 02000000 03000000 00000000" /* warp load, strided */
    " 0f00000000000000 0000000000000000"                      /* active, taken */
    " 0010000000000000 0400000000000000 Z:8"                  /* base, stride, padding */
    " 22 Z:15"                                                /* sync */
    " 25000400 0200 Z:10 \"loop\" Z:12"                       /* site 2 is "loop" */
    " 7f Z:7 0500000000000000");                              /* end: 5 records */
  GError *error = NULL;
  (void) state;

  mdl_trace_writer_set_meta (w, "producer", "tests");
  assert_true (sink.batch (sink.data, &b1, &error));
  assert_true (sink.batch (sink.data, &b2, &error));
  assert_true (sink.marker (sink.data, &sync, &error));
  assert_true (sink.marker (sink.data, &site, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  assert_int_equal (mdl_trace_writer_n_records (w), 5);
  assert_int_equal (mdl_trace_writer_n_dropped (w), 0);
  mdl_trace_writer_free (w);
  {
    gsize len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
    const guint8 *data = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out));
    assert_int_equal (len, expect->len);
    for (gsize i = 0; i < len; i++)
      if (data[i] != expect->data[i])
        fail_msg ("byte %" G_GSIZE_FORMAT ": expected %02x, got %02x", i, expect->data[i], data[i]);
  }
  g_object_unref (out);
}

/* Ensure the metadata set on the writer comes back from the reader, with the default producer,
 * and that the counters report records and bytes exactly. */
static void
test_bin_meta_and_counters_round_trip (void **state)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlCpuEvent cpu[3] = { { .kind = MDL_CPU_READ, .size = 4, .addr = 1 },
                         { .kind = MDL_CPU_WRITE, .size = 4, .addr = 2 },
                         { .kind = MDL_CPU_OPS, .addr = 9 } };
  MdlEventBatch b = { .cpu = cpu, .n_cpu = 3 };
  GError *error = NULL;
  MdlTraceReader *r = NULL;
  GHashTable *meta;
  const guint8 *data;
  gsize len;
  (void) state;

  mdl_trace_writer_set_meta (w, "algorithm", "scan");
  mdl_trace_writer_set_meta (w, "params", "n=1024,seed=7");
  mdl_trace_writer_set_meta (w, "machine.page_bytes", "4096");
  mdl_trace_writer_set_meta (w, "seed", "42 with spaces = and équals");
  assert_true (sink.batch (sink.data, &b, &error));
  assert_true (mdl_trace_writer_close (w, &error));
  mdl_trace_writer_free (w);
  data = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out));
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));

  assert_null (read_bytes (data, len, MDL_TRACE_AUTO, NULL, 0, &r));
  meta = mdl_trace_reader_meta (r);
  assert_int_equal (g_hash_table_size (meta), 5);
  assert_string_equal (g_hash_table_lookup (meta, "producer"), "libmodels " MDL_VERSION_STRING);
  assert_string_equal (g_hash_table_lookup (meta, "algorithm"), "scan");
  assert_string_equal (g_hash_table_lookup (meta, "params"), "n=1024,seed=7");
  assert_string_equal (g_hash_table_lookup (meta, "machine.page_bytes"), "4096");
  assert_string_equal (g_hash_table_lookup (meta, "seed"), "42 with spaces = and équals");
  assert_int_equal (mdl_trace_reader_format (r), MDL_TRACE_BIN);
  assert_false (mdl_trace_reader_compressed (r));
  assert_int_equal (mdl_trace_reader_n_records (r), 3);
  assert_int_equal (mdl_trace_reader_n_bytes (r), len);
  assert_int_equal (mdl_trace_reader_n_skipped (r), 0);
  mdl_trace_reader_free (r);
  g_object_unref (out);
}

/* A random stream of every event kind the binary format carries, reads with each valid flag set,
 * with balanced phases. */
static void
random_stream (GRand *rand, guint n_items, TestCollector *c)
{
  static const char *const names[] = { "partition pass 1", "bitonic merge", "p", "ümlaut phase" };
  static const guint8 read_flags[] = { 0, MDL_CPU_FLAG_DEPENDENT,
                                       MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE };
  MdlSink sink = test_collector_sink (c);
  GError *error = NULL;
  GPtrArray *open = g_ptr_array_new ();   /* names of the open phases, innermost last */

  for (guint i = 0; i < n_items; i++)
    {
      guint what = (guint) g_rand_int_range (rand, 0, 100);
      if (what < 60)
        {
          MdlCpuEvent e[64];
          guint n = (guint) g_rand_int_range (rand, 1, 64);
          for (guint j = 0; j < n; j++)
            {
              guint kind = (guint) g_rand_int_range (rand, 0, 4);
              e[j] = (MdlCpuEvent) { .kind = (guint8) kind,
                                     .size = kind == MDL_CPU_OPS ? 0 : (guint16) g_rand_int_range (rand, 1, 65536),
                                     .thread = (guint16) g_rand_int (rand),
                                     .site = (guint16) g_rand_int (rand),
                                     .addr = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand) };
              if (kind == MDL_CPU_READ)
                e[j].flags = read_flags[g_rand_int_range (rand, 0, 3)];
            }
          assert_true (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = n }, &error));
        }
      else if (what < 85)
        {
          MdlWarpEvent w[8];
          guint64 lanes[8 * 64];
          guint n = (guint) g_rand_int_range (rand, 1, 8), n_lanes = 0;
          for (guint j = 0; j < n; j++)
            {
              guint op = (guint) g_rand_int_range (rand, 0, MDL_WARP_N_OPS);
              guint64 active = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
              guint form = (guint) g_rand_int_range (rand, 0, 3);   /* strided, regular, random */
              active >>= g_rand_int_range (rand, 0, 64);
              if (active == 0)
                active = 1;
              w[j] = (MdlWarpEvent) { .active = active, .op = (guint8) op,
                                      .launch = g_rand_int (rand), .block = g_rand_int (rand),
                                      .warp = (guint16) g_rand_int (rand),
                                      .site = (guint16) g_rand_int (rand) };
              if (op == MDL_WARP_BRANCH)
                w[j].taken = active & (((guint64) g_rand_int (rand) << 32) | g_rand_int (rand));
              if (op <= MDL_WARP_ATOMIC)
                {
                  guint64 base = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
                  gint64 stride = g_rand_int_range (rand, -256, 256);
                  w[j].space = (guint8) g_rand_int_range (rand, 1, MDL_SPACE_N);
                  w[j].width = (guint16) g_rand_int_range (rand, 1, 65);
                  if (form == 0)
                    {
                      w[j].flags = MDL_WARP_STRIDED;
                      w[j].base = base;
                      w[j].stride = stride;
                    }
                  else
                    {
                      w[j].first_addr = n_lanes;
                      for (guint64 m = active; m; m &= m - 1)
                        lanes[n_lanes++] = form == 1 ? base + (guint64) ((gint64) __builtin_ctzll (m) * stride)
                                                     : ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
                    }
                }
            }
          assert_true (sink.batch (sink.data, &(MdlEventBatch) { .warp = w, .n_warp = n,
                                                                  .lane_addrs = lanes,
                                                                  .n_lane_addrs = n_lanes },
                                   &error));
        }
      else
        {
          MdlMarker m = { .kind = (MdlMarkerKind) g_rand_int_range (rand, 0, MDL_MARK_N_KINDS) };
          const char *name = names[g_rand_int_range (rand, 0, G_N_ELEMENTS (names))];
          switch (m.kind)
            {
            case MDL_MARK_LAUNCH:
              m.launch = g_rand_int (rand);
              m.grid_blocks = g_rand_int (rand);
              m.block_threads = g_rand_int (rand);
              m.shared_bytes = g_rand_int (rand);
              m.warp_width = MDL_WARP_MAX_LANES;   /* the random warps use all 64 lanes */
              break;
            case MDL_MARK_BARRIER:
              m.launch = g_rand_int (rand);
              m.block = g_rand_int (rand);
              break;
            case MDL_MARK_SYNC:
              break;
            case MDL_MARK_PHASE_BEGIN:
              m.name = name;
              g_ptr_array_add (open, (gpointer) name);
              break;
            case MDL_MARK_PHASE_END:
              if (open->len == 0)
                continue;
              m.name = g_ptr_array_steal_index (open, open->len - 1);
              break;
            case MDL_MARK_SITE:
              m.site = (guint16) g_rand_int (rand);
              m.name = name;
              break;
            }
          assert_true (sink.marker (sink.data, &m, &error));
        }
    }
  while (open->len > 0)
    {
      MdlMarker m = { .kind = MDL_MARK_PHASE_END,
                      .name = g_ptr_array_steal_index (open, open->len - 1) };
      assert_true (sink.marker (sink.data, &m, &error));
    }
  g_ptr_array_unref (open);
}

/* Ensure @bytes, the binary trace of @orig, reads back as @orig, every record and byte counted,
 * from a stream or from a mapped file (@mapped), in pump calls of each of the @n @budgets
 * (records a call; 0: all in one call). */
static void
assert_reads_back (const TestCollector *orig, GBytes *bytes, gboolean mapped,
                   const guint64 *budgets, guint n, guint32 seed)
{
  const guint8 *data = g_bytes_get_data (bytes, NULL);
  gsize len = g_bytes_get_size (bytes);
  for (guint i = 0; i < n; i++)
    {
      TestCollector *back = test_collector_new ();
      MdlTraceReader *r = NULL;
      GError *error = mapped ? read_mapped (data, len, back, budgets[i], &r)
                             : read_bytes (data, len, MDL_TRACE_AUTO, back, budgets[i], &r);
      if (error)
        fail_msg ("seed %u, budget %" G_GUINT64_FORMAT ": %s", seed, budgets[i], error->message);
      test_collector_assert_equal (orig, back);
      assert_int_equal (mdl_trace_reader_n_records (r),
                        orig->cpu->len + orig->warp->len + orig->markers->len);
      assert_int_equal (mdl_trace_reader_n_bytes (r), len);
      mdl_trace_reader_free (r);
      test_collector_free (back);
    }
}

/* Ensure a trace of several MiB of mixed records, so that CPU runs, warp records and named markers
 * straddle the reader's 1 MiB chunk boundaries, reads back exactly, both in one pump call and in
 * pump calls of a few records each; and that the sink sees CPU and warp events in separate
 * batches. */
static void
test_bin_records_straddling_chunks_read_back_exactly (void **state)
{
  guint32 seed = test_seed (20240601);
  GRand *rand = g_rand_new_with_seed (seed);
  TestCollector *orig = test_collector_new ();
  GBytes *bytes;
  static const guint64 budgets[] = { 0, 1, 7, 100000 };
  (void) state;

  random_stream (rand, 40000, orig);
  bytes = write_bin (orig, 1000, FALSE);
  if (g_bytes_get_size (bytes) < 3 * MDL_TRACE_BUF_BYTES)
    fail_msg ("seed %u: the trace is only %" G_GSIZE_FORMAT " bytes", seed, g_bytes_get_size (bytes));
  assert_reads_back (orig, bytes, FALSE, budgets, G_N_ELEMENTS (budgets), seed);
  g_bytes_unref (bytes);
  test_collector_free (orig);
  g_rand_free (rand);
}

/* Ensure a trace read from a mapped file (reader-map.c: windows of 16 MiB) gives what the same
 * bytes give read from a stream: several windows of mixed records, so that CPU runs, warp records
 * and named markers straddle window boundaries, in one pump call and in calls of 7 records. */
static void
test_bin_mapped_file_reads_back_exactly_across_windows (void **state)
{
  guint32 seed = test_seed (20261128);
  GRand *rand = g_rand_new_with_seed (seed);
  TestCollector *orig = test_collector_new ();
  GBytes *bytes;
  static const guint64 budgets[] = { 0, 7 };
  (void) state;

  random_stream (rand, 400000, orig);
  bytes = write_bin (orig, 1000, FALSE);
  if (g_bytes_get_size (bytes) < ((gsize) 33 << 20))
    fail_msg ("seed %u: the trace is only %" G_GSIZE_FORMAT " bytes", seed, g_bytes_get_size (bytes));
  assert_reads_back (orig, bytes, TRUE, budgets, G_N_ELEMENTS (budgets), seed);
  g_bytes_unref (bytes);
  test_collector_free (orig);
  g_rand_free (rand);
}

/* Ensure a warp record that straddles the first window's end (byte 16 MiB) reads back from a
 * mapped file as from a stream, and that an error after it names the same record and byte. */
static void
test_bin_mapped_file_straddling_warp_and_error_position (void **state)
{
  const gsize n_before = ((gsize) 1 << 20) - 2, n_after = 1000, bad = 500;
  g_autoptr (GByteArray) all = assemble ("HDR");
  g_autoptr (GByteArray) warp = assemble ("10000100 0800 0000 00000000 00000000 00000000 00000000"
                                          " 0100000000000000 0000000000000000 0020000000000000");
  g_autofree char *end = g_strdup_printf ("END:%" G_GSIZE_FORMAT, n_before + 1 + n_after);
  g_autoptr (GByteArray) tail = assemble (end);
  g_autofree char *where = g_strdup_printf ("trace.bin: record %" G_GSIZE_FORMAT " (byte %"
                                            G_GSIZE_FORMAT "): write record has nonzero flags",
                                            n_before + 1 + bad + 1,
                                            16 + 16 * n_before + 48 + 16 * bad);
  guint8 rec[16] = { MDL_CPU_WRITE, 0, 4, 0, 0, 0, 0, 0, 0x40 };
  TestCollector *streamed = test_collector_new (), *mapped = test_collector_new ();
  GError *error;
  (void) state;

  for (gsize i = 0; i < n_before; i++)
    g_byte_array_append (all, rec, 16);
  assert_int_equal (all->len, ((gsize) 16 << 20) - 16);
  g_byte_array_append (all, warp->data, warp->len);
  for (gsize i = 0; i < n_after; i++)
    g_byte_array_append (all, rec, 16);
  g_byte_array_append (all, tail->data, tail->len);
  assert_null (read_bytes (all->data, all->len, MDL_TRACE_AUTO, streamed, 0, NULL));
  assert_null (read_mapped (all->data, all->len, mapped, 0, NULL));
  assert_int_equal (mapped->warp->len, 1);
  test_collector_assert_equal (streamed, mapped);

  all->data[16 + 16 * n_before + 48 + 16 * bad + 1] = 0x01;
  error = read_bytes (all->data, all->len, MDL_TRACE_AUTO, NULL, 0, NULL);
  assert_mdl_error (error, MDL_ERROR_FORMAT, where);
  error = read_mapped (all->data, all->len, NULL, 0, NULL);
  assert_mdl_error (error, MDL_ERROR_FORMAT, where);
  test_collector_free (streamed);
  test_collector_free (mapped);
}

/* Ensure a writer rejects events its reader would reject (so it never writes an unreadable
 * trace), naming the record, and refuses everything after the first failure. */
static void
test_bin_writer_rejects_invalid_events (void **state)
{
  static const struct {
    const char *name;
    MdlCpuEvent cpu;
    const char *needle;
  } rows[] = {
    { "read of size 0", { .kind = MDL_CPU_READ }, "mem.bin: cannot write record 2: read record has size 0" },
    { "unknown kind", { .kind = 7, .size = 1 }, "cannot write record 2: unknown CPU record kind 7" },
    { "flags", { .kind = MDL_CPU_WRITE, .flags = 2, .size = 1 }, "write record has nonzero flags 0x02" },
    { "ops with size", { .kind = MDL_CPU_OPS, .size = 1 }, "ops record has size 1" },
    { "branch with size", { .kind = MDL_CPU_BRANCH, .size = 1 }, "branch record has size 1" },
    { "branch with fetch flag", { .kind = MDL_CPU_BRANCH, .flags = MDL_CPU_FLAG_FETCH },
      "branch record has flags 0x01" },
    { "read with fetch flag", { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_FETCH, .size = 1 },
      "read record has flags 0x01 (valid: the dependent flag 0x04, alone or with the chase flag "
      "0x08)" },
    { "chase without dependent", { .kind = MDL_CPU_READ, .flags = MDL_CPU_FLAG_CHASE, .size = 1 },
      "read record has flags 0x08 (valid: the dependent flag 0x04, alone or with the chase flag "
      "0x08)" },
    { "write flagged dependent", { .kind = MDL_CPU_WRITE, .flags = MDL_CPU_FLAG_DEPENDENT,
      .size = 1 }, "write record has nonzero flags 0x04" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GOutputStream *out = g_memory_output_stream_new_resizable ();
      MdlTraceWriter *w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, FALSE);
      MdlSink sink = mdl_trace_writer_sink (w);
      MdlCpuEvent e[2] = { { .kind = MDL_CPU_READ, .size = 1 }, rows[i].cpu };
      GError *error = NULL;
      if (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = 2 }, &error))
        fail_msg ("%s: accepted", rows[i].name);
      if (strstr (error->message, rows[i].needle) == NULL)
        fail_msg ("%s: expected \"%s\", got %s", rows[i].name, rows[i].needle, error->message);
      g_clear_error (&error);
      assert_false (sink.batch (sink.data, &(MdlEventBatch) { .cpu = e, .n_cpu = 1 }, &error));
      assert_error_clear (error, MDL_ERROR_IO, "mem.bin: the trace is unusable after an earlier error");
      assert_false (mdl_trace_writer_close (w, &error));
      g_clear_error (&error);
      mdl_trace_writer_free (w);
      g_object_unref (out);
    }
  {
    GOutputStream *out = g_memory_output_stream_new_resizable ();
    MdlTraceWriter *w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, FALSE);
    MdlSink sink = mdl_trace_writer_sink (w);
    MdlMarker begin = { .kind = MDL_MARK_PHASE_BEGIN, .name = "a" };
    MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "b" };
    MdlWarpEvent warp = { .active = 0, .op = MDL_WARP_ALU };
    GError *error = NULL;
    assert_false (sink.batch (sink.data, &(MdlEventBatch) { .warp = &warp, .n_warp = 1 }, &error));
    assert_error_clear (error, MDL_ERROR_FORMAT, "cannot write record 1: warp event (launch 0, block 0, warp 0, alu): empty active mask");
    mdl_trace_writer_free (w);
    g_object_unref (out);
    out = g_memory_output_stream_new_resizable ();
    w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, FALSE);
    sink = mdl_trace_writer_sink (w);
    assert_true (sink.marker (sink.data, &begin, &error));
    assert_false (sink.marker (sink.data, &end, &error));
    assert_error_clear (error, MDL_ERROR_FORMAT, "cannot write record 2: phase end \"b\" does not match the open phase \"a\"");
    mdl_trace_writer_free (w);
    g_object_unref (out);
    out = g_memory_output_stream_new_resizable ();
    w = mdl_trace_writer_new (out, "mem.bin", MDL_TRACE_BIN, FALSE);
    sink = mdl_trace_writer_sink (w);
    assert_true (sink.marker (sink.data, &begin, &error));
    assert_false (mdl_trace_writer_close (w, &error));
    assert_error_clear (error, MDL_ERROR_FORMAT, "mem.bin: cannot end the trace: the trace ends inside phase \"a\"");
    mdl_trace_writer_free (w);
    g_object_unref (out);
  }
}

/* Ensure explicit lane addresses are stored in the compact strided form exactly when they are
 * base + lane * stride and three lanes or more are active, and read back the same addresses. */
static void
test_bin_writer_compacts_strided_addresses (void **state)
{
  static const struct {
    const char *name;
    guint64 active;
    guint64 addrs[4];
    gsize expect_bytes;   /* of the warp record */
  } rows[] = {
    { "four lanes, stride 4", 0xf, { 0x1000, 0x1004, 0x1008, 0x100c }, 64 },
    { "gaps in the mask, stride -8", 0x8d, { 800, 784, 776, 744 }, 64 },
    { "not strided", 0xf, { 1, 2, 4, 8 }, 80 },
    { "two lanes stay explicit", 0x3, { 10, 20 }, 64 },
    { "one lane", 0x4, { 99 }, 48 },
    { "stride not a whole number", 0x55, { 0, 3, 6, 9 }, 80 },
    { "wrapping addresses", 0xf, { G_MAXUINT64 - 1, 0, 2, 4 }, 64 },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      TestCollector *orig = test_collector_new (), *back = test_collector_new ();
      MdlSink sink = test_collector_sink (orig);
      MdlWarpEvent warp = { .active = rows[i].active, .op = MDL_WARP_STORE,
                            .space = MDL_SPACE_SHARED, .width = 8 };
      GBytes *bytes;
      GError *error = NULL;
      assert_true (sink.batch (sink.data, &(MdlEventBatch) { .warp = &warp, .n_warp = 1,
                                                              .lane_addrs = rows[i].addrs,
                                                              .n_lane_addrs = 4 }, &error));
      bytes = write_bin (orig, 1, FALSE);
      /* header (16 + "producer=libmodels x.y.z\n" padded) + record + end */
      {
        gsize meta = mdl_round16 (16 + strlen ("producer=libmodels " MDL_VERSION_STRING "\n"));
        if (g_bytes_get_size (bytes) != meta + rows[i].expect_bytes + 16)
          fail_msg ("%s: record of %" G_GSIZE_FORMAT " bytes, expected %" G_GSIZE_FORMAT,
                    rows[i].name, g_bytes_get_size (bytes) - meta - 16, rows[i].expect_bytes);
      }
      error = read_bytes (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), MDL_TRACE_BIN,
                          back, 0, NULL);
      if (error)
        fail_msg ("%s: %s", rows[i].name, error->message);
      test_collector_assert_equal (orig, back);
      g_bytes_unref (bytes);
      test_collector_free (orig);
      test_collector_free (back);
    }
}

/* Ensure a warp width given by a launch marker is what later warp events of that launch are
 * checked against, while other launches keep the 64-lane default. */
static void
test_bin_launch_width_applies_to_its_launch_only (void **state)
{
  g_autoptr (GByteArray) ok = assemble (
    "HDR 20000000 05000000 01000000 20000000 00000000 20000000 Z:8"   /* launch 5: width 32 */
    " 10030000 00000000 06000000 00000000 Z:8 0000000001000000 Z:8 Z:8" /* launch 6, lane 32 */
    " 10030000 00000000 05000000 00000000 Z:8 0000008000000000 Z:8 Z:8" /* launch 5, lane 31 */
    " END:3");
  g_autoptr (GByteArray) bad = assemble (
    "HDR 20000000 05000000 01000000 20000000 00000000 20000000 Z:8"
    " 10030000 00000000 06000000 00000000 Z:8 0000000001000000 Z:8 Z:8"
    " 10030000 00000000 05000000 00000000 Z:8 0000000001000000 Z:8 Z:8" /* launch 5, lane 32 */
    " END:3");
  (void) state;
  assert_null (read_bytes (ok->data, ok->len, MDL_TRACE_BIN, NULL, 0, NULL));
  assert_mdl_error (read_bytes (bad->data, bad->len, MDL_TRACE_BIN, NULL, 0, NULL),
                    MDL_ERROR_FORMAT, "record 3 (byte 96): warp event (launch 5, block 0, warp 0, "
                    "alu): active lanes beyond the warp width");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_bin_rejects_malformed_input_naming_the_place),
    cmocka_unit_test (test_bin_rejects_malformed_input_one_record_at_a_time),
    cmocka_unit_test (test_bin_error_position_is_exact_after_many_chunks),
    cmocka_unit_test (test_bin_cpu_run_check_agrees_with_the_record_rules),
    cmocka_unit_test (test_bin_writer_matches_the_documented_example),
    cmocka_unit_test (test_bin_meta_and_counters_round_trip),
    cmocka_unit_test (test_bin_records_straddling_chunks_read_back_exactly),
    cmocka_unit_test (test_bin_mapped_file_reads_back_exactly_across_windows),
    cmocka_unit_test (test_bin_mapped_file_straddling_warp_and_error_position),
    cmocka_unit_test (test_bin_writer_rejects_invalid_events),
    cmocka_unit_test (test_bin_writer_compacts_strided_addresses),
    cmocka_unit_test (test_bin_launch_width_applies_to_its_launch_only),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
