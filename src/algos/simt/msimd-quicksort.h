/* Private to src/algos/simt/msimd-quicksort.c and its tests: the processor assignment of MSIMD
 * quicksort's collaborative stage (Jurkiewicz & Danilewski, Lemma 1 and Proposition 1), and the
 * stage simulated on subproblem sizes alone, for the paper's scale (V5, V6). */
#ifndef MDL_MSIMD_QUICKSORT_H
#define MDL_MSIMD_QUICKSORT_H

#include <glib.h>

typedef enum {
  MDL_MQS_SPARE,    /* a non-empty child without a processor takes a spare one of its parent;
                       the spares left go to the larger child */
  MDL_MQS_LITERAL,  /* Lemma 1 as written: such a partition is unsuccessful (redone); spares idle */
} MdlMqsRule;

/* The processors of the two children of a partition of a subproblem with @ps processors into
 * @n_left and @n_right keys (the pivot's equal keys left out), g = ⌈n/P⌉ of the root: ⌊n_i/g⌋
 * each (Lemma 1), then @rule. Returns FALSE when the partition is unsuccessful: a non-empty child
 * has no processor. */
gboolean mdl_mqs_assign (MdlMqsRule rule, guint64 g, guint64 ps, guint64 n_left, guint64 n_right,
                         guint64 *p_left, guint64 *p_right);

/* The collaborative stage on sizes only: distinct keys, so a random pivot of a subproblem of m
 * keys leaves children of r and m − 1 − r keys with r uniform in [0, m). Every round partitions
 * every subproblem that has at least two processors; a round with none left ends the stage. */
typedef struct {
  guint64 rounds;        /* rounds run (at most max_rounds) */
  gboolean finished;     /* every processor has its own subproblem (or none) */
  guint64 partitions;    /* partition attempts, all subproblems */
  guint64 failures;      /* unsuccessful ones */
  guint64 max_attempts;  /* the most attempts one processor took part in: the paper's A */
  guint64 max_size;      /* the largest subproblem a processor owns at the end */
} MdlMqsStage;

MdlMqsStage mdl_mqs_simulate (MdlMqsRule rule, guint64 n, guint64 P, guint64 max_rounds,
                              guint64 seed);

#endif
