/* Private: the octree partitioning of the load-balancing benchmark (Cederman's thesis §3.6; the
 * reading notes ../shared/spec/gpu-quicksort-cederman.md §3.6): what its tasks and leaves are, and
 * the sequential reference every balancer's tree is checked against (the SIMT twins, the CUDA
 * harness, the tests).
 *
 * A node is named by its path: 1 for the root, and 8p + c for child c of node p, so the depth is
 * (bit length − 1) / 3 and the path orders nodes by depth, then position. Child c of a node of
 * depth d holds the particles whose bit MDL_PARTICLE_BITS − 1 − d is c & 1 in x, (c >> 1) & 1 in y
 * and (c >> 2) & 1 in z (particles.h). Splitting a task of depth d moves its particles, stably by
 * child (counting sort), from buffer d mod 2 to the same range of buffer (d + 1) mod 2; a child
 * with more than the threshold particles becomes a task, one with 1..threshold a leaf (an empty
 * child is nothing). A child at depth MDL_PARTICLE_BITS cannot be split and is a leaf whatever its
 * count (only equal particles can share it). A leaf's record names its path, where its particles
 * start in the buffer of its depth's parity, and how many there are: the same on every side.
 *
 * Only <stdint.h>, <stdlib.h> and <string.h>: nvcc compiles it too. */
#ifndef MDL_OCTREE_H
#define MDL_OCTREE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "particles.h"

/* What the CUDA twins' kernels call too. */
#ifdef __CUDACC__
#define MDL_OCTREE_HD __host__ __device__
#else
#define MDL_OCTREE_HD
#endif

/* The thesis's leaf threshold: no octant of the result holds more particles. */
#define MDL_OCTREE_THRESHOLD 20u
/* The deepest level a node can have. */
#define MDL_OCTREE_MAX_DEPTH MDL_PARTICLE_BITS

/* A leaf: path, first particle, particle count (16 bytes, as the twins store it). */
typedef struct {
  uint64_t path;
  uint32_t start;
  uint32_t count;
} MdlOctreeLeaf;

/* What the reference build saw: levels split (the static list's iterations), tasks split in all
 * and per level. */
typedef struct {
  uint32_t levels;
  uint64_t tasks;
  uint64_t leaves;
  uint64_t tasks_at[MDL_OCTREE_MAX_DEPTH + 1];
} MdlOctreeShape;

/* The depth of node @path. */
static inline uint32_t
mdl_octree_depth (uint64_t path)
{
  return (uint32_t) ((63 - __builtin_clzll (path)) / 3);
}

/* The child (0..7) of a node of depth @depth that particle @p (x, y, z, id) falls in. */
static inline uint32_t
mdl_octree_octant (const uint32_t *p, uint32_t depth)
{
  uint32_t bit = MDL_PARTICLE_BITS - 1 - depth;
  return ((p[0] >> bit) & 1) | ((p[1] >> bit) & 1) << 1 | ((p[2] >> bit) & 1) << 2;
}

/* TRUE when a child of depth @depth holding @count particles is split further. */
MDL_OCTREE_HD static inline int
mdl_octree_splits (uint64_t count, uint32_t depth, uint32_t threshold)
{
  return count > threshold && depth < MDL_OCTREE_MAX_DEPTH;
}

/* The most tasks a build of @n particles can have at one level (each holds more than @threshold
 * particles of its own), and in all (at most MDL_OCTREE_MAX_DEPTH levels are split). */
static inline uint64_t
mdl_octree_level_bound (uint64_t n, uint32_t threshold)
{
  return n / ((uint64_t) threshold + 1) + 1;
}

static inline uint64_t
mdl_octree_task_bound (uint64_t n, uint32_t threshold)
{
  return MDL_OCTREE_MAX_DEPTH * mdl_octree_level_bound (n, threshold);
}

/* Orders leaves by path (qsort). */
static inline int
mdl_octree_leaf_cmp (const void *x, const void *y)
{
  const MdlOctreeLeaf *a = (const MdlOctreeLeaf *) x, *b = (const MdlOctreeLeaf *) y;
  return (a->path > b->path) - (a->path < b->path);
}

/* The reference: splits the @n particles of @p (MDL_PARTICLE_WORDS words each, left as they are)
 * level by level, one task after the other, and returns the leaves sorted by path in *@leaves
 * (malloc'd, *@n_leaves of them) with the build's @shape. Returns 0 when out of memory. */
static inline int
mdl_octree_reference (const uint32_t *p, uint64_t n, uint32_t threshold, MdlOctreeLeaf **leaves,
                      uint64_t *n_leaves, MdlOctreeShape *shape)
{
  typedef struct { uint64_t path, start, count; } Task;
  uint64_t level_cap = mdl_octree_level_bound (n, threshold), n_tasks = 0, n_next, nl = 0;
  uint32_t *buf[2];
  Task *tasks = (Task *) malloc (level_cap * sizeof *tasks);
  Task *next = (Task *) malloc (level_cap * sizeof *next);
  MdlOctreeLeaf *out = (MdlOctreeLeaf *) malloc ((n ? n : 1) * sizeof *out);
  buf[0] = (uint32_t *) malloc ((n ? n : 1) * MDL_PARTICLE_WORDS * 4);
  buf[1] = (uint32_t *) malloc ((n ? n : 1) * MDL_PARTICLE_WORDS * 4);
  memset (shape, 0, sizeof *shape);
  if (!tasks || !next || !out || !buf[0] || !buf[1])
    {
      free (tasks), free (next), free (out), free (buf[0]), free (buf[1]);
      return 0;
    }
  memcpy (buf[0], p, n * MDL_PARTICLE_WORDS * 4);
  if (mdl_octree_splits (n, 0, threshold))
    tasks[n_tasks++] = (Task) { 1, 0, n };
  else if (n > 0)
    out[nl++] = (MdlOctreeLeaf) { 1, 0, (uint32_t) n };
  for (uint32_t d = 0; n_tasks > 0; d++)
    {
      const uint32_t *src = buf[d % 2];
      uint32_t *dst = buf[(d + 1) % 2];
      shape->levels++;
      shape->tasks += n_tasks;
      shape->tasks_at[d] = n_tasks;
      n_next = 0;
      for (uint64_t t = 0; t < n_tasks; t++)
        {
          uint64_t count[8] = { 0 }, at[8];
          const Task *task = &tasks[t];
          for (uint64_t i = task->start; i < task->start + task->count; i++)
            count[mdl_octree_octant (src + MDL_PARTICLE_WORDS * i, d)]++;
          at[0] = task->start;
          for (int c = 1; c < 8; c++)
            at[c] = at[c - 1] + count[c - 1];
          for (int c = 0; c < 8; c++)
            {
              Task child = { 8 * task->path + (uint64_t) c, at[c], count[c] };
              if (mdl_octree_splits (count[c], d + 1, threshold))
                next[n_next++] = child;
              else if (count[c] > 0)
                out[nl++] = (MdlOctreeLeaf) { child.path, (uint32_t) child.start,
                                              (uint32_t) child.count };
            }
          for (uint64_t i = task->start; i < task->start + task->count; i++)
            {
              const uint32_t *q = src + MDL_PARTICLE_WORDS * i;
              memcpy (dst + MDL_PARTICLE_WORDS * at[mdl_octree_octant (q, d)]++, q,
                      MDL_PARTICLE_WORDS * 4);
            }
        }
      Task *swap = tasks;
      tasks = next;
      next = swap;
      n_tasks = n_next;
    }
  qsort (out, nl, sizeof *out, mdl_octree_leaf_cmp);
  shape->leaves = nl;
  free (tasks), free (next), free (buf[0]), free (buf[1]);
  *leaves = out;
  *n_leaves = nl;
  return 1;
}

#endif
