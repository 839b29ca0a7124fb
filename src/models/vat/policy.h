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
 * Policies keep their own per-cell arrays behind `ps`.
 *
 * The walk and the loop over a batch of accesses are written once, below, and each policy file
 * instantiates them with its own access and victim functions and its flags as constants (STYLE
 * "specialise at init"): the per-node work compiles to straight-line code without calls, and what
 * a policy does not use (ISP bookkeeping, next-use keys, the gap shortcut, the hook) is compiled
 * out. */
#ifndef MDL_VAT_POLICY_H
#define MDL_VAT_POLICY_H

#include <glib.h>

#include "models/vat/index.h"
#include "models/vat/vat.h"

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

struct VatTc {
  VatIndex index;         /* the node in each cell (index.node[s], VAT_NO_NODE while free) */
  guint32 *parent;        /* [n_slots] ISP policies: the cell of the node's parent, or VAT_NO_SLOT */
  guint32 *n_children;    /* [n_slots] ISP policies: cached children of the node */
  void *ps;               /* the policy's state */
  const VatPolicy *policy;
  VatHook hook;
  void *hook_data;
  guint64 next_key;       /* offline policies: the next-use key of the node being accessed */
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
};

/* With the flags of a policy, the walk's variant for a batch that a hook watches (vat_run_inline). */
#define VAT_WALK_HOOK (1u << 31)

/**
 * VatPolicy: a replacement policy, one file each, listed in vat.c.
 * @name: the spec word.
 * @flags: VAT_POLICY_*.
 * @min_cells_extra: the smallest valid W is d + @min_cells_extra (0: any W >= 1).
 * @init: allocates @tc->ps for @tc->n_slots cells (the TC itself is ready).
 * @access: the node in @slot was just hit, or (@hit FALSE) just inserted into it.
 * @victim: the cell for a new node @node whose parent sits in cell @parent (VAT_NO_SLOT for a root
 *   or when the policy does not track parents): a free cell while there is one, else the cell to
 *   evict, which the policy has already dropped from its own structures.
 * @reset: back to empty (the TC is emptied by the caller).
 * @finalize: frees @tc->ps.
 * @run: the translations of @pages[0..@n), in order, each walking every tree (@tc->n_trees), and
 *   @hist[m] += 1 for each with m misses in all. Offline policies get @next: for access i and layer
 *   l, the number of the next access that uses the same node, @next[i * (d+1) + l] (G_MAXUINT32 for
 *   none); other policies get NULL. The per-access loop of every policy, written once as
 *   vat_run_inline() below.
 * @check: (nullable) checks the policy's structures against the TC; sets MDL_ERROR_MODEL.
 */
struct VatPolicy {
  const char *name;
  guint flags;
  guint min_cells_extra;
  gboolean (*init) (VatTc *tc, GError **error);
  VatAccessFn access;
  VatVictimFn victim;
  void (*reset) (VatTc *tc);
  void (*finalize) (VatTc *tc);
  void (*run) (VatTc *tc, const guint64 *pages, gsize n, const guint32 *next, guint64 *hist);
  gboolean (*check) (const VatTc *tc, GError **error);
};

extern const VatPolicy mdl_vat_lru;
extern const VatPolicy mdl_vat_islru;
extern const VatPolicy mdl_vat_min;
extern const VatPolicy mdl_vat_ismin;
extern const VatPolicy mdl_vat_fifo;
extern const VatPolicy mdl_vat_random;
extern const VatPolicy mdl_vat_levels;

/* tc.c */
gboolean mdl_vat_tc_init (VatTc *tc, const VatPolicy *policy, guint32 n_slots, guint depth,
                          guint k_bits, guint n_trees, guint64 seed, GError **error);
void mdl_vat_tc_reset (VatTc *tc);
void mdl_vat_tc_finalize (VatTc *tc);

/* The insertions so far: all, or of tree @tree only. */
guint64 mdl_vat_tc_misses (const VatTc *tc);
guint64 mdl_vat_tc_tree_misses (const VatTc *tc, guint tree);

/* nextuse.c: for every access t and layer l, the next access that uses the same layer-l node
 * (G_MAXUINT32 for none), at [t * (depth + 1) + l]. @distinct[l]: the number of distinct layer-l
 * nodes of @pages, which sizes the tables (a smaller number costs growing them). (transfer full) */
guint32 *mdl_vat_nextuse (const guint64 *pages, gsize n, guint depth, guint k_bits,
                          const guint64 *distinct);

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

/* The first free cell, or VAT_NO_SLOT when the TC is full. */
static inline guint32
vat_free_slot (const VatTc *tc)
{
  return tc->filled < tc->n_slots ? tc->filled : VAT_NO_SLOT;
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

/* Puts @node, of bucket @b, into the free cell @s. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) void
vat_fill (VatTc *tc, guint32 s, guint32 b, guint64 node, guint32 parent, guint flags)
{
  /* Why absent: a walk inserts only nodes it did not find, and the gap shortcut relies on Lemma
   * 2.8; a node cached twice would mean either is wrong (checked where tests watch). */
  if (flags & VAT_WALK_HOOK)
    g_assert (vat_index_find (&tc->index, node) == VAT_NO_SLOT);
  vat_index_put (&tc->index, b, s, node);
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

/* Checks that the ring at @head links exactly the cells [@first, @first + @n), both ways. */
gboolean mdl_vat_ring_check (const guint32 *prev, const guint32 *next, guint32 head, guint32 first,
                             guint32 n, const char *what, GError **error);

/* The one recency ring of lru and islru, kept as @tc->ps. The two policies differ only in which
 * cell they evict. */
typedef struct {
  guint32 *prev;   /* [W] */
  guint32 *next;   /* [W] */
  guint32 head;
} VatRecency;

gboolean mdl_vat_recency_init (VatTc *tc, GError **error);
void mdl_vat_recency_reset (VatTc *tc);
void mdl_vat_recency_finalize (VatTc *tc);
gboolean mdl_vat_recency_check (const VatTc *tc, const char *what, GError **error);

/* A hit or an insertion makes the cell the most recent. */
static inline void
vat_recency_access (VatTc *tc, guint32 s, gboolean hit)
{
  VatRecency *r = tc->ps;
  (void) hit;
  vat_ring_touch (r->prev, r->next, &r->head, s);
}

/* One insertion of @node, of bucket @b: the policy's cell, its old node evicted, the new node in.
 * Returns the cell. */
static inline G_GNUC_UNUSED __attribute__ ((always_inline)) guint32
vat_insert (VatTc *tc, guint32 b, guint64 node, guint32 parent, VatAccessFn access,
            VatVictimFn victim, guint flags)
{
  guint32 s = victim (tc, node, parent);
  if (tc->index.node[s] != VAT_NO_NODE)
    vat_evict (tc, s, flags);
  vat_fill (tc, s, b, node, parent, flags);
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
    tc->next_key = next[l] == G_MAXUINT32 ? VAT_DEAD_KEY (l)
                   : vat_position (next[l], tree, tc->n_trees, tc->depth, l);
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
      guint32 b = vat_index_bucket (&tc->index, node), s = vat_index_find_in (&tc->index, b, node);
      vat_set_key (tc, next, tree, (guint) l, flags);
      if (s == VAT_NO_SLOT)
        {
          parent = vat_insert (tc, b, node, parent, access, victim, flags);
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
        parent = vat_insert (tc, vat_index_bucket (&tc->index, node), node, parent, access, victim,
                             flags);
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

#endif
