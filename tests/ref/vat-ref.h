/* A slow, obviously correct reference of the VAT translation cache, for agreement tests with the
 * engine (src/models/vat/). Plain arrays and linear scans; every rule is written the way the thesis
 * states it (Def. 2.9 for islru, Def. 2.12 for ismin), not the way the engine computes it. */
#ifndef TESTS_VAT_REF_H
#define TESTS_VAT_REF_H

#include <glib.h>

typedef enum {
  REF_LRU = 0,
  REF_ISLRU,
  REF_MIN,
  REF_ISMIN,
  REF_FIFO,
  REF_RANDOM,
  REF_LEVELS,
} RefPolicy;

#define REF_N_POLICIES 7

/* The spec word of each policy ("lru", ...). */
extern const char *const ref_policy_names[REF_N_POLICIES];

typedef struct {
  RefPolicy policy;
  guint k_bits;     /* log2 K */
  guint depth;      /* d */
  guint w;          /* W */
  gboolean vm;      /* also walk the host tree (same page, tree 1) after each access */
  guint32 seed;     /* random */
} RefVatConfig;

typedef struct {
  guint64 misses;
  guint64 hits;
  guint64 compulsory;
  guint64 layer_misses[64];
  GString *outcome;   /* 'H' or 'M' per node access, in walk order */
  gboolean root_evicted_after_insert; /* a root (layer d) was evicted at some point */
} RefVatResult;

/* Runs @pages (page numbers) through the reference. @out->outcome is allocated; free it with
 * ref_vat_result_clear(). */
void ref_vat_run (const RefVatConfig *cfg, const guint64 *pages, gsize n, RefVatResult *out);
void ref_vat_result_clear (RefVatResult *out);

/* A random page sequence below K^d mixing random pages of a few subtrees, sequential runs, local
 * jumps at every layer, reuse of recent pages and repeats. */
void ref_vat_random_pages (GRand *rand, guint k_bits, guint depth, gsize n, guint64 *out);

#endif
