/* The `banks` engine: shared-memory wavefronts and bank conflicts of each warp instruction.
 * Shared memory is `banks` banks of `bank_bytes` (word w = addr / bank_bytes lives in bank
 * w mod banks); one wavefront reads or writes at most one word per bank, and every lane that wants
 * a word read in that wavefront gets it (broadcast, multicast). The instruction is cut into
 * passes, and each pass costs as many wavefronts as the most distinct words any bank must supply;
 * conflicts are the wavefronts beyond one per pass (Nsight Compute's
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared agrees: conflicts = wavefronts - passes).
 * How the instruction is cut, by rule:
 *  - sm90 (measured on the H100, tests/test-banks.c and docs/models/gpu.md): loads take the warp
 *    in groups of 4 consecutive lanes; lanes of one group asking for the same address make one
 *    request; consecutive groups share a pass while the pass holds at most one bank row
 *    (banks x bank_bytes = 128) of requests and its groups lie within two rows of lane slots
 *    (4 x width per group, counted by the groups' places, so an idle group in between takes its
 *    slots). 4-byte words: one pass; 8-byte: 2 passes unless the requests fit in 128 bytes;
 *    16-byte: passes never cross a half-warp. Stores merge nothing: passes of one row of lanes
 *    (128 / width: the whole warp, half-warps, quarter-warps), as the split rule. Atomics take
 *    passes as stores, and serve the lanes on one address one per round (cut_sm90_atomic).
 *  - halfwarp (compute capability 1.x: 16 banks, CUDA C Programming Guide 2.x, 5.1.2.5): each
 *    half-warp of 16 lanes is one pass.
 *  - split (the textbook rule for 32-bank hardware): passes of banks x bank_bytes / width lanes.
 * Sub-word and wider accesses touch every bank word their bytes overlap. */
#include <models/error.h>

#include "models/engines.h"
#include "models/gpu/gpu.h"

#include <string.h>

enum { RULE_SM90, RULE_HALFWARP, RULE_SPLIT };
enum { K_LD, K_ST, K_ATOM, N_KINDS };

#define MAX_BANKS 256

typedef struct {
  guint64 requests;
  guint64 wavefronts;
  guint64 passes;
  guint64 operand_wavefronts;  /* wavefronts of a CAS's second operand: not conflicts */
} Counts;

typedef struct {
  Counts c[N_KINDS];
  GpuContention contention;  /* shared atomics */
  GpuAddrWarps addr_warps;   /* keyed by block and offset */
  guint rule;
  guint banks;
  guint bank_shift;        /* log2 bank_bytes */
  guint row_bytes;         /* banks x bank_bytes */
  guint group_lanes[65];   /* by access width 0 to 64: lanes_per_group() */
  GpuSet words;
  guint bank_words[MAX_BANKS];
  guint64 addrs[MDL_WARP_MAX_LANES];
  guint64 pass[MDL_WARP_MAX_LANES];   /* request addresses of the open pass */
} Banks;

static const MdlParamSpec banks_params[] = {
  { "rule", MDL_PARAM_CHOICE, "sm90", "shared_rule", 0, 0, "sm90|halfwarp|split", 0,
    "how a warp instruction is cut into passes (docs/models/gpu.md)" },
  { "banks", MDL_PARAM_UINT, "32", "shared_banks", 1, MAX_BANKS, NULL, MDL_PARAM_POW2,
    "shared-memory banks" },
  { "bank_bytes", MDL_PARAM_UINT, "4", "bank_bytes", 1, 64, NULL, MDL_PARAM_POW2,
    "bytes per bank word" },
  { NULL }
};

/* group_lanes() of @width bytes. */
static guint
lanes_per_group (guint rule, guint row_bytes, guint width)
{
  return rule == RULE_HALFWARP ? 16 : MAX (1u, row_bytes / MAX (width, 1u));
}

static gboolean
banks_init (void *state, const MdlParams *params, GError **error)
{
  Banks *b = state;
  (void) error;
  b->rule = mdl_params_choice (params, "rule");
  b->banks = (guint) mdl_params_uint (params, "banks");
  b->bank_shift = (guint) __builtin_ctzll (mdl_params_uint (params, "bank_bytes"));
  b->row_bytes = b->banks << b->bank_shift;
  for (guint width = 0; width <= 64; width++)
    b->group_lanes[width] = lanes_per_group (b->rule, b->row_bytes, width);
  return TRUE;
}

/* pass_wavefronts() of requests each within one bank word (aligned to a power-of-two @width no
 * wider than a bank word) whose words lie within three aligned rows of 64 (gpu_rows_fill(): the
 * first request's row, the one below and the one above; repeats merged), over 8 to 64 banks: the
 * most distinct words of a bank from the three bitmaps (gpu_rows_queue()), in one pass over the
 * requests. The sorts' passes, whose words come in data-dependent order. FALSE for any other. */
static gboolean
pass_rows (const Banks *b, const guint64 *req, guint n, guint width, guint *wavefronts)
{
  guint64 any;
  GpuRows r;
  if (n == 0 || width == 0 || b->banks < 8 || b->banks > 64 || (width & (width - 1)) != 0
      || width > (1u << b->bank_shift) || !gpu_rows_fill (req, n, b->bank_shift, &r, &any)
      || (any & (width - 1)) != 0)
    return FALSE;
  *wavefronts = gpu_rows_queue (&r, b->banks - 1);
  return TRUE;
}

/* Wavefronts of one pass: the most distinct words any bank supplies to @n requests. */
static guint
pass_wavefronts (Banks *b, const guint64 *req, guint n, guint width)
{
  guint worst = 1;
  guint64 lo = G_MAXUINT64, hi = 0;
  gboolean wraps = FALSE;
  if (pass_rows (b, req, n, width, &worst))
    return worst;
  /* The common case first: all the words within one row of banks, so no bank holds two (one
   * wavefront, whatever the order and the repeats); the scans' conflict-free passes, 2x faster
   * than the set. The ends in bytes, shifted to words once (the shift keeps the order). */
  for (guint i = 0; i < n; i++)
    {
      guint64 end = req[i] + width - 1;
      wraps |= end < req[i];
      lo = MIN (lo, req[i]);
      hi = MAX (hi, end);
    }
  lo >>= b->bank_shift;
  hi >>= b->bank_shift;
  if (!wraps && hi - lo < b->banks)
    return 1;
  /* Next, words within two rows of banks: a bitmap of them from lo dedupes the repeats, and a
   * bank supplies two distinct words exactly when two are one row apart. */
  if (!wraps && b->banks <= 32 && hi - lo < 2 * (guint64) b->banks)
    {
      guint64 rows = 0;
      for (guint i = 0; i < n; i++)
        {
          guint64 first = req[i] >> b->bank_shift, last = (req[i] + width - 1) >> b->bank_shift;
          rows |= gpu_group_mask ((guint) (last - first + 1)) << (first - lo);
        }
      return (rows & (rows >> b->banks)) ? 2 : 1;
    }
  gpu_set_clear (&b->words);
  memset (b->bank_words, 0, b->banks * sizeof b->bank_words[0]);
  for (guint i = 0; i < n; i++)
    {
      guint64 first = req[i] >> b->bank_shift, last = (req[i] + width - 1) >> b->bank_shift;
      /* The break: with 1-byte bank words, last may be 2^64 - 1, which every w satisfies. */
      for (guint64 w = first; w <= last; w++)
        {
          if (gpu_set_add (&b->words, w))
            {
              guint k = ++b->bank_words[w & (b->banks - 1)];
              worst = MAX (worst, k);
            }
          if (w == last)
            break;
        }
    }
  return worst;
}

/* The lanes of one pass where the rule cuts an instruction into fixed groups (all but the sm90
 * rule's loads and atomics): a half-warp, or one bank row of lanes. From the table made at init
 * for the widths events have (1 to 64, mdl_warp_event_check()): the division costs a dozen
 * cycles or more. */
static guint
group_lanes (const Banks *b, guint width)
{
  return width <= 64 ? b->group_lanes[width] : lanes_per_group (b->rule, b->row_bytes, width);
}

/* TRUE when the rule makes the load or store @e one pass of all its lanes: the sm90 loads' first
 * case in cut_sm90_load(), or one group of cut_groups() holding every active lane. */
static gboolean
one_pass (const Banks *b, const MdlWarpEvent *e)
{
  guint first = (guint) __builtin_ctzll (e->active), last = 63 - (guint) __builtin_clzll (e->active);
  guint width = e->width, group;
  if (b->rule == RULE_SM90 && e->op != MDL_WARP_STORE)
    return gpu_popcount (e->active) * width <= b->row_bytes
           && (last / 4 - first / 4 + 1) * 4 * width <= 2 * b->row_bytes;
  group = group_lanes (b, width);
  /* A power-of-two group (any power-of-two width) with no division, which costs a dozen
   * cycles or more. */
  if ((group & (group - 1)) == 0)
    return (first ^ last) < group;
  return first / group == last / group;
}

/* A strided instruction that its rule makes one pass (one_pass(), which the caller checked), and
 * whose words lie within one row of banks: one wavefront, known from its end lanes @lo and @hi
 * (gpu_strided_ends(); pass_wavefronts()'s common case) with no lane addresses. Counts it and
 * returns TRUE; FALSE when it is not such an instruction. */
static gboolean
strided_one_row (Banks *b, Counts *k, const MdlWarpEvent *e, guint64 lo, guint64 hi)
{
  guint width = e->width;
  /* The lanes' addresses run from the first lane's to the last's unless they wrap past 2^64. */
  if (e->stride >= 0 ? hi < lo : hi > lo)
    return FALSE;
  if (hi < lo)
    {
      guint64 t = lo;
      lo = hi;
      hi = t;
    }
  if (hi + width - 1 < hi || ((hi + width - 1) >> b->bank_shift) - (lo >> b->bank_shift) >= b->banks)
    return FALSE;
  k->wavefronts++;
  k->passes++;
  return TRUE;
}

/* A strided instruction in closed form: every lane covers the same places of whole bank words
 * (the base aligned to the width, the stride a multiple of unit = max(width, bank word)), so lane
 * l's unit is u0 + l x S (S = stride / unit) and, in units of q = unit / bank_bytes banks, lies in
 * bank group (u0 + l x S) mod (banks / q). With S = 0 every lane asks for one unit; otherwise
 * two lanes share a bank group, with distinct units, exactly when they are a multiple of the
 * period P = (banks / q) / gcd(S, banks / q) apart. */
typedef struct {
  gboolean one_unit;   /* S = 0 */
  guint period;        /* P, a power of two from 1 to 64 */
} StridedBanks;

/* Fills @sb for strided load or store @e, whose active lanes run from address @lo to @hi
 * (gpu_strided_ends()), when the closed form holds and they do so without wrapping past 2^64;
 * FALSE otherwise. Every quotient is of powers of two: shifts, no division. */
static gboolean
strided_banks (const Banks *b, const MdlWarpEvent *e, guint64 lo, guint64 hi, StridedBanks *sb)
{
  guint64 width = e->width, unit, groups, step;
  if (width == 0 || (width & (width - 1)) != 0 || (e->base & (width - 1)) != 0 || b->banks > 64)
    return FALSE;
  unit = MAX (width, (guint64) 1 << b->bank_shift);
  groups = (guint64) b->banks >> (__builtin_ctzll (unit) - b->bank_shift);
  step = e->stride < 0 ? -(guint64) e->stride : (guint64) e->stride;
  /* A stride below 2^32 keeps the lanes' span far below 2^64: no wrap between the end lanes. */
  if (groups == 0 || (step & (unit - 1)) != 0 || step > G_MAXUINT32)
    return FALSE;
  if ((e->stride >= 0 ? hi < lo : hi > lo) || MAX (lo, hi) + width - 1 < MAX (lo, hi))
    return FALSE;
  step >>= __builtin_ctzll (unit);
  sb->one_unit = step == 0;
  /* gcd(S, groups) for a power-of-two groups: S's lowest set bit, at most groups. */
  sb->period = step == 0 ? 1 : (guint) (groups >> __builtin_ctzll (MIN (step & -step, groups)));
  return TRUE;
}

/* Wavefronts of the pass of the lanes @lanes (not 0) under @sb: the most lanes of one residue mod
 * the period (the bank-group queue of distinct units), or 1 for a single unit. */
static guint
strided_pass (const StridedBanks *sb, guint64 lanes)
{
  guint64 residue0;
  guint worst = 0;
  if (sb->one_unit)
    return 1;
  if (sb->period >= 8)
    {
      GpuWindow w = { 0, lanes, 0 };
      return gpu_window_queue (&w, sb->period - 1);
    }
  /* Residue r's lanes: every period-th bit from r (residue0: 0x5555... for P = 2). */
  residue0 = G_MAXUINT64 / ((G_GUINT64_CONSTANT (1) << sb->period) - 1);
  for (guint r = 0; r < sb->period; r++)
    worst = MAX (worst, gpu_popcount (lanes & residue0 << r));
  return worst;
}

/* Adds one pass of the sm90 loads' cut: the @n requests b->pass, or under the closed form @sb
 * when not NULL, the lanes @lanes. */
static void
add_load_pass (Banks *b, Counts *k, const StridedBanks *sb, guint64 lanes, guint n, guint width)
{
  k->wavefronts += sb ? strided_pass (sb, lanes) : pass_wavefronts (b, b->pass, n, width);
  k->passes++;
}

/* The sm90 rule of loads: groups of 4 lanes merged into passes (see the head of the file), from
 * the lane addresses b->addrs, or under the closed form @sb when not NULL: a pass is then the
 * mask of its lanes, and a group's requests are its lanes (distinct units), or one (one unit). */
static void
cut_sm90_load (Banks *b, Counts *k, guint64 active, guint width, const StridedBanks *sb)
{
  guint n = 0, first_q = 0, last_q = 0;
  guint64 lanes = 0;
  gboolean open = FALSE;
  if (active == 0)
    return;
  first_q = (guint) __builtin_ctzll (active) / 4;
  last_q = (guint) (63 - __builtin_clzll (active)) / 4;
  /* When every lane's request fits one row and the groups from the first active to the last fit
   * two rows of slots, no group opens a new pass: the warp is one pass, and since a pass costs by
   * its distinct words, the requests need not be made unique per group (32 lanes of 4 bytes
   * always). */
  if (gpu_popcount (active) * width <= b->row_bytes
      && (last_q - first_q + 1) * 4 * width <= 2 * b->row_bytes)
    {
      for (guint64 r = sb ? 0 : active; r; r &= r - 1)
        b->pass[n++] = b->addrs[__builtin_ctzll (r)];
      add_load_pass (b, k, sb, active, n, width);
      return;
    }
  for (guint q = first_q; q <= last_q; q++)
    {
      guint64 group = active & ((guint64) 0xf << 4 * q), uniq[4];
      guint u = 0;
      if (group == 0)
        continue;
      if (sb)
        u = sb->one_unit ? 1 : gpu_popcount (group);
      else
        for (guint64 r = group; r; r &= r - 1)
          {
            guint64 a = b->addrs[__builtin_ctzll (r)];
            guint j = 0;
            while (j < u && uniq[j] != a)
              j++;
            if (j == u)
              uniq[u++] = a;
          }
      if (!open || (q - first_q + 1) * 4 * width > 2 * b->row_bytes
          || (n + u) * width > b->row_bytes)
        {
          if (open)
            add_load_pass (b, k, sb, lanes, n, width);
          open = TRUE;
          n = 0;
          lanes = 0;
          first_q = q;
        }
      lanes |= group;
      /* At most 4: a loop, not a call of memcpy. */
      for (guint j = 0; j < (sb ? 0 : u); j++)
        b->pass[n + j] = uniq[j];
      n += u;
    }
  add_load_pass (b, k, sb, lanes, n, width);
}

/* Adds the wavefronts and passes of lanes in groups of @group lanes (sm90 stores, halfwarp,
 * split): from the lane addresses, or under the closed form @sb when not NULL. */
static void
cut_groups (Banks *b, Counts *k, guint64 active, guint width, guint group, const StridedBanks *sb)
{
  for (guint g = 0; g < MDL_WARP_MAX_LANES; g += group)
    {
      guint64 part = active & (gpu_group_mask (group) << g);
      guint n = 0;
      if (part == 0)
        continue;
      k->passes++;
      if (sb)
        {
          k->wavefronts += strided_pass (sb, part);
          continue;
        }
      for (guint64 r = part; r; r &= r - 1)
        b->pass[n++] = b->addrs[__builtin_ctzll (r)];
      k->wavefronts += pass_wavefronts (b, b->pass, n, width);
    }
}

/* The sm90 rule of atomics (measured on the H100, docs/models/gpu.md "Atomics"): passes of one
 * bank row of lanes (128 / width: the warp for 4-byte words, half-warps for 8-byte ones); in a
 * pass, the lanes on one address are served one per round (gpu_atomic_rounds), and each round
 * costs the most distinct words any bank supplies to it. A CAS moves two operands: twice the
 * wavefronts, but Nsight Compute counts only the first as conflicts. */
static void
cut_sm90_atomic (Banks *b, Counts *k, guint64 active, guint width, gboolean cas)
{
  guint group = MAX (1u, b->row_bytes / width);
  for (guint g = 0; g < MDL_WARP_MAX_LANES; g += group)
    {
      guint64 part = active & (gpu_group_mask (group) << g), rounds[MDL_WARP_MAX_LANES];
      guint n_rounds;
      guint64 wavefronts = 0;
      if (part == 0)
        continue;
      n_rounds = gpu_atomic_rounds (b->addrs, part, rounds);
      for (guint r = 0; r < n_rounds; r++)
        {
          guint n = 0;
          for (guint64 m = rounds[r]; m; m &= m - 1)
            b->pass[n++] = b->addrs[__builtin_ctzll (m)];
          wavefronts += pass_wavefronts (b, b->pass, n, width);
        }
      k->wavefronts += cas ? 2 * wavefronts : wavefronts;
      k->operand_wavefronts += cas ? wavefronts : 0;
      k->passes++;
    }
}

/* Counts the shared load, store or atomic @e of @batch by its lane addresses: every case but
 * the strided ones and the windows of banks_access() (not inlined there: its registers and its
 * frame made every such access save and restore them). */
static G_NO_INLINE void
banks_by_lanes (Banks *b, Counts *k, const MdlEventBatch *batch, const MdlWarpEvent *e,
                gboolean single)
{
  /* A one-pass load or store in the explicit form: its pass is the event's address list as
   * it stands (active lanes in lane order), with no scatter by lane and gather back. */
  if (single && !(e->flags & MDL_WARP_STRIDED))
    {
      k->wavefronts += pass_wavefronts (b, batch->lane_addrs + e->first_addr,
                                        gpu_popcount (e->active), e->width);
      k->passes++;
      return;
    }
  mdl_warp_addrs (batch, e, b->addrs);
  if (e->op == MDL_WARP_ATOMIC)
    {
      guint64 keys[MDL_WARP_MAX_LANES];
      gpu_contention_add (&b->contention, b->addrs, e->active);
      /* Shared offsets are per block: the block's id in the high half of the key. */
      for (guint64 r = e->active; r; r &= r - 1)
        {
          guint l = (guint) __builtin_ctzll (r);
          keys[l] = (guint64) e->block << 32 | (b->addrs[l] & G_MAXUINT32);
        }
      gpu_addr_warps_add (&b->addr_warps, keys, e->active);
    }
  if (b->rule == RULE_SM90 && e->op == MDL_WARP_ATOMIC)
    cut_sm90_atomic (b, k, e->active, e->width, (e->flags & MDL_WARP_ATOM_CAS) != 0);
  else if (b->rule == RULE_SM90 && e->op == MDL_WARP_LOAD)
    cut_sm90_load (b, k, e->active, e->width, NULL);
  else
    cut_groups (b, k, e->active, e->width, group_lanes (b, e->width), NULL);
}

/* Counts the shared load, store or atomic @e of @batch (not inlined: banks_consume()). */
static G_NO_INLINE void
banks_access (Banks *b, const MdlEventBatch *batch, const MdlWarpEvent *e)
{
  Counts *k = &b->c[e->op];
  gboolean single = e->op != MDL_WARP_ATOMIC && one_pass (b, e);   /* its rule makes one pass */
  GpuWindow window;
  k->requests++;
  /* A strided load or store (the tiles' rows and columns, the trees' strides): from its end
   * lanes, with no lane address. */
  if ((e->flags & MDL_WARP_STRIDED) && e->op != MDL_WARP_ATOMIC)
    {
      StridedBanks sb;
      guint64 lo, hi;
      gpu_strided_ends (e, &lo, &hi);
      if (single && strided_one_row (b, k, e, lo, hi))
        return;
      /* Strided lanes at any stride (the transposes' columns): each pass's queue from its lane
       * mask. */
      if (strided_banks (b, e, lo, hi, &sb))
        {
          if (single || b->rule != RULE_SM90 || e->op == MDL_WARP_STORE)
            cut_groups (b, k, e->active, e->width,
                        single ? MDL_WARP_MAX_LANES : group_lanes (b, e->width), &sb);
          else
            cut_sm90_load (b, k, e->active, e->width, &sb);
          return;
        }
    }
  /* A one-pass load or store whose words fit 64 (the sorts' data-dependent lists): its
   * wavefronts from one 64-bit window of the words, explicit or strided, repeats merged. */
  if (single && b->banks >= 8 && b->banks <= 64
      && gpu_window_fill (batch, e, e->active, 0, b->bank_shift, &window))
    {
      k->wavefronts += gpu_window_queue (&window, b->banks - 1);
      k->passes++;
      return;
    }
  banks_by_lanes (b, k, batch, e, single);
}

static gboolean
banks_consume (void *state, const MdlEventBatch *batch, GError **error)
{
  (void) error;
  /* Most events are not shared accesses: a loop of one test of the space passes them (the
   * space is that of a memory op only, mdl_warp_event_check()), the rest has a function of its
   * own, so that the loop keeps its pointers in registers. */
  if (batch->n_warp == 0)   /* a CPU batch may have no warp array at all: NULL + 0 is undefined */
    return TRUE;
  for (const MdlWarpEvent *e = batch->warp, *end = batch->warp + batch->n_warp; e < end; e++)
    if (G_UNLIKELY (e->space == MDL_SPACE_SHARED) && mdl_warp_is_memory (e))
      banks_access (state, batch, e);
  return TRUE;
}

static void
banks_report (void *state, MdlReport *out)
{
  static const struct { const char *prefix, *what, *op; } kinds[N_KINDS] = {
    { "shld", "shared loads", "ld" }, { "shst", "shared stores", "st" },
    { "shatom", "shared atomics", "atom" },
  };
  Banks *b = state;
  for (guint i = 0; i < N_KINDS; i++)
    {
      const Counts *k = &b->c[i];
      const char *p = kinds[i].prefix, *what = kinds[i].what;
      char m1[128], m2[128], m3[128];
      gboolean ncu = kinds[i].op != NULL && b->rule == RULE_SM90;
      if (ncu && mdl_report_keeps_names (out))   /* a phase snapshot needs no names */
        {
          mdl_gpu_concat (m1, sizeof m1, "smsp__inst_executed_op_shared_", kinds[i].op, ".sum",
                          NULL);
          mdl_gpu_concat (m2, sizeof m2, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_",
                          kinds[i].op, ".sum", NULL);
          mdl_gpu_concat (m3, sizeof m3, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_",
                          kinds[i].op, ".sum", NULL);
        }
      mdl_gpu_report_add (out, p, "requests", "count", what, "warp instructions",
                          ncu ? m1 : NULL, k->requests);
      mdl_gpu_report_add (out, p, "wavefronts", "count", what, "wavefronts (bank-row accesses)",
                          ncu ? m2 : NULL, k->wavefronts);
      mdl_gpu_report_add (out, p, "bank_conflicts", "count", what,
                          "wavefronts beyond the conflict-free ideal", ncu ? m3 : NULL,
                          k->wavefronts - k->operand_wavefronts - k->passes);
      mdl_gpu_report_add (out, p, "ideal_wavefronts", "count", what,
                          "wavefronts with no bank conflict (passes)", NULL, k->passes);
    }
  mdl_gpu_contention_report (out, "shatom", "shared atomics", &b->contention, &b->addr_warps);
}

static gboolean
banks_marker (void *state, const MdlMarker *m, GError **error)
{
  Banks *b = state;
  (void) error;
  if (m->kind == MDL_MARK_LAUNCH)
    gpu_addr_warps_launch (&b->addr_warps);
  return TRUE;
}

static void
banks_finalize (void *state)
{
  gpu_addr_warps_free (&((Banks *) state)->addr_warps);
}

const MdlEngineClass mdl_banks_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "banks",
  .summary = "GPU shared memory: wavefronts and bank conflicts per warp instruction",
  .params = banks_params,
  .state_size = sizeof (Banks),
  .init = banks_init,
  .consume = banks_consume,
  .marker = banks_marker,
  .report = banks_report,
  .finalize = banks_finalize,
};
