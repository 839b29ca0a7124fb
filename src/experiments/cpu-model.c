/* The CPU cost models of the VAT experiment, validated honestly (docs/experiments/cpu-model.md).
 *
 * Each model says: time per element = sum over its terms of c_term x (count of the term per
 * element), with one set of coefficients for every algorithm (no per-algorithm constant: an
 * algorithm left out must be predicted from its counts alone). The counts come from the one
 * instrumented pass: RAM operations, VAT TC misses, ideal-cache misses, and for the hierarchy
 * model the misses of this machine's set-associative caches split into those a stream
 * prefetcher hides and the rest, and the rest into dependent misses (of loads whose address an
 * earlier load's value chose, MDL_CPU_FLAG_DEPENDENT: full latency; in the last model, those of
 * chase loads, MDL_CPU_FLAG_CHASE, apart from those a predicted branch chose) and independent ones
 * (which overlap: memory-level parallelism), L1 DTLB misses, page walks, and the mispredictions of the
 * data-dependent branches the algorithms report (the branch engine's gshare). The fits are NNLS on
 * ns per operation (cv.c). Each is judged by leaving one algorithm out and by fitting the small
 * sizes to predict the large; each coefficient of the last model is set beside the latency the
 * probe (probe.c) measured for the same event. */
#include "experiments/cv.h"
#include "experiments/fit.h"
#include "experiments/vat-private.h"

#include <math.h>
#include <string.h>

#define LINE_BYTES 64

/* A term in @probe_priced (bit 1 << term) is not fitted: its price is the latency the probe
 * measured for it (0 where that is not a positive number), and the fit prices the rest of the
 * time. */
#define PRICED(t) (G_GUINT64_CONSTANT (1) << (t))
G_STATIC_ASSERT (VAT_CPU_TERMS <= 64);

static const struct {
  const char *name;
  const char *description;
  guint n_terms;
  VatCpuTerm terms[VAT_CPU_TERMS];
  guint64 probe_priced;
} models[VAT_CPU_MODELS] = {
  { "ram", "RAM: one cost per operation", 1, { TERM_OPS }, 0 },
  { "vat", "VAT: per operation + per TC miss", 2, { TERM_OPS, TERM_TC }, 0 },
  { "em", "EM: per operation + per ideal-cache miss at L1, L2, L3", 4,
    { TERM_OPS, TERM_EM1, TERM_EM2, TERM_EM3 }, 0 },
  { "vat+em", "VAT and EM: per operation, TC miss, ideal-cache miss per level", 5,
    { TERM_OPS, TERM_TC, TERM_EM1, TERM_EM2, TERM_EM3 }, 0 },
  { "hierarchy-flat", "as hierarchy, but one cost per miss at each level whether or not the "
    "load waited for another (no memory-level parallelism)", 8,
    { TERM_OPS, TERM_L1, TERM_L2, TERM_L3_RANDOM, TERM_L3_STREAM, TERM_TLB, TERM_WALK,
      TERM_MISPREDICT }, 0 },
  { "hierarchy", "this machine's caches, TLBs and branch predictor: per operation, L1, L2 and L3 "
    "miss of dependent and of independent loads, L3 miss of a prefetched stream, L1 DTLB miss, "
    "page walk, branch misprediction", 11,
    { TERM_OPS, TERM_L1_INDEP, TERM_L1_DEP, TERM_L2_INDEP, TERM_L2_DEP, TERM_L3_INDEP,
      TERM_L3_DEP, TERM_L3_STREAM, TERM_TLB, TERM_WALK, TERM_MISPREDICT }, 0 },
  /* The per-operation terms: an operation of a scan or a product issues with its neighbours
   * (independent loads, no compare to wait for, few stores), one of a search or a sort waits for
   * a loaded value, either to address the next load or to decide a branch. */
  { "hierarchy+ops", "hierarchy, and per dependent load (an L1 hit's latency that the next "
    "address waits for) and per store", 13,
    { TERM_OPS, TERM_DEP_READ, TERM_WRITE, TERM_L1_INDEP, TERM_L1_DEP, TERM_L2_INDEP,
      TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP, TERM_L3_STREAM, TERM_TLB, TERM_WALK,
      TERM_MISPREDICT }, 0 },
  { "hierarchy+ops+branch", "hierarchy+ops, and per data-dependent branch, predicted or not",
    14,
    { TERM_OPS, TERM_DEP_READ, TERM_BRANCH, TERM_WRITE, TERM_L1_INDEP, TERM_L1_DEP, TERM_L2_INDEP,
      TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP, TERM_L3_STREAM, TERM_TLB, TERM_WALK,
      TERM_MISPREDICT }, 0 },
  /* A store that misses waits for its line (write-allocate) before it commits, and stores commit
   * in order: a transpose's column stores cost several times what a scan's independent load
   * misses do, which overlap. One price for both made the loads' too high (the products') and the
   * stores' too low (the transposes'). */
  { "hierarchy+stores", "hierarchy+ops, with the L1 and L2 misses of stores no stream continues "
    "priced apart from those of independent loads", 15,
    { TERM_OPS, TERM_DEP_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE, TERM_L1_DEP,
      TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP, TERM_L3_STREAM,
      TERM_TLB, TERM_WALK, TERM_MISPREDICT }, 0 },
  /* The timed repetitions of a point replay one input, and its minimum time comes from one whose
   * predictor has seen that input's branches: a short run's (heapify's, introsort's at 2^10) it
   * predicts far better than a first pass does (docs/experiments/cpu-model.md). */
  { "hierarchy+stores+warm", "hierarchy+stores, with the mispredictions of a predictor that has "
    "seen the same input once before, as the timed repetitions' has", 15,
    { TERM_OPS, TERM_DEP_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE, TERM_L1_DEP,
      TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP, TERM_L3_STREAM,
      TERM_TLB, TERM_WALK, TERM_MISPREDICT_WARM }, 0 },
  /* A search whose next address is arithmetic on the loaded value (the van Emde Boas layout's
   * i = 2i + (v < key)) waits for every load; one whose next address a branch chooses runs ahead
   * while the branch is predicted. One price for both dependent loads made the searches' and
   * sorts' too high, and through them the cost per operation of everything else. */
  { "hierarchy+chase", "hierarchy+stores+warm, and per chase load (a dependent load whose "
    "address is arithmetic on the loaded value, no branch between)", 16,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE,
      TERM_L1_DEP, TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP, TERM_L3_INDEP, TERM_L3_DEP,
      TERM_L3_STREAM, TERM_TLB, TERM_WALK, TERM_MISPREDICT_WARM }, 0 },
  /* A chase load that misses waits the level's whole latency (the probe's chase); a dependent
   * load that a predicted branch chose issues before the compare resolves, and its miss overlaps
   * the one before whenever the guess is right. One price per dependent miss was too high for
   * the sorted search and far too low for the van Emde Boas one (docs/experiments/cpu-model.md). */
  { "hierarchy+chase-misses", "hierarchy+chase, with each level's dependent misses priced apart "
    "for chase loads and for loads a branch chose", 19,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE,
      TERM_L1_DEP_BRANCH, TERM_L1_CHASE, TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP_BRANCH,
      TERM_L2_CHASE, TERM_L3_INDEP, TERM_L3_DEP_BRANCH, TERM_L3_CHASE, TERM_L3_STREAM, TERM_TLB,
      TERM_WALK, TERM_MISPREDICT_WARM }, 0 },
  /* Beyond the TLB reach a search's and a sift's walks are those of dependent loads, which wait
   * for them; a scan's or a permutation's are independent and overlap. One price per walk came
   * out at 6 ns, a third of the probe's 18, and left the searches' and heapsort's slopes 31% low:
   * their gaps close at 12 to 13 ns more per walk (docs/experiments/cpu-model.md). */
  { "hierarchy+dep-walks", "hierarchy+chase-misses, with the page walks of dependent loads "
    "priced apart from the others", 20,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE,
      TERM_L1_DEP_BRANCH, TERM_L1_CHASE, TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP_BRANCH,
      TERM_L2_CHASE, TERM_L3_INDEP, TERM_L3_DEP_BRANCH, TERM_L3_CHASE, TERM_L3_STREAM, TERM_TLB,
      TERM_WALK_INDEP, TERM_WALK_DEP, TERM_MISPREDICT_WARM }, 0 },
  /* Only the van Emde Boas search has chase loads, so the fit that leaves it out has nothing to
   * price them or their misses with and predicts it at a fraction of its time; a chase step and
   * a chase miss wait the latencies the probe's chase measures, so those are their prices here,
   * for every fit. So is a dependent load's walk (the chase on 4 KiB against 2 MiB pages): fitted,
   * it took up what the chases' prices left of the search's time and sent its predicted slope to
   * 4 times the measured one (docs/experiments/cpu-model.md). */
  { "hierarchy+chase-probe", "hierarchy+dep-walks, with chase loads, each level's chase misses "
    "and dependent loads' walks priced at the probe's chase latencies instead of fitted", 20,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE,
      TERM_L1_DEP_BRANCH, TERM_L1_CHASE, TERM_L2_LOAD_INDEP, TERM_L2_STORE, TERM_L2_DEP_BRANCH,
      TERM_L2_CHASE, TERM_L3_INDEP, TERM_L3_DEP_BRANCH, TERM_L3_CHASE, TERM_L3_STREAM, TERM_TLB,
      TERM_WALK_INDEP, TERM_WALK_DEP, TERM_MISPREDICT_WARM },
    PRICED (TERM_CHASE_READ) | PRICED (TERM_L1_CHASE) | PRICED (TERM_L2_CHASE)
      | PRICED (TERM_L3_CHASE) | PRICED (TERM_WALK_DEP) },
  /* A load a predicted branch chose issues before the compare resolves and overlaps the miss
   * before it; when the guess was wrong the core ran down the other child, and the load waits
   * for the compare, which waits for the load before: the whole latency. */
  { "hierarchy+guesses", "hierarchy+chase-probe, with each level's branch-chosen misses split by "
    "whether their branch was mispredicted (the point's warm mispredictions per branch)", 23,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_LOAD_INDEP, TERM_L1_STORE,
      TERM_L1_DEP_GUESSED, TERM_L1_DEP_MISGUESSED, TERM_L1_CHASE, TERM_L2_LOAD_INDEP,
      TERM_L2_STORE, TERM_L2_DEP_GUESSED, TERM_L2_DEP_MISGUESSED, TERM_L2_CHASE, TERM_L3_INDEP,
      TERM_L3_DEP_GUESSED, TERM_L3_DEP_MISGUESSED, TERM_L3_CHASE, TERM_L3_STREAM, TERM_TLB,
      TERM_WALK_INDEP, TERM_WALK_DEP, TERM_MISPREDICT_WARM },
    PRICED (TERM_CHASE_READ) | PRICED (TERM_L1_CHASE) | PRICED (TERM_L2_CHASE)
      | PRICED (TERM_L3_CHASE) | PRICED (TERM_WALK_DEP) },
  /* The overlap of misses, priced by the probe rather than fitted (docs/experiments/cpu-model.md,
   * session 11). An operation alone costs an independent L1 hit: the scans' 0.36 ns, where the
   * fitted price (0.41 to 0.60 ns on the Xeon host) overcharged them by up to 90%; what a
   * search's or a sort's operation adds is in what it waits for (dependent loads, stores,
   * mispredictions). A random
   * independent load's miss costs what is left of the latency with many in flight (the
   * independent-loads probe; fitted, the products' and transposes' streams set it 1.5 to 2.4x
   * that). An L2 miss a stream continues costs the sequential read's ns per line (on the Xeon
   * host an L2 miss goes to memory: its probe's L3-sized chase is memory's latency); an L1 miss a
   * stream continues is not charged: the prefetcher brings the line from L2 while the loop works
   * (scan/seq's ns per operation are the same in L1 and in L2). */
  { "hierarchy+streams", "hierarchy+chase-probe, with operations priced at an independent L1 "
    "hit, the L1 and L2 misses of independent loads priced at the independent-loads probe, and "
    "the L2 misses a stream continues at the sequential read's ns per line",
    21,
    { TERM_OPS, TERM_DEP_READ, TERM_CHASE_READ, TERM_WRITE, TERM_L1_RANDOM_LOAD,
      TERM_L1_STORE, TERM_L1_DEP_BRANCH, TERM_L1_CHASE, TERM_L2_STREAM, TERM_L2_RANDOM_LOAD,
      TERM_L2_STORE, TERM_L2_DEP_BRANCH, TERM_L2_CHASE, TERM_L3_INDEP, TERM_L3_DEP_BRANCH,
      TERM_L3_CHASE, TERM_L3_STREAM, TERM_TLB, TERM_WALK_INDEP, TERM_WALK_DEP,
      TERM_MISPREDICT_WARM },
    PRICED (TERM_OPS) | PRICED (TERM_CHASE_READ) | PRICED (TERM_L1_RANDOM_LOAD)
      | PRICED (TERM_L1_CHASE) | PRICED (TERM_L2_STREAM) | PRICED (TERM_L2_RANDOM_LOAD)
      | PRICED (TERM_L2_CHASE) | PRICED (TERM_L3_CHASE) | PRICED (TERM_WALK_DEP) },
};

const char *
mdl_vat_cpu_term_name (VatCpuTerm t)
{
  static const char *const names[VAT_CPU_TERMS] = {
    "op", "tc_miss", "em_l1_miss", "em_l2_miss", "em_l3_miss", "l1_miss", "l2_miss",
    "l3_miss_random", "l3_miss_stream", "dtlb_miss", "walk", "mispredict", "l1_miss_dep",
    "l2_miss_dep", "l3_miss_dep", "l1_miss_indep", "l2_miss_indep", "l3_miss_indep",
    "dep_load", "branch", "store", "l1_miss_store", "l2_miss_store", "l1_miss_load_indep",
    "l2_miss_load_indep", "mispredict_warm", "chase_load", "l1_miss_chase", "l2_miss_chase",
    "l3_miss_chase", "l1_miss_dep_branch", "l2_miss_dep_branch", "l3_miss_dep_branch",
    "walk_dep", "walk_indep", "l1_miss_dep_guessed", "l2_miss_dep_guessed",
    "l3_miss_dep_guessed", "l1_miss_dep_misguessed", "l2_miss_dep_misguessed",
    "l3_miss_dep_misguessed", "l2_miss_stream", "l1_miss_random_load", "l2_miss_random_load",
  };
  return names[t];
}

double
mdl_vat_cpu_term_probe (const MdlVatExperiment *exp, VatCpuTerm t, const char **what)
{
  const MdlProbe *p = &exp->probe;
  switch (t)
    {
    case TERM_OPS:
      *what = "L1 hit (independent loads)";
      return p->random_ns[0];
    case TERM_CHASE_READ:
      *what = "L1 hit (chase)";
      return p->chase_ns[0];
    case TERM_L1:
    case TERM_L1_DEP:
    case TERM_L1_CHASE:
    case TERM_L1_DEP_BRANCH:
    case TERM_L1_DEP_GUESSED:
    case TERM_L1_DEP_MISGUESSED:
    case TERM_L1_STORE:
    case TERM_EM1:
      *what = "L2 - L1 hit (chase)";
      return p->chase_ns[1] - p->chase_ns[0];
    case TERM_L2:
    case TERM_L2_DEP:
    case TERM_L2_CHASE:
    case TERM_L2_DEP_BRANCH:
    case TERM_L2_DEP_GUESSED:
    case TERM_L2_DEP_MISGUESSED:
    case TERM_L2_STORE:
    case TERM_EM2:
      *what = "L3 - L2 hit (chase)";
      return p->chase_ns[2] - p->chase_ns[1];
    case TERM_L3_RANDOM:
    case TERM_L3_DEP:
    case TERM_L3_CHASE:
    case TERM_L3_DEP_BRANCH:
    case TERM_L3_DEP_GUESSED:
    case TERM_L3_DEP_MISGUESSED:
    case TERM_EM3:
      *what = "memory - L3 (chase)";
      return p->chase_ns[3] - p->chase_ns[2];
    case TERM_L1_INDEP:
    case TERM_L1_LOAD_INDEP:
    case TERM_L1_RANDOM_LOAD:
      *what = "L2 - L1 (independent loads)";
      return p->random_ns[1] - p->random_ns[0];
    case TERM_L2_INDEP:
    case TERM_L2_LOAD_INDEP:
    case TERM_L2_RANDOM_LOAD:
      *what = "L3 - L2 (independent loads)";
      return p->random_ns[2] - p->random_ns[1];
    case TERM_L3_INDEP:
      *what = "memory - L3 (independent loads)";
      return p->random_ns[3] - p->random_ns[2];
    case TERM_L2_STREAM:
    case TERM_L3_STREAM:
      *what = "sequential read per line";
      return p->stream_ns;
    case TERM_WALK:
    case TERM_WALK_DEP:
    case TERM_TC:
      *what = "4 KiB - 2 MiB pages (chase)";
      return p->chase_ns[4] - p->chase_ns[3];
    case TERM_WALK_INDEP:
      *what = "4 KiB - 2 MiB pages (independent loads)";
      return p->random_ns[4] - p->random_ns[3];
    case TERM_MISPREDICT:
    case TERM_MISPREDICT_WARM:
      *what = "random - alternating branch, x2";
      return p->mispredict_ns;
    case TERM_DEP_READ:
      *what = "L1 hit: chase - independent loads";
      return p->chase_ns[0] - p->random_ns[0];
    case TERM_BRANCH:
    case TERM_WRITE:
    case TERM_TLB:
    case VAT_CPU_TERMS:
    default:
      *what = "no probe";
      return NAN;
    }
}

/* Misses beyond the first touches a warm cache of @level_bytes still holds (the timed runs start
 * right after their input was written; docs/experiments/vat.md). */
static double
beyond_warm (guint64 misses, guint64 lines, guint64 level_bytes)
{
  guint64 warm = MIN (lines, level_bytes / LINE_BYTES);
  return misses > warm ? (double) (misses - warm) : 0;
}

/* @part (the dependent loads', or the stores') of the random-only cache's misses at level @l,
 * beyond the warm first touches: less its share of the first touches (which the counts do not
 * tell apart by kind, so they are shared in proportion to the misses). */
static double
random_part_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l, guint64 part)
{
  guint64 all = p->random_misses[l];
  if (all == 0)
    return 0;
  return (double) part * beyond_warm (all, p->lines, exp->cache_bytes[l]) / (double) all;
}

/* The branch-chosen dependent misses at level @l beyond the warm first touches. */
static double
dep_branch_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l)
{
  return random_part_beyond_warm (exp, p, l, p->dependent_misses[l] - p->chase_misses[l]);
}

/* The share of a point's branches the warm predictor got wrong: taken as the share of the
 * branch-chosen misses whose branch was wrong (a search's and a sift's compares are alike at
 * every depth). */
static double
misguessed_share (const MdlVatPoint *p)
{
  return p->branches ? MIN (1.0, (double) p->warm_mispredicts / (double) p->branches) : 0;
}

/* The misses at level @l beyond the warm first touches that a stream continues: the full
 * cache's less the random-only cache's. */
static double
stream_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l)
{
  return MAX (0.0, beyond_warm (p->cache_misses[l], p->lines, exp->cache_bytes[l])
                     - beyond_warm (p->random_misses[l], p->lines, exp->cache_bytes[l]));
}

static double
dependent_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l)
{
  return random_part_beyond_warm (exp, p, l, p->dependent_misses[l]);
}

static double
store_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l)
{
  return random_part_beyond_warm (exp, p, l, p->random_write_misses[l]);
}

/* The loads' misses at level @l (@misses: all of them, or only those no stream continues) beyond
 * the warm first touches, less the dependent loads' and the stores': what independent loads miss. */
static double
independent_loads_beyond_warm (const MdlVatExperiment *exp, const MdlVatPoint *p, guint l,
                               guint64 misses, guint64 level_bytes)
{
  return MAX (0.0, beyond_warm (misses, p->lines, level_bytes) - dependent_beyond_warm (exp, p, l)
                     - store_beyond_warm (exp, p, l));
}

double
mdl_vat_cpu_term_value (const MdlVatExperiment *exp, const MdlVatPoint *p, VatCpuTerm t)
{
  double n = (double) p->n;
  const guint64 *cb = exp->cache_bytes;
  switch (t)
    {
    case TERM_OPS:
      return (double) p->ram_ops / n;
    case TERM_TC:
      return (double) p->tc_misses / n;
    case TERM_EM1:
    case TERM_EM2:
    case TERM_EM3:
      return beyond_warm (p->em_misses[t - TERM_EM1], p->lines, cb[t - TERM_EM1]) / n;
    case TERM_L1:
    case TERM_L2:
      return beyond_warm (p->cache_misses[t - TERM_L1], p->lines, cb[t - TERM_L1]) / n;
    case TERM_L3_RANDOM:
      return beyond_warm (p->random_misses[2], p->lines, cb[2]) / n;
    case TERM_L2_STREAM:
      return stream_beyond_warm (exp, p, 1) / n;
    case TERM_L3_STREAM:
      return stream_beyond_warm (exp, p, 2) / n;
    case TERM_TLB:
      return (double) p->tlb_misses / n;
    case TERM_WALK:
      return (double) p->walks / n;
    case TERM_WALK_DEP:
      return (double) p->dependent_walks / n;
    case TERM_WALK_INDEP:
      return (double) (p->walks - MIN (p->dependent_walks, p->walks)) / n;
    case TERM_MISPREDICT:
      return (double) p->mispredicts / n;
    case TERM_MISPREDICT_WARM:
      return (double) p->warm_mispredicts / n;
    case TERM_DEP_READ:
      return (double) p->dependent_reads / n;
    case TERM_CHASE_READ:
      return (double) p->chase_reads / n;
    case TERM_BRANCH:
      return (double) p->branches / n;
    case TERM_WRITE:
      return (double) p->writes / n;
    case TERM_L1_DEP:
    case TERM_L2_DEP:
    case TERM_L3_DEP:
      return dependent_beyond_warm (exp, p, t - TERM_L1_DEP) / n;
    case TERM_L1_INDEP:
    case TERM_L2_INDEP:
      return MAX (0.0, beyond_warm (p->cache_misses[t - TERM_L1_INDEP], p->lines,
                                    cb[t - TERM_L1_INDEP])
                         - dependent_beyond_warm (exp, p, t - TERM_L1_INDEP)) / n;
    case TERM_L3_INDEP:
      return MAX (0.0, beyond_warm (p->random_misses[2], p->lines, cb[2])
                         - dependent_beyond_warm (exp, p, 2)) / n;
    case TERM_L1_CHASE:
    case TERM_L2_CHASE:
    case TERM_L3_CHASE:
      return random_part_beyond_warm (exp, p, t - TERM_L1_CHASE,
                                      p->chase_misses[t - TERM_L1_CHASE]) / n;
    case TERM_L1_DEP_BRANCH:
    case TERM_L2_DEP_BRANCH:
    case TERM_L3_DEP_BRANCH:
      return dep_branch_beyond_warm (exp, p, t - TERM_L1_DEP_BRANCH) / n;
    case TERM_L1_DEP_GUESSED:
    case TERM_L2_DEP_GUESSED:
    case TERM_L3_DEP_GUESSED:
      return dep_branch_beyond_warm (exp, p, t - TERM_L1_DEP_GUESSED) * (1 - misguessed_share (p))
             / n;
    case TERM_L1_DEP_MISGUESSED:
    case TERM_L2_DEP_MISGUESSED:
    case TERM_L3_DEP_MISGUESSED:
      return dep_branch_beyond_warm (exp, p, t - TERM_L1_DEP_MISGUESSED) * misguessed_share (p)
             / n;
    case TERM_L1_STORE:
    case TERM_L2_STORE:
      return store_beyond_warm (exp, p, t - TERM_L1_STORE) / n;
    case TERM_L1_LOAD_INDEP:
    case TERM_L2_LOAD_INDEP:
      {
        guint l = t - TERM_L1_LOAD_INDEP;
        return independent_loads_beyond_warm (exp, p, l, p->cache_misses[l], cb[l]) / n;
      }
    case TERM_L1_RANDOM_LOAD:
    case TERM_L2_RANDOM_LOAD:
      {
        guint l = t - TERM_L1_RANDOM_LOAD;
        return independent_loads_beyond_warm (exp, p, l, p->random_misses[l], cb[l]) / n;
      }
    case VAT_CPU_TERMS:
    default:
      return 0;
    }
}

static guint
algo_index (const MdlVatExperiment *exp, const char *name)
{
  for (guint a = 0; a < exp->n_algos; a++)
    if (strcmp (exp->algo_names[a], name) == 0)
      return a;
  g_assert_not_reached ();
  return 0;
}

/* The slope of normalized time (ns per operation) against log2 n over the rows of algorithm @a
 * whose arrays exceed the TLB reach, of the times in @ns_per_elem (NaN where fewer than 2). */
static double
large_slope (const MdlVatExperiment *exp, const GArray *rows, const MdlCvData *d,
             const double *ns_per_elem, guint a)
{
  guint64 reach = exp->tc_cells * exp->page_bytes;
  g_autoptr (GArray) xs = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) ys = g_array_new (FALSE, FALSE, sizeof (double));
  double slope;
  for (gsize r = 0; r < rows->len; r++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                             g_array_index (rows, guint, r));
      double x = log2 ((double) p->n), y;
      if (d->group[r] != a || p->bytes <= reach || isnan (ns_per_elem[r]))
        continue;
      y = ns_per_elem[r] * (double) p->n / (double) p->ram_ops;
      g_array_append_val (xs, x);
      g_array_append_val (ys, y);
    }
  if (xs->len < 2 || !mdl_fit_line ((double *) (void *) xs->data, (double *) (void *) ys->data,
                                    xs->len, &slope, NULL, NULL))
    return NAN;
  return slope;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* What a model leaves unexplained per operation where no cache or TLB term can act: the median of
 * (measured - predicted) x n / ops over algorithm @a's sizes that fit in L2. A large one names a
 * missing per-operation term (branch mispredictions, dependent chains) and sizes it. */
static double
unexplained_per_op (const MdlVatExperiment *exp, const GArray *rows, const MdlCvData *d,
                    const double *pred, guint a)
{
  g_autoptr (GArray) v = g_array_new (FALSE, FALSE, sizeof (double));
  for (gsize r = 0; r < rows->len; r++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                             g_array_index (rows, guint, r));
      double e;
      if (d->group[r] != a || p->bytes > exp->cache_bytes[1] || isnan (pred[r]))
        continue;
      e = (d->y[r] - pred[r]) * (double) p->n / (double) p->ram_ops;
      g_array_append_val (v, e);
    }
  if (v->len == 0)
    return NAN;
  g_array_sort (v, cmp_double);
  return g_array_index (v, double, v->len / 2);
}

/* The price of a probe-priced term: the probe's latency for it, 0 where that is not a positive
 * number (a level the probe could not tell from the next). */
static double
probe_price (const MdlVatExperiment *exp, VatCpuTerm t)
{
  const char *what;
  double ns = mdl_vat_cpu_term_probe (exp, t, &what);
  return ns > 0 ? ns : 0;
}

/* Adds the probe-priced part @fixed of each row's time to the predictions @pred (NaN stays). */
static void
add_fixed (double *pred, const double *fixed, gsize n_rows)
{
  for (gsize r = 0; r < n_rows; r++)
    pred[r] += fixed[r];
}

void
mdl_vat_cpu_models (MdlVatExperiment *exp)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree double *y = NULL, *x = NULL, *pred = NULL, *weight = NULL;
  g_autofree double *fixed = NULL, *y_rest = NULL;
  g_autofree guint *group = NULL;
  g_autofree gboolean *train = NULL;
  guint n_points = exp->points->len;

  for (guint i = 0; i < n_points; i++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint, i);
      if (!p->huge_pages && p->ram_ops && p->seconds > 0)
        g_array_append_val (rows, i);
    }
  y = g_new (double, MAX (rows->len, 1));
  group = g_new (guint, MAX (rows->len, 1));
  train = g_new (gboolean, MAX (rows->len, 1));
  pred = g_new (double, MAX (rows->len, 1));
  weight = g_new (double, MAX (rows->len, 1));
  fixed = g_new (double, MAX (rows->len, 1));
  y_rest = g_new (double, MAX (rows->len, 1));
  x = g_new (double, MAX (rows->len, 1) * VAT_CPU_TERMS);
  for (guint r = 0; r < rows->len; r++)
    {
      const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                             g_array_index (rows, guint, r));
      y[r] = p->seconds * 1e9 / (double) p->n;
      group[r] = algo_index (exp, p->algorithm);
      train[r] = p->bytes < exp->split_bytes;
      /* Least squares on ns per operation rather than per element: a product's microseconds per
       * element would outweigh a scan's fraction of a ns, and relative error (1/t^2) would
       * favour predictions too low, whose error is at most 100%. */
      weight[r] = ((double) p->n / (double) p->ram_ops) * ((double) p->n / (double) p->ram_ops);
    }
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    {
      VatCpuModel *cm = &exp->cpu[m];
      const guint64 priced = models[m].probe_priced;
      VatCpuTerm fitted[VAT_CPU_TERMS];
      guint n_fitted = 0;
      /* @d judges predictions against the measured times; @fit_d fits what the probe-priced
       * terms leave of them (the same times for a model without any). */
      MdlCvData d = { .x = x, .y = y, .group = group, .n_rows = rows->len,
                      .n_groups = exp->n_algos, .weight = weight }, fit_d;
      double coef[VAT_CPU_TERMS];
      for (guint t = 0; t < models[m].n_terms; t++)
        if (!(priced & PRICED (models[m].terms[t])))
          fitted[n_fitted++] = models[m].terms[t];
      d.n_cols = n_fitted;
      fit_d = d;
      fit_d.y = y_rest;
      cm->name = models[m].name;
      cm->description = models[m].description;
      cm->n_terms = models[m].n_terms;
      memcpy (cm->terms, models[m].terms, sizeof models[m].terms);
      cm->algos = g_new0 (VatCpuAlgo, MAX (exp->n_algos, 1));
      cm->fit_ns = g_new (double, MAX (n_points, 1));
      cm->loao_ns = g_new (double, MAX (n_points, 1));
      cm->split_ns = g_new (double, MAX (n_points, 1));
      for (guint i = 0; i < n_points; i++)
        cm->fit_ns[i] = cm->loao_ns[i] = cm->split_ns[i] = NAN;
      for (guint r = 0; r < rows->len; r++)
        {
          const MdlVatPoint *p = &g_array_index (exp->points, MdlVatPoint,
                                                 g_array_index (rows, guint, r));
          for (guint t = 0; t < n_fitted; t++)
            x[r * n_fitted + t] = mdl_vat_cpu_term_value (exp, p, fitted[t]);
          fixed[r] = 0;
          for (guint t = 0; t < cm->n_terms; t++)
            if (priced & PRICED (cm->terms[t]))
              fixed[r] += probe_price (exp, cm->terms[t])
                          * mdl_vat_cpu_term_value (exp, p, cm->terms[t]);
          y_rest[r] = y[r] - fixed[r];
        }
      for (guint t = 0; t < VAT_CPU_TERMS; t++)
        cm->coef[t] = NAN;
      cm->r2_fit = cm->r2_loao = cm->r2_split = cm->loao_median = cm->loao_max = NAN;
      if (mdl_cv_fit (&fit_d, NULL, coef))
        {
          for (guint t = 0, k = 0; t < cm->n_terms; t++)
            cm->coef[t] = priced & PRICED (cm->terms[t]) ? probe_price (exp, cm->terms[t])
                                                          : coef[k++];
          for (guint r = 0; r < rows->len; r++)
            pred[r] = cm->fit_ns[g_array_index (rows, guint, r)]
              = mdl_cv_predict (&fit_d, coef, r) + fixed[r];
          cm->r2_fit = mdl_cv_r2 (y, pred, rows->len);
        }
      mdl_cv_split (&fit_d, train, pred);
      add_fixed (pred, fixed, rows->len);
      cm->r2_split = mdl_cv_r2 (y, pred, rows->len);
      for (guint a = 0; a < exp->n_algos; a++)
        mdl_cv_rel_errors (&d, pred, a, &cm->algos[a].split_median, &cm->algos[a].split_max);
      for (guint r = 0; r < rows->len; r++)
        cm->split_ns[g_array_index (rows, guint, r)] = pred[r];
      mdl_cv_leave_one_out (&fit_d, pred);
      add_fixed (pred, fixed, rows->len);
      cm->r2_loao = mdl_cv_r2 (y, pred, rows->len);
      mdl_cv_rel_errors (&d, pred, G_MAXUINT, &cm->loao_median, &cm->loao_max);
      for (guint a = 0; a < exp->n_algos; a++)
        {
          mdl_cv_rel_errors (&d, pred, a, &cm->algos[a].loao_median, &cm->algos[a].loao_max);
          cm->algos[a].slope_measured = large_slope (exp, rows, &d, y, a);
          cm->algos[a].slope_loao = large_slope (exp, rows, &d, pred, a);
          cm->algos[a].unexplained_op_ns = unexplained_per_op (exp, rows, &d, pred, a);
        }
      for (guint r = 0; r < rows->len; r++)
        cm->loao_ns[g_array_index (rows, guint, r)] = pred[r];
    }
}

void
mdl_vat_cpu_models_clear (MdlVatExperiment *exp)
{
  for (guint m = 0; m < VAT_CPU_MODELS; m++)
    {
      g_clear_pointer (&exp->cpu[m].algos, g_free);
      g_clear_pointer (&exp->cpu[m].fit_ns, g_free);
      g_clear_pointer (&exp->cpu[m].loao_ns, g_free);
      g_clear_pointer (&exp->cpu[m].split_ns, g_free);
    }
  g_clear_pointer (&exp->algo_names, g_free);
}
