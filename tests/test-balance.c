/* Tests of the load-balancing benchmark (Cederman's thesis ch. 3): the particle sets
 * (src/algos/particles.h), the sequential octree reference (src/algos/octree.h) against a
 * brute-force count of every cell, and the four balancers on the SIMT layer (src/algos/simt/)
 * against the reference: the validation cases §5.4 items 20-22 and 26 of
 * ../shared/spec/gpu-quicksort-cederman.md. */
#include "helpers.h"

#include <math.h>
#include <string.h>

#include "algos/octree.h"
#include "algos/particles.h"
#include "algos/simt/octree.h"

static const MdlBalancer *const balancers[] = {
  &mdl_balancer_static, &mdl_balancer_blocking, &mdl_balancer_lockfree, &mdl_balancer_abp,
};

/* @n particles of @dist for seed 1. */
static guint32 *
particles_new (MdlParticleDist dist, guint64 n)
{
  guint32 *p = g_new (guint32, MDL_PARTICLE_WORDS * (n ? n : 1));
  mdl_particles_fill (p, n, dist, 1);
  return p;
}

/* The reference's leaves of @p. */
static MdlOctreeLeaf *
reference (const guint32 *p, guint64 n, guint threshold, guint64 *nl, MdlOctreeShape *shape)
{
  MdlOctreeLeaf *leaves = NULL;
  assert_true (mdl_octree_reference (p, n, threshold, &leaves, nl, shape));
  return leaves;
}

/* The path of the depth-@depth cell holding particle @q. */
static guint64
cell_of (const guint32 *q, guint32 depth)
{
  guint64 path = 1;
  for (guint32 d = 0; d < depth; d++)
    path = 8 * path + mdl_octree_octant (q, d);
  return path;
}

/* Ensure the sets are what particles.h says: ids in order, coordinates below the side, the tube's
 * (y, z) inside its disc, each clustered particle within reach of its cluster's first. */
static void
test_particle_sets_keep_their_shapes (void **state)
{
  const guint64 n = 5000;
  const gint64 side = MDL_PARTICLE_SIDE, radius = side / 8;
  (void) state;
  for (int dist = 0; dist < MDL_PARTICLES_N_DISTS; dist++)
    {
      g_autofree guint32 *p = particles_new (dist, n);
      for (guint64 k = 0; k < n; k++)
        {
          const guint32 *q = p + MDL_PARTICLE_WORDS * k;
          assert_int_equal (q[3], k);
          for (int a = 0; a < 3; a++)
            assert_true (q[a] < MDL_PARTICLE_SIDE);
          if (dist == MDL_PARTICLES_TUBE)
            {
              gint64 dy = (gint64) q[1] - side / 2, dz = (gint64) q[2] - side / 2;
              assert_true (dy * dy + dz * dz < radius * radius);
            }
          if (dist == MDL_PARTICLES_CLUSTERED)
            {
              const guint32 *c = p + MDL_PARTICLE_WORDS * (k - k % MDL_PARTICLE_CLUSTER);
              for (int a = 0; a < 3; a++)
                assert_true (ABS ((gint64) q[a] - (gint64) c[a]) < 2 * (side / 64));
            }
        }
    }
}

/* Ensure particle k depends on the seed and k only: the first 100 of a set of 100 and of 5000 are
 * the same, and another seed moves them. */
static void
test_particles_depend_on_seed_and_index_only (void **state)
{
  (void) state;
  for (int dist = 0; dist < MDL_PARTICLES_N_DISTS; dist++)
    {
      g_autofree guint32 *a = particles_new (dist, 100), *b = particles_new (dist, 5000);
      g_autofree guint32 *c = g_new (guint32, MDL_PARTICLE_WORDS * 100);
      mdl_particles_fill (c, 100, dist, 2);
      assert_memory_equal (a, b, MDL_PARTICLE_WORDS * 4 * 100);
      assert_memory_not_equal (a, c, MDL_PARTICLE_WORDS * 4 * 100);
    }
}

/* Ensure the reference builds the tree its definition gives on 9 placed particles, threshold 2.
 * The root (9 > 2) splits: child 0 (every coordinate below half the side) gets particles 0-4,
 * child 1 particle 8, child 7 particles 5-7, moved stably to [0,5), [5,6), [6,9). Child 0 (path 8)
 * splits: its child 0 gets 0-2 at [0,3), its child 7 (path 71) 3-4 at [3,5), a leaf. Child 7
 * (path 15) splits: its child 0 (path 120) gets 5 at [6,7), its child 1 (path 121) 6-7 at [7,9).
 * Path 64 (3 > 2) splits: child 0 (path 512) gets 0-1 at [0,2), child 7 (path 519) 2 at [2,3).
 * So 3 levels, 4 tasks (paths 1, 8, 15, 64) and 6 leaves. */
static void
test_reference_builds_a_hand_derived_tree (void **state)
{
  const guint32 h = MDL_PARTICLE_SIDE / 2, q = h / 2, e = q / 2;
  const guint32 pts[][3] = {
    { 0, 0, 0 }, { 1, 0, 0 }, { e, e, e }, { q, q, q }, { q + 1, q, q },
    { h, h, h }, { h + q, h, h }, { h + q + 1, h, h }, { h, 0, 0 },
  };
  const MdlOctreeLeaf want[] = {
    { 9, 5, 1 }, { 71, 3, 2 }, { 120, 6, 1 }, { 121, 7, 2 }, { 512, 0, 2 }, { 519, 2, 1 },
  };
  guint32 p[G_N_ELEMENTS (pts) * MDL_PARTICLE_WORDS];
  g_autofree MdlOctreeLeaf *leaves = NULL;
  MdlOctreeShape shape;
  guint64 nl;
  (void) state;
  for (guint k = 0; k < G_N_ELEMENTS (pts); k++)
    {
      memcpy (p + MDL_PARTICLE_WORDS * k, pts[k], 12);
      p[MDL_PARTICLE_WORDS * k + 3] = k;
    }
  leaves = reference (p, G_N_ELEMENTS (pts), 2, &nl, &shape);
  assert_int_equal (nl, G_N_ELEMENTS (want));
  for (guint l = 0; l < nl; l++)
    {
      assert_int_equal (leaves[l].path, want[l].path);
      assert_int_equal (leaves[l].count, want[l].count);
      assert_int_equal (leaves[l].start, want[l].start);
    }
  assert_int_equal (shape.levels, 3);
  assert_int_equal (shape.tasks, 4);   /* root; its 0 and 7; 0's 0 */
}

/* Ensure every leaf of the reference is what a brute-force count finds: its cell holds exactly
 * its count of particles, its parent's cell more than the threshold, and the counts sum to n. */
static void
test_reference_agrees_with_brute_force (void **state)
{
  const guint64 n = 3000;
  (void) state;
  for (int dist = 0; dist < MDL_PARTICLES_N_DISTS; dist++)
    for (guint threshold = 1; threshold <= 40; threshold += 13)
      {
        g_autofree guint32 *p = particles_new (dist, n);
        g_autofree MdlOctreeLeaf *leaves = NULL;
        MdlOctreeShape shape;
        guint64 nl, sum = 0;
        leaves = reference (p, n, threshold, &nl, &shape);
        for (guint64 l = 0; l < nl; l++)
          {
            guint32 depth = mdl_octree_depth (leaves[l].path);
            guint64 in_cell = 0, in_parent = 0;
            for (guint64 k = 0; k < n; k++)
              {
                const guint32 *q = p + MDL_PARTICLE_WORDS * k;
                in_cell += cell_of (q, depth) == leaves[l].path;
                in_parent += depth > 0 && cell_of (q, depth - 1) == leaves[l].path / 8;
              }
            assert_int_equal (in_cell, leaves[l].count);
            assert_true (leaves[l].count >= 1 && leaves[l].count <= threshold);
            if (depth > 0)
              assert_true (in_parent > threshold);
            sum += leaves[l].count;
          }
        assert_int_equal (sum, n);
        assert_int_equal (shape.leaves, nl);
      }
}

/* Builds @n particles of @dist under @bal on a simulated GPU (no sink) with @blocks blocks, of
 * which @resident at once (0: all) under @clock (NULL: round robin), asserts that the build
 * succeeded and that its leaves equal the reference's, and returns its counters. */
static MdlOctreeStats
build (const MdlBalancer *bal, MdlParticleDist dist, guint64 n, guint threads, guint blocks,
       guint resident, const MdlSimtClock *clock, guint threshold)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autofree MdlOctreeLeaf *leaves = NULL, *want = NULL;
  MdlOctreeShape shape;
  MdlOctreeStats st;
  GError *error = NULL;
  guint64 addr = mdl_simt_alloc (gpu, 16 * n, &error), nl, n_want, sum = 0;
  assert_true (addr != 0);
  mdl_particles_fill (mdl_simt_host (gpu, addr), n, dist, 1);
  want = reference (mdl_simt_host (gpu, addr), n, threshold, &n_want, &shape);
  if (!mdl_octree_build (gpu, bal, addr, n, threads, blocks, resident, clock, threshold, 4, &leaves,
                         &nl, &st, &error))
    fail_msg ("%s dist %d n=%" G_GUINT64_FORMAT " T=%u B=%u R=%u: %s", bal->name, dist, n,
              threads, blocks, resident, error->message);
  assert_int_equal (nl, n_want);
  assert_memory_equal (leaves, want, nl * sizeof *want);
  for (guint64 l = 0; l < nl; l++)
    {
      assert_true (leaves[l].count <= threshold);
      sum += leaves[l].count;
    }
  assert_int_equal (sum, n);
  assert_int_equal (st.finishers, 1);
  assert_int_equal (st.tasks, shape.tasks);
  return st;
}

/* Ensure all four balancers build the reference's tree (§5.4 item 20) on every set, at sizes
 * around the threshold and larger, with several shapes (threads, blocks, resident blocks: all,
 * one at a time, some): same leaves (path, first particle, count), Σ counts = n, every leaf ≤
 * threshold, the termination counter reaching n exactly once. */
static void
test_every_balancer_builds_the_reference_tree (void **state)
{
  static const guint64 sizes[] = { 1, 20, 21, 200, 5000 };
  static const guint shapes[][3] = { { 8, 1, 0 }, { 32, 3, 0 }, { 32, 3, 1 }, { 72, 32, 5 },
                                     { 72, 32, 0 } };
  (void) state;
  for (gsize b = 0; b < G_N_ELEMENTS (balancers); b++)
    for (int dist = 0; dist < MDL_PARTICLES_N_DISTS; dist++)
      for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (gsize k = 0; k < G_N_ELEMENTS (shapes); k++)
          build (balancers[b], dist, sizes[s], shapes[k][0], shapes[k][1], shapes[k][2], NULL,
                 20);
}

/* Ensure the static list needs one launch per level: on the thesis's case, tube with 500,000
 * particles and threshold 20, that is 7 (§5.4 item 21), against log8(n/20) = 4.87 levels of a
 * balanced tree; after 3 launches there are more tasks (32) than the 8800GT's 14 multiprocessors.
 * The uniform set needs 6. */
static void
test_static_list_tube_500k_takes_7_iterations (void **state)
{
  const guint64 n = 500000;
  g_autofree guint32 *tube = particles_new (MDL_PARTICLES_TUBE, n);
  g_autofree guint32 *uniform = particles_new (MDL_PARTICLES_UNIFORM, n);
  g_autofree MdlOctreeLeaf *a = NULL, *b = NULL;
  MdlOctreeShape shape;
  MdlOctreeStats st;
  guint64 nl;
  (void) state;
  a = reference (tube, n, 20, &nl, &shape);
  assert_int_equal (shape.levels, 7);
  assert_int_equal (shape.tasks_at[3], 32);
  assert_true (shape.tasks_at[3] > 14);
  assert_true (fabs (log ((double) n / 20) / log (8) - 4.87) < 0.005);
  b = reference (uniform, n, 20, &nl, &shape);
  assert_int_equal (shape.levels, 6);
  st = build (&mdl_balancer_static, MDL_PARTICLES_TUBE, n, 32, 1, 0, NULL, 20);
  assert_int_equal (st.rounds + 1, 7);
}

/* Ensure the task counts (threshold 20) are the reference's: the tube makes more tasks than the
 * uniform set at the thesis's n = 500,000 (§5.4 item 22, Fig. 3.5) and at 50,000, but not at every
 * n: the uniform set's count jumps when n/8^k passes the threshold (every cell of a level splits
 * at once), so at 20,000 and 200,000 it makes more (docs/models/balance-octree.md). */
static void
test_tube_makes_more_tasks_than_uniform_at_500k (void **state)
{
  static const struct { guint64 n, uniform, tube; } rows[] = {
    { 20000, 585, 330 }, { 50000, 639, 1812 }, { 200000, 4681, 3323 }, { 500000, 7723, 15195 },
  };
  (void) state;
  for (gsize r = 0; r < G_N_ELEMENTS (rows); r++)
    {
      g_autofree guint32 *tube = particles_new (MDL_PARTICLES_TUBE, rows[r].n);
      g_autofree guint32 *uniform = particles_new (MDL_PARTICLES_UNIFORM, rows[r].n);
      g_autofree MdlOctreeLeaf *a = NULL, *b = NULL;
      MdlOctreeShape st, su;
      guint64 nl;
      a = reference (tube, rows[r].n, 20, &nl, &st);
      b = reference (uniform, rows[r].n, 20, &nl, &su);
      assert_int_equal (su.tasks, rows[r].uniform);
      assert_int_equal (st.tasks, rows[r].tube);
    }
}

/* Ensure the static list pays one launch cost per level and a persistent balancer two (the
 * root's launch and its own), whatever else they do: on the 8800gt preset a launch costs 322 MP
 * instructions (test-agpu.c derives it), and tube 20,000 takes 6 levels (launches 0..5). */
static void
test_static_list_pays_a_launch_per_level (void **state)
{
  g_autoptr (MdlReport) st = test_run_algo ("balance/static:dist=tube", 20000, 1,
                                            "agpu:machine=8800gt", NULL);
  g_autoptr (MdlReport) abp = test_run_algo ("balance/abp:dist=tube,blocks=8", 20000, 1,
                                             "agpu:machine=8800gt", NULL);
  (void) state;
  assert_int_equal (test_report_count (st, "launches"), 6);
  assert_int_equal (test_report_count (st, "launch_time"), 6 * 322);
  assert_int_equal (test_report_count (abp, "launches"), 2);
  assert_int_equal (test_report_count (abp, "launch_time"), 2 * 322);
}

/* Ensure the model's static list has the thesis's thread curve (§3.7, §5.4 item 26): on the 8800
 * GT preset its AGPU time falls from 16 to 24 to 32 threads a block, rises past 32 (40 threads:
 * a second warp of 8 lanes, charged as a whole warp's instructions) and again past 64 (72: a
 * third warp of 8 lanes), and 32 is the best of them all. Tube, n = 50,000. */
static void
test_static_list_is_best_at_32_threads (void **state)
{
  static const guint threads[] = { 16, 24, 32, 40, 64, 72, 96 };
  guint64 time[G_N_ELEMENTS (threads)];
  (void) state;
  for (gsize i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autofree char *spec = g_strdup_printf ("balance/static:dist=tube,threads=%u", threads[i]);
      g_autoptr (MdlReport) r = test_run_algo (spec, 50000, 1, "agpu:machine=8800gt", NULL);
      time[i] = test_report_count (r, "time");
    }
  assert_true (time[0] > time[1] && time[1] > time[2]);   /* 16 > 24 > 32 */
  assert_true (time[3] > time[2]);                        /* drops after 32 */
  assert_true (time[5] > time[4]);                        /* drops after 64 */
  for (gsize i = 0; i < G_N_ELEMENTS (threads); i++)
    if (i != 2 && time[i] <= time[2])
      fail_msg ("%u threads: %" G_GUINT64_FORMAT " is not above 32 threads' %" G_GUINT64_FORMAT,
                threads[i], time[i], time[2]);
}

/* Ensure the persistent kernels contend when their blocks are resident at once (8 blocks on
 * 20,000 tube particles): the blocking queue's waiters fail CASes on the lock, the lock-free
 * queue's dequeues lose slots to each other, ABP steals, and no block does all the tasks; with one
 * block resident at a time, block 0 does every task and no CAS fails. */
static void
test_persistent_balancers_contend_when_resident_together (void **state)
{
  MdlOctreeStats st;
  (void) state;
  for (gsize b = 1; b < G_N_ELEMENTS (balancers); b++)
    {
      st = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 8, 0, NULL, 20);
      assert_true (st.max_tasks_block < st.tasks);
      if (balancers[b] == &mdl_balancer_abp)
        assert_true (st.steals > 0);
      else
        assert_true (st.cas_failures > 0);
      st = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 8, 1, NULL, 20);
      assert_int_equal (st.max_tasks_block, st.tasks);
      assert_int_equal (st.cas_failures, 0);
      assert_int_equal (st.steals, 0);
    }
}

/* Ensure a build under the interleaved schedule is deterministic: the same counters (CAS
 * failures, idle turns, steals, the busiest block's tasks) twice. */
static void
test_interleaved_builds_are_deterministic (void **state)
{
  (void) state;
  for (gsize b = 1; b < G_N_ELEMENTS (balancers); b++)
    {
      MdlOctreeStats x = build (balancers[b], MDL_PARTICLES_CLUSTERED, 5000, 32, 6, 4, NULL, 20);
      MdlOctreeStats y = build (balancers[b], MDL_PARTICLES_CLUSTERED, 5000, 32, 6, 4, NULL, 20);
      assert_memory_equal (&x, &y, sizeof x);
    }
}

/* Ensure the lock-free queue's per-site counts add up: every task is dequeued once (the root
 * from the seeded queue) and every task but the root enqueued once, so the successful slot CASes
 * of get and of put are the tasks and the tasks less one; the rest of the balancer's CASes are
 * the lazy pointer moves, one at most per slot filled or emptied at a multiple of lazy (4). */
static void
test_lockfree_sites_add_up (void **state)
{
  static const MdlParticleDist dists[] = { MDL_PARTICLES_TUBE, MDL_PARTICLES_UNIFORM };
  (void) state;
  for (gsize d = 0; d < G_N_ELEMENTS (dists); d++)
    {
      MdlOctreeStats st = build (&mdl_balancer_lockfree, dists[d], 20000, 32, 8, 0, NULL, 20);
      guint64 moves = st.cas_attempts - st.get_cas - st.put_cas;
      assert_int_equal (st.get_cas - st.get_cas_failures, st.tasks);
      assert_int_equal (st.put_cas - st.put_cas_failures, st.tasks - 1);
      assert_true (st.get_cas_failures > 0 && st.put_cas_failures > 0);
      assert_true (st.get_cas + st.put_cas <= st.cas_attempts);
      assert_true (moves <= 2 * (st.tasks / 4 + 1));
      /* Every attempt's scan reads its pointer's slot at least; a get that found no task is an
       * attempt that read an EMPTY slot. */
      assert_true (st.get_slots >= st.get_cas + st.idle_turns);
      assert_true (st.put_slots >= st.put_cas);
    }
}

/* Ensure the clocked schedule with equal latencies builds with the round robin's counters exactly
 * (every balancer, 6 blocks on 4 or 3 SMs), and that a spread of the SMs' latencies, with which
 * the CASes fall otherwise, still builds the reference tree (build() checks it) with the same
 * tasks, with ops acting at their issue or at their arrival, and with a per-instruction jitter,
 * the same twice. */
static void
test_clocked_builds_keep_the_tree (void **state)
{
  g_autoptr (MdlSimtClock) equal4 = mdl_simt_clock_new (4, 800, 0);
  g_autoptr (MdlSimtClock) equal3 = mdl_simt_clock_new (3, 1000, 0);
  g_autoptr (MdlSimtClock) spread = mdl_simt_clock_new (6, 1000, 0);
  g_autoptr (MdlSimtClock) arrive = mdl_simt_clock_new (6, 1000, 0);
  (void) state;
  mdl_simt_clock_spread (spread, 15, 7);
  mdl_simt_clock_spread (arrive, 15, 7);
  mdl_simt_clock_set_effect (arrive, MDL_SIMT_EFFECT_ARRIVE);
  g_autoptr (MdlSimtClock) jitter = mdl_simt_clock_new (4, 800, 0);
  mdl_simt_clock_set_jitter (jitter, 20, 3);
  for (gsize b = 1; b < G_N_ELEMENTS (balancers); b++)
    {
      MdlOctreeStats rr = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, NULL, 20);
      MdlOctreeStats e4 = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, equal4, 20);
      MdlOctreeStats e3 = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, equal3, 20);
      MdlOctreeStats sp = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, spread, 20);
      MdlOctreeStats ar = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, arrive, 20);
      assert_memory_equal (&rr, &e4, sizeof rr);
      assert_memory_equal (&rr, &e3, sizeof rr);
      assert_int_equal (sp.tasks, rr.tasks);
      assert_int_equal (ar.tasks, rr.tasks);
      {
        /* A jitter draws anew for every memory instruction but from one seeded generator. */
        MdlOctreeStats j1 = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, jitter, 20);
        MdlOctreeStats j2 = build (balancers[b], MDL_PARTICLES_TUBE, 20000, 32, 6, 0, jitter, 20);
        assert_memory_equal (&j1, &j2, sizeof j1);
        assert_int_equal (j1.tasks, rr.tasks);
        if (memcmp (&j1, &e4, sizeof j1) == 0)
          fail_msg ("%s: a 20%% jitter left every counter as with none", balancers[b]->name);
      }
      if (memcmp (&sp, &rr, sizeof rr) == 0)
        fail_msg ("%s: a 15%% spread left every counter as under the round robin",
                  balancers[b]->name);
    }
}

/* The lock-free balancer run natively with one parameter @assignment must fail with @code and a
 * message starting with @prefix. */
static void
assert_lockfree_run_fails (const char *assignment, int code, const char *prefix)
{
  const MdlAlgo *algo = mdl_algo_lookup ("balance/lockfree", NULL);
  const char *const assignments[] = { assignment, NULL };
  g_autoptr (MdlParams) params = mdl_params_parse ("balance/lockfree", algo->params, assignments,
                                                   NULL);
  GError *error = NULL;
  guint64 checksum;
  assert_non_null (params);
  assert_false (algo->run_native (params, 1000, 1, NULL, &checksum, &error));
  assert_mdl_error (error, code, prefix);
}

/* Ensure a balancer's clock parameters that name a table it cannot read are an error that names
 * the file, through the algorithm's entry point. */
static void
test_unreadable_latency_table_is_an_io_error (void **state)
{
  (void) state;
  assert_lockfree_run_fails ("clock=/nonexistent/sm.csv", MDL_ERROR_IO,
                             "balance/lockfree: latency table: ");
}

/* Ensure ops acting at their arrival with no latencies to arrive by (the round robin) is a
 * parameter error that says what it needs, not a silent round robin. */
static void
test_arrival_without_latencies_is_a_param_error (void **state)
{
  (void) state;
  assert_lockfree_run_fails ("clock_effect=arrive", MDL_ERROR_PARAM,
                             "balance/lockfree: clock_effect=arrive needs latencies");
}

/* Ensure bad parameters are refused with the balancer's name. */
static void
test_bad_parameters_are_param_errors (void **state)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_new (NULL, 32);
  g_autofree MdlOctreeLeaf *leaves = NULL;
  MdlOctreeStats st;
  GError *error = NULL;
  guint64 addr = mdl_simt_alloc (gpu, 16 * 64, &error), nl;
  (void) state;
  assert_false (mdl_octree_build (gpu, &mdl_balancer_abp, addr, 64, 4, 2, 0, NULL, 20, 1, &leaves,
                                  &nl, &st, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "balance/abp: threads must be 8..1024");
  assert_false (mdl_octree_build (gpu, &mdl_balancer_static, addr, 64, 32, 1, 0, NULL, 0, 1, &leaves,
                                  &nl, &st, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "threshold and lazy at least 1");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_particle_sets_keep_their_shapes),
    cmocka_unit_test (test_particles_depend_on_seed_and_index_only),
    cmocka_unit_test (test_reference_builds_a_hand_derived_tree),
    cmocka_unit_test (test_reference_agrees_with_brute_force),
    cmocka_unit_test (test_every_balancer_builds_the_reference_tree),
    cmocka_unit_test (test_static_list_tube_500k_takes_7_iterations),
    cmocka_unit_test (test_tube_makes_more_tasks_than_uniform_at_500k),
    cmocka_unit_test (test_static_list_pays_a_launch_per_level),
    cmocka_unit_test (test_static_list_is_best_at_32_threads),
    cmocka_unit_test (test_persistent_balancers_contend_when_resident_together),
    cmocka_unit_test (test_interleaved_builds_are_deterministic),
    cmocka_unit_test (test_lockfree_sites_add_up),
    cmocka_unit_test (test_clocked_builds_keep_the_tree),
    cmocka_unit_test (test_arrival_without_latencies_is_a_param_error),
    cmocka_unit_test (test_unreadable_latency_table_is_an_io_error),
    cmocka_unit_test (test_bad_parameters_are_param_errors),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
