/* The host facts of src/experiments/host.h, read from Linux's sysfs and procfs, and the pin of
 * a thread to one CPU (sched_setaffinity, a GNU extension). */
#define _GNU_SOURCE
#include "experiments/host.h"

#include "algos/pages.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char *
read_text (const char *path)
{
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

guint64
mdl_host_cache_bytes (guint level)
{
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *dir = g_strdup_printf ("/sys/devices/system/cpu/cpu0/cache/index%u", i);
      g_autofree char *lpath = g_build_filename (dir, "level", NULL);
      g_autofree char *tpath = g_build_filename (dir, "type", NULL);
      g_autofree char *spath = g_build_filename (dir, "size", NULL);
      g_autofree char *lv = read_text (lpath);
      g_autofree char *type = read_text (tpath);
      g_autofree char *size = NULL;
      char *end;
      guint64 v;
      if (lv == NULL)
        break;
      if (strtoul (lv, NULL, 10) != level || type == NULL || strcmp (type, "Instruction") == 0)
        continue;
      if ((size = read_text (spath)) == NULL)
        return 0;
      v = g_ascii_strtoull (size, &end, 10);
      if (*end == 'K')
        v <<= 10;
      else if (*end == 'M')
        v <<= 20;
      else if (*end == 'G')
        v <<= 30;
      return v;
    }
  return 0;
}

char *
mdl_host_thp_mode (void)
{
  g_autofree char *text = read_text ("/sys/kernel/mm/transparent_hugepage/enabled");
  const char *open, *close;
  /* The file reads "always [madvise] never": the bracketed word is the mode. */
  if (text == NULL || (open = strchr (text, '[')) == NULL || (close = strchr (open, ']')) == NULL)
    return NULL;
  return g_strndup (open + 1, (gsize) (close - open - 1));
}

gint64
mdl_host_thp_probe (guint64 bytes)
{
#ifdef MADV_HUGEPAGE
  void *p = NULL;
  gint64 before = mdl_algo_anon_huge_bytes (), after;
  if (before < 0 || posix_memalign (&p, 2u << 20, bytes) != 0)
    return -1;
  if (madvise (p, bytes, MADV_HUGEPAGE) != 0)
    {
      free (p);
      return 0;
    }
  memset (p, 1, bytes);
  after = mdl_algo_anon_huge_bytes ();
  free (p);
  return after < 0 ? -1 : MAX (0, after - before);
#else
  (void) bytes;
  return -1;
#endif
}

char *
mdl_host_cpu_model (void)
{
  g_autofree char *text = NULL;
  const char *line, *colon;
  if (g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL)
      && (line = strstr (text, "model name")) != NULL && (colon = strchr (line, ':')) != NULL)
    {
      const char *end = strchr (colon, '\n');
      gsize len = end ? (gsize) (end - colon - 1) : strlen (colon + 1);
      g_autofree char *name = g_strndup (colon + 1, len);
      return g_strdup (g_strstrip (name));
    }
  return g_strdup ("unknown");
}

gboolean
mdl_host_is_vm (void)
{
  g_autofree char *text = NULL;
  const char *flags;
  if (!g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL)
      || (flags = strstr (text, "\nflags")) == NULL)
    return FALSE;
  {
    const char *end = strchr (flags + 1, '\n');
    g_autofree char *line = g_strndup (flags, end ? (gsize) (end - flags) : strlen (flags));
    return strstr (line, " hypervisor") != NULL;
  }
}

double
mdl_host_load (void)
{
  g_autofree char *text = read_text ("/proc/loadavg");
  return text ? g_ascii_strtod (text, NULL) : -1;
}

struct MdlHostPin {
  cpu_set_t before;   /* the CPUs the thread could run on */
  int cpu;
};

MdlHostPin *
mdl_host_pin_here (void)
{
  g_autofree MdlHostPin *pin = g_new0 (MdlHostPin, 1);
  cpu_set_t one;
  if ((pin->cpu = sched_getcpu ()) < 0 || sched_getaffinity (0, sizeof pin->before,
                                                             &pin->before) != 0)
    return NULL;
  CPU_ZERO (&one);
  CPU_SET (pin->cpu, &one);
  if (sched_setaffinity (0, sizeof one, &one) != 0)
    return NULL;
  return g_steal_pointer (&pin);
}

int
mdl_host_pin_cpu (const MdlHostPin *pin)
{
  return pin->cpu;
}

void
mdl_host_pin_release (MdlHostPin *pin)
{
  if (pin == NULL)
    return;
  sched_setaffinity (0, sizeof pin->before, &pin->before);
  g_free (pin);
}
