/* The CUDA twins of balance/static, balance/blocking, balance/lockfree and balance/abp
 * (src/algos/simt/octree.c and balance-*.c): Cederman's octree partitioning under four load
 * balancers, with the SIMT twins' records, split and structures. One split (a __device__
 * function) serves every balancer; a balancer is a struct of two thread-0 operations, get and
 * put. The static list is launch-based (one block per task, a launch per level); the dynamic ones
 * are one persistent kernel whose blocks loop "get, split, put" until the termination counter
 * reaches n, after a one-block launch that splits the root (the thesis's initial iteration).
 *
 * Memory: in holds the particles (16 bytes each, particles.h) and stays as it is; out receives
 * the leaves (16 bytes each: path, first particle, count); out2 holds the control words, both
 * particle buffers, the task pool and the balancer's structure. Reads of what other blocks wrote
 * (task records, particles, slots) bypass L1 (__ldcg, volatile), and a block publishes its
 * children only after a __threadfence. Checked against the sequential reference of
 * src/algos/octree.h: the same leaves (path, first particle, count), the counter at n, reached
 * once. Spec: ../shared/spec/gpu-quicksort-cederman.md §3; docs/models/balance-octree.md. */
#include <algorithm>
#include <cstring>

#include "../octree.h"
#include "twin.h"

namespace {

enum { CTL_DONE, CTL_FINISHERS, CTL_TASKS, CTL_LEAVES, CTL_SITES, CTL_WORDS = 16 };
enum { SH_TASK, SH_COUNT = 1, SH_CURSOR = 9, SH_KIDS = 17, SH_WORDS = 25 };
const unsigned EXIT = 0xffffffffu;

/* The lock-free queue's operations counted site by site, as the SIMT twin's MdlOctreeStats has
 * them: thread 0 keeps them in registers and adds them to ctl[CTL_SITES + k] as its block exits.
 * Only in a harness built with -DMDL_BALANCE_SITES=1 (tools/balance-sites.sh): the split by site
 * without ncu's SASS patching, which adds instructions and may move the timing that decides a
 * retry. The default build compiles them away, the kernels unchanged. */
#ifndef MDL_BALANCE_SITES
#define MDL_BALANCE_SITES 0
#endif
enum { SITE_GET_CAS, SITE_GET_FAILED, SITE_GET_EMPTY, SITE_GET_SLOTS, SITE_PUT_CAS,
       SITE_PUT_FAILED, SITE_PUT_SLOTS, N_SITES };
static const char *const site_names[N_SITES] = { "dequeue_cas", "dequeue_failed", "empty_gets",
                                                 "dequeue_slots", "enqueue_cas", "enqueue_failed",
                                                 "enqueue_slots" };

struct Tally {
  unsigned n[N_SITES];
  __device__ void add (int site, unsigned k)
  {
    if (MDL_BALANCE_SITES)
      n[site] += k;
  }
};

/* The device side of a build. */
struct Ctx {
  uint4 *buf[2], *tasks, *leaves;
  unsigned *ctl, *q;
  unsigned n, threshold, lazy, blocks, phase, cap;
};

/* The layout of out2 (in bytes from its start). */
struct Layout {
  size_t ctl, buf0, buf1, tasks, q, total;
  unsigned cap;          /* the balancer's capacity: tasks per level (static) or in all */
};

enum Kind { STATIC, BLOCKING, LOCKFREE, ABP };
enum { DQ_HEAD, DQ_TAIL, DQ_SLOTS = 2, DEQ_CAP = 256, DQ_WORDS = DQ_SLOTS + DEQ_CAP };

size_t
q_words (Kind k, unsigned long n, unsigned threshold, unsigned blocks)
{
  switch (k)
    {
    case STATIC: return 4 + 2 * mdl_octree_level_bound (n, threshold);
    case BLOCKING: return 4 + 1 + mdl_octree_task_bound (n, threshold);
    case LOCKFREE: return 4 + 1 + mdl_octree_task_bound (n, threshold);
    default: return (size_t) blocks * DQ_WORDS;
    }
}

Layout
layout_of (Kind k, const Case &c)
{
  unsigned long n = (unsigned long) c.n;
  unsigned threshold = (unsigned) c.num ("threshold", 20), blocks = (unsigned) c.num ("blocks", 32);
  Layout l;
  l.ctl = 0;
  l.buf0 = 4 * CTL_WORDS;
  l.buf1 = l.buf0 + 16 * n;
  l.tasks = l.buf1 + 16 * n;
  l.q = l.tasks + 16 * mdl_octree_task_bound (n, threshold);
  l.total = l.q + 4 * q_words (k, n, threshold, blocks);
  l.cap = (unsigned) (k == STATIC ? mdl_octree_level_bound (n, threshold)
                                  : mdl_octree_task_bound (n, threshold));
  return l;
}

__device__ unsigned
depth_of (unsigned long long path)
{
  return (63 - __clzll ((long long) path)) / 3;
}

__device__ unsigned
octant (uint4 p, unsigned depth)
{
  unsigned bit = MDL_PARTICLE_BITS - 1 - depth;
  return ((p.x >> bit) & 1) | ((p.y >> bit) & 1) << 1 | ((p.z >> bit) & 1) << 2;
}

/* Splits task @task; every thread of the block calls it. Leaves the children's task numbers + 1
 * (0: none) in sh[SH_KIDS + c], visible to other blocks once the function returns. */
__device__ void
split (const Ctx &x, unsigned task, unsigned *sh)
{
  unsigned tid = threadIdx.x, T = blockDim.x;
  uint4 rec = __ldcg (&x.tasks[task]);
  unsigned start = rec.x, count = rec.y;
  unsigned long long path = rec.z | (unsigned long long) rec.w << 32;
  unsigned depth = depth_of (path);
  const uint4 *src = x.buf[depth & 1];
  uint4 *dst = x.buf[(depth + 1) & 1];
  if (tid < 8)
    sh[SH_COUNT + tid] = 0;
  __syncthreads ();
  for (unsigned i = tid; i < count; i += T)
    atomicAdd (&sh[SH_COUNT + octant (__ldcg (&src[start + i]), depth)], 1u);
  __syncthreads ();
  if (tid == 0)
    for (unsigned c = 0, at = start; c < 8; c++)
      {
        sh[SH_CURSOR + c] = at;
        at += sh[SH_COUNT + c];
      }
  __syncthreads ();
  if (tid < 8)
    {
      unsigned k = sh[SH_COUNT + tid], at = sh[SH_CURSOR + tid], base = 0;
      bool splits = mdl_octree_splits (k, depth + 1, x.threshold);
      bool leaf = !splits && k > 0;
      unsigned mask = __ballot_sync (0xffu, splits), lmask = __ballot_sync (0xffu, leaf);
      unsigned long long kid_path = 8 * path + tid;
      if (tid == 0 && mask)
        base = atomicAdd (&x.ctl[CTL_TASKS], (unsigned) __popc (mask));
      base = __shfl_sync (0xffu, base, 0) + __popc (mask & ((1u << tid) - 1));
      sh[SH_KIDS + tid] = 0;
      if (splits)
        {
          x.tasks[base] = make_uint4 (at, k, (unsigned) kid_path, (unsigned) (kid_path >> 32));
          sh[SH_KIDS + tid] = base + 1;
        }
      base = 0;
      if (tid == 0 && lmask)
        base = atomicAdd (&x.ctl[CTL_LEAVES], (unsigned) __popc (lmask));
      base = __shfl_sync (0xffu, base, 0) + __popc (lmask & ((1u << tid) - 1));
      if (leaf)
        {
          x.leaves[base] = make_uint4 ((unsigned) kid_path, (unsigned) (kid_path >> 32), at, k);
          if (atomicAdd (&x.ctl[CTL_DONE], k) + k == x.n)
            atomicAdd (&x.ctl[CTL_FINISHERS], 1u);
        }
    }
  __syncthreads ();
  for (unsigned i = tid; i < count; i += T)
    {
      uint4 p = __ldcg (&src[start + i]);
      dst[atomicAdd (&sh[SH_CURSOR + octant (p, depth)], 1u)] = p;
    }
  /* The children's particles and records reach global memory before anyone can take them. */
  __threadfence ();
  __syncthreads ();
}

/* ---- the balancers: thread 0's get (task number + 1, or 0) and put ---- */

struct Static {
  __device__ static unsigned get (const Ctx &x, Tally &)
  {
    return x.q[4 + x.phase * x.cap + blockIdx.x];
  }
  __device__ static void put (const Ctx &x, unsigned task, Tally &)
  {
    x.q[4 + (1 - x.phase) * x.cap + atomicAdd (&x.q[0], 1u)] = task + 1;
  }
};

/* Algorithm 5: words lock, beg, end, then slots 1.. (pre-increment). */
struct Blocking {
  __device__ static void lock (const Ctx &x)
  {
    while (atomicCAS (&x.q[0], 0u, 1u) == 1u)
      ;
    __threadfence ();
  }
  __device__ static void unlock (const Ctx &x)
  {
    __threadfence ();
    atomicExch (&x.q[0], 0u);
  }
  __device__ static unsigned get (const Ctx &x, Tally &)
  {
    volatile unsigned *q = x.q;
    unsigned task = 0;
    lock (x);
    if (q[1] != q[2])
      {
        unsigned beg = q[1] + 1;
        q[1] = beg;
        task = q[4 + beg];
      }
    unlock (x);
    return task;
  }
  __device__ static void put (const Ctx &x, unsigned task, Tally &)
  {
    volatile unsigned *q = x.q;
    lock (x);
    unsigned end = q[2] + 1;
    q[2] = end;
    q[4 + end] = task + 1;
    unlock (x);
  }
};

/* Algorithm 6 with Tsigas and Zhang's two null values: EMPTY (0), TAKEN. */
struct LockFree {
  static const unsigned TAKEN = 0xffffffffu;
  __device__ static unsigned get (const Ctx &x, Tally &t)
  {
    volatile unsigned *q = x.q;
    for (;;)
      {
        unsigned from = q[0], at = from, v;
        while ((v = q[4 + at]) == TAKEN)
          at++;
        t.add (SITE_GET_SLOTS, at - from + 1);
        if (v == 0)
          {
            t.add (SITE_GET_EMPTY, 1);
            return 0;
          }
        t.add (SITE_GET_CAS, 1);
        if (atomicCAS (&x.q[4 + at], v, TAKEN) != v)
          {
            t.add (SITE_GET_FAILED, 1);
            continue;
          }
        if (at % x.lazy == 0)
          atomicCAS (&x.q[0], from, at);
        return v;
      }
  }
  __device__ static void put (const Ctx &x, unsigned task, Tally &t)
  {
    volatile unsigned *q = x.q;
    for (;;)
      {
        unsigned from = q[1], at = from;
        while (q[4 + at] != 0)
          at++;
        t.add (SITE_PUT_SLOTS, at - from + 1);
        t.add (SITE_PUT_CAS, 1);
        if (atomicCAS (&x.q[4 + at], 0u, task + 1) != 0u)
          {
            t.add (SITE_PUT_FAILED, 1);
            continue;
          }
        if (at % x.lazy == 0)
          atomicCAS (&x.q[1], from, at);
        return;
      }
  }
};

/* ABP: a deque per block, head only growing, round-robin victims. */
struct Abp {
  __device__ static volatile unsigned *deque (const Ctx &x, unsigned b)
  {
    return x.q + (size_t) b * DQ_WORDS;
  }
  __device__ static unsigned pop (const Ctx &x, unsigned b)
  {
    volatile unsigned *d = deque (x, b);
    unsigned tail = d[DQ_TAIL] - 1, head, task;
    d[DQ_TAIL] = tail;
    __threadfence ();
    head = d[DQ_HEAD];
    if ((int) (tail - head) < 0)
      {
        d[DQ_TAIL] = head;
        return 0;
      }
    task = d[DQ_SLOTS + tail % DEQ_CAP];
    if (tail != head)
      return task;
    if (atomicCAS ((unsigned *) &d[DQ_HEAD], head, head + 1) != head)
      task = 0;
    d[DQ_TAIL] = head + 1;
    return task;
  }
  __device__ static unsigned steal (const Ctx &x, unsigned v)
  {
    volatile unsigned *d = deque (x, v);
    unsigned head = d[DQ_HEAD];
    __threadfence ();
    unsigned tail = d[DQ_TAIL];
    if ((int) (tail - head) <= 0)
      return 0;
    unsigned task = d[DQ_SLOTS + head % DEQ_CAP];
    return atomicCAS ((unsigned *) &d[DQ_HEAD], head, head + 1) == head ? task : 0;
  }
  __device__ static unsigned get (const Ctx &x, Tally &)
  {
    unsigned task = pop (x, blockIdx.x);
    for (unsigned k = 1; task == 0 && k < x.blocks; k++)
      task = steal (x, (blockIdx.x + k) % x.blocks);
    return task;
  }
  __device__ static void put (const Ctx &x, unsigned task, Tally &)
  {
    volatile unsigned *d = deque (x, blockIdx.x);
    unsigned tail = d[DQ_TAIL];
    d[DQ_SLOTS + tail % DEQ_CAP] = task + 1;
    __threadfence ();
    d[DQ_TAIL] = tail + 1;
  }
};

/* The loop every balancer's blocks run: @turns turns (0: until the counter reaches n). */
template <class B>
__device__ void
run_turns (const Ctx &x, unsigned turns)
{
  __shared__ unsigned sh[SH_WORDS];
  Tally tally = {};
  for (unsigned turn = 0; turns == 0 || turn < turns; turn++)
    {
      if (threadIdx.x == 0)
        {
          unsigned t = B::get (x, tally);
          if (t == 0 && (turns || *(volatile unsigned *) &x.ctl[CTL_DONE] == x.n))
            t = EXIT;
          sh[SH_TASK] = t;
        }
      __syncthreads ();
      unsigned t = sh[SH_TASK];
      __syncthreads ();
      if (t == EXIT)
        break;
      if (t == 0)
        continue;
      split (x, t - 1, sh);
      if (threadIdx.x == 0)
        for (unsigned c = 0; c < 8; c++)
          if (sh[SH_KIDS + c])
            B::put (x, sh[SH_KIDS + c] - 1, tally);
    }
  if (MDL_BALANCE_SITES && threadIdx.x == 0)
    for (int k = 0; k < N_SITES; k++)
      atomicAdd (&x.ctl[CTL_SITES + k], tally.n[k]);
}

__global__ void static_kernel (Ctx x) { run_turns<Static> (x, 1); }
__global__ void blocking_kernel (Ctx x, unsigned turns) { run_turns<Blocking> (x, turns); }
__global__ void lockfree_kernel (Ctx x, unsigned turns) { run_turns<LockFree> (x, turns); }
__global__ void abp_kernel (Ctx x, unsigned turns) { run_turns<Abp> (x, turns); }

/* ---- the host ---- */

template <Kind K>
bool
balance_validate (const Case &c, std::string *why)
{
  long threads = c.num ("threads", 32), threshold = c.num ("threshold", 20);
  long blocks = c.num ("blocks", 32), lazy = c.num ("lazy", 8);
  if (c.n < 1 || c.n > (1l << 26))
    return mdl_cuda_refuse (why, "n must be 1..2^26");
  if (threads < 8 || threads > 1024)
    return mdl_cuda_refuse (why, "threads must be 8..1024");
  if (threshold < 1 || blocks < 1 || blocks > 65535 || lazy < 1)
    return mdl_cuda_refuse (why, "threshold and lazy at least 1, blocks 1..65535");
  return mdl_cuda_choice_ok (c, "dist", "uniform", MDL_PARTICLE_DIST_CHOICES, why);
}

/* The particle set of the case's dist=, by name. */
MdlParticleDist
dist_of (const Case &c)
{
  std::string d = c.text ("dist", "uniform");
  return d == "tube" ? MDL_PARTICLES_TUBE : d == "clustered" ? MDL_PARTICLES_CLUSTERED
                                                             : MDL_PARTICLES_UNIFORM;
}

template <Kind K>
void
balance_prepare (const Case &c, Buffers &b, uint64_t *rng)
{
  uint64_t seed = mdl_splitmix64 (rng);
  b.in.resize (16 * (size_t) c.n);
  mdl_particles_fill ((uint32_t *) b.in.data (), (uint64_t) c.n, dist_of (c), seed);
  b.out.assign (16 * (size_t) c.n, MDL_CUDA_POISON);
  b.out2.assign (layout_of (K, c).total, 0);
}

template <Kind K>
int
balance_launch (const Case &c, Buffers &b)
{
  Layout l = layout_of (K, c);
  unsigned char *base = b.d_out2;
  unsigned threads = (unsigned) c.num ("threads", 32), launches = 0;
  Ctx x;
  x.buf[0] = (uint4 *) (base + l.buf0);
  x.buf[1] = (uint4 *) (base + l.buf1);
  x.tasks = (uint4 *) (base + l.tasks);
  x.leaves = (uint4 *) b.d_out;
  x.ctl = (unsigned *) (base + l.ctl);
  x.q = (unsigned *) (base + l.q);
  x.n = (unsigned) c.n;
  x.threshold = (unsigned) c.num ("threshold", 20);
  x.lazy = (unsigned) c.num ("lazy", 8);
  x.blocks = (unsigned) c.num ("blocks", 32);
  x.phase = 0;
  x.cap = l.cap;
  CUDA_OK (cudaMemset (base, 0, l.total));
  CUDA_OK (cudaMemcpy (x.buf[0], b.d_in, 16 * (size_t) c.n, cudaMemcpyDeviceToDevice));
  if (!mdl_octree_splits ((uint64_t) c.n, 0, x.threshold))
    {
      /* The root is the only leaf. */
      unsigned ctl[4] = { x.n, 1, 0, 1 }, leaf[4] = { 1, 0, 0, x.n };
      CUDA_OK (cudaMemcpy (x.ctl, ctl, sizeof ctl, cudaMemcpyHostToDevice));
      CUDA_OK (cudaMemcpy (x.leaves, leaf, sizeof leaf, cudaMemcpyHostToDevice));
      return 0;
    }
  {
    unsigned root[4] = { 0, x.n, 1, 0 }, one = 1, seed[2] = { 1, 1 };
    CUDA_OK (cudaMemcpy (x.tasks, root, sizeof root, cudaMemcpyHostToDevice));
    CUDA_OK (cudaMemcpy (&x.ctl[CTL_TASKS], &one, 4, cudaMemcpyHostToDevice));
    /* The root in the structure: in[0] (static), slot 1 with end = 1 (blocking), slot 0
     * (lock-free), block 0's deque with tail 1 (ABP). */
    if (K == STATIC || K == LOCKFREE)
      CUDA_OK (cudaMemcpy (&x.q[4], &one, 4, cudaMemcpyHostToDevice));
    else if (K == BLOCKING)
      {
        CUDA_OK (cudaMemcpy (&x.q[2], &one, 4, cudaMemcpyHostToDevice));
        CUDA_OK (cudaMemcpy (&x.q[5], &one, 4, cudaMemcpyHostToDevice));
      }
    else
      CUDA_OK (cudaMemcpy (&x.q[DQ_TAIL], seed, 8, cudaMemcpyHostToDevice));
  }
  if (K == STATIC)
    {
      /* Algorithm 4's host loop: one block per task, swap, until no task is new. */
      for (unsigned grid = 1; grid > 0; launches++)
        {
          static_kernel<<<grid, threads>>> (x);
          CUDA_OK (cudaGetLastError ());
          CUDA_OK (cudaMemcpy (&grid, x.q, 4, cudaMemcpyDeviceToHost));
          CUDA_OK (cudaMemset (x.q, 0, 4));
          x.phase = 1 - x.phase;
        }
      return (int) launches;
    }
  /* The root's turn on one block, then the persistent kernel until the counter reaches n. */
  for (int pass = 0; pass < 2; pass++)
    {
      unsigned grid = pass ? x.blocks : 1, turns = pass ? 0 : 1;
      if (K == BLOCKING)
        blocking_kernel<<<grid, threads>>> (x, turns);
      else if (K == LOCKFREE)
        lockfree_kernel<<<grid, threads>>> (x, turns);
      else
        abp_kernel<<<grid, threads>>> (x, turns);
      CUDA_OK (cudaGetLastError ());
      launches++;
    }
  return (int) launches;
}

template <Kind K>
long
balance_check (const Case &c, const Buffers &b)
{
  const unsigned *ctl = (const unsigned *) (b.out2.data () + layout_of (K, c).ctl);
  unsigned threshold = (unsigned) c.num ("threshold", 20);
  MdlOctreeLeaf *want = nullptr;
  MdlOctreeShape shape;
  uint64_t n_want = 0;
  long bad = 0;
  if (!mdl_octree_reference ((const uint32_t *) b.in.data (), (uint64_t) c.n, threshold, &want,
                             &n_want, &shape))
    {
      fprintf (stderr, "gpu-kernels: %s: out of memory\n", c.spec.c_str ());
      exit (2);
    }
  if (ctl[CTL_DONE] != (unsigned) c.n || ctl[CTL_FINISHERS] != 1 || ctl[CTL_LEAVES] != n_want)
    {
      fprintf (stderr, "gpu-kernels: %s: counter %u of %ld, reached %u times, %u leaves of %lu\n",
               c.spec.c_str (), ctl[CTL_DONE], c.n, ctl[CTL_FINISHERS], ctl[CTL_LEAVES],
               (unsigned long) n_want);
      free (want);
      return 1 + (long) (ctl[CTL_LEAVES] > n_want ? ctl[CTL_LEAVES] - n_want : n_want - ctl[CTL_LEAVES]);
    }
  if (MDL_BALANCE_SITES && K == LOCKFREE)
    {
      printf ("lockfree sites: %s:", c.spec.c_str ());
      for (int k = 0; k < N_SITES; k++)
        printf (" %s %u", site_names[k], ctl[CTL_SITES + k]);
      printf ("\n");
    }
  std::vector<MdlOctreeLeaf> got (n_want);
  memcpy (got.data (), b.out.data (), n_want * sizeof (MdlOctreeLeaf));
  std::sort (got.begin (), got.end (),
             [] (const MdlOctreeLeaf &x, const MdlOctreeLeaf &y) { return x.path < y.path; });
  for (uint64_t i = 0; i < n_want; i++)
    bad += memcmp (&got[i], &want[i], sizeof got[i]) != 0;
  if (bad)
    fprintf (stderr, "gpu-kernels: %s: %ld of %lu leaves differ from the reference\n",
             c.spec.c_str (), bad, (unsigned long) n_want);
  free (want);
  return bad;
}

template <Kind K>
std::string
balance_kernel (const Case &)
{
  return K == STATIC ? "static_kernel" : K == BLOCKING ? "blocking_kernel"
         : K == LOCKFREE ? "lockfree_kernel" : "abp_kernel";
}

template <Kind K>
constexpr CudaTwin
twin ()
{
  return { balance_validate<K>, balance_prepare<K>, balance_launch<K>, balance_check<K>,
           balance_kernel<K> };
}

} // namespace

const CudaTwin cuda_twin_balance_static = twin<STATIC> ();
const CudaTwin cuda_twin_balance_blocking = twin<BLOCKING> ();
const CudaTwin cuda_twin_balance_lockfree = twin<LOCKFREE> ();
const CudaTwin cuda_twin_balance_abp = twin<ABP> ();
