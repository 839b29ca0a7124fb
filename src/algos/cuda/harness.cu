/* gpu-kernels: runs the CUDA twins of the SIMT micro-kernels (kernels.cuh), checks every result
 * against a CPU reference on fresh random inputs, and times them.
 *
 *   gpu-kernels [--mode check|time|profile] [--seed S] [--reps N] [--csv FILE] [CASE...]
 *   gpu-kernels --list       the default cases, one per line
 *   gpu-kernels --metrics    the Nsight Compute metrics that `models measure` compares
 *
 * A CASE is written like an algorithm spec, `gpu/FAMILY:n=N,key=value,...` (the same string names
 * the SIMT twin in `models run`). Every mode launches each case once and checks its output (the
 * output buffer is poisoned first, so an element that was not written is caught); `time` then runs
 * 3 warm-up launches and --reps timed ones (CUDA events around each) and reports the median;
 * `profile` stops after the checked launch, so that under ncu launch k is case k.
 * Exit status: 0 all checks passed, 1 a check failed, 2 bad usage or no CUDA device.
 * No GLib here: the device machine has none. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>
#include <algorithm>
#include <ctime>
#include <cmath>

#include "kernels.cuh"
#include "../../core/splitmix.h"

#define CUDA_OK(call)                                                                              \
  do                                                                                               \
    {                                                                                              \
      cudaError_t err_ = (call);                                                                   \
      if (err_ != cudaSuccess)                                                                     \
        {                                                                                          \
          fprintf (stderr, "gpu-kernels: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                   cudaGetErrorString (err_));                                                     \
          exit (2);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

static const char *const metrics[] = {
  "gpu__time_duration.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
  "smsp__sass_l1tex_tags_mem_global.sum",
  "smsp__sass_l1tex_tags_mem_global_op_ld.sum",
  "smsp__sass_l1tex_tags_mem_global_op_st.sum",
  "smsp__sass_inst_executed_op_global_ld.sum",
  "smsp__sass_inst_executed_op_global_st.sum",
  "smsp__sass_inst_executed_op_global_atom.sum",
  "smsp__sass_sectors_mem_global_op_ld.sum",
  "smsp__sass_sectors_mem_global_op_st.sum",
  "smsp__inst_executed_op_shared_ld.sum",
  "smsp__inst_executed_op_shared_st.sum",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
  "smsp__sass_inst_executed_op_branch.sum",
  "smsp__sass_branch_targets.sum",
  "smsp__sass_branch_targets_threads_divergent.sum",
  "smsp__sass_branch_targets_threads_uniform.sum",
  "smsp__sass_average_branch_targets_threads_uniform.pct",
  "smsp__thread_inst_executed_per_inst_executed.ratio",
  "smsp__inst_executed.sum",
  "smsp__thread_inst_executed.sum",
  "smsp__sass_inst_executed.sum",
  "smsp__sass_thread_inst_executed.sum",
};

enum Family { GLOBAL_STRIDE, GLOBAL_ATOMIC, SHARED_STRIDE, SHARED_GATHER, TRANSPOSE, REDUCE, BRANCH };

struct Case {
  std::string spec;
  Family family;
  long n;
  int store;          /* op=st */
  int width;          /* bytes per lane: 4, 8 or 16 */
  int stride;         /* elements */
  int misalign;       /* first element 1 instead of 0 */
  std::string variant;
  int pad;
  int idx[32];
};


static void
fill_random (std::vector<unsigned char> &buf, uint64_t *state)
{
  for (size_t i = 0; i < buf.size (); i += 8)
    {
      uint64_t r = mdl_splitmix64 (state);
      memcpy (&buf[i], &r, std::min ((size_t) 8, buf.size () - i));
    }
}

static bool
fail_parse (const std::string &spec, const std::string &why)
{
  fprintf (stderr, "gpu-kernels: case \"%s\": %s\n", spec.c_str (), why.c_str ());
  return false;
}

static bool
parse_case (const std::string &spec, Case *c)
{
  static const struct { const char *name; Family family; long n; } families[] = {
    { "global-stride", GLOBAL_STRIDE, MDL_GPU_N_GLOBAL },
    { "global-atomic", GLOBAL_ATOMIC, MDL_GPU_N_GLOBAL },
    { "shared-stride", SHARED_STRIDE, MDL_GPU_N_SHARED },
    { "shared-gather", SHARED_GATHER, MDL_GPU_N_SHARED },
    { "transpose", TRANSPOSE, MDL_GPU_N_TRANSPOSE },
    { "reduce", REDUCE, MDL_GPU_N_REDUCE },
    { "branch", BRANCH, MDL_GPU_N_BRANCH },
  };
  size_t colon = spec.find (':');
  std::string name = spec.substr (0, colon);
  bool found = false;
  c->spec = spec;
  c->store = 0, c->width = 4, c->stride = 1, c->misalign = 0, c->pad = 1;
  for (int l = 0; l < 32; l++)
    c->idx[l] = 0;
  if (name.compare (0, 4, "gpu/") != 0)
    return fail_parse (spec, "expected gpu/FAMILY");
  for (const auto &f : families)
    if (name.substr (4) == f.name)
      c->family = f.family, c->n = f.n, found = true;
  if (!found)
    return fail_parse (spec, "unknown family");
  c->variant = c->family == TRANSPOSE ? "naive" : c->family == REDUCE ? "sequential" : "half";
  std::string rest = colon == std::string::npos ? "" : spec.substr (colon + 1);
  while (!rest.empty ())
    {
      size_t comma = rest.find (',');
      std::string kv = rest.substr (0, comma);
      rest = comma == std::string::npos ? "" : rest.substr (comma + 1);
      size_t eq = kv.find ('=');
      if (eq == std::string::npos)
        return fail_parse (spec, "expected key=value, got \"" + kv + "\"");
      std::string key = kv.substr (0, eq), value = kv.substr (eq + 1);
      long v = strtol (value.c_str (), NULL, 0);
      if (key == "n")
        c->n = v;
      else if (key == "op")
        c->store = value == "st";
      else if (key == "width")
        c->width = (int) v;
      else if (key == "stride")
        c->stride = (int) v;
      else if (key == "misalign")
        c->misalign = (int) v;
      else if (key == "variant")
        c->variant = value;
      else if (key == "pad")
        c->pad = (int) v;
      else if (key == "idx")
        {
          /* lane indices separated by '.'; a shorter list repeats */
          std::vector<int> list;
          for (size_t p = 0; p < value.size ();)
            {
              size_t dot = value.find ('.', p);
              list.push_back (atoi (value.substr (p, dot - p).c_str ()));
              p = dot == std::string::npos ? value.size () : dot + 1;
            }
          if (list.empty ())
            return fail_parse (spec, "empty idx");
          for (int l = 0; l < 32; l++)
            {
              c->idx[l] = list[l % list.size ()];
              if (c->idx[l] < 0 || c->idx[l] >= MDL_GPU_SHARED_ELEMS)
                return fail_parse (spec, "idx outside the shared array");
            }
        }
      else
        return fail_parse (spec, "unknown key \"" + key + "\"");
    }
  if (c->width != 4 && c->width != 8 && c->width != 16)
    return fail_parse (spec, "width must be 4, 8 or 16");
  if (c->stride < 1 || c->stride > 33)
    return fail_parse (spec, "stride must be 1..33");
  long granule = c->family == GLOBAL_STRIDE || c->family == GLOBAL_ATOMIC ? MDL_GPU_GLOBAL_BLOCK
               : c->family == SHARED_STRIDE || c->family == SHARED_GATHER ? 32
               : c->family == REDUCE ? MDL_GPU_REDUCE_BLOCK
               : c->family == BRANCH ? MDL_GPU_BRANCH_BLOCK : 1;
  if (c->n <= 0 || c->n > (1L << 22) || c->n % granule != 0)
    return fail_parse (spec, "n must be a positive multiple of " + std::to_string (granule));
  if (c->family == TRANSPOSE)
    {
      long side = 0;
      while ((side + MDL_GPU_TILE) * (side + MDL_GPU_TILE) <= c->n)
        side += MDL_GPU_TILE;
      if (side * side != c->n)
        return fail_parse (spec, "n must be the square of a multiple of 32");
    }
  return true;
}

static std::vector<std::string>
default_cases ()
{
  static const int strides[] = { 1, 2, 4, 8, 16, 32, 33 };
  static const int widths[] = { 4, 8, 16 };
  std::vector<std::string> v;
  char buf[256];
  for (const char *op : { "ld", "st" })
    for (int w : widths)
      for (int m = 0; m <= 1; m++)
        for (int s : strides)
          {
            snprintf (buf, sizeof buf, "gpu/global-stride:op=%s,width=%d,stride=%d,misalign=%d", op,
                      w, s, m);
            v.push_back (buf);
          }
  v.push_back ("gpu/global-atomic:stride=1");
  v.push_back ("gpu/global-atomic:stride=32");
  for (const char *op : { "ld", "st" })
    for (int w : widths)
      for (int s : strides)
        {
          snprintf (buf, sizeof buf, "gpu/shared-stride:op=%s,width=%d,stride=%d", op, w, s);
          v.push_back (buf);
        }
  /* Broadcasts and the probes that pin down the 8- and 16-byte rules (docs/models/gpu.md). */
  for (int w : widths)
    {
      snprintf (buf, sizeof buf, "gpu/shared-gather:width=%d,idx=0", w);
      v.push_back (buf);
    }
  static const char *const probes[] = {
    /* lanes 16..31 repeat the words of lanes 0..15 */
    "idx=0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15",
    /* pairs of lanes share a word */
    "idx=0.0.1.1.2.2.3.3.4.4.5.5.6.6.7.7.8.8.9.9.10.10.11.11.12.12.13.13.14.14.15.15",
    /* lanes 0..15 all in bank group 0 (distinct words), lanes 16..31 unit stride */
    "idx=0.32.64.96.128.160.192.224.256.288.320.352.384.416.448.480.16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31",
    /* the two halves of the warp swap halves of a 32-word row */
    "idx=16.17.18.19.20.21.22.23.24.25.26.27.28.29.30.31.0.1.2.3.4.5.6.7.8.9.10.11.12.13.14.15",
    /* quarter-warps repeat the first quarter's 8 words */
    "idx=0.1.2.3.4.5.6.7",
    /* lane l reads word 2l mod 32 plus 32 for odd quarters: two words per bank pair */
    "idx=0.2.4.6.8.10.12.14.48.50.52.54.56.58.60.62.1.3.5.7.9.11.13.15.49.51.53.55.57.59.61.63",
    /* every lane reads word 0 or word 1 (two broadcasts) */
    "idx=0.1",
    /* every lane reads word 0 or word 32 (two words of one bank) */
    "idx=0.32",
    /* lanes 4..7 repeat lanes 0..3 within each quarter: tells 4-lane from 8-lane merging */
    "idx=0.1.2.3.0.1.2.3.4.5.6.7.4.5.6.7.8.9.10.11.8.9.10.11.12.13.14.15.12.13.14.15",
  };
  for (int w : widths)
    for (const char *p : probes)
      {
        snprintf (buf, sizeof buf, "gpu/shared-gather:width=%d,%s", w, p);
        v.push_back (buf);
      }
  v.push_back ("gpu/transpose:variant=naive");
  v.push_back ("gpu/transpose:variant=shared,pad=0");
  v.push_back ("gpu/transpose:variant=shared,pad=1");
  for (const char *r : { "interleaved", "divergent", "sequential" })
    v.push_back (std::string ("gpu/reduce:variant=") + r);
  for (const char *b : { "half", "if", "nested", "uniform", "loop" })
    v.push_back (std::string ("gpu/branch:variant=") + b);
  return v;
}

/* What one case needs on the device: up to three buffers, a launch, a reference. */
struct Buffers {
  std::vector<unsigned char> in, in2, out, out2; /* host copies */
  unsigned char *d_in = nullptr, *d_in2 = nullptr, *d_out = nullptr, *d_out2 = nullptr;
};

static void
upload (std::vector<unsigned char> &h, unsigned char **d)
{
  if (h.empty ())
    return;
  CUDA_OK (cudaMalloc (d, h.size ()));
  CUDA_OK (cudaMemcpy (*d, h.data (), h.size (), cudaMemcpyHostToDevice));
}

static void
download (std::vector<unsigned char> &h, unsigned char *d)
{
  if (!h.empty ())
    CUDA_OK (cudaMemcpy (h.data (), d, h.size (), cudaMemcpyDeviceToHost));
}

static const unsigned char POISON = 0xA5;

static std::string
kernel_name (const Case &c)
{
  switch (c.family)
    {
    case GLOBAL_STRIDE: return c.store ? "global_stride_st" : "global_stride_ld";
    case GLOBAL_ATOMIC: return "global_atomic";
    case SHARED_STRIDE: return c.store ? "shared_stride_st" : "shared_stride_ld";
    case SHARED_GATHER: return "shared_gather";
    case TRANSPOSE: return c.variant == "naive" ? "transpose_naive" : "transpose_shared";
    case REDUCE: return "reduce_" + c.variant;
    case BRANCH: return "branch_" + c.variant;
    }
  return "?";
}

template <typename T>
static void
launch_width_kernels (const Case &c, Buffers &b, dim3 grid, dim3 block)
{
  T *out = (T *) b.d_out, *in = (T *) b.d_in;
  switch (c.family)
    {
    case GLOBAL_STRIDE:
      if (c.store)
        global_stride_st<T><<<grid, block>>> (out, in, c.stride, c.misalign);
      else
        global_stride_ld<T><<<grid, block>>> (out, in, c.stride, c.misalign);
      break;
    case SHARED_STRIDE:
      if (c.store)
        shared_stride_st<T><<<grid, block>>> (out, in, c.stride);
      else
        shared_stride_ld<T><<<grid, block>>> (out, in, c.stride);
      break;
    case SHARED_GATHER:
      shared_gather<T><<<grid, block>>> (out, in);
      break;
    default:
      break;
    }
}

static bool
launch (const Case &c, Buffers &b)
{
  long n = c.n;
  unsigned *out = (unsigned *) b.d_out, *in = (unsigned *) b.d_in;
  switch (c.family)
    {
    case GLOBAL_STRIDE:
    case SHARED_STRIDE:
    case SHARED_GATHER:
      {
        int per_block = c.family == GLOBAL_STRIDE ? MDL_GPU_GLOBAL_BLOCK : 32;
        dim3 grid ((unsigned) (n / per_block)), block (per_block);
        if (c.width == 4)
          launch_width_kernels<unsigned> (c, b, grid, block);
        else if (c.width == 8)
          launch_width_kernels<uint2> (c, b, grid, block);
        else
          launch_width_kernels<uint4> (c, b, grid, block);
        break;
      }
    case GLOBAL_ATOMIC:
      global_atomic<<<(unsigned) (n / MDL_GPU_GLOBAL_BLOCK), MDL_GPU_GLOBAL_BLOCK>>> (
        (unsigned *) b.d_out2, out, in, c.stride);
      break;
    case TRANSPOSE:
      {
        int side = (int) llround (sqrt ((double) n));
        dim3 grid (side / MDL_GPU_TILE, side / MDL_GPU_TILE), block (MDL_GPU_TILE, MDL_GPU_TILE_ROWS);
        if (c.variant == "naive")
          transpose_naive<<<grid, block>>> (out, in, side);
        else if (c.pad)
          transpose_shared<1><<<grid, block>>> (out, in, side);
        else
          transpose_shared<0><<<grid, block>>> (out, in, side);
        break;
      }
    case REDUCE:
      {
        unsigned grid = (unsigned) (n / MDL_GPU_REDUCE_BLOCK);
        if (c.variant == "interleaved")
          reduce_interleaved<<<grid, MDL_GPU_REDUCE_BLOCK>>> (out, in);
        else if (c.variant == "divergent")
          reduce_divergent<<<grid, MDL_GPU_REDUCE_BLOCK>>> (out, in);
        else
          reduce_sequential<<<grid, MDL_GPU_REDUCE_BLOCK>>> (out, in);
        break;
      }
    case BRANCH:
      {
        unsigned grid = (unsigned) (n / MDL_GPU_BRANCH_BLOCK);
        if (c.variant == "half")
          branch_half<<<grid, MDL_GPU_BRANCH_BLOCK>>> (out, in);
        else if (c.variant == "if")
          branch_if<<<grid, MDL_GPU_BRANCH_BLOCK>>> (out, in);
        else if (c.variant == "nested")
          branch_nested<<<grid, MDL_GPU_BRANCH_BLOCK>>> (out, in);
        else if (c.variant == "uniform")
          branch_uniform<<<grid, MDL_GPU_BRANCH_BLOCK>>> (out, in);
        else
          branch_loop<<<grid, MDL_GPU_BRANCH_BLOCK>>> (out, in);
        break;
      }
    }
  CUDA_OK (cudaGetLastError ());
  return true;
}

/* Sets up the buffers of @c: random inputs, poisoned outputs. */
static bool
prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t w = (size_t) c.width, n = (size_t) c.n;
  switch (c.family)
    {
    case GLOBAL_STRIDE:
      {
        size_t spread = (c.misalign + (n - 1) * c.stride + 1) * w;
        b.in.resize (c.store ? n * w : spread);
        b.out.assign (c.store ? spread : n * w, POISON);
        break;
      }
    case GLOBAL_ATOMIC:
      b.in.resize (n * 4);
      b.out.resize (((n - 1) * c.stride + 1) * 4);   /* the accumulators: random, not poison */
      fill_random (b.out, rng);
      b.out2.assign (n * 4, POISON);
      break;
    case SHARED_STRIDE:
      b.in.resize ((c.store ? 32 : MDL_GPU_SHARED_ELEMS) * (n / 32) * w);
      b.out.assign (n * w, POISON);
      break;
    case SHARED_GATHER:
      b.in.resize (MDL_GPU_SHARED_ELEMS * (n / 32) * w);
      b.out.assign (n * w, POISON);
      CUDA_OK (cudaMemcpyToSymbol (c_gather_idx, c.idx, sizeof c.idx));
      break;
    case TRANSPOSE:
      b.in.resize (n * 4);
      b.out.assign (n * 4, POISON);
      break;
    case REDUCE:
      b.in.resize (n * 4);
      b.out.assign (n / MDL_GPU_REDUCE_BLOCK * 4, POISON);
      break;
    case BRANCH:
      b.in.resize (n * 4);
      b.out.assign (n * 4, POISON);
      break;
    }
  fill_random (b.in, rng);
  upload (b.in, &b.d_in);
  upload (b.out, &b.d_out);
  upload (b.out2, &b.d_out2);
  return true;
}

static unsigned
word (const std::vector<unsigned char> &v, size_t i)
{
  unsigned x;
  memcpy (&x, &v[4 * i], 4);
  return x;
}

/* The number of output bytes (or words) that differ from the CPU reference. */
static long
check (const Case &c, Buffers &b, std::vector<unsigned char> &acc_before)
{
  size_t w = (size_t) c.width, n = (size_t) c.n;
  std::vector<unsigned char> expect (b.out.size (), POISON);
  long bad = 0;
  download (b.out, b.d_out);
  download (b.out2, b.d_out2);
  switch (c.family)
    {
    case GLOBAL_STRIDE:
      for (size_t i = 0; i < n; i++)
        {
          size_t from = c.store ? i : c.misalign + i * c.stride;
          size_t to = c.store ? c.misalign + i * c.stride : i;
          memcpy (&expect[to * w], &b.in[from * w], w);
        }
      break;
    case GLOBAL_ATOMIC:
      {
        expect = acc_before;
        for (size_t i = 0; i < n; i++)
          {
            unsigned a = word (acc_before, i * c.stride) + word (b.in, i);
            memcpy (&expect[4 * i * c.stride], &a, 4);
            if (word (b.out2, i) != word (acc_before, i * c.stride))
              bad++;
          }
        break;
      }
    case SHARED_STRIDE:
    case SHARED_GATHER:
      for (size_t i = 0; i < n; i++)
        {
          size_t block = i / 32, lane = i % 32;
          size_t from = c.family == SHARED_GATHER ? block * MDL_GPU_SHARED_ELEMS + c.idx[lane]
                      : c.store ? i : block * MDL_GPU_SHARED_ELEMS + lane * c.stride;
          memcpy (&expect[i * w], &b.in[from * w], w);
        }
      break;
    case TRANSPOSE:
      {
        size_t side = (size_t) llround (sqrt ((double) n));
        for (size_t y = 0; y < side; y++)
          for (size_t x = 0; x < side; x++)
            memcpy (&expect[4 * (x * side + y)], &b.in[4 * (y * side + x)], 4);
        break;
      }
    case REDUCE:
      for (size_t blk = 0; blk < n / MDL_GPU_REDUCE_BLOCK; blk++)
        {
          unsigned sum = 0;
          for (size_t t = 0; t < MDL_GPU_REDUCE_BLOCK; t++)
            sum += word (b.in, blk * MDL_GPU_REDUCE_BLOCK + t);
          memcpy (&expect[4 * blk], &sum, 4);
        }
      break;
    case BRANCH:
      for (size_t i = 0; i < n; i++)
        {
          unsigned lane = (unsigned) (i % MDL_GPU_BRANCH_BLOCK) & 31, v = word (b.in, i);
          unsigned block = (unsigned) (i / MDL_GPU_BRANCH_BLOCK);
          if (c.variant == "half")
            v = mdl_mix (v, lane < 16 ? 0 : 1);
          else if (c.variant == "if")
            v = lane < 16 ? mdl_mix (v, 0) : v;
          else if (c.variant == "nested")
            v = lane < 16 ? mdl_mix (mdl_mix (v, 0), lane < 8 ? 2 : 3) : mdl_mix (v, 1);
          else if (c.variant == "uniform")
            v = mdl_mix (v, (block & 1) ? 0 : 1);
          else
            for (unsigned k = 0; k <= (lane & 3); k++)
              v = mdl_mix (v, 0);
          memcpy (&expect[4 * i], &v, 4);
        }
      break;
    }
  for (size_t i = 0; i < expect.size (); i++)
    bad += expect[i] != b.out[i];
  return bad;
}

struct Result {
  long mismatches;
  double median_us;
  int reps;
};

static Result
run_case (const Case &c, const std::string &mode, int reps, uint64_t *rng)
{
  Buffers b;
  Result r = { 0, 0.0, 0 };
  std::vector<unsigned char> acc_before;
  prepare (c, b, rng);
  if (c.family == GLOBAL_ATOMIC)
    acc_before = b.out;
  launch (c, b);
  CUDA_OK (cudaDeviceSynchronize ());
  r.mismatches = check (c, b, acc_before);
  if (mode == "time")
    {
      cudaEvent_t start, stop;
      std::vector<float> ms;
      CUDA_OK (cudaEventCreate (&start));
      CUDA_OK (cudaEventCreate (&stop));
      for (int k = 0; k < 3; k++)
        launch (c, b);
      for (int k = 0; k < reps; k++)
        {
          float t;
          CUDA_OK (cudaEventRecord (start));
          launch (c, b);
          CUDA_OK (cudaEventRecord (stop));
          CUDA_OK (cudaEventSynchronize (stop));
          CUDA_OK (cudaEventElapsedTime (&t, start, stop));
          ms.push_back (t);
        }
      std::sort (ms.begin (), ms.end ());
      r.median_us = reps ? 1000.0 * ms[ms.size () / 2] : 0.0;
      r.reps = reps;
      CUDA_OK (cudaEventDestroy (start));
      CUDA_OK (cudaEventDestroy (stop));
    }
  for (unsigned char *d : { b.d_in, b.d_in2, b.d_out, b.d_out2 })
    if (d)
      CUDA_OK (cudaFree (d));
  return r;
}

static int
usage (const char *why)
{
  fprintf (stderr, "gpu-kernels: %s\nusage: gpu-kernels [--mode check|time|profile] [--seed S] "
           "[--reps N] [--csv FILE] [--list] [--metrics] [CASE...]\n", why);
  return 2;
}

int
main (int argc, char **argv)
{
  std::string mode = "time", csv_path;
  uint64_t seed = (uint64_t) time (NULL) ^ ((uint64_t) clock () << 32);
  int reps = 21;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; i++)
    {
      std::string a = argv[i];
      if (a == "--list")
        {
          for (const auto &s : default_cases ())
            printf ("%s\n", s.c_str ());
          return 0;
        }
      if (a == "--metrics")
        {
          for (const char *m : metrics)
            printf ("%s\n", m);
          return 0;
        }
      if ((a == "--mode" || a == "--seed" || a == "--reps" || a == "--csv") && i + 1 >= argc)
        return usage ((a + " needs a value").c_str ());
      if (a == "--mode")
        mode = argv[++i];
      else if (a == "--seed")
        seed = strtoull (argv[++i], NULL, 0);
      else if (a == "--reps")
        reps = atoi (argv[++i]);
      else if (a == "--csv")
        csv_path = argv[++i];
      else if (a.compare (0, 2, "--") == 0)
        return usage (("unknown option " + a).c_str ());
      else
        specs.push_back (a);
    }
  if (mode != "check" && mode != "time" && mode != "profile")
    return usage ("--mode must be check, time or profile");
  if (reps < 1 || reps > 10000)
    return usage ("--reps must be 1..10000");
  if (specs.empty ())
    specs = default_cases ();

  int n_devices = 0;
  if (cudaGetDeviceCount (&n_devices) != cudaSuccess || n_devices == 0)
    {
      fprintf (stderr, "gpu-kernels: no CUDA device found\n");
      return 2;
    }
  cudaDeviceProp prop;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));

  std::vector<Case> cases (specs.size ());
  for (size_t i = 0; i < specs.size (); i++)
    if (!parse_case (specs[i], &cases[i]))
      return 2;

  FILE *csv = NULL;
  if (!csv_path.empty () && !(csv = fopen (csv_path.c_str (), "w")))
    {
      fprintf (stderr, "gpu-kernels: cannot create %s\n", csv_path.c_str ());
      return 2;
    }
  if (csv)
    fprintf (csv, "launch,case,kernel,device,mode,seed,mismatches,median_us,reps\n");
  printf ("# %s (sm_%d%d), mode %s, seed %llu\n", prop.name, prop.major, prop.minor, mode.c_str (),
          (unsigned long long) seed);
  uint64_t rng = seed;
  int failed = 0;
  for (size_t i = 0; i < cases.size (); i++)
    {
      Result r = run_case (cases[i], mode, reps, &rng);
      failed += r.mismatches != 0;
      printf ("%-4zu %-90s %-6s %10.2f us\n", i, cases[i].spec.c_str (),
              r.mismatches ? "FAIL" : "ok", r.median_us);
      if (csv)
        fprintf (csv, "%zu,\"%s\",%s,\"%s\",%s,%llu,%ld,%.3f,%d\n", i, cases[i].spec.c_str (),
                 kernel_name (cases[i]).c_str (), prop.name, mode.c_str (),
                 (unsigned long long) seed, r.mismatches, r.median_us, r.reps);
    }
  if (csv)
    fclose (csv);
  printf ("# %zu cases, %d failed checks\n", cases.size (), failed);
  return failed ? 1 : 0;
}
