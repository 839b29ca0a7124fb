/* Private to the library: the `host` machine preset, read from the running machine (host-machine.c).
 * Caches from sysfs, else from cpuid; TLBs from cpuid (AMD leaves 0x80000005/6, Intel leaf 0x18),
 * else the x86-64 preset's Skylake-class estimate; page sizes and the transparent huge page mode
 * from sysfs. Every value carries where it came from, so `models list machines` can say. The
 * decoders take register values and directories, so tests feed them fixtures. */
#ifndef MDL_CORE_HOST_MACHINE_H
#define MDL_CORE_HOST_MACHINE_H

#include <glib.h>

#define MDL_HOST_MAX_CACHES 8

/* One cache of CPU 0. */
typedef struct {
  guint level;                 /* 1.. */
  char type[16];               /* "Data", "Instruction", "Unified" */
  guint64 bytes;
  guint assoc;                 /* ways; 0: fully associative */
  guint line_bytes;
  char shared_cpus[64];        /* the CPUs sharing it, as sysfs lists them ("" when unknown) */
} MdlHostCache;

/* One TLB level for one page size. */
typedef struct {
  guint entries;               /* 0: unknown */
  guint assoc;                 /* ways; 0: fully associative */
} MdlHostTlb;

typedef struct {
  MdlHostCache caches[MDL_HOST_MAX_CACHES];
  guint n_caches;
  const char *cache_source;    /* "sysfs", "cpuid 0x80000005/6", "cpuid 4" or "unknown" */
  MdlHostTlb l1_dtlb, l1_dtlb_huge, l1_dtlb_giant, l2_tlb, l2_tlb_giant;
  const char *tlb_source;      /* "cpuid 0x80000005/6", "cpuid 0x18" or an estimate's name */
  guint64 page_bytes;
  guint64 huge_page_bytes;     /* 0: no transparent huge pages */
  char thp_mode[16];           /* "always", "madvise", "never" or "none" */
  char cpu_model[128];
} MdlHostMachine;

/* Reads the caches of sysfs directory @dir (index0, index1, ... each with level, type, size,
 * ways_of_associativity, coherency_line_size, shared_cpu_list) into @m, sorted by level (data
 * before instruction). FALSE with MDL_ERROR_IO when @dir has no index directory, MDL_ERROR_FORMAT
 * naming the file when a value is malformed; @m's caches are then unchanged. */
gboolean mdl_host_read_sysfs_caches (const char *dir, MdlHostMachine *m, GError **error);

/* Decodes AMD's cpuid leaves 0x80000005 (@l1: eax..edx) and 0x80000006 (@l2) into @m's caches
 * (when it has none yet) and TLBs (AMD APM vol. 3, appendix E.4). */
void mdl_host_decode_amd (const guint32 l1[4], const guint32 l2[4], MdlHostMachine *m);

/* Decodes Intel's deterministic address translation leaf 0x18, @n subleaves of eax..edx, into
 * @m's data TLBs (Intel SDM vol. 2A, CPUID leaf 18H). */
void mdl_host_decode_intel_tlb (const guint32 (*sub)[4], guint n, MdlHostMachine *m);

/* Everything about this machine, as described above. */
void mdl_host_machine_read (MdlHostMachine *m);

/* The preset group "[host]" of @m as key file text, appended to @out: the keys the engines read
 * (page_bytes, l1d_bytes, l1_dtlb_entries, ...) and, for people, where each came from. */
void mdl_host_machine_ini (const MdlHostMachine *m, GString *out);

#endif
