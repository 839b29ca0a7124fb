/* The prefix sums of Capannini's thesis §3.3 in SIMT C: the work-efficient exclusive scan of
 * Blelloch and Harris (up-sweep, root reset, down-sweep) with three layouts of its tree in shared
 * memory (none, Harris's padding, Capannini's LeftRight), and the Hillis-Steele ("CM") inclusive
 * scan. One block is one stream element and scans up to `block` elements; a longer array takes
 * three kernels (§3.3.3 test (ii)). Each tree operation issues what the thesis's cost tables
 * count: two shared loads, one add, one shared store; index arithmetic issues nothing, as in those
 * tables. Thread i does operation i, so the engines' chunks of k consecutive lanes are the
 * thesis's chunks. Inputs are random 32-bit words, the operator is 32-bit addition, and every run
 * checks its output against a sequential scan.
 * Spec: kmodel-capannini.md §4, V3-V8; docs/models/kmodel.md. */
#include "algos/simt/simt-algo.h"

#define BLOCK_ROW                                                                                  \
  { "block", MDL_PARAM_UINT, "2048", NULL, 2, 65536, NULL, MDL_PARAM_POW2,                         \
    "elements one block (stream element) scans; a longer array takes three kernels" }

const MdlParamSpec mdl_scan_nopad_params[] = { BLOCK_ROW, { NULL } };

const MdlParamSpec mdl_scan_padding_params[] = {
  BLOCK_ROW,
  { "k", MDL_PARAM_UINT, "16", NULL, 2, 1024, NULL, MDL_PARAM_POW2,
    "banks: element i lives at word i + i/k" },
  { NULL }
};

const MdlParamSpec mdl_scan_leftright_params[] = {
  BLOCK_ROW,
  { "k", MDL_PARAM_UINT, "16", NULL, 2, 1024, NULL, MDL_PARAM_POW2,
    "banks: LeftRight rotates the log k low bits of a node index" },
  { "mapping", MDL_PARAM_CHOICE, "corrected", NULL, 0, 0, "corrected|literal", 0,
    "corrected: LR' of the reading notes, every parent on an operand slot; literal: Eq. 3.2 as "
    "printed, which is not in place for more than k^2 elements (the run then fails its check)" },
  { NULL }
};

const MdlParamSpec mdl_scan_hillis_steele_params[] = { BLOCK_ROW, { NULL } };

typedef enum {
  LAYOUT_NOPAD,      /* node i of level d at its last leaf, i 2^d + 2^d − 1 (Harris) */
  LAYOUT_PADDING,    /* the same word a moved to a + a/k (Harris, Eq. 3.1) */
  LAYOUT_LR,         /* LR' (corrected LeftRight) */
  LAYOUT_LR_LITERAL, /* Eq. 3.2 as printed */
} Layout;

typedef struct {
  const char *name;
  gboolean tree;     /* FALSE: Hillis-Steele, whose elements sit at their own index */
  Layout layout;
  guint h;           /* log2 k */
  guint64 block;
} Scan;

/* ---- the tree layouts ---- */

/* Eq. 3.2 as printed: RST_h(x 2^m) + ROT_h^m(x), with ROT a left rotation of the h low bits by
 * m mod h, masked to h bits (the printed C rotates right and leaves m > h undefined). */
static guint64
lr_literal (guint64 x, guint m, guint h)
{
  guint64 low = ((guint64) 1 << h) - 1, b = x & low;
  guint r = m % h;
  guint64 rot = r ? ((b << r) | (b >> (h - r))) & low : b;
  return ((x << m) & ~low) + rot;
}

/* LR'(i, 0) = i, LR'(i, d+1) = LR'(2i + b_i, d) with b_i bit h−1 of i: node i of level d+1 sits
 * on its left operand's slot in the first k/2 of each run of k nodes, on its right one after. */
static guint64
lr_corrected (guint64 i, guint d, guint h)
{
  for (guint l = 0; l < d; l++)
    i = 2 * i + ((i >> (h - 1)) & 1);
  return i;
}

/* The shared word of node @i of level @d (level 0: the elements). */
static guint64
tree_slot (const Scan *s, guint64 i, guint d)
{
  guint64 a;
  switch (s->layout)
    {
    case LAYOUT_LR:
      return lr_corrected (i, d, s->h);
    case LAYOUT_LR_LITERAL:
      return lr_literal (i, d, s->h);
    case LAYOUT_PADDING:
      a = (i << d) + ((guint64) 1 << d) - 1;
      return a + (a >> s->h);
    case LAYOUT_NOPAD:
    default:
      return (i << d) + ((guint64) 1 << d) - 1;
    }
}

guint64
mdl_scan_leftright_off_operand (guint64 n, guint k, gboolean literal)
{
  Scan s = { .layout = literal ? LAYOUT_LR_LITERAL : LAYOUT_LR };
  guint64 off = 0;
  g_return_val_if_fail (n >= 1 && (n & (n - 1)) == 0, 0);
  g_return_val_if_fail (k >= 2 && (k & (k - 1)) == 0, 0);
  s.h = (guint) __builtin_ctz (k);
  for (guint d = 0; ((guint64) 2 << d) <= n; d++)
    for (guint64 i = 0; i < n >> (d + 1); i++)
      {
        guint64 p = tree_slot (&s, i, d + 1);
        off += p != tree_slot (&s, 2 * i, d) && p != tree_slot (&s, 2 * i + 1, d);
      }
  return off;
}

/* ---- kernels ---- */

typedef struct {
  const Scan *scan;
  guint64 data, n;      /* the array: device address, elements */
  guint64 m;            /* elements per block, a power of two */
  guint levels;         /* log2 m */
  guint64 partial;      /* block sums (device address); 0 when one block holds the array */
  gboolean totals_only; /* tree, first of three kernels: up-sweep, then the total to partial[] */
} ScanArgs;

/* Opens an if for the threads t with @lo <= @first + t < @hi. An if, not a predicate: the layer
 * issues a predicated instruction for every lane (a warp predicated off entirely still issues its
 * loads and stores, as ALU events), so predication would charge the add and the idle warps to the
 * counted work, while the branch is counted apart (the kmodel engine's T_control). */
static void
if_in (MdlSimtBlock *blk, guint64 first, guint64 lo, guint64 hi)
{
  guint8 *cond = mdl_simt_cond (blk);
  MDL_SIMT_EACH (blk, t)
    cond[t] = first + t >= lo && first + t < hi;
  mdl_simt_if (blk);
}

/* Where lane t's element of round @first of the block at element @base lives in @space: its
 * global word, or its leaf word in shared memory. */
static void
element_lanes (MdlSimtBlock *blk, const ScanArgs *a, MdlSpace space, guint64 base, guint64 first,
               guint64 *at)
{
  MDL_SIMT_EACH (blk, t)
    at[t] = space == MDL_SPACE_GLOBAL ? a->data + 4 * (base + first + t)
                                      : 4 * tree_slot (a->scan, first + t, 0);
}

/* Moves the block's elements between global memory and their leaf words, coalesced: round r moves
 * elements rP..rP+P−1 (P threads), a load from one space and a store to the other.
 * @load: global to shared, ending with a barrier; elements past the array stay 0, the identity,
 * and element rP + t stays in vals[rP + t] (a register of thread t). Else shared to global (the
 * reverse, at the end), through the one register @vals. */
static void
move_block (MdlSimtBlock *blk, const ScanArgs *a, gboolean load, guint64 *vals, guint64 *at)
{
  MdlSpace from = load ? MDL_SPACE_GLOBAL : MDL_SPACE_SHARED;
  MdlSpace to = load ? MDL_SPACE_SHARED : MDL_SPACE_GLOBAL;
  guint P = blk->n_threads;
  guint64 base = (guint64) blk->idx_x * a->m;
  for (guint64 first = 0; first < a->m; first += P)
    {
      guint64 *v = load ? vals + first : vals;
      if_in (blk, base + first, 0, a->n);
      element_lanes (blk, a, from, base, first, at);
      mdl_simt_ld (blk, from, 4, at, v);
      element_lanes (blk, a, to, base, first, at);
      mdl_simt_st (blk, to, 4, at, v);
      mdl_simt_endif (blk);
    }
  if (load)
    mdl_simt_sync (blk);
}

/* Registers of one tree kernel: lane vectors, and the left operand of every operation the thread
 * does in the up-sweep (level d, round r at left + (first_round[d] + r) P). */
typedef struct {
  guint64 *x, *y, *at_l, *at_r, *at_p, *left;
  guint64 first_round[33];
} TreeRegs;

/* One operation of the up-sweep (Algorithm 6's, on any layout): node i of level d+1 = node 2i +
 * node 2i+1 of level d, whose operands are loaded, the left one into @left (kept for the
 * down-sweep). */
static void
up_step (MdlSimtBlock *blk, TreeRegs *r, guint64 *left)
{
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at_l, left);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at_r, r->y);
  mdl_simt_algo_add32 (blk, r->x, left, r->y);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at_p, r->x);
}

/* One operation of the down-sweep, the up-sweep's pairs in reverse order: Harris's step (load both
 * operand slots, left child <- the parent's prefix p, right child <- p + the left child's sum).
 * The parent's prefix is on whichever operand slot the up-sweep wrote the parent to. A parent
 * written over its left operand (a LeftRight left-sum) destroyed that operand's sum, which no
 * combination of the words left in shared memory gives back with + alone, so the thread keeps it
 * in a register from the up-sweep (@left); NoPadding and Padding never need it. Which slot holds
 * the parent depends only on the lane and the level (compile-time constants, as the thesis
 * suggests for LeftRight), so choosing costs no instruction. A parent on neither slot (Eq. 3.2 as
 * printed, n > k^2) breaks the step: the run's check then fails. */
static void
down_step (MdlSimtBlock *blk, TreeRegs *r, const guint64 *left)
{
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at_l, r->x);
  mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r->at_r, r->y);
  mdl_simt_alu (blk, 1);
  MDL_SIMT_EACH (blk, t)
    {
      gboolean on_right = r->at_p[t] == r->at_r[t];
      guint64 prefix = on_right ? r->y[t] : r->x[t];
      guint64 left_sum = on_right ? r->x[t] : left[t];
      r->x[t] = prefix;
      r->y[t] = (prefix + left_sum) & 0xffffffffu;
    }
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at_l, r->x);
  mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r->at_r, r->y);
}

/* The up-sweep (@up, levels 0 up) or the down-sweep (levels down to 0): per level, rounds of P
 * operations, thread t doing operation first + t of its round, then a barrier. */
static void
sweep (MdlSimtBlock *blk, const ScanArgs *a, TreeRegs *r, gboolean up)
{
  guint P = blk->n_threads;
  for (guint l = 0; l < a->levels; l++)
    {
      guint d = up ? l : a->levels - 1 - l;
      guint64 count = a->m >> (d + 1), round = r->first_round[d];
      for (guint64 first = 0; first < count; first += P, round++)
        {
          guint64 *left = r->left + round * P;
          if_in (blk, first, 0, count);
          MDL_SIMT_EACH (blk, t)
            {
              guint64 op = first + t;
              r->at_l[t] = 4 * tree_slot (a->scan, 2 * op, d);
              r->at_r[t] = 4 * tree_slot (a->scan, 2 * op + 1, d);
              r->at_p[t] = 4 * tree_slot (a->scan, op, d + 1);
            }
          if (up)
            up_step (blk, r, left);
          else
            down_step (blk, r, left);
          mdl_simt_endif (blk);
        }
      mdl_simt_sync (blk);
    }
}

/* One block of a tree scan: load, up-sweep; then either thread 0 writes the total to partial[]
 * (first of three kernels), or the root takes the block's prefix (0, or partial[] of the scanned
 * totals), the down-sweep runs and the block goes back to global memory. */
static void
tree_kernel (MdlSimtBlock *blk, void *p)
{
  const ScanArgs *a = p;
  guint P = blk->n_threads;
  TreeRegs r;
  guint64 rounds = 0, root = 4 * tree_slot (a->scan, 0, a->levels);
  guint64 *vals = mdl_simt_reg (blk, (guint) ((a->m + P - 1) / P));
  for (guint d = 0; d < a->levels; d++)
    {
      r.first_round[d] = rounds;
      rounds += ((a->m >> (d + 1)) + P - 1) / P;
    }
  r.x = mdl_simt_reg (blk, 1);
  r.y = mdl_simt_reg (blk, 1);
  r.at_l = mdl_simt_reg (blk, 1);
  r.at_r = mdl_simt_reg (blk, 1);
  r.at_p = mdl_simt_reg (blk, 1);
  r.left = mdl_simt_reg (blk, (guint) MAX (rounds, 1));

  move_block (blk, a, TRUE, vals, r.at_l);
  mdl_simt_phase_begin (blk, "upsweep");
  sweep (blk, a, &r, TRUE);
  mdl_simt_phase_end (blk, "upsweep");

  if_in (blk, 0, 0, 1);
  MDL_SIMT_EACH (blk, t)
    {
      r.at_p[t] = root;
      r.at_l[t] = a->partial + 4 * (guint64) blk->idx_x;
      r.x[t] = 0;
    }
  if (a->totals_only)
    {
      mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, r.at_p, r.x);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, r.at_l, r.x);
    }
  else
    {
      if (a->partial)
        mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, r.at_l, r.x);
      mdl_simt_st (blk, MDL_SPACE_SHARED, 4, r.at_p, r.x);
    }
  mdl_simt_endif (blk);
  if (a->totals_only)
    return;
  mdl_simt_sync (blk);

  mdl_simt_phase_begin (blk, "downsweep");
  sweep (blk, a, &r, FALSE);
  mdl_simt_phase_end (blk, "downsweep");
  move_block (blk, a, FALSE, r.x, r.at_l);
}

/* One block of Hillis-Steele (Algorithm 5, cleaned: element e >= 2^(d−1) adds element e − 2^(d−1),
 * all reads of a step before its writes). Each thread keeps its elements in registers, so a step
 * is one load, one add and one store per active element. Inclusive. With partial[], the block's
 * last element (its total) goes there for the carry kernel. */
static void
hs_kernel (MdlSimtBlock *blk, void *p)
{
  const ScanArgs *a = p;
  guint P = blk->n_threads;
  guint64 base = (guint64) blk->idx_x * a->m;
  guint64 *vals = mdl_simt_reg (blk, (guint) ((a->m + P - 1) / P));
  guint64 *y = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);

  move_block (blk, a, TRUE, vals, at);
  mdl_simt_phase_begin (blk, "steps");
  for (guint64 off = 1; off < a->m; off *= 2)
    {
      for (guint64 first = 0; first < a->m; first += P)
        {
          guint64 *v = vals + first;
          if_in (blk, first, off, a->m);
          MDL_SIMT_EACH (blk, t)
            at[t] = 4 * (first + t - off);
          mdl_simt_ld (blk, MDL_SPACE_SHARED, 4, at, y);
          mdl_simt_algo_add32 (blk, v, v, y);
          mdl_simt_endif (blk);
        }
      mdl_simt_sync (blk);
      for (guint64 first = 0; first < a->m; first += P)
        {
          if_in (blk, first, off, a->m);
          MDL_SIMT_EACH (blk, t)
            at[t] = 4 * (first + t);
          mdl_simt_st (blk, MDL_SPACE_SHARED, 4, at, vals + first);
          mdl_simt_endif (blk);
        }
      mdl_simt_sync (blk);
    }
  mdl_simt_phase_end (blk, "steps");

  for (guint64 first = 0; first < a->m; first += P)
    {
      if_in (blk, base + first, 0, a->n);
      MDL_SIMT_EACH (blk, t)
        at[t] = a->data + 4 * (base + first + t);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, vals + first);
      mdl_simt_endif (blk);
    }
  if (a->partial)
    {
      guint64 last = a->m - P;   /* the round holding element m − 1 */
      if_in (blk, last, a->m - 1, a->m);
      MDL_SIMT_EACH (blk, t)
        at[t] = a->partial + 4 * (guint64) blk->idx_x;
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, vals + last);
      mdl_simt_endif (blk);
    }
}

/* Hillis-Steele's third kernel: block j + 1 adds the inclusive total of blocks 0..j. */
static void
carry_kernel (MdlSimtBlock *blk, void *p)
{
  const ScanArgs *a = p;
  guint P = blk->n_threads;
  guint64 base = ((guint64) blk->idx_x + 1) * a->m;
  guint64 *c = mdl_simt_reg (blk, 1), *v = mdl_simt_reg (blk, 1), *at = mdl_simt_reg (blk, 1);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->partial + 4 * (guint64) blk->idx_x;
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, c);
  for (guint64 first = 0; first < a->m; first += P)
    {
      if_in (blk, base + first, 0, a->n);
      MDL_SIMT_EACH (blk, t)
        at[t] = a->data + 4 * (base + first + t);
      mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, v);
      mdl_simt_algo_add32 (blk, v, v, c);
      mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, v);
      mdl_simt_endif (blk);
    }
}

/* ---- host side ---- */

/* The elements of one block for an array of @n: `block`, or the power of two that holds all. */
static guint64
block_elements (const Scan *s, guint64 n)
{
  guint64 m = 1;
  if (n > s->block)
    return s->block;
  while (m < n)
    m *= 2;
  return m;
}

/* Scans the @n words at @data in place: one launch when a block holds them, else three kernels:
 * block totals into partial[], partial[] scanned by this same function, then every block again
 * seeded with its partial (tree: load, up-sweep, root = partial[j], down-sweep, store;
 * Hillis-Steele: add the carry). The tree's first kernel stops after the up-sweep and the third
 * redoes it, rather than storing the tree and reloading it: the LeftRight down-sweep needs the
 * left operands the up-sweep keeps in registers, and reloading the input costs n/k transactions
 * where a stored tree would cost 2n/k. */
static gboolean
scan_array (MdlSimt *gpu, const Scan *s, guint64 data, guint64 n, GError **error)
{
  guint64 m = block_elements (s, n), blocks;
  ScanArgs a = { .scan = s, .data = data, .n = n };
  MdlSimtLaunch shape = { 0 };
  blocks = (n + m - 1) / m;
  a.m = m;
  a.levels = (guint) __builtin_ctzll (m);
  shape.grid_x = (guint32) blocks;
  shape.block_x = (guint32) MIN (s->tree ? MAX (m / 2, 1) : m, (guint64) MDL_SIMT_MAX_THREADS);
  shape.shared_bytes = (guint32) (4 * (tree_slot (s, m - 1, 0) + 1));
  if (blocks == 1)
    return mdl_simt_launch (gpu, &shape, s->tree ? tree_kernel : hs_kernel, &a, error);
  if (!(a.partial = mdl_simt_alloc (gpu, 4 * blocks, error)))
    return FALSE;
  if (s->tree)
    {
      a.totals_only = TRUE;
      if (!mdl_simt_launch (gpu, &shape, tree_kernel, &a, error)
          || !scan_array (gpu, s, a.partial, blocks, error))
        return FALSE;
      a.totals_only = FALSE;
      return mdl_simt_launch (gpu, &shape, tree_kernel, &a, error);
    }
  if (!mdl_simt_launch (gpu, &shape, hs_kernel, &a, error)
      || !scan_array (gpu, s, a.partial, blocks, error))
    return FALSE;
  shape.grid_x = (guint32) (blocks - 1);
  shape.shared_bytes = 0;
  return mdl_simt_launch (gpu, &shape, carry_kernel, &a, error);
}

/* The first element where @got differs from the sequential scan of the input made from @seed
 * (made again here: a host copy would double the memory of a run at n = 2^27), or @n. */
static guint64
first_wrong (const Scan *s, guint64 seed, const guint32 *got, guint64 n, guint32 *want)
{
  guint64 state = seed;
  guint32 sum = 0;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 next = sum + (guint32) mdl_splitmix64 (&state);
      *want = s->tree ? sum : next;
      if (got[i] != *want)
        return i;
      sum = next;
    }
  return n;
}

static gboolean
check_scan (const Scan *s, guint64 seed, const guint32 *got, guint64 n, GError **error)
{
  g_autofree char *why = NULL;
  guint32 want = 0;
  guint64 i = first_wrong (s, seed, got, n, &want), m = block_elements (s, n), off;
  if (i == n)
    return TRUE;
  if (s->layout == LAYOUT_LR_LITERAL && (off = mdl_scan_leftright_off_operand (m, 1u << s->h, TRUE)))
    why = g_strdup_printf ("; mapping=literal (Eq. 3.2 as printed) is not in place for blocks of "
                           "more than k^2 = %u elements: it puts %" G_GUINT64_FORMAT " of the %"
                           G_GUINT64_FORMAT " parents of a %" G_GUINT64_FORMAT "-element block on "
                           "a word that is neither of their operands, and the down-sweep finds "
                           "no parent there (reading notes §4.2); use mapping=corrected (LR'), "
                           "which keeps every parent on an operand", 1u << (2 * s->h), off, m - 1,
                           m);
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "%s: element %" G_GUINT64_FORMAT " of %"
               G_GUINT64_FORMAT " is 0x%08x, the sequential %s scan has 0x%08x%s", s->name, i, n,
               got[i], s->tree ? "exclusive" : "inclusive", want, why ? why : "");
  return FALSE;
}

static gboolean
scan_body (const Scan *s, guint64 n, guint64 seed, MdlRecorder *rec, guint64 *checksum,
           GError **error)
{
  g_autoptr (MdlSimt) gpu = NULL;
  guint32 *data;
  guint64 addr, state = seed;
  if (!mdl_simt_algo_size_ok (s->name, n, G_GUINT64_CONSTANT (1) << 28, error))
    return FALSE;
  gpu = mdl_simt_algo_gpu_new (rec);
  if (!(addr = mdl_simt_alloc (gpu, 4 * n, error)))
    return FALSE;
  data = mdl_simt_host (gpu, addr);
  for (guint64 i = 0; i < n; i++)
    data[i] = (guint32) mdl_splitmix64 (&state);
  if (!scan_array (gpu, s, addr, n, error) || !check_scan (s, seed, data, n, error))
    return FALSE;
  *checksum = mdl_simt_algo_checksum (data, n * sizeof *data);
  return TRUE;
}

static Scan
scan_of (const char *name, const MdlParams *params, gboolean tree, Layout layout)
{
  Scan s = { .name = name, .tree = tree, .layout = layout,
             .block = mdl_params_uint (params, "block") };
  if (layout == LAYOUT_PADDING || layout == LAYOUT_LR)
    {
      s.h = (guint) __builtin_ctzll (mdl_params_uint (params, "k"));
      if (layout == LAYOUT_LR && mdl_params_choice (params, "mapping") == 1)
        s.layout = LAYOUT_LR_LITERAL;
    }
  return s;
}

/* The entry points of one scan: its body fixes the variant, then runs scan_body. */
#define SCAN_ENTRY_POINTS(sym, algo, tree, layout)                                                 \
  static gboolean                                                                                  \
  sym##_body (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,                  \
              guint64 *checksum, GError **error)                                                   \
  {                                                                                                \
    Scan s = scan_of (algo, params, tree, layout);                                                 \
    return scan_body (&s, n, seed, rec, checksum, error);                                          \
  }                                                                                                \
  MDL_SIMT_ENTRY_POINTS (sym, sym##_body)

SCAN_ENTRY_POINTS (scan_nopad, "scan/nopad", TRUE, LAYOUT_NOPAD)
SCAN_ENTRY_POINTS (scan_padding, "scan/padding", TRUE, LAYOUT_PADDING)
SCAN_ENTRY_POINTS (scan_leftright, "scan/leftright", TRUE, LAYOUT_LR)
SCAN_ENTRY_POINTS (scan_hillis_steele, "scan/hillis-steele", FALSE, LAYOUT_NOPAD)
