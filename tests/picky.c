/* The "picky" test engine (tests/picky.h). */
#include "picky.h"

gint test_picky_batches;

typedef struct {
  guint64 limit, delay_us;
  guint64 seen;
} Picky;

static const MdlParamSpec picky_params[] = {
  { "limit", MDL_PARAM_UINT, "4096", NULL, 1, 0, NULL, 0, "first rejected address" },
  { "delay_us", MDL_PARAM_UINT, "0", NULL, 0, 0, NULL, 0, "sleep per batch" },
  { NULL }
};

static gboolean
picky_init (void *state, const MdlParams *params, GError **error)
{
  Picky *p = state;
  (void) error;
  p->limit = mdl_params_uint (params, "limit");
  p->delay_us = mdl_params_uint (params, "delay_us");
  return TRUE;
}

static gboolean
picky_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Picky *p = state;
  if (p->delay_us)
    g_usleep (p->delay_us);
  for (gsize i = 0; i < b->n_cpu; i++)
    if (mdl_cpu_is_access (b->cpu[i].kind) && b->cpu[i].addr >= p->limit)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "address 0x%" G_GINT64_MODIFIER "x is at "
                     "or beyond the limit", b->cpu[i].addr);
        return FALSE;
      }
  p->seen += b->n_cpu;
  g_atomic_int_inc (&test_picky_batches);
  return TRUE;
}

static void
picky_report (void *state, MdlReport *out)
{
  Picky *p = state;
  mdl_report_add_count (out, "seen", "count", "CPU records accepted", NULL, p->seen);
}

const MdlEngineClass test_picky_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "picky",
  .summary = "rejects high addresses (test engine)",
  .params = picky_params,
  .state_size = sizeof (Picky),
  .init = picky_init,
  .consume = picky_consume,
  .report = picky_report,
};
