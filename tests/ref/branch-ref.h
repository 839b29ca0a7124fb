/* Slow, obviously correct reference of the `branch` engine (src/models/branch.c), for agreement
 * tests over random branch streams. The global history is kept as a list of outcomes, newest
 * first; the counters as a hash table from index to state, absent meaning the initial state; an
 * index is built bit by bit from the rule in docs/models/branch.md. Nothing is shared with the
 * engine's code. */
#ifndef TESTS_BRANCH_REF_H
#define TESTS_BRANCH_REF_H

#include <glib.h>

typedef struct {
  GHashTable *counters;   /* index -> state + 1 (0 would read as absent) */
  GArray *outcomes;       /* gboolean, every outcome so far, oldest first */
  guint bits;
  guint history;          /* outcomes XORed into the index; 0 for bimodal */
  guint64 branches;
  guint64 mispredicts;
} RefBranch;

/* A predictor of 2^@bits counters; @history outcomes of global history (0: bimodal). */
void ref_branch_init (RefBranch *r, guint bits, guint history);
void ref_branch_clear (RefBranch *r);

/* Predicts branch @pc, then learns its outcome @taken; returns TRUE when the prediction was
 * wrong. */
gboolean ref_branch_step (RefBranch *r, guint64 pc, gboolean taken);

#endif
