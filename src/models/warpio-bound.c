/* The lower bounds of the warp-centric I/O model (include/models/warpio.h): the thesis's counting
 * inequalities (§4.1) evaluated in logarithms with lgamma, so that n up to 2^64 costs O(1).
 * Rules: spec vat-thesis-jurkiewicz.md §5.9, docs/models/warpio.md. */
#include <models/error.h>
#include <models/warpio.h>

#include <math.h>

/* ln C(m, k). */
static double
ln_binomial (double m, double k)
{
  return lgamma (m + 1) - lgamma (k + 1) - lgamma (m - k + 1);
}

/* The least integer t >= 0 with t x @per_turn >= @need (both natural logarithms). A ratio within
 * rounding of an integer k is k: outputs = base^k happens exactly (n = 4, S = 1, c = 3: 4! = 24^1),
 * and the log-gamma sums cannot tell it from a hair above. */
static double
least_turns (double need, double per_turn)
{
  double x = need / per_turn, k = round (x);
  if (need <= 0)
    return 0;
  return fabs (x - k) <= 1e-9 * k ? k : ceil (x);
}

gboolean
mdl_warpio_bound (guint64 n, guint64 P, guint64 S, guint64 c, guint64 l, MdlWarpioBound *out,
                  GError **error)
{
  const struct { const char *name; guint64 value; } args[] = {
    { "n", n }, { "P", P }, { "S", S }, { "c", c }, { "l", l },
  };
  double dn = (double) n, dS = (double) S, dP = (double) P, cache, outputs;
  for (guint i = 0; i < G_N_ELEMENTS (args); i++)
    if (args[i].value == 0)
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "warpio bound: %s=0, must be at least 1",
                     args[i].name);
        return FALSE;
      }
  if (c * l < 2 || c * l / l != c)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "warpio bound: c x l = %" G_GUINT64_FORMAT
                   " x %" G_GUINT64_FORMAT " must be at least 2 (and fit 64 bits): a cache of one "
                   "block cannot sort", c, l);
      return FALSE;
    }
  cache = (double) (c * l);
  /* ln of the outputs to tell apart: n! / (S!)^(n/S), each block permuted for free at its last
   * access. */
  outputs = lgamma (dn + 1) - dn / dS * lgamma (dS + 1);
  out->permute = least_turns (outputs, dP * (log (2 * dn / dS) + ln_binomial (cache * dS, dS)));
  out->sort = least_turns (outputs, dP * ln_binomial (cache * dS, dS));
  /* (n/(eS))^n < n!/(S!)^(n/S) and C(cS, S) < (ce)^S */
  out->permute_relaxed = dn * (log (dn / dS) - 1)
                         / (dP * (log (2 * dn / dS) + dS * (log (cache) + 1)));
  out->sort_relaxed = dn * (log (dn / dS) - 1) / (dP * dS * (log (cache) + 1));
  return TRUE;
}
