/* Private: the shape of the AGPU merge sorts (sort/warpsort, sort/dway-merge; Koike & Sadakane
 * §7.1.2 and §7.3, notes ../shared/spec/agpu-koike-sadakane.md §5.3-5.5), computed the same way by
 * the SIMT twin (src/algos/simt/merge-sort.c) and the CUDA twin (src/algos/cuda/merge-sort.cu),
 * and the closed formulas of its I/O (V10, Lemma 7.2/7.7) and of the lower bound (§5.4).
 * Plain C on <stdint.h> and <math.h>: nvcc reads it too.
 *
 * The four parts, n keys, b cores per block = b-word blocks, d-way merges:
 *   1 initialize: blocks of b keys bitonic-sorted, one b-word read and write each;
 *   2 column-wise merge: s0 steps, each merging d consecutive runs into one, until at most l
 *     runs (the paper's threshold ℓ) remain: run length R = b d^s0, runs = ⌈n/R⌉;
 *   3 partition: every sigma-th key of each run is a separator (m of them), the separators are
 *     sorted by column-wise merges (Lemma 7.7 on the ℓ sorted lists), each run is split at every
 *     separator by binary search, giving u = m + 1 groups;
 *   4 row-wise merge: t0 = ⌈log_d runs⌉ steps, each merging d pieces of every group into one,
 *     the groups' blocks all running at once, until each group is one piece; the groups
 *     concatenated are the sorted keys.
 * With l = 1 parts 3 and 4 vanish: Aggarwal-Vitter's d-way merge sort as the I/O model has it
 * (V10's table). */
#ifndef MDL_MERGE_SORT_PLAN_H
#define MDL_MERGE_SORT_PLAN_H

#include <math.h>
#include <stdint.h>

typedef struct {
  uint64_t n, b, d, l, sigma;  /* the parameters (l: ℓ, sigma: separator stride) */
  uint64_t s0;                 /* column-wise merge steps (part 2) */
  uint64_t run;                /* R: run length after part 2, b d^s0 */
  uint64_t runs;               /* runs after part 2, ⌈n/R⌉ (ℓ' <= l, or 1) */
  uint64_t per_run;            /* separators of a whole run: R / sigma (0 when sigma > R) */
  uint64_t m;                  /* separators; u = m + 1 groups */
  uint64_t t0;                 /* row-wise merge steps (part 4); 0 when runs == 1 */
  uint64_t passes;             /* passes over the keys: 1 + s0 + t0 */
} MdlMergePlan;

static inline uint64_t
mdl_merge_ceil_div (uint64_t a, uint64_t b)
{
  return (a + b - 1) / b;
}

/* The plan of sorting @n >= 1 keys (b, d powers of two). @l = 0 picks ℓ, the largest power of two
 * with ℓ^2 <= n/b (at least 1), and @sigma = 0 picks half a run, R/2: about ℓ runs enter part 3,
 * two separators each, so about 2ℓ groups leave it with pieces of about b keys, and the last
 * column-wise and the last row-wise steps both keep about sqrt(n/b) blocks busy
 * (docs/models/sort-merge.md). */
static inline MdlMergePlan
mdl_merge_plan (uint64_t n, uint64_t b, uint64_t d, uint64_t l, uint64_t sigma)
{
  MdlMergePlan p;
  if (l == 0)
    for (l = 1; 4 * l * l <= mdl_merge_ceil_div (n, b); l *= 2)
      ;
  p = (MdlMergePlan) { n, b, d, l, sigma, 0, b, 0, 0, 0, 0, 0 };
  p.runs = mdl_merge_ceil_div (n, b);
  while (p.runs > l)
    {
      p.run *= d;
      p.runs = mdl_merge_ceil_div (n, p.run);
      p.s0++;
    }
  if (p.sigma == 0)
    p.sigma = p.run > 1 ? p.run / 2 : 1;
  if (p.runs > 1)
    {
      uint64_t pieces = 1;
      p.per_run = p.run >= p.sigma ? p.run / p.sigma : 0;
      p.m = (p.runs - 1) * p.per_run + (n - (p.runs - 1) * p.run) / p.sigma;
      while (pieces < p.runs)
        {
          pieces *= d;
          p.t0++;
        }
    }
  p.passes = 1 + p.s0 + p.t0;
  return p;
}

/* Merge passes of the I/O model's d-way merge sort from runs of b: ⌈log_d ⌈n/b⌉⌉ (V10). */
static inline uint64_t
mdl_merge_sort_passes (uint64_t n, uint64_t b, uint64_t d)
{
  uint64_t runs = mdl_merge_ceil_div (n, b), passes = 0;
  while (runs > 1)
    {
      runs = mdl_merge_ceil_div (runs, d);
      passes++;
    }
  return passes;
}

/* Its I/O: part 1 and every merge pass read and write each of the ⌈n/b⌉ blocks once (Lemma 7.7
 * with the O(d) term zero, see docs/models/sort-merge.md): 2⌈n/b⌉(1 + passes). At n = 2^28,
 * b = 32 this is V10's table: 2^24 x (24, 13, 9, 7, 6, 5, 5, 4) for d = 2 ... 256. */
static inline uint64_t
mdl_merge_sort_io (uint64_t n, uint64_t b, uint64_t d)
{
  return 2 * mdl_merge_ceil_div (n, b) * (1 + mdl_merge_sort_passes (n, b, d));
}

/* The counting bound of Theorem 7.6 (§5.4) as reads: an algorithm whose multiprocessor holds M
 * words, inputs whose b-blocks are sorted (n!/(b!)^(n/b) orders), at most M^b/b! outcomes per
 * read, so reads >= log(n!/(b!)^(n/b)) / log(M^b/b!); every block is also read once and written
 * once, so I/O >= max(that, n/b) + n/b. Natural logs through lgamma; n a multiple of b, M > b. */
static inline double
mdl_merge_sort_lower_bound (uint64_t n, uint64_t b, uint64_t M)
{
  double blocks = (double) n / (double) b;
  double orders = lgamma ((double) n + 1) - blocks * lgamma ((double) b + 1);
  double per_read = (double) b * log ((double) M) - lgamma ((double) b + 1);
  double reads = orders / per_read;
  return (reads > blocks ? reads : blocks) + blocks;
}

#endif
