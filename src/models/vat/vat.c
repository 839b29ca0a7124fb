/* The `vat` engine: the translation cache of the VAT model (Jurkiewicz and Mehlhorn; spec vat §1-2).
 *
 * Each access translates the page of every byte it touches (a record straddling a page boundary
 * is one access per page): the walk visits the d+1 nodes of the page's path, root first, and every
 * node not in the TC is inserted, one TC miss costing tau (policy.h). With vm=1 each access then
 * walks a second tree of the same shape for the host (docs/models/vat.md says what that models).
 * Operation counts (MDL_CPU_OPS records) add to ram_ops; cost = ram_ops + tau * tc_misses.
 *
 * Online policies run as events arrive. Offline ones (min, ismin) store the page sequence and run
 * in `report`, after a next-use pre-pass; the engine therefore keeps its own per-phase breakdown
 * (MDL_ENGINE_OWN_PHASES, in a core phase ledger), for every policy alike. An access to the page
 * just translated is all hits and changes nothing under a policy that keeps the whole path (lru,
 * islru, ismin, levels with W >= d+1, and no vm), so it is only counted. */
#include <models/error.h>

#include "core/budget.h"
#include "core/ledger.h"
#include "models/engines.h"
#include "models/vat/curve.h"
#include "models/vat/nextuse.h"
#include "models/vat/seen.h"
#include "models/vat/vat.h"

#include <math.h>
#include <string.h>

/* The policy table and the `policy` parameter's choices, both from policy.h's list, so that the
 * n-th choice is the n-th policy. */
#define POLICY_ADDRESS(name) &mdl_vat_##name
#define POLICY_WORD(name) #name
#define COMMA ,
static const VatPolicy *const policies[] = { VAT_POLICIES (POLICY_ADDRESS, COMMA) };

static const MdlParamSpec vat_params[] = {
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, VAT_POLICIES (POLICY_WORD, "|"), 0,
    "TC replacement policy" },
  { "P", MDL_PARAM_UINT, "4096", "page_bytes", 1, G_GUINT64_CONSTANT (1) << 40, NULL,
    MDL_PARAM_POW2, "page size in bytes" },
  { "K", MDL_PARAM_UINT, "512", "tree_arity", 2, G_GUINT64_CONSTANT (1) << 56, NULL,
    MDL_PARAM_POW2, "arity of the translation tree" },
  { "d", MDL_PARAM_UINT, "4", "tree_depth", 1, VAT_MAX_DEPTH, NULL, 0,
    "depth of the translation tree (a path has d+1 nodes)" },
  { "W", MDL_PARAM_UINT, "64", NULL, 1, G_GUINT64_CONSTANT (1) << 26, NULL, 0,
    "TC capacity in tree nodes" },
  { "tau", MDL_PARAM_UINT, "1", NULL, 0, G_GUINT64_CONSTANT (1) << 32, NULL, 0,
    "cost of one TC insertion, in RAM operations" },
  { "seed", MDL_PARAM_UINT, "1", NULL, 0, G_MAXUINT32, NULL, 0, "seed of policy random" },
  { "huge", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0, "huge pages: P*K bytes, d-1 levels" },
  { "vm", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "virtual machine: each access also walks the host's tree, in the same TC" },
  { "curve", MDL_PARAM_BOOL, "0", NULL, 0, 0, NULL, 0,
    "also count the misses of every W from d+1 to curve_max (lru, islru, min, ismin)" },
  { "curve_max", MDL_PARAM_UINT, "4096", NULL, 2, G_GUINT64_CONSTANT (1) << 20, NULL, 0,
    "largest W of the curve" },
  { NULL }
};

#define HIST_MAX (2 * (VAT_MAX_DEPTH + 1) + 1)

/* Online policies walk the accesses of a consume call in batches of at most this many pages (the
 * rest of the engine's work, the seen-set and the curve, then runs over the batch in loops of its
 * own). */
#define BATCH 512

/* What a phase breakdown subtracts: every count of the report but the curve. */
typedef struct {
  guint64 accesses;
  guint64 repeats;       /* accesses skipped as repeats of the previous page (all hits) */
  guint64 ram_ops;
  guint64 misses;
  guint64 hits;          /* hits of walked accesses (repeats add theirs in the report) */
  guint64 host_misses;
  guint64 compulsory;
  guint64 layer[VAT_MAX_DEPTH + 1];
  guint64 hist[HIST_MAX];
} VatCounts;

/* A phase marker as it came: online policies apply it at once, offline ones replay it in the run. */
typedef struct {
  gboolean begin;
  char *name;            /* offline: the marker's (owned) */
  gsize at;              /* offline: accesses stored before the marker */
  guint64 accesses, repeats, ram_ops, compulsory;
} VatMark;

#define N_COUNTS ((guint) (sizeof (VatCounts) / sizeof (guint64)))
G_STATIC_ASSERT (sizeof (VatCounts) % sizeof (guint64) == 0);

struct Vat {
  VatTc tc;                /* first: the hot part */
  const VatPolicy *policy;
  guint64 last_page;       /* the page of the previous walk, for repeats */
  guint64 records;         /* CPU records consumed, for error messages */
  guint64 accesses;
  guint64 repeats;
  guint64 ram_ops;
  guint64 tau;
  guint64 hist[HIST_MAX];  /* walked accesses by their number of misses */
  guint page_shift;
  guint depth;
  guint k_bits;
  guint index_bits;        /* k * d: a page at or above 2^index_bits is beyond the tree */
  guint n_trees;
  guint hist_len;
  gboolean collapse;       /* repeats of the page just walked are counted, not walked */
  gboolean run_ends;       /* collapse under VAT_POLICY_RUN_ENDS: a run's second access is
                              stored, and stands for its last */
  gboolean run_end_stored; /* run_ends: the current run's second access is stored */
  gboolean offline;
  guint32 curve_max;
  VatCurveLru *curve_lru;
  VatCurveMin *curve_min;
  VatSeen seen;            /* the nodes touched, for `compulsory` */
  gsize seen_upto;         /* offline: stored accesses already added to `seen` and
                              `nextuse` */
  guint64 batch[BATCH];    /* accesses not walked yet (online) or not stored yet (offline), after
                              repeats are taken out */
  guint32 batch_reps[BATCH]; /* offline with `reps`: the repeats after each batched access */
  guint n_batch;
  guint64 *curve_misses;   /* [curve_max + 1], offline policies: from the last run */
  GArray *pages;           /* offline: guint64 page of every stored access */
  GArray *reps;            /* offline with repeats collapsed: guint32 repeats following each
                              stored access (for a hook) */
  VatNextUse nextuse;      /* offline: the stored accesses' next uses, as they arrive */
  gsize sim_upto;          /* offline: stored accesses the policy has run over */
  guint sim_next_mark;     /* offline: the first mark the run has not applied */
  gboolean sim_ahead;      /* offline: a report ran the policy past the accesses whose next uses
                              are final, so more input needs a run from the start */
  GArray *marks;           /* offline: VatMark, resolved in the run */
  MdlPhaseLedger *phases;  /* VatCounts by phase */
  MdlParams *own_params;   /* mdl_vat_new() only */
  char *own_spec;
};

static void
mark_clear (VatMark *m)
{
  g_free (m->name);
}

/* ---- init and teardown ---------------------------------------------------------------------- */

/* The bytes of a node index of @cells cells (index.c): link (cells + 1 + buckets), back and node
 * (cells + 1 each), with the smallest power-of-two bucket count of at least 2 * cells. */
static guint64
index_bytes (guint64 cells)
{
  guint64 buckets = 2;
  while (buckets < 2 * cells)
    buckets *= 2;
  return 4 * (cells + 1 + buckets) + (4 + 8) * (cells + 1);
}

/* The bytes of the tables that vat_init allocates for a TC of @w cells under @flags (policy.h)
 * and, with @curve, the curve's stacks up to @curve_max; the seen-set's bitmaps are mapped lazily
 * and not counted. Per TC cell beyond the index: a parent and a child count under ISP; two ring
 * links (lru, islru, levels; fifo and random need none, counted all the same), or for the offline
 * policies a tournament tree of 2 * 2^ceil(log2 W) keys and cells, and ismin's key per cell. */
static guint64
table_bytes (guint64 w, guint flags, gboolean curve, guint64 curve_max, guint d)
{
  gboolean offline = (flags & VAT_POLICY_OFFLINE) != 0, isp = (flags & VAT_POLICY_ISP) != 0;
  guint64 bytes = index_bytes (w) + (isp ? 8 * w : 0), pow2w = 1;
  while (pow2w < w)
    pow2w *= 2;
  bytes += offline ? 24 * pow2w + (isp ? 8 * w : 0) : 8 * w;
  if (curve)
    {
      guint64 walks = 64;
      while (walks < 2 * curve_max + 64)
        walks *= 2;
      bytes += 8 * (curve_max + 1) + index_bytes (curve_max) + 8 * curve_max;
      if (offline) /* curve-min.c: stack, position, max tree */
        bytes += mdl_vat_curve_min_bytes (curve_max);
      else         /* curve-lru.c: Fenwick tree, masks, walks' slots, walk and offset of a node */
        bytes += 4 * (walks + 1) + 8 * walks + 4 * walks * (d + 1) + 12 * curve_max;
    }
  return bytes;
}

static gboolean
vat_init (void *state, const MdlParams *params, GError **error)
{
  Vat *v = state;
  const VatPolicy *policy = policies[mdl_params_choice (params, "policy")];
  guint64 w = mdl_params_uint (params, "W");
  guint d = (guint) mdl_params_uint (params, "d");
  guint p_bits = (guint) __builtin_ctzll (mdl_params_uint (params, "P"));
  guint k_bits = (guint) __builtin_ctzll (mdl_params_uint (params, "K"));
  gboolean vm = mdl_params_bool (params, "vm");
  gboolean curve = mdl_params_bool (params, "curve");
  guint64 need = 1;

  if (mdl_params_bool (params, "huge"))
    {
      if (d < 2)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "vat: huge=1 needs d >= 2 (a huge page "
                       "takes one level off the tree; d=%u)", d);
          return FALSE;
        }
      p_bits += k_bits;
      d--;
    }
  if ((guint64) k_bits * d > VAT_MAX_INDEX_BITS)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "vat: K=%" G_GUINT64_FORMAT " and d=%u give "
                   "page numbers of %u bits; at most %u are supported", mdl_params_uint (params, "K"),
                   d, k_bits * d, VAT_MAX_INDEX_BITS);
      return FALSE;
    }
  if (policy->min_cells_extra)
    need = d + policy->min_cells_extra + ((policy->flags & VAT_POLICY_ROOT_PER_TREE) && vm);
  if (w < need)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "vat: W=%" G_GUINT64_FORMAT " is too small "
                   "for policy %s (needs W >= d+%" G_GUINT64_FORMAT " = %" G_GUINT64_FORMAT "%s)", w,
                   policy->name, need - d, need,
                   (policy->flags & VAT_POLICY_ISP) ? ": the TC must hold a whole path"
                   : vm ? ": a cell per layer and one per root" : ": a cell per layer");
      return FALSE;
    }
  if (curve && !(policy->flags & VAT_POLICY_STACK))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "vat: curve=1 needs a stack algorithm (lru, "
                   "islru, min or ismin); policy %s is not one", policy->name);
      return FALSE;
    }
  v->curve_max = (guint32) mdl_params_uint (params, "curve_max");
  if (curve && v->curve_max < d + 1)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "vat: curve_max=%u is below d+1 = %u, where "
                   "the curve starts", v->curve_max, d + 1);
      return FALSE;
    }

  /* Checked before anything is allocated: W may go up to 2^26 cells, a few GiB of tables whose
   * clearing costs seconds before the first event (W=6496512: a second for 16 accesses). */
  {
    guint64 used = 0, cmax = curve ? v->curve_max : 0;
    g_autofree char *what = g_strdup_printf (
      "W=%" G_GUINT64_FORMAT " (policy %s%s)", w, policy->name,
      curve ? ", with the curve to curve_max" : "");
    if (!mdl_budget_take ("vat", what, table_bytes (w, policy->flags, curve, cmax, d), &used,
                          error))
      return FALSE;
  }

  v->policy = policy;
  v->page_shift = p_bits;
  v->depth = d;
  v->k_bits = k_bits;
  v->index_bits = k_bits * d;
  v->n_trees = vm ? 2 : 1;
  v->hist_len = v->n_trees * (d + 1) + 1;
  v->tau = mdl_params_uint (params, "tau");
  v->offline = (policy->flags & VAT_POLICY_OFFLINE) != 0;
  /* Why not with vm: the host walk between two guest walks may evict guest nodes. */
  v->collapse = (policy->flags & (VAT_POLICY_KEEPS_PATH | VAT_POLICY_RUN_ENDS)) && w >= d + 1 && !vm;
  v->run_ends = v->collapse && (policy->flags & VAT_POLICY_RUN_ENDS);
  v->last_page = VAT_NO_NODE;
  v->marks = g_array_new (FALSE, FALSE, sizeof (VatMark));
  g_array_set_clear_func (v->marks, (GDestroyNotify) mark_clear);
  v->phases = mdl_phase_ledger_new ();
  if (v->offline)
    {
      v->pages = g_array_new (FALSE, FALSE, sizeof (guint64));
      mdl_vat_nextuse_init (&v->nextuse, d, k_bits);
      if (v->collapse)
        v->reps = g_array_new (FALSE, FALSE, sizeof (guint32));
    }
  if (curve)
    {
      /* The stack policies (curve.h): online ones order by recency (lru, islru), offline ones by
       * next use (min, ismin), each in a plain and an ISP variant. */
      gboolean isp = (policy->flags & VAT_POLICY_ISP) != 0;
      v->curve_misses = g_new0 (guint64, v->curve_max + 1);
      if (v->offline)
        v->curve_min = mdl_vat_curve_min_new (v->curve_max, isp);
      else
        v->curve_lru = mdl_vat_curve_lru_new (d, k_bits, v->curve_max, isp);
    }
  mdl_vat_seen_init (&v->seen, d, k_bits);
  /* The path memo needs the previous walk's path cached at the next walk, whatever page that is. */
  v->tc.memo = v->collapse && (policy->flags & VAT_POLICY_KEEPS_PATH);
  mdl_vat_tc_init (&v->tc, policy, (guint32) w, d, k_bits, v->n_trees,
                   mdl_params_uint (params, "seed"));
  return TRUE;
}

static void
vat_finalize (void *state)
{
  Vat *v = state;
  mdl_vat_tc_finalize (&v->tc);
  mdl_vat_seen_finalize (&v->seen);
  mdl_vat_curve_lru_free (v->curve_lru);
  mdl_vat_curve_min_free (v->curve_min);
  g_free (v->curve_misses);
  if (v->pages)
    {
      g_array_unref (v->pages);
      mdl_vat_nextuse_finalize (&v->nextuse);
    }
  if (v->reps)
    g_array_unref (v->reps);
  if (v->marks)
    g_array_unref (v->marks);
  mdl_phase_ledger_free (v->phases);
}

static void offline_take (Vat *v);

/* ---- the stream --------------------------------------------------------------------------------- */

static void
report_repeat_hits (Vat *v, guint64 page)
{
  for (guint l = v->depth + 1; l-- > 0;)
    v->tc.hook (v->tc.hook_data, &v->tc, VAT_EV_HIT, vat_path_node (&v->tc, page, 0, l));
}

/* Everything the accesses taken so far imply: for online policies the seen-set, the walks of the
 * batch and its curve; for offline ones the batch stored, and what offline_take does with it. */
static void
flush (Vat *v)
{
  if (v->offline)
    {
      /* Stored a batch at a time: an append per access was a library call, 60 instructions. */
      g_array_append_vals (v->pages, v->batch, v->n_batch);
      if (v->reps)
        g_array_append_vals (v->reps, v->batch_reps, v->n_batch);
      v->n_batch = 0;
      offline_take (v);
      return;
    }
  mdl_vat_seen_add_paths (&v->seen, v->batch, v->n_batch);
  vat_policy_run (&v->tc, v->batch, v->n_batch, NULL, v->hist);
  if (v->curve_lru)
    for (guint i = 0; i < v->n_batch; i++)
      for (guint tree = 0; tree < v->n_trees; tree++)
        mdl_vat_curve_lru_walk (v->curve_lru, v->batch[i], tree);
  v->n_batch = 0;
}

/* One access to @page: the hot path. A hook sees every operation in order, so with one the batch
 * is walked at once. Under run_ends the first repeat is stored, as the run's last access (the
 * repeats after it are all hits between the two, and their hook events, all hits of the same
 * path, come after it instead). */
static inline void
translate (Vat *v, guint64 page)
{
  v->accesses++;
  if (v->collapse && page == v->last_page && !(v->run_ends && !v->run_end_stored))
    {
      v->repeats++;
      if (v->offline && v->n_batch > 0)
        v->batch_reps[v->n_batch - 1]++;
      else if (v->offline)
        g_array_index (v->reps, guint32, v->reps->len - 1)++;
      else if (G_UNLIKELY (v->tc.hook != NULL))
        report_repeat_hits (v, page);
      return;
    }
  v->run_end_stored = page == v->last_page;
  v->last_page = page;
  if (v->offline)
    {
      v->batch_reps[v->n_batch] = 0;
      v->batch[v->n_batch++] = page;
      if (G_UNLIKELY (v->n_batch == BATCH))
        flush (v);
      return;
    }
  v->batch[v->n_batch++] = page;
  if (G_UNLIKELY (v->n_batch == BATCH || v->tc.hook != NULL))
    flush (v);
}

static gboolean
beyond_tree (Vat *v, const char *what, guint64 addr, guint size, GError **error)
{
  guint top_bits = v->index_bits + v->page_shift;
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat: access record %" G_GUINT64_FORMAT " (%s of "
               "%u bytes at 0x%" G_GINT64_MODIFIER "x) is beyond the translation tree: its page needs "
               "more than d=%u levels of K=%" G_GUINT64_FORMAT " (the tree covers addresses below 0x%"
               G_GINT64_MODIFIER "x)", v->records, what, size, addr, v->depth,
               G_GUINT64_CONSTANT (1) << v->k_bits,
               top_bits >= 64 ? G_MAXUINT64 : G_GUINT64_CONSTANT (1) << top_bits);
  return FALSE;
}

/* Translates every page that [addr, addr+size) touches. */
static inline gboolean
access_bytes (Vat *v, const char *what, guint64 addr, guint size, GError **error)
{
  guint64 last = addr + (size ? size - 1 : 0);
  guint64 first_page = addr >> v->page_shift, last_page = last >> v->page_shift;
  if (G_UNLIKELY (last < addr || (last_page >> v->index_bits) != 0))
    return beyond_tree (v, what, addr, size, error);
  translate (v, first_page);
  for (guint64 p = first_page; G_UNLIKELY (p != last_page);)
    translate (v, ++p);
  return TRUE;
}

/* The leading run of @cpu[0..@n) that needs nothing but a batch entry or a sum (online policy,
 * no hook): reads, writes and modifies inside one page of the tree, not fetches, and op counts.
 * Returns the records taken; the caller takes the one that stopped the run. The stream's state
 * stays in registers through the run (translate() keeps it in the engine, which the batch's
 * stores may alias): bench-vat lru 53 -> 35 instructions per access in consume (callgrind). Op
 * counts are taken here too: an instrumented loop writes one per iteration, and ending the run
 * at each cost a return and a new run's loads and stores (scan/random, 45 -> 30 instructions per
 * record in consume, callgrind). */
static inline gsize
consume_plain_run (Vat *v, const MdlCpuEvent *cpu, gsize n)
{
  guint64 last_page = v->last_page, accesses = v->accesses, repeats = v->repeats;
  guint64 ram_ops = v->ram_ops;
  guint n_batch = v->n_batch, shift = v->page_shift, index_bits = v->index_bits;
  gboolean collapse = v->collapse;
  gsize i;
  for (i = 0; i < n; i++)
    {
      const MdlCpuEvent *e = &cpu[i];
      guint64 page = e->addr >> shift;
      if (e->kind == MDL_CPU_OPS)
        {
          ram_ops += e->addr;
          continue;
        }
      /* Why one test covers a straddle, a size 0 at a page start and an end past 2^64: each
       * gives an end page other than the first. */
      if (e->kind > MDL_CPU_MODIFY || (e->flags & MDL_CPU_FLAG_FETCH)
          || ((e->addr + e->size - 1) >> shift) != page || (page >> index_bits) != 0)
        break;
      accesses++;
      if (collapse && page == last_page)
        {
          repeats++;
          continue;
        }
      last_page = page;
      v->batch[n_batch++] = page;
      if (G_UNLIKELY (n_batch == BATCH))
        {
          v->n_batch = n_batch;
          flush (v);
          n_batch = 0;
        }
    }
  v->last_page = last_page;
  v->accesses = accesses;
  v->repeats = repeats;
  v->ram_ops = ram_ops;
  v->n_batch = n_batch;
  return i;
}

static gboolean
consume_records (Vat *v, const MdlEventBatch *b, GError **error)
{
  static const char *const kind_names[] = { "read", "write", "modify" };
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      const MdlCpuEvent *e;
      if (!v->offline && v->tc.hook == NULL)
        {
          gsize taken = consume_plain_run (v, b->cpu + i, b->n_cpu - i);
          v->records += taken;
          i += taken;
          if (i == b->n_cpu)
            break;
        }
      e = &b->cpu[i];
      v->records++;
      if (e->kind == MDL_CPU_OPS)
        v->ram_ops += e->addr;
      /* Instruction fetches are RAM operations, already counted in the op records, not accesses. */
      else if (e->kind <= MDL_CPU_MODIFY && !(e->flags & MDL_CPU_FLAG_FETCH)
               && !access_bytes (v, kind_names[e->kind], e->addr, e->size, error))
        return FALSE;
    }
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *w = &b->warp[i];
      guint64 addrs[MDL_WARP_MAX_LANES];
      v->records++;
      if (!mdl_warp_is_memory (w))
        continue;
      mdl_warp_addrs (b, w, addrs);
      for (guint64 m = w->active; m; m &= m - 1)
        if (!access_bytes (v, "warp lane access", addrs[__builtin_ctzll (m)], w->width, error))
          return FALSE;
    }
  return TRUE;
}

/* The accesses before a bad record still count, as they would unbatched. */
static gboolean
vat_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Vat *v = state;
  gboolean ok = consume_records (v, b, error);
  flush (v);
  if (!ok)
    return FALSE;
  if (v->offline && v->pages->len >= G_MAXUINT32 - 1)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "vat: policy %s keeps the trace in memory and "
                   "takes at most %u distinct consecutive accesses", v->policy->name, G_MAXUINT32 - 2);
      return FALSE;
    }
  return TRUE;
}

/* ---- counts and phases ---------------------------------------------------------------------- */

/* The counts now, but for those of the stream (accesses, repeats, ram_ops, compulsory), which
 * offline runs take from a mark. */
static void
counts_now (const Vat *v, guint64 accesses, guint64 repeats, guint64 ram_ops, guint64 compulsory,
            VatCounts *c)
{
  memset (c, 0, sizeof *c);
  c->accesses = accesses;
  c->repeats = repeats;
  c->ram_ops = ram_ops;
  c->compulsory = compulsory;
  c->misses = mdl_vat_tc_misses (&v->tc);
  /* Every walk visits d+1 nodes, each a hit or an insertion. */
  c->hits = (accesses - repeats) * v->n_trees * (v->depth + 1) - c->misses;
  c->host_misses = mdl_vat_tc_tree_misses (&v->tc, 1);
  for (guint l = 0; l <= v->depth; l++)
    c->layer[l] = v->tc.misses_layer[0][l] + v->tc.misses_layer[1][l];
  memcpy (c->hist, v->hist, sizeof c->hist);
}

/* The host tree (vm=1) is walked with the guest's node numbers: as many nodes again. */
static guint64
compulsory (const Vat *v)
{
  return v->seen.distinct * v->n_trees;
}

/* The counts at phase marker @m to the ledger: the TC's now, the stream's as @m recorded them.
 * @name: @m's (an online mark is applied as it comes, and does not copy the marker's name). */
static void
apply_mark (Vat *v, const VatMark *m, const char *name)
{
  VatCounts now;
  counts_now (v, m->accesses, m->repeats, m->ram_ops, m->compulsory, &now);
  mdl_phase_ledger_mark (v->phases, m->begin, name, (const guint64 *) (gconstpointer) &now,
                         N_COUNTS);
}

static gboolean
vat_marker (void *state, const MdlMarker *m, GError **error)
{
  Vat *v = state;
  VatMark mark = { .begin = m->kind == MDL_MARK_PHASE_BEGIN };
  if (!mark.begin && m->kind != MDL_MARK_PHASE_END)
    return TRUE;
  if (!mdl_phase_ledger_nest (v->phases, mark.begin, m->name, error))
    return FALSE;
  flush (v);
  mark.accesses = v->accesses;
  mark.repeats = v->repeats;
  mark.ram_ops = v->ram_ops;
  mark.compulsory = compulsory (v);
  if (!v->offline)
    {
      apply_mark (v, &mark, m->name);
      return TRUE;
    }
  mark.name = g_strdup (m->name);
  mark.at = v->pages->len;
  g_array_append_val (v->marks, mark);
  return TRUE;
}

/* ---- the offline run ---------------------------------------------------------------------------- */

/* The marks at stored access @at, which the run has reached. */
static void
resolve_marks (Vat *v, gsize at)
{
  while (v->sim_next_mark < v->marks->len
         && g_array_index (v->marks, VatMark, v->sim_next_mark).at == at)
    {
      const VatMark *m = &g_array_index (v->marks, VatMark, v->sim_next_mark++);
      apply_mark (v, m, m->name);
    }
}

/* The min/ismin curve's walks of the stored accesses [@from, @to): root first, the node and its key
 * on each layer. */
static void
curve_min_walks (Vat *v, const guint32 *next, gsize from, gsize to)
{
  const guint64 *pages = (const guint64 *) (gpointer) v->pages->data;
  guint64 nodes[VAT_MAX_DEPTH + 1], keys[VAT_MAX_DEPTH + 1];
  guint stride = v->depth + 1;
  for (gsize t = from; t < to; t++)
    for (guint tree = 0; tree < v->n_trees; tree++)
      {
        for (guint l = 0; l <= v->depth; l++)
          {
            guint32 nu = next[t * stride + l];
            nodes[v->depth - l] = vat_path_node (&v->tc, pages[t], tree, l);
            keys[v->depth - l] = nu == G_MAXUINT32 ? VAT_DEAD_KEY (l)
                                 : vat_position (nu, tree, v->n_trees, v->depth, l);
          }
        mdl_vat_curve_min_walk (v->curve_min, nodes, keys, v->depth + 1);
      }
}

/* The run back at the start, before the first access. */
static void
offline_restart (Vat *v)
{
  mdl_vat_tc_reset (&v->tc);
  memset (v->hist, 0, sizeof v->hist);
  if (v->curve_min)
    mdl_vat_curve_min_reset (v->curve_min);
  mdl_phase_ledger_restart (v->phases);
  v->sim_upto = 0;
  v->sim_next_mark = 0;
  v->sim_ahead = FALSE;
}

/* Runs min or ismin on from where it stands to stored access @to, in stretches between marks (one
 * access at a time when a hook watches, so that it sees each repeat's hits in order), applying the
 * marks it meets; those at @to wait for the next stretch, which may have more. */
static void
offline_advance (Vat *v, gsize to)
{
  const guint64 *pages = (const guint64 *) (gpointer) v->pages->data;
  const guint32 *reps = v->reps ? (const guint32 *) (gpointer) v->reps->data : NULL;
  const guint32 *next = mdl_vat_nextuse_of (&v->nextuse);
  guint stride = v->depth + 1;
  for (gsize t = v->sim_upto, end; t < to; t = end)
    {
      resolve_marks (v, t);
      end = v->sim_next_mark < v->marks->len
            ? MIN (g_array_index (v->marks, VatMark, v->sim_next_mark).at, to) : to;
      if (G_UNLIKELY (v->tc.hook != NULL))
        end = t + 1;
      v->policy->run (&v->tc, pages + t, end - t, next + t * stride, v->hist);
      if (G_UNLIKELY (v->tc.hook != NULL))
        for (guint32 r = 0; reps && r < reps[t]; r++)
          report_repeat_hits (v, pages[t]);
      if (v->curve_min)
        curve_min_walks (v, next, t, end);
      v->sim_upto = end;
    }
}

/* The stored accesses [seen_upto, len) into the seen-set and the next uses, and the run on over
 * those whose next uses are now final (nextuse.h): in a sweep it runs while the stream is still
 * being recorded, where it used to start only at the report. A report that ran ahead of the
 * final next uses (offline_run) ran a MIN of that prefix, which more input makes wrong: the run
 * then starts again. */
static void
offline_take (Vat *v)
{
  gsize n = v->pages->len;
  const guint64 *fresh;
  /* Why first: an empty GArray's data may be NULL, and NULL + 0 is undefined in C. */
  if (n == v->seen_upto)
    return;
  fresh = (const guint64 *) (gpointer) v->pages->data + v->seen_upto;
  mdl_vat_seen_add_paths (&v->seen, fresh, n - v->seen_upto);
  mdl_vat_nextuse_add (&v->nextuse, fresh, n - v->seen_upto);
  v->seen_upto = n;
  if (v->sim_ahead)
    offline_restart (v);
  offline_advance (v, v->nextuse.final_upto);
}

/* The run over every stored access, for a report: those whose next use has not come are taken as
 * never used again, which is exact for the input so far. Idempotent: a second report with no new
 * accesses runs nothing (new marks only are applied where the run stands). */
static void
offline_run (Vat *v)
{
  gsize n = v->pages->len;
  offline_advance (v, n);
  resolve_marks (v, n);
  v->sim_ahead = n > v->nextuse.final_upto;
  if (v->curve_min)
    mdl_vat_curve_min_misses (v->curve_min, v->curve_misses);
}

/* ---- the report --------------------------------------------------------------------------------- */

/* cost = ram_ops + tau * tc_misses, saturated at 2^64 - 1 rather than wrapped: with tau up to 2^32
 * the product passes 2^64 only after 2^32 misses, but op counts come from the input and may be
 * anything, and a wrapped cost would read as a small one. */
static guint64
vat_cost (guint64 ram_ops, guint64 tau, guint64 misses)
{
  guint64 product, sum;
  if (__builtin_mul_overflow (tau, misses, &product) || __builtin_add_overflow (ram_ops, product, &sum))
    return G_MAXUINT64;
  return sum;
}
static void
add_counts (const Vat *v, const VatCounts *c, MdlReport *out)
{
  guint64 hits = c->hits + c->repeats * (v->depth + 1);
  mdl_report_add_count (out, "accesses", "count", "page translations (an access straddling pages "
                        "translates each)", NULL, c->accesses);
  mdl_report_add_count (out, "tc_misses", "count", "TC insertions (misses), each costing tau", NULL,
                        c->misses);
  mdl_report_add_count (out, "tc_hits", "count", "path nodes found in the TC", NULL, hits);
  for (guint l = 0; l <= v->depth; l++)
    {
      g_autofree char *name = g_strdup_printf ("tc_misses_l%u", l);
      g_autofree char *desc = g_strdup_printf ("TC misses on layer %u (%s)", l,
                                               l == 0 ? "leaves" : l == v->depth ? "root" : "inner");
      mdl_report_add_count (out, name, "count", desc, NULL, c->layer[l]);
    }
  if (v->n_trees == 2)
    mdl_report_add_count (out, "tc_misses_host", "count", "TC misses in the host tree (vm=1)", NULL,
                          c->host_misses);
  for (guint m = 0; m < v->hist_len; m++)
    {
      g_autofree char *name = g_strdup_printf ("misses_per_access_%u", m);
      g_autofree char *desc = g_strdup_printf ("accesses with exactly %u TC misses", m);
      mdl_report_add_count (out, name, "count", desc, NULL, c->hist[m] + (m == 0 ? c->repeats : 0));
    }
  mdl_report_add_count (out, "compulsory", "count", "distinct nodes touched (first-use misses)", NULL,
                        c->compulsory);
  mdl_report_add_count (out, "ram_ops", "count", "RAM operations (operation markers, instructions)",
                        NULL, c->ram_ops);
  mdl_report_add_count (out, "cost", "count", "ram_ops + tau * tc_misses", NULL,
                        vat_cost (c->ram_ops, v->tau, c->misses));
}

static void
phase_fill (const guint64 *totals, MdlReport *phase, void *data)
{
  VatCounts c;
  memcpy (&c, totals, sizeof c);
  add_counts (data, &c, phase);
}

static void
vat_report (void *state, MdlReport *out)
{
  Vat *v = state;
  VatCounts now;
  if (v->offline)
    offline_run (v);
  counts_now (v, v->accesses, v->repeats, v->ram_ops, compulsory (v), &now);
  add_counts (v, &now, out);
  mdl_report_add_real (out, "misses_per_access", "ratio", "tc_misses / accesses", NULL,
                       now.accesses ? (double) now.misses / (double) now.accesses : NAN);
  if (v->curve_lru)
    mdl_vat_curve_lru_misses (v->curve_lru, v->curve_misses);
  if (v->curve_misses)
    {
      /* The curve stops where the TC holds every node touched: from W = compulsory on, no
       * policy evicts and every W has exactly the compulsory misses, so the points beyond say
       * nothing new (a 1k-element run asked for curve_max=1M printed 82 MB of the same count).
       * Before any access there is nothing to cut at, and the report lists every point the spec
       * can give, as `models list --engine` shows it. */
      guint64 distinct = now.compulsory ? now.compulsory : v->curve_max;
      guint32 last = (guint32) MIN ((guint64) v->curve_max, MAX (distinct, (guint64) v->depth + 1));
      mdl_report_add_count (out, "curve_w_max", "count", "largest W of the curve: curve_max, or "
                            "the distinct nodes if fewer (a larger W misses only on first use)",
                            NULL, last);
      for (guint32 w = v->depth + 1; w <= last; w++)
      {
        g_autofree char *name = g_strdup_printf ("tc_misses_w%u", w);
        g_autofree char *desc = g_strdup_printf ("TC misses with W=%u (one-pass curve)", w);
        mdl_report_add_count (out, name, "count", desc, NULL, v->curve_misses[w]);
      }
    }
  mdl_phase_ledger_report (v->phases, out, phase_fill, v);
}

const MdlEngineClass mdl_vat_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "vat",
  .summary = "translation cache of the VAT model: misses under " VAT_POLICIES (POLICY_WORD, ", ")
             "; every W in one pass",
  .params = vat_params,
  .state_size = sizeof (Vat),
  .init = vat_init,
  .consume = vat_consume,
  .marker = vat_marker,
  .report = vat_report,
  .finalize = vat_finalize,
  .flags = MDL_ENGINE_OWN_PHASES,
};

/* ---- private entry points (vat.h) ------------------------------------------------------------- */

Vat *
mdl_vat_new (const char *assignments, GError **error)
{
  g_auto (GStrv) parts = assignments && *assignments ? g_strsplit (assignments, ",", -1)
                                                      : g_new0 (char *, 1);
  MdlParams *params = mdl_params_parse ("vat", vat_params, (const char *const *) parts, error);
  Vat *v;
  g_autofree char *normalized = NULL;
  if (params == NULL)
    return NULL;
  v = g_new0 (Vat, 1);
  v->own_params = params;
  if (!vat_init (v, params, error))
    {
      mdl_vat_free (v);
      return NULL;
    }
  normalized = mdl_params_normalized (params);
  v->own_spec = g_strdup_printf ("vat:%s", normalized);
  return v;
}

void
mdl_vat_free (Vat *vat)
{
  if (vat == NULL)
    return;
  vat_finalize (vat);
  mdl_params_free (vat->own_params);
  g_free (vat->own_spec);
  g_free (vat);
}

gboolean
mdl_vat_consume (Vat *vat, const MdlEventBatch *batch, GError **error)
{
  return vat_consume (vat, batch, error);
}

MdlReport *
mdl_vat_report (Vat *vat)
{
  MdlReport *r = mdl_report_new ("vat", vat->own_spec ? vat->own_spec : "vat");
  vat_report (vat, r);
  return r;
}

gboolean
mdl_vat_pages (Vat *vat, const guint64 *pages, gsize n, GError **error)
{
  MdlCpuEvent ev[256];
  for (gsize i = 0; i < n;)
    {
      gsize m = MIN (n - i, G_N_ELEMENTS (ev));
      MdlEventBatch b = { .cpu = ev, .n_cpu = m };
      for (gsize j = 0; j < m; j++)
        ev[j] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 1,
                                .addr = pages[i + j] << vat->page_shift };
      if (!vat_consume (vat, &b, error))
        return FALSE;
      i += m;
    }
  return TRUE;
}

void
mdl_vat_set_hook (Vat *vat, VatHook hook, void *data)
{
  vat->tc.hook = hook;
  vat->tc.hook_data = data;
}

void
mdl_vat_set_general (Vat *vat, gboolean general)
{
  vat->tc.general = general;
}

const VatTc *
mdl_vat_tc (const Vat *vat)
{
  return &vat->tc;
}

guint
mdl_vat_depth (const Vat *vat)
{
  return vat->depth;
}
