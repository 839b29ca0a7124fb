/* What an L1 conflict miss costs on this machine, and how much of a cycle slightly longer than the
 * L1's ways its replacement keeps (docs/experiments/cpu-model.md, "Session 12"). The cache engine
 * counts misses under LRU, which misses on every line of a cycle longer than the ways; the naive
 * product's column (128 to 512 lines in 1 to 4 sets) pays for those misses on the host, the
 * recursive product's block (about 18 lines in a set of 12 ways) seems not to.
 *
 * Every walk visits K lines 4 KiB apart, which share one L1 set (the set index lies in the page
 * offset), or 4 KiB + 64 B apart, which spread over the sets (the control: the same lines per
 * page, no conflict). Two walks of each:
 *   - chase: each load's address is the value the last one loaded (a cycle of K lines), so the
 *     ns per load is the latency: an L1 hit's for K within the ways, L2's once every load misses,
 *     and between them the share the replacement keeps;
 *   - independent: the K lines in order, addresses known ahead, one running sum (the naive
 *     product's loop): the ns per load less the control's is what a conflict miss adds when the
 *     core overlaps them.
 * One CSV row per (walk, layout, K) on stdout: walk, layout, k, ns per load (the least of REPS
 * timings of about 2^24 loads each).
 *
 *   gcc -O2 -o cpu-model-l1-sets tools/cpu-model-l1-sets.c
 *   ./cpu-model-l1-sets [K_MAX [REPS]]   (defaults 64 5; K runs 4, 8, 10, ..., 32, then doubles)
 *
 * Plain C without the library, so that it builds where GLib is missing (the lent machine); pin it
 * to one CPU (taskset -c N) so that the L1 it measures is one core's. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PAGE 4096
#define LINE 64
#define LOADS ((uint64_t) 1 << 24)

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ns per load of a dependent cycle through the @k lines at @buf + i * @stride. */
static double
chase (char *buf, size_t stride, unsigned k, unsigned reps)
{
  double best = 1e30;
  for (unsigned i = 0; i < k; i++)
    *(char **) (buf + i * stride) = buf + (size_t) ((i + 1) % k) * stride;
  for (unsigned r = 0; r < reps; r++)
    {
      char *p = buf;
      uint64_t t0 = now_ns ();
      for (uint64_t i = 0; i < LOADS; i++)
        p = *(char **) p;
      double ns = (double) (now_ns () - t0) / (double) LOADS;
      __asm__ volatile ("" : : "r" (p));
      best = ns < best ? ns : best;
    }
  return best;
}

/* ns per load of the @k lines read in order, over and over, into one sum. */
static double
independent (char *buf, size_t stride, unsigned k, unsigned reps)
{
  double best = 1e30;
  for (unsigned i = 0; i < k; i++)
    *(uint64_t *) (buf + i * stride) = i;
  for (unsigned r = 0; r < reps; r++)
    {
      uint64_t sum = 0, rounds = LOADS / k;
      uint64_t t0 = now_ns ();
      for (uint64_t j = 0; j < rounds; j++)
        for (unsigned i = 0; i < k; i++)
          sum += *(volatile uint64_t *) (buf + i * stride);
      double ns = (double) (now_ns () - t0) / (double) (rounds * k);
      __asm__ volatile ("" : : "r" (sum));
      best = ns < best ? ns : best;
    }
  return best;
}

int
main (int argc, char **argv)
{
  unsigned k_max = argc > 1 ? (unsigned) atoi (argv[1]) : 64;
  unsigned reps = argc > 2 ? (unsigned) atoi (argv[2]) : 5;
  static const struct { const char *name; size_t stride; } layouts[] = {
    { "one-set", PAGE }, { "spread", PAGE + LINE },
  };
  char *buf = aligned_alloc (PAGE, (size_t) k_max * (PAGE + LINE) + PAGE);
  if (buf == NULL || k_max < 4 || reps < 1)
    {
      fprintf (stderr, "usage: %s [K_MAX >= 4 [REPS >= 1]]\n", argv[0]);
      return 2;
    }
  printf ("walk,layout,k,ns_per_load\n");
  for (unsigned k = 4; k <= k_max; k = k < 8 ? 8 : k < 32 ? k + 2 : 2 * k)
    for (unsigned l = 0; l < 2; l++)
      {
        printf ("chase,%s,%u,%.3f\n", layouts[l].name, k, chase (buf, layouts[l].stride, k, reps));
        printf ("independent,%s,%u,%.3f\n", layouts[l].name, k,
                independent (buf, layouts[l].stride, k, reps));
        fflush (stdout);
      }
  free (buf);
  return 0;
}
