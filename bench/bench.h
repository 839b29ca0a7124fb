/* Shared by the benchmarks: a monotonic clock, and where temporary files go.
 *
 * Files go to /dev/shm when it has room (else $TMPDIR; BENCH_DIR overrides both): memory-backed
 * files are the page cache without disk writeback, whose throttling would otherwise swamp write
 * rates and make them depend on the disk rather than on the code measured. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <glib.h>
#include <models/models.h>
#include <sys/statvfs.h>
#include <time.h>

/* Appends the warp events of @b to @events (MdlWarpEvent), copying the lane addresses of each
 * explicit memory instruction to @addrs (guint64) and pointing its first_addr there: a stream
 * recorded once and replayed through engines. */
static inline void
bench_keep_warps (GArray *events, GArray *addrs, const MdlEventBatch *b)
{
  for (gsize i = 0; i < b->n_warp; i++)
    {
      MdlWarpEvent e = b->warp[i];
      if (mdl_warp_is_memory (&e) && !(e.flags & MDL_WARP_STRIDED))
        {
          e.first_addr = addrs->len;
          g_array_append_vals (addrs, b->lane_addrs + b->warp[i].first_addr,
                               (guint) __builtin_popcountll (e.active));
        }
      g_array_append_val (events, e);
    }
}

static inline double
bench_now (void)
{
  return (double) g_get_monotonic_time () / 1e6;
}

/* CPU time of the calling thread, in seconds: on a machine shared with other work it moves far
 * less than the wall clock (no waiting for a core), so variants compare on it. */
static inline double
bench_cpu_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* A fresh temporary directory with room for @bytes (transfer full); remove it when done. */
static inline char *
bench_make_dir (const char *name, guint64 bytes)
{
  const char *dir = g_getenv ("BENCH_DIR");
  struct statvfs st;
  g_autofree char *tmpl = NULL;
  char *made;
  if (dir == NULL && statvfs ("/dev/shm", &st) == 0 && (guint64) st.f_bavail * st.f_frsize > bytes)
    dir = "/dev/shm";
  if (dir == NULL)
    dir = g_get_tmp_dir ();
  tmpl = g_strdup_printf ("%s/%s-XXXXXX", dir, name);
  made = g_mkdtemp (tmpl);
  if (made == NULL)
    g_error ("%s: cannot create a directory in %s", name, dir);
  return g_steal_pointer (&tmpl);
}

#endif
