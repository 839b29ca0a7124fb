/* Force-included into a ThreadSanitizer build (-include tools/tsan-glib.h): GLib's GMutex and GCond
 * sit on futexes in an uninstrumented libglib, so TSan sees no order across them and reports every
 * handoff they guard as a race. These wrappers publish the lock's edges to TSan. Use:
 *   make B=/tmp/tsan CFLAGS="-O1 -g -fsanitize=thread -include tools/tsan-glib.h" \
 *     LDFLAGS=-fsanitize=thread /tmp/tsan/tests/test-pipeline-threads */
#include <glib.h>

void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

static inline void
tsan_mutex_lock (GMutex *m)
{
  g_mutex_lock (m);
  __tsan_acquire (m);
}

static inline void
tsan_mutex_unlock (GMutex *m)
{
  __tsan_release (m);
  g_mutex_unlock (m);
}

static inline void
tsan_cond_wait (GCond *c, GMutex *m)
{
  __tsan_release (m);
  g_cond_wait (c, m);
  __tsan_acquire (m);
}

#define g_mutex_lock tsan_mutex_lock
#define g_mutex_unlock tsan_mutex_unlock
#define g_cond_wait tsan_cond_wait
