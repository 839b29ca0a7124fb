/* The sorts' baselines (MDL_GPU_BASELINES in src/algos/gpu-algos.h), the yardsticks of the GPU
 * sorts of issue 13: CUB's radix sort (DeviceRadixSort::SortKeys, the reference of every ratio),
 * CUB's merge sort (DeviceMergeSort::SortKeysCopy), thrust::sort, and two CPU sorts on the GPU
 * machine's host: libc qsort and the tuned C introsort of src/algos/introsort.h, both on one core.
 *
 * Every case takes dist= (src/algos/keys.h) and keys=u32|f32: the float keys are mdl_keys_f32_bits
 * of the 32-bit ones (in [0, 1), so a distribution keeps its shape; signed zeros, denormals and
 * infinities for dist=special); they are sorted as floats, and the check (mdl_cuda_check_sort:
 * sorted and a permutation of the input, against the CPU reference) compares floats by value, so
 * that -0 and +0 may come in either order.
 * CUB's temporary storage, and thrust's (through an allocator over a buffer sized beforehand),
 * travel as in2, allocated by the harness outside the timed launches. thrust::sort and the CPU
 * sorts work in place: their reset() copies the input into out before each run, untimed. */
#include <cstring>

#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include "../introsort.h"
#include "twin.h"

/* n: 1..2^29 keys (2 GiB a buffer); dist and keys among their choices. */
static bool
sort_validate (const Case &c, std::string *why)
{
  if (c.n < 1 || c.n > (1L << 29))
    return mdl_cuda_refuse (why, "n must be 1..2^29");
  return mdl_cuda_dist_ok (c, why);
}

/* n keys of the case's distribution in (as floats for keys=f32), n poisoned keys out, and
 * @temp_bytes of temporary storage as in2. */
static void
sort_prepare_keys (const Case &c, Buffers &b, size_t temp_bytes, uint64_t *rng)
{
  mdl_cuda_fill_keys (c, b.in, rng);
  b.out.assign (b.in.size (), MDL_CUDA_POISON);
  b.in2.assign (temp_bytes, 0);
}

/* The keys' order as CUB's merge sort wants it: a functor. */
struct KeyLess {
  template <typename K>
  __host__ __device__ bool operator() (const K &a, const K &b) const
  {
    return a < b;
  }
};

/* CUB's sorts (MERGE: DeviceMergeSort::SortKeysCopy, else DeviceRadixSort::SortKeys) from @in to
 * @out; with a null @temp they only set @bytes. */
template <bool MERGE, typename K>
static cudaError_t
cub_sort_call (void *temp, size_t &bytes, const unsigned char *in, unsigned char *out, long n)
{
  if (MERGE)
    return cub::DeviceMergeSort::SortKeysCopy (temp, bytes, (const K *) in, (K *) out, n,
                                               KeyLess ());
  return cub::DeviceRadixSort::SortKeys (temp, bytes, (const K *) in, (K *) out, n);
}

template <bool MERGE>
static cudaError_t
cub_sort_dispatch (const Case &c, void *temp, size_t &bytes, const unsigned char *in,
                   unsigned char *out)
{
  if (mdl_cuda_float_keys (c))
    return cub_sort_call<MERGE, float> (temp, bytes, in, out, c.n);
  return cub_sort_call<MERGE, uint32_t> (temp, bytes, in, out, c.n);
}

template <bool MERGE>
static void
cub_sort_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t temp_bytes = 0;
  CUDA_OK (cub_sort_dispatch<MERGE> (c, nullptr, temp_bytes, nullptr, nullptr));
  sort_prepare_keys (c, b, temp_bytes, rng);
}

template <bool MERGE>
static int
cub_sort_launch (const Case &c, Buffers &b)
{
  size_t temp_bytes = b.in2.size ();
  CUDA_OK (cub_sort_dispatch<MERGE> (c, b.d_in2, temp_bytes, b.d_in, b.d_out));
  return 1;
}

template <bool MERGE>
static std::string
cub_sort_kernel (const Case &)
{
  return MERGE ? "cub::DeviceMergeSort::SortKeysCopy" : "cub::DeviceRadixSort::SortKeys";
}

const CudaTwin cuda_twin_cub_sort = {
  sort_validate, cub_sort_prepare<false>, cub_sort_launch<false>, mdl_cuda_check_sort,
  cub_sort_kernel<false>, nullptr, false,
};

const CudaTwin cuda_twin_cubmerge_sort = {
  sort_validate, cub_sort_prepare<true>, cub_sort_launch<true>, mdl_cuda_check_sort,
  cub_sort_kernel<true>, nullptr, false,
};

/* thrust::sort: its temporary storage comes from in2 through this allocator. thrust sorts
 * arithmetic keys by CUB's radix sort with a second buffer of n keys, in one allocation; in2 has
 * room for that and for CUB's own temporary storage. Should thrust ask for more, the allocator
 * falls back on cudaMalloc (inside the timed region) and says so on stderr. */
struct TempArena {
  typedef char value_type;
  char *base;
  size_t size, used;
  const Case *c;

  char *
  allocate (std::ptrdiff_t bytes)
  {
    size_t need = ((size_t) bytes + 255) & ~(size_t) 255;
    char *p;
    if (used + need <= size)
      {
        p = base + used;
        used += need;
        return p;
      }
    fprintf (stderr, "gpu-kernels: %s: thrust asked for %zu more bytes of temporary storage than "
             "prepared; allocated in the timed region\n", c->spec.c_str (), (size_t) bytes);
    CUDA_OK (cudaMalloc (&p, (size_t) bytes));
    return p;
  }

  void
  deallocate (char *p, size_t)
  {
    if (p < base || p >= base + size)
      CUDA_OK (cudaFree (p));
  }
};

static void
thrust_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  size_t cub_bytes = 0;
  CUDA_OK (cub_sort_dispatch<false> (c, nullptr, cub_bytes, nullptr, nullptr));
  sort_prepare_keys (c, b, 4 * (size_t) c.n + cub_bytes + (1u << 20), rng);
}

static void
thrust_reset (const Case &c, Buffers &b)
{
  CUDA_OK (cudaMemcpyAsync (b.d_out, b.d_in, 4 * (size_t) c.n, cudaMemcpyDeviceToDevice));
}

static int
thrust_launch (const Case &c, Buffers &b)
{
  TempArena arena = { (char *) b.d_in2, b.in2.size (), 0, &c };
  if (mdl_cuda_float_keys (c))
    thrust::sort (thrust::cuda::par (arena), (float *) b.d_out, (float *) b.d_out + c.n);
  else
    thrust::sort (thrust::cuda::par (arena), (uint32_t *) b.d_out, (uint32_t *) b.d_out + c.n);
  return 1;
}

static std::string
thrust_kernel (const Case &)
{
  return "thrust::sort";
}

const CudaTwin cuda_twin_thrust_sort = {
  sort_validate, thrust_prepare, thrust_launch, mdl_cuda_check_sort, thrust_kernel, thrust_reset,
  false,
};

/* The CPU sorts, on the host vectors: out gets the input back before each run (reset), then is
 * sorted in place by qsort (QSORT) or mdl_introsort. */

static void
host_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  sort_prepare_keys (c, b, 0, rng);
}

static void
host_reset (const Case &, Buffers &b)
{
  memcpy (b.out.data (), b.in.data (), b.in.size ());
}

template <bool QSORT>
static int
host_launch (const Case &c, Buffers &b)
{
  size_t n = (size_t) c.n;
  void *keys = b.out.data ();
  if (QSORT)
    qsort (keys, n, 4, mdl_cuda_float_keys (c) ? mdl_keys_cmp_f32 : mdl_keys_cmp_u32);
  else if (mdl_cuda_float_keys (c))
    mdl_introsort_f32 ((float *) keys, n, nullptr);
  else
    mdl_introsort_u32 ((uint32_t *) keys, n, nullptr);
  return 0;
}

template <bool QSORT>
static std::string
host_kernel (const Case &)
{
  return QSORT ? "qsort (host)" : "mdl_introsort (host)";
}

const CudaTwin cuda_twin_qsort_sort = {
  sort_validate, host_prepare, host_launch<true>, mdl_cuda_check_sort, host_kernel<true>,
  host_reset, true,
};

const CudaTwin cuda_twin_introsort_sort = {
  sort_validate, host_prepare, host_launch<false>, mdl_cuda_check_sort, host_kernel<false>,
  host_reset, true,
};
