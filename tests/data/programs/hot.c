/* A small real program with one known hot line, for tests/test-annotate.c: line 12 reads every
 * 16th int of a 256 KiB array (one 64-byte line per read) four times over, so under a 32 KiB D1 it
 * misses on nearly every read, while the other lines touch a few stack slots. Built with -g -O0, so
 * each source line keeps its own instructions. */
#include <stdlib.h>
static int table[1 << 16];
int main (int argc, char **argv) {
  long rounds = argc > 1 ? atol (argv[1]) : 4, sum = 0;
  for (int i = 0; i < (1 << 16); i++) table[i] = i;
  for (long r = 0; r < rounds; r++)
    for (int i = 0; i < (1 << 16); i += 16)
      sum += table[i];
  return sum == 0;
}
