/* Private to src/experiments: what the experiments need to know about the machine they run on:
 * cache sizes (sysfs), transparent huge pages (sysfs and a probe of /proc/self/smaps_rollup), the
 * processor's name, whether it runs under a hypervisor, and the load. Linux files; elsewhere every
 * answer is "unknown" (0 or NULL), never an error. */
#ifndef MDL_EXPERIMENTS_HOST_H
#define MDL_EXPERIMENTS_HOST_H

#include <glib.h>

/* The size in bytes of the level-@level data or unified cache of CPU 0 (1..3), 0 if unknown. */
guint64 mdl_host_cache_bytes (guint level);

/* The transparent huge page mode, "always", "madvise" or "never", or NULL when the kernel has
 * none. (transfer full) */
char *mdl_host_thp_mode (void);

/* Allocates @bytes 2 MiB-aligned, asks for huge pages with madvise, touches them and returns how
 * many of them the kernel backed with huge pages (AnonHugePages growth in smaps_rollup); -1 when
 * that cannot be read. */
gint64 mdl_host_thp_probe (guint64 bytes);

/* "model name" of /proc/cpuinfo, or "unknown". (transfer full) */
char *mdl_host_cpu_model (void);

/* TRUE when /proc/cpuinfo lists the hypervisor flag (a virtual machine). */
gboolean mdl_host_is_vm (void);

/* The 1-minute load average, or -1. */
double mdl_host_load (void);

/* The calling thread pinned to one CPU, and the set of CPUs it may run on again after. */
typedef struct MdlHostPin MdlHostPin;

/* Pins the calling thread to the CPU it runs on now: a timed run then never migrates, which
 * would leave its warm caches and TLB behind on the CPU it left. NULL when the thread cannot be
 * pinned (not Linux, or refused). Threads the pinned one starts inherit the pin: release it
 * before starting any. (transfer full) */
MdlHostPin *mdl_host_pin_here (void);

/* The CPU @pin holds the thread on. */
int mdl_host_pin_cpu (const MdlHostPin *pin);

/* Lets the thread run on every CPU it could before, and frees @pin; NULL is fine. */
void mdl_host_pin_release (MdlHostPin *pin);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlHostPin, mdl_host_pin_release)

#endif
