/* The algorithm registry (include/models/algo.h): one row per algorithm, with its instrumented
 * and native entry points (the same source file built twice, see src/algos/cpu/cpu-algo.h). */
#include <models/error.h>

#include "algos/cpu/cpu-algo.h"
#include "algos/simt/simt-algo.h"
#include "traces/names.h"

#include <string.h>

static const MdlParamSpec no_params[] = { { .key = NULL } };

static const MdlAlgo algos[] = {
  { "scan/seq", "sequential scan: sum of A[i], 8-byte elements", no_params,
    mdl_algo_scan_seq_run, mdl_algo_scan_seq_native, NULL },
  { "scan/random", "random scan: sum of A[pi(i)] for a random permutation pi", no_params,
    mdl_algo_scan_random_run, mdl_algo_scan_random_native, NULL },
  MDL_SIMT_ALGO_ROWS,
};

const MdlAlgo *
mdl_algos (guint *n)
{
  if (n)
    *n = G_N_ELEMENTS (algos);
  return algos;
}

const MdlAlgo *
mdl_algo_lookup (const char *name, GError **error)
{
  const char *names[G_N_ELEMENTS (algos)];
  g_autoptr (GString) msg = g_string_new (NULL);
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (algos); i++)
    {
      if (strcmp (algos[i].name, name) == 0)
        return &algos[i];
      names[i] = algos[i].name;
    }
  g_string_printf (msg, "unknown algorithm \"%s\"", name);
  mdl_names_append_choices (msg, name, names, G_N_ELEMENTS (algos));
  g_set_error_literal (error, MDL_ERROR, MDL_ERROR_UNKNOWN_NAME, msg->str);
  return NULL;
}

void *
mdl_algo_alloc (guint64 n, gsize elem_bytes, const char *what, GError **error)
{
  gsize bytes;
  void *p = NULL;
  if (n == 0 || n > G_MAXSIZE / elem_bytes
      || !g_size_checked_mul (&bytes, (gsize) n, elem_bytes)
      || (p = g_try_malloc (bytes)) == NULL)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": cannot allocate the "
                 "%s (%" G_GUINT64_FORMAT " elements of %" G_GSIZE_FORMAT " bytes)%s", n, what, n,
                 elem_bytes, n == 0 ? "; n must be at least 1" : "");
  return p;
}
