/* The `count` engine: what the stream holds, by kind, size, space and marker. It proves the path
 * from any source to a report and is the dispatch benchmark's engine, so its loop does a few
 * increments per event and nothing else. Access sizes are bucketed as the powers of two 1..64
 * and "other" (sizes such as 3, 10 or 512 from x87, string and fxsave instructions). */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

#define N_SIZE_BUCKETS 8 /* 1, 2, 4, 8, 16, 32, 64, other */
#define MAX_EXACT_SIZE 63 /* records up to this size are counted by their exact size (64 a row) */

typedef struct {
  /* CPU records by fetch flag, kind and exact size (an op record's, 0, included): the report adds
   * up the kinds, the fetches, the size buckets and the bytes from it. */
  guint64 records[2][MDL_CPU_N_KINDS][MAX_EXACT_SIZE + 1];
  guint64 large[2][MDL_CPU_N_KINDS];  /* records of more than MAX_EXACT_SIZE bytes */
  guint64 large_bytes[MDL_CPU_N_KINDS]; /* their bytes, fetches left out */
  guint64 large_64[MDL_CPU_N_KINDS];  /* those of them of 64 bytes, a size bucket, fetches left out */
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

/* All ones for the op record's kind, whose amount is summed, zero for the others. */
static const guint64 ops_mask[MDL_CPU_N_KINDS] = { [MDL_CPU_OPS] = G_MAXUINT64 };

static gboolean
count_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Count *c = state;
  (void) error;
  /* Without a branch on the record, whose kind and size come in no order a predictor can learn:
   * one counter per fetch flag, kind and exact size, which the report sorts into kinds, buckets
   * and bytes; the op record's amount picked with a mask from a table into a sum in a register.
   * Only a size above MAX_EXACT_SIZE (rare: string instructions, fxsave) takes the one branch.
   * Before, one counter per size bucket, the bucket found from the size (a power of two or not)
   * on every record: 30 instructions per record in the loop, now 20 (docs/trace-format.md,
   * "Speed"). */
  guint64 ops = 0;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e = &b->cpu[i];
      guint fetch = e->flags & MDL_CPU_FLAG_FETCH, kind = e->kind, size = e->size;
      ops += e->addr & ops_mask[kind];
      if (G_LIKELY (size <= MAX_EXACT_SIZE))
        c->records[fetch][kind][size]++;
      else
        {
          c->large[fetch][kind]++;
          c->large_bytes[kind] += fetch ? 0 : size;
          c->large_64[kind] += !fetch && size == 64;
        }
    }
  c->ops += ops;
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
      bytes[k] = c->large_bytes[k];
      kinds[k] = c->large[0][k];
      fetches += c->large[1][k];
      if (mdl_cpu_is_access (k))
        {
          sizes[N_SIZE_BUCKETS - 1] += c->large[0][k] - c->large_64[k];
          sizes[N_SIZE_BUCKETS - 2] += c->large_64[k];
        }
      for (guint size = 0; size <= MAX_EXACT_SIZE; size++)
        {
          /* sizes 1, 2, 4 .. 32 are buckets 0..5; the others (0 of no access) bucket 7 */
          guint bucket = (size & (size - 1)) == 0 && size ? (guint) __builtin_ctz (size)
                                                          : N_SIZE_BUCKETS - 1;
          kinds[k] += c->records[0][k][size];
          fetches += c->records[1][k][size];
          if (mdl_cpu_is_access (k))
            {
              sizes[bucket] += c->records[0][k][size];
              bytes[k] += c->records[0][k][size] * size;
            }
        }
    }
  bytes[MDL_CPU_OPS] = c->ops;

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
