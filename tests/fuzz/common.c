/* Shared part of the libFuzzer targets (common.h). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gboolean
drop_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  (void) data, (void) batch, (void) error;
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  return TRUE;
}

const MdlSink fuzz_drop = { drop_batch, drop_marker, NULL };

void
fuzz_check_error (const GError *error, const char *what)
{
  if (error && (error->domain != MDL_ERROR || error->message == NULL || *error->message == '\0'))
    {
      fprintf (stderr, "%s: an error outside MDL_ERROR or without a message: %s\n", what,
               error->message ? error->message : "(null)");
      abort ();
    }
}

/* The log: every field that a reader sets, in a fixed order, so that two logs are equal exactly
 * when the streams are. Warp addresses are written per active lane, so a strided event and the
 * same event with explicit addresses log the same. */
static void
log_bytes (GByteArray *log, const void *p, gsize n)
{
  g_byte_array_append (log, p, (guint) n);
}

static gboolean
log_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  GByteArray *log = data;
  (void) error;
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      const MdlCpuEvent *e = &batch->cpu[i];
      guint64 f[6] = { 'c', e->kind, e->flags, e->size, ((guint64) e->thread << 16) | e->site,
                       e->addr };
      log_bytes (log, f, sizeof f);
    }
  for (gsize i = 0; i < batch->n_warp; i++)
    {
      const MdlWarpEvent *e = &batch->warp[i];
      guint64 f[11] = { 'w', e->active, e->taken, e->launch, e->block, e->warp, e->width, e->site,
                        e->op, e->space, e->flags & MDL_WARP_MACHINE };
      log_bytes (log, f, sizeof f);
      if (mdl_warp_is_memory (e))
        {
          guint64 addrs[MDL_WARP_MAX_LANES];
          mdl_warp_addrs (batch, e, addrs);
          for (guint64 m = e->active; m; m &= m - 1)
            log_bytes (log, &addrs[__builtin_ctzll (m)], sizeof addrs[0]);
        }
    }
  return TRUE;
}

static gboolean
log_marker (void *data, const MdlMarker *m, GError **error)
{
  GByteArray *log = data;
  guint64 f[9] = { 'm', m->kind, m->launch, m->block, m->grid_blocks, m->block_threads,
                   m->shared_bytes, m->warp_width, m->site };
  (void) error;
  log_bytes (log, f, sizeof f);
  if (m->name)
    log_bytes (log, m->name, strlen (m->name) + 1);
  return TRUE;
}

MdlSink
fuzz_log_sink (GByteArray *log)
{
  return (MdlSink) { log_batch, log_marker, log };
}

GBytes *
fuzz_gzip (const void *data, gsize size)
{
  GZlibCompressor *z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
  GOutputStream *mem = g_memory_output_stream_new_resizable ();
  GOutputStream *out = g_converter_output_stream_new (mem, G_CONVERTER (z));
  GError *error = NULL;
  GBytes *bytes;

  if (!g_output_stream_write_all (out, data, size, NULL, NULL, &error)
      || !g_output_stream_close (out, NULL, &error))
    {
      fprintf (stderr, "gzip in memory failed: %s\n", error->message);
      abort ();
    }
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (mem));
  g_object_unref (out);
  g_object_unref (mem);
  g_object_unref (z);
  return bytes;
}

gint64
fuzz_read (const void *data, gsize size, MdlTraceFormat format, guint64 budget, gboolean fetches,
           const MdlSink *sink)
{
  GInputStream *in = g_memory_input_stream_new_from_data (data, (gssize) size, NULL);
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_new (in, "fuzz", format, &error);
  gboolean done = FALSE;
  gint64 n = -1;

  if (r)
    mdl_trace_reader_set_fetches (r, fetches);
  while (r && !done && mdl_trace_reader_pump (r, sink, budget, &done, &error))
    ;
  fuzz_check_error (error, "reading a trace");
  g_clear_error (&error);
  if (done)
    n = (gint64) mdl_trace_reader_n_records (r);
  mdl_trace_reader_free (r);
  g_object_unref (in);
  return n;
}

typedef struct {
  GArray *records;
  gboolean keep_ops, split_modifies;
} Keep;

static gboolean
keep_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Keep *k = data;
  (void) error;
  for (gsize i = 0; i < batch->n_cpu; i++)
    {
      MdlCpuEvent e = batch->cpu[i];
      if (e.kind == MDL_CPU_OPS && !k->keep_ops)
        continue;
      if (e.kind == MDL_CPU_MODIFY && k->split_modifies)
        {
          e.kind = MDL_CPU_READ;
          g_array_append_val (k->records, e);
          e.kind = MDL_CPU_WRITE;
        }
      g_array_append_val (k->records, e);
    }
  return TRUE;
}

static GBytes *
write_records (GArray *records, MdlTraceFormat format)
{
  GOutputStream *out = g_memory_output_stream_new_resizable ();
  MdlTraceWriter *w = mdl_trace_writer_new (out, "fuzz-out", format, FALSE);
  MdlSink sink = mdl_trace_writer_sink (w);
  MdlEventBatch batch = { .cpu = (const MdlCpuEvent *) (void *) records->data,
                          .n_cpu = records->len };
  GError *error = NULL;
  GBytes *bytes;

  if (!sink.batch (sink.data, &batch, &error) || !mdl_trace_writer_close (w, &error))
    {
      fprintf (stderr, "accepted records could not be written: %s\n", error->message);
      abort ();
    }
  mdl_trace_writer_free (w);
  bytes = g_memory_output_stream_steal_as_bytes (G_MEMORY_OUTPUT_STREAM (out));
  g_object_unref (out);
  return bytes;
}

void
fuzz_text_round_trip (const void *data, gsize size, MdlTraceFormat format, gboolean fetches,
                      gboolean keep_ops, gboolean split_modifies)
{
  Keep first = { g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent)), keep_ops, FALSE };
  Keep second = { g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent)), keep_ops, FALSE };
  MdlSink to_first = { keep_batch, drop_marker, &first };
  MdlSink to_second = { keep_batch, drop_marker, &second };

  if (fuzz_read (data, size, format, 0, fetches, &to_first) >= 0)
    {
      /* Written as they came; compared after splitting, as the writer does. */
      GBytes *text = write_records (first.records, format);
      GArray *want = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
      Keep split = { want, TRUE, split_modifies };
      MdlEventBatch all = { .cpu = (const MdlCpuEvent *) (void *) first.records->data,
                            .n_cpu = first.records->len };
      keep_batch (&split, &all, NULL);
      if (fuzz_read (g_bytes_get_data (text, NULL), g_bytes_get_size (text), format, 0, fetches,
                     &to_second) < 0
          || second.records->len != want->len
          || (want->len > 0
              && memcmp (want->data, second.records->data, want->len * sizeof (MdlCpuEvent)) != 0))
        {
          fprintf (stderr, "accepted records did not survive a %s round trip\n",
                   mdl_trace_format_name (format));
          abort ();
        }
      g_array_unref (want);
      g_bytes_unref (text);
    }
  g_array_unref (first.records);
  g_array_unref (second.records);
}

/* A small stream that reaches every engine's paths: CPU accesses of every kind at the edges of the
 * address space, a launch, strided and explicit warp accesses in every space, a branch, barriers,
 * a sync and a phase around it all. */
static gboolean
drive (MdlEngine *engine, GError **error)
{
  static const MdlCpuEvent cpu[] = {
    { MDL_CPU_READ, 0, 8, 0, 1, 0 },
    { MDL_CPU_WRITE, 0, 4, 1, 1, 4096 },
    { MDL_CPU_MODIFY, 0, 64, 0, 2, 4095 },
    { MDL_CPU_OPS, 0, 0, 0, 0, 1000 },
    { MDL_CPU_READ, MDL_CPU_FLAG_FETCH, 1, 0, 0, G_GUINT64_CONSTANT (0x7fffffffffff) },
    { MDL_CPU_READ, 0, 8, 0, 3, G_MAXUINT64 - 7 },
    { MDL_CPU_WRITE, 0, 65535, 0, 3, G_MAXUINT64 - 100 },
    { MDL_CPU_READ, 0, 8, 0, 1, 0 },
    { MDL_CPU_READ, 0, 2, 0, 1, G_GUINT64_CONSTANT (1) << 40 },
  };
  static const guint64 lanes[4] = { 0, 4, 132, G_GUINT64_CONSTANT (1) << 35 };
  static const MdlWarpEvent warp[] = {
    { .active = G_MAXUINT32, .base = 0, .stride = 4, .launch = 1, .width = 4, .op = MDL_WARP_LOAD,
      .space = MDL_SPACE_GLOBAL, .flags = MDL_WARP_STRIDED },
    { .active = 0xf, .launch = 1, .block = 1, .warp = 1, .width = 8, .op = MDL_WARP_STORE,
      .space = MDL_SPACE_GLOBAL },
    { .active = 0x0000ffff, .base = 4, .stride = 128, .launch = 1, .width = 4,
      .op = MDL_WARP_ATOMIC, .space = MDL_SPACE_SHARED, .flags = MDL_WARP_STRIDED },
    { .active = G_MAXUINT32, .base = 0, .stride = 0, .launch = 1, .width = 16,
      .op = MDL_WARP_LOAD, .space = MDL_SPACE_LOCAL, .flags = MDL_WARP_STRIDED },
    { .active = G_MAXUINT32, .taken = 0x0f0f0f0f, .launch = 1, .op = MDL_WARP_BRANCH },
    { .active = 0xff, .launch = 1, .op = MDL_WARP_ALU, .flags = MDL_WARP_MACHINE },
    { .active = G_MAXUINT32, .launch = 1, .block = 1, .op = MDL_WARP_BARRIER },
  };
  MdlEventBatch cpu_batch = { .cpu = cpu, .n_cpu = G_N_ELEMENTS (cpu) };
  MdlEventBatch warp_batch = { .warp = warp, .n_warp = G_N_ELEMENTS (warp), .lane_addrs = lanes,
                               .n_lane_addrs = G_N_ELEMENTS (lanes) };
  MdlMarker begin = { .kind = MDL_MARK_PHASE_BEGIN, .name = "fuzz" };
  MdlMarker launch = { .kind = MDL_MARK_LAUNCH, .launch = 1, .grid_blocks = 2,
                       .block_threads = 64, .shared_bytes = 1024, .warp_width = 32 };
  MdlMarker barrier = { .kind = MDL_MARK_BARRIER, .launch = 1, .block = 1 };
  MdlMarker sync = { .kind = MDL_MARK_SYNC };
  MdlMarker end = { .kind = MDL_MARK_PHASE_END, .name = "fuzz" };

  return mdl_engine_marker (engine, &begin, error)
         && mdl_engine_consume (engine, &cpu_batch, error)
         && mdl_engine_marker (engine, &launch, error)
         && mdl_engine_consume (engine, &warp_batch, error)
         && mdl_engine_marker (engine, &barrier, error)
         && mdl_engine_consume (engine, &cpu_batch, error)
         && mdl_engine_marker (engine, &sync, error)
         && mdl_engine_marker (engine, &end, error);
}

void
fuzz_engine (const char *spec, const char *machine)
{
  GError *error = NULL;
  MdlEngine *engine;

  if (g_getenv ("MODELS_MEMORY_BUDGET") == NULL)
    g_setenv ("MODELS_MEMORY_BUDGET", FUZZ_MEMORY_BUDGET, TRUE);
  engine = mdl_engine_new_on (spec, machine, &error);

  fuzz_check_error (error, spec);
  g_clear_error (&error);
  if (engine == NULL)
    return;
  if (!drive (engine, &error))
    {
      fuzz_check_error (error, spec);
      g_clear_error (&error);
    }
  mdl_report_free (mdl_engine_report (engine));
  mdl_engine_reset (engine);
  mdl_report_free (mdl_engine_report (engine));
  mdl_engine_free (engine);
}
