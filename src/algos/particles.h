/* Private: the particle sets of the load-balancing benchmark (Cederman's thesis §3.6; the reading
 * notes ../shared/spec/gpu-quicksort-cederman.md §3.6), one generator for the CPU reference, the
 * SIMT twins and the CUDA harness, so that every side sees the same particles for the same seed.
 *
 * A particle is four 32-bit words (x, y, z, id), the float4 of the thesis's code with integer
 * coordinates: each coordinate has MDL_PARTICLE_BITS bits, so the octant of a particle at depth d
 * is bit (MDL_PARTICLE_BITS − 1 − d) of each coordinate, exact on every side (no float rounding).
 * Particle k depends only on the seed and k, as keys.h's keys do.
 *
 * The thesis names two sets and gives no dimensions: "uniform" (random in a cube) and "tube"
 * (random in a space shaped like a tube, Fig. 3.1). Our tube is a solid cylinder along x through
 * the cube's centre, of radius 1/8 of the side: with 500,000 particles and threshold 20 it needs
 * the thesis's 7 levels (radius 1/4 also gives 7, 1/16 gives 8; docs/models/balance-octree.md). The third set, "clustered",
 * is what the thesis's released benchmark generates instead: clusters of 100 particles.
 *
 * Only <stdint.h> and <string.h>: nvcc compiles it too (no GLib on the GPU machine). */
#ifndef MDL_PARTICLES_H
#define MDL_PARTICLES_H

#include <stdint.h>
#include <string.h>

#include "../core/splitmix.h"

/* MDL_PARTICLE_DISTS (X) calls X (NAME, DESCRIPTION) in the order of MdlParticleDist. */
#define MDL_PARTICLE_DISTS(X)                                                                      \
  X ("uniform", "independent uniform points of the cube")                                         \
  X ("tube", "uniform points of a cylinder along x through the centre, radius 1/8 of the side")        \
  X ("clustered", "clusters of 100 points, each within 1/64 of the side of a uniform centre")

/* The sets as a parameter's choices: choice i is MdlParticleDist i. */
#define MDL_PARTICLE_DIST_CHOICES "uniform|tube|clustered"

typedef enum {
  MDL_PARTICLES_UNIFORM = 0,
  MDL_PARTICLES_TUBE,
  MDL_PARTICLES_CLUSTERED,
  MDL_PARTICLES_N_DISTS
} MdlParticleDist;

/* Bits per coordinate: the cube is [0, 2^21)^3, and an octree has at most 21 levels below the
 * root before two particles can only share a cell by being equal. */
#define MDL_PARTICLE_BITS 21u
#define MDL_PARTICLE_SIDE (1u << MDL_PARTICLE_BITS)
/* Particles per cluster of "clustered" (the released benchmark's 100). */
#define MDL_PARTICLE_CLUSTER 100u

/* Words per particle: x, y, z, id. */
#define MDL_PARTICLE_WORDS 4u

/* Draw @i of particle @k for @seed: a uniform 64-bit number. Draws are numbered 16 per particle,
 * the most any particle's rejection sampling may use before it gives up (see below). */
static inline uint64_t
mdl_particle_draw (uint64_t seed, uint64_t k, uint64_t i)
{
  return mdl_splitmix64_mix (seed + (16 * k + i + 1) * MDL_SPLITMIX64_GAMMA);
}

/* A uniform coordinate in [0, @side) from @r (@side ≤ 2^32). */
static inline uint32_t
mdl_particle_coord (uint64_t r, uint32_t side)
{
  return (uint32_t) (((r >> 32) * side) >> 32);
}

/* Writes particle @k of @dist for @seed into @p (MDL_PARTICLE_WORDS words). */
static inline void
mdl_particle_make (MdlParticleDist dist, uint64_t seed, uint64_t k, uint32_t *p)
{
  const uint32_t side = MDL_PARTICLE_SIDE;
  p[0] = mdl_particle_coord (mdl_particle_draw (seed, k, 0), side);
  p[1] = mdl_particle_coord (mdl_particle_draw (seed, k, 1), side);
  p[2] = mdl_particle_coord (mdl_particle_draw (seed, k, 2), side);
  p[3] = (uint32_t) k;
  if (dist == MDL_PARTICLES_TUBE)
    {
      /* (y, z) uniform in the disc by rejection from the square around it: the disc covers π/4
       * of the square, so all 15 tries fail with probability about 10^-10; such a particle lands
       * on the axis rather than looping on. */
      const int64_t radius = side / 8, c = side / 2;
      int64_t dy = 0, dz = 0;
      for (uint64_t i = 1; i < 16; i++)
        {
          uint64_t r = mdl_particle_draw (seed, k, i);
          int64_t y = (int64_t) mdl_particle_coord (r, (uint32_t) (2 * radius)) - radius;
          int64_t z = (int64_t) mdl_particle_coord (r << 32, (uint32_t) (2 * radius)) - radius;
          if (y * y + z * z < radius * radius)
            {
              dy = y;
              dz = z;
              break;
            }
        }
      p[1] = (uint32_t) (c + dy);
      p[2] = (uint32_t) (c + dz);
    }
  else if (dist == MDL_PARTICLES_CLUSTERED)
    {
      /* The cluster's centre from the draws of its first particle's number; the offsets within
       * ±side/64 from this particle's own draws. */
      const uint32_t reach = side / 64;
      uint64_t first = k - k % MDL_PARTICLE_CLUSTER;
      for (int a = 0; a < 3; a++)
        {
          uint32_t centre = reach + mdl_particle_coord (mdl_particle_draw (seed, first, 3 + a),
                                                        side - 2 * reach);
          p[a] = centre - reach + mdl_particle_coord (mdl_particle_draw (seed, k, 6 + a), 2 * reach);
        }
    }
}

/* Fills @p with @n particles (MDL_PARTICLE_WORDS words each) of @dist for @seed. */
static inline void
mdl_particles_fill (uint32_t *p, uint64_t n, MdlParticleDist dist, uint64_t seed)
{
  for (uint64_t k = 0; k < n; k++)
    mdl_particle_make (dist, seed, k, p + MDL_PARTICLE_WORDS * k);
}

#endif
