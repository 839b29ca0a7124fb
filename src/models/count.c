/* The `count` engine: what the stream holds, by kind, size, space and marker. It proves the path
 * from any source to a report and is the dispatch benchmark's engine, so its loop does a few
 * increments per event and nothing else. Access sizes are bucketed as the powers of two 1..64
 * and "other" (sizes such as 3, 10 or 512 from x87, string and fxsave instructions). */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

#define N_SIZE_BUCKETS 8 /* 1, 2, 4, 8, 16, 32, 64, other */

typedef struct {
  /* CPU records by fetch flag, kind and size bucket (an op record's size, 0, falls in "other"):
   * the report adds up the kinds, the fetches and the access sizes from it. */
  guint64 records[2][MDL_CPU_N_KINDS][N_SIZE_BUCKETS];
  guint64 bytes[MDL_CPU_N_KINDS];     /* bytes by kind that the buckets do not give: those of
                                         non-fetch accesses of other sizes (ops: the op count) */
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

/* Nonzero for an access size outside the power-of-two buckets 1..64 (not for 0, an op record's):
 * a bit of a non-power of two, or one of 128 and up. */
static inline guint
odd_size (guint size)
{
  return (size & (size - 1)) | (size >> 7);
}

static gboolean
count_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Count *c = state;
  (void) error;
  /* Without a branch on the record, whose kind and size come in no order a predictor can learn:
   * one counter per record says its kind, size and fetch flag (size | 128 has the trailing zeros
   * of a power of two up to 64, and 7 for size 0), and the op record's amount is picked with a
   * mask into a sum kept in a register. Bytes need no sum of their own: the report gets them from
   * the power-of-two buckets, and only an access of another size (rare: x87, string
   * instructions) takes the one branch, which adds its bytes. (A per-kind byte sum in memory, as
   * before, and the reader's scalar check: read+count 0.42x of plain read+sum; now 0.53x,
   * docs/trace-format.md "Speed".) */
  guint64 ops = 0;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e = &b->cpu[i];
      guint fetch = e->flags & MDL_CPU_FLAG_FETCH, kind = e->kind, odd = odd_size (e->size);
      guint bucket = odd ? N_SIZE_BUCKETS - 1 : (guint) __builtin_ctz (e->size | 128u);
      c->records[fetch][kind][bucket]++;
      ops += e->addr & -(guint64) (kind == MDL_CPU_OPS);
      if (G_UNLIKELY (odd))
        c->bytes[kind] += e->size & ((guint64) fetch - 1);   /* a fetch adds no bytes */
    }
  c->bytes[MDL_CPU_OPS] += ops;
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
  guint64 warp_total = 0, kinds[MDL_CPU_N_KINDS] = { 0 }, sizes[N_SIZE_BUCKETS] = { 0 }, fetches = 0;
  guint64 bytes[MDL_CPU_N_KINDS];

  for (guint k = 0; k < MDL_CPU_N_KINDS; k++)
    {
      bytes[k] = c->bytes[k];
      for (guint s = 0; s < N_SIZE_BUCKETS; s++)
        {
          kinds[k] += c->records[0][k][s];
          fetches += c->records[1][k][s];
          if (mdl_cpu_is_access (k))
            {
              sizes[s] += c->records[0][k][s];
              if (s + 1 < N_SIZE_BUCKETS)
                bytes[k] += c->records[0][k][s] << s;   /* bucket s: accesses of 2^s bytes */
            }
        }
    }
  bytes[MDL_CPU_OPS] = c->bytes[MDL_CPU_OPS];

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
