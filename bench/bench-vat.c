/* Throughput of the vat engine against issue 18's targets (which replaced issue 7's), one core:
 * random 8-byte accesses over 16 GiB, P=4096, K=512, d=3, W=64. Every rate is printed next to two
 * straightforward VAT LRUs run over the same addresses in the same process: a naive one (a
 * GHashTable of nodes plus a GQueue recency list) and a plain C one (open addressing, intrusive
 * list, no allocation); the LRU engine's miss count must equal theirs (the program fails
 * otherwise). Times include the report, so offline policies pay for their next-use pre-pass and
 * their deferred run.
 *
 * Each rate is given twice: by the wall clock, and by the thread's CPU time ("cpu"), which moves far
 * less when other work shares the machine; cycles per access = clock rate / cpu rate.
 *
 * Usage: bench-vat [ACCESSES [LABEL...]]   (default 8M; MODELS_BENCH_ACCESSES overrides too; with
 * labels, only those runs, after the naive one: "min" is that run, "min*" every run whose label
 * starts with "min") */
#include <models/models.h>

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT 12
#define K_BITS 9
#define DEPTH 3
#define CELLS 64
#define SPAN_BYTES (G_GUINT64_CONSTANT (16) << 30)

/* The straightforward VAT LRU: a hash table from node to its link in a recency queue. */
static guint64
naive_lru (const MdlCpuEvent *ev, gsize n)
{
  GHashTable *where = g_hash_table_new (g_int64_hash, g_int64_equal);
  GQueue recency = G_QUEUE_INIT;   /* head = most recent; data points at a gint64 node */
  guint64 misses = 0;
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = ev[i].addr >> PAGE_SHIFT;
      for (int l = DEPTH; l >= 0; l--)
        {
          gint64 node = (gint64) (((guint64) l << 57) | (page >> (K_BITS * l)));
          GList *link = g_hash_table_lookup (where, &node);
          if (link)
            {
              g_queue_unlink (&recency, link);
              g_queue_push_head_link (&recency, link);
              continue;
            }
          misses++;
          if (recency.length == CELLS)
            {
              GList *old = g_queue_pop_tail_link (&recency);
              g_hash_table_remove (where, old->data);
              g_free (old->data);
              g_list_free_1 (old);
            }
          {
            gint64 *key = g_new (gint64, 1);
            *key = node;
            g_queue_push_head (&recency, key);
            g_hash_table_insert (where, key, recency.head);
          }
        }
    }
  g_hash_table_unref (where);
  g_queue_clear_full (&recency, g_free);
  return misses;
}

/* The same LRU in plain C with no allocation: an open-addressing table (linear probing, deletion
 * by backward shift) from node to cell, and the CELLS cells on an intrusive doubly linked recency
 * list. A second, stronger baseline: the kind of straightforward implementation the issue's
 * "about 9.5 M/s" describes, which the GLib one above is not. */
#define PLAIN_SLOTS 256   /* a power of two, 4 x CELLS: probes stay short */

static guint
plain_home (guint64 node)
{
  return (guint) ((node * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 56) & (PLAIN_SLOTS - 1);
}

static guint64
plain_lru (const MdlCpuEvent *ev, gsize n)
{
  guint64 node_of[CELLS];
  int prev[CELLS], next[CELLS], slot[PLAIN_SLOTS];
  int head = -1, tail = -1, used = 0;
  guint64 misses = 0;
  for (guint i = 0; i < PLAIN_SLOTS; i++)
    slot[i] = -1;
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = ev[i].addr >> PAGE_SHIFT;
      for (int l = DEPTH; l >= 0; l--)
        {
          guint64 node = ((guint64) l << 57) | (page >> (K_BITS * l));
          guint h = plain_home (node);
          int c;
          while (slot[h] >= 0 && node_of[slot[h]] != node)
            h = (h + 1) & (PLAIN_SLOTS - 1);
          c = slot[h];
          if (c < 0)
            {
              misses++;
              if (used < CELLS)
                c = used++;
              else
                {
                  /* Evict the tail: delete its slot, shifting later probes back over it. */
                  guint hole = plain_home (node_of[tail]), j;
                  while (slot[hole] != tail)
                    hole = (hole + 1) & (PLAIN_SLOTS - 1);
                  for (j = (hole + 1) & (PLAIN_SLOTS - 1); slot[j] >= 0; j = (j + 1) & (PLAIN_SLOTS - 1))
                    {
                      guint home = plain_home (node_of[slot[j]]);
                      if (((j - home) & (PLAIN_SLOTS - 1)) >= ((j - hole) & (PLAIN_SLOTS - 1)))
                        {
                          slot[hole] = slot[j];
                          hole = j;
                        }
                    }
                  slot[hole] = -1;
                  c = tail;
                  tail = prev[c];
                  next[tail] = -1;
                  /* The node's own probe may have passed the freed slot: look again. */
                  h = plain_home (node);
                  while (slot[h] >= 0)
                    h = (h + 1) & (PLAIN_SLOTS - 1);
                }
              node_of[c] = node;
              slot[h] = c;
              prev[c] = -1;
              next[c] = head;
              if (head >= 0)
                prev[head] = c;
              head = c;
              if (tail < 0)
                tail = c;
              continue;
            }
          if (c == head)
            continue;
          next[prev[c]] = next[c];
          if (next[c] >= 0)
            prev[next[c]] = prev[c];
          else
            tail = prev[c];
          prev[c] = -1;
          next[c] = head;
          prev[head] = c;
          head = c;
        }
    }
  return misses;
}

static guint64
report_count (MdlReport *r, const char *name)
{
  const MdlCounter *c = mdl_report_lookup (r, name);
  return c ? c->count : G_MAXUINT64;
}

/* Runs @spec over the events; returns the seconds and the report, and the CPU seconds in @cpu. */
static double
run_engine (const char *spec, const MdlCpuEvent *ev, gsize n, MdlReport **report, double *cpu)
{
  GError *error = NULL;
  MdlEngine *e = mdl_engine_new (spec, &error);
  double t0, c0;
  if (e == NULL)
    {
      fprintf (stderr, "bench-vat: %s\n", error->message);
      exit (1);
    }
  t0 = bench_now ();
  c0 = bench_cpu_now ();
  for (gsize i = 0; i < n; i += 4096)
    {
      MdlEventBatch b = { .cpu = ev + i, .n_cpu = MIN (4096, n - i) };
      if (!mdl_engine_consume (e, &b, &error))
        {
          fprintf (stderr, "bench-vat: %s\n", error->message);
          exit (1);
        }
    }
  *report = mdl_engine_report (e);
  *cpu = bench_cpu_now () - c0;
  t0 = bench_now () - t0;
  mdl_engine_free (e);
  return t0;
}

int
main (int argc, char **argv)
{
  static const struct {
    const char *label;
    const char *spec;
    double target;   /* M accesses/s by the wall clock; lru's is a ratio (2.5x plain), not a rate */
  } runs[] = {
    { "lru", "vat:policy=lru,P=4096,K=512,d=3,W=64", 0 },
    { "islru", "vat:policy=islru,P=4096,K=512,d=3,W=64", 45 },
    { "min", "vat:policy=min,P=4096,K=512,d=3,W=64", 15 },
    { "ismin", "vat:policy=ismin,P=4096,K=512,d=3,W=64", 15 },
    { "lru curve W=4..4096", "vat:policy=lru,P=4096,K=512,d=3,W=64,curve=1,curve_max=4096", 3 },
    { "islru curve W=4..4096", "vat:policy=islru,P=4096,K=512,d=3,W=64,curve=1,curve_max=4096", 0 },
    { "min curve W=4..4096", "vat:policy=min,P=4096,K=512,d=3,W=64,curve=1,curve_max=4096", 4 },
    { "ismin curve W=4..4096", "vat:policy=ismin,P=4096,K=512,d=3,W=64,curve=1,curve_max=4096", 4 },
    { "fifo", "vat:policy=fifo,P=4096,K=512,d=3,W=64", 0 },
    { "random", "vat:policy=random,P=4096,K=512,d=3,W=64", 0 },
    { "levels", "vat:policy=levels,P=4096,K=512,d=3,W=64", 0 },
  };
  const char *env = g_getenv ("MODELS_BENCH_ACCESSES");
  gsize n = argc > 1 ? (gsize) g_ascii_strtoull (argv[1], NULL, 0)
            : env ? (gsize) g_ascii_strtoull (env, NULL, 0) : 8u << 20;
  MdlCpuEvent *ev = g_new (MdlCpuEvent, n);
  GRand *rand = g_rand_new_with_seed (42);
  guint64 naive_misses, plain_misses;
  double t0, c0, naive_rate, naive_cpu_rate, plain_rate;
  int failed = 0;

  for (gsize i = 0; i < n; i++)
    {
      guint64 r = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
      ev[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .addr = (r % SPAN_BYTES) & ~7ull };
    }
  g_rand_free (rand);

  t0 = bench_now ();
  c0 = bench_cpu_now ();
  naive_misses = naive_lru (ev, n);
  naive_cpu_rate = (double) n / (bench_cpu_now () - c0) / 1e6;
  naive_rate = (double) n / (bench_now () - t0) / 1e6;
  printf ("bench-vat: %zu random 8-byte accesses over 16 GiB, P=4096 K=512 d=3 W=64, one core\n", n);
  printf ("  %-24s %8.2f M accesses/s (cpu %6.2f)  misses %" G_GUINT64_FORMAT "\n",
          "naive hash+list lru", naive_rate, naive_cpu_rate, naive_misses);
  t0 = bench_now ();
  c0 = bench_cpu_now ();
  plain_misses = plain_lru (ev, n);
  plain_rate = (double) n / (bench_now () - t0) / 1e6;
  printf ("  %-24s %8.2f M accesses/s (cpu %6.2f)  misses %" G_GUINT64_FORMAT "%s\n",
          "plain C hash+list lru", plain_rate, (double) n / (bench_cpu_now () - c0) / 1e6,
          plain_misses, plain_misses == naive_misses ? "" : "  MISMATCH with the naive LRU");
  failed |= plain_misses != naive_misses;

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      MdlReport *r;
      double cpu, secs, rate;
      guint64 misses;
      const char *note = "";
      gboolean wanted = argc <= 2;
      for (int a = 2; a < argc && !wanted; a++)
        wanted = g_str_has_suffix (argv[a], "*")
                 ? strncmp (runs[i].label, argv[a], strlen (argv[a]) - 1) == 0
                 : strcmp (runs[i].label, argv[a]) == 0;
      if (!wanted)
        continue;
      secs = run_engine (runs[i].spec, ev, n, &r, &cpu);
      rate = (double) n / secs / 1e6;
      misses = report_count (r, "tc_misses");
      if (i == 0 && misses != naive_misses)
        {
          note = "  MISMATCH with the naive LRU";
          failed = 1;
        }
      if (g_str_has_prefix (runs[i].label, "lru curve")
          && report_count (r, "tc_misses_w64") != naive_misses)
        {
          note = "  MISMATCH: curve at W=64 differs from lru";
          failed = 1;
        }
      printf ("  %-24s %8.2f M accesses/s (cpu %6.2f)  %5.2fx naive  %5.2fx plain  misses %"
              G_GUINT64_FORMAT, runs[i].label, rate, (double) n / cpu / 1e6, rate / naive_rate,
              rate / plain_rate, misses);
      if (runs[i].target > 0)
        printf ("  (target %.0f M/s: %s)", runs[i].target, rate >= runs[i].target ? "met" : "below");
      printf ("%s\n", note);
      mdl_report_free (r);
    }
  g_free (ev);
  return failed;
}
