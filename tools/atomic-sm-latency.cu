// atomic-sm-latency: per SM, the latency of a dependent chain of global loads and of atomicCAS,
// the table of the SIMT layer's clocked schedule (include/models/simt-clock.h; issue 15,
// docs/experiments/load-balancing.md, "Session 10 (branch s10-balance)").
//
// One lane of one warp per SM runs CHAIN operations, each on the address the one before returned
// (so none starts before the last one's value is back), between two clock64 reads:
//   load_shared / load_own: ld.global.cg (L2, not L1) of one word every SM reads / of the SM's own
//                           word (128 bytes apart: a line of its own);
//   cas_shared / cas_own:   atomicCAS (word, seen, seen + 1) on those words, `seen` the last value
//                           returned (the SMs on one word fail and queue behind each other; on its
//                           own word an SM always succeeds).
// Mode all: every SM at once (the claimers wait for each other before timing, at most WAIT_CYCLES);
// mode alone: one SM at a time, the others idle. Blocks land on SMs as the hardware places them:
// the grid is BLOCKS_PER_SM blocks an SM and the first block on each SM claims it (the rest exit).
// REPS runs each; the median is printed. The CSV on stdout: smid,op,mode,ns_per_op (clock64
// cycles over the peak clock of cudaDevAttrClockRate), cycles_per_op, wall_ns_per_op (%globaltimer,
// which tells whether the SM ran below that clock). The clock read after the loop does not wait
// for the last operation: one in CHAIN uncounted. SMs that no block reached are named on stderr.
//   load_volatile_own:      a volatile load of the SM's own word (LDG.E.STRONG.SYS), the flavour of
//                           the lock-free queue's loads (src/algos/cuda/balance.cu), to set beside
//                           load_own's ld.global.cg.
// Build and run (about 5 s on an H100): nvcc -O3 -arch=sm_90 -o atomic-sm-latency
// tools/atomic-sm-latency.cu && ./atomic-sm-latency > sm-latency.csv
//
// `atomic-sm-latency hist` times each operation of a chain of HIST_CHAIN instead, every SM at
// once: clock64 before it and after a shared store of its value (which waits for it), binned by
// HIST_BIN cycles per SM and op, and prints smid,op,bin_cycles,count (the bin's lower edge; the
// last bin holds everything above). Op `none` times the same with a register add in place of the
// memory operation: the timing's own overhead, to subtract. The per-operation spread that the
// clocked schedule's jitter (simt-clock.h) stands in for.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../src/algos/cuda/cuda-check.h"

enum { CHAIN = 1024, REPS = 3, BLOCKS_PER_SM = 4, LINE_WORDS = 32 };
static const long long WAIT_CYCLES = 1ll << 26;   // about 40 ms at 1.7 GHz

enum { HIST_CHAIN = 4096, HIST_BIN = 8, HIST_BINS = 512 };

enum Op { LOAD_SHARED, LOAD_OWN, CAS_SHARED, CAS_OWN, LOAD_VOLATILE_OWN, N_OPS, OP_NONE = N_OPS };
static const char *const op_names[N_OPS + 1] = { "load_shared", "load_own", "cas_shared", "cas_own",
                                                 "load_volatile_own", "none" };

struct Slots {
  unsigned *words;             // LINE_WORDS per SM, then the shared line
  unsigned *claim;             // per SM: a block took it
  unsigned *arrived;           // claimers that reached the start line
  long long *cycles;           // per SM: clock64 cycles of the chain (0: no block there)
  unsigned long long *wall_ns; // per SM: %globaltimer nanoseconds of the chain
  unsigned *sink;
};

__device__ __forceinline__ unsigned
sm_id ()
{
  unsigned id;
  asm volatile ("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned long long
global_ns ()
{
  unsigned long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The first block on its SM takes it (and, @target < 0, waits for the other SMs' claimers, at
// most WAIT_CYCLES); false for every other block, and for SMs other than @target (>= 0).
__device__ bool
claim_sm (const Slots &s, int target, unsigned n_sms, unsigned sm)
{
  if (threadIdx.x != 0 || (target >= 0 && sm != (unsigned) target) || sm >= n_sms
      || atomicCAS (&s.claim[sm], 0u, 1u) != 0u)
    return false;
  if (target < 0)
    {
      long long t0 = clock64 ();
      atomicAdd (s.arrived, 1u);
      while (atomicAdd (s.arrived, 0u) < n_sms && clock64 () - t0 < WAIT_CYCLES)
        ;
    }
  return true;
}

__device__ __forceinline__ unsigned *
word_of (const Slots &s, int op, unsigned n_sms, unsigned sm)
{
  return op == LOAD_SHARED || op == CAS_SHARED ? s.words + n_sms * LINE_WORDS
                                               : s.words + sm * LINE_WORDS;
}

// One operation @op of the chain on @word; v >> 31 is 0 (values stay far below 2^31), so the
// address depends on the last value without moving.
__device__ __forceinline__ unsigned
chain_op (int op, unsigned *word, unsigned v)
{
  switch (op)
    {
    case LOAD_SHARED:
    case LOAD_OWN: return __ldcg (word + (v >> 31));
    case LOAD_VOLATILE_OWN: return *(volatile unsigned *) (word + (v >> 31));
    case OP_NONE: return v + 1;
    default: return atomicCAS (word + (v >> 31), v, v + 1);
    }
}

// @target: the SM that runs (mode alone), or -1: all of them.
__global__ void
probe_kernel (Slots s, int op, int target, unsigned n_sms)
{
  unsigned sm = sm_id (), v = 0;
  if (!claim_sm (s, target, n_sms, sm))
    return;
  unsigned *word = word_of (s, op, n_sms, sm);
  // Values stay far below 2^31, so v >> 31 is 0: the next address depends on the last value
  // without moving.
  long long c0 = clock64 ();
  unsigned long long g0 = global_ns ();
  for (int i = 0; i < CHAIN; i++)
    v = chain_op (op, word, v);
  long long c1 = clock64 ();
  unsigned long long g1 = global_ns ();
  s.cycles[sm] = c1 - c0;
  s.wall_ns[sm] = g1 - g0;
  if (v == 0xffffffffu)
    *s.sink = v;
}

// Every SM at once, each operation of a chain of HIST_CHAIN timed alone: clock64 before it, and
// after a shared store of its value (the store waits for the value, and the clock read after it
// issues in order). Bins in shared memory, then hist[sm * HIST_BINS + bin].
__global__ void
hist_kernel (Slots s, int op, unsigned n_sms, unsigned *hist)
{
  __shared__ unsigned bins[HIST_BINS];
  __shared__ volatile unsigned seen;
  unsigned sm = sm_id (), v = 0;
  if (!claim_sm (s, -1, n_sms, sm))
    return;
  unsigned *word = word_of (s, op, n_sms, sm);
  for (int b = 0; b < HIST_BINS; b++)
    bins[b] = 0;
  for (int i = 0; i < HIST_CHAIN; i++)
    {
      long long t0 = clock64 ();
      v = chain_op (op, word, v);
      seen = v;
      long long dt = clock64 () - t0;
      bins[dt / HIST_BIN < HIST_BINS ? dt / HIST_BIN : HIST_BINS - 1]++;
    }
  for (int b = 0; b < HIST_BINS; b++)
    hist[sm * HIST_BINS + b] = bins[b];
}

// The `hist` mode: one launch per op (and `none`), the histograms as CSV rows.
static void
histograms (const Slots &s, unsigned n_sms)
{
  unsigned *d_hist;
  std::vector<unsigned> hist ((size_t) n_sms * HIST_BINS);
  CUDA_OK (cudaMalloc (&d_hist, hist.size () * sizeof *d_hist));
  printf ("smid,op,bin_cycles,count\n");
  for (int op = 0; op <= OP_NONE; op++)
    {
      CUDA_OK (cudaMemset (s.words, 0, (n_sms + 1) * LINE_WORDS * sizeof *s.words));
      CUDA_OK (cudaMemset (s.claim, 0, n_sms * sizeof *s.claim));
      CUDA_OK (cudaMemset (s.arrived, 0, sizeof *s.arrived));
      CUDA_OK (cudaMemset (d_hist, 0, hist.size () * sizeof *d_hist));
      hist_kernel<<<BLOCKS_PER_SM * n_sms, 32>>> (s, op, n_sms, d_hist);
      CUDA_OK (cudaGetLastError ());
      CUDA_OK (cudaDeviceSynchronize ());
      CUDA_OK (cudaMemcpy (hist.data (), d_hist, hist.size () * sizeof *d_hist,
                           cudaMemcpyDeviceToHost));
      for (unsigned sm = 0; sm < n_sms; sm++)
        for (int b = 0; b < HIST_BINS; b++)
          if (hist[(size_t) sm * HIST_BINS + b])
            printf ("%u,%s,%d,%u\n", sm, op_names[op], b * HIST_BIN,
                    hist[(size_t) sm * HIST_BINS + b]);
    }
  CUDA_OK (cudaFree (d_hist));
}

static double
median (std::vector<double> x)
{
  std::sort (x.begin (), x.end ());
  return x[x.size () / 2];
}

// REPS launches of @op with @target; per SM the median cycles and wall ns a chain (0: no block).
static void
measure (const Slots &s, unsigned n_sms, int op, int target, std::vector<double> &cycles,
         std::vector<double> &wall)
{
  std::vector<std::vector<double>> c (n_sms), w (n_sms);
  std::vector<long long> hc (n_sms);
  std::vector<unsigned long long> hw (n_sms);
  for (int r = 0; r < REPS; r++)
    {
      CUDA_OK (cudaMemset (s.words, 0, (n_sms + 1) * LINE_WORDS * sizeof *s.words));
      CUDA_OK (cudaMemset (s.claim, 0, n_sms * sizeof *s.claim));
      CUDA_OK (cudaMemset (s.arrived, 0, sizeof *s.arrived));
      CUDA_OK (cudaMemset (s.cycles, 0, n_sms * sizeof *s.cycles));
      probe_kernel<<<BLOCKS_PER_SM * n_sms, 32>>> (s, op, target, n_sms);
      CUDA_OK (cudaGetLastError ());
      CUDA_OK (cudaDeviceSynchronize ());
      CUDA_OK (cudaMemcpy (hc.data (), s.cycles, n_sms * sizeof *s.cycles,
                           cudaMemcpyDeviceToHost));
      CUDA_OK (cudaMemcpy (hw.data (), s.wall_ns, n_sms * sizeof *s.wall_ns,
                           cudaMemcpyDeviceToHost));
      for (unsigned sm = 0; sm < n_sms; sm++)
        if (hc[sm] > 0 && (target < 0 || sm == (unsigned) target))
          {
            c[sm].push_back ((double) hc[sm]);
            w[sm].push_back ((double) hw[sm]);
          }
    }
  for (unsigned sm = 0; sm < n_sms; sm++)
    if (!c[sm].empty ())
      {
        cycles[sm] = median (c[sm]);
        wall[sm] = median (w[sm]);
      }
}

// The default mode: per SM, op and mode, the chain's median cycles an operation as CSV rows.
static void
table (const Slots &s, unsigned n_sms, int clock_khz)
{
  printf ("smid,op,mode,ns_per_op,cycles_per_op,wall_ns_per_op\n");
  for (int mode = 0; mode < 2; mode++)
    for (int op = 0; op < N_OPS; op++)
      {
        std::vector<double> cycles (n_sms, 0), wall (n_sms, 0);
        unsigned missing = 0;
        if (mode == 0)
          measure (s, n_sms, op, -1, cycles, wall);
        else
          for (unsigned sm = 0; sm < n_sms; sm++)
            measure (s, n_sms, op, (int) sm, cycles, wall);
        for (unsigned sm = 0; sm < n_sms; sm++)
          {
            if (cycles[sm] == 0)
              {
                missing++;
                continue;
              }
            double per_op = cycles[sm] / CHAIN;
            printf ("%u,%s,%s,%.2f,%.1f,%.2f\n", sm, op_names[op], mode == 0 ? "all" : "alone",
                    per_op * 1e6 / clock_khz, per_op, wall[sm] / CHAIN);
          }
        if (missing)
          fprintf (stderr, "%s %s: no block ran on %u SM(s)\n", op_names[op],
                   mode == 0 ? "all" : "alone", missing);
      }
}

int
main (int argc, char **argv)
{
  bool hist = argc > 1 && std::string (argv[1]) == "hist";
  int n_sms_attr, clock_khz, dev = 0;
  cudaDeviceProp prop;
  Slots s;
  CUDA_OK (cudaGetDevice (&dev));
  CUDA_OK (cudaGetDeviceProperties (&prop, dev));
  CUDA_OK (cudaDeviceGetAttribute (&n_sms_attr, cudaDevAttrMultiProcessorCount, dev));
  CUDA_OK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, dev));
  unsigned n_sms = (unsigned) n_sms_attr;
  CUDA_OK (cudaMalloc (&s.words, (n_sms + 1) * LINE_WORDS * sizeof *s.words));
  CUDA_OK (cudaMalloc (&s.claim, n_sms * sizeof *s.claim));
  CUDA_OK (cudaMalloc (&s.arrived, sizeof *s.arrived));
  CUDA_OK (cudaMalloc (&s.cycles, n_sms * sizeof *s.cycles));
  CUDA_OK (cudaMalloc (&s.wall_ns, n_sms * sizeof *s.wall_ns));
  CUDA_OK (cudaMalloc (&s.sink, sizeof *s.sink));
  fprintf (stderr, "# %s, %u SMs, peak clock %d kHz, chain %d, median of %d\n", prop.name, n_sms,
           clock_khz, hist ? (int) HIST_CHAIN : (int) CHAIN, hist ? 1 : (int) REPS);
  if (hist)
    histograms (s, n_sms);
  else
    table (s, n_sms, clock_khz);
  CUDA_OK (cudaFree (s.words));
  CUDA_OK (cudaFree (s.claim));
  CUDA_OK (cudaFree (s.arrived));
  CUDA_OK (cudaFree (s.cycles));
  CUDA_OK (cudaFree (s.wall_ns));
  CUDA_OK (cudaFree (s.sink));
  return 0;
}
