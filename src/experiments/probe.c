/* The latency probes of probe.h. A pointer chase over a random cyclic permutation of 64-byte nodes
 * (Sattolo's shuffle: one cycle through every node) defeats the prefetchers and serializes the
 * loads, so its time per step is the load-to-use latency of the level the buffer lives in. The
 * same buffer read at independent random places measures what a miss costs when misses overlap
 * (memory-level parallelism), and read in order what a prefetched stream costs per line. Times
 * are the minimum of a few runs, as the experiment's are. */
#include "experiments/probe.h"
#include "core/splitmix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define NODE_BYTES 64
#define HUGE_BYTES ((gsize) 2 << 20)
#define PROBE_RUNS 3
#define CHASE_STEPS ((guint64) 1 << 20)

typedef struct {
  void *next;
  char pad[NODE_BYTES - sizeof (void *)];
} Node;

static double
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &t);   /* as the timed runs: others' time left out */
  return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

/* @bytes rounded up to 2 MiB, aligned, with huge pages asked for or refused. */
static void *
buffer_new (gsize bytes, gboolean huge)
{
  void *p = NULL;
  bytes = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
  if (posix_memalign (&p, HUGE_BYTES, bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  madvise (p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
  memset (p, 0, bytes);
  return p;
}

/* A random cyclic order of @n nodes (Sattolo's shuffle: j < i, so the permutation is one cycle)
 * linked into @nodes. */
static void
link_cycle (Node *nodes, gsize n, guint64 *seed)
{
  g_autofree guint32 *order = g_new (guint32, n);
  for (gsize i = 0; i < n; i++)
    order[i] = (guint32) i;
  for (gsize i = n - 1; i > 0; i--)
    {
      gsize j = mdl_splitmix64 (seed) % i;
      guint32 t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  for (gsize i = 0; i < n; i++)
    nodes[order[i]].next = &nodes[order[(i + 1) % n]];
}

/* ns per step of a chase through @nodes. */
static double
chase (Node *nodes)
{
  double best = INFINITY;
  void *volatile sink;
  for (guint run = 0; run < PROBE_RUNS; run++)
    {
      void *p = &nodes[0];
      double t0 = now_ns ();
      for (guint64 s = 0; s < CHASE_STEPS; s++)
        p = *(void **) p;
      best = MIN (best, (now_ns () - t0) / (double) CHASE_STEPS);
      sink = p;
    }
  (void) sink;
  return best;
}

/* ns per load of @n_idx independent loads of the nodes @idx names: no load's address waits for
 * another's value, so their misses overlap. */
static double
independent_loads (const Node *nodes, const guint32 *idx, gsize n_idx)
{
  double best = INFINITY;
  volatile guint64 sink;
  for (guint run = 0; run < PROBE_RUNS; run++)
    {
      guint64 sum = 0;
      double t0 = now_ns ();
      for (gsize i = 0; i < n_idx; i++)
        sum += (guintptr) nodes[idx[i]].next;
      best = MIN (best, (now_ns () - t0) / (double) n_idx);
      sink = sum;
    }
  (void) sink;
  return best;
}

/* ns per node of a sequential read of the first word of each of @n nodes (one per line). */
static double
stream (const Node *nodes, gsize n)
{
  double best = INFINITY;
  volatile guint64 sink;
  for (guint run = 0; run < PROBE_RUNS; run++)
    {
      guint64 sum = 0;
      double t0 = now_ns ();
      for (gsize i = 0; i < n; i++)
        sum += (guintptr) nodes[i].next;
      best = MIN (best, (now_ns () - t0) / (double) n);
      sink = sum;
    }
  (void) sink;
  return best;
}

/* The probes of one buffer of @bytes: the dependent chase and the independent loads over the
 * same lines and pages, and, when @stream_ns is not NULL, the sequential read. */
static void
probe_buffer (gsize bytes, gboolean huge, guint64 *seed, guint32 *idx, double *chase_ns,
              double *random_ns, double *stream_ns)
{
  gsize n = MAX (bytes / NODE_BYTES, 2);
  Node *nodes = buffer_new (n * NODE_BYTES, huge);
  if (nodes == NULL)
    return;
  link_cycle (nodes, n, seed);
  *chase_ns = chase (nodes);
  for (gsize i = 0; i < CHASE_STEPS; i++)
    idx[i] = (guint32) (mdl_splitmix64 (seed) % n);
  *random_ns = independent_loads (nodes, idx, CHASE_STEPS);
  if (stream_ns)
    *stream_ns = stream (nodes, n);
  free (nodes);
}

#define BRANCH_BYTES ((gsize) 1 << 20)

/* ns per pass of the branchy loop over @bits: an empty asm on the taken side keeps the compiler
 * from turning the branch into a conditional move or vectorising the loop. */
static double
branch_pass (const guint8 *bits, gsize n)
{
  double best = INFINITY;
  for (guint run = 0; run < PROBE_RUNS; run++)
    {
      guint64 taken = 0;
      double t0 = now_ns ();
      for (gsize i = 0; i < n; i++)
        if (bits[i])
          {
            __asm__ volatile ("" : "+r" (taken));
            taken++;
          }
      best = MIN (best, now_ns () - t0);
      __asm__ volatile ("" : : "r" (taken));
    }
  return best;
}

/* The branch misprediction probe of MdlProbe.mispredict_ns. 1 MiB of outcomes is far more than a
 * predictor's history can hold, so a coin flip stays a coin flip. */
static double
mispredict (guint64 *seed)
{
  g_autofree guint8 *bits = g_new (guint8, BRANCH_BYTES);
  double fair, alternating;
  for (gsize i = 0; i < BRANCH_BYTES; i++)
    bits[i] = (guint8) (i & 1);
  alternating = branch_pass (bits, BRANCH_BYTES);
  for (gsize i = 0; i < BRANCH_BYTES; i++)
    bits[i] = (guint8) (mdl_splitmix64 (seed) & 1);
  fair = branch_pass (bits, BRANCH_BYTES);
  return 2 * (fair - alternating) / (double) BRANCH_BYTES;
}

void
mdl_probe_run (const guint64 cache_bytes[3], guint64 max_bytes, MdlProbe *out)
{
  guint64 seed = 42;
  guint64 l1 = cache_bytes[0] ? cache_bytes[0] : 32 << 10;
  guint64 l2 = cache_bytes[1] ? cache_bytes[1] : 1 << 20;
  guint64 l3 = cache_bytes[2] ? cache_bytes[2] : 8 * l2;
  guint64 big = CLAMP (max_bytes, (guint64) 8 << 20, (guint64) 256 << 20);
  /* Half a level's size stays in it; a quarter past the level below is out of that one. */
  const guint64 sizes[5] = { l1 / 2, MAX (l2 / 2, 2 * l1),
                             MAX (MIN (l3 / 2, (guint64) 16 << 20), 2 * l2), big, big };
  g_autofree guint32 *idx = g_new (guint32, CHASE_STEPS);
  memset (out, 0, sizeof *out);
  out->stream_ns = NAN;
  for (guint i = 0; i < 5; i++)
    {
      out->chase_bytes[i] = sizes[i];
      out->chase_ns[i] = out->random_ns[i] = NAN;
      probe_buffer (sizes[i], i < 4, &seed, idx, &out->chase_ns[i], &out->random_ns[i],
                    i == 4 ? &out->stream_ns : NULL);
    }
  out->mispredict_ns = mispredict (&seed);
}
