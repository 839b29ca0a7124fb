/* Private: GPU-Quicksort (Cederman and Tsigas; Cederman's thesis ch. 2) as a SIMT algorithm, with
 * the counters its tests check (tests/test-gpu-quicksort.c) and docs/models/sort-gpu-quicksort.md
 * reports. The registry row sort/gpu-quicksort (src/algos/gpu-algos.h) runs it through
 * mdl_gqs_sort(); the CUDA twin is src/algos/cuda/gpu-quicksort.cu. */
#ifndef MDL_GPU_QUICKSORT_H
#define MDL_GPU_QUICKSORT_H

#include <models/simt.h>

/* The phase-one pivot of a new sequence: the average of its minimum and maximum (the thesis's
 * experiments, §2.7), or the median of its first, middle and last element (Algorithm 2). */
typedef enum { MDL_GQS_PIVOT_MINMAX = 0, MDL_GQS_PIVOT_MEDIAN } MdlGqsPivot;

/* The block's cumulative sum of the per-thread counts (§2.6): the two-array Blelloch scan the
 * thesis uses, thread 0 summing sequentially, or every thread fetch-and-adding its counts onto one
 * shared counter (the variant the thesis rejected as > 10x slower). */
typedef enum { MDL_GQS_SUM_SCAN = 0, MDL_GQS_SUM_SERIAL, MDL_GQS_SUM_FAA } MdlGqsSum;

/* How phase one's blocks of a sequence meet (§2.4): by fetch-and-add on the sequence's cursors and
 * block counter in one kernel, or, as on the 8800GTX that had no atomics, by returning to the host
 * twice: a count kernel (per-thread offsets and block sums out), the host's cumulative sum over
 * each sequence's blocks, a scatter kernel, and a pivot kernel of one block per sequence. */
typedef enum { MDL_GQS_PHASE1_ATOMIC = 0, MDL_GQS_PHASE1_HOST } MdlGqsPhase1;

typedef struct {
  guint threads;        /* T, threads per block: a power of two, 32..1024 */
  guint maxseq;         /* the most sequences phase one makes, >= 1 */
  guint minsize;        /* S (MINSIZE): shorter sequences go to the bitonic sort; a power of two */
  MdlGqsPivot pivot;
  MdlGqsSum sum;
  MdlGqsPhase1 phase1;
  gboolean check;       /* check the pivot invariant after every partition (host side, no events) */
} MdlGqsConfig;

/* What a run did. Reads and writes count 4-byte keys moved by the kernels' passes (one per active
 * lane), not the bookkeeping. */
typedef struct {
  guint iterations;          /* phase-one iterations */
  guint64 p1_launches;       /* phase-one kernel launches: 1 (atomic) or 3 (host) per iteration */
  guint64 p1_atomics;        /* phase-one global atomics (thread 0's FAAs: 3 a block, or none) */
  guint64 host_sums;         /* blocks whose regions the host summed (phase1=host) */
  guint64 p1_blocks;         /* thread blocks over all phase-one launches */
  guint64 p1_partitions;     /* sequences partitioned in phase one */
  guint64 last_blocks;       /* blocks that saw themselves last of their sequence */
  guint64 sequences;         /* non-empty sequences handed to phase two */
  guint64 p2_partitions;     /* partition steps of phase two */
  guint64 altsorts;          /* bitonic sorts in shared memory */
  guint max_stack;           /* deepest phase-two stack, entries */
  guint64 key_reads;         /* pass 1 + pass 2 + bitonic loads */
  guint64 aux_writes;        /* keys scattered by pass 2 (into either buffer) */
  guint64 pivot_writes;      /* pivot keys written to d */
  guint64 sorted_writes;     /* keys written to d by the bitonic sort */
  guint64 sample_reads;      /* pivot samples (phase two and the median rule) */
  guint64 aux_bytes;         /* the auxiliary buffer */
  guint64 bookkeeping_bytes; /* everything else allocated on the device beyond d */
  guint64 violations;        /* pivot-invariant failures (check only) */
  guint64 altsort_from_aux;  /* keys the bitonic sort moved from the auxiliary buffer to d */
} MdlGqsStats;

/* The most stack entries phase two may need: log2 of the key space (Theorem 2.2). */
#define MDL_GQS_STACK 32

/* Sorts the @n 32-bit keys at device address @d of @gpu ascending, in place (the result in d,
 * an auxiliary buffer of n keys beside). @stats (nullable) receives the counters. FALSE with
 * MDL_ERROR_PARAM for a bad configuration, MDL_ERROR_MODEL when the pivot invariant or the
 * stack bound fails, or what a launch reported. n = 0 is fine (nothing launched). */
gboolean mdl_gqs_sort (MdlSimt *gpu, const MdlGqsConfig *cfg, guint64 d, guint64 n,
                       MdlGqsStats *stats, GError **error);

/* The defaults of the registry row: T = 128, maxseq = 512, MINSIZE = 256, min/max pivots, the
 * scan. */
MdlGqsConfig mdl_gqs_config_default (void);

#endif
