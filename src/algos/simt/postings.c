/* The GPU decoder of compressed posting lists (Capannini's thesis §3.3.4, Algorithms 8-10) in
 * SIMT C, approach (ii): one block of k threads (k units) is one stream element and decodes one
 * block of k bunches. Thread j stages bunch j's signature (n_j, s_j) in shared memory; PPSUM_k
 * (Hillis-Steele, inclusive, log k predicated steps) gives g and h, and the exclusive values are
 * the inclusive ones less the bunch's own term (the thesis's shift). EXTRACTBUNCH then runs bunch
 * by bunch: in iteration t, lane j decodes codeword c = t·k + j with a BITCPY of the two global
 * words holding bits h_i + c·s_i, and stores it at shared word g_i + c; the block's outputs go
 * out in k-word runs at the end (fetch, decode, flush: whole segments). P4D: n̄-entry bunches,
 * g_i = n̄·i with no PPSUM, then one pass over the block's exception set ORs the high bits in.
 * VS's approach=i is the thesis's rejected approach (i), for its V14 count: lane j decodes bunch j.
 * As the thesis's cost tables (and scan.c), index arithmetic issues nothing; the instructions
 * issued are the memory accesses, the scan's additions, the products n·s, the subtractions that
 * make the sums exclusive, BITCPY and the exceptions' shift-or. Loops over bunches and codewords
 * are predicated, not branches (control is not charged). The output is checked against the
 * encoder's input. Spec: kmodel-capannini.md §4.5, V14; docs/models/postings.md. */
#include "algos/simt/simt-algo.h"

#include <string.h>

#include "algos/postings.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlPostings, mdl_postings_free)

#define COMMON_ROWS                                                                                \
  { "k", MDL_PARAM_UINT, "16", NULL, 2, 32, NULL, MDL_PARAM_POW2,                                  \
    "units = threads of a block = bunches a block decodes" },                                      \
  { "dist", MDL_PARAM_CHOICE, "geometric", NULL, 0, 0, MDL_GAPS_CHOICES, 0,                        \
    "d-gap distribution: geometric (Bernoulli documents) or zipf (Pareto, exponent 1.5)" },        \
  { "mean", MDL_PARAM_UINT, "16", NULL, 0, 1 << 20, NULL, 0, "mean of the geometric d-gaps" }

const MdlParamSpec mdl_postings_vs_params[] = {
  COMMON_ROWS,
  { "bunches", MDL_PARAM_STRING, "opt", NULL, 0, 0, NULL, 0,
    "opt: the partition of least bits; or bunch lengths a.b.c... taken in turn (5.16.33.1: V14)" },
  { "approach", MDL_PARAM_CHOICE, "ii", NULL, 0, 0, "ii|i", 0,
    "ii: codeword c of every bunch to unit c mod k (the thesis's choice); i: unit j decodes bunch "
    "j alone, max n_j iterations (the unbalanced approach it rejects)" },
  { NULL }
};

const MdlParamSpec mdl_postings_p4d_params[] = { COMMON_ROWS, { NULL } };

typedef struct {
  /* device addresses of the encoding's arrays (postings.h) and of the output */
  guint64 count, width, block_bit, block_out, block_exc, words, exc_pos, exc_high, out;
  guint nbar;   /* P4D's n̄; 0 for VS */
  gboolean own_bunch;   /* approach (i) */
} DecodeArgs;

/* Shared words of a block of k threads: the signatures, the inclusive sums, then the outputs. */
#define SH_N(k) 0u
#define SH_S(k) (k)
#define SH_G(k) (2 * (k))
#define SH_H(k) (3 * (k))
#define SH_OUT(k) (4 * (k))

/* Every lane loads the same global 8-byte word @addr into @dst. */
static void
ld_uniform64 (MdlSimtBlock *blk, guint64 addr, guint64 *at, guint64 *dst)
{
  MDL_SIMT_EACH (blk, t)
    at[t] = addr;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 8, at, dst);
}

/* Every lane loads shared word @word into @dst (a broadcast read). */
static void
ld_shared_word (MdlSimtBlock *blk, guint64 word, guint64 *at, guint64 *dst)
{
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * word;
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, dst);
}

/* Lane t stores @src at shared word @base + t. */
static void
st_shared_lane (MdlSimtBlock *blk, guint base, guint64 *at, const guint64 *src)
{
  MDL_SIMT_EACH (blk, t)
    at[t] = 4 * ((guint64) base + t);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, src);
}

/* PPSUM_k (Algorithm 8): Hillis-Steele inclusive scan of shared words @base..@base+k−1 in
 * place; step d: lanes j < k − d add word j into word j + d (all lanes read before any writes:
 * the k lanes are one warp). @x, @y, @at, @at2 are scratch. */
static void
ppsum (MdlSimtBlock *blk, guint base, guint64 *x, guint64 *y, guint64 *at, guint64 *at2)
{
  guint k = blk->n_threads;
  for (guint d = 1; d < k; d *= 2)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = t + d < k;
          at[t] = 4 * ((guint64) base + t);
          at2[t] = 4 * ((guint64) base + t + d);
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at2, y);
      mdl_simt_algo_add32 (blk, x, x, y);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at2, x);
      mdl_simt_pred_end (blk);
    }
}

/* EXTRACTBUNCH (Algorithm 9) for bunch @i of the block: lane j decodes codewords j, j + k, ...
 * from bit @bitbase + h_i into shared words SH_OUT + g_i + c. */
static void
extract_bunch (MdlSimtBlock *blk, const DecodeArgs *a, guint i, guint64 bitbase, guint64 **r)
{
  guint k = blk->n_threads;
  guint64 *n = r[0], *s = r[1], *g = r[2], *h = r[3], *at = r[4], *at2 = r[5], *w0 = r[6];
  guint64 *w1 = r[7];
  ld_shared_word (blk, SH_N (k) + i, at, n);
  ld_shared_word (blk, SH_S (k) + i, at, s);
  ld_shared_word (blk, SH_H (k) + i, at, h);
  /* exclusive from inclusive: h_i = Σ_{j≤i} n_j s_j − n_i s_i; g_i likewise, or n̄·i for P4D */
  mdl_simt_alu (blk, 2);
  MDL_SIMT_EACH (blk, t)
    h[t] = (h[t] - n[t] * s[t]) & 0xffffffffu;
  if (a->nbar == 0)
    {
      ld_shared_word (blk, SH_G (k) + i, at, g);
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        g[t] = (g[t] - n[t]) & 0xffffffffu;
    }
  else
    {
      mdl_simt_alu (blk, 1);
      MDL_SIMT_EACH (blk, t)
        g[t] = (guint64) a->nbar * i;
    }
  /* n_i is uniform: every lane loaded the same word */
  for (guint64 c0 = 0, n_i = n[0]; c0 < n_i; c0 += k)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 bit = bitbase + h[t] + (c0 + t) * s[t];
          cond[t] = c0 + t < n_i;
          at[t] = a->words + 4 * (bit / 32);
          at2[t] = at[t] + 4;
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, w0);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at2, w1);
      mdl_simt_alu (blk, 1);  /* BITCPY: a funnel shift and a mask */
      MDL_SIMT_EACH (blk, t)
        {
          guint64 bit = bitbase + h[t] + (c0 + t) * s[t], two = w0[t] | w1[t] << 32;
          w0[t] = s[t] == 0 ? 0 : (two >> (bit % 32)) & ((G_GUINT64_CONSTANT (1) << s[t]) - 1);
          at[t] = 4 * (SH_OUT (k) + g[t] + c0 + t);
        }
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, w0);
      mdl_simt_pred_end (blk);
    }
}

/* Approach (i), rejected by the thesis: lane j decodes bunch j alone, codeword t in iteration t,
 * for max_j n_j iterations; lanes whose bunch is done idle. */
static void
extract_own_bunch (MdlSimtBlock *blk, const DecodeArgs *a, guint64 bitbase, guint64 **r)
{
  guint k = blk->n_threads;
  guint64 *n = r[0], *s = r[1], *g = r[2], *h = r[3], *at = r[4], *at2 = r[5], *w0 = r[6];
  guint64 *w1 = r[7], most = 0;
  guint64 *const dst[] = { n, s, g, h };
  const guint base[] = { SH_N (k), SH_S (k), SH_G (k), SH_H (k) };
  /* lane j's own signature and sums: consecutive words, conflict-free */
  for (guint q = 0; q < G_N_ELEMENTS (dst); q++)
    {
      MDL_SIMT_EACH (blk, t)
        at[t] = 4 * ((guint64) base[q] + t);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, dst[q]);
    }
  mdl_simt_alu (blk, 3);  /* n·s, and both sums made exclusive */
  MDL_SIMT_EACH (blk, t)
    {
      h[t] = (h[t] - n[t] * s[t]) & 0xffffffffu;
      g[t] = (g[t] - n[t]) & 0xffffffffu;
      most = MAX (most, n[t]);
    }
  for (guint64 c = 0; c < most; c++)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          guint64 bit = bitbase + h[t] + c * s[t];
          cond[t] = c < n[t];
          at[t] = a->words + 4 * (bit / 32);
          at2[t] = at[t] + 4;
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, w0);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at2, w1);
      mdl_simt_alu (blk, 1);  /* BITCPY */
      MDL_SIMT_EACH (blk, t)
        {
          guint64 bit = bitbase + h[t] + c * s[t], two = w0[t] | w1[t] << 32;
          w0[t] = s[t] == 0 ? 0 : (two >> (bit % 32)) & ((G_GUINT64_CONSTANT (1) << s[t]) - 1);
          at[t] = 4 * (SH_OUT (k) + g[t] + c);
        }
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, w0);
      mdl_simt_pred_end (blk);
    }
}

/* P4D's exception pass: lane j takes exceptions j, j + k, ... of the block's set [@e0, @e1) and
 * ORs its high bits, shifted by its bunch's width, into its output. */
static void
patch_exceptions (MdlSimtBlock *blk, const DecodeArgs *a, guint64 e0, guint64 e1, guint64 **r)
{
  guint k = blk->n_threads;
  guint64 *pos = r[0], *high = r[1], *s = r[2], *x = r[3], *at = r[4], *at2 = r[5];
  for (guint64 e = e0; e < e1; e += k)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = e + t < e1;
          at[t] = a->exc_pos + 4 * (e + t);
          at2[t] = a->exc_high + 4 * (e + t);
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, pos);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at2, high);
      MDL_SIMT_EACH (blk, t)
        {
          at[t] = 4 * (SH_S (k) + pos[t] / a->nbar);
          at2[t] = 4 * (SH_OUT (k) + pos[t]);
        }
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, s);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at2, x);
      mdl_simt_alu (blk, 2);  /* shift, or */
      MDL_SIMT_EACH (blk, t)
        x[t] = (x[t] | high[t] << s[t]) & 0xffffffffu;
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at2, x);
      mdl_simt_pred_end (blk);
    }
}

/* The flush: the block's @total outputs from shared memory to global @out, k words at a time. */
static void
flush (MdlSimtBlock *blk, guint64 out, guint64 total, guint64 **r)
{
  guint k = blk->n_threads;
  guint64 *x = r[0], *at = r[1], *at2 = r[2];
  for (guint64 c0 = 0; c0 < total; c0 += k)
    {
      guint8 *cond = mdl_simt_cond (blk);
      MDL_SIMT_EACH (blk, t)
        {
          cond[t] = c0 + t < total;
          at[t] = 4 * (SH_OUT (k) + c0 + t);
          at2[t] = out + 4 * (c0 + t);
        }
      mdl_simt_pred_begin (blk);
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, x);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at2, x);
      mdl_simt_pred_end (blk);
    }
}

/* EXTRACTBLOCK (Algorithm 10) on block blockIdx.x, then P4D's exceptions and the flush. */
static void
decode_kernel (MdlSimtBlock *blk, void *p)
{
  const DecodeArgs *a = p;
  guint k = blk->n_threads;
  guint64 *r[8], bunch0 = (guint64) blk->idx_x * k, *n, *s, *x, *at, *bitbase, *outbase, *end;
  for (guint i = 0; i < G_N_ELEMENTS (r); i++)
    r[i] = mdl_simt_reg (blk, 1);
  n = r[0], s = r[1], x = r[2], at = r[3];
  bitbase = mdl_simt_reg (blk, 1), outbase = mdl_simt_reg (blk, 1), end = mdl_simt_reg (blk, 1);

  /* signatures: thread j reads bunch j's (n_j, s_j) */
  MDL_SIMT_EACH (blk, t)
    at[t] = a->count + 4 * (bunch0 + t);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, n);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->width + 4 * (bunch0 + t);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, s);
  st_shared_lane (blk, SH_N (k), at, n);
  st_shared_lane (blk, SH_S (k), at, s);
  if (a->nbar == 0)
    {
      st_shared_lane (blk, SH_G (k), at, n);
      mdl_simt_phase_begin (blk, "ppsum-g");
      ppsum (blk, SH_G (k), x, r[4], at, r[5]);
      mdl_simt_phase_end (blk, "ppsum-g");
    }
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    x[t] = (n[t] * s[t]) & 0xffffffffu;
  st_shared_lane (blk, SH_H (k), at, x);
  mdl_simt_phase_begin (blk, "ppsum-h");
  ppsum (blk, SH_H (k), x, r[4], at, r[5]);
  mdl_simt_phase_end (blk, "ppsum-h");

  ld_uniform64 (blk, a->block_bit + 8 * (guint64) blk->idx_x, at, bitbase);
  mdl_simt_phase_begin (blk, "extract");
  if (a->own_bunch)
    extract_own_bunch (blk, a, bitbase[0], r);
  else
    for (guint i = 0; i < k; i++)
      extract_bunch (blk, a, i, bitbase[0], r);
  mdl_simt_phase_end (blk, "extract");

  if (a->nbar != 0)
    {
      ld_uniform64 (blk, a->block_exc + 8 * (guint64) blk->idx_x, at, x);
      ld_uniform64 (blk, a->block_exc + 8 * ((guint64) blk->idx_x + 1), at, end);
      mdl_simt_phase_begin (blk, "exceptions");
      patch_exceptions (blk, a, x[0], end[0], r);
      mdl_simt_phase_end (blk, "exceptions");
    }
  ld_uniform64 (blk, a->block_out + 8 * (guint64) blk->idx_x, at, outbase);
  ld_uniform64 (blk, a->block_out + 8 * ((guint64) blk->idx_x + 1), at, end);
  mdl_simt_phase_begin (blk, "flush");
  flush (blk, a->out + 4 * outbase[0], end[0] - outbase[0], r);
  mdl_simt_phase_end (blk, "flush");
}

/* A global copy of @bytes bytes of @src (at least 1 byte allocated); 0 on error. */
static guint64
upload (MdlSimt *gpu, const void *src, gsize bytes, GError **error)
{
  guint64 addr = mdl_simt_alloc (gpu, MAX (bytes, 1), error);
  if (addr && bytes)
    memcpy (mdl_simt_host (gpu, addr), src, bytes);
  return addr;
}

/* *@sizes: the bunch lengths of `bunches=a.b.c`, or NULL for `opt`; FALSE with @error when bad. */
static gboolean
parse_bunches (const char *text, GArray **out, GError **error)
{
  g_auto (GStrv) parts = NULL;
  GArray *sizes;
  *out = NULL;
  if (strcmp (text, "opt") == 0)
    return TRUE;
  parts = g_strsplit (text, ".", -1);
  sizes = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end;
      guint64 v = g_ascii_strtoull (parts[i], &end, 10);
      if (*parts[i] == '\0' || *end != '\0' || v == 0 || v > 1024)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "postings/vs: bunches=%s: '%s' is not "
                       "a bunch length in 1..1024 (give opt or lengths such as 5.16.33.1)", text,
                       parts[i]);
          g_array_free (sizes, TRUE);
          return FALSE;
        }
      guint32 l = (guint32) v;
      g_array_append_val (sizes, l);
    }
  *out = sizes;
  return TRUE;
}

/* Uploads @p, decodes it on the simulated GPU and compares with @want. */
static gboolean
decode_run (const char *algo, const MdlPostings *p, const guint32 *want, gboolean own_bunch,
            MdlRecorder *rec, guint64 *checksum, GError **error)
{
  g_autoptr (MdlSimt) gpu = mdl_simt_algo_gpu_new (rec);
  DecodeArgs a = { .nbar = p->nbar, .own_bunch = own_bunch };
  MdlSimtLaunch shape = { .grid_x = (guint32) p->n_blocks, .block_x = p->k,
                          .shared_bytes = (guint32) (4 * (4 * p->k + mdl_postings_max_block (p))) };
  const guint32 *got;
  gsize blocks8 = 8 * (p->n_blocks + 1);
  if (!(a.count = upload (gpu, p->count, 4 * p->n_bunches, error))
      || !(a.width = upload (gpu, p->width, 4 * p->n_bunches, error))
      || !(a.block_bit = upload (gpu, p->block_bit, blocks8, error))
      || !(a.block_out = upload (gpu, p->block_out, blocks8, error))
      || !(a.block_exc = upload (gpu, p->block_exc, blocks8, error))
      || !(a.words = upload (gpu, p->words, 4 * p->n_words, error))
      || !(a.exc_pos = upload (gpu, p->exc_pos, 4 * p->n_exc, error))
      || !(a.exc_high = upload (gpu, p->exc_high, 4 * p->n_exc, error))
      || !(a.out = mdl_simt_alloc (gpu, 4 * p->n, error))
      || !mdl_simt_launch (gpu, &shape, decode_kernel, &a, error))
    return FALSE;
  got = mdl_simt_host (gpu, a.out);
  for (guint64 i = 0; i < p->n; i++)
    if (got[i] != want[i])
      {
        g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: integer %" G_GUINT64_FORMAT
                     " decodes to %u, the encoder's input has %u", algo, i, got[i], want[i]);
        return FALSE;
      }
  *checksum = mdl_simt_algo_checksum (got, 4 * p->n);
  return TRUE;
}

static gboolean
postings_body (const char *algo, const MdlParams *params, guint64 n, guint64 seed,
               MdlRecorder *rec, guint64 *checksum, GError **error)
{
  guint k = (guint) mdl_params_uint (params, "k");
  gboolean vs = strcmp (algo, "postings/vs") == 0;
  g_autofree guint32 *gaps = NULL;
  g_autoptr (MdlPostings) p = NULL;
  GArray *sizes = NULL;
  if (!mdl_simt_algo_size_ok (algo, n, G_GUINT64_CONSTANT (1) << 26, error))
    return FALSE;
  if (vs && !parse_bunches (mdl_params_string (params, "bunches"), &sizes, error))
    return FALSE;
  gaps = g_new (guint32, n);
  mdl_postings_gaps (gaps, n, (MdlGapDist) mdl_params_choice (params, "dist"),
                     (guint) mdl_params_uint (params, "mean"), seed);
  if (vs)
    p = mdl_postings_encode_vs (gaps, n, k, sizes ? (guint32 *) sizes->data : NULL,
                                sizes ? sizes->len : 0);
  else
    p = mdl_postings_encode_p4d (gaps, n, k, MDL_P4D_NBAR);
  if (sizes)
    g_array_free (sizes, TRUE);
  return decode_run (algo, p, gaps, vs && mdl_params_choice (params, "approach") == 1, rec,
                     checksum, error);
}

static gboolean
vs_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
         GError **error)
{
  return postings_body ("postings/vs", params, n, seed, rec, checksum, error);
}

static gboolean
p4d_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
          GError **error)
{
  return postings_body ("postings/p4d", params, n, seed, rec, checksum, error);
}

MDL_SIMT_ENTRY_POINTS (postings_vs, vs_body)
MDL_SIMT_ENTRY_POINTS (postings_p4d, p4d_body)
