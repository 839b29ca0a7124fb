/* The VAT experiment (include/models/experiment.h): the thesis's Figure 2.1 rerun on this machine
 * and set against the models' predictions.
 *
 * Method (docs/experiments/vat.md, thesis §2.1.2): sizes grow by 1.4 from 2^10 elements up to a
 * memory bound; each (algorithm, n) runs once instrumented, through
 *   - vat, LRU, the preset's P, K, d, with W = the TLB entries plus the paging-structure caches,
 *   - vat with W = the L1 DTLB alone,
 *   - an ideal cache (fully associative LRU over 64-byte lines) per cache level: the vat engine
 *     with P = 64 and d = 1 is exactly that, the root being always the most recent node,
 * natively, timed, the minimum of the repetitions kept: every point is timed first, one at a time,
 * and the instrumented runs follow on a pool of threads (model_passes). Normalized time is time / RAM
 * operations. Least squares over all algorithms and sizes fit the per-operation cost and the cost
 * of a TC miss (tau = their ratio), and the same for the cache levels; the slopes of normalized
 * time against log2 n come from the measured points and from each fitted model. The arrays use
 * 4 KiB pages explicitly (pages=4k), so that the model's P is what the machine used whatever the
 * kernel's huge-page mode; the huge-page series uses pages=huge and the model's huge=1. The matrix
 * products run on 2 MiB pages in both, where the kernel grants them: on 4 KiB pages their column
 * walk's L2 sets are chosen by the physical frames, which no engine sees and which change from
 * one repetition to the next (docs/experiments/cpu-model.md, "s8"). Each repetition on 2 MiB
 * pages records what the kernel granted, and the time of a point is that of its repetitions that
 * got them all. */
#include <models/algo.h>
#include <models/error.h>
#include <models/machine.h>
#include <models/pipeline.h>
#include <models/record.h>

#include "algos/pages.h"
#include "core/bytes.h"
#include "experiments/fit.h"
#include "experiments/host.h"
#include "experiments/probe.h"
#include "experiments/streams.h"
#include "experiments/vat-journal.h"
#include "experiments/vat-private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Paging-structure caches (Intel SDM vol. 3A, 4.10.3) hold upper nodes of the translation tree:
 * PML4, PDPT and PD entries. Intel documents them but not their sizes; microbenchmarks of recent
 * cores find about 2, 4 and 32 entries. They count towards W beside the TLBs' leaves. */
#define PSC_CELLS 38
/* Repetitions at most, however fast a run (small sizes are repeated until min_seconds). */
#define MAX_REPS 1000
/* Instrumented runs at once, at most. */
#define MAX_JOBS 4096
/* The size split of the cost models' validation: fit on arrays below it, predict the rest. */
#define VAT_SPLIT_BYTES ((guint64) 32 << 20)
/* Branch records kept for the warm predictor's count, at most (16 bytes each: 1 GiB). A gshare
 * of 2^16 counters holds the outcomes of a few tens of thousands of branches at most, so a run
 * with more than this many is as well predicted warm as cold. */
#define WARM_BRANCHES_MAX ((gsize) 1 << 26)

/* Events between progress calls during an instrumented run. */
#define PROGRESS_EVENTS ((guint64) 1 << 22)
/* The line size of the ideal caches (64 bytes on every x86-64). */
#define LINE_BYTES 64
/* The tree of the ideal-cache trick: line numbers of 47-bit user addresses fit in 2^42. */
#define LINE_TREE_ARITY "4398046511104"

/* What the experiment knows of each algorithm: memory per element of n (the bound), a size cap for
 * the cubic ones, the growth of its RAM cost (for the ETA) and what the thesis says. */
typedef enum { GROW_N, GROW_N_LOG_N, GROW_N_SQRT_N } Growth;

typedef struct {
  const char *name;
  guint bytes_per_elem;
  guint64 max_n;
  Growth growth;
  gboolean huge_series;
  gboolean always_huge;   /* its main series too runs on 2 MiB pages where they are granted */
  const char *thesis;
} VatAlgoInfo;

static const VatAlgoInfo algo_info[] = {
  { "scan/seq", 8, 0, GROW_N, FALSE, FALSE, "n (measured, analysed)" },
  { "scan/random", 16, 0, GROW_N, FALSE, FALSE, "n log n (measured; Lemma 2.27)" },
  { "permute/fisher-yates", 8, 0, GROW_N, TRUE, FALSE, "n log n (measured)" },
  { "binsearch/sorted", 8, 0, GROW_N_LOG_N, TRUE, FALSE, "n log^2 n (measured; Lemma 2.28)" },
  { "binsearch/veb", 16, 0, GROW_N_LOG_N, FALSE, FALSE, "n log n (Theorem 2.32)" },
  { "heap/heapify", 8, 0, GROW_N, FALSE, FALSE, "n (measured, analysed)" },
  { "heap/sort", 8, 0, GROW_N_LOG_N, FALSE, FALSE, "n log^2 n (measured)" },
  { "quicksort/intro", 8, 0, GROW_N_LOG_N, FALSE, FALSE, "n log n (measured; Theorem 2.32)" },
  { "mergesort/bottom-up", 16, 0, GROW_N_LOG_N, FALSE, FALSE, "n log n (sequential passes, CAT)" },
  { "transpose/rows", 16, 0, GROW_N, FALSE, FALSE, "n log n in jumps (Section 2.6.2)" },
  { "transpose/recursive", 16, 0, GROW_N, FALSE, FALSE, "n (recursive order)" },
  { "matmul/naive", 24, (guint64) 1 << 18, GROW_N_SQRT_N, FALSE, TRUE, "N^3 d (column walks)" },
  { "matmul/recursive", 24, (guint64) 1 << 18, GROW_N_SQRT_N, FALSE, TRUE, "N^3 (Theorem 2.32)" },
};

const char *const *
mdl_vat_experiment_algorithms (void)
{
  static const char *const names[] = {
    "scan/seq", "scan/random", "permute/fisher-yates", "binsearch/sorted", "binsearch/veb",
    "heap/heapify", "heap/sort", "quicksort/intro", "mergesort/bottom-up", "transpose/rows",
    "transpose/recursive", "matmul/naive", "matmul/recursive", NULL
  };
  G_STATIC_ASSERT (G_N_ELEMENTS (names) == G_N_ELEMENTS (algo_info) + 1);
  return names;
}

void
mdl_vat_experiment_config_init (MdlVatExperimentConfig *config)
{
  g_return_if_fail (config != NULL);
  *config = (MdlVatExperimentConfig) {
    .machine = "x86-64",
    .max_bytes = (guint64) 32 << 20,
    .min_n = 1024,
    .growth = 1.4,
    .reps = 3,
    .min_seconds = 0.05,
    .algorithms = NULL,
    .huge = TRUE,
    .tc_cells = 0,
    .seed = 1,
    .jobs = 1,
  };
}

/* ---- one run ------------------------------------------------------------------------------ */

typedef struct {
  const VatAlgoInfo *info;
  const MdlAlgo *algo;
  GArray *sizes;          /* guint64 */
} Plan;

/* The run as the calling thread sees it. Work is counted as wall time, in units of estimated CPU
 * work (ops_estimate x stage_weight): a point's timed stage, plus its instrumented stage divided
 * by the workers that share them. */
typedef struct {
  const MdlVatExperimentConfig *cfg;
  MdlVatExperiment *exp;
  GArray *plans;          /* Plan */
  guint step, n_steps;
  guint running;          /* instrumented runs in flight */
  double work_done, work_total;
  guint64 clock_overhead_ns;
  MdlVatJournal *journal; /* NULL: none */
  gboolean thp;           /* the kernel grants 2 MiB pages (always_huge algorithms ask for them) */
  guint timed_now;        /* repetitions this run timed (not read from the journal) */
} Ctx;

static void
report_progress (Ctx *c, const char *algorithm, guint64 n, const char *stage, guint64 events)
{
  MdlVatProgress p = {
    .algorithm = algorithm, .n = n, .stage = stage, .step = c->step, .n_steps = c->n_steps,
    .work_done = c->work_total > 0 ? MIN (1.0, c->work_done / c->work_total) : 0, .events = events,
    .running = c->running,
  };
  if (c->cfg->progress)
    c->cfg->progress (&p, c->cfg->progress_data);
}

/* What the instrumented runs on the workers share with the calling thread, under the lock. */
typedef struct {
  MdlVatExperiment *exp;  /* read-only while the runs go on */
  guint64 seed;
  GAsyncQueue *finished;  /* ModelTask, as they end */
  GMutex lock;
  guint64 events;         /* of every run so far */
} ModelShared;

/* The reports of one point's engines, gathered from the runs that share them (a large point is
 * run once per group of its engines, on several workers); under the shared lock. Slot i is the
 * main pipeline's engine i, the slot after them the random-only caches. */
typedef struct {
  MdlReport **reports;
  guint n_slots;
  guint runs_left;
} PointReports;

/* One instrumented run on a worker: the relay between the algorithm and the engines of its group
 * (slot i belongs to group i mod n_groups). What the engines count cannot depend on the thread:
 * the recorder gives the algorithm's arrays simulated addresses (mdl_recorder_map()). */
typedef struct {
  MdlVatExperiment *exp;
  guint64 seed;
  ModelShared *shared;
  PointReports *point;
  guint group, n_groups;
  MdlPipeline *pipeline;  /* every engine of the point; the relay feeds its group's */
  MdlSink random_only;    /* the caches fed only non-sequential accesses; batch NULL: none */
  MdlStreams streams;
  GArray *random_events;  /* MdlCpuEvent: the batch being filtered */
  GArray *branch_events;  /* MdlCpuEvent: the branch records, for the warm count; NULL: none */
  gboolean branches_dropped;   /* more than WARM_BRANCHES_MAX: branch_events given up */
  guint64 dependent_reads, chase_reads, writes;   /* counted by the run of group 0 only */
  guint64 unreported;     /* events not yet added to shared->events */
} ModelRun;

static gboolean
in_group (const ModelRun *run, guint slot)
{
  return slot % run->n_groups == run->group;
}

/* Hands @batch, or when it is NULL @marker, to the engines of the run's group; an engine's error
 * is prefixed with its spec, as a pipeline does. */
static gboolean
feed_group (ModelRun *run, const MdlEventBatch *batch, const MdlMarker *marker, GError **error)
{
  for (guint i = run->group; i < mdl_pipeline_n_engines (run->pipeline); i += run->n_groups)
    {
      MdlEngine *e = mdl_pipeline_engine (run->pipeline, i);
      if (!(batch ? mdl_engine_consume (e, batch, error) : mdl_engine_marker (e, marker, error)))
        {
          g_prefix_error (error, "%s: ", mdl_engine_spec (e));
          return FALSE;
        }
    }
  return TRUE;
}

/* Adds the reports of the run's group to its point's; returns the whole set (borrowed) to the
 * last run of the point, which reads the counts, and NULL to the others. */
static MdlReport **
gather_reports (ModelRun *run, MdlPipeline *random_only)
{
  PointReports *pr = run->point;
  guint n_main = mdl_pipeline_n_engines (run->pipeline);
  gboolean last;
  g_mutex_lock (&run->shared->lock);
  if (pr->reports == NULL)
    {
      pr->n_slots = n_main + 1;
      pr->reports = g_new0 (MdlReport *, pr->n_slots);
    }
  g_assert (pr->n_slots == n_main + 1);
  g_mutex_unlock (&run->shared->lock);
  for (guint i = run->group; i < pr->n_slots; i += run->n_groups)
    {
      MdlEngine *e = i < n_main ? mdl_pipeline_engine (run->pipeline, i)
                                : random_only ? mdl_pipeline_engine (random_only, 0) : NULL;
      pr->reports[i] = e ? mdl_engine_report (e) : NULL;   /* slot i is this run's alone */
    }
  g_mutex_lock (&run->shared->lock);
  last = --pr->runs_left == 0;
  g_mutex_unlock (&run->shared->lock);
  return last ? pr->reports : NULL;
}

static gboolean
relay_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  ModelRun *run = data;
  run->unreported += batch->n_cpu;
  if (run->group == 0)
    for (gsize i = 0; i < batch->n_cpu; i++)
      {
        guint kind = batch->cpu[i].kind;
        run->dependent_reads += kind == MDL_CPU_READ
                                && (batch->cpu[i].flags & MDL_CPU_FLAG_DEPENDENT);
        run->chase_reads += kind == MDL_CPU_READ && (batch->cpu[i].flags & MDL_CPU_FLAG_CHASE);
        run->writes += kind == MDL_CPU_WRITE || kind == MDL_CPU_MODIFY;
        if (kind == MDL_CPU_BRANCH && run->branch_events)
          {
            if (run->branch_events->len < WARM_BRANCHES_MAX)
              g_array_append_val (run->branch_events, batch->cpu[i]);
            else
              {
                g_clear_pointer (&run->branch_events, g_array_unref);
                run->branches_dropped = TRUE;
              }
          }
      }
  if (run->unreported >= PROGRESS_EVENTS)
    {
      g_mutex_lock (&run->shared->lock);
      run->shared->events += run->unreported;
      g_mutex_unlock (&run->shared->lock);
      run->unreported = 0;
    }
  if (run->random_only.batch && batch->n_cpu)
    {
      MdlEventBatch kept = { 0 };
      g_array_set_size (run->random_events, 0);
      for (gsize i = 0; i < batch->n_cpu; i++)
        if (!mdl_cpu_is_access (batch->cpu[i].kind)
            || !mdl_streams_follow (&run->streams, batch->cpu[i].addr / LINE_BYTES))
          g_array_append_val (run->random_events, batch->cpu[i]);
      kept.cpu = (const MdlCpuEvent *) (void *) run->random_events->data;
      kept.n_cpu = run->random_events->len;
      if (!run->random_only.batch (run->random_only.data, &kept, error))
        return FALSE;
    }
  return feed_group (run, batch, NULL, error);
}

static gboolean
relay_marker (void *data, const MdlMarker *marker, GError **error)
{
  ModelRun *run = data;
  if (run->random_only.marker && !run->random_only.marker (run->random_only.data, marker, error))
    return FALSE;
  return feed_group (run, NULL, marker, error);
}

/* The estimated RAM operations of a run, for the ETA only. */
static double
ops_estimate (const VatAlgoInfo *info, guint64 n)
{
  double x = (double) n;
  switch (info->growth)
    {
    case GROW_N_LOG_N:
      return x * log2 (x + 2);
    case GROW_N_SQRT_N:
      return x * sqrt (x);
    case GROW_N:
    default:
      return x;
    }
}

/* Relative cost of the stages per estimated operation, in CPU time: an instrumented run through
 * the engines against 2 per timed repetition (each builds its input, about as long as the run).
 * At --max-bytes 4M the instrumented runs took 73.8 s of CPU, the three repetitions 52.6 s of
 * wall time at a load of 8 on two cores, about 18 s of CPU (docs/experiments/cpu-model.md,
 * "Where the time goes"): 4 to 1, where a single heap/sort point is 70 to 1. */
#define MODEL_WEIGHT 24
/* Seconds per unit of estimated work (ops_estimate x stage_weight) and per timed point (the
 * min_seconds floor), from the runs on the reference machine, two cores of a shared virtual
 * machine: `--max-bytes 256M` with all thirteen algorithms took 34 minutes, the demo's short run
 * about a minute (with a model weight of 10, 1.14e-8 s; rescaled to the weight of 24 so that one
 * thread's estimates stay the same: x 16 / 30). A faster machine takes less; the estimate is for
 * the order of magnitude. */
#define SECONDS_PER_WORK 6.1e-9

static double
stage_weight (const char *stage, guint reps)
{
  if (strcmp (stage, "model") == 0)
    return MODEL_WEIGHT;
  return 2.0 * reps;
}

/* @huge: the arrays on 2 MiB pages. */
static MdlParams *
algo_params (const MdlAlgo *algo, gboolean huge, GError **error)
{
  const char *const assignments[] = { huge ? "pages=huge" : "pages=4k", NULL };
  return mdl_params_parse (algo->name, algo->params, assignments, error);
}

static guint64
counter (const MdlReport *r, const char *name)
{
  const MdlCounter *c = mdl_report_lookup (r, name);
  return c && !c->is_real ? c->count : 0;
}

/* The counts of the CPU cost model from the cache and tlb reports, and the caches that saw only
 * the non-sequential accesses (with their misses of dependent loads, of chase loads and of
 * stores). */
static void
cost_model_counts (const MdlReport *cache, const MdlReport *tlb, const MdlReport *random_only,
                   MdlVatPoint *pt)
{
  static const char *const misses[VAT_EM_LEVELS] = { "l1_misses", "l2_misses", "l3_misses" };
  static const char *const dependent[VAT_EM_LEVELS] = { "l1_dependent_misses",
                                                        "l2_dependent_misses",
                                                        "l3_dependent_misses" };
  static const char *const stores[VAT_EM_LEVELS] = { "l1_write_misses", "l2_write_misses",
                                                     "l3_write_misses" };
  static const char *const chases[VAT_EM_LEVELS] = { "l1_chase_misses", "l2_chase_misses",
                                                     "l3_chase_misses" };
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    pt->cache_misses[l] = counter (cache, misses[l]);
  pt->tlb_misses = counter (tlb, "l1_misses");
  pt->walks = counter (tlb, "walks");
  pt->dependent_walks = counter (tlb, "dependent_walks");
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    {
      pt->random_misses[l] = counter (random_only, misses[l]);
      pt->dependent_misses[l] = counter (random_only, dependent[l]);
      pt->random_write_misses[l] = counter (random_only, stores[l]);
      pt->chase_misses[l] = counter (random_only, chases[l]);
    }
}

/* The mispredictions of a second pass of the branch engine over the same outcomes @branches: the
 * timed repetitions replay one input, and the minimum time comes from a repetition whose
 * predictor has seen that input's branches before; where it holds them all (a short run's), the
 * repetition pays for few mispredictions. */
static guint64
warm_mispredicts (const GArray *branches)
{
  g_autoptr (MdlEngine) engine = mdl_engine_new ("branch", NULL);
  g_autoptr (MdlReport) cold = NULL;
  g_autoptr (MdlReport) warm = NULL;
  MdlEventBatch batch = { .cpu = (const MdlCpuEvent *) (const void *) branches->data,
                          .n_cpu = branches->len };
  g_assert (engine != NULL);
  mdl_engine_consume (engine, &batch, NULL);   /* the branch engine fails on nothing */
  cold = mdl_engine_report (engine);
  mdl_engine_consume (engine, &batch, NULL);
  warm = mdl_engine_report (engine);
  return counter (warm, "mispredicts") - counter (cold, "mispredicts");
}

/* The tlb engine of @exp's machine on 2 MiB pages: its spec names every parameter, page size
 * first (host_tlb_spec). */
static char *
huge_tlb_spec (const MdlVatExperiment *exp, GError **error)
{
  static const char small[] = "tlb:page_bytes=4096,";
  if (!g_str_has_prefix (exp->tlb_spec, small))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: the tlb engine \"%s\" "
                   "does not start with %s", exp->tlb_spec, small);
      return NULL;
    }
  return g_strdup_printf ("tlb:page_bytes=%u,%s", 2u << 20, exp->tlb_spec + strlen (small));
}

/* The instrumented run of one point through the engines of the run's group; the point's last run
 * reads every group's reports into it. @huge: the point is of the huge-page series; @on_huge: its
 * arrays were on 2 MiB pages (the huge series, and the always_huge algorithms' main series), which
 * the VAT and TLB engines then model. */
static gboolean
model_point (ModelRun *run, const Plan *plan, gboolean huge, gboolean on_huge, MdlVatPoint *pt,
             guint64 *checksum, GError **error)
{
  MdlVatExperiment *exp = run->exp;
  g_autoptr (MdlParams) params = algo_params (plan->algo, on_huge, error);
  g_autoptr (MdlPipeline) pipeline = mdl_pipeline_new ();
  g_autofree char *main_spec = g_strdup_printf ("vat:machine=%s,policy=lru,W=%" G_GUINT64_FORMAT
                                                "%s", exp->machine, exp->tc_cells,
                                                on_huge ? ",huge=1" : "");
  g_autofree char *tlb_spec = NULL;
  gint em_engine[VAT_EM_LEVELS] = { -1, -1, -1 };
  gint hier_engine = -1;
  guint n_engines = 1;
  g_autoptr (MdlPipeline) random_only = NULL;
  MdlReport **reports;
  MdlSink sink;
  gboolean ok;

  if (params == NULL
      || (tlb_spec = on_huge ? huge_tlb_spec (exp, error) : g_strdup (exp->tlb_spec)) == NULL
      || !mdl_pipeline_add_engine_spec (pipeline, main_spec, error))
    return FALSE;
  if (!huge)
    {
      g_autofree char *small = g_strdup_printf ("vat:machine=%s,policy=lru,W=%" G_GUINT64_FORMAT
                                                "%s", exp->machine, exp->tc_small,
                                                on_huge ? ",huge=1" : "");
      if (!mdl_pipeline_add_engine_spec (pipeline, small, error))
        return FALSE;
      n_engines++;
      /* A level the arrays fit in misses only on first touches, which level 1 counts too. */
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        if (exp->cache_bytes[l] && (l == 0 || pt->bytes > exp->cache_bytes[l]))
          {
            g_autofree char *spec = g_strdup_printf ("vat:policy=lru,P=%d,K=" LINE_TREE_ARITY
                                                     ",d=1,W=%" G_GUINT64_FORMAT, LINE_BYTES,
                                                     exp->cache_bytes[l] / LINE_BYTES + 1);
            if (!mdl_pipeline_add_engine_spec (pipeline, spec, error))
              return FALSE;
            em_engine[l] = (gint) n_engines++;
          }
      /* The CPU cost model's counts: this machine's caches and TLBs, and the same caches fed
       * only the accesses no stream prefetcher would have fetched ahead. */
      if (!mdl_pipeline_add_engine_spec (pipeline, exp->cache_spec, error)
          || !mdl_pipeline_add_engine_spec (pipeline, tlb_spec, error)
          || !mdl_pipeline_add_engine_spec (pipeline, "branch", error))
        return FALSE;
      hier_engine = (gint) n_engines;
      n_engines += 3;
      random_only = mdl_pipeline_new ();
      if (!mdl_pipeline_add_engine_spec (random_only, exp->cache_spec, error))
        return FALSE;
    }

  run->pipeline = pipeline;
  if (run->group == 0 && !huge)
    run->branch_events = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  run->random_only = random_only && in_group (run, n_engines) ? mdl_pipeline_sink (random_only)
                                                              : (MdlSink) { 0 };
  mdl_streams_init (&run->streams);
  sink = (MdlSink) { .batch = relay_batch, .marker = relay_marker, .data = run };
  ok = mdl_algo_run_into (plan->algo, params, pt->n, run->seed, &sink, checksum, error);
  run->random_only = (MdlSink) { 0 };
  if (!ok)
    return FALSE;
  /* Group 0 writes only these fields of the point, the last run the others. */
  if (run->group == 0)
    {
      pt->dependent_reads = run->dependent_reads;
      pt->chase_reads = run->chase_reads;
      pt->writes = run->writes;
      /* G_MAXUINT64 until the last run reads the cold count (which the warm one then equals). */
      if (run->branch_events)
        pt->warm_mispredicts = warm_mispredicts (run->branch_events);
      else if (run->branches_dropped)
        pt->warm_mispredicts = G_MAXUINT64;
      g_clear_pointer (&run->branch_events, g_array_unref);
    }

  g_assert (mdl_pipeline_n_engines (pipeline) == n_engines);
  if ((reports = gather_reports (run, random_only)) == NULL)
    return TRUE;   /* another group's run reads them */
  pt->ram_ops = counter (reports[0], "ram_ops");
  pt->accesses = counter (reports[0], "accesses");
  pt->tc_misses = counter (reports[0], "tc_misses");
  if (!huge)
    {
      guint64 first_touch = 0;
      pt->tc_misses_small = counter (reports[1], "tc_misses");
      /* The root of the line tree is one miss and one compulsory node; the lines are the rest. */
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        if (em_engine[l] >= 0)
          {
            pt->em_misses[l] = counter (reports[em_engine[l]], "tc_misses") - 1;
            if (l == 0)
              pt->lines = first_touch = counter (reports[em_engine[l]], "compulsory") - 1;
          }
        else if (exp->cache_bytes[l])
          pt->em_misses[l] = first_touch;
      cost_model_counts (reports[hier_engine], reports[hier_engine + 1], reports[n_engines], pt);
      pt->branches = counter (reports[hier_engine + 2], "branches");
      pt->mispredicts = counter (reports[hier_engine + 2], "mispredicts");
      if (pt->warm_mispredicts == G_MAXUINT64)
        pt->warm_mispredicts = pt->mispredicts;
    }
  return TRUE;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* The timing of one point across the passes: its repetitions are spread over the whole run, one
 * batch per pass, so that a burst of load on a shared machine (other processes, the hypervisor)
 * spoils one batch of each point rather than all repetitions of a few points. */
typedef struct {
  const Plan *plan;
  guint64 n;
  gboolean huge;      /* of the huge-page series */
  gboolean on_huge;   /* its arrays asked for 2 MiB pages (decided in pass 0) */
  guint64 checksum;   /* of the first native run */
  guint per_pass;     /* repetitions in each pass (more for small sizes) */
  GArray *times;      /* double seconds */
  guint64 huge_asked; /* bytes each repetition asked for on 2 MiB pages (on_huge) */
  GArray *granted;    /* guint64 bytes granted, per repetition as times (on_huge) */
} Timing;

static void
timing_clear (Timing *t)
{
  g_clear_pointer (&t->times, g_array_unref);
  g_clear_pointer (&t->granted, g_array_unref);
}

/* Whether the arrays of a journaled pass asked for 2 MiB pages: a pass journaled before s8 has
 * no grants, and ran on its series' pages. */
static gboolean
journaled_on_huge (const MdlVatJournalTime *jt, gboolean huge)
{
  return huge || jt->huge_granted != NULL;
}

/* Adds a journal pass's repetitions to @t; FALSE when their pages are not @t's. */
static gboolean
timing_add_journaled (Timing *t, const MdlVatJournalTime *jt)
{
  if (journaled_on_huge (jt, t->huge) != t->on_huge)
    return FALSE;
  g_array_append_vals (t->times, jt->seconds->data, jt->seconds->len);
  if (jt->huge_granted)
    {
      t->huge_asked = jt->huge_asked;
      g_array_append_vals (t->granted, jt->huge_granted->data, jt->huge_granted->len);
    }
  return TRUE;
}

/* Journals the pass of @t whose repetitions start at @first. */
static gboolean
timing_journal (Ctx *c, const Timing *t, guint pass, guint first, GError **error)
{
  return c->journal == NULL
         || mdl_vat_journal_add_time (c->journal, t->plan->algo->name, t->n, t->huge, pass,
                                      t->per_pass, t->checksum,
                                      &g_array_index (t->times, double, first),
                                      t->times->len - first, t->on_huge ? t->huge_asked : 0,
                                      t->on_huge ? &g_array_index (t->granted, guint64, first)
                                                 : NULL, error);
}

/* @count native repetitions of a point; checks each against the first one's checksum (and the
 * instrumented run's checks that one, model_passes). */
static gboolean
time_reps (Ctx *c, Timing *t, guint count, GError **error)
{
  g_autoptr (MdlParams) params = algo_params (t->plan->algo, t->on_huge, error);
  if (params == NULL)
    return FALSE;
  for (guint r = 0; r < count; r++)
    {
      guint64 sum = 0;
      double seconds = 0;
      MdlHugeTally before, after;
      mdl_algo_huge_tally (&before);
      if (!t->plan->algo->run_timed (params, t->n, c->cfg->seed, &sum, &seconds, error))
        return FALSE;
      mdl_algo_huge_tally (&after);
      if (t->on_huge)
        {
          guint64 granted = after.granted_bytes - before.granted_bytes;
          t->huge_asked = after.asked_bytes - before.asked_bytes;
          g_array_append_val (t->granted, granted);
        }
      if (t->times->len == 0)
        t->checksum = sum;
      else if (sum != t->checksum)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s n=%" G_GUINT64_FORMAT ": the native "
                       "build's checksum %" G_GUINT64_FORMAT " differs from its first run's %"
                       G_GUINT64_FORMAT, t->plan->algo->name, t->n, sum, t->checksum);
          return FALSE;
        }
      seconds = MAX (seconds - (double) c->clock_overhead_ns * 1e-9, 1e-9);
      g_array_append_val (t->times, seconds);
      c->timed_now++;
    }
  return TRUE;
}

/* Pass 0 of a point: a first repetition, which sets how many each pass does: small sizes repeat
 * until min_seconds of timed work in all, their minimum needing many draws. */
static gboolean
first_pass (Ctx *c, const Plan *plan, guint64 n, gboolean huge, Timing *t, GError **error)
{
  MdlVatPoint pt = { .algorithm = plan->algo->name, .n = n, .huge_pages = huge,
                     .vat_ns = NAN, .em_ns = NAN };
  const MdlVatJournalTime *jt;
  double ops = ops_estimate (plan->info, n), first;
  guint total;

  pt.bytes = n * plan->info->bytes_per_elem;
  *t = (Timing) { .plan = plan, .n = n, .huge = huge, .per_pass = 1,
                  .on_huge = huge || (plan->info->always_huge && c->thp),
                  .times = g_array_new (FALSE, FALSE, sizeof (double)),
                  .granted = g_array_new (FALSE, FALSE, sizeof (guint64)) };
  report_progress (c, plan->algo->name, n, "time", 0);
  if (c->journal && (jt = mdl_vat_journal_time (c->journal, plan->algo->name, n, huge, 0)))
    {
      /* The journal's pages rule: a point timed before s8 ran on 4 KiB pages, and its later
       * passes and counts must be too. */
      t->on_huge = journaled_on_huge (jt, huge);
      t->per_pass = jt->per_pass;
      t->checksum = jt->checksum;
      timing_add_journaled (t, jt);
      c->step++;
      g_array_append_val (c->exp->points, pt);
      return TRUE;
    }
  if (!time_reps (c, t, 1, error))
    return FALSE;
  first = g_array_index (t->times, double, 0);
  total = c->cfg->reps;
  if (first * total < c->cfg->min_seconds)
    total = (guint) MIN ((double) MAX_REPS, ceil (c->cfg->min_seconds / first));
  t->per_pass = (total + c->cfg->reps - 1) / c->cfg->reps;
  if (t->per_pass > 1 && !time_reps (c, t, t->per_pass - 1, error))
    return FALSE;
  if (!timing_journal (c, t, 0, 0, error))
    return FALSE;
  c->step++;
  c->work_done += ops * stage_weight ("time", 1);
  g_array_append_val (c->exp->points, pt);
  return TRUE;
}

/* The point's time from its repetitions: on 2 MiB pages, from those that got them all, when any
 * did (pt->huge_granted says how much the others missed); else from all. A point whose grants
 * were not recorded for every repetition (passes journaled before s8) counts as unknown. */
static void
finish_timing (MdlVatPoint *pt, Timing *t)
{
  g_autoptr (GArray) kept = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean known = t->on_huge && t->granted->len == t->times->len;
  guint64 granted = 0;
  pt->huge_asked = t->on_huge;
  pt->huge_granted = NAN;
  for (guint r = 0; known && r < t->granted->len; r++)
    {
      guint64 g = g_array_index (t->granted, guint64, r);
      granted += g;
      if (g >= t->huge_asked)
        g_array_append_val (kept, g_array_index (t->times, double, r));
    }
  if (known && t->huge_asked > 0)
    pt->huge_granted = (double) granted / ((double) t->huge_asked * t->granted->len);
  if (kept->len == 0)
    g_array_append_vals (kept, t->times->data, t->times->len);
  g_array_sort (kept, cmp_double);
  pt->reps = kept->len;
  pt->seconds = g_array_index (kept, double, 0);
  pt->seconds_median = g_array_index (kept, double, kept->len / 2);
  pt->norm_ns = pt->ram_ops ? pt->seconds * 1e9 / (double) pt->ram_ops : NAN;
}

/* The spread of a point's pass minima, largest / smallest: how far its time would have moved
 * had the run made one pass. Passes hold per_pass repetitions each, in order; 1 with one pass. */
static double
timing_pass_spread (const Timing *t)
{
  double lo = INFINITY, hi = 0;
  for (guint first = 0; first + t->per_pass <= t->times->len; first += t->per_pass)
    {
      double m = INFINITY;
      for (guint r = first; r < first + t->per_pass; r++)
        m = MIN (m, g_array_index (t->times, double, r));
      lo = MIN (lo, m);
      hi = MAX (hi, m);
    }
  return lo < INFINITY && lo > 0 ? hi / lo : 1;
}

/* Whether the host stayed as fast while it timed, from the probes run before and after the
 * timed passes (journals before s10 have no second probe, and get no line): a notes line with
 * both probes' L1 and memory chases and the spread of the points' pass minima, and a warning when
 * a chase moved by more than DRIFT_SHARE, which a clock or a neighbour changing does. */
#define DRIFT_SHARE 0.10
static void
add_steadiness (MdlVatExperiment *exp, const MdlProbe *end, GArray *timings)
{
  static const struct { guint level; const char *name; } chases[] = { { 0, "L1" },
                                                                       { 3, "memory" } };
  g_autoptr (GArray) spreads = g_array_new (FALSE, FALSE, sizeof (double));
  const Timing *widest = NULL;
  double widest_spread = 0;
  g_string_append (exp->notes, "steadiness: probe before / after the timed runs:");
  for (guint i = 0; i < G_N_ELEMENTS (chases); i++)
    {
      double a = exp->probe.chase_ns[chases[i].level], b = end->chase_ns[chases[i].level];
      g_string_append_printf (exp->notes, "%s %s chase %.2f / %.2f ns", i ? "," : "",
                              chases[i].name, a, b);
      if (fabs (b / a - 1) > DRIFT_SHARE)
        g_string_append_printf (exp->warnings, "the host drifted while it timed: the %s chase "
                                "took %.2f ns before the timed runs and %.2f ns after (x%.2f); "
                                "the points' times mix both states\n", chases[i].name, a, b,
                                b / a);
    }
  for (guint i = 0; i < timings->len; i++)
    {
      const Timing *t = &g_array_index (timings, Timing, i);
      double s = timing_pass_spread (t);
      g_array_append_val (spreads, s);
      if (s > widest_spread)
        widest_spread = s, widest = t;
    }
  g_array_sort (spreads, cmp_double);
  if (widest != NULL && widest_spread > 1)
    g_string_append_printf (exp->notes, "; the points' pass minima spread (largest / smallest) "
                            "a median x%.3f, 90th percentile x%.3f, most x%.3f (%s n=%"
                            G_GUINT64_FORMAT ")",
                            g_array_index (spreads, double, spreads->len / 2),
                            g_array_index (spreads, double, (spreads->len - 1) * 9 / 10),
                            widest_spread, widest->plan->algo->name, widest->n);
  g_string_append_c (exp->notes, '\n');
}

/* ---- set-up ------------------------------------------------------------------------------- */

static gboolean
preset_uint (const char *machine, const char *key, gboolean required, guint64 *out,
             GError **error)
{
  g_autofree char *value = NULL;
  char *end = NULL;
  if (!mdl_machine_get (machine, key, &value, error))
    return FALSE;
  if (value == NULL)
    {
      if (!required)
        return TRUE;
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: machine %s has no %s; the "
                   "experiment needs a CPU preset with page_bytes, tree_arity, tree_depth and "
                   "l1_dtlb_entries", machine, key);
      return FALSE;
    }
  /* A digit first: g_ascii_strtoull also takes a sign and reads "-1" as 2^64 - 1 (as
   * vat-journal.c's fields). */
  *out = g_ascii_strtoull (value, &end, 10);
  if (!g_ascii_isdigit (value[0]) || *end != '\0')
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "experiment vat: machine %s: %s=%s is not "
                   "an unsigned integer", machine, key, value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_config (const MdlVatExperimentConfig *cfg, GError **error)
{
  if (cfg->growth < 1.05 || cfg->growth > 16 || !isfinite (cfg->growth))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: growth %g is out of range "
                   "(1.05..16; the thesis used 1.4)", cfg->growth);
      return FALSE;
    }
  if (cfg->reps < 1 || cfg->reps > MAX_REPS)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: reps=%u is out of range "
                   "(1..%d)", cfg->reps, MAX_REPS);
      return FALSE;
    }
  if (cfg->min_n < 16 || cfg->min_n > ((guint64) 1 << 40))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: min_n=%" G_GUINT64_FORMAT
                   " is out of range (16..2^40)", cfg->min_n);
      return FALSE;
    }
  if (cfg->max_bytes < cfg->min_n * 24)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: max-bytes %" G_GUINT64_FORMAT
                   " leaves no size to run (the smallest run, %" G_GUINT64_FORMAT " elements, "
                   "needs up to %" G_GUINT64_FORMAT " bytes)", cfg->max_bytes, cfg->min_n,
                   cfg->min_n * 24);
      return FALSE;
    }
  if (cfg->jobs < 1 || cfg->jobs > MAX_JOBS)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: jobs=%u is out of range "
                   "(1..%d)", cfg->jobs, MAX_JOBS);
      return FALSE;
    }
  if (!(cfg->min_seconds >= 0) || cfg->min_seconds > 60)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: min_seconds %g is out of "
                   "range (0..60)", cfg->min_seconds);
      return FALSE;
    }
  return TRUE;
}

static const VatAlgoInfo *
info_lookup (const char *name, GError **error)
{
  g_autoptr (GString) valid = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (algo_info); i++)
    {
      if (strcmp (algo_info[i].name, name) == 0)
        return &algo_info[i];
      g_string_append_printf (valid, "%s%s", i ? ", " : "", algo_info[i].name);
    }
  g_set_error (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, "experiment vat: unknown algorithm \"%s\"; "
               "valid: %s", name, valid->str);
  return NULL;
}

static guint64
clock_overhead_ns (void)
{
  guint64 best = G_MAXUINT64;
  for (guint i = 0; i < 1000; i++)
    {
      gint64 a, b;
      struct timespec t0, t1;
      clock_gettime (CLOCK_MONOTONIC, &t0);
      clock_gettime (CLOCK_MONOTONIC, &t1);
      a = (gint64) t0.tv_sec * 1000000000 + t0.tv_nsec;
      b = (gint64) t1.tv_sec * 1000000000 + t1.tv_nsec;
      best = MIN (best, (guint64) (b - a));
    }
  return best;
}

static void
plan_clear (Plan *p)
{
  g_clear_pointer (&p->sizes, g_array_unref);
}

/* How the model and the host were set up: what the notes report beside the model's parameters. */
typedef struct {
  double load;               /* the 1-minute load average at the start */
  guint64 psc;               /* paging-structure cache entries counted in W; 0 when W was given */
  const char *cache_source;  /* where the cache sizes came from */
  char *thp_status;          /* what became of the huge-page series, and why */
  gboolean huge;             /* the huge-page series runs */
  gboolean thp;              /* the probe got 2 MiB pages */
} Setup;

static void
setup_clear (Setup *setup)
{
  g_clear_pointer (&setup->thp_status, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Setup, setup_clear)

static MdlVatExperiment *
experiment_new (const MdlVatExperimentConfig *cfg)
{
  MdlVatExperiment *exp = g_new0 (MdlVatExperiment, 1);
  exp->points = g_array_new (FALSE, TRUE, sizeof (MdlVatPoint));
  exp->fits = g_array_new (FALSE, TRUE, sizeof (MdlVatFitInfo));
  exp->slopes = g_array_new (FALSE, TRUE, sizeof (MdlVatSlope));
  exp->notes = g_string_new (NULL);
  exp->warnings = g_string_new (NULL);
  exp->machine = g_strdup (cfg->machine ? cfg->machine : "x86-64");
  exp->max_bytes = cfg->max_bytes;
  exp->growth = cfg->growth;
  exp->reps = cfg->reps;
  exp->cpu_model = mdl_host_cpu_model ();
  /* A quarter of the bound for small runs, so that some sizes lie beyond the split. */
  exp->split_bytes = MIN (VAT_SPLIT_BYTES, cfg->max_bytes / 4);
  return exp;
}

/* P, K and d from the preset, and the two models' W: the TLBs and paging-structure caches unless
 * the configuration gives W, and the L1 DTLB alone (at least a whole path, d + 1). */
static gboolean
model_from_preset (MdlVatExperiment *exp, const MdlVatExperimentConfig *cfg, Setup *setup,
                   GError **error)
{
  guint64 l1_tlb = 0, l2_tlb = 0;
  if (!preset_uint (exp->machine, "page_bytes", TRUE, &exp->page_bytes, error)
      || !preset_uint (exp->machine, "tree_arity", TRUE, &exp->arity, error)
      || !preset_uint (exp->machine, "tree_depth", TRUE, &exp->depth, error)
      || !preset_uint (exp->machine, "l1_dtlb_entries", TRUE, &l1_tlb, error)
      || !preset_uint (exp->machine, "l2_tlb_entries", FALSE, &l2_tlb, error))
    return FALSE;
  exp->tc_small = MAX (l1_tlb, exp->depth + 1);
  exp->tc_cells = cfg->tc_cells ? cfg->tc_cells : l1_tlb + l2_tlb + PSC_CELLS;
  setup->psc = cfg->tc_cells ? 0 : PSC_CELLS;
  return TRUE;
}

/* The largest power-of-two number of sets of @assoc ways that a cache of @bytes holds: the cache
 * engine needs a power of two (a 12-way 48 KiB L1 has exactly 64; a 15-way L3 of 105 MiB is
 * modelled with 65536 sets, 60 MiB). */
static guint64
pow2_sets (guint64 bytes, guint assoc)
{
  guint64 sets = 1;
  while (sets * 2 * assoc * LINE_BYTES <= bytes)
    sets *= 2;
  return sets;
}

/* The sizes of the ideal caches: this machine's (the host preset: sysfs, else cpuid), else the
 * experiment preset's L1 and L2, each replaced by the configuration's where it gives one; and
 * the cost model's set-associative caches of the same sizes with the host's ways. */
static gboolean
cache_sizes (MdlVatExperiment *exp, const MdlVatExperimentConfig *cfg, Setup *setup,
             GError **error)
{
  static const char *const size_key[VAT_EM_LEVELS] = { "l1d_bytes", "l2_bytes", "l3_bytes" };
  static const char *const assoc_key[VAT_EM_LEVELS] = { "l1d_assoc", "l2_assoc", "l3_assoc" };
  guint64 preset_cache[2] = { 0, 0 };
  g_autofree char *source = NULL;
  g_autoptr (GString) levels = g_string_new (NULL);
  if (!preset_uint (exp->machine, "l1d_bytes", FALSE, &preset_cache[0], error)
      || !preset_uint (exp->machine, "l2_bytes", FALSE, &preset_cache[1], error)
      || !mdl_machine_get ("host", "cache_source", &source, error))
    return FALSE;
  /* The caches of the machine measured, not of the preset: the EM model is about this one. */
  setup->cache_source = g_str_equal (source, "sysfs") ? "sizes from sysfs" : "sizes from cpuid";
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    {
      guint64 assoc = 8;
      exp->cache_bytes[l] = 0;
      if (!preset_uint ("host", size_key[l], FALSE, &exp->cache_bytes[l], error)
          || !preset_uint ("host", assoc_key[l], FALSE, &assoc, error))
        return FALSE;
      exp->cache_assoc[l] = (guint) MIN (assoc, 64);
    }
  if (exp->cache_bytes[0] == 0)
    {
      exp->cache_bytes[0] = preset_cache[0];
      exp->cache_bytes[1] = preset_cache[1];
      exp->cache_bytes[2] = 0;
      setup->cache_source = "sysfs and cpuid unreadable: L1 and L2 from the preset, no L3";
    }
  if (cfg->cache_bytes[0] || cfg->cache_bytes[1] || cfg->cache_bytes[2])
    {
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        if (cfg->cache_bytes[l])
          exp->cache_bytes[l] = cfg->cache_bytes[l];
      setup->cache_source = "sizes given, the others from sysfs";
    }
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    if (exp->cache_bytes[l] && exp->cache_bytes[l] < LINE_BYTES)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: an L%u of %" G_GUINT64_FORMAT
                     " bytes holds no 64-byte line", l + 1, exp->cache_bytes[l]);
        return FALSE;
      }
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    {
      /* A level the run does not know is modelled as a tiny one that every access misses, so
       * the level below it takes the misses, as with the EM levels. */
      /* A level over twice the largest arrays holds all of them whatever its size, so it is
       * modelled no larger: cpuid reports a whole socket's L3 (508 MiB on our VM), whose tables
       * the cache engine would allocate and clear at every point. */
      guint assoc = exp->cache_bytes[l] ? CLAMP (exp->cache_assoc[l], 1, 64) : 1;
      guint64 modelled = MIN (exp->cache_bytes[l], 2 * cfg->max_bytes);
      guint64 sets = exp->cache_bytes[l] ? pow2_sets (modelled, assoc) : 1;
      exp->cache_assoc[l] = assoc;
      g_string_append_printf (levels, "%s%" G_GUINT64_FORMAT ":%u:%d", l ? "/" : "",
                              sets * assoc * LINE_BYTES, assoc, LINE_BYTES);
    }
  exp->cache_spec = g_strdup_printf ("cache:levels=%s", levels->str);
  return TRUE;
}

/* Whether the kernel grants 2 MiB pages (a probe of 16 MiB got some), which the matrix products
 * then run on, and whether the huge-page series runs: asked for, and granted. */
static void
probe_huge_pages (const MdlVatExperimentConfig *cfg, Setup *setup)
{
  g_autofree char *thp = NULL;
  gint64 got;
  setup->huge = setup->thp = FALSE;
  thp = mdl_host_thp_mode ();
  if (thp == NULL)
    {
      setup->thp_status = g_strdup ("not measured: this kernel has no transparent huge pages");
      return;
    }
  if (strcmp (thp, "never") == 0)
    {
      setup->thp_status = g_strdup ("not measured: transparent huge pages are disabled "
                                    "(/sys/kernel/mm/transparent_hugepage/enabled is \"never\")");
      return;
    }
  got = mdl_host_thp_probe ((guint64) 16 << 20);
  setup->thp = got > 0;
  setup->huge = cfg->huge && setup->thp;
  setup->thp_status = g_strdup_printf ("transparent huge pages in mode \"%s\"; probe: %"
                                       G_GINT64_FORMAT " MiB of 16 MiB madvised got 2 MiB pages, "
                                       "so the matrix products run on %s pages and the huge-page "
                                       "series is %s", thp, got < 0 ? (gint64) -1 : got >> 20,
                                       setup->thp ? "2 MiB" : "4 KiB",
                                       setup->huge ? "measured"
                                                   : cfg->huge ? "not measured"
                                                               : "not measured (not asked for)");
}

/* The plan of algorithm @names[@i]: its table row, its registry entry (which must have a timed
 * native build), listed once. */
static gboolean
plan_lookup (const char *const *names, guint i, Plan *plan, GError **error)
{
  if ((plan->info = info_lookup (names[i], error)) == NULL
      || (plan->algo = mdl_algo_lookup (names[i], error)) == NULL)
    return FALSE;
  if (plan->algo->run_timed == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "experiment vat: algorithm %s has no "
                   "timed native build", names[i]);
      return FALSE;
    }
  for (guint j = 0; j < i; j++)
    if (strcmp (names[j], names[i]) == 0)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: algorithm %s is listed "
                     "twice", names[i]);
        return FALSE;
      }
  return TRUE;
}

/* The sizes of @plan: from min_n, growing by the factor, up to what max_bytes and the algorithm's
 * cap allow (distinct after rounding); counts their steps and estimated work in @c for the ETA. */
static void
plan_sizes (Ctx *c, Plan *plan, gboolean huge)
{
  const MdlVatExperimentConfig *cfg = c->cfg;
  gboolean both = huge && plan->info->huge_series;
  guint64 cap = cfg->max_bytes / plan->info->bytes_per_elem;
  double size = (double) cfg->min_n;
  if (plan->info->max_n)
    cap = MIN (cap, plan->info->max_n);
  plan->sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint64 n = cfg->min_n; n <= cap; size *= cfg->growth, n = (guint64) llround (size))
    if (plan->sizes->len == 0 || n > g_array_index (plan->sizes, guint64, plan->sizes->len - 1))
      {
        g_array_append_val (plan->sizes, n);
        c->n_steps += (both ? 2 : 1) * (1 + cfg->reps);
        c->work_total += ops_estimate (plan->info, n) * (stage_weight ("model", cfg->reps)
                                                         / cfg->jobs
                                                         + stage_weight ("time", cfg->reps))
                         * (both ? 2 : 1);
      }
}

/* Appends to @plans the plans of the algorithms asked for, in their order; an algorithm whose cap
 * leaves no size is skipped with a note. */
static gboolean
make_plans (Ctx *c, GArray *plans, gboolean huge, GError **error)
{
  const char *const *names = c->cfg->algorithms ? c->cfg->algorithms
                                                : mdl_vat_experiment_algorithms ();
  for (guint i = 0; names[i]; i++)
    {
      Plan plan = { 0 };
      if (!plan_lookup (names, i, &plan, error))
        return FALSE;
      plan_sizes (c, &plan, huge);
      if (plan.sizes->len == 0)
        {
          g_string_append_printf (c->exp->notes, "skipped %s: its size cap leaves no size from %"
                                  G_GUINT64_FORMAT " elements\n", names[i], c->cfg->min_n);
          plan_clear (&plan);
          continue;
        }
      g_array_append_val (plans, plan);
    }
  if (plans->len == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: no algorithm to run");
      return FALSE;
    }
  return TRUE;
}

static void
write_notes (MdlVatExperiment *exp, const MdlVatExperimentConfig *cfg, const Setup *setup,
             guint64 clock_ns)
{
  GString *n = exp->notes;
  g_autofree char *max_text = NULL;
  /* A refit measures nothing here: the journal's note names where the timings come from. */
  g_string_append_printf (n, "%s: %s, %u CPUs%s, load average %.2f at the start\n",
                          cfg->refit_only ? "refitted on (nothing measured)" : "host",
                          exp->cpu_model, g_get_num_processors (),
                          mdl_host_is_vm () ? ", under a hypervisor (2-level address translation)"
                                            : "", setup->load);
  g_string_append_printf (n, "model: machine=%s: P=%" G_GUINT64_FORMAT " K=%" G_GUINT64_FORMAT
                          " d=%" G_GUINT64_FORMAT ", policy lru; W=%" G_GUINT64_FORMAT " (%s)\n",
                          exp->machine, exp->page_bytes, exp->arity, exp->depth, exp->tc_cells,
                          cfg->tc_cells ? "given" : "L1 DTLB + L2 TLB + paging-structure caches");
  if (!cfg->tc_cells)
    g_string_append_printf (n, "  W = %" G_GUINT64_FORMAT " L1 DTLB + %" G_GUINT64_FORMAT
                            " L2 TLB + %" G_GUINT64_FORMAT " paging-structure cache entries; "
                            "second model W=%" G_GUINT64_FORMAT " (L1 DTLB alone)\n",
                            exp->tc_small, exp->tc_cells - exp->tc_small - setup->psc, setup->psc,
                            exp->tc_small);
  g_string_append (n, "external memory: ideal caches (fully associative LRU, 64-byte lines) of");
  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    if (exp->cache_bytes[l])
      {
        g_autofree char *size = mdl_bytes_text (exp->cache_bytes[l]);
        g_string_append_printf (n, " L%u %s", l + 1, size);
      }
  g_string_append_printf (n, " (%s)\n", setup->cache_source);
  g_string_append_printf (n, "sizes: from %" G_GUINT64_FORMAT " elements, x%.2f, arrays up to %s"
                          "; time: minimum of at least %u repetitions (clock overhead %"
                          G_GUINT64_FORMAT " ns subtracted)\n", cfg->min_n, cfg->growth,
                          max_text = mdl_bytes_text (cfg->max_bytes), cfg->reps, clock_ns);
  g_string_append_printf (n, "huge pages: %s\n", setup->thp_status);
}

/* ---- the passes --------------------------------------------------------------------------- */

/* Pass 0: every point of every plan is timed once, which appends it to the experiment; returns
 * the timings, one per point, in the points' order. The two page sizes of one n run back to back,
 * so that both see the same machine. */
static GArray *
first_passes (Ctx *c, GArray *plans, gboolean huge, GError **error)
{
  g_autoptr (GArray) timings = g_array_new (FALSE, TRUE, sizeof (Timing));
  g_array_set_clear_func (timings, (GDestroyNotify) timing_clear);
  for (guint a = 0; a < plans->len; a++)
    {
      const Plan *plan = &g_array_index (plans, Plan, a);
      gboolean both = huge && plan->info->huge_series;
      for (guint s = 0; s < plan->sizes->len; s++)
        for (int series = 0; series < (both ? 2 : 1); series++)
          {
            guint64 n = g_array_index (plan->sizes, guint64, s);
            Timing t = { 0 };
            gboolean ok = first_pass (c, plan, n, series == 1, &t, error);
            g_array_append_val (timings, t);
            if (!ok)
              {
                g_prefix_error (error, "experiment vat: %s n=%" G_GUINT64_FORMAT "%s: ",
                                plan->algo->name, n, series ? " (2 MiB pages)" : "");
                return NULL;
              }
          }
    }
  return g_steal_pointer (&timings);
}

/* Pass @pass of point @t: from the journal when it has it, else timed and journaled. */
static gboolean
later_pass (Ctx *c, Timing *t, guint pass, GError **error)
{
  const MdlVatJournalTime *jt = c->journal ? mdl_vat_journal_time (c->journal, t->plan->algo->name,
                                                                   t->n, t->huge, pass)
                                           : NULL;
  guint before = t->times->len;
  if (jt && jt->checksum != t->checksum)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: pass %u's checksum %" G_GUINT64_FORMAT
                   " differs from pass 0's %" G_GUINT64_FORMAT, mdl_vat_journal_path (c->journal),
                   pass, jt->checksum, t->checksum);
      return FALSE;
    }
  if (jt && !timing_add_journaled (t, jt))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: pass %u ran on %s pages, pass 0 on "
                   "%s", mdl_vat_journal_path (c->journal), pass, t->on_huge ? "4 KiB" : "2 MiB",
                   t->on_huge ? "2 MiB" : "4 KiB");
      return FALSE;
    }
  if (jt)
    return TRUE;
  report_progress (c, t->plan->algo->name, t->n, "time", 0);
  return time_reps (c, t, t->per_pass, error) && timing_journal (c, t, pass, before, error);
}

/* Passes 1..reps-1 time every point again, the odd ones in the reverse order of pass 0: on the
 * lent host's s8 32 MiB run, the first fifth of the points ran a median 1.23 times their
 * minimum in passes 0 and 1 both: a drift tied to the place in a pass hits the same points in
 * every pass, which the minimum cannot undo (docs/experiments/cpu-model.md, "Session 10"). */
static gboolean
later_passes (Ctx *c, GArray *timings, GError **error)
{
  for (guint pass = 1; pass < c->cfg->reps; pass++)
    for (guint k = 0; k < timings->len; k++)
      {
        guint i = pass % 2 ? timings->len - 1 - k : k;
        Timing *t = &g_array_index (timings, Timing, i);
        if (!later_pass (c, t, pass, error))
          {
            g_prefix_error (error, "experiment vat: %s n=%" G_GUINT64_FORMAT ": ",
                            t->plan->algo->name, t->n);
            return FALSE;
          }
        c->step++;
        c->work_done += ops_estimate (t->plan->info, t->n) * stage_weight ("time", 1);
      }
  return TRUE;
}

/* ---- the instrumented runs ----------------------------------------------------------------- */

/* The instrumented run of one point for one group of its engines, a task of the pool. */
typedef struct {
  const Timing *timing;
  MdlVatPoint *pt;        /* its point, which only its last run writes while the pool runs */
  PointReports *reports;  /* its point's */
  guint point;            /* the index of both */
  guint group, n_groups;
  double work;            /* estimated CPU work (ops_estimate x the model's weight / groups) */
  gint64 start_us;        /* 0 until a worker takes it (under the shared lock) */
  double cpu_seconds;     /* the worker's CPU time for it */
  guint64 checksum;       /* the instrumented build's */
  GError *error;
} ModelTask;

static double
thread_cpu_seconds (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);
  return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

static void
model_task_run (gpointer data, gpointer user_data)
{
  ModelTask *task = data;
  ModelShared *shared = user_data;
  ModelRun run = { .exp = shared->exp, .seed = shared->seed, .shared = shared,
                   .point = task->reports, .group = task->group, .n_groups = task->n_groups,
                   .random_events = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent)) };
  const Timing *t = task->timing;
  double cpu_start = thread_cpu_seconds ();
  g_mutex_lock (&shared->lock);
  task->start_us = g_get_monotonic_time ();
  g_mutex_unlock (&shared->lock);
  if (!model_point (&run, t->plan, t->huge, t->on_huge, task->pt, &task->checksum, &task->error))
    g_prefix_error (&task->error, "experiment vat: %s n=%" G_GUINT64_FORMAT "%s: ",
                    t->plan->algo->name, t->n, t->huge ? " (2 MiB pages)" : "");
  else if (task->checksum != t->checksum)
    g_set_error (&task->error, MDL_ERROR, MDL_ERROR_MODEL, "experiment vat: %s n=%"
                 G_GUINT64_FORMAT ": the native build's checksum %" G_GUINT64_FORMAT " differs "
                 "from the instrumented build's %" G_GUINT64_FORMAT, t->plan->algo->name, t->n,
                 t->checksum, task->checksum);
  g_array_unref (run.random_events);
  g_clear_pointer (&run.branch_events, g_array_unref);   /* kept when the run failed */
  task->cpu_seconds = thread_cpu_seconds () - cpu_start;
  g_mutex_lock (&shared->lock);
  shared->events += run.unreported;
  g_mutex_unlock (&shared->lock);
  g_async_queue_push (shared->finished, task);
}

static double
tasks_max_cpu (const ModelTask *tasks, guint n)
{
  double most = 0;
  for (guint i = 0; i < n; i++)
    most = MAX (most, tasks[i].cpu_seconds);
  return most;
}

static gint
more_work_first (gconstpointer a, gconstpointer b)
{
  const ModelTask *p = *(ModelTask *const *) a, *q = *(ModelTask *const *) b;
  return (p->work < q->work) - (p->work > q->work);
}

/* The share done of the running tasks' work: each one's time so far against its estimate, the
 * estimate scaled by how long the finished tasks took against theirs. Capped, so that a task
 * longer than its estimate never counts as done. Called under the shared lock. */
static double
running_work (GPtrArray *running, double seconds_per_work, gint64 now)
{
  double done = 0;
  for (guint i = 0; i < running->len; i++)
    {
      const ModelTask *task = g_ptr_array_index (running, i);
      if (task->start_us > 0)
        done += task->work * MIN (0.95, (double) (now - task->start_us) / G_USEC_PER_SEC
                                             / (task->work * seconds_per_work));
    }
  return done;
}

/* Groups of engines a point's run is split into: one, unless the run would take more than half
 * of a worker's share of all the runs; then as many as bring each part under it, at most
 * MAX_GROUPS (a 4 KiB point has 7 to 9 engine slots, the random-only caches' included, so no
 * group is empty). Each group runs the algorithm again, which
 * costs about a fifteenth of a whole run's engines (heap/sort, 2^21: 2.3 s of 37 s of CPU). The
 * huge series feeds one engine. */
#define MAX_GROUPS 7

static guint
groups_of (double work, double total, guint jobs, gboolean huge)
{
  if (jobs == 1 || huge)
    return 1;
  return (guint) CLAMP (ceil (2 * work * jobs / total), 1, MAX_GROUPS);
}

/* Marks in @reused the points whose counts the journal has, and copies them into the points;
 * their instrumented checksum must be the timed build's. */
static gboolean
journal_counts (Ctx *c, GArray *timings, gboolean *reused, GError **error)
{
  guint n_reused = 0;
  for (guint i = 0; c->journal && i < timings->len; i++)
    {
      const Timing *t = &g_array_index (timings, Timing, i);
      MdlVatPoint *pt = &g_array_index (c->exp->points, MdlVatPoint, i);
      guint64 checksum;
      if (!(reused[i] = mdl_vat_journal_counts (c->journal, pt, &checksum)))
        continue;
      n_reused++;
      c->step++;
      if (checksum != t->checksum)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: %s n=%" G_GUINT64_FORMAT ": the "
                       "journal's instrumented checksum %" G_GUINT64_FORMAT " differs from the "
                       "native build's %" G_GUINT64_FORMAT, mdl_vat_journal_path (c->journal),
                       t->plan->algo->name, t->n, checksum, t->checksum);
          return FALSE;
        }
    }
  if (n_reused)
    g_string_append_printf (c->exp->notes, "journal: the counts of %u of %u points reused\n",
                            n_reused, timings->len);
  return TRUE;
}

/* The instrumented run of every timed point, cfg->jobs at once on a pool of threads, the largest
 * first so that the long runs start early and the short ones fill the gaps; a large point runs
 * once per group of its engines, on several workers, so that it does not outlast the rest. They
 * run after every timing: a run on another core still shares the L3 and the memory bandwidth
 * with a timed one. What a point counts cannot depend on the threads: each run places its arrays
 * canonically, and each engine sees the whole stream in one run. On a failure the queued runs are
 * dropped, those in flight finish, and the error of the earliest point that failed is returned. */
static gboolean
model_passes (Ctx *c, GArray *timings, GError **error)
{
  ModelShared shared = { .exp = c->exp, .seed = c->cfg->seed, .finished = g_async_queue_new () };
  g_autoptr (GPtrArray) pending = g_ptr_array_new ();   /* queued or running */
  g_autofree PointReports *reports = g_new0 (PointReports, MAX (timings->len, 1));
  g_autofree guint *groups = g_new0 (guint, MAX (timings->len, 1));
  g_autofree gboolean *reused = g_new0 (gboolean, MAX (timings->len, 1));
  g_autofree ModelTask *tasks = NULL;
  double work_start = c->work_done, done_work = 0, done_seconds = 0, total = 0, cpu_seconds = 0;
  const ModelTask *last;  /* the last to end; the largest before any ends */
  GError *first_error = NULL, *journal_error = NULL;
  gboolean failed = FALSE;
  GThreadPool *pool;
  guint n_tasks = 0, done = 0;
  gint64 start_us = g_get_monotonic_time ();

  if (!journal_counts (c, timings, reused, error))
    return FALSE;
  g_mutex_init (&shared.lock);
  for (guint i = 0; i < timings->len; i++)
    {
      const Timing *t = &g_array_index (timings, Timing, i);
      if (!reused[i])
        total += ops_estimate (t->plan->info, t->n) * MODEL_WEIGHT;
    }
  for (guint i = 0; i < timings->len; i++)
    {
      const Timing *t = &g_array_index (timings, Timing, i);
      if (reused[i])
        continue;
      groups[i] = groups_of (ops_estimate (t->plan->info, t->n) * MODEL_WEIGHT, total,
                             c->cfg->jobs, t->huge);
      reports[i].runs_left = groups[i];
      n_tasks += groups[i];
    }
  tasks = g_new0 (ModelTask, MAX (n_tasks, 1));
  for (guint i = 0, k = 0; i < timings->len; i++)
    for (guint g = 0; g < groups[i]; g++, k++)  /* none for a point the journal had */
      {
        const Timing *t = &g_array_index (timings, Timing, i);
        tasks[k] = (ModelTask) { .timing = t, .pt = &g_array_index (c->exp->points, MdlVatPoint, i),
                                 .reports = &reports[i], .point = i, .group = g,
                                 .n_groups = groups[i],
                                 .work = ops_estimate (t->plan->info, t->n) * MODEL_WEIGHT
                                         / groups[i] };
        g_ptr_array_add (pending, &tasks[k]);
      }
  g_ptr_array_sort (pending, more_work_first);
  last = pending->len ? g_ptr_array_index (pending, 0) : NULL;
  pool = g_thread_pool_new (model_task_run, &shared, (gint) c->cfg->jobs, FALSE, NULL);
  for (guint i = 0; i < pending->len; i++)
    g_thread_pool_push (pool, g_ptr_array_index (pending, i), NULL);
  while (done < n_tasks && !failed)
    {
      ModelTask *task = g_async_queue_timeout_pop (shared.finished, G_USEC_PER_SEC / 4);
      gint64 now = g_get_monotonic_time ();
      guint64 events;
      g_mutex_lock (&shared.lock);
      if (task)
        {
          done++;
          g_ptr_array_remove_fast (pending, task);
          failed = task->error != NULL;
          done_work += task->work;
          done_seconds += (double) (now - task->start_us) / G_USEC_PER_SEC;
          last = task;
          if (--groups[task->point] == 0)   /* a step per point */
            {
              c->step++;
              if (!failed && c->journal
                  && !mdl_vat_journal_add_counts (c->journal, task->pt, task->checksum,
                                                  &journal_error))
                failed = TRUE;
            }
        }
      c->running = MIN (c->cfg->jobs, n_tasks - done);
      /* Never backwards: a share that went down would read as an ETA that lies. */
      c->work_done = MAX (c->work_done,
                          work_start + (done_work + running_work (pending, done_work > 0
                                                                           ? done_seconds / done_work
                                                                           : SECONDS_PER_WORK, now))
                                       / c->cfg->jobs);
      events = shared.events;
      g_mutex_unlock (&shared.lock);
      report_progress (c, last->timing->plan->algo->name, last->timing->n, "model", events);
    }
  /* After a failure the queued runs are dropped; those in flight finish and are thrown away. */
  g_thread_pool_free (pool, failed, TRUE);
  g_async_queue_unref (shared.finished);
  g_mutex_clear (&shared.lock);
  c->running = 0;
  for (guint i = 0; i < timings->len; i++)
    {
      for (guint r = 0; reports[i].reports && r < reports[i].n_slots; r++)
        mdl_report_free (reports[i].reports[r]);
      g_free (reports[i].reports);
    }
  for (guint k = 0; k < n_tasks; k++)
    cpu_seconds += tasks[k].cpu_seconds;
  g_string_append_printf (c->exp->notes, "instrumented runs: %.1f s on %u threads, %u runs for "
                          "%u points, %.1f s of CPU time; the longest run %.1f s\n",
                          (double) (g_get_monotonic_time () - start_us) / G_USEC_PER_SEC,
                          c->cfg->jobs, n_tasks, timings->len, cpu_seconds,
                          tasks_max_cpu (tasks, n_tasks));
  for (guint k = 0; k < n_tasks; k++)
    if (tasks[k].error && first_error == NULL)
      first_error = tasks[k].error;
    else if (tasks[k].error)
      g_error_free (tasks[k].error);
  if (first_error)
    {
      g_propagate_error (error, first_error);
      g_clear_error (&journal_error);
    }
  else if (journal_error)
    g_propagate_error (error, journal_error);
  return !failed;
}

/* Puts each algorithm's huge points behind its 4 KiB points (pass 0 interleaves them). */
static void
order_points (MdlVatExperiment *exp, GArray *plans)
{
  g_autoptr (GArray) sorted = g_array_sized_new (FALSE, FALSE, sizeof (MdlVatPoint),
                                                 exp->points->len);
  for (guint a = 0; a < plans->len; a++)
    for (int series = 0; series < 2; series++)
      for (guint i = 0; i < exp->points->len; i++)
        {
          const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
          if (p->huge_pages == (series == 1)
              && strcmp (p->algorithm, g_array_index (plans, Plan, a).algo->name) == 0)
            g_array_append_val (sorted, *p);
        }
  g_array_set_size (exp->points, 0);
  g_array_append_vals (exp->points, sorted->data, sorted->len);
}

/* ---- fits --------------------------------------------------------------------------------- */

typedef struct {
  GArray *rows;            /* guint: indices of the 4 KiB points fitted */
  guint n_algos;
  guint *algo_of;          /* per fitted row: the algorithm's index in the plans */
} FitData;

/* The 4 KiB points, the rows of every fit, and the algorithm of each. */
static void
fit_data_init (FitData *d, const MdlVatExperiment *exp, GArray *plans)
{
  d->rows = g_array_new (FALSE, FALSE, sizeof (guint));
  d->n_algos = plans->len;
  for (guint i = 0; i < exp->points->len; i++)
    if (!g_array_index (exp->points, MdlVatPoint, i).huge_pages)
      g_array_append_val (d->rows, i);
  d->algo_of = g_new (guint, MAX (d->rows->len, 1));
  for (guint r = 0; r < d->rows->len; r++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                             g_array_index (d->rows, guint, r));
      for (guint a = 0; a < plans->len; a++)
        if (strcmp (g_array_index (plans, Plan, a).algo->name, p->algorithm) == 0)
          d->algo_of[r] = a;
    }
}

static void
fit_data_clear (FitData *d)
{
  g_clear_pointer (&d->rows, g_array_unref);
  g_clear_pointer (&d->algo_of, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FitData, fit_data_clear)

/* The per-operation regressors a fit may take beside its intercepts. */
typedef enum { REG_TC = 1, REG_SMALL = 2, REG_EM = 4 } Regressors;

/* The regressor of cache level @l, per operation: the ideal cache's misses, less the first touches
 * of the lines a warm cache still holds. The timed run starts right after its input was written,
 * so at most the level's size of it is still cached: a first touch is a miss only for the lines
 * beyond that. */
static double
em_per_op_of (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l)
{
  guint64 held = exp->cache_bytes[l] / LINE_BYTES;
  guint64 warm = MIN (p->lines, held);
  return p->em_misses[l] > warm ? (double) (p->em_misses[l] - warm) / (double) p->ram_ops : 0;
}

/* A cache level is in the EM fits when some run outgrew it: below its size every miss is a first
 * touch, and the column would be all zero. */
static gboolean
level_active (const MdlVatExperiment *exp, guint l)
{
  if (exp->cache_bytes[l] == 0)
    return FALSE;
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      if (!p->huge_pages && p->ram_ops && em_per_op_of (exp, p, l) > 0)
        return TRUE;
    }
  return FALSE;
}

/* Fits y = [per-algorithm intercepts or one intercept] + the chosen per-op regressors. Fills
 * @info and, when the fit is possible, @out; returns FALSE (with NaN R^2) when it is not. */
static gboolean
fit_model (MdlVatExperiment *exp, const FitData *d, gboolean per_algo, Regressors regs,
           MdlVatFitInfo *info, MdlFit *out)
{
  guint n_int = per_algo ? d->n_algos : 1, n_em = 0, cols;
  gsize n = d->rows->len;
  g_autofree double *x = NULL, *y = NULL;
  MdlFit fit;
  gint em_col[VAT_EM_LEVELS];

  for (guint l = 0; l < VAT_EM_LEVELS; l++)
    {
      em_col[l] = -1;
      info->level_ns[l] = NAN;
      if ((regs & REG_EM) && level_active (exp, l))
        em_col[l] = (gint) (n_int + !!(regs & REG_TC) + !!(regs & REG_SMALL) + n_em++);
    }
  cols = n_int + !!(regs & REG_TC) + !!(regs & REG_SMALL) + n_em;
  info->n_params = cols;
  info->r2 = NAN;
  if (n < cols || cols > MDL_FIT_MAX_COEF)
    return FALSE;
  x = g_new0 (double, n * cols);
  y = g_new (double, n);
  for (gsize r = 0; r < n; r++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                             g_array_index (d->rows, guint, r));
      double *row = x + r * cols, ops = (double) p->ram_ops;
      guint c = n_int;
      row[per_algo ? d->algo_of[r] : 0] = 1;
      if (regs & REG_TC)
        row[c++] = (double) p->tc_misses / ops;
      if (regs & REG_SMALL)
        row[c++] = (double) p->tc_misses_small / ops;
      for (guint l = 0; l < VAT_EM_LEVELS; l++)
        if (em_col[l] >= 0)
          row[em_col[l]] = em_per_op_of (exp, p, l);
      y[r] = p->norm_ns;
    }
  if (!mdl_fit_least_squares (x, y, NULL, n, cols, &fit, NULL))
    return FALSE;
  {
    double mean = 0;
    guint c = n_int;
    for (guint i = 0; i < n_int; i++)
      mean += fit.coef[i];
    info->per_op_ns = mean / n_int;
    if (regs & (REG_TC | REG_SMALL))
      {
        info->miss_ns = fit.coef[c++];
        info->tau = info->per_op_ns > 0 ? info->miss_ns / info->per_op_ns : NAN;
      }
    for (guint l = 0; l < VAT_EM_LEVELS; l++)
      if (em_col[l] >= 0)
        info->level_ns[l] = fit.coef[em_col[l]];
  }
  info->r2 = fit.r2;
  *out = fit;
  return TRUE;
}

/* Every point's normalized time as the per-algorithm fit @fit predicts it: the VAT fit's into
 * vat_ns (huge points too, with their huge=1 misses), the EM fit's into em_ns (4 KiB points). */
static void
predict_points (MdlVatExperiment *exp, const FitData *d, const MdlFit *fit, gboolean vat)
{
  for (guint i = 0; i < exp->points->len; i++)
    {
      MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      double ops = (double) p->ram_ops, pred;
      gint a = -1;
      guint c = d->n_algos;
      for (guint r = 0; r < d->rows->len && a < 0; r++)
        if (strcmp (g_array_index (exp->points, MdlVatPoint,
                                   g_array_index (d->rows, guint, r)).algorithm,
                    p->algorithm) == 0)
          a = (gint) d->algo_of[r];
      if (a < 0 || ops == 0)
        continue;
      pred = fit->coef[a];
      if (vat)
        pred += fit->coef[c] * (double) p->tc_misses / ops;
      else if (!p->huge_pages)
        for (guint l = 0; l < VAT_EM_LEVELS; l++)
          if (level_active (exp, l))
            pred += fit->coef[c++] * em_per_op_of (exp, p, l);
      if (vat)
        p->vat_ns = pred;
      else if (!p->huge_pages)
        p->em_ns = pred;
    }
}

static void
add_fits (MdlVatExperiment *exp, GArray *plans)
{
  static const struct {
    const char *model;
    const char *description;
    gboolean per_algo;
    Regressors regs;
  } models[] = {
    { "ram", "RAM: a per-operation cost per algorithm, nothing else", TRUE, 0 },
    { "vat", "VAT: per-algorithm per-op cost + one cost per TC miss (W = TLBs + PSCs)", TRUE,
      REG_TC },
    { "vat-global", "VAT: one per-op cost + one cost per TC miss, for all algorithms", FALSE,
      REG_TC },
    { "vat-small", "VAT with W = the L1 DTLB: per-algorithm per-op cost + cost per miss", TRUE,
      REG_SMALL },
    { "em", "EM: per-algorithm per-op cost + one cost per ideal-cache miss and level", TRUE,
      REG_EM },
    { "em-global", "EM: one per-op cost + one cost per ideal-cache miss and level", FALSE, REG_EM },
    { "vat+em", "both: per-algorithm per-op cost + TC misses + cache misses per level", TRUE,
      REG_TC | REG_EM },
  };
  g_auto (FitData) d = { 0 };
  fit_data_init (&d, exp, plans);
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      MdlVatFitInfo info = { .model = models[m].model, .description = models[m].description };
      MdlFit fit;
      gboolean ok = fit_model (exp, &d, models[m].per_algo, models[m].regs, &info, &fit);
      g_array_append_val (exp->fits, info);
      /* The curves drawn and the slopes predicted use the per-algorithm VAT and EM fits. */
      if (ok && (strcmp (models[m].model, "vat") == 0 || strcmp (models[m].model, "em") == 0))
        predict_points (exp, &d, &fit, models[m].model[0] == 'v');
    }
}

static double
slope_of (GArray *xs, GArray *ys)
{
  double s;
  if (xs->len < 2 || !mdl_fit_line ((double *) (void *) xs->data, (double *) (void *) ys->data,
                                    xs->len, &s, NULL, NULL))
    return NAN;
  return s;
}

static void
add_slopes (MdlVatExperiment *exp, GArray *plans)
{
  guint64 reach = exp->tc_cells * exp->page_bytes;
  for (guint a = 0; a < plans->len; a++)
    {
      const Plan *plan = &g_array_index (plans, Plan, a);
      g_autoptr (GArray) x = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) ym = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) yv = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) ye = g_array_new (FALSE, FALSE, sizeof (double));
      MdlVatSlope s = { .algorithm = plan->algo->name, .thesis = plan->info->thesis };
      double sum = 0;
      for (int large = 0; large < 2; large++)
        {
          g_array_set_size (x, 0);
          g_array_set_size (ym, 0);
          g_array_set_size (yv, 0);
          g_array_set_size (ye, 0);
          for (guint i = 0; i < exp->points->len; i++)
            {
              const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
              double lx = log2 ((double) p->n);
              if (p->huge_pages || strcmp (p->algorithm, plan->algo->name) != 0
                  || !isfinite (p->norm_ns) || (large && p->bytes <= reach))
                continue;
              g_array_append_val (x, lx);
              g_array_append_val (ym, p->norm_ns);
              g_array_append_val (yv, p->vat_ns);
              g_array_append_val (ye, p->em_ns);
              if (!large)
                sum += p->norm_ns;
            }
          if (!large)
            {
              s.n_points = x->len;
              s.mean_ns = x->len ? sum / x->len : NAN;
              s.measured = slope_of (x, ym);
              s.vat = slope_of (x, yv);
              s.em = slope_of (x, ye);
            }
          else
            {
              s.measured_large = slope_of (x, ym);
              s.vat_large = slope_of (x, yv);
              s.em_large = slope_of (x, ye);
            }
        }
      g_array_append_val (exp->slopes, s);
    }
}

/* ---- the run ------------------------------------------------------------------------------ */

/* The public view of the results, once they are final. */
static void
publish_results (MdlVatExperiment *exp)
{
  exp->results = (MdlVatResults) {
    .points = (const MdlVatPoint *) (void *) exp->points->data, .n_points = exp->points->len,
    .fits = (const MdlVatFitInfo *) (void *) exp->fits->data, .n_fits = exp->fits->len,
    .slopes = (const MdlVatSlope *) (void *) exp->slopes->data, .n_slopes = exp->slopes->len,
  };
}

/* The tlb engine of this machine with every parameter explicit (its normalized spec without
 * machine=host), so that a journal's counts mean the same TLBs on another machine. */
static char *
host_tlb_spec (GError **error)
{
  g_autoptr (MdlEngine) tlb = mdl_engine_new ("tlb:machine=host", error);
  g_auto (GStrv) keys = NULL;
  GString *spec;
  if (tlb == NULL)
    return NULL;
  keys = g_strsplit (strchr (mdl_engine_spec (tlb), ':') + 1, ",", -1);
  spec = g_string_new ("tlb:");
  for (guint i = 0; keys[i]; i++)
    if (!g_str_has_prefix (keys[i], "machine="))
      g_string_append_printf (spec, "%s%s", spec->str[spec->len - 1] == ':' ? "" : ",", keys[i]);
  return g_string_free (spec, FALSE);
}

/* A resumed run counts with the setup its journal was started with, not this machine's. */
static void
adopt_setup (MdlVatExperiment *exp, const MdlVatJournal *journal, Setup *setup)
{
  MdlVatJournalSetup js;
  if (!mdl_vat_journal_setup (journal, &js))
    return;
  memcpy (exp->cache_bytes, js.cache_bytes, sizeof exp->cache_bytes);
  memcpy (exp->cache_assoc, js.cache_assoc, sizeof exp->cache_assoc);
  g_free (exp->cache_spec);
  g_free (exp->tlb_spec);
  exp->cache_spec = g_steal_pointer (&js.cache_spec);
  exp->tlb_spec = g_steal_pointer (&js.tlb_spec);
  exp->huge_measured = setup->huge = js.huge_measured;
  setup->cache_source = "the journal's";
}

/* Everything before the first run: the configuration checked, the model, the caches, the
 * huge-page probe and the plans with their estimated work in @c. */
static MdlVatExperiment *
prepare (Ctx *c, GArray *plans, Setup *setup, GError **error)
{
  g_autoptr (MdlVatExperiment) exp = NULL;
  g_array_set_clear_func (plans, (GDestroyNotify) plan_clear);
  if (!check_config (c->cfg, error))
    return NULL;
  exp = c->exp = experiment_new (c->cfg);
  if (!model_from_preset (exp, c->cfg, setup, error)
      || !cache_sizes (exp, c->cfg, setup, error))
    return NULL;
  probe_huge_pages (c->cfg, setup);
  exp->huge_measured = setup->huge;
  c->thp = setup->thp;
  if ((exp->tlb_spec = host_tlb_spec (error)) == NULL)
    return NULL;
  if (c->journal)
    adopt_setup (exp, c->journal, setup);
  if (!make_plans (c, plans, setup->huge, error))
    return NULL;
  return g_steal_pointer (&exp);
}


static void
fill_plan (const Ctx *c, const MdlVatExperiment *exp, GArray *plans, MdlVatPlan *out)
{
  guint points = 0;
  guint64 largest = 0;
  for (guint a = 0; a < plans->len; a++)
    {
      const Plan *plan = &g_array_index (plans, Plan, a);
      guint64 n = g_array_index (plan->sizes, guint64, plan->sizes->len - 1);
      points += plan->sizes->len * ((exp->huge_measured && plan->info->huge_series) ? 2 : 1);
      largest = MAX (largest, n * plan->info->bytes_per_elem);
    }
  *out = (MdlVatPlan) {
    .seconds = c->work_total * SECONDS_PER_WORK + points * c->cfg->min_seconds,
    .n_points = points,
    .tlb_reach_bytes = exp->tc_cells * exp->page_bytes,
    .largest_bytes = largest,
  };
}

gboolean
mdl_vat_experiment_plan (const MdlVatExperimentConfig *cfg, MdlVatPlan *out, GError **error)
{
  g_autoptr (GArray) plans = g_array_new (FALSE, TRUE, sizeof (Plan));
  g_auto (Setup) setup = { .load = 0 };
  g_autoptr (MdlVatExperiment) exp = NULL;
  Ctx c = { .cfg = cfg };
  g_return_val_if_fail (cfg != NULL && out != NULL, FALSE);
  if ((exp = prepare (&c, plans, &setup, error)) == NULL)
    return FALSE;
  fill_plan (&c, exp, plans, out);
  return TRUE;
}

/* ---- the journal ---------------------------------------------------------------------------- */

/* The options a journal's run must share with a run that continues it, one "name=value" a line. */
static char *
options_text (const MdlVatExperimentConfig *cfg)
{
  g_autofree char *algos = cfg->algorithms ? g_strjoinv (",", (char **) cfg->algorithms)
                                           : g_strdup ("all");
  char growth[G_ASCII_DTOSTR_BUF_SIZE], min_seconds[G_ASCII_DTOSTR_BUF_SIZE];
  return g_strdup_printf ("machine=%s\nmax_bytes=%" G_GUINT64_FORMAT "\nmin_n=%" G_GUINT64_FORMAT
                          "\ngrowth=%s\nreps=%u\nmin_seconds=%s\nalgorithms=%s\nhuge=%d\n"
                          "tc_cells=%" G_GUINT64_FORMAT "\nseed=%" G_GUINT64_FORMAT "\ncaches=%"
                          G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "\n",
                          cfg->machine ? cfg->machine : "x86-64", cfg->max_bytes, cfg->min_n,
                          g_ascii_dtostr (growth, sizeof growth, cfg->growth), cfg->reps,
                          g_ascii_dtostr (min_seconds, sizeof min_seconds, cfg->min_seconds),
                          algos, cfg->huge ? 1 : 0, cfg->tc_cells, cfg->seed, cfg->cache_bytes[0],
                          cfg->cache_bytes[1], cfg->cache_bytes[2]);
}

/* A configuration read back from a journal's options, with the strings it points to. */
typedef struct {
  MdlVatExperimentConfig cfg;
  char *machine;
  GStrv algorithms;
} JournalConfig;

static void
journal_config_clear (JournalConfig *jc)
{
  g_clear_pointer (&jc->machine, g_free);
  g_clear_pointer (&jc->algorithms, g_strfreev);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (JournalConfig, journal_config_clear)

/* Reads @options (options_text's lines) into @jc; the callbacks and the journal come from
 * @given. */
static gboolean
config_from_options (const char *options, const MdlVatExperimentConfig *given,
                     JournalConfig *jc, GError **error)
{
  g_auto (GStrv) lines = g_strsplit (options, "\n", -1);
  MdlVatExperimentConfig *cfg = &jc->cfg;
  mdl_vat_experiment_config_init (cfg);
  cfg->progress = given->progress;
  cfg->progress_data = given->progress_data;
  cfg->journal_dir = given->journal_dir;
  cfg->resume = cfg->refit_only = TRUE;
  for (guint i = 0; lines[i]; i++)
    {
      const char *eq = strchr (lines[i], '='), *v = eq ? eq + 1 : "";
      g_autofree char *name = g_strndup (lines[i], eq ? (gsize) (eq - lines[i]) : 0);
      guint64 u = g_ascii_strtoull (v, NULL, 10);
      if (strcmp (name, "machine") == 0)
        cfg->machine = jc->machine = g_strdup (v);
      else if (strcmp (name, "max_bytes") == 0)
        cfg->max_bytes = u;
      else if (strcmp (name, "min_n") == 0)
        cfg->min_n = u;
      else if (strcmp (name, "growth") == 0)
        cfg->growth = g_ascii_strtod (v, NULL);
      else if (strcmp (name, "reps") == 0)
        cfg->reps = (guint) MIN (u, G_MAXUINT);
      else if (strcmp (name, "min_seconds") == 0)
        cfg->min_seconds = g_ascii_strtod (v, NULL);
      else if (strcmp (name, "algorithms") == 0 && strcmp (v, "all") != 0)
        cfg->algorithms = (const char *const *) (jc->algorithms = g_strsplit (v, ",", -1));
      else if (strcmp (name, "huge") == 0)
        cfg->huge = u != 0;
      else if (strcmp (name, "tc_cells") == 0)
        cfg->tc_cells = u;
      else if (strcmp (name, "seed") == 0)
        cfg->seed = u;
      else if (strcmp (name, "caches") == 0
               && sscanf (v, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT,
                          &cfg->cache_bytes[0], &cfg->cache_bytes[1], &cfg->cache_bytes[2]) != 3)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "experiment vat: the journal's option "
                       "caches=%s is not three sizes", v);
          return FALSE;
        }
    }
  return TRUE;
}

/* Opens the journal of @given: a fresh one, the one to continue, or the one to refit (whose
 * options become @from's configuration). @options gets this run's option lines. */
static MdlVatJournal *
open_journal (const MdlVatExperimentConfig *given, JournalConfig *from, char **options,
              GError **error)
{
  g_autoptr (MdlVatJournal) journal = NULL;
  if (given->refit_only)
    {
      if ((journal = mdl_vat_journal_open (given->journal_dir, TRUE, NULL, error)) == NULL
          || !config_from_options (mdl_vat_journal_options (journal), given, from, error))
        return NULL;
      *options = g_strdup (mdl_vat_journal_options (journal));
      return g_steal_pointer (&journal);
    }
  *options = options_text (given);
  if ((journal = mdl_vat_journal_open (given->journal_dir, given->resume, *options, error))
      == NULL)
    return NULL;
  mdl_vat_journal_set_stop (journal, given->stop_after);
  return g_steal_pointer (&journal);
}

/* The first step of the plans that the journal lacks, in words; NULL when it has them all (the
 * counts too when @counts). */
static char *
journal_first_missing (const Ctx *c, GArray *plans, gboolean huge, gboolean counts)
{
  for (guint a = 0; a < plans->len; a++)
    {
      const Plan *plan = &g_array_index (plans, Plan, a);
      for (guint s = 0; s < plan->sizes->len; s++)
        for (int series = 0; series < (huge && plan->info->huge_series ? 2 : 1); series++)
          {
            MdlVatPoint pt = { .algorithm = plan->algo->name, .huge_pages = series == 1,
                               .n = g_array_index (plan->sizes, guint64, s) };
            guint64 checksum;
            for (guint pass = 0; pass < c->cfg->reps; pass++)
              if (!mdl_vat_journal_time (c->journal, pt.algorithm, pt.n, pt.huge_pages, pass))
                return g_strdup_printf ("the timing of %s n=%" G_GUINT64_FORMAT "%s (pass %u)",
                                        pt.algorithm, pt.n, series ? " (2 MiB pages)" : "",
                                        pass);
            if (counts && !mdl_vat_journal_counts (c->journal, &pt, &checksum))
              return g_strdup_printf ("the counts of %s n=%" G_GUINT64_FORMAT "%s",
                                      pt.algorithm, pt.n, series ? " (2 MiB pages)" : "");
          }
    }
  return NULL;
}

/* Writes a fresh journal's header; checks that a journal continued here may be: timings still
 * to measure are measured on the machine of its timings, and a refit finds everything. */
static gboolean
journal_start (Ctx *c, GArray *plans, const Setup *setup, const char *options, GError **error)
{
  MdlVatExperiment *exp = c->exp;
  g_autofree char *here = mdl_vat_journal_fingerprint ();
  g_autofree char *missing = NULL;
  const char *there = mdl_vat_journal_machine (c->journal);
  if (!mdl_vat_journal_resumed (c->journal))
    {
      MdlVatJournalSetup js = { .cache_spec = exp->cache_spec, .tlb_spec = exp->tlb_spec,
                                .huge_measured = exp->huge_measured };
      memcpy (js.cache_bytes, exp->cache_bytes, sizeof js.cache_bytes);
      memcpy (js.cache_assoc, exp->cache_assoc, sizeof js.cache_assoc);
      return mdl_vat_journal_add_header (c->journal, options, here, &js, error);
    }
  missing = journal_first_missing (c, plans, setup->huge, c->cfg->refit_only);
  if (missing == NULL && c->cfg->refit_only && !mdl_vat_journal_probe (c->journal, &exp->probe))
    missing = g_strdup ("the probe");
  if (missing && c->cfg->refit_only)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: %s lacks %s: nothing to "
                   "refit until it is measured (continue it with --resume)",
                   mdl_vat_journal_path (c->journal), missing);
      return FALSE;
    }
  if (missing && strcmp (there, here) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: %s: its timings were "
                   "measured on %s, this machine is %s: timings of two machines cannot be "
                   "mixed (%s is still to measure; --from refits what it holds)",
                   mdl_vat_journal_path (c->journal), there, here, missing);
      return FALSE;
    }
  g_string_append_printf (exp->notes, "journal: %s, timings measured on %s\n",
                          mdl_vat_journal_path (c->journal), there);
  return TRUE;
}

/* The fits need sizes well past the TLB reach: below it every TC miss is a first touch, so the
 * misses hardly vary and the fitted cost of one is noise (at 4M: tau -139.7, negative predicted
 * times, a huge-page prediction of -644.9%). */
#define REACH_FACTOR 2

static void
add_warnings (MdlVatExperiment *exp, const MdlVatPlan *plan)
{
  GString *w = exp->warnings;
  guint negative = 0;
  if (plan->largest_bytes < REACH_FACTOR * plan->tlb_reach_bytes)
    {
      g_autofree char *largest = mdl_bytes_text (plan->largest_bytes);
      g_autofree char *reach = mdl_bytes_text (plan->tlb_reach_bytes);
      g_string_append_printf (w, "the largest arrays (%s) are less than %d times the TLB reach "
                              "(W = %" G_GUINT64_FORMAT " pages of %" G_GUINT64_FORMAT " bytes = "
                              "%s): TC misses hardly vary, so the fitted miss cost and the VAT "
                              "predictions mean little; use --max-bytes %" G_GUINT64_FORMAT
                              "M or more\n", largest, REACH_FACTOR, exp->tc_cells,
                              exp->page_bytes, reach,
                              (REACH_FACTOR * plan->tlb_reach_bytes + (1 << 20) - 1) >> 20);
    }
  for (guint i = 0; i < exp->fits->len; i++)
    {
      const MdlVatFitInfo *f = &g_array_index (exp->fits, MdlVatFitInfo, i);
      if (f->miss_ns < 0)
        g_string_append_printf (w, "fit %s: a TC miss came out costing %.1f ns (tau %.1f), less "
                                "than nothing: the data do not determine it\n", f->model,
                                f->miss_ns, f->tau);
    }
  for (guint i = 0; i < exp->points->len; i++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      negative += (p->vat_ns < 0) + (p->em_ns < 0);
      /* Never mixed silently: a point on 2 MiB pages that some repetitions did not get. */
      if (p->huge_asked && p->huge_granted < 1)
        g_string_append_printf (w, "%s n=%" G_GUINT64_FORMAT "%s asked for 2 MiB pages and got "
                                "%.0f%% of them over its repetitions; its time is of those that "
                                "got them all, or of every one where none did\n", p->algorithm,
                                p->n, p->huge_pages ? " (huge-page series)" : "",
                                100 * p->huge_granted);
    }
  if (negative)
    g_string_append_printf (w, "%u predicted normalized times are negative: the fits do not "
                            "describe these sizes\n", negative);
}

MdlVatExperiment *
mdl_vat_experiment_run (const MdlVatExperimentConfig *given, GError **error)
{
  g_autoptr (GArray) plans = g_array_new (FALSE, TRUE, sizeof (Plan));
  g_auto (Setup) setup = { .load = mdl_host_load () };
  g_autoptr (MdlVatExperiment) exp = NULL;
  g_autoptr (GArray) timings = NULL;
  g_autoptr (MdlVatJournal) journal = NULL;
  g_auto (JournalConfig) from = { 0 };
  g_autofree char *options = NULL;
  const MdlVatExperimentConfig *cfg = given;
  Ctx c = { .cfg = cfg };
  MdlVatPlan plan;
  MdlProbe probe_end;
  gboolean has_probe_end;
  g_autoptr (MdlHostPin) pin = NULL;
  gint64 timed_us;

  g_return_val_if_fail (given != NULL, NULL);
  if (given->journal_dir && (journal = open_journal (given, &from, &options, error)) == NULL)
    return NULL;
  if (given->refit_only && journal == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "experiment vat: refitting needs the "
                   "directory of a journal");
      return NULL;
    }
  cfg = c.cfg = given->refit_only ? &from.cfg : given;
  c.journal = journal;
  if ((exp = prepare (&c, plans, &setup, error)) == NULL)
    return NULL;
  if (journal && !journal_start (&c, plans, &setup, options, error))
    return NULL;
  fill_plan (&c, exp, plans, &plan);
  c.clock_overhead_ns = clock_overhead_ns ();
  write_notes (exp, cfg, &setup, c.clock_overhead_ns);
  /* The probe and the timings on one CPU: a migration would time a cold cache. */
  if (!cfg->refit_only)
    pin = mdl_host_pin_here ();
  if (!(journal && mdl_vat_journal_probe (journal, &exp->probe)))
    {
      mdl_probe_run (exp->cache_bytes, cfg->max_bytes, &exp->probe);
      if (journal && !mdl_vat_journal_add_probe (journal, &exp->probe, error))
        return NULL;
    }

  timed_us = g_get_monotonic_time ();
  timings = first_passes (&c, plans, setup.huge, error);
  if (timings == NULL || !later_passes (&c, timings, error))
    return NULL;
  has_probe_end = journal && mdl_vat_journal_probe_end (journal, &probe_end);
  if (!has_probe_end && c.timed_now > 0)
    {
      mdl_probe_run (exp->cache_bytes, cfg->max_bytes, &probe_end);
      has_probe_end = TRUE;
      if (journal && !mdl_vat_journal_add_probe_end (journal, &probe_end, error))
        return NULL;
    }
  g_string_append_printf (exp->notes, "timed runs: %.1f s on the calling thread",
                          (double) (g_get_monotonic_time () - timed_us) / G_USEC_PER_SEC);
  if (pin)
    g_string_append_printf (exp->notes, ", pinned to CPU %d", mdl_host_pin_cpu (pin));
  g_string_append_c (exp->notes, '\n');
  /* The instrumented runs' threads must not inherit the pin. */
  g_clear_pointer (&pin, mdl_host_pin_release);
  if (!model_passes (&c, timings, error))
    return NULL;
  for (guint i = 0; i < timings->len; i++)
    finish_timing (&g_array_index (exp->points, MdlVatPoint, i),
                   &g_array_index (timings, Timing, i));
  order_points (exp, plans);
  add_fits (exp, plans);
  exp->n_algos = plans->len;
  exp->algo_names = g_new (const char *, MAX (plans->len, 1));
  for (guint a = 0; a < plans->len; a++)
    exp->algo_names[a] = g_array_index (plans, Plan, a).algo->name;
  mdl_vat_cpu_models (exp);
  add_slopes (exp, plans);
  add_warnings (exp, &plan);
  if (has_probe_end)
    add_steadiness (exp, &probe_end, timings);
  publish_results (exp);
  report_progress (&c, NULL, 0, "done", 0);
  return g_steal_pointer (&exp);
}

void
mdl_vat_experiment_free (MdlVatExperiment *exp)
{
  if (exp == NULL)
    return;
  g_array_unref (exp->points);
  g_array_unref (exp->fits);
  g_array_unref (exp->slopes);
  g_string_free (exp->notes, TRUE);
  g_string_free (exp->warnings, TRUE);
  g_free (exp->machine);
  g_free (exp->cpu_model);
  g_free (exp->cache_spec);
  g_free (exp->tlb_spec);
  mdl_vat_cpu_models_clear (exp);
  g_free (exp);
}

const MdlVatResults *
mdl_vat_experiment_results (const MdlVatExperiment *exp)
{
  g_return_val_if_fail (exp != NULL, NULL);
  return &exp->results;
}

const char *
mdl_vat_experiment_notes (const MdlVatExperiment *exp)
{
  g_return_val_if_fail (exp != NULL, NULL);
  return exp->notes->str;
}

const char *
mdl_vat_experiment_warnings (const MdlVatExperiment *exp)
{
  g_return_val_if_fail (exp != NULL, NULL);
  return exp->warnings->str;
}
