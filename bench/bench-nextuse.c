/* The vat engine's forward next-use pass alone (src/models/vat/nextuse.c, what min and ismin key
 * their cells by) on bench-vat's pages, one core: random 8-byte accesses over 16 GiB, P=4096,
 * K=512, d=3, added 512 at a time as the engine adds them. Beside it, the floor it is measured
 * against: a backward pass over the finished trace (one array per layer by node number), which
 * patches nothing but cannot run while the stream comes. Both passes' entries must agree (the
 * program fails otherwise). Rates by the thread's CPU time, in ns per access.
 *
 * Usage: bench-nextuse [ACCESSES [ROUNDS]]   (default 4M accesses, 3 rounds, alternated) */
#include "bench.h"
#include "models/vat/nextuse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT 12
#define K_BITS 9
#define DEPTH 3
#define SPAN_BYTES (G_GUINT64_CONSTANT (16) << 30)
#define ADD_BATCH 512   /* what vat.c hands the pass at a time */
#define AHEAD 32

/* bench-vat's pages (the same seed and addresses). */
static guint64 *
random_pages (gsize n)
{
  guint64 *pages = g_new (guint64, n);
  GRand *rand = g_rand_new_with_seed (42);
  for (gsize i = 0; i < n; i++)
    {
      guint64 r = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
      pages[i] = ((r % SPAN_BYTES) & ~7ull) >> PAGE_SHIFT;
    }
  g_rand_free (rand);
  return pages;
}

/* Seconds of CPU for the forward pass; its entries into @next ((d+1) per access). */
static double
forward (const guint64 *pages, gsize n, guint32 *next)
{
  VatNextUse nu;
  double t0 = bench_cpu_now (), t1;
  mdl_vat_nextuse_init (&nu, DEPTH, K_BITS);
  for (gsize i = 0; i < n; i += ADD_BATCH)
    mdl_vat_nextuse_add (&nu, pages + i, MIN (ADD_BATCH, n - i));
  t1 = bench_cpu_now ();
  memcpy (next, mdl_vat_nextuse_of (&nu), n * (DEPTH + 1) * sizeof *next);
  mdl_vat_nextuse_finalize (&nu);
  return t1 - t0;
}

/* Seconds of CPU for the backward pass, tables included; its entries into @next. */
static double
backward (const guint64 *pages, gsize n, guint32 *next)
{
  double t0 = bench_cpu_now (), t1;
  guint32 *latest[DEPTH + 1];
  for (guint l = 0; l <= DEPTH; l++)
    {
      gsize numbers = (SPAN_BYTES >> PAGE_SHIFT >> (K_BITS * l)) + 1;
      latest[l] = g_new (guint32, numbers);
      memset (latest[l], 0xff, numbers * sizeof (guint32));
    }
  for (gsize t = n; t-- > 0;)
    {
      if (t >= AHEAD)
        __builtin_prefetch (&latest[0][pages[t - AHEAD]], 1);
      for (guint l = 0; l <= DEPTH; l++)
        {
          guint64 number = pages[t] >> (K_BITS * l);
          next[t * (DEPTH + 1) + l] = latest[l][number];
          latest[l][number] = (guint32) t;
        }
    }
  t1 = bench_cpu_now ();
  for (guint l = 0; l <= DEPTH; l++)
    g_free (latest[l]);
  return t1 - t0;
}

int
main (int argc, char **argv)
{
  gsize n = argc > 1 ? strtoull (argv[1], NULL, 10) : (gsize) 1 << 22;
  guint rounds = argc > 2 ? (guint) atoi (argv[2]) : 3;
  g_autofree guint64 *pages = NULL;
  g_autofree guint32 *fwd = NULL, *bwd = NULL;
  if (n == 0 || n >= G_MAXUINT32 - 1 || rounds == 0)
    {
      fprintf (stderr, "usage: bench-nextuse [ACCESSES (1 .. 2^32 - 3) [ROUNDS (>= 1)]]\n");
      return 2;
    }
  pages = random_pages (n);
  fwd = g_new (guint32, n * (DEPTH + 1));
  bwd = g_new (guint32, n * (DEPTH + 1));
  printf ("bench-nextuse: %zu random pages of 16 GiB, K=512 d=3, ns per access by CPU time\n", n);
  for (guint r = 0; r < rounds; r++)
    {
      double f = forward (pages, n, fwd), b = backward (pages, n, bwd);
      if (memcmp (fwd, bwd, n * (DEPTH + 1) * sizeof *fwd) != 0)
        {
          fprintf (stderr, "bench-nextuse: the forward and backward passes disagree\n");
          return 1;
        }
      printf ("  round %u: forward %6.1f  backward %6.1f\n", r + 1, f / n * 1e9, b / n * 1e9);
    }
  return 0;
}
