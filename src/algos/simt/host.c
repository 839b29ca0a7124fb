/* The host side every SIMT algorithm shares: the simulated GPU for either
 * entry point, the size check and the checksum of an output. */
#include "algos/simt/simt-algo.h"

MdlSimt *
mdl_simt_algo_gpu_new (MdlRecorder *rec)
{
  return mdl_simt_algo_gpu_new_lanes (rec, 32);
}

MdlSimt *
mdl_simt_algo_gpu_new_lanes (MdlRecorder *rec, guint warp_width)
{
  MdlSink sink;
  if (rec == NULL)
    return mdl_simt_new (NULL, warp_width);
  sink = mdl_recorder_sink (rec);
  return mdl_simt_new (&sink, warp_width);
}

gboolean
mdl_simt_algo_size_ok (const char *algo, guint64 n, guint64 limit, GError **error)
{
  if (n >= 1 && n <= limit)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: n=%" G_GUINT64_FORMAT " is outside 1..%"
               G_GUINT64_FORMAT, algo, n, limit);
  return FALSE;
}

guint64
mdl_simt_algo_checksum (const void *data, gsize bytes)
{
  const guint8 *p = data;
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  for (gsize i = 0; i < bytes; i++)
    h = (h ^ p[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return h;
}
