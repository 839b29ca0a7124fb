/* Private to src/algos/cuda: what the harness (harness.cu) needs of a CUDA twin, and what every
 * twin shares. A CUDA twin is the GPU algorithm of a row of src/algos/gpu-algos.h as real kernels:
 * one CudaTwin per row whose TWIN column says cuda, defined in the twin's own file as
 * cuda_twin_SYM. The harness parses a case, lets the twin validate it, size and fill its buffers,
 * launches it, and has it compare the output with a CPU reference; timing, profiling order and
 * reporting are the harness's. No GLib: the GPU machine has none. */
#ifndef MDL_CUDA_TWIN_H
#define MDL_CUDA_TWIN_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "../gpu-algos.h"
#include "../keys.h"
#include "cuda-check.h"

/* Output bytes start as this, so that an element a kernel fails to write is caught. */
static const unsigned char MDL_CUDA_POISON = 0xA5;

struct CudaTwin;

/* One case: an algorithm spec `NAME:n=N,key=value,...`, as `models run` reads it. */
struct Case {
  std::string spec;                          /* as given */
  long n = 0;                                /* the row's DEFAULT_N unless the spec sets n */
  std::map<std::string, std::string> params; /* every key=value of the spec but n */
  const CudaTwin *twin = nullptr;

  /* The value of @key as an integer (decimal or 0x hex), or @fallback when the spec has none. */
  long num (const char *key, long fallback) const;
  /* The value of @key as text, or @fallback. */
  std::string text (const char *key, const char *fallback) const;
};

/* A case's memory: host copies of up to two inputs and two outputs, and their device buffers.
 * A twin sizes and fills the host vectors in prepare(); the harness uploads them, downloads the
 * outputs after the launch, and keeps the outputs as they were before it in out_initial and
 * out2_initial (the accumulators of an atomic kernel). */
struct Buffers {
  std::vector<unsigned char> in, in2, out, out2, out_initial, out2_initial;
  unsigned char *d_in = nullptr, *d_in2 = nullptr, *d_out = nullptr, *d_out2 = nullptr;
};

/**
 * CudaTwin: the CUDA side of one GPU algorithm.
 * @validate: checks the case's parameters and n (the harness has checked that every key is one of
 *   the row's); returns false with the reason in @why.
 * @prepare: sizes and fills the host buffers of @b: random inputs from @rng (mdl_splitmix64),
 *   outputs poisoned or, for accumulators, random; and sets the case's constant memory, if any.
 * @launch: launches the kernels on the device buffers; returns how many kernel launches it made
 *   (under Nsight Compute each is a row of its own).
 * @check: the number of output bytes that differ from the CPU reference, computed from the host
 *   inputs and the initial outputs.
 * @kernel: the name of the (first) kernel a case launches, as Nsight Compute shows it.
 * @reset: (optional) restores the output before every launch, outside the timed region: an
 *   in-place algorithm (thrust::sort) gets its input back in out each time (NULL: nothing).
 * @host: the case runs on the host's CPU (a CPU baseline): no buffer goes to the device, launch()
 *   works on the host vectors, and the harness times it with std::chrono's steady clock.
 */
struct CudaTwin {
  bool (*validate) (const Case &c, std::string *why);
  void (*prepare) (const Case &c, Buffers &b, uint64_t *rng);
  int (*launch) (const Case &c, Buffers &b);
  long (*check) (const Case &c, const Buffers &b);
  std::string (*kernel) (const Case &c);
  void (*reset) (const Case &c, Buffers &b);
  bool host;
};

/* Shared helpers (harness.cu). */

/* Fills @buf with mdl_splitmix64 numbers from @state. */
void mdl_cuda_fill_random (std::vector<unsigned char> &buf, uint64_t *state);
/* The sorts' inputs (src/algos/keys.h): TRUE when the case's dist= (default uniform) names a
 * distribution and its keys= (default u32) is u32 or f32, else false with the reason; and @buf
 * filled with c.n keys of it (float bits for keys=f32, mdl_keys_f32_bits), drawn from the seed
 * that the next number of @state gives. */
bool mdl_cuda_dist_ok (const Case &c, std::string *why);
void mdl_cuda_fill_keys (const Case &c, std::vector<unsigned char> &buf, uint64_t *state);
/* The check of a sort: the keys of b.out that differ from b.in sorted ascending (the first one
 * reported on stderr); floats compared by value (any float comparison sort passes). */
long mdl_cuda_check_sort (const Case &c, const Buffers &b);
/* The same, floats compared bit for bit in totalOrder (the seed sorts' order: -0 before +0). */
long mdl_cuda_check_sort_total (const Case &c, const Buffers &b);

/* keys=f32 of the seed sorts (float-keys.cu). TRUE for keys=f32. */
bool mdl_cuda_float_keys (const Case &c);
/* A launch mapping @n words from @src to @dst (may be @src) by mdl_keys_f32_order, or by
 * mdl_keys_f32_unorder when @back. */
void mdl_cuda_keys_order (const unsigned *src, unsigned *dst, size_t n, bool back);
/* In prepare(), after the input: for keys=f32, in2 sized for the input's words. */
void mdl_cuda_keys_scratch (const Case &c, Buffers &b);
/* In launch(): the words the sort reads: d_in, or for keys=f32 d_in2 after a map launch (added to
 * *@launches). */
const unsigned *mdl_cuda_keys_in (const Case &c, const Buffers &b, int *launches);
/* In launch(), after the sort: for keys=f32, the @n sorted words at @out mapped back to float
 * bits (a launch, added to *@launches). */
void mdl_cuda_keys_out (const Case &c, unsigned *out, size_t n, int *launches);
/* The 4-byte word @i of @v. */
unsigned mdl_cuda_word (const std::vector<unsigned char> &v, size_t i);
/* The bytes of @got that differ from @want (sizes must be equal). */
long mdl_cuda_count_diff (const std::vector<unsigned char> &want,
                          const std::vector<unsigned char> &got);

/* Sets *@why to @text and returns false: the refusal of a validate(). */
bool mdl_cuda_refuse (std::string *why, const std::string &text);
/* TRUE when the case's @key, or @fallback when it has none, is one of the '|'-separated
 * @choices; else false with the reason in *@why. */
bool mdl_cuda_choice_ok (const Case &c, const char *key, const char *fallback,
                         const std::string &choices, std::string *why);

/* Lemma 1's processor assignment of the MSIMD algorithms (msimd-quicksort.cu, the SIMT twin's
 * mdl_mqs_assign): @ps processors of a problem to children of @nl and @nr elements at @g per
 * processor (spare rule unless @literal); false when a non-empty child gets none. */
bool mdl_cuda_mqs_assign (bool literal, unsigned long long g, unsigned long long ps,
                          unsigned long long nl, unsigned long long nr, unsigned long long *pl_out,
                          unsigned long long *pr_out);

/* The hulls' points and check (hull-points.cu), for hull/msimd and baseline/quickhull: the case's
 * dist= (default disc) as an MdlPointDist; and the check of a hull: b.out holds the vertices as
 * @prec pairs, b.out2 their count (uint64) and, when 16 bytes long, a failure flag the kernels
 * raise; the result is 0 when the vertices are the monotone chain's as a cycle (else 1, the first
 * difference on stderr). */
MdlPointDist mdl_cuda_point_dist (const Case &c);
long mdl_cuda_check_hull (const Case &c, const Buffers &b, MdlPointPrec prec);

/* The twins of the rows with TWIN cuda, declared for the harness's table. */
#define MDL_CUDA_TWIN_DECLARE_cuda(sym) extern const CudaTwin cuda_twin_##sym;
#define MDL_CUDA_TWIN_DECLARE_none(sym)
#define MDL_CUDA_TWIN_DECLARE(sym, name, params, twin, n, block, checked, cases, summary)          \
  MDL_CUDA_TWIN_DECLARE_##twin (sym)
MDL_GPU_ALGOS (MDL_CUDA_TWIN_DECLARE)
#define MDL_CUDA_BASELINE_DECLARE(sym, name, n, cases, summary) extern const CudaTwin cuda_twin_##sym;
MDL_GPU_BASELINES (MDL_CUDA_BASELINE_DECLARE)

#endif
