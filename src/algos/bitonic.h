/* Private: the schedule of the bitonic sorting network (Capannini's thesis §3.2, Algorithm 2;
 * Koike & Sadakane §7.1.1), shared by the SIMT twin (src/algos/simt/bitonic.c), its CUDA twin
 * (src/algos/cuda/bitonic.cu) and the tests, so that all three cut the network into the same
 * passes. Plain C over <stdint.h>: nvcc reads it too.
 *
 * The network on n = 2^L keys has L stages s = 1..L; stage s has the s steps c = s−1, ..., 0.
 * Step (s, c) compares the keys at r and r xor 2^c for every r with bit c clear and puts the
 * smaller first when bit s of r is clear, else the larger first (Algorithm 2, line 5, cleaned:
 * bit_c(r) == bit_s(r) ∧ A[r] > A[r ⊕ 2^c] ⇒ swap). There are (L² + L)/2 steps.
 *
 * A pass is one kernel launch: a global pass runs one step over the whole array, a pair per
 * thread, straight from global memory; a tile pass (Capannini's superstep over a Γ-sequence) runs
 * consecutive steps inside parts of 2^g keys, g = log2(tile), each part in one block's shared
 * memory. A part is the set of indices that agree outside the bit positions of the mask Γ
 * (Claim 2); part i puts the bits of i, low to high, into the positions outside Γ (Algorithm 3,
 * cleaned), and its local key e sits at global index part_base | deposit(e, Γ).
 *
 * Layouts:
 *   global  every step is a global pass ("global steps only");
 *   stage   the stages 1..g in one tile pass over Γ = {0..g−1}; then, in each later stage, the
 *           steps c >= g as global passes and the steps c < g as one tile pass over Γ = {0..g−1}
 *           (shared-memory stages of a tile of consecutive keys; Koike & Sadakane's convention,
 *           1 + L'(L'+3)/2 passes with L' = L − g);
 *   greedy  Capannini's greedy rule (§3.2.2, the k-coalesced fix): every pass starts with
 *           Γ = {0..log k − 1} and takes the next steps in order as long as their c is in Γ or Γ
 *           has fewer than g positions (c is then added); passes cross stage boundaries. A pass
 *           closed with fewer than g positions (only at the end of the network) is filled with
 *           the lowest free positions, so that every part has 2^g keys;
 *   formula the cut that the thesis's closed form counts (§3.2.3): the stages 1..g in one pass;
 *           in each later stage s, the s − g steps c >= g in passes of g − log k steps (Γ: the
 *           log k low bits and the pass's c), then the steps c < g in one pass over {0..g−1};
 *           passes never cross a stage boundary. */
#ifndef MDL_BITONIC_H
#define MDL_BITONIC_H

#include <stdint.h>

/* Functions of this header run on the host, and in CUDA kernels too. */
#ifdef __CUDACC__
#define MDL_BITONIC_FN static inline __host__ __device__
#else
#define MDL_BITONIC_FN static inline
#endif

typedef enum {
  MDL_BITONIC_GLOBAL = 0,
  MDL_BITONIC_STAGE,
  MDL_BITONIC_GREEDY,
  MDL_BITONIC_FORMULA,
} MdlBitonicLayout;

/* The layouts as a parameter's choices: choice i is MdlBitonicLayout i. */
#define MDL_BITONIC_LAYOUT_CHOICES "global|stage|greedy|formula"

/* log2 of the most keys a schedule covers, and its most steps ((32² + 32)/2). */
#define MDL_BITONIC_MAX_LOG 32u
#define MDL_BITONIC_MAX_STEPS 528u

/* One pass: @gamma the Γ positions of a tile pass (0 for a global pass), the @steps steps from
 * number @first on. */
typedef struct {
  uint32_t gamma;
  uint16_t first;
  uint16_t steps;
} MdlBitonicPass;

typedef struct {
  uint32_t log_n;      /* L */
  uint32_t log_tile;   /* g: log2 of the keys of a part (clamped to L) */
  uint32_t log_k;      /* log2 of the coalesced run of the greedy rule (clamped to g) */
  MdlBitonicLayout layout;
  uint32_t n_steps;    /* (L² + L)/2 */
  uint8_t step_s[MDL_BITONIC_MAX_STEPS], step_c[MDL_BITONIC_MAX_STEPS];
  uint32_t n_passes;
  MdlBitonicPass pass[MDL_BITONIC_MAX_STEPS];
} MdlBitonicPlan;

/* The bits of @x, low to high, put into the set positions of @mask, low to high (the scatter of
 * Algorithm 3; x86's PDEP). */
MDL_BITONIC_FN uint32_t
mdl_bitonic_deposit (uint32_t x, uint32_t mask)
{
  uint32_t r = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1, x >>= 1)
    if (x & 1)
      r |= m & (~m + 1);
  return r;
}

/* @dep[t] = mdl_bitonic_deposit (t, @mask) for t < @n (@n >= 1), in O(1) each: the masked increment (the
 * bits outside @mask set, so that the carry skips them) steps from one to the next. A tile
 * kernel's thread t holds local keys t + i·n = t | i·n (n a power of two), whose bits deposit
 * apart, so it needs deposit(t) once per mask and deposit(i·n) once per round: the loop over the
 * mask's bits per thread and key was a third of a bitonic sort's simulated run. */
MDL_BITONIC_FN void
mdl_bitonic_deposits (uint32_t n, uint32_t mask, uint32_t *dep)
{
  dep[0] = 0;
  for (uint32_t t = 1; t < n; t++)
    dep[t] = ((dep[t - 1] | ~mask) + 1) & mask;
}

/* InsAt(N, x, c) of Algorithm 4: @j with bit @x inserted at position @c (InsAt(7, 0, 1) = 13). */
MDL_BITONIC_FN uint32_t
mdl_bitonic_ins_at (uint32_t j, uint32_t x, uint32_t c)
{
  uint32_t low = j & ((1u << c) - 1);
  return ((j >> c) << (c + 1)) | (x << c) | low;
}

/* The number of set bits of @mask below position @c: the local position of Γ bit c. */
MDL_BITONIC_FN uint32_t
mdl_bitonic_rank (uint32_t mask, uint32_t c)
{
  uint32_t below = mask & ((1u << c) - 1), r = 0;
  for (; below != 0; below &= below - 1)
    r++;
  return r;
}

MDL_BITONIC_FN uint32_t
mdl_bitonic_low_mask (uint32_t bits)
{
  return bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
}

/* The smallest L with 2^L >= @n (0 for n <= 1). */
static inline uint32_t
mdl_bitonic_log_ceil (uint64_t n)
{
  uint32_t l = 0;
  while (((uint64_t) 1 << l) < n)
    l++;
  return l;
}

static inline void
mdl_bitonic_add_pass (MdlBitonicPlan *p, uint32_t gamma, uint32_t first, uint32_t steps)
{
  MdlBitonicPass *q = &p->pass[p->n_passes++];
  q->gamma = gamma;
  q->first = (uint16_t) first;
  q->steps = (uint16_t) steps;
}

/* Fills @p with the passes of @layout on 2^@log_n keys (log_n <= 31), parts of 2^@log_tile keys
 * (>= 1) and, for greedy, runs of 2^@log_k keys. */
static inline void
mdl_bitonic_plan (MdlBitonicPlan *p, uint32_t log_n, uint32_t log_tile, uint32_t log_k,
                  MdlBitonicLayout layout)
{
  uint32_t g = log_tile < log_n ? log_tile : log_n, t = 0;
  p->log_n = log_n;
  p->log_tile = g;
  p->log_k = log_k < g ? log_k : g;
  p->layout = layout;
  p->n_steps = 0;
  p->n_passes = 0;
  for (uint32_t s = 1; s <= log_n; s++)
    for (uint32_t c = s; c-- > 0;)
      {
        p->step_s[p->n_steps] = (uint8_t) s;
        p->step_c[p->n_steps++] = (uint8_t) c;
      }
  if (layout == MDL_BITONIC_GLOBAL || g == 0)
    {
      for (t = 0; t < p->n_steps; t++)
        mdl_bitonic_add_pass (p, 0, t, 1);
      return;
    }
  if (layout == MDL_BITONIC_STAGE)
    {
      uint32_t low = mdl_bitonic_low_mask (g);
      mdl_bitonic_add_pass (p, low, 0, g * (g + 1) / 2);
      t = g * (g + 1) / 2;
      for (uint32_t s = g + 1; s <= log_n; s++)
        {
          for (uint32_t c = s; c-- > g; t++)
            mdl_bitonic_add_pass (p, 0, t, 1);
          mdl_bitonic_add_pass (p, low, t, g);
          t += g;
        }
      return;
    }
  if (layout == MDL_BITONIC_FORMULA)
    {
      uint32_t low = mdl_bitonic_low_mask (g), w = g - p->log_k;
      mdl_bitonic_add_pass (p, low, 0, g * (g + 1) / 2);
      t = g * (g + 1) / 2;
      for (uint32_t s = g + 1; s <= log_n; s++)
        {
          for (uint32_t left = s - g; left > 0;)
            {
              uint32_t take = left < w ? left : w, gamma = mdl_bitonic_low_mask (p->log_k), bits;
              bits = p->log_k;
              for (uint32_t i = 0; i < take; i++)
                gamma |= 1u << p->step_c[t + i];
              bits += take;
              for (uint32_t b = 0; bits < g; b++)
                if (!(gamma & (1u << b)))
                  {
                    gamma |= 1u << b;
                    bits++;
                  }
              mdl_bitonic_add_pass (p, gamma, t, take);
              t += take;
              left -= take;
            }
          mdl_bitonic_add_pass (p, low, t, g);
          t += g;
        }
      return;
    }
  while (t < p->n_steps)
    {
      uint32_t gamma = mdl_bitonic_low_mask (p->log_k), bits = p->log_k, first = t;
      for (; t < p->n_steps; t++)
        {
          uint32_t bit = 1u << p->step_c[t];
          if (!(gamma & bit))
            {
              if (bits == g)
                break;
              gamma |= bit;
              bits++;
            }
        }
      for (uint32_t b = 0; bits < g; b++)
        if (!(gamma & (1u << b)))
          {
            gamma |= 1u << b;
            bits++;
          }
      mdl_bitonic_add_pass (p, gamma, first, t - first);
    }
}

/* The register groups of a tile pass (the passes' own greedy rule one level down): the pass's
 * steps, in order, cut into runs whose local bits (ranks in Γ) fit in @log_regs positions; a
 * thread then holds the 2^log_regs keys of a unit (the indices that differ only in the group's
 * positions) in registers for the run. Groups with fewer positions (at the pass's end) are filled
 * with the lowest free positions below 2^@log_tile. Writes the groups' masks (local positions)
 * into @mask and their step counts into @steps (room for a pass's steps); returns how many. */
static inline uint32_t
mdl_bitonic_groups (const MdlBitonicPlan *p, const MdlBitonicPass *pass, uint32_t log_regs,
                    uint32_t *mask, uint32_t *steps)
{
  uint32_t n = 0, t = pass->first, end = pass->first + pass->steps;
  while (t < end)
    {
      uint32_t m = 0, bits = 0, first = t;
      for (; t < end; t++)
        {
          uint32_t bit = 1u << mdl_bitonic_rank (pass->gamma, p->step_c[t]);
          if (!(m & bit))
            {
              if (bits == log_regs)
                break;
              m |= bit;
              bits++;
            }
        }
      for (uint32_t b = 0; bits < log_regs && b < p->log_tile; b++)
        if (!(m & (1u << b)))
          {
            m |= 1u << b;
            bits++;
          }
      mask[n] = m;
      steps[n++] = t - first;
    }
  return n;
}

/* The shared word of local key @e: @e, or with @pad one word skipped after every 32 (so that a
 * warp reading keys 2^m apart, m <= 5, hits distinct banks). */
MDL_BITONIC_FN uint32_t
mdl_bitonic_slot (uint32_t e, uint32_t pad)
{
  return e + (pad ? e >> 5 : 0);
}

/* The thesis's closed form for the number of partitions (§3.2.3):
 * 1 + Σ_{s = log σ + 1}^{log n} (⌈(s − log σ)/log(σ/k)⌉ + 1); log σ > log k. */
static inline uint32_t
mdl_bitonic_passes_thesis (uint32_t log_n, uint32_t log_sigma, uint32_t log_k)
{
  uint32_t passes = 1, w = log_sigma - log_k;
  for (uint32_t s = log_sigma + 1; s <= log_n; s++)
    passes += (s - log_sigma + w - 1) / w + 1;
  return passes;
}

/* Capannini's cost table for Cederman's quicksort (§3.2.3, "Table 3.2.3"), one of its log n
 * steps, kernel @kernel (1: count, 2: two prefix sums, 3: scatter) on @n keys and k = @k (n and
 * k powers of two, n/k <= σ): G, T and W into @g, @t, @w. The step's costs are
 *   #1  G = n/k + 2    T = n/k          W = n
 *   #2  G = 4n/k²      T = 4 log(n/k)   W = 2n/k
 *   #3  G = n/k + n    T = n/k          W = n
 * and the sort's are log n times their sum. */
static inline void
mdl_capannini_quicksort_step (uint32_t kernel, uint64_t n, uint64_t k, uint64_t *g, uint64_t *t,
                              uint64_t *w)
{
  uint32_t log_nk = mdl_bitonic_log_ceil (n / k);
  switch (kernel)
    {
    case 1:
      *g = n / k + 2, *t = n / k, *w = n;
      break;
    case 2:
      *g = 4 * n / (k * k), *t = 4 * (uint64_t) log_nk, *w = 2 * n / k;
      break;
    default:
      *g = n / k + n, *t = n / k, *w = n;
      break;
    }
}

/* The thesis's radix sort transactions (§3.2.3, after Sengupta et al.): G = (32/b)·(n/h)·2^b for
 * b-bit digits and blocks of h keys (an O() expression, constant-free); b = 4, h = 1024 best. */
static inline uint64_t
mdl_capannini_radix_g (uint64_t n, uint32_t b, uint64_t h)
{
  return (32 / b) * ((n + h - 1) / h) * ((uint64_t) 1 << b);
}

/* Koike & Sadakane's bitonic I/O under the convention of their reading notes (§5.2):
 * (2n/b)(1 + L(L+3)/2) block accesses, L = log2(n/M), for n >= M: the pass count of the stage
 * layout with tile M, each pass reading and writing n keys in b-key blocks. */
static inline uint64_t
mdl_koike_bitonic_io (uint64_t n, uint64_t m, uint64_t b)
{
  uint64_t l = mdl_bitonic_log_ceil (n / m);
  return 2 * n / b * (1 + l * (l + 3) / 2);
}

/* The key that pads an input of n keys up to 2^L: the largest, so that the pads sort last. */
#define MDL_BITONIC_PAD 0xffffffffu

#endif
