/* agpu-launches: one GPU algorithm's AGPU time launch by launch, beside its work.
 *
 * Usage: agpu-launches ALGORITHM[:PARAMS] N AGPU_SPEC
 * Prints a tab-separated row per kernel launch: the launch, its grid's blocks, its time under
 * AGPU_SPEC (the busiest MP, with the launch's own cost when launch_ns is set) and its work (the
 * same spec with k=1, launch_ns=0 and atomics=lanes: every block on one MP, so the instructions
 * of all MPs and nothing else), then the totals. Time over work / k says how much of a launch the
 * MPs sat idle. Used by docs/experiments/load-balancing.md ("Item 25") to split the balancers'
 * times into the root's launch and the rest. Seed 1, as `models run`. */
#include <models/models.h>

#include <stdio.h>
#include <string.h>

enum { BUSIEST, ALL_ON_ONE, N_VIEWS };

typedef struct {
  MdlEngine *engine[N_VIEWS];
  guint64 before[N_VIEWS];   /* each view's time when the open launch began */
  gint64 launch;             /* the open launch, -1 before the first */
  guint32 grid_blocks;
} Probe;

static guint64
time_of (MdlEngine *engine)
{
  g_autoptr (MdlReport) report = mdl_engine_report (engine);
  return mdl_report_lookup (report, "time")->count;
}

/* The work view of @spec: the same AGPU with every block on one MP and nothing but instructions,
 * so the keys that would price something else (launches, the atomic chain) or place the blocks
 * are left out of it. (transfer full) */
static char *
work_spec (const char *spec)
{
  static const char *const dropped[] = { "k", "p", "launch_ns", "atomics", "atomic_ps" };
  g_auto (GStrv) name_params = g_strsplit (spec, ":", 2);
  g_auto (GStrv) kvs = g_strsplit (name_params[1] ? name_params[1] : "", ",", -1);
  GString *out = g_string_new (name_params[0]);
  g_string_append (out, ":k=1,launch_ns=0");
  for (guint i = 0; kvs[i]; i++)
    {
      gboolean keep = kvs[i][0] != '\0';
      for (guint d = 0; keep && d < G_N_ELEMENTS (dropped); d++)
        keep = !(g_str_has_prefix (kvs[i], dropped[d]) && kvs[i][strlen (dropped[d])] == '=');
      if (keep)
        g_string_append_printf (out, ",%s", kvs[i]);
    }
  return g_string_free (out, FALSE);
}

/* Prints the open launch's row, if one is open, and starts counting from here. */
static void
close_row (Probe *p)
{
  guint64 now[N_VIEWS];
  for (guint v = 0; v < N_VIEWS; v++)
    now[v] = time_of (p->engine[v]);
  if (p->launch >= 0)
    printf ("%" G_GINT64_FORMAT "\t%u\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", p->launch,
            p->grid_blocks, now[BUSIEST] - p->before[BUSIEST],
            now[ALL_ON_ONE] - p->before[ALL_ON_ONE]);
  for (guint v = 0; v < N_VIEWS; v++)
    p->before[v] = now[v];
}

static gboolean
on_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Probe *p = data;
  for (guint v = 0; v < N_VIEWS; v++)
    if (!mdl_engine_consume (p->engine[v], batch, error))
      return FALSE;
  return TRUE;
}

static gboolean
on_marker (void *data, const MdlMarker *marker, GError **error)
{
  Probe *p = data;
  if (marker->kind == MDL_MARK_LAUNCH)
    {
      close_row (p);
      p->launch = marker->launch;
      p->grid_blocks = marker->grid_blocks;
    }
  for (guint v = 0; v < N_VIEWS; v++)
    if (!mdl_engine_marker (p->engine[v], marker, error))
      return FALSE;
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) name_params = NULL, assignments = NULL;
  g_autofree char *one_mp = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo;
  Probe p = { .launch = -1 };
  MdlSink sink = { on_batch, on_marker, &p };
  guint64 n;
  int status = 1;

  if (argc != 4)
    {
      fprintf (stderr, "usage: agpu-launches ALGORITHM[:PARAMS] N AGPU_SPEC\n");
      return 2;
    }
  name_params = g_strsplit (argv[1], ":", 2);
  assignments = g_strsplit (name_params[1] ? name_params[1] : "", ",", -1);
  n = g_ascii_strtoull (argv[2], NULL, 10);
  one_mp = work_spec (argv[3]);
  if (!(algo = mdl_algo_lookup (name_params[0], &error))
      || !(params = mdl_params_parse (name_params[0], algo->params,
                                      (const char *const *) (assignments[0] ? assignments : NULL),
                                      &error))
      || !(p.engine[BUSIEST] = mdl_engine_new (argv[3], &error))
      || !(p.engine[ALL_ON_ONE] = mdl_engine_new (one_mp, &error)))
    goto out;
  printf ("launch\tblocks\ttime\twork\n");
  if (!mdl_algo_run_into (algo, params, n, 1, &sink, NULL, &error))
    goto out;
  close_row (&p);
  printf ("total\t\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n", time_of (p.engine[BUSIEST]),
          time_of (p.engine[ALL_ON_ONE]));
  status = 0;
out:
  if (error)
    fprintf (stderr, "agpu-launches: %s\n", error->message);
  for (guint v = 0; v < N_VIEWS; v++)
    mdl_engine_free (p.engine[v]);
  return status;
}
