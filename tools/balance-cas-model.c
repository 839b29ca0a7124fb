/* balance-cas-model: the model's side of tools/balance-cas-sites.py, the lock-free queue's CASes
 * site by site: the dequeue's slot CASes and the enqueue's, each with its failures per success,
 * under whatever schedule the parameters give (clock=off: the round robin; clock=spread or a
 * latency CSV: the clocked schedule, include/models/simt-clock.h).
 *
 * Usage: balance-cas-model PARAMS N...
 *   PARAMS: balance/lockfree's parameters, e.g. dist=tube,blocks=132,clock=spread,clock_spread=5
 * Prints one tab-separated row per N (header first); empty_gets are the gets that found no task
 * (idle turns: the H100's are the dequeue attempts that read an EMPTY slot); the slots an attempt
 * are those a dequeue's or an enqueue's scan read, from its pointer to the slot it stopped at
 * (the H100's: the scan load's executions over the pointer load's). Seed 1, as `models run`; runs the native
 * build (no events), so a row of n = 500,000 takes a few seconds.
 * docs/experiments/load-balancing.md, "Session 10 (branch s10-balance)". */
#include <models/models.h>

#include <stdio.h>
#include <stdlib.h>

#include "algos/particles.h"
#include "algos/simt/octree.h"

static double
per (guint64 failures, guint64 attempts)
{
  return attempts > failures ? (double) failures / (double) (attempts - failures) : 0.0;
}

/* One build of @n particles under @params; FALSE with @error set when it fails. */
static gboolean
row (const MdlParams *params, guint64 n, GError **error)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autoptr (MdlSimtClock) clock = NULL;
  g_autofree MdlOctreeLeaf *leaves = NULL;
  MdlOctreeStats st;
  guint64 addr, nl;
  double deq, enq, deq_attempts;
  if (!mdl_octree_clock (params, &clock, error) || !(addr = mdl_simt_alloc (gpu, 16 * n, error)))
    return FALSE;
  mdl_particles_fill (mdl_simt_host (gpu, addr), n,
                      (MdlParticleDist) mdl_params_choice (params, "dist"), 1);
  if (!mdl_octree_build (gpu, &mdl_balancer_lockfree, addr, n,
                         (guint) mdl_params_uint (params, "threads"),
                         (guint) mdl_params_uint (params, "blocks"),
                         (guint) mdl_params_uint (params, "resident"), clock,
                         (guint) mdl_params_uint (params, "threshold"),
                         (guint) mdl_params_uint (params, "lazy"), &leaves, &nl, &st, error))
    return FALSE;
  deq = per (st.get_cas_failures, st.get_cas);
  enq = per (st.put_cas_failures, st.put_cas);
  deq_attempts = (double) (st.get_cas + st.idle_turns);
  printf ("%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%.2f\t%"
          G_GUINT64_FORMAT "\t%.2f\t%.2f\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\t%"
          G_GUINT64_FORMAT "\t%.2f\t%.2f\n",
          n, st.tasks, st.get_cas, deq, st.put_cas, enq, deq > 0 ? enq / deq : 0.0,
          st.cas_attempts, st.cas_failures, st.idle_turns,
          deq_attempts > 0 ? (double) st.get_slots / deq_attempts : 0.0,
          st.put_cas ? (double) st.put_slots / (double) st.put_cas : 0.0);
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_auto (GStrv) assignments = NULL;
  if (argc < 3)
    {
      fprintf (stderr, "usage: %s PARAMS N...\n", argv[0]);
      return 2;
    }
  assignments = g_strsplit (argv[1], ",", -1);
  params = mdl_params_parse ("balance/lockfree", mdl_balance_lockfree_params,
                             (const char *const *) assignments, &error);
  if (!params)
    {
      fprintf (stderr, "%s: %s\n", argv[0], error->message);
      return 1;
    }
  printf ("n\ttasks\tdequeue_cas\tfailures_a_dequeue\tenqueue_cas\tfailures_an_enqueue\t"
          "enqueue_over_dequeue\tcas_all\tcas_failed_all\tempty_gets\tdequeue_slots_an_attempt\t"
          "enqueue_slots_an_attempt\n");
  for (int i = 2; i < argc; i++)
    {
      char *end;
      guint64 n = g_ascii_strtoull (argv[i], &end, 10);
      if (*end || n == 0)
        {
          fprintf (stderr, "%s: N must be a positive integer, got \"%s\"\n", argv[0], argv[i]);
          return 1;
        }
      if (!row (params, n, &error))
        {
          fprintf (stderr, "%s: n=%s: %s\n", argv[0], argv[i], error->message);
          return 1;
        }
    }
  return 0;
}
