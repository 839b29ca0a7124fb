/* Why matmul/naive at 2^18 elements times 1.26 to 2.97 ns per operation across runs whose counts
 * are identical (docs/experiments/cpu-model.md, "Timing stability"). The product walks B down a
 * column: 512 loads 4 KiB apart, one per page, every one at the same page offset. A physically
 * indexed L2 of 2048 sets (2 MiB, 16 ways, 64-byte lines) takes set bits 6..16 of the physical
 * address; bits 12..16 come from the page's frame, so the column's 512 lines fall into 32 sets,
 * 16 on average: exactly the ways. Which set a line takes depends on the frame the kernel gave its
 * page. Frames in order (a fresh, unfragmented allocation) put 16 lines in each set, and the
 * column stays in L2 for the 8 columns of a line; frames at random put more than 16 in some sets,
 * where LRU then misses on every pass of the column. The cache engine sees virtual addresses,
 * which are in order, so its counts are those of the lucky placement.
 *
 * This program times the same product (the experiment's loop order, uint64 arithmetic) REPS
 * times, each on freshly allocated matrices, and for each repetition reads the frames of B's
 * pages from /proc/self/pagemap (root only; without it the frame columns are -1) and counts how
 * many of a column's lines sit in L2 sets holding more than WAYS of them. One CSV row per
 * repetition on stdout: rep, pages (4k or huge), seconds, ns per multiply-add, the largest number
 * of column lines in one L2 set, and the column lines in overfull sets.
 *
 *   gcc -O2 -o matmul-placement tools/matmul-placement.c
 *   ./matmul-placement [REPS [SIDE [L2_SETS [L2_WAYS [huge]]]]]   (defaults 20 512 2048 16)
 *
 * Plain C without the library, so that it builds where GLib is missing (the lent machine). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE_BYTES 4096u
#define HUGE_BYTES (2u << 20)
#define LINE_SHIFT 6

static uint64_t
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint64_t *
alloc_matrix (size_t bytes, int huge)
{
  void *p = NULL;
  size_t align = huge ? HUGE_BYTES : PAGE_BYTES;
  bytes = (bytes + align - 1) & ~(align - 1);
  if (posix_memalign (&p, align, bytes) != 0)
    return NULL;
  /* As src/algos/pages.c does for pages=4k and pages=huge. */
  madvise (p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return p;
}

/* The frame of the page at @addr, or -1 when pagemap does not tell (not root, not present). */
static int64_t
frame_of (int pagemap, const void *addr)
{
  uint64_t entry;
  off_t at = (off_t) ((uintptr_t) addr / PAGE_BYTES * sizeof entry);
  if (pagemap < 0 || pread (pagemap, &entry, sizeof entry, at) != (ssize_t) sizeof entry)
    return -1;
  if (!(entry >> 63) || (entry & ((UINT64_C (1) << 55) - 1)) == 0)
    return -1;
  return (int64_t) (entry & ((UINT64_C (1) << 55) - 1));
}

/* Of column 0 of B (@side lines, one per row), the most lines one L2 set holds in *@most and the
 * lines in sets holding more than @ways in *@overfull; both -1 when a frame is unknown. */
static void
column_sets (int pagemap, const uint64_t *b, uint64_t side, uint64_t n_sets, uint64_t ways,
             int64_t *most, int64_t *overfull)
{
  uint32_t *count = calloc (n_sets, sizeof *count);
  *most = *overfull = 0;
  for (uint64_t k = 0; k < side && count; k++)
    {
      const uint64_t *line = &b[k * side];
      int64_t frame = frame_of (pagemap, line);
      uint64_t phys;
      if (frame < 0)
        {
          *most = *overfull = -1;
          break;
        }
      phys = (uint64_t) frame * PAGE_BYTES + (uintptr_t) line % PAGE_BYTES;
      count[(phys >> LINE_SHIFT) & (n_sets - 1)]++;
    }
  for (uint64_t s = 0; s < n_sets && *most >= 0; s++)
    {
      if (count[s] > *most)
        *most = count[s];
      if (count[s] > ways)
        *overfull += count[s];
    }
  free (count);
}

int
main (int argc, char **argv)
{
  unsigned reps = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 10) : 20;
  uint64_t side = argc > 2 ? strtoull (argv[2], NULL, 10) : 512;
  uint64_t n_sets = argc > 3 ? strtoull (argv[3], NULL, 10) : 2048;
  uint64_t ways = argc > 4 ? strtoull (argv[4], NULL, 10) : 16;
  int huge = argc > 5 && strcmp (argv[5], "huge") == 0;
  int pagemap = open ("/proc/self/pagemap", O_RDONLY);
  size_t bytes = side * side * sizeof (uint64_t);
  uint64_t seed = 1;

  if (reps == 0 || side == 0 || n_sets == 0 || (n_sets & (n_sets - 1)) != 0)
    {
      fprintf (stderr, "usage: %s [REPS [SIDE [L2_SETS (a power of two) [L2_WAYS [huge]]]]]\n",
               argv[0]);
      return 2;
    }
  printf ("rep,pages,seconds,ns_per_op,most_lines_in_a_set,lines_in_overfull_sets\n");
  for (unsigned r = 0; r < reps; r++)
    {
      uint64_t *a = alloc_matrix (bytes, huge), *b = alloc_matrix (bytes, huge);
      uint64_t *c = alloc_matrix (bytes, huge), t0, t1, check = 0;
      int64_t most, overfull;
      if (!a || !b || !c)
        {
          fprintf (stderr, "matmul-placement: cannot allocate 3 x %zu bytes\n", bytes);
          return 1;
        }
      /* Written before the clock starts, as the experiment's run does (every page faulted in). */
      for (uint64_t i = 0; i < side * side; i++)
        {
          seed = seed * 6364136223846793005u + 1442695040888963407u;
          a[i] = seed >> 11;
          b[i] = seed >> 7;
        }
      memset (c, 0, bytes);
      __asm__ volatile ("" : : "r" (a), "r" (b), "r" (c) : "memory");
      t0 = now_ns ();
      for (uint64_t i = 0; i < side; i++)
        for (uint64_t j = 0; j < side; j++)
          {
            uint64_t sum = 0;
            for (uint64_t k = 0; k < side; k++)
              sum += a[i * side + k] * b[k * side + j];
            c[i * side + j] = sum;
          }
      t1 = now_ns ();
      __asm__ volatile ("" : : "r" (c) : "memory");
      for (uint64_t i = 0; i < side * side; i++)
        check += c[i];
      column_sets (pagemap, b, side, n_sets, ways, &most, &overfull);
      printf ("%u,%s,%.6f,%.4f,%lld,%lld\n", r, huge ? "huge" : "4k", (double) (t1 - t0) * 1e-9,
              (double) (t1 - t0) / (double) (side * side * side), (long long) most,
              (long long) overfull);
      fflush (stdout);
      if (check == 42)
        fprintf (stderr, "(checksum)\n");   /* keeps the product from being optimised away */
      free (a);
      free (b);
      free (c);
    }
  if (pagemap >= 0)
    close (pagemap);
  return 0;
}
