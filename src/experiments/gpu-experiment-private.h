/* Private to src/experiments: the layout of a GPU experiment's results, shared by the run
 * (gpu-experiment.c) and the writers (gpu-experiment-output.c). */
#ifndef MDL_EXPERIMENTS_GPU_EXPERIMENT_PRIVATE_H
#define MDL_EXPERIMENTS_GPU_EXPERIMENT_PRIVATE_H

#include "experiments/gpu-private.h"

/* The quantities of a point (MdlGpuCost), in the order of gpu-experiment.c's table. */
enum {
  GPU_COST_LAUNCHES,
  GPU_COST_AGPU_TIME,
  GPU_COST_AGPU_IO,
  GPU_COST_KMODEL_T,
  GPU_COST_KMODEL_W,
  GPU_COST_KMODEL_G,
  GPU_COST_MSIMD,
  GPU_COST_SECTORS,
  GPU_COST_REQUESTS,
  GPU_COST_WAVEFRONTS,
  GPU_COST_BANK_CONFLICTS,
  GPU_COST_WARP_INSTS,
  GPU_COST_DIVERGENT,
  GPU_COST_BYTES,
  GPU_COST_LATENCY,
  GPU_N_COSTS
};

/* The fits, in the order of gpu-experiment.c's table; the last one fits measured counters. */
#define GPU_N_FITS 6
#define GPU_FIT_COUNTERS 4
#define GPU_MAX_TERMS 6

typedef struct {
  MdlGpuPoint pub;           /* its arrays point into this struct */
  char *spec;
  char *algorithm;
  char *params;
  const MdlAlgo *algo;       /* NULL for a baseline */
  const MdlGpuMeasuredCase *measured;  /* (nullable) borrowed from the experiment's measurements */
  GPtrArray *reports;        /* MdlReport *; NULL while not predicted */
  GArray *rows;              /* MdlGpuRow; NULL while not predicted */
  char **engines;            /* the specs its prediction runs (NULL for a baseline) */
  GError *error;             /* of its SIMT run, if it failed */
  guint64 events;            /* of its SIMT run */
  double seconds;            /* of its SIMT run (from the file when it came from there) */
  gboolean from_file;        /* its prediction came from the predictions file */
  guint group;               /* first appearance of its algorithm and parameters */
  double cost[GPU_N_COSTS];
  double cost_measured[GPU_N_COSTS];
  double fit_us[GPU_N_FITS];
  double loao_us[GPU_N_FITS];
} GpuPoint;

typedef struct {
  MdlGpuFitInfo pub;         /* its arrays point into this struct */
  const char *terms[GPU_MAX_TERMS];
  double coef[GPU_MAX_TERMS];
  char *why;
} GpuFit;

struct MdlGpuExperiment {
  char *machine;
  MdlGpuMeasured *measured;  /* NULL: predictions only */
  GPtrArray *points;         /* GpuPoint *, in results order */
  GpuFit fits[GPU_N_FITS];
  GArray *pub_points;        /* MdlGpuPoint, copies of the points' pub */
  MdlGpuFitInfo pub_fits[GPU_N_FITS];
  GString *notes;
  guint64 min_fit_n;
  MdlGpuFitWeights weights;
  MdlGpuResults results;
};

/* The point of @exp at @i. */
#define GPU_POINT(exp, i) ((const GpuPoint *) g_ptr_array_index ((exp)->points, (i)))

/* gpu-experiment.c: the median and the largest of @values (double; sorted here), NaN when it is
 * empty. */
void mdl_gpu_median_max (GArray *values, double *median, double *max);

/* gpu-experiment-output.c: appends @n to @out as the sweep names it: 2^K, 2^K+J just above a
 * power of two, else decimal. */
void mdl_gpu_append_n (GString *out, guint64 n);
/* Appends a Markdown cell to @out: " | " and @v in @format, or "-" when it is not finite. */
void mdl_gpu_cell (GString *out, const char *format, double v);

/* gpu-sorting.c: the sorts' part of the report. */

/* @algorithm, then ":" and the parameters of @params that are not the input (dist, keys): what
 * tells a sort's or a hull's configurations apart on one input; (transfer full). */
char *mdl_gpu_label (const char *algorithm, const char *params);

/* The value of @key in @params ("k=v,k2=v2", as a point holds them), or @fallback; (transfer full). */
char *mdl_gpu_param (const char *params, const char *key, const char *fallback);
/* TRUE when two cases' @params name the same sort input: dist (default uniform) and keys (default
 * u32) agree; cases of other problems name neither, so any two of them agree. */
gboolean mdl_gpu_same_input (const char *a, const char *b);
/* TRUE for an algorithm of the sort problem: sort/... or baseline/...-sort. */
gboolean mdl_gpu_is_sort (const char *algorithm);
/* Appends the sorts' section (tables by n and by distribution) to gpu.md's @out; nothing when no
 * sort was measured. */
void mdl_gpu_sorting_write_markdown (const MdlGpuExperiment *exp, GString *out);
/* Writes the sorts' figures' data and panels into @dir and appends their drawing to gpu.gp's @gp;
 * nothing when no sort was measured. */
gboolean mdl_gpu_sorting_write_files (const MdlGpuExperiment *exp, const char *dir, GString *gp,
                                      GError **error);

/* gpu-hull.c: the hull's part of the report (docs/experiments/hull.md). */

/* The quickhull baseline: the hull problem's reference, whose name says no family. */
#define MDL_GPU_QUICKHULL MDL_GPU_BASELINE_PREFIX "quickhull"

/* TRUE for an algorithm of the hull problem: hull/... or the quickhull baseline. */
gboolean mdl_gpu_is_hull (const char *algorithm);
/* Appends the hulls' section (a row per case, each fit's error on the hull left out) to gpu.md's
 * @out; nothing when no hull was measured. */
void mdl_gpu_hull_write_markdown (const MdlGpuExperiment *exp, GString *out);
/* Writes the hulls' figures' data and panels into @dir and appends their drawing to gpu.gp's @gp;
 * nothing when no hull was measured. */
gboolean mdl_gpu_hull_write_files (const MdlGpuExperiment *exp, const char *dir, GString *gp,
                                   GError **error);

#endif
