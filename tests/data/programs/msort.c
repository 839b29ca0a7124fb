/* A small real program for the cache cross-checks: a merge sort of N pseudo-random keys (argv[1],
 * default 1000), exit status 1 if the result is not sorted. tests/test-cachegrind.c runs it under
 * Cachegrind and Lackey; bench/bench-cache.c times the cache engine on its Lackey trace. */
#include <stdlib.h>
static unsigned long long s = 88172645463325252ull;
static unsigned r (void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (unsigned) s; }
static void msort (unsigned *a, unsigned *t, long n) {
  long h = n / 2, i = 0, j = h, k = 0;
  if (n < 2) return;
  msort (a, t, h); msort (a + h, t, n - h);
  while (i < h && j < n) t[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < h) t[k++] = a[i++];
  while (j < n) t[k++] = a[j++];
  for (k = 0; k < n; k++) a[k] = t[k];
}
int main (int argc, char **argv) {
  long n = argc > 1 ? atol (argv[1]) : 1000;
  unsigned *a = malloc (n * 4), *t = malloc (n * 4);
  for (long i = 0; i < n; i++) a[i] = r ();
  msort (a, t, n);
  for (long i = 1; i < n; i++) if (a[i - 1] > a[i]) return 1;
  return 0;
}
