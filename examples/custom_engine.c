/* An engine of your own: a class with a parameter table, registered at run time and then named in
 * specs like a built-in one. This one counts accesses that cross a boundary of `align` bytes.
 * Build: cc custom_engine.c $(pkg-config --cflags --libs models) */
#include <models/models.h>

#include <stdio.h>

typedef struct {
  guint64 align_mask;  /* align - 1 */
  guint64 accesses;
  guint64 crossing;
} Straddle;

static const MdlParamSpec straddle_params[] = {
  { "align", MDL_PARAM_UINT, "64", "line_bytes", 1, 0, NULL, MDL_PARAM_POW2,
    "boundary in bytes" },
  { .key = NULL }
};

static gboolean
straddle_init (void *state, const MdlParams *params, GError **error)
{
  Straddle *s = state;
  (void) error;
  s->align_mask = mdl_params_uint (params, "align") - 1;
  return TRUE;
}

static gboolean
straddle_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Straddle *s = state;
  (void) error;
  for (gsize i = 0; i < b->n_cpu; i++)
    if (mdl_cpu_is_access (b->cpu[i].kind))
      {
        s->accesses++;
        s->crossing += ((b->cpu[i].addr & s->align_mask) + b->cpu[i].size - 1) > s->align_mask;
      }
  return TRUE;
}

static void
straddle_report (void *state, MdlReport *out)
{
  Straddle *s = state;
  mdl_report_add_count (out, "accesses", "count", "data accesses", NULL, s->accesses);
  mdl_report_add_count (out, "crossing", "count", "accesses that cross a boundary", NULL,
                        s->crossing);
}

static const MdlEngineClass straddle_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "straddle",
  .summary = "accesses crossing an alignment boundary",
  .params = straddle_params,
  .state_size = sizeof (Straddle),
  .init = straddle_init,
  .consume = straddle_consume,
  .report = straddle_report,
};

int
main (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlEngine) engine = NULL;
  g_autoptr (MdlReport) report = NULL;
  const MdlCounter *crossing, *accesses;
  /* Three 8-byte reads: at 0 and 56 they stay in one 64-byte line, at 60 they cross into the next. */
  const MdlCpuEvent events[] = {
    { .kind = MDL_CPU_READ, .size = 8, .addr = 0 },
    { .kind = MDL_CPU_READ, .size = 8, .addr = 56 },
    { .kind = MDL_CPU_READ, .size = 8, .addr = 60 },
  };
  MdlEventBatch batch = { .cpu = events, .n_cpu = G_N_ELEMENTS (events) };

  if (!mdl_engine_register (&straddle_class, &error)
      || !(engine = mdl_engine_new ("straddle:machine=x86-64", &error))
      || !mdl_engine_consume (engine, &batch, &error))
    {
      fprintf (stderr, "custom_engine: %s\n", error->message);
      return 1;
    }
  report = mdl_engine_report (engine);
  if (!(crossing = mdl_report_get (report, "crossing", &error))
      || !(accesses = mdl_report_get (report, "accesses", &error)))
    {
      fprintf (stderr, "custom_engine: %s\n", error->message);
      return 1;
    }
  printf ("%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " accesses cross a line\n",
          mdl_engine_spec (engine), crossing->count, accesses->count);
  return 0;
}
