/* gpu-kernels: runs the CUDA twins of the GPU algorithms (the rows of src/algos/gpu-algos.h whose
 * TWIN is cuda; each twin in its own file of this folder), checks every result against a CPU
 * reference on fresh random inputs, and times them.
 *
 *   gpu-kernels [--mode check|time|profile] [--seed S] [--reps N] [--csv FILE] [--n N,N...]
 *               [CASE...]
 *   gpu-kernels --list       the default cases (every row's CASES grid), one per line
 *
 * --n runs every case (given or default) at each size listed (decimal, or 2^K), in that order.
 *
 * A CASE is written like an algorithm spec, `NAME:n=N,key=value,...` (the same string names the
 * SIMT twin in `models run`); without n it takes the row's DEFAULT_N. Every mode launches each
 * case once and checks its output (output buffers are poisoned first, so an element that was not
 * written is caught); `time` then runs 3 warm-up launches and --reps timed ones (CUDA events
 * around each; a CPU baseline: 0 warm-ups and the steady clock around each) and reports the
 * median, the fastest and the slowest (min_us, max_us); `profile`
 * stops after the checked launch, so that under ncu the launches of case k follow those of case
 * k-1, and leaves the baselines out. The CSV has one row per case: `launch` is the number of its
 * first kernel launch in the process (Nsight Compute's ID) and `launches` how many it made (in
 * time mode too: the numbers a profile run gives). Exit status: 0 all checks passed,
 * 1 a check failed, 2 bad usage or no CUDA device. No GLib here: the GPU machine has none. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <thread>

#include "../../core/splitmix.h"
#include "twin.h"

/* ---- the table: one family per row with a CUDA twin ---- */

struct Family {
  const char *name;
  const CudaTwin *twin;
  long default_n;
  const char *cases;   /* the row's default grid */
};

#define FAMILY_cuda(sym, name, n, cases) { name, &cuda_twin_##sym, (long) (n), cases },
#define FAMILY_none(sym, name, n, cases)
#define FAMILY(sym, name, params, twin, n, block, checked, cases, summary)                          \
  FAMILY_##twin (sym, name, n, cases)
#define BASELINE(sym, name, n, cases, summary) FAMILY_cuda (sym, name, n, cases)
static const Family families[] = { MDL_GPU_ALGOS (FAMILY) MDL_GPU_BASELINES (BASELINE) };

/* ---- cases ---- */

long
Case::num (const char *key, long fallback) const
{
  auto it = params.find (key);
  return it == params.end () ? fallback : strtol (it->second.c_str (), NULL, 0);
}

std::string
Case::text (const char *key, const char *fallback) const
{
  auto it = params.find (key);
  return it == params.end () ? fallback : it->second;
}

/* The pieces of @s between separators @sep. */
static std::vector<std::string>
split (const std::string &s, char sep)
{
  std::vector<std::string> parts;
  for (size_t p = 0;;)
    {
      size_t q = s.find (sep, p);
      parts.push_back (s.substr (p, q - p));
      if (q == std::string::npos)
        return parts;
      p = q + 1;
    }
}

/* TRUE when @key is one that the grid @cases of a family sets. */
static bool
grid_has_key (const char *cases, const std::string &key)
{
  for (const auto &grid : split (cases, ';'))
    for (const auto &kv : split (grid, ','))
      if (kv.substr (0, kv.find ('=')) == key)
        return true;
  return false;
}

static bool
fail_parse (const std::string &spec, const std::string &why)
{
  fprintf (stderr, "gpu-kernels: case \"%s\": %s\n", spec.c_str (), why.c_str ());
  return false;
}

static bool
parse_case (const std::string &spec, Case *c)
{
  size_t colon = spec.find (':');
  std::string name = spec.substr (0, colon), why;
  const Family *family = nullptr;
  for (const auto &f : families)
    if (name == f.name)
      family = &f;
  if (family == nullptr)
    return fail_parse (spec, "no CUDA twin of that name (gpu-kernels --list shows the cases)");
  c->spec = spec;
  c->twin = family->twin;
  c->n = family->default_n;
  if (colon != std::string::npos && colon + 1 < spec.size ())
    for (const auto &kv : split (spec.substr (colon + 1), ','))
      {
        size_t eq = kv.find ('=');
        if (eq == std::string::npos)
          return fail_parse (spec, "expected key=value, got \"" + kv + "\"");
        std::string key = kv.substr (0, eq), value = kv.substr (eq + 1);
        if (key == "n")
          c->n = strtol (value.c_str (), NULL, 0);
        else if (grid_has_key (family->cases, key))
          c->params[key] = value;
        else
          return fail_parse (spec, "unknown key \"" + key + "\"");
      }
  if (!c->twin->validate (*c, &why))
    return fail_parse (spec, why);
  return true;
}

/* Appends to @out every case of one grid "k1=a|b,k2=c|d" of @name, the last key varying fastest. */
static void
expand_grid (const std::string &name, const std::vector<std::string> &keys, size_t k,
             const std::string &prefix, std::vector<std::string> &out)
{
  if (k == keys.size ())
    {
      out.push_back (name + (prefix.empty () ? "" : ":" + prefix));
      return;
    }
  size_t eq = keys[k].find ('=');
  for (const auto &v : split (keys[k].substr (eq + 1), '|'))
    expand_grid (name, keys, k + 1,
                 prefix + (prefix.empty () ? "" : ",") + keys[k].substr (0, eq + 1) + v, out);
}

static std::vector<std::string>
default_cases ()
{
  std::vector<std::string> all;
  for (const auto &f : families)
    for (const auto &grid : split (f.cases, ';'))
      expand_grid (f.name, grid.empty () ? std::vector<std::string> () : split (grid, ','), 0, "",
                   all);
  return all;
}

/* ---- shared helpers of the twins (twin.h) ---- */

/* Runs @body (from, to) over [0, @n) in up to 16 host threads, or in this one when @n is small. */
template <typename Body>
static void
parallel_ranges (size_t n, Body body)
{
  unsigned n_threads = std::max (1u, std::min (16u, std::thread::hardware_concurrency ()));
  size_t per = n > (1u << 16) ? (n + n_threads - 1) / n_threads : n;
  std::vector<std::thread> threads;
  for (size_t from = per; from < n; from += per)
    threads.emplace_back (body, from, std::min (n, from + per));
  body (0, std::min (n, per));
  for (auto &t : threads)
    t.join ();
}

/* Drawn by the host's cores in parallel (2^27 words is half a second on one): number k of the
 * buffer is the state's k-th next number, wherever it is computed. */
void
mdl_cuda_fill_random (std::vector<unsigned char> &buf, uint64_t *state)
{
  size_t words = (buf.size () + 7) / 8;
  uint64_t base = *state;
  parallel_ranges (words, [&] (size_t from, size_t to) {
    for (size_t k = from; k < to; k++)
      {
        uint64_t r = mdl_splitmix64_mix (base + (k + 1) * MDL_SPLITMIX64_GAMMA);
        memcpy (&buf[8 * k], &r, std::min ((size_t) 8, buf.size () - 8 * k));
      }
  });
  *state = base + words * MDL_SPLITMIX64_GAMMA;
}

bool
mdl_cuda_dist_ok (const Case &c, std::string *why)
{
  return mdl_cuda_choice_ok (c, "dist", "uniform", MDL_KEY_DIST_CHOICES, why)
         && mdl_cuda_choice_ok (c, "keys", "u32", "u32|f32", why);
}

void
mdl_cuda_fill_keys (const Case &c, std::vector<unsigned char> &buf, uint64_t *state)
{
  MdlKeyDist dist = (MdlKeyDist) mdl_keys_dist_index (c.text ("dist", "uniform").c_str ());
  uint64_t seed = mdl_splitmix64 (state), n = (uint64_t) c.n;
  uint32_t *keys;
  buf.resize (4 * n);
  keys = (uint32_t *) buf.data ();
  parallel_ranges (n, [&] (size_t from, size_t to) {
    for (size_t k = from; k < to; k++)
      keys[k] = mdl_keys_draw (dist, seed, n, k);
  });
  if (!mdl_keys_arrange (keys, n, dist))
    {
      fprintf (stderr, "gpu-kernels: %s: out of host memory\n", c.spec.c_str ());
      exit (2);
    }
  if (mdl_cuda_float_keys (c))
    parallel_ranges (n, [&] (size_t from, size_t to) {
      for (size_t k = from; k < to; k++)
        keys[k] = mdl_keys_f32_bits (dist, keys[k]);
    });
}

/* The check of a sort, floats by value (@numeric) or bit for bit. */
static long
check_sort (const Case &c, const Buffers &b, bool numeric)
{
  uint64_t first = 0, n = b.in.size () / 4;
  const uint32_t *in = (const uint32_t *) b.in.data (), *out = (const uint32_t *) b.out.data ();
  uint64_t bad = mdl_cuda_float_keys (c) ? mdl_keys_check_f32 (in, out, n, numeric, &first)
                                         : mdl_keys_check (in, out, n, &first);
  if (bad == UINT64_MAX)
    {
      fprintf (stderr, "gpu-kernels: %s: out of host memory\n", c.spec.c_str ());
      exit (2);
    }
  if (bad)
    fprintf (stderr, "gpu-kernels: %s: %llu of %llu keys out of place, the first at %llu (0x%08x)\n",
             c.spec.c_str (), (unsigned long long) bad, (unsigned long long) n,
             (unsigned long long) first, mdl_cuda_word (b.out, first));
  return (long) bad;
}

long
mdl_cuda_check_sort (const Case &c, const Buffers &b)
{
  return check_sort (c, b, true);
}

long
mdl_cuda_check_sort_total (const Case &c, const Buffers &b)
{
  return check_sort (c, b, false);
}

unsigned
mdl_cuda_word (const std::vector<unsigned char> &v, size_t i)
{
  unsigned x;
  memcpy (&x, &v[4 * i], 4);
  return x;
}

long
mdl_cuda_count_diff (const std::vector<unsigned char> &want, const std::vector<unsigned char> &got)
{
  long bad = 0;
  for (size_t i = 0; i < want.size (); i++)
    bad += want[i] != got[i];
  return bad;
}

bool
mdl_cuda_refuse (std::string *why, const std::string &text)
{
  *why = text;
  return false;
}

bool
mdl_cuda_choice_ok (const Case &c, const char *key, const char *fallback,
                    const std::string &choices, std::string *why)
{
  std::string v = "|" + c.text (key, fallback) + "|";
  if (("|" + choices + "|").find (v) != std::string::npos)
    return true;
  return mdl_cuda_refuse (why, std::string (key) + " must be one of " + choices);
}

/* ---- running a case ---- */

static void
upload (const std::vector<unsigned char> &h, unsigned char **d)
{
  if (h.empty ())
    return;
  CUDA_OK (cudaMalloc (d, h.size ()));
  CUDA_OK (cudaMemcpy (*d, h.data (), h.size (), cudaMemcpyHostToDevice));
}

static void
download (std::vector<unsigned char> &h, const unsigned char *d)
{
  if (!h.empty ())
    CUDA_OK (cudaMemcpy (h.data (), d, h.size (), cudaMemcpyDeviceToHost));
}

struct Result {
  long mismatches;
  int launches;
  double median_us;
  int reps;
  double min_us, max_us;   /* the spread of the timed launches */
};

static int
launch_checked (const Case &c, Buffers &b)
{
  int launches = c.twin->launch (c, b);
  CUDA_OK (cudaGetLastError ());
  return launches;
}

/* Times @reps runs of host case @c (a CPU baseline), the steady clock around each, the output
 * restored before each outside the clock; no warm-up beyond the checked run, which has just
 * touched the same memory (a CPU sort of 2^24 keys takes a second). */
static void
time_host (const Case &c, Buffers &b, int reps, std::vector<float> &ms)
{
  for (int k = 0; k < reps; k++)
    {
      if (c.twin->reset)
        c.twin->reset (c, b);
      auto t0 = std::chrono::steady_clock::now ();
      c.twin->launch (c, b);
      auto t1 = std::chrono::steady_clock::now ();
      ms.push_back (std::chrono::duration<float, std::milli> (t1 - t0).count ());
    }
}

/* Times @reps launches of @c, CUDA events around each, after 3 warm-ups (host cases:
 * time_host): their median, fastest and slowest go into @r. */
static void
time_launches (const Case &c, Buffers &b, int reps, Result *r)
{
  cudaEvent_t start, stop;
  std::vector<float> ms;
  if (c.twin->host)
    {
      time_host (c, b, reps, ms);
      std::sort (ms.begin (), ms.end ());
      r->median_us = 1000.0 * ms[ms.size () / 2];
      r->min_us = 1000.0 * ms.front ();
      r->max_us = 1000.0 * ms.back ();
      r->reps = reps;
      return;
    }
  CUDA_OK (cudaEventCreate (&start));
  CUDA_OK (cudaEventCreate (&stop));
  for (int k = 0; k < 3; k++)
    {
      if (c.twin->reset)
        c.twin->reset (c, b);
      launch_checked (c, b);
    }
  for (int k = 0; k < reps; k++)
    {
      float t;
      if (c.twin->reset)
        c.twin->reset (c, b);
      CUDA_OK (cudaEventRecord (start));
      launch_checked (c, b);
      CUDA_OK (cudaEventRecord (stop));
      CUDA_OK (cudaEventSynchronize (stop));
      CUDA_OK (cudaEventElapsedTime (&t, start, stop));
      ms.push_back (t);
    }
  std::sort (ms.begin (), ms.end ());
  CUDA_OK (cudaEventDestroy (start));
  CUDA_OK (cudaEventDestroy (stop));
  r->median_us = 1000.0 * ms[ms.size () / 2];
  r->min_us = 1000.0 * ms.front ();
  r->max_us = 1000.0 * ms.back ();
  r->reps = reps;
}

static Result
run_case (const Case &c, const std::string &mode, int reps, uint64_t *rng)
{
  Buffers b;
  Result r = { 0, 0, 0.0, 0, 0.0, 0.0 };
  c.twin->prepare (c, b, rng);
  b.out_initial = b.out;
  b.out2_initial = b.out2;
  if (!c.twin->host)
    {
      upload (b.in, &b.d_in);
      upload (b.in2, &b.d_in2);
      upload (b.out, &b.d_out);
      upload (b.out2, &b.d_out2);
    }
  if (c.twin->reset)
    c.twin->reset (c, b);
  r.launches = launch_checked (c, b);
  CUDA_OK (cudaDeviceSynchronize ());
  if (!c.twin->host)
    {
      download (b.out, b.d_out);
      download (b.out2, b.d_out2);
    }
  r.mismatches = c.twin->check (c, b);
  if (mode == "time")
    time_launches (c, b, reps, &r);
  for (unsigned char *d : { b.d_in, b.d_in2, b.d_out, b.d_out2 })
    if (d)
      CUDA_OK (cudaFree (d));
  return r;
}

static int
usage (const char *why)
{
  fprintf (stderr, "gpu-kernels: %s\nusage: gpu-kernels [--mode check|time|profile] [--seed S] "
           "[--reps N] [--csv FILE] [--n N,N...] [--list] [CASE...]\n", why);
  return 2;
}

/* A size of --n: decimal (or 0x hex), or 2^K, optionally + or - a decimal ("2^24+7"). */
static long
parse_size (const std::string &text)
{
  size_t caret = text.find ("^");
  if (caret == std::string::npos)
    return strtol (text.c_str (), NULL, 0);
  char *end;
  long k = strtol (text.c_str () + caret + 1, &end, 10);
  long v = text.compare (0, caret, "2") == 0 && k >= 0 && k < 63 ? 1L << k : -1;
  return *end ? v + strtol (end, NULL, 10) : v;
}

/* @spec at size @n: its own n replaced or added. */
static std::string
with_n (const std::string &spec, long n)
{
  size_t colon = spec.find (':');
  std::string name = spec.substr (0, colon), rest;
  if (colon != std::string::npos)
    for (const auto &kv : split (spec.substr (colon + 1), ','))
      if (kv.compare (0, 2, "n=") != 0)
        rest += "," + kv;
  return name + ":n=" + std::to_string (n) + rest;
}

int
main (int argc, char **argv)
{
  std::string mode = "time", csv_path;
  uint64_t seed = (uint64_t) time (NULL) ^ ((uint64_t) clock () << 32);
  int reps = 21;
  std::vector<std::string> specs;
  std::vector<long> sizes;
  for (int i = 1; i < argc; i++)
    {
      std::string a = argv[i];
      if (a == "--list")
        {
          for (const auto &s : default_cases ())
            printf ("%s\n", s.c_str ());
          return 0;
        }
      if ((a == "--mode" || a == "--seed" || a == "--reps" || a == "--csv" || a == "--n")
          && i + 1 >= argc)
        return usage ((a + " needs a value").c_str ());
      if (a == "--mode")
        mode = argv[++i];
      else if (a == "--seed")
        seed = strtoull (argv[++i], NULL, 0);
      else if (a == "--reps")
        reps = atoi (argv[++i]);
      else if (a == "--csv")
        csv_path = argv[++i];
      else if (a == "--n")
        for (const auto &t : split (argv[++i], ','))
          {
            sizes.push_back (parse_size (t));
            if (sizes.back () <= 0)
              return usage (("--n: bad size \"" + t + "\"").c_str ());
          }
      else if (a.compare (0, 2, "--") == 0)
        return usage (("unknown option " + a).c_str ());
      else
        specs.push_back (a);
    }
  if (mode != "check" && mode != "time" && mode != "profile")
    return usage ("--mode must be check, time or profile");
  if (reps < 1 || reps > 10000)
    return usage ("--reps must be 1..10000");
  if (specs.empty ())
    specs = default_cases ();
  if (!sizes.empty ())
    {
      std::vector<std::string> sized;
      for (const auto &spec : specs)
        for (long n : sizes)
          sized.push_back (with_n (spec, n));
      specs = sized;
    }

  std::vector<Case> cases (specs.size ());
  for (size_t i = 0; i < specs.size (); i++)
    if (!parse_case (specs[i], &cases[i]))
      return 2;

  int n_devices = 0;
  if (cudaGetDeviceCount (&n_devices) != cudaSuccess || n_devices == 0)
    {
      fprintf (stderr, "gpu-kernels: no CUDA device found\n");
      return 2;
    }
  cudaDeviceProp prop;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));

  FILE *csv = NULL;
  if (!csv_path.empty () && !(csv = fopen (csv_path.c_str (), "w")))
    {
      fprintf (stderr, "gpu-kernels: cannot create %s\n", csv_path.c_str ());
      return 2;
    }
  if (csv)
    fprintf (csv, "launch,case,kernel,device,mode,seed,mismatches,median_us,reps,launches,min_us,"
             "max_us\n");
  printf ("# %s (sm_%d%d), mode %s, seed %llu\n", prop.name, prop.major, prop.minor, mode.c_str (),
          (unsigned long long) seed);
  uint64_t rng = seed;
  int failed = 0;
  long first_launch = 0;
  for (size_t i = 0; i < cases.size (); i++)
    {
      Result r;
      /* Under Nsight Compute a baseline (CUB, the device copy) is left out: the library launches
       * kernels of its own, whose number the launch IDs of the later cases would depend on. */
      if (mode == "profile" && cases[i].spec.compare (0, 9, "baseline/") == 0)
        continue;
      r = run_case (cases[i], mode, reps, &rng);
      failed += r.mismatches != 0;
      printf ("%-4zu %-90s %-6s %10.2f us\n", i, cases[i].spec.c_str (),
              r.mismatches ? "FAIL" : "ok", r.median_us);
      if (csv)
        {
          fprintf (csv, "%ld,\"%s\",%s,\"%s\",%s,%llu,%ld,%.3f,%d,%d,%.3f,%.3f\n", first_launch,
                   cases[i].spec.c_str (), cases[i].twin->kernel (cases[i]).c_str (), prop.name,
                   mode.c_str (), (unsigned long long) seed, r.mismatches, r.median_us, r.reps,
                   r.launches, r.min_us, r.max_us);
          /* A run cut by a time budget keeps every case it finished, each row whole. */
          fflush (csv);
        }
      first_launch += r.launches;
    }
  if (csv)
    fclose (csv);
  printf ("# %zu cases, %d failed checks\n", cases.size (), failed);
  return failed ? 1 : 0;
}
