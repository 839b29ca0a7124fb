/* Private to src/models/vat/: the translation cache (TC) every replacement policy works on, the
 * policy vtable, and the walk that drives a policy along one translation path.
 *
 * Model (spec vat §1.2-1.3): an access translates its page by walking the d+1 nodes of its path,
 * root (layer d) first. A cached node is a hit; a node that is not cached is inserted (one TC miss,
 * cost tau) into the cell the policy chooses, evicting that cell's node when the TC is full. The
 * walk goes insertion by insertion, because LRU can evict a node of the current path below the gap
 * before the walk reaches it.
 *
 * Layout: W cells ("slots"), each holding one node, found through an index (index.h). A cell is
 * only ever emptied to be refilled at once. Cells fill in order 0, 1, ... (levels fills each
 * layer's own range instead), so `filled` is both the count of cached nodes and the next free cell.
 * Policies keep their own state behind `ps`.
 *
 * The walk and the loop over a batch of accesses are written once, below, and each policy file
 * instantiates them (VAT_POLICY_DEFINE) with its own access and victim functions and its flags as
 * constants (STYLE "specialise at init"): the per-node work compiles to straight-line code without
 * calls, and what a policy does not use (ISP bookkeeping, next-use keys, the gap shortcut, the
 * hook) is compiled out. A new policy is one file that ends in VAT_POLICY_DEFINE, and its row in
 * VAT_POLICIES. */
#ifndef MDL_VAT_POLICY_H
#define MDL_VAT_POLICY_H

#include <glib.h>
#include <string.h>

#include "models/vat/index.h"
#include "models/vat/node.h"

/* Keys of offline policies: the position of a node's next use in the flattened node sequence
 * (smaller = sooner). A node never used again gets a dead key, larger than every position, and
 * larger for lower layers, so that dead nodes go first and descendants before ancestors. */
#define VAT_DEAD_KEY(layer) ((G_GUINT64_CONSTANT (1) << 62) + 64 - (layer))

/* @key made unique among cells, its order kept: a dead key is the same for every node of a layer,
 * and among those the one in the lower cell goes first (as in the reference; it can matter to
 * ismin). Cells are below 2^26, and the result stays below 2^63. */
static inline guint64
vat_cell_key (guint64 key, guint32 cell)
{
  guint64 dead = VAT_DEAD_KEY (64);
  return key < dead ? key
                    : dead + ((key - dead) << 27) + ((G_GUINT64_CONSTANT (1) << 27) - 1 - cell);
}

typedef struct VatPolicy VatPolicy;
typedef struct VatTc VatTc;

/**
 * VatEventKind: what the observation hook is told, in the order it happens.
 * @VAT_EV_HIT: the walk found @node cached.
 * @VAT_EV_EVICT: the policy evicted @node to make room (the insertion follows).
 * @VAT_EV_MISS: @node was inserted (one TC miss).
 */
typedef enum {
  VAT_EV_HIT = 0,
  VAT_EV_EVICT,
  VAT_EV_MISS,
} VatEventKind;

/* Called after every TC operation when set (the tests set it, through vat.h); @tc may be inspected
 * (mdl_vat_tc_cached/check). An access collapsed into the previous one (same page, a policy that
 * keeps the whole path) reports its d+1 hits too, so hit/miss sequences compare with an
 * uncollapsed reference. Offline policies (min, ismin) run over the accesses whose next uses are
 * known as the stream comes (nextuse.h), and over the rest when the report is made, and call the
 * hook then. */
typedef void (*VatHook) (void *data, const VatTc *tc, VatEventKind kind, guint64 node);

struct VatTc {
  VatIndex index;         /* the node in each cell (index.node[s], VAT_NO_NODE while free) */
  guint32 *parent;        /* [n_slots] ISP policies: the cell of the node's parent, or VAT_NO_SLOT */
  guint32 *n_children;    /* [n_slots] ISP policies: cached children of the node */
  void *ps;               /* the policy's state */
  const VatPolicy *policy;
  VatHook hook;
  void *hook_data;
  guint64 next_key;       /* offline policies: the next-use key of the node being accessed */
  gboolean next_soon;     /* offline policies: that node's next use is the next access (the
                             root's), where min may leave its key (min.c) */
  guint64 memo_page;      /* the page of the previous walk when `memo`, else VAT_NO_NODE */
  guint32 memo_slot[VAT_MAX_DEPTH + 1];  /* the cell of each of its path nodes */
  guint8 memo_layer[65];  /* by the bit length of page ^ memo_page: the lowest layer both pages'
                             paths share (ceil(length / log2 K)), d+1 for none */
  guint64 seed;           /* random: the generator's seed */
  /* Insertions by tree (1: the host tree of vm=1) and layer; every other count derives from these
   * (a walk visits d+1 nodes, each a hit or an insertion). */
  guint64 misses_layer[2][VAT_MAX_DEPTH + 1];
  guint32 n_slots;        /* W */
  guint32 filled;         /* cached nodes = the next free cell */
  guint depth;            /* d */
  guint k_bits;           /* log2 K */
  guint n_trees;          /* 1, or 2 with vm=1 */
  gboolean isp;           /* maintain parent and n_children */
  gboolean memo;          /* the previous walk's path is still cached when the next walk starts
                             (vat.c sets it where it allows repeats to be skipped) */
  gboolean general;       /* never take the policy's fast run (the tests compare the two) */
};

typedef void (*VatAccessFn) (VatTc *tc, guint32 slot, gboolean hit);
typedef guint32 (*VatVictimFn) (VatTc *tc, guint64 node, guint32 parent);

/* VatPolicy flags. */
enum {
  VAT_POLICY_ISP = 1 << 0,        /* keeps the initial segment property: needs W >= d+1 */
  VAT_POLICY_OFFLINE = 1 << 1,    /* needs next-use keys: runs when the report is made */
  VAT_POLICY_STACK = 1 << 2,      /* a stack algorithm: curve=1 computes every W in one pass */
  VAT_POLICY_KEEPS_PATH = 1 << 3, /* with W >= d+1 the whole path is cached after a walk, and
                                     walking it again changes nothing: repeats may be skipped */
  VAT_POLICY_ROOT_PER_TREE = 1 << 4, /* the root layer needs a cell per tree (levels, vm=1) */
  VAT_POLICY_GAP = 1 << 5,        /* below the first missing node of a path every node misses */
  VAT_POLICY_FREE_FIRST = 1 << 6, /* free cells are filled in order before the victim is asked,
                                     which then only ever sees a full TC */
  VAT_POLICY_RUN_ENDS = 1 << 7,   /* offline: with W >= d+1, the accesses inside a run of repeats
                                     of one page are all hits that leave the TC as the run's last
                                     access finds it, so a run may be stored as its first and last
                                     access (vat.c, translate) */
};

/* With the flags of a policy, the walk's variant for a batch that a hook watches (vat_run_inline). */
#define VAT_WALK_HOOK (1u << 31)

/**
 * VatPolicy: a replacement policy, one file each, defined with VAT_POLICY_DEFINE and listed in
 * VAT_POLICIES below.
 * @name: the spec word.
 * @flags: VAT_POLICY_*.
 * @min_cells_extra: the smallest valid W is d + @min_cells_extra (0: any W >= 1).
 * @state_size: the size of @tc->ps, which the TC allocates zeroed before @init and frees after
 *   @finalize.
 * @init: (nullable) allocates what @tc->ps points to for @tc->n_slots cells (the TC itself is
 *   ready; vat.c has checked the parameters, so it cannot fail).
 * @reset: back to empty; also called once after @init.
 * @finalize: (nullable) frees what @init allocated.
 * @run: the translations of @pages[0..@n), in order, each walking every tree (@tc->n_trees), and
 *   @hist[m] += 1 for each with m misses in all. Offline policies get @next: for access i and layer
 *   l, the number of the next access that uses the same node, @next[i * (d+1) + l] (G_MAXUINT32 for
 *   none); other policies get NULL. The per-access loop of every policy, written once as
 *   vat_run_inline() below and instantiated by VAT_POLICY_DEFINE.
 * @run_fast: (nullable) the same as @run, for the common case that vat_policy_run() picks: an
 *   online policy, one tree, no hook, the path memo on (W >= d+1). Written for speed by hand,
 *   where @run is the shared walk; the tests hold the two to the same counts.
 * @run_offline_fast: (nullable) the same as @run, for an offline policy in the case that
 *   vat_policy_run_offline() picks: one tree, no hook. Written for speed by hand, as @run_fast is;
 *   the tests hold the two to the same counts.
 * @check: (nullable) checks the policy's structures against the TC; sets MDL_ERROR_MODEL.
 */
struct VatPolicy {
  const char *name;
  guint flags;
  guint min_cells_extra;
  gsize state_size;
  void (*init) (VatTc *tc);
  void (*reset) (VatTc *tc);
  void (*finalize) (VatTc *tc);
  void (*run) (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist);
  void (*run_fast) (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist);
  void (*run_offline_fast) (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next,
                            guint64 *hist);
  gboolean (*check) (const VatTc *tc, GError **error);
};

/* The policy's run (VatPolicy), by its fast path where it has one and the case is covered. */
static inline void
vat_policy_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist)
{
  const VatPolicy *p = tc->policy;
  if (p->run_fast != NULL && tc->hook == NULL && tc->n_trees == 1 && tc->memo && !tc->general)
    p->run_fast (tc, pages, n, hist);
  else
    p->run (tc, pages, n, next, hist);
}

/* An offline policy's run (VatPolicy), by its fast path where it has one and the case is
 * covered. */
static inline void
vat_policy_run_offline (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next,
                        guint64 *hist)
{
  const VatPolicy *p = tc->policy;
  if (p->run_offline_fast != NULL && tc->hook == NULL && tc->n_trees == 1 && !tc->general)
    p->run_offline_fast (tc, pages, n, next, hist);
  else
    p->run (tc, pages, n, next, hist);
}

/* Every policy, one row each, in the order of the `policy` parameter's choices: X (NAME) stands
 * for the policy whose spec word is NAME and whose VatPolicy is mdl_vat_NAME (in NAME.c); SEP goes
 * between rows. vat.c makes the policy table, the parameter's choices and the engine's summary from
 * this list, so a new policy is its file and a row here. */
#define VAT_POLICIES(X, SEP) \
  X (lru)                    \
  SEP X (islru)              \
  SEP X (min)                \
  SEP X (ismin)              \
  SEP X (fifo)               \
  SEP X (random)             \
  SEP X (levels)             \
  /* a new row goes above */

#define VAT_POLICY_DECLARE(name) extern const VatPolicy mdl_vat_##name;
VAT_POLICIES (VAT_POLICY_DECLARE, )
#undef VAT_POLICY_DECLARE

/* tc.c */
void mdl_vat_tc_init (VatTc *tc, const VatPolicy *policy, guint32 n_slots, guint depth,
                      guint k_bits, guint n_trees, guint64 seed);
void mdl_vat_tc_reset (VatTc *tc);
void mdl_vat_tc_finalize (VatTc *tc);

/* Sets every cell's child count from the parent links, which are right (a free cell has none):
 * islru's fast run leaves the counts to this at its end where the TC is small, as it leaves the
 * index's chains. */
void mdl_vat_tc_recount_children (VatTc *tc);

/* The insertions so far: all, or of tree @tree only. */
guint64 mdl_vat_tc_misses (const VatTc *tc);
guint64 mdl_vat_tc_tree_misses (const VatTc *tc, guint tree);

/* TRUE when @node is cached. */
gboolean mdl_vat_tc_cached (const VatTc *tc, guint64 node);
/**
 * mdl_vat_tc_check: checks the TC's invariants: the index finds every cached node in its cell and
 * nothing else; no node is cached twice; under an ISP policy (islru, ismin) every cached non-root
 * node has its parent cached (the initial segment property), and the child counts are right; the
 * policy's own structures hold exactly the cached cells.
 * @error: MDL_ERROR_MODEL naming the broken invariant and the node.
 */
gboolean mdl_vat_tc_check (const VatTc *tc, GError **error);

/* The key of a node used at access t, tree @tree, layer @layer, in a sequence with @n_trees walks
 * of depth+1 nodes per access. */
static inline guint64
vat_position (guint64 t, guint tree, guint n_trees, guint depth, guint layer)
{
  return (t * n_trees + tree) * (depth + 1) + (depth - layer);
}

static inline guint64
vat_path_node (const VatTc *tc, guint64 page, guint tree, guint layer)
{
  return vat_node_make (layer, tree, page >> (tc->k_bits * layer));
}

/* The inline pieces of the walk take the policy's flags and VAT_WALK_HOOK as @flags, a constant
 * where the walk is instantiated, so that what a policy does not need is compiled out. */

static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_evict (VatTc *tc, guint32 s, guint flags)
{
  guint64 old = tc->index.node[s];
  vat_index_remove (&tc->index, s);
  if ((flags & VAT_POLICY_ISP) && tc->parent[s] != VAT_NO_SLOT)
    tc->n_children[tc->parent[s]]--;
  tc->filled--;
  if (flags & VAT_WALK_HOOK)
    tc->hook (tc->hook_data, tc, VAT_EV_EVICT, old);
}

/* Puts @node into the free cell @s. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_fill (VatTc *tc, guint32 s, guint64 node, guint32 parent, guint flags)
{
  /* Why absent: a walk inserts only nodes it did not find, and the gap shortcut relies on Lemma
   * 2.8; a node cached twice would mean either is wrong (checked where tests watch). */
  if (flags & VAT_WALK_HOOK)
    g_assert (vat_index_find (&tc->index, node) == VAT_NO_SLOT);
  vat_index_put (&tc->index, s, node);
  tc->filled++;
  if (flags & VAT_POLICY_ISP)
    {
      tc->parent[s] = parent;
      tc->n_children[s] = 0;
      if (parent != VAT_NO_SLOT)
        tc->n_children[parent]++;
    }
}

/* Recency rings, used by lru, islru and levels: cells in a circular doubly linked list (@prev,
 * @next), the most recent at *@head, the least recent at prev[*@head]. A ring holds all its cells
 * from the start, the free ones as the least recent in the order they are to be filled, so making
 * the least recent cell the most recent (what LRU does on every insertion) is one store,
 * `*head = prev[*head]`, with nothing unlinked. */
void mdl_vat_ring_init (guint32 *prev, guint32 *next, guint32 *head, guint32 first, guint32 n);

/* Takes @s, not the only cell, off the ring. */
static inline void
vat_ring_take (guint32 *prev, guint32 *next, guint32 *head, guint32 s)
{
  next[prev[s]] = next[s];
  prev[next[s]] = prev[s];
  if (*head == s)
    *head = next[s];
}

/* Puts @s, a cell off the ring, on it as the most recent. */
static inline void
vat_ring_put_first (guint32 *prev, guint32 *next, guint32 *head, guint32 s)
{
  guint32 h = *head, t = prev[h];
  prev[s] = t;
  next[s] = h;
  next[t] = s;
  prev[h] = s;
  *head = s;
}

/* Makes @s the most recent. */
static inline void
vat_ring_touch (guint32 *prev, guint32 *next, guint32 *head, guint32 s)
{
  guint32 h = *head, t = prev[h];
  if (s == h)
    return;
  if (s != t)
    {
      next[prev[s]] = next[s];
      prev[next[s]] = prev[s];
      prev[s] = t;
      next[s] = h;
      next[t] = s;
      prev[h] = s;
    }
  *head = s;
}

/* What touching @path[@depth - 1] down to @path[@from] one after the other does, when the ring's
 * most recent cells are @path[0], @path[1], ..., @path[@depth - 1] in this order (0 < @from <
 * @depth): they become @path[@from], ..., @path[@depth - 1], @path[0], ..., @path[@from - 1]. One
 * move of the block @path[0..@from - 1] to after @path[@depth - 1] (six stores), or only a new
 * head when the ring holds nothing else. */
static inline void
vat_ring_rotate_path (guint32 *prev, guint32 *next, guint32 *head, const guint32 *path, int from,
                      int depth)
{
  guint32 first = path[0], last = path[from - 1], top = path[from], bottom = path[depth - 1];
  guint32 before = prev[first], after = next[bottom];
  if (after != first)
    {
      next[before] = top;
      prev[top] = before;
      next[bottom] = first;
      prev[first] = bottom;
      next[last] = after;
      prev[after] = last;
    }
  *head = top;
}

/* Moves @s, which is not @p, to just after @p (one step less recent than @p). */
static inline void
vat_ring_place_after (guint32 *prev, guint32 *next, guint32 p, guint32 s)
{
  guint32 after;
  next[prev[s]] = next[s];
  prev[next[s]] = prev[s];
  after = next[p];
  prev[s] = p;
  next[s] = after;
  next[p] = s;
  prev[after] = s;
}

/* Checks that the ring at @head links exactly the cells [@first, @first + @n), both ways. */
gboolean mdl_vat_ring_check (const guint32 *prev, const guint32 *next, guint32 head, guint32 first,
                             guint32 n, const char *what, GError **error);

/* The one recency ring of lru and islru, kept as @tc->ps. The two policies differ only in which
 * cell they evict; these are their VatPolicy methods. */
typedef struct {
  guint32 *prev;   /* [W] */
  guint32 *next;   /* [W] */
  guint32 head;
} VatRecency;

void mdl_vat_recency_init (VatTc *tc);
void mdl_vat_recency_reset (VatTc *tc);
void mdl_vat_recency_finalize (VatTc *tc);
gboolean mdl_vat_recency_check (const VatTc *tc, GError **error);

/* The VatPolicy fields of a policy kept on the recency ring (VAT_POLICY_DEFINE's last arguments). */
#define VAT_RECENCY_METHODS                                                                       \
  .state_size = sizeof (VatRecency), .init = mdl_vat_recency_init,                                \
  .reset = mdl_vat_recency_reset, .finalize = mdl_vat_recency_finalize,                           \
  .check = mdl_vat_recency_check

/* A hit or an insertion makes the cell the most recent. */
static inline void
vat_recency_access (VatTc *tc, guint32 s, gboolean hit)
{
  VatRecency *r = tc->ps;
  (void) hit;
  vat_ring_touch (r->prev, r->next, &r->head, s);
}

/* vat_recency_run_fast's insertion of @node into cell @s, whose node it evicts: with @scan
 * (index.h) the cell's node, its fingerprint in @fp and the direct table @direct (NULL: a hashed
 * layer) only, the chains being rebuilt at the end of the run. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_fast_put (VatIndex *x, guint16 *fp, guint32 *direct, gboolean scan, guint32 s, guint64 node)
{
  if (scan)
    {
      x->node[s] = node;
      fp[s] = vat_index_fingerprint (node);
      if (direct != NULL)
        direct[node & VAT_INDEX_MASK] = s;
    }
  else
    vat_index_replace_in (x, direct, s, node);
}

/**
 * vat_recency_run_fast: VatPolicy.run_fast of lru (@isp FALSE) and islru (@isp TRUE, a constant):
 * the shared walk with what they do not need taken out, and the state it changes on every access
 * (the ring's head, the path's cells) and the index's fields in locals, where the shared walk reads
 * them from the TC after every store to a table that may alias them.
 *
 * lru: the root is off the ring while the run lasts, and put back as the most recent at its end:
 * every walk shares it with the last one, and it is never the victim (it was used at the start of
 * the walk under way and at most d-1 nodes since, with W >= d+1). So the run need not move it or
 * step over it, and the order of the other cells stays exact; whoever walks next (this run or the
 * shared walk) moves the root to the front first thing, before any insertion, so where it was put
 * back decides nothing.
 *
 * islru keeps each walk's nodes on the ring root first, each just after its parent (islru.c): the
 * root stays the most recent cell, a layer the walk shares with the last one is already in place,
 * and the least recent cell is the victim, with no step over nodes that have children; a walk's
 * insertions take the ring's last cells as one block.
 *
 * The first walk after a reset, which inserts the root, goes through the policy's shared run.
 *
 * Counts come from the histogram alone: an access with m misses misses exactly on layers 0..m-1
 * (Lemma 2.8, and the ISP for islru), and since the free cells are the least recent and
 * childless, the first W insertions fill them and nothing empties one.
 *
 * A TC of at most VAT_SCAN_CELLS cells finds its hashed layers' nodes by a scan and leaves the
 * chains alone until the end of the run (index.h), and islru's child counts too.
 *
 * @fixed_depth: the tree's depth as a constant (0: read it from @tc), so that the walk over the
 * layers unrolls into straight-line code with each layer's direct table known.
 */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_recency_run_fast (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist, gboolean isp,
                      int fixed_depth)
{
  VatRecency *r = tc->ps;
  VatIndex index;
  guint32 *prev = r->prev, *next = r->next, *parent = tc->parent, *n_children = tc->n_children;
  guint32 head;
  guint32 path[VAT_MAX_DEPTH + 1];            /* the cell of each node of the last walk */
  guint32 *direct[VAT_MAX_DEPTH + 1];         /* each layer's direct table, NULL if hashed */
  guint64 by_misses[VAT_MAX_DEPTH + 2] = { 0 }, insertions = 0, at_least = 0;
  guint64 memo_page;
  int depth = fixed_depth > 0 ? fixed_depth : (int) tc->depth;
  guint k_bits = tc->k_bits;
  VatIndex *x = &index;
  guint16 fp[VAT_SCAN_CELLS];                 /* with scan: each cell's fingerprint (index.h) */
  gboolean scan = tc->n_slots <= VAT_SCAN_CELLS;
  if (n > 0 && tc->memo_page == VAT_NO_NODE)
    {
      tc->policy->run (tc, pages, 1, NULL, hist);
      pages++;
      n--;
    }
  if (n == 0)
    return;
  index = tc->index;
  head = r->head;
  memo_page = tc->memo_page;
  memcpy (path, tc->memo_slot, sizeof path);
  for (int l = 0; l <= depth; l++)
    direct[l] = vat_index_direct_of (x, vat_node_make ((guint) l, 0, 0));
  if (!isp)
    vat_ring_take (prev, next, &head, path[depth]);
  if (scan)
    for (guint32 c = 0; c < VAT_SCAN_CELLS; c++)
      fp[c] = c < x->n ? vat_index_fingerprint (x->node[c]) : 0;
  for (gsize i = 0; i < n; i++)
    {
      guint64 page = pages[i];
      int shared = tc->memo_layer[64 - __builtin_clzll ((page ^ memo_page) | 1)];
      int misses = 0;   /* once the walk has missed: the layer of the first miss + 1 */
      /* lru: every walk of this run leaves its path on the ring's top, path[0] the most recent,
       * so from the second on the shared layers' touches are one rotation of that block
       * (bench-vat-overhead 20, callgrind: the walk 118.0 -> 106.4 instructions an event). */
      gboolean rotate = !isp && i > 0;
      if (rotate && shared > 0 && shared < depth)
        vat_ring_rotate_path (prev, next, &head, path, shared, depth);
      /* Root first, each layer a hit in a cell the last walk left (a layer shared with its page),
       * a hit the index finds, or, from the first miss on, an insertion. With the depth a
       * constant the loop unrolls and each layer's branches are predicted on their own
       * (bench-vat, callgrind: lru 282 -> 227 instructions per access, islru 414 -> 321). */
#pragma GCC unroll 8
      for (int l = depth - 1; l >= 0; l--)
        {
          guint64 node = vat_node_make ((guint) l, 0, page >> (k_bits * (guint) l));
          guint32 s;
          if (l >= shared)
            {
              if (!isp && !rotate)
                vat_ring_touch (prev, next, &head, path[l]);
              continue;
            }
          if (misses == 0
              && (s = scan && direct[l] == NULL ? vat_index_scan (x, fp, node)
                                                : vat_index_find_in (x, direct[l], node))
                 != VAT_NO_SLOT)
            {
              if (isp)
                vat_ring_place_after (prev, next, path[l + 1], s);
              else
                vat_ring_touch (prev, next, &head, s);
              path[l] = s;
            }
          else if (isp)
            {
              /* islru: this layer and every one below miss (the ISP), and their victims
               * (islru.c) are the l+1 least recent cells, one after the other: each is the
               * least recent when its turn comes, childless by the order of the ring, and the
               * cells taken before it go to the front. So the run takes them as one block off
               * the ring's end and puts it after the parent's cell as it stands, its most
               * recent cell for layer l and so on down, which is the order the insertions one
               * by one would leave, in other cells (no count depends on which). No assert on
               * the victims' child counts: test-vat-fast holds the run to the shared walk's
               * counts and checks the ISP and the counts after it. */
              guint32 low = prev[head], top = low, up = path[l + 1], before, after;
              misses = l + 1;
#pragma GCC unroll 8
              for (int j = 0; j < l; j++)
                top = prev[top];
              before = prev[top];
              next[before] = head;
              prev[head] = before;
              after = next[up];
              next[up] = top;
              prev[top] = up;
              next[low] = after;
              prev[after] = low;
#pragma GCC unroll 8
              for (int j = l; j >= 0; j--)
                {
                  s = top;
                  top = next[top];
                  /* With the scan the child counts are recounted at the end of the run, as
                   * the chains are rebuilt. */
                  if (!scan)
                    {
                      if (parent[s] != VAT_NO_SLOT)
                        n_children[parent[s]]--;
                      n_children[up]++;
                    }
                  parent[s] = up;
                  vat_fast_put (x, fp, direct[j], scan, s,
                                vat_node_make ((guint) j, 0, page >> (k_bits * (guint) j)));
                  path[j] = s;
                  up = s;
                }
              break;
            }
          else
            {
              /* The victim's cell becomes the most recent. */
              misses = misses ? misses : l + 1;
              s = prev[head];
              head = s;
              vat_fast_put (x, fp, direct[l], scan, s, node);
              path[l] = s;
            }
        }
      by_misses[misses]++;
      memo_page = page;
    }
  if (!isp)
    vat_ring_put_first (prev, next, &head, path[depth]);
  if (scan)
    {
      mdl_vat_index_rechain (&tc->index);
      if (isp)
        mdl_vat_tc_recount_children (tc);
    }
  r->head = head;
  tc->memo_page = memo_page;
  memcpy (tc->memo_slot, path, sizeof path);
  for (int m = depth + 1; m > 0; m--)
    {
      at_least += by_misses[m];
      tc->misses_layer[0][m - 1] += at_least;
      insertions += by_misses[m] * (guint64) m;
      hist[m] += by_misses[m];
    }
  hist[0] += by_misses[0];
  tc->filled = (guint32) MIN ((guint64) tc->n_slots, tc->filled + insertions);
}

/* VatPolicy.run_fast of lru and islru: vat_recency_run_fast with the tree's depth made a constant
 * for the depths of real machines (4 and 5 levels of page tables, one less with huge pages, and
 * bench-vat's 3), else read from the TC. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_recency_run_fast_by_depth (VatTc *tc, const guint64 *pages, gsize n, guint64 *hist,
                               gboolean isp)
{
  switch (tc->depth)
    {
    case 2: vat_recency_run_fast (tc, pages, n, hist, isp, 2); break;
    case 3: vat_recency_run_fast (tc, pages, n, hist, isp, 3); break;
    case 4: vat_recency_run_fast (tc, pages, n, hist, isp, 4); break;
    case 5: vat_recency_run_fast (tc, pages, n, hist, isp, 5); break;
    default: vat_recency_run_fast (tc, pages, n, hist, isp, 0); break;
    }
}

/* The access method of a policy that keeps no recency or keys (fifo, random). */
static inline void
vat_no_access (VatTc *tc, guint32 s, gboolean hit)
{
  (void) tc, (void) s, (void) hit;
}

/* One insertion of @node: the policy's cell (the next free one first, under
 * VAT_POLICY_FREE_FIRST), its old node evicted, the new node in. Returns the cell. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) guint32
vat_insert (VatTc *tc, guint64 node, guint32 parent, VatAccessFn access,
            VatVictimFn victim, guint flags)
{
  guint32 s = (flags & VAT_POLICY_FREE_FIRST) && tc->filled < tc->n_slots
              ? tc->filled : victim (tc, node, parent);
  if (tc->index.node[s] != VAT_NO_NODE)
    vat_evict (tc, s, flags);
  vat_fill (tc, s, node, parent, flags);
  access (tc, s, FALSE);
  if (flags & VAT_WALK_HOOK)
    tc->hook (tc->hook_data, tc, VAT_EV_MISS, node);
  return s;
}

static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_hit (VatTc *tc, guint32 s, VatAccessFn access, guint flags)
{
  access (tc, s, TRUE);
  if (flags & VAT_WALK_HOOK)
    tc->hook (tc->hook_data, tc, VAT_EV_HIT, tc->index.node[s]);
}

/* Offline policies: the key of the layer-@l node of the walk under way, from its next use. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_set_key (VatTc *tc, const guint32 *next, guint tree, guint l, guint flags)
{
  if (flags & VAT_POLICY_OFFLINE)
    {
      tc->next_key = next[l] == G_MAXUINT32 ? VAT_DEAD_KEY (l)
                     : vat_position (next[l], tree, tc->n_trees, tc->depth, l);
      tc->next_soon = next[l] == next[tc->depth] && next[l] != G_MAXUINT32;
    }
}

/* The walk of one translation, root first; returns its insertions. Under VAT_POLICY_GAP the walk
 * stops looking nodes up after the first miss: every node below it misses (Lemma 2.8, layer of the
 * highest absent node + 1, for LRU; the initial segment property for islru and ismin), and a node
 * that was cached below the gap is evicted before the walk reaches it. When a hook is set (the
 * tests) every insertion asserts that its node is absent, so a wrong shortcut cannot pass
 * silently. @next: this access's next uses (offline policies). */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) guint
vat_walk_inline (VatTc *tc, guint64 page, guint tree, const guint32 *next, VatAccessFn access,
                 VatVictimFn victim, guint flags)
{
  guint32 parent = VAT_NO_SLOT;
  guint k_bits = tc->k_bits, misses = 0;
  int l = (int) tc->depth;
  guint64 *misses_layer = tc->misses_layer[tree];
  /* The last translated path first (Cachegrind tests its MRU way first): the layers this page
   * shares with the previous walk's page are hits in known cells, with no lookup. The root always
   * is one (+3% on bench-vat's random lru run, best of 5). Before the first walk memo_page is
   * VAT_NO_NODE, which shares no layer with any page of the tree. */
  if (tc->memo)
    for (int shared = tc->memo_layer[64 - __builtin_clzll ((page ^ tc->memo_page) | 1)]; l >= shared;
         l--)
      {
        parent = tc->memo_slot[l];
        vat_set_key (tc, next, tree, (guint) l, flags);
        vat_hit (tc, parent, access, flags);
      }
  for (; l >= 0; l--)
    {
      guint64 node = vat_node_make ((guint) l, tree, page >> (k_bits * (guint) l));
      guint32 s = vat_index_find (&tc->index, node);
      vat_set_key (tc, next, tree, (guint) l, flags);
      if (s == VAT_NO_SLOT)
        {
          parent = vat_insert (tc, node, parent, access, victim, flags);
          misses_layer[l]++;
          misses++;
          tc->memo_slot[l] = parent;
          if (flags & VAT_POLICY_GAP)
            break;
        }
      else
        {
          vat_hit (tc, s, access, flags);
          parent = s;
          tc->memo_slot[l] = parent;
        }
    }
  if (flags & VAT_POLICY_GAP)
    for (l--; l >= 0; l--)
      {
        guint64 node = vat_node_make ((guint) l, tree, page >> (k_bits * (guint) l));
        vat_set_key (tc, next, tree, (guint) l, flags);
        parent = vat_insert (tc, node, parent, access, victim, flags);
        misses_layer[l]++;
        misses++;
        tc->memo_slot[l] = parent;
      }
  tc->memo_page = page;
  return misses;
}

static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_run_loop (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist,
              VatAccessFn access, VatVictimFn victim, guint flags)
{
  guint stride = tc->depth + 1;
  for (gsize i = 0; i < n; i++)
    {
      const guint32 *nu = (flags & VAT_POLICY_OFFLINE) ? next + i * stride : NULL;
      guint misses = vat_walk_inline (tc, pages[i], 0, nu, access, victim, flags);
      if (tc->n_trees == 2)
        misses += vat_walk_inline (tc, pages[i], 1, nu, access, victim, flags);
      hist[misses]++;
    }
}

/* VatPolicy.run, which each policy file instantiates with its own access, victim and flags
 * (always_inline with constant function pointers and flags: the compiler inlines them and drops
 * what the policy does not use, and the whole batch runs without a call). */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_run_inline (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist,
                VatAccessFn access, VatVictimFn victim, guint flags)
{
  if (G_UNLIKELY (tc->hook != NULL))
    vat_run_loop (tc, pages, n, next, hist, access, victim, flags | VAT_WALK_HOOK);
  else
    vat_run_loop (tc, pages, n, next, hist, access, victim, flags);
}

/**
 * VAT_POLICY_DEFINE: defines policy @NAME's VatPolicy, mdl_vat_@NAME, named "@NAME", with the walk
 * instantiated for it as its run.
 * @FLAGS: its VatPolicy flags, a constant.
 * @ACCESS: its VatAccessFn: the cell was just hit, or just filled by an insertion.
 * @VICTIM: its VatVictimFn: the cell for a new node @node whose parent sits in cell @parent
 *   (VAT_NO_SLOT for a root, or when the policy does not keep the ISP): a free cell while there is
 *   one (under VAT_POLICY_FREE_FIRST it is asked only when the TC is full), else the cell to evict,
 *   whose node the policy has already dropped from its own structures.
 * ...: the other VatPolicy fields, as designated initializers.
 * A macro because the instantiation is the point: with @ACCESS and @VICTIM known where
 * vat_run_inline expands, each policy's walk compiles to straight-line code (a shared walk calling
 * them through pointers would pay two calls per node).
 */
#define VAT_POLICY_DEFINE(NAME, FLAGS, ACCESS, VICTIM, ...)                                     \
  static void NAME##_run (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next,        \
                          guint64 *hist)                                                         \
  {                                                                                              \
    vat_run_inline (tc, pages, n, next, hist, ACCESS, VICTIM, FLAGS);                            \
  }                                                                                              \
  const VatPolicy mdl_vat_##NAME = { .name = #NAME, .flags = FLAGS, .run = NAME##_run, __VA_ARGS__ }

#endif
