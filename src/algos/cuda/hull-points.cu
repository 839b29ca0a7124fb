/* What the two GPU hulls share (twin.h): the case's point distribution and the check of a hull
 * against the monotone chain of src/algos/points.h (the SIMT twin's check, as a cycle). */
#include <cstring>

#include "twin.h"

MdlPointDist
mdl_cuda_point_dist (const Case &c)
{
  std::string d = c.text ("dist", "disc"), all = MDL_POINT_DIST_CHOICES;
  size_t at = 0;
  for (int k = 0;; k++)
    {
      size_t bar = all.find ('|', at);
      if (all.substr (at, bar - at) == d || bar == std::string::npos)
        return (MdlPointDist) k;
      at = bar + 1;
    }
}

long
mdl_cuda_check_hull (const Case &c, const Buffers &b, MdlPointPrec prec)
{
  size_t n = (size_t) c.n, room = b.out.size () / mdl_point_bytes (prec);
  uint64_t h, failed = 0;
  memcpy (&h, b.out2.data (), sizeof h);
  if (b.out2.size () >= 2 * sizeof h)
    memcpy (&failed, b.out2.data () + sizeof h, sizeof failed);
  if (failed)
    {
      fprintf (stderr, "%s: a kernel gave up (flag %llu: 1 a warp's stack overflowed, 2 a warp "
               "made no progress, 4 an invariant of Algorithm 5 failed)\n", c.spec.c_str (),
               (unsigned long long) failed);
      return 1;
    }
  if (h > room)
    {
      fprintf (stderr, "%s: %llu vertices, more than the output's %zu slots\n", c.spec.c_str (),
               (unsigned long long) h, room);
      return 1;
    }
  std::vector<double> xy (2 * n + 2), ref (2 * n + 2), got (2 * h + 2);
  for (size_t k = 0; k < n; k++)
    mdl_point_get (b.in.data (), prec, k, &xy[2 * k], &xy[2 * k + 1]);
  for (size_t k = 0; k < h; k++)
    mdl_point_get (b.out.data (), prec, k, &got[2 * k], &got[2 * k + 1]);
  int64_t hv = mdl_hull_chain (xy.data (), n, ref.data ());
  if (hv < 0)
    {
      fprintf (stderr, "gpu-kernels: %s: out of host memory\n", c.spec.c_str ());
      exit (2);
    }
  int64_t at = mdl_hull_diff (ref.data (), hv, got.data (), (int64_t) h);
  if (at >= 0)
    fprintf (stderr, "%s: %llu vertices, the chain has %lld; first difference at %lld\n",
             c.spec.c_str (), (unsigned long long) h, (long long) hv, (long long) at);
  return at >= 0;
}
