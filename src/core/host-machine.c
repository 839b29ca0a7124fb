/* The `host` machine preset (host-machine.h): what this machine says about its caches, TLBs and
 * pages, turned into the keys the engines read. Sources, best first:
 *  - caches: sysfs (/sys/devices/system/cpu/cpu0/cache/index*), else cpuid (AMD 0x80000005/6);
 *  - TLBs: cpuid (AMD 0x80000005/6, Intel 0x18); Intel's older leaf 2 descriptor table is not
 *    decoded, so such parts (and non-x86 ones) get the x86-64 preset's Skylake-class estimate;
 *  - pages: sysconf, /sys/kernel/mm/transparent_hugepage/{enabled,hpage_pmd_size}.
 * Paging-structure cache sizes are documented nowhere; the x86-64 preset's estimate is used. */
#include <models/error.h>

#include "core/host-machine.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define SYSFS_CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

/* The x86-64 preset's TLBs (data/machines.ini): the estimate where the CPU reports none. */
static const MdlHostTlb estimate_l1 = { 64, 4 }, estimate_l1_huge = { 32, 4 },
                        estimate_l1_giant = { 4, 4 }, estimate_l2 = { 1536, 12 },
                        estimate_l2_giant = { 16, 4 };

/* The first line of @dir/@name, stripped, or NULL. (transfer full) */
static char *
read_line (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  text[strcspn (text, "\n")] = '\0';
  return g_strstrip (text);
}

/* @text as an unsigned number with an optional K or M suffix (sysfs's "48K"), into @out. */
static gboolean
parse_size (const char *text, guint64 *out)
{
  char *end = NULL;
  guint64 v;
  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  v = g_ascii_strtoull (text, &end, 10);
  if (*end == 'K')
    v <<= 10, end++;
  else if (*end == 'M')
    v <<= 20, end++;
  if (*end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
read_number (const char *dir, const char *name, guint64 *out, GError **error)
{
  g_autofree char *text = read_line (dir, name);
  if (!parse_size (text, out))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s/%s: expected a number (with an "
                   "optional K or M), got \"%s\"", dir, name, text ? text : "(unreadable)");
      return FALSE;
    }
  return TRUE;
}

static gint
cache_order (gconstpointer a, gconstpointer b)
{
  const MdlHostCache *x = a, *y = b;
  if (x->level != y->level)
    return x->level < y->level ? -1 : 1;
  return (strcmp (x->type, "Instruction") == 0) - (strcmp (y->type, "Instruction") == 0);
}

gboolean
mdl_host_read_sysfs_caches (const char *dir, MdlHostMachine *m, GError **error)
{
  MdlHostCache found[MDL_HOST_MAX_CACHES];
  guint n = 0;
  for (guint i = 0; i < MDL_HOST_MAX_CACHES; i++)
    {
      g_autofree char *name = g_strdup_printf ("index%u", i);
      g_autofree char *sub = g_build_filename (dir, name, NULL);
      g_autofree char *type = NULL, *shared = NULL;
      guint64 level, bytes, ways, line;
      if (!g_file_test (sub, G_FILE_TEST_IS_DIR))
        break;
      if (!read_number (sub, "level", &level, error) || !read_number (sub, "size", &bytes, error)
          || !read_number (sub, "ways_of_associativity", &ways, error)
          || !read_number (sub, "coherency_line_size", &line, error))
        return FALSE;
      type = read_line (sub, "type");
      shared = read_line (sub, "shared_cpu_list");
      if (type == NULL || level == 0 || level > 9 || bytes == 0 || line == 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: level %" G_GUINT64_FORMAT
                       ", %" G_GUINT64_FORMAT " bytes, %" G_GUINT64_FORMAT "-byte lines, type %s: "
                       "not a cache", sub, level, bytes, line, type ? type : "(unreadable)");
          return FALSE;
        }
      found[n] = (MdlHostCache) { .level = (guint) level, .bytes = bytes, .assoc = (guint) ways,
                                  .line_bytes = (guint) line };
      g_strlcpy (found[n].type, type, sizeof found[n].type);
      g_strlcpy (found[n].shared_cpus, shared ? shared : "", sizeof found[n].shared_cpus);
      n++;
    }
  if (n == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: no cache (no index0 directory)", dir);
      return FALSE;
    }
  qsort (found, n, sizeof found[0], cache_order);
  memcpy (m->caches, found, n * sizeof found[0]);
  m->n_caches = n;
  m->cache_source = "sysfs";
  return TRUE;
}

/* AMD's 4-bit associativity codes of leaf 0x80000006 (APM vol. 3, E.4.5): ways, 0 for fully
 * associative, -1 for "disabled" or "see leaf 0x8000001D". */
static gint
amd_ways (guint code)
{
  static const gint ways[16] = { -1, 1, 2, 3, 4, 6, 8, -1, 16, -1, 32, 48, 64, 96, 128, 0 };
  return ways[code & 15];
}

/* Leaf 0x80000005 writes associativity as a byte: 0xFF is fully associative. */
static guint
amd_l1_ways (guint byte)
{
  return byte == 0xFF ? 0 : byte;
}

static void
add_cache (MdlHostMachine *m, guint level, const char *type, guint64 bytes, gint ways, guint line)
{
  MdlHostCache *c;
  if (bytes == 0 || m->n_caches == MDL_HOST_MAX_CACHES)
    return;
  c = &m->caches[m->n_caches++];
  /* Why 16 for an unreported associativity: every AMD Zen L3 has 16 ways. */
  *c = (MdlHostCache) { .level = level, .bytes = bytes, .assoc = ways < 0 ? 16 : (guint) ways,
                        .line_bytes = line };
  g_strlcpy (c->type, type, sizeof c->type);
}

void
mdl_host_decode_amd (const guint32 l1[4], const guint32 l2[4], MdlHostMachine *m)
{
  gint l2_ways = amd_ways (l2[1] >> 28);
  m->l1_dtlb = (MdlHostTlb) { (l1[1] >> 16) & 0xFF, amd_l1_ways (l1[1] >> 24) };
  m->l1_dtlb_huge = (MdlHostTlb) { (l1[0] >> 16) & 0xFF, amd_l1_ways (l1[0] >> 24) };
  /* The second-level TLB of 4 KiB pages; AMD reports the 2 MiB one apart (eax), which the tlb
   * engine's shared second level cannot hold. */
  m->l2_tlb = (MdlHostTlb) { (l2[1] >> 16) & 0xFFF, l2_ways < 0 ? 0 : (guint) l2_ways };
  m->tlb_source = "cpuid 0x80000005/6";
  if (m->n_caches == 0)
    {
      add_cache (m, 1, "Data", (guint64) (l1[2] >> 24) << 10, (gint) amd_l1_ways ((l1[2] >> 16) & 0xFF),
                 l1[2] & 0xFF);
      add_cache (m, 1, "Instruction", (guint64) (l1[3] >> 24) << 10,
                 (gint) amd_l1_ways ((l1[3] >> 16) & 0xFF), l1[3] & 0xFF);
      add_cache (m, 2, "Unified", (guint64) (l2[2] >> 16) << 10, amd_ways (l2[2] >> 12), l2[2] & 0xFF);
      add_cache (m, 3, "Unified", (guint64) (l2[3] >> 18) << 19, amd_ways (l2[3] >> 12), l2[3] & 0xFF);
      m->cache_source = "cpuid 0x80000005/6";
    }
}

void
mdl_host_decode_intel_tlb (const guint32 (*sub)[4], guint n, MdlHostMachine *m)
{
  gboolean any = FALSE;
  for (guint i = 0; i < n; i++)
    {
      guint type = sub[i][3] & 31, level = (sub[i][3] >> 5) & 7;
      gboolean full = (sub[i][3] >> 8) & 1;
      guint ways = sub[i][1] >> 16;
      MdlHostTlb t = { ways * sub[i][2], full ? 0 : ways };
      /* Types: 1 data, 3 unified, 4 load-only (the loads are what the experiments time). */
      if (type != 1 && type != 3 && type != 4)
        continue;
      if (level == 1 && (sub[i][1] & 1))
        m->l1_dtlb = t, any = TRUE;
      if (level == 1 && (sub[i][1] & 2))
        m->l1_dtlb_huge = t, any = TRUE;
      if (level == 1 && (sub[i][1] & 8))
        m->l1_dtlb_giant = t, any = TRUE;
      if (level == 2 && (sub[i][1] & 1))
        m->l2_tlb = t, any = TRUE;
      if (level == 2 && !(sub[i][1] & 3) && (sub[i][1] & 8))
        m->l2_tlb_giant = t, any = TRUE;
    }
  if (any)
    m->tlb_source = "cpuid 0x18";
}

static void
read_cpuid (MdlHostMachine *m)
{
#if defined(__x86_64__) || defined(__i386__)
  guint32 r[4], max_ext = __get_cpuid_max (0x80000000, NULL);
  guint32 max = __get_cpuid_max (0, NULL);
  if (max_ext >= 0x80000006 && __get_cpuid (0, &r[0], &r[1], &r[2], &r[3])
      && r[1] == 0x68747541 /* "Auth"enticAMD */)
    {
      guint32 l1[4], l2[4];
      __get_cpuid (0x80000005, &l1[0], &l1[1], &l1[2], &l1[3]);
      __get_cpuid (0x80000006, &l2[0], &l2[1], &l2[2], &l2[3]);
      mdl_host_decode_amd (l1, l2, m);
    }
  else if (max >= 0x18)
    {
      guint32 sub[16][4], n;
      __cpuid_count (0x18, 0, sub[0][0], sub[0][1], sub[0][2], sub[0][3]);
      n = MIN (sub[0][0] + 1, 16);
      for (guint i = 1; i < n; i++)
        __cpuid_count (0x18, i, sub[i][0], sub[i][1], sub[i][2], sub[i][3]);
      mdl_host_decode_intel_tlb ((const guint32 (*)[4]) sub, n, m);
    }
#else
  (void) m;
#endif
}

static void
fill_estimates (MdlHostMachine *m)
{
  gboolean estimated = FALSE;
  struct { MdlHostTlb *t; const MdlHostTlb *e; } rows[] = {
    { &m->l1_dtlb, &estimate_l1 }, { &m->l1_dtlb_huge, &estimate_l1_huge },
    { &m->l1_dtlb_giant, &estimate_l1_giant }, { &m->l2_tlb, &estimate_l2 },
    { &m->l2_tlb_giant, &estimate_l2_giant } };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    if (rows[i].t->entries == 0)
      *rows[i].t = *rows[i].e, estimated = TRUE;
  if (m->tlb_source == NULL)
    m->tlb_source = "estimate (x86-64 preset, Skylake-class)";
  else if (estimated)
    m->tlb_source = g_str_equal (m->tlb_source, "cpuid 0x18")
                      ? "cpuid 0x18, the rest estimated (x86-64 preset)"
                      : "cpuid 0x80000005/6, the rest estimated (x86-64 preset)";
}

void
mdl_host_machine_read (MdlHostMachine *m)
{
  g_autofree char *thp = NULL, *pmd = NULL, *cpuinfo = NULL;
  guint64 pmd_bytes = 0;
  long page = sysconf (_SC_PAGESIZE);
  memset (m, 0, sizeof *m);
  m->cache_source = "unknown";
  if (!mdl_host_read_sysfs_caches (SYSFS_CACHE_DIR, m, NULL))
    m->n_caches = 0;
  read_cpuid (m);
  fill_estimates (m);
  m->page_bytes = page > 0 ? (guint64) page : 4096;
  g_strlcpy (m->thp_mode, "none", sizeof m->thp_mode);
  if ((thp = read_line (THP_DIR, "enabled")) != NULL)
    {
      /* The mode in use is the one in brackets: "always [madvise] never". */
      const char *open = strchr (thp, '['), *close = open ? strchr (open, ']') : NULL;
      if (open && close)
        g_strlcpy (m->thp_mode, open + 1, MIN (sizeof m->thp_mode, (gsize) (close - open)));
    }
  if ((pmd = read_line (THP_DIR, "hpage_pmd_size")) != NULL && parse_size (pmd, &pmd_bytes)
      && strcmp (m->thp_mode, "never") != 0)
    m->huge_page_bytes = pmd_bytes;
  g_strlcpy (m->cpu_model, "unknown", sizeof m->cpu_model);
  if (g_file_get_contents ("/proc/cpuinfo", &cpuinfo, NULL, NULL))
    {
      const char *at = strstr (cpuinfo, "model name");
      const char *colon = at ? strchr (at, ':') : NULL;
      if (colon)
        {
          g_autofree char *name = g_strndup (colon + 1, strcspn (colon + 1, "\n"));
          g_strlcpy (m->cpu_model, g_strstrip (name), sizeof m->cpu_model);
        }
    }
}

/* The data or unified cache of @level, or NULL. */
static const MdlHostCache *
data_cache (const MdlHostMachine *m, guint level)
{
  for (guint i = 0; i < m->n_caches; i++)
    if (m->caches[i].level == level && strcmp (m->caches[i].type, "Instruction") != 0)
      return &m->caches[i];
  return NULL;
}

void
mdl_host_machine_ini (const MdlHostMachine *m, GString *out)
{
  static const char *const prefix[] = { "l1d", "l2", "l3", "l4" };
  const MdlHostCache *l1 = data_cache (m, 1);
  g_string_append_printf (out, "[host]\ndescription=this machine (%s), read when the library "
                          "first needed it\n", m->cpu_model);
  g_string_append_printf (out, "cache_source=%s\ntlb_source=%s\n", m->cache_source, m->tlb_source);
  /* 4-level paging on every x86-64 Linux unless the kernel enables 5-level; 512 entries a node. */
  g_string_append_printf (out, "page_bytes=%" G_GUINT64_FORMAT "\ntree_arity=512\ntree_depth=4\n",
                          m->page_bytes);
  g_string_append_printf (out, "thp_mode=%s\n", m->thp_mode);
  if (m->huge_page_bytes)
    g_string_append_printf (out, "huge_page_bytes=%" G_GUINT64_FORMAT "\n", m->huge_page_bytes);
  g_string_append_printf (out, "line_bytes=%u\n", l1 ? l1->line_bytes : 64);
  for (guint level = 1; level <= G_N_ELEMENTS (prefix); level++)
    {
      const MdlHostCache *c = data_cache (m, level);
      if (c == NULL)
        continue;
      g_string_append_printf (out, "%s_bytes=%" G_GUINT64_FORMAT "\n%s_assoc=%u\n",
                              prefix[level - 1], c->bytes, prefix[level - 1], c->assoc);
      if (c->shared_cpus[0])
        g_string_append_printf (out, "%s_shared_cpus=%s\n", prefix[level - 1], c->shared_cpus);
    }
  g_string_append_printf (out, "l1_dtlb_entries=%u\nl1_dtlb_assoc=%u\n"
                          "l1_dtlb_huge_entries=%u\nl1_dtlb_huge_assoc=%u\n"
                          "l1_dtlb_giant_entries=%u\nl1_dtlb_giant_assoc=%u\n"
                          "l2_tlb_entries=%u\nl2_tlb_assoc=%u\n"
                          "l2_tlb_giant_entries=%u\nl2_tlb_giant_assoc=%u\n",
                          m->l1_dtlb.entries, m->l1_dtlb.assoc, m->l1_dtlb_huge.entries,
                          m->l1_dtlb_huge.assoc, m->l1_dtlb_giant.entries, m->l1_dtlb_giant.assoc,
                          m->l2_tlb.entries, m->l2_tlb.assoc, m->l2_tlb_giant.entries,
                          m->l2_tlb_giant.assoc);
  g_string_append (out, "psc_pml4e_entries=2\npsc_pdpte_entries=4\npsc_pde_entries=32\n");
}
