/* Benchmark: the hardware memory engines (targets: a set-associative LRU data cache at >= 100 M
 * references/s from memory and >= 40 M/s replaying a binary trace file; the two-level TLB at
 * >= 50 M translations/s on random addresses; one core).
 *
 * The cache workload is a real program: a merge sort of 64 Ki random 32-bit keys (compiled here
 * with cc), traced once under Valgrind Lackey into memory and into a binary trace file. On that
 * trace: `cache:size=32k,assoc=8,line=64` (LRU) from memory, the same from the file through the
 * reader, a naive baseline (per-set linked lists, move to front on a hit) and a plain pass that
 * only sums the records' addresses, asking for them ahead as the engine does (the floor from
 * memory); then Cachegrind
 * simulating the same program with the same D1 (plus its I1 and LL, which it always simulates),
 * timed as a whole and net of `valgrind --tool=none`, the cost of running under Valgrind at all.
 * The TLB workloads are 16 M 8-byte reads at uniform random addresses in 1 GiB (a random scan of
 * a large array) and in 64 GiB (every level misses), through `tlb:machine=x86-64` (4 KiB pages:
 * L1 DTLB, STLB, paging-structure caches) and a naive move-to-front model of the same
 * structures. Rates are by the thread's CPU time, which a shared machine moves far less than the
 * wall clock (Cachegrind's by the wall clock: it is a child process), best of REPS runs. Without
 * cc or valgrind the cache part runs on a synthetic trace and says so. Files go where bench/bench.h says. `bench-cache tlb` runs only the
 * TLB workloads; `bench-cache TRACE.bin` runs the cache part alone on a binary trace saved before
 * (`models trace --save`), without Lackey's minutes per run or Cachegrind, for comparing builds;
 * `bench-cache synthetic` runs it alone on the synthetic trace, which is what a host without cc or
 * valgrind measures. */
#include <models/models.h>

#include "bench.h"

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <gio/gunixinputstream.h>
#include <glib-unix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPS 5
#define BATCH 4096
#define TLB_ADDRS ((gsize) 16 << 20)
#define SORT_KEYS "65536"

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "bench-cache: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static gboolean
keep_batch (void *data, const MdlEventBatch *b, GError **error)
{
  (void) error;
  g_array_append_vals (data, b->cpu, (guint) b->n_cpu);
  return TRUE;
}

static gboolean
drop_marker (void *data, const MdlMarker *m, GError **error)
{
  (void) data, (void) m, (void) error;
  return TRUE;
}

/* Runs argv with stdout and stderr silenced; returns the wall seconds, or -1 when it failed. */
static double
run_timed (const char *const *argv)
{
  GError *error = NULL;
  double t0 = bench_now ();
  GSubprocess *p = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                              | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
  double t;
  if (p == NULL || !g_subprocess_wait (p, NULL, &error))
    {
      g_clear_error (&error);
      g_clear_object (&p);
      return -1;
    }
  t = bench_now () - t0;
  g_object_unref (p);
  return t;
}

/* Traces @prog under Lackey into @out (CPU records, data and op counts); FALSE without valgrind. */
static gboolean
lackey_trace (const char *prog, GArray *out)
{
  const char *argv[] = { "valgrind", "--tool=lackey", "--trace-mem=yes", "--log-fd=3", prog,
                         SORT_KEYS, NULL };
  g_autoptr (GSubprocessLauncher) l = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr (GSubprocess) p = NULL;
  g_autoptr (GInputStream) in = NULL;
  g_autoptr (MdlTraceReader) r = NULL;
  GError *error = NULL;
  MdlSink sink = { keep_batch, drop_marker, out };
  gboolean done = FALSE;
  int fds[2];

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, &error))
    die ("pipe", error);
  g_subprocess_launcher_take_fd (l, fds[1], 3);
  p = g_subprocess_launcher_spawnv (l, argv, &error);
  g_clear_object (&l);
  if (p == NULL)
    {
      g_clear_error (&error);
      close (fds[0]);
      return FALSE;
    }
  in = g_unix_input_stream_new (fds[0], TRUE);
  if (!(r = mdl_trace_reader_new (in, "lackey", MDL_TRACE_LACKEY, &error)))
    die ("lackey", error);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      die ("lackey", error);
  g_subprocess_wait (p, NULL, NULL);
  return out->len > 0;
}

/* Reads the binary trace @path into @out. */
static void
saved_trace (const char *path, GArray *out)
{
  MdlSink sink = { keep_batch, drop_marker, out };
  GError *error = NULL;
  MdlTraceReader *r = mdl_trace_reader_open (path, MDL_TRACE_BIN, &error);
  gboolean done = FALSE;
  if (r == NULL)
    die (path, error);
  while (!done)
    if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
      die (path, error);
  mdl_trace_reader_free (r);
}

/* A synthetic stand-in: 4 M reads and writes, half sequential, half random in 1 MiB. */
static void
synthetic_trace (GArray *out)
{
  GRand *rand = g_rand_new_with_seed (1);
  for (guint i = 0; i < (4u << 20); i++)
    {
      MdlCpuEvent e = { .kind = i % 3 == 0 ? MDL_CPU_WRITE : MDL_CPU_READ, .size = 4 };
      e.addr = i % 2 ? 0x10000000u + 4u * (i / 2 % (1u << 18))
                     : 0x20000000u + (guint64) g_rand_int_range (rand, 0, 1 << 20);
      g_array_append_val (out, e);
    }
  g_rand_free (rand);
}

static guint64
data_records (const GArray *a)
{
  guint64 n = 0;
  for (guint i = 0; i < a->len; i++)
    n += mdl_cpu_is_access (g_array_index (a, MdlCpuEvent, i).kind);
  return n;
}

static guint64
count_of (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  return mdl_report_lookup (r, name)->count;
}

/* Seconds to run @spec over @a from memory, best of REPS; *@misses gets its misses. */
static double
engine_memory (const char *spec, const GArray *a, const char *counter, guint64 *misses)
{
  double best = G_MAXDOUBLE;
  for (int rep = 0; rep < REPS; rep++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (spec, &error);
      double t0;
      if (e == NULL)
        die (spec, error);
      t0 = bench_cpu_now ();
      for (guint i = 0; i < a->len; i += BATCH)
        {
          MdlEventBatch b = { .cpu = &g_array_index (a, MdlCpuEvent, i),
                              .n_cpu = MIN (BATCH, a->len - i) };
          if (!mdl_engine_consume (e, &b, &error))
            die (spec, error);
        }
      best = MIN (best, bench_cpu_now () - t0);
      *misses = count_of (e, counter);
      mdl_engine_free (e);
    }
  return best;
}

static gboolean
engine_batch (void *data, const MdlEventBatch *b, GError **error)
{
  return mdl_engine_consume (data, b, error);
}

/* Seconds to replay the trace file @path into @spec, best of REPS. */
static double
engine_file (const char *spec, const char *path, guint64 *misses)
{
  double best = G_MAXDOUBLE;
  for (int rep = 0; rep < REPS; rep++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (spec, &error);
      MdlSink sink = { engine_batch, drop_marker, e };
      MdlTraceReader *r;
      gboolean done = FALSE;
      double t0 = bench_cpu_now ();
      if (!(r = mdl_trace_reader_open (path, MDL_TRACE_AUTO, &error)))
        die (path, error);
      while (!done)
        if (!mdl_trace_reader_pump (r, &sink, 0, &done, &error))
          die (path, error);
      best = MIN (best, bench_cpu_now () - t0);
      *misses = count_of (e, "misses");
      mdl_trace_reader_free (r);
      mdl_engine_free (e);
    }
  return best;
}

/* Seconds for a plain pass over @a that reads every record and sums the data accesses'
 * addresses, best of REPS: what merely streaming the trace costs, the floor under any engine
 * from memory (the sum is printed so that the pass cannot be optimised away). */
static double
plain_pass (const GArray *a, guint64 *sum)
{
  double best = G_MAXDOUBLE;
  for (int rep = 0; rep < REPS; rep++)
    {
      const MdlCpuEvent *e = (const MdlCpuEvent *) (const void *) a->data, *end = e + a->len;
      guint64 s = 0;
      double t0 = bench_cpu_now ();
      for (; e < end; e++)
        {
          /* As far ahead as the engine asks for the records (cache.c, RECORD_PREFETCH_BYTES). */
          __builtin_prefetch ((const char *) e + 8192);
          s += mdl_cpu_is_access (e->kind) ? e->addr : 0;
        }
      best = MIN (best, bench_cpu_now () - t0);
      *sum = s;
    }
  return best;
}

/* ---- naive baselines: move-to-front lists of separately allocated nodes ---- */

typedef struct Node {
  struct Node *next;
  guint64 tag;
} Node;

typedef struct {
  Node **head;      /* [n_sets] */
  guint64 n_sets;
  guint assoc;
} Mtf;

static void
mtf_init (Mtf *m, guint64 n_sets, guint assoc)
{
  m->n_sets = n_sets;
  m->assoc = assoc;
  m->head = g_new0 (Node *, n_sets);
  for (guint64 s = 0; s < n_sets; s++)
    for (guint w = 0; w < assoc; w++)
      {
        Node *n = g_new (Node, 1);
        n->tag = G_MAXUINT64;
        n->next = m->head[s];
        m->head[s] = n;
      }
}

static void
mtf_free (Mtf *m)
{
  for (guint64 s = 0; s < m->n_sets; s++)
    for (Node *n = m->head[s], *next; n; n = next)
      {
        next = n->next;
        g_free (n);
      }
  g_free (m->head);
}

/* TRUE on a hit; a miss replaces the last node's tag and moves it to the front. */
static gboolean
mtf_ref (Mtf *m, guint64 tag)
{
  Node **link = &m->head[tag % m->n_sets];
  Node *prev = NULL, *n = *link;
  while (n->tag != tag && n->next)
    {
      prev = n;
      n = n->next;
    }
  if (prev)
    {
      prev->next = n->next;
      n->next = *link;
      *link = n;
    }
  if (n->tag == tag)
    return TRUE;
  n->tag = tag;
  return FALSE;
}

static double
mtf_cache (const GArray *a, guint64 *misses)
{
  double best = G_MAXDOUBLE;
  for (int rep = 0; rep < REPS; rep++)
    {
      Mtf m;
      double t0;
      guint64 miss = 0;
      mtf_init (&m, 64, 8);
      t0 = bench_cpu_now ();
      for (guint i = 0; i < a->len; i++)
        {
          const MdlCpuEvent *e = &g_array_index (a, MdlCpuEvent, i);
          if (!mdl_cpu_is_access (e->kind))
            continue;
          for (guint64 l = e->addr >> 6; l <= (e->addr + e->size - 1) >> 6; l++)
            {
              miss += !mtf_ref (&m, l);
              if (e->kind == MDL_CPU_MODIFY)
                mtf_ref (&m, l);
            }
        }
      best = MIN (best, bench_cpu_now () - t0);
      *misses = miss;
      mtf_free (&m);
    }
  return best;
}

/* The TLB of tlb:machine=x86-64 for 4 KiB pages, as move-to-front lists. */
static double
mtf_tlb (const guint64 *addrs, gsize n, guint64 *walk_refs)
{
  double best = G_MAXDOUBLE;
  for (int rep = 0; rep < REPS; rep++)
    {
      Mtf l1, l2, pde, pdpte, pml4e;
      guint64 refs = 0;
      double t0;
      mtf_init (&l1, 16, 4);
      mtf_init (&l2, 128, 12);
      mtf_init (&pde, 1, 32);
      mtf_init (&pdpte, 1, 4);
      mtf_init (&pml4e, 1, 2);
      t0 = bench_cpu_now ();
      for (gsize i = 0; i < n; i++)
        {
          guint64 a = addrs[i], page = a >> 12;
          if (mtf_ref (&l1, page) || mtf_ref (&l2, page))
            continue;
          if (mtf_ref (&pde, a >> 21))
            refs += 1;
          else if (mtf_ref (&pdpte, a >> 30))
            refs += 2;
          else
            refs += mtf_ref (&pml4e, a >> 39) ? 3 : 4;
          /* (a miss above already placed each entry, as the engine's walk fills them) */
        }
      best = MIN (best, bench_cpu_now () - t0);
      *walk_refs = refs;
      mtf_free (&l1);
      mtf_free (&l2);
      mtf_free (&pde);
      mtf_free (&pdpte);
      mtf_free (&pml4e);
    }
  return best;
}

/* Parses "summary:" of a Cachegrind output file by its "events:" names. */
static gboolean
cachegrind_summary (const char *path, guint64 *ir, guint64 *dr, guint64 *dw, guint64 *d1)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL, names = NULL, values = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (g_str_has_prefix (*l, "events: "))
        names = g_strsplit_set (*l + 8, " ", -1);
      if (g_str_has_prefix (*l, "summary: "))
        values = g_strsplit_set (*l + 9, " ", -1);
    }
  if (names == NULL || values == NULL)
    return FALSE;
  *ir = *dr = *dw = *d1 = 0;
  for (guint i = 0; names[i] && values[i]; i++)
    {
      guint64 v = g_ascii_strtoull (values[i], NULL, 10);
      if (strcmp (names[i], "Ir") == 0)
        *ir = v;
      else if (strcmp (names[i], "Dr") == 0)
        *dr = v;
      else if (strcmp (names[i], "Dw") == 0)
        *dw = v;
      else if (strcmp (names[i], "D1mr") == 0 || strcmp (names[i], "D1mw") == 0)
        *d1 += v;
    }
  return TRUE;
}

static void
line (const char *what, double rate_m, const char *unit, const char *note)
{
  printf ("  %-44s %9.1f M %s/s  %s\n", what, rate_m, unit, note ? note : "");
}

/* The TLB on TLB_ADDRS 8-byte reads at uniform random addresses in 2^@log_range bytes. */
static void
tlb_workload (guint log_range)
{
  guint64 *addrs = g_new (guint64, TLB_ADDRS);
  GArray *ev = g_array_sized_new (FALSE, FALSE, sizeof (MdlCpuEvent), (guint) TLB_ADDRS);
  GRand *rand = g_rand_new_with_seed (2);
  guint64 walk_refs, mtf_refs;
  double t;
  for (gsize i = 0; i < TLB_ADDRS; i++)
    {
      MdlCpuEvent e = { .kind = MDL_CPU_READ, .size = 8 };
      addrs[i] = ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand))
                 & ((G_GUINT64_CONSTANT (1) << log_range) - 8);
      e.addr = addrs[i];
      g_array_append_val (ev, e);
    }
  printf ("tlb workload: %" G_GSIZE_FORMAT " M reads at random addresses in %u %s, "
          "tlb:machine=x86-64 (4 KiB pages)\n", TLB_ADDRS >> 20,
          1u << (log_range % 10), log_range >= 30 ? "GiB" : "MiB");
  t = engine_memory ("tlb:machine=x86-64", ev, "walk_refs", &walk_refs);
  line ("tlb engine, from memory", (double) TLB_ADDRS / t / 1e6, "translations", "target >= 50");
  t = mtf_tlb (addrs, TLB_ADDRS, &mtf_refs);
  line ("naive move-to-front lists", (double) TLB_ADDRS / t / 1e6, "translations", NULL);
  printf ("  (walk references: engine %" G_GUINT64_FORMAT ", naive %" G_GUINT64_FORMAT ")\n",
          walk_refs, mtf_refs);
  g_rand_free (rand);
  g_array_free (ev, TRUE);
  g_free (addrs);
}

int
main (int argc, char **argv)
{
  g_autofree char *dir = bench_make_dir ("bench-cache", 1u << 30);
  g_autofree char *bench_dir = g_path_get_dirname (__FILE__);
  g_autofree char *src = g_build_filename (bench_dir, "..", "tests", "data", "programs", "msort.c",
                                           NULL);
  g_autofree char *prog = g_build_filename (dir, "sort", NULL);
  g_autofree char *trace = g_build_filename (dir, "sort.bin", NULL);
  g_autofree char *cg_out = g_build_filename (dir, "cachegrind.out", NULL);
  GArray *a = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  const char *cc = g_getenv ("CC") ? g_getenv ("CC") : "cc";
  const char *cc_argv[] = { cc, "-O2", "-o", prog, src, NULL };
  const char *spec = "cache:size=32k,assoc=8,line=64";
  gboolean only_synthetic = argc == 2 && strcmp (argv[1], "synthetic") == 0;
  gboolean real, saved = argc == 2 && strcmp (argv[1], "tlb") != 0 && !only_synthetic;
  guint64 n_data, m_mem, m_file, m_mtf;
  double t;
  GError *error = NULL;

  if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
    {
      fprintf (stderr, "usage: bench-cache [tlb | synthetic | TRACE.bin]   (tlb: only the TLB "
               "workloads; synthetic, TRACE.bin: only the cache ones, on that trace)\n");
      return 2;
    }
  if (argc == 2 && !saved && !only_synthetic)
    {
      tlb_workload (30);
      tlb_workload (36);
      g_rmdir (dir);
      g_array_free (a, TRUE);
      return 0;
    }
  if (saved)
    saved_trace (argv[1], a);
  real = !saved && !only_synthetic && run_timed (cc_argv) >= 0 && lackey_trace (prog, a);
  if (only_synthetic)
    synthetic_trace (a);
  else if (!real && !saved)
    {
      printf ("bench-cache: cc or valgrind missing: synthetic trace instead of the merge sort, "
              "and no Cachegrind rate\n");
      g_array_set_size (a, 0);
      synthetic_trace (a);
    }
  n_data = data_records (a);
  {
    MdlTraceWriter *w = mdl_trace_writer_open (trace, MDL_TRACE_BIN, &error);
    MdlSink sink;
    MdlEventBatch b = { .cpu = (const MdlCpuEvent *) (void *) a->data, .n_cpu = a->len };
    if (w == NULL)
      die (trace, error);
    sink = mdl_trace_writer_sink (w);
    if (!sink.batch (sink.data, &b, &error) || !mdl_trace_writer_close (w, &error))
      die (trace, error);
    mdl_trace_writer_free (w);
  }
  printf ("cache workload: %s, %" G_GUINT64_FORMAT " data accesses (%u records with op "
          "counts), %s\n", saved ? argv[1] : real ? "merge sort of " SORT_KEYS " keys under Lackey"
                                                  : "synthetic",
          n_data, a->len, spec);

  t = engine_memory (spec, a, "misses", &m_mem);
  line ("cache engine, from memory", (double) n_data / t / 1e6, "refs", "target >= 100");
  t = engine_file (spec, trace, &m_file);
  line ("cache engine, replaying the binary trace", (double) n_data / t / 1e6, "refs",
        "target >= 40");
  t = mtf_cache (a, &m_mtf);
  line ("naive move-to-front lists, from memory", (double) n_data / t / 1e6, "refs", NULL);
  printf ("  (misses: engine %" G_GUINT64_FORMAT ", replay %" G_GUINT64_FORMAT ", naive %"
          G_GUINT64_FORMAT ")\n", m_mem, m_file, m_mtf);
  {
    guint64 sum;
    char note[64];
    t = plain_pass (a, &sum);
    g_snprintf (note, sizeof note, "(the floor from memory; sum %" G_GUINT64_FORMAT ")", sum % 1000);
    line ("plain pass over the records, from memory", (double) n_data / t / 1e6, "refs", note);
  }
  {
    g_autofree char *spec_c = g_strdup_printf ("%s,classify=1", spec);
    guint64 m;
    t = engine_memory (spec_c, a, "misses", &m);
    line ("cache engine with classify=1, from memory", (double) n_data / t / 1e6, "refs", NULL);
    t = engine_memory ("cache:levels=32k:8:64/1M:16:64", a, "l1_misses", &m);
    line ("cache engine, two levels, from memory", (double) n_data / t / 1e6, "refs", NULL);
  }

  if (real)
    {
      const char *cg_argv[] = { "valgrind", "--tool=cachegrind", "--cache-sim=yes",
                                "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64",
                                NULL, prog, SORT_KEYS, NULL };
      const char *none_argv[] = { "valgrind", "--tool=none", prog, SORT_KEYS, NULL };
      g_autofree char *out_opt = g_strdup_printf ("--cachegrind-out-file=%s", cg_out);
      double t_cg = G_MAXDOUBLE, t_none = G_MAXDOUBLE;
      guint64 ir, dr, dw, d1;
      cg_argv[6] = out_opt;
      for (int rep = 0; rep < 3; rep++)
        {
          t_cg = MIN (t_cg, run_timed (cg_argv));
          t_none = MIN (t_none, run_timed (none_argv));
        }
      if (t_cg > 0 && cachegrind_summary (cg_out, &ir, &dr, &dw, &d1))
        {
          char note[160];
          g_snprintf (note, sizeof note, "(%.1f M refs/s counting its %" G_GUINT64_FORMAT
                      " instruction fetches; D1 misses %" G_GUINT64_FORMAT ")",
                      (double) (ir + dr + dw) / t_cg / 1e6, ir, d1);
          line ("Cachegrind, whole run", (double) (dr + dw) / t_cg / 1e6, "refs", note);
          if (t_cg > t_none)
            {
              g_snprintf (note, sizeof note, "(%.2f s minus --tool=none's %.2f s; %.1f M/s with "
                          "fetches)", t_cg, t_none, (double) (ir + dr + dw) / (t_cg - t_none) / 1e6);
              line ("Cachegrind, net of running under Valgrind",
                    (double) (dr + dw) / (t_cg - t_none) / 1e6, "refs", note);
            }
        }
      else
        printf ("  Cachegrind: did not run\n");
    }

  if (!saved && !only_synthetic)
    {
      tlb_workload (30);
      tlb_workload (36);
    }

  g_unlink (prog);
  g_unlink (trace);
  g_unlink (cg_out);
  g_rmdir (dir);
  g_array_free (a, TRUE);
  return 0;
}
