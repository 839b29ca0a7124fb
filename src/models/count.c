/* The `count` engine: what the stream holds, by kind, size, space and marker. It proves the path
 * from any source to a report and is the dispatch benchmark's engine, so its loop does a few
 * vector adds per eight records and nothing else. Access sizes are bucketed as the powers of two
 * 1..64 and "other" (sizes such as 3, 10 or 512 from x87, string and fxsave instructions). */
#include <models/error.h>

#include "core/clones.h"
#include "core/lanes.h"
#include "models/engines.h"
#include "models/gpu/gpu.h"

#define N_SIZE_BUCKETS 8 /* 1, 2, 4, 8, 16, 32, 64, other */
#define N_POW2_SIZES (N_SIZE_BUCKETS - 1)

/* What the report needs of the CPU records, and no more: fetches, read bytes and the "other" size
 * bucket are differences of these. */
typedef struct {
  guint64 n_cpu;                      /* CPU records, fetches included */
  guint64 kinds[MDL_CPU_N_KINDS];     /* records of each kind without the fetch flag */
  guint64 access_bytes;               /* bytes of the accesses without the fetch flag */
  guint64 write_bytes;                /* of them, the writes' */
  guint64 modify_bytes;               /* and the modifies' */
  guint64 pow2[N_POW2_SIZES];         /* accesses without the fetch flag of 1, 2, 4 .. 64 bytes */
  guint64 ops;                        /* the op records' amounts */
  guint64 warp[MDL_WARP_N_OPS][MDL_SPACE_N];
  guint64 lanes;                      /* active lanes summed over warp instructions */
  guint64 markers[MDL_MARK_N_KINDS];
} Count;

static const MdlParamSpec count_params[] = { { .key = NULL } };

static gboolean
count_init (void *state, const MdlParams *params, GError **error)
{
  (void) state, (void) params, (void) error;
  return TRUE;
}

/* The CPU records are tallied eight at a time in vectors of 32-bit lanes, one lane a record, with
 * no branch and no store per record: the heads (kind | flags << 8 | size << 16) of eight records
 * gathered into one vector (core/lanes.h); each record's kind adds one to its field of a word
 * (one shift by the kind, a fetch shifting into an unused field), each size bucket is a compare
 * and an add. Vector extensions, built twice (MDL_CLONES): the x86-64 baseline does each
 * eight-lane operation as two SSE2 ones, the AVX2 clone as one. docs/trace-format.md, "branch
 * s11-trace-cache", has the instructions and the time per record against the scalar loop. */
/* The kinds' fields: 4 bits each, eight of them (field 7 takes the fetches), emptied into 32-bit
 * lanes before they can overflow. */
#define KIND_FIELD_BITS 4
#define KIND_FIELD_STEPS 15
/* A lane's byte sum grows by at most 65535 a step: flushed to the 64-bit counters before 2^32. */
#define STEPS_MAX (KIND_FIELD_STEPS * 2048)

typedef struct {
  MdlLanes kind_fields;               /* per lane, a KIND_FIELD_BITS field for each kind */
  MdlLanes kinds[MDL_CPU_N_KINDS], pow2[N_POW2_SIZES], access_bytes, write_bytes, modify_bytes;
  MdlQuads ops;                       /* the addresses (odd quads) of op records */
} Tally;

/* Tallies the eight records at @e. */
static inline __attribute__ ((always_inline)) void
tally_step (Tally *t, const MdlCpuEvent *e)
{
  const MdlLanes one = { 1, 1, 1, 1, 1, 1, 1, 1 };
  MdlLanes v[4], heads, kind_fetch, size, access_size, is_ops;
  mdl_lanes_load_records (e, v);
  mdl_lanes_heads (v, &heads);
  /* The kind with the fetch flag above it; a fetch's field is then 7, which no kind has. */
  kind_fetch = heads & (0xff | MDL_CPU_FLAG_FETCH << 8);
  t->kind_fields += one << ((kind_fetch | (MdlLanes) ((MdlSignedLanes) kind_fetch > 7)) & 7)
                            * KIND_FIELD_BITS;
  size = heads >> 16;
  access_size = size & (MdlLanes) ((MdlSignedLanes) kind_fetch < MDL_CPU_OPS);
  t->access_bytes += access_size;
  t->write_bytes += size & (MdlLanes) (kind_fetch == MDL_CPU_WRITE);
  t->modify_bytes += size & (MdlLanes) (kind_fetch == MDL_CPU_MODIFY);
#pragma GCC unroll 7
  for (guint b = 0; b < N_POW2_SIZES; b++)
    t->pow2[b] -= (MdlLanes) (access_size == 1u << b);
  /* Op amounts are 64-bit: each record's test spread over its four dwords, its address kept
   * (dword i of the heads' halves is v[i]'s records: core/lanes.h). */
  is_ops = (MdlLanes) ((heads & 0xff) == MDL_CPU_OPS);
  t->ops += (MdlQuads) (v[0] & __builtin_shufflevector (is_ops, is_ops, 0, 0, 0, 0, 4, 4, 4, 4));
  t->ops += (MdlQuads) (v[1] & __builtin_shufflevector (is_ops, is_ops, 1, 1, 1, 1, 5, 5, 5, 5));
  t->ops += (MdlQuads) (v[2] & __builtin_shufflevector (is_ops, is_ops, 2, 2, 2, 2, 6, 6, 6, 6));
  t->ops += (MdlQuads) (v[3] & __builtin_shufflevector (is_ops, is_ops, 3, 3, 3, 3, 7, 7, 7, 7));
}

static inline void
tally_empty_fields (Tally *t)
{
  for (guint k = 0; k < MDL_CPU_N_KINDS; k++)
    t->kinds[k] += t->kind_fields >> KIND_FIELD_BITS * k & ((1u << KIND_FIELD_BITS) - 1);
  t->kind_fields = (MdlLanes) { 0 };
}

static void
tally_flush (Count *c, const Tally *t)
{
  for (guint l = 0; l < MDL_LANES; l++)
    {
      for (guint k = 0; k < MDL_CPU_N_KINDS; k++)
        c->kinds[k] += t->kinds[k][l];
      for (guint b = 0; b < N_POW2_SIZES; b++)
        c->pow2[b] += t->pow2[b][l];
      c->access_bytes += t->access_bytes[l];
      c->write_bytes += t->write_bytes[l];
      c->modify_bytes += t->modify_bytes[l];
    }
  c->ops += t->ops[1] + t->ops[3];
}

MDL_CLONES static void
count_cpu (Count *c, const MdlCpuEvent *e, gsize n)
{
  /* The last records, fewer than eight, padded with records that match no tally: kind 0xff,
   * size 0, the fetch flag (fetches are counted as the records less those of a kind). */
  MdlCpuEvent tail[MDL_LANES];
  gsize whole = n / MDL_LANES * MDL_LANES;
  c->n_cpu += n;
  for (gsize done = 0; done < n;)
    {
      Tally t = { 0 };
      gsize stop = MIN (whole, done + (gsize) STEPS_MAX * MDL_LANES);
      while (done < stop)
        {
          gsize fields_stop = MIN (stop, done + (gsize) KIND_FIELD_STEPS * MDL_LANES);
          for (; done < fields_stop; done += MDL_LANES)
            tally_step (&t, e + done);
          tally_empty_fields (&t);
        }
      if (done == whole && whole < n)
        {
          for (gsize i = 0; i < MDL_LANES; i++)
            tail[i] = whole + i < n ? e[whole + i]
                                    : (MdlCpuEvent) { .kind = 0xff, .flags = MDL_CPU_FLAG_FETCH };
          tally_step (&t, tail);
          tally_empty_fields (&t);
          done = n;
        }
      tally_flush (c, &t);
    }
}

static gboolean
count_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Count *c = state;
  (void) error;
  if (b->n_cpu > 0)
    count_cpu (c, b->cpu, b->n_cpu);
  for (gsize i = 0; i < b->n_warp; i++)
    {
      c->warp[b->warp[i].op][b->warp[i].space]++;
      c->lanes += gpu_popcount (b->warp[i].active);
    }
  return TRUE;
}

static gboolean
count_marker (void *state, const MdlMarker *m, GError **error)
{
  Count *c = state;
  (void) error;
  c->markers[m->kind]++;
  return TRUE;
}

static void
count_report (void *state, MdlReport *out)
{
  static const char *const size_names[N_SIZE_BUCKETS] = {
    "size_1", "size_2", "size_4", "size_8", "size_16", "size_32", "size_64", "size_other" };
  Count *c = state;
  guint64 warp_total = 0, sizes[N_SIZE_BUCKETS], bytes[MDL_CPU_N_KINDS] = { 0 };
  guint64 *kinds = c->kinds, fetches = c->n_cpu, accesses = 0;

  for (guint k = 0; k < MDL_CPU_N_KINDS; k++)
    fetches -= c->kinds[k];
  for (guint k = 0; k < MDL_CPU_OPS; k++)
    accesses += c->kinds[k];
  bytes[MDL_CPU_READ] = c->access_bytes - c->write_bytes - c->modify_bytes;
  bytes[MDL_CPU_WRITE] = c->write_bytes;
  bytes[MDL_CPU_MODIFY] = c->modify_bytes;
  bytes[MDL_CPU_OPS] = c->ops;
  sizes[N_SIZE_BUCKETS - 1] = accesses;
  for (guint b = 0; b < N_POW2_SIZES; b++)
    {
      sizes[b] = c->pow2[b];
      sizes[N_SIZE_BUCKETS - 1] -= c->pow2[b];
    }

  mdl_report_add_count (out, "cpu_reads", "count", "CPU read records", NULL, kinds[MDL_CPU_READ]);
  mdl_report_add_count (out, "cpu_writes", "count", "CPU write records", NULL, kinds[MDL_CPU_WRITE]);
  mdl_report_add_count (out, "cpu_modifies", "count", "CPU read-modify-write records", NULL,
                        kinds[MDL_CPU_MODIFY]);
  mdl_report_add_count (out, "cpu_fetches", "count",
                        "instruction fetches (kept by a reader asked for them; not data reads)", NULL,
                        fetches);
  mdl_report_add_count (out, "bytes_read", "bytes", "bytes read (modifies included)", NULL,
                        bytes[MDL_CPU_READ] + bytes[MDL_CPU_MODIFY]);
  mdl_report_add_count (out, "bytes_written", "bytes", "bytes written (modifies included)", NULL,
                        bytes[MDL_CPU_WRITE] + bytes[MDL_CPU_MODIFY]);
  mdl_report_add_count (out, "ram_ops", "operations", "RAM operations (op markers, instructions)",
                        NULL, bytes[MDL_CPU_OPS]);
  mdl_report_add_count (out, "cpu_branches", "count", "CPU branch records (data-dependent branches)",
                        NULL, kinds[MDL_CPU_BRANCH]);
  for (guint s = 0; s < N_SIZE_BUCKETS; s++)
    mdl_report_add_count (out, size_names[s], "count",
                          s + 1 < N_SIZE_BUCKETS ? "CPU accesses of this many bytes"
                                                 : "CPU accesses of other sizes", NULL, sizes[s]);
  for (guint op = 0; op < MDL_WARP_N_OPS; op++)
    for (guint sp = 0; sp < MDL_SPACE_N; sp++)
      {
        gboolean memory = op <= MDL_WARP_ATOMIC;
        char name[64] = "";
        if (memory == (sp == MDL_SPACE_NONE))
          continue;
        /* A phase snapshot keeps no names: no string building per marker (gpu-quicksort sends
         * one every 25 warp instructions, and printf was a seventh of its count run). */
        if (mdl_report_keeps_names (out))
          mdl_gpu_concat (name, sizeof name, "warp_", mdl_warp_op_name (op), memory ? "_" : "",
                          memory ? mdl_space_name (sp) : "", NULL);
        mdl_report_add_count (out, name, "count", "warp instructions of this op and space", NULL,
                              c->warp[op][sp]);
        warp_total += c->warp[op][sp];
      }
  mdl_report_add_count (out, "warp_insts", "count", "warp instructions", NULL, warp_total);
  mdl_report_add_count (out, "warp_lanes", "count", "active lanes summed over warp instructions",
                        NULL, c->lanes);
  for (guint k = 0; k < MDL_MARK_N_KINDS; k++)
    {
      char name[64] = "";
      if (mdl_report_keeps_names (out))
        {
          mdl_gpu_concat (name, sizeof name, "markers_", mdl_marker_kind_name (k), NULL);
          g_strdelimit (name, "-", '_');
        }
      mdl_report_add_count (out, name, "count", "markers of this kind", NULL, c->markers[k]);
    }
}

const MdlEngineClass mdl_count_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "count",
  .summary = "events by kind, size, op, space and marker",
  .params = count_params,
  .state_size = sizeof (Count),
  .init = count_init,
  .consume = count_consume,
  .marker = count_marker,
  .report = count_report,
};
