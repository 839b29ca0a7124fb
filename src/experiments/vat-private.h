/* Private to src/experiments: the layout of a VAT experiment's results, shared by the run
 * (vat.c) and the writers (vat-output.c). */
#ifndef MDL_EXPERIMENTS_VAT_PRIVATE_H
#define MDL_EXPERIMENTS_VAT_PRIVATE_H

#include <models/experiment.h>

/* Cache levels of the external-memory prediction. */
#define VAT_EM_LEVELS 3

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
  MdlVatResults results;     /* the public view of points, fits and slopes, once final */
};

#endif
