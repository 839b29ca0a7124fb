/* Private to src/experiments: the layout of a VAT experiment's results, shared by the run
 * (vat.c) and the writers (vat-output.c). */
#ifndef MDL_EXPERIMENTS_VAT_PRIVATE_H
#define MDL_EXPERIMENTS_VAT_PRIVATE_H

#include <models/experiment.h>

#include "experiments/probe.h"

/* Cache levels of the external-memory prediction. */
#define VAT_EM_LEVELS 3

/* The cost models set side by side by cross-validation (cpu-model.c), and their terms. */
#define VAT_CPU_MODELS 16
/* TERM_DEP_READ: dependent loads, hits included (the latency an L1 hit adds when the next address
 * waits for it); TERM_BRANCH: data-dependent branches, predicted or not (the compare on a loaded
 * value each waits for); TERM_WRITE: stores (fewer retire per cycle than loads issue). TERM_L*_DEP: misses of dependent loads (MDL_CPU_FLAG_DEPENDENT) that no stream prefetcher
 * hides; TERM_L*_INDEP: the other misses of the level but the streams' (L3) or with them (L1,
 * L2), which a core overlaps. TERM_L*_STORE: misses of stores no stream continues (write-allocate:
 * the store waits for its line, and stores commit in order); TERM_L*_LOAD_INDEP: TERM_L*_INDEP
 * less those, the misses of independent loads alone. TERM_MISPREDICT_WARM: the mispredictions
 * of a predictor that has seen the same input's branches once before, as in the timed
 * repetitions. TERM_CHASE_READ: dependent loads whose address the loaded value computes with no
 * branch between (MDL_CPU_FLAG_CHASE), what each adds to a dependent load's cost. TERM_L*_CHASE:
 * of the TERM_L*_DEP misses, the chase loads' (each waits the whole latency); TERM_L*_DEP_BRANCH:
 * the others, dependent through a branch that, predicted, lets the core issue them early.
 * TERM_WALK_DEP: page walks of dependent loads (the load waits for the walk); TERM_WALK_INDEP: the
 * other walks, which the page walkers overlap with other work. TERM_L*_DEP_MISGUESSED: the share
 * of the TERM_L*_DEP_BRANCH misses whose branch the predictor got wrong (the point's warm
 * mispredictions per branch: the core ran down the other child, and the load issues only once
 * the compare resolves); TERM_L*_DEP_GUESSED: the rest. TERM_L2_STREAM (as TERM_L3_STREAM): the L2
 * misses that a stream continues (the full cache's less the random-only cache's), which a
 * prefetcher fetches ahead at the streaming rate; TERM_L*_RANDOM_LOAD: the
 * TERM_L*_LOAD_INDEP misses less those, independent loads no stream continues (their misses
 * overlap: memory-level parallelism). */
typedef enum {
  TERM_OPS, TERM_TC, TERM_EM1, TERM_EM2, TERM_EM3, TERM_L1, TERM_L2, TERM_L3_RANDOM,
  TERM_L3_STREAM, TERM_TLB, TERM_WALK, TERM_MISPREDICT, TERM_L1_DEP, TERM_L2_DEP, TERM_L3_DEP,
  TERM_L1_INDEP, TERM_L2_INDEP, TERM_L3_INDEP, TERM_DEP_READ, TERM_BRANCH, TERM_WRITE,
  TERM_L1_STORE, TERM_L2_STORE, TERM_L1_LOAD_INDEP, TERM_L2_LOAD_INDEP, TERM_MISPREDICT_WARM,
  TERM_CHASE_READ, TERM_L1_CHASE, TERM_L2_CHASE, TERM_L3_CHASE, TERM_L1_DEP_BRANCH,
  TERM_L2_DEP_BRANCH, TERM_L3_DEP_BRANCH, TERM_WALK_DEP, TERM_WALK_INDEP, TERM_L1_DEP_GUESSED,
  TERM_L2_DEP_GUESSED, TERM_L3_DEP_GUESSED, TERM_L1_DEP_MISGUESSED, TERM_L2_DEP_MISGUESSED,
  TERM_L3_DEP_MISGUESSED, TERM_L2_STREAM, TERM_L1_RANDOM_LOAD, TERM_L2_RANDOM_LOAD, VAT_CPU_TERMS
} VatCpuTerm;

/* Per algorithm, one model's relative errors (|predicted - measured| / measured) and slopes of
 * normalized time against log2 n beyond the TLB reach. */
typedef struct {
  double loao_median, loao_max;     /* predicted by the fit on the other algorithms */
  double split_median, split_max;   /* sizes >= the split, by the fit on the smaller ones */
  double slope_measured, slope_loao;
  double unexplained_op_ns;         /* median (measured - LOAO) ns per op of the sizes within L2 */
} VatCpuAlgo;

/* One cost model: time per element = sum of coef x count per element, fitted by NNLS. */
typedef struct {
  const char *name;
  const char *description;
  guint n_terms;
  VatCpuTerm terms[VAT_CPU_TERMS];
  double coef[VAT_CPU_TERMS];       /* ns per count, the fit on every point */
  double r2_fit, r2_loao, r2_split;
  double loao_median, loao_max;     /* over all points */
  VatCpuAlgo *algos;                /* per algorithm of the run, in its order */
  double *fit_ns, *loao_ns, *split_ns;   /* per point (NaN for huge-page points) */
} VatCpuModel;

struct MdlVatExperiment {
  GArray *points;            /* MdlVatPoint, by algorithm, then series (4 KiB, huge), then n */
  GArray *fits;              /* MdlVatFitInfo */
  GArray *slopes;            /* MdlVatSlope, in algorithm order */
  GString *notes;
  GString *warnings;         /* why a result may mean little: lines, each ending in '\n' */
  char *machine;
  guint64 page_bytes;        /* P */
  guint64 arity;             /* K */
  guint64 depth;             /* d */
  guint64 tc_cells;          /* W of the main model */
  guint64 tc_small;          /* W of the L1-DTLB model */
  guint64 cache_bytes[VAT_EM_LEVELS];  /* 0: unknown, level not modelled */
  guint64 max_bytes;
  double growth;
  guint reps;
  gboolean huge_measured;
  char *cpu_model;
  char *cache_spec;          /* the cache engine of this machine's levels, for the cost model */
  char *tlb_spec;            /* the tlb engine of this machine, every parameter explicit */
  guint cache_assoc[VAT_EM_LEVELS];
  MdlProbe probe;
  guint n_algos;
  const char **algo_names;   /* n_algos, borrowed from the registry */
  guint64 split_bytes;       /* the size split: fit below, predict at and above */
  VatCpuModel cpu[VAT_CPU_MODELS];
  MdlVatResults results;     /* the public view of points, fits and slopes, once final */
};

/* Fits the cost models and cross-validates them (cpu-model.c); needs the points, the probe and
 * algo_names. */
void mdl_vat_cpu_models (MdlVatExperiment *exp);

/* Frees what mdl_vat_cpu_models allocated. */
void mdl_vat_cpu_models_clear (MdlVatExperiment *exp);

/* The cost models' Markdown section, JSON object and files (cpu-model-output.c): vat-models.csv,
 * vat-models-points.csv, vat-models.dat and vat-models.gp. Nothing when they were not fitted. */
void mdl_vat_cpu_write_table (const MdlVatExperiment *exp, GString *out);
void mdl_vat_cpu_write_json (const MdlVatExperiment *exp, GString *out);
gboolean mdl_vat_cpu_write_files (const MdlVatExperiment *exp, const char *dir, GError **error);

/* The count of term @t of point @p per element, as the fits see it (first touches of lines a
 * warm cache holds left out). */
double mdl_vat_cpu_term_value (const MdlVatExperiment *exp, const MdlVatPoint *p, VatCpuTerm t);

/* The names of the cost terms, and what the probe measured for each (NaN: no probe). */
const char *mdl_vat_cpu_term_name (VatCpuTerm t);
double mdl_vat_cpu_term_probe (const MdlVatExperiment *exp, VatCpuTerm t, const char **what);

#endif
