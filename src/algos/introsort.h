/* Private: the tuned C introsort of the sorts' keys (32-bit unsigned and float), one source for the
 * CPU registry's sort/introsort (src/algos/cpu/sort.c, built native and instrumented) and for the
 * CUDA harness's host-timed baseline/introsort-sort (src/algos/cuda/baselines-sort.cu).
 *
 * Shape (Musser's introsort, the textbook tuning): a range longer than MDL_INTROSORT_CUTOFF is
 * partitioned (Hoare) around the median of its first, middle and last keys, which are sorted in
 * place first, so that both scans stop without bounds checks; the smaller part recurses and the
 * larger one loops (stack depth at most log2 n); a range still unsorted after 2 floor(log2 n)
 * partitioning levels is heapsorted, which bounds the worst case at O(n log n); ranges of at most
 * MDL_INTROSORT_CUTOFF keys are insertion-sorted where they are left.
 *
 * Instantiated by src/algos/introsort-impl.h once per key type: mdl_introsort_u32 and
 * mdl_introsort_f32 (uint32_t, float: compared as numbers, never as bits). Each takes an opaque
 * @rec handed to the access hooks MDL_INTROSORT_READ (rec, p), MDL_INTROSORT_WRITE (rec, p) and
 * MDL_INTROSORT_OPS (rec, k), which a file may define before including this header (the
 * instrumented CPU build records through them); by default they do nothing.
 * Only <stddef.h> and <stdint.h>: nvcc compiles it too (no GLib on the GPU machine). */
#ifndef MDL_INTROSORT_H
#define MDL_INTROSORT_H

#include <stddef.h>
#include <stdint.h>

/* Ranges of at most this many keys are insertion-sorted: 16 is where the quicksort step stops
 * paying for itself on 4-byte keys (the C++ libraries' choice too). */
#define MDL_INTROSORT_CUTOFF 16

#ifndef MDL_INTROSORT_READ
#define MDL_INTROSORT_READ(rec, p) ((void) (rec))
#endif
#ifndef MDL_INTROSORT_WRITE
#define MDL_INTROSORT_WRITE(rec, p) ((void) (rec))
#endif
#ifndef MDL_INTROSORT_OPS
#define MDL_INTROSORT_OPS(rec, k) ((void) (rec))
#endif

/* 2 floor(log2 n): the partitioning depth after which a range is heapsorted. */
static inline unsigned
mdl_introsort_depth (size_t n)
{
  unsigned lg = 0;
  while (n > 1)
    {
      n >>= 1;
      lg++;
    }
  return 2 * lg;
}

#define MDL_INTROSORT_KEY uint32_t
#define MDL_INTROSORT_FN(stem) stem##_u32
#include "introsort-impl.h"
#undef MDL_INTROSORT_KEY
#undef MDL_INTROSORT_FN

#define MDL_INTROSORT_KEY float
#define MDL_INTROSORT_FN(stem) stem##_f32
#include "introsort-impl.h"
#undef MDL_INTROSORT_KEY
#undef MDL_INTROSORT_FN

#endif
