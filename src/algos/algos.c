/* The algorithm registry (include/models/algo.h): one row per algorithm, with its instrumented
 * and native entry points (the same source file built twice, see src/algos/cpu/cpu-algo.h). */
#include <models/error.h>

#include "algos/cpu/cpu-algo.h"
#include "algos/gpu-algos.h"
#include "algos/simt/simt-algo.h"
#include "core/names.h"

#include <string.h>

static const MdlParamSpec page_params[] = { MDL_ALGO_PAGES_ROW, { NULL } };

static const MdlParamSpec search_params[] = {
  { "searches", MDL_PARAM_UINT, "0", NULL, 0, 0, NULL, 0,
    "number of searches (0: n, as in the VAT thesis; each search is independent)" },
  MDL_ALGO_PAGES_ROW,
  { NULL }
};

/* The sorts of the GPU sorts' inputs (src/algos/cpu/sort.c). */
static const MdlParamSpec sort_params[] = {
  MDL_KEYS_DIST_ROW,
  { "keys", MDL_PARAM_CHOICE, "u32", NULL, 0, 0, "u32|f32", 0,
    "key type: u32 (32-bit unsigned) or f32 (float, the u32 key's top 24 bits / 2^24)" },
  MDL_ALGO_PAGES_ROW,
  { NULL }
};

/* The CPU algorithms, from src/algos/cpu/cpu-algo.h. */
#define CPU_ROW(sym, name, params, summary)                                                        \
  { name, summary, params, mdl_algo_##sym##_run, mdl_algo_##sym##_native, mdl_algo_##sym##_timed,  \
    NULL },

/* The GPU algorithms: a descriptor and a row each, from src/algos/gpu-algos.h. */
#define CUDA_FAMILY_cuda(sym) #sym
#define CUDA_FAMILY_none(sym) NULL
#define GPU_DESCRIPTOR(sym, name, params, twin, n, block, checked, cases, summary)                 \
  static const MdlGpuAlgo gpu_##sym = { CUDA_FAMILY_##twin (sym), n, block, checked, cases };
MDL_GPU_ALGOS (GPU_DESCRIPTOR)
#define GPU_ROW(sym, name, params, twin, n, block, checked, cases, summary)                        \
  { name, summary, params, mdl_algo_gpu_##sym##_run, mdl_algo_gpu_##sym##_native, NULL,           \
    &gpu_##sym },

static const MdlAlgo algos[] = {
  MDL_CPU_ALGOS (CPU_ROW)
  MDL_GPU_ALGOS (GPU_ROW)
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
mdl_algo_alloc (MdlRecorder *rec, guint64 n, gsize elem_bytes, const char *what, GError **error)
{
  gsize bytes;
  void *p = NULL;
  if (n == 0 || n > G_MAXSIZE / elem_bytes
      || !g_size_checked_mul (&bytes, (gsize) n, elem_bytes)
      || (p = g_try_malloc (bytes)) == NULL)
    g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "n=%" G_GUINT64_FORMAT ": cannot allocate the "
                 "%s (%" G_GUINT64_FORMAT " elements of %" G_GSIZE_FORMAT " bytes)%s", n, what, n,
                 elem_bytes, n == 0 ? "; n must be at least 1" : "");
  else if (rec)
    mdl_recorder_map (rec, p, bytes);
  return p;
}

gboolean
mdl_algo_run_into (const MdlAlgo *algo, const MdlParams *params, guint64 n, guint64 seed,
                   const MdlSink *sink, guint64 *checksum, GError **error)
{
  g_autoptr (MdlRecorder) rec = NULL;
  g_autoptr (GError) run_error = NULL;
  guint64 sum = 0;
  gboolean ran;
  g_return_val_if_fail (algo != NULL && sink != NULL, FALSE);
  rec = mdl_recorder_new (sink, 0);
  ran = algo->run (params, n, seed, rec, &sum, &run_error);
  if (!mdl_recorder_finish (rec, error))
    return FALSE;
  if (!ran)
    {
      g_propagate_error (error, g_steal_pointer (&run_error));
      return FALSE;
    }
  if (checksum)
    *checksum = sum;
  return TRUE;
}
