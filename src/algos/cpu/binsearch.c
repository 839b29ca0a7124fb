/* Repeated binary search over n sorted 8-byte keys, in two layouts (VAT thesis §2.1 and §2.5):
 *  - sorted: the textbook search over A[lo..hi], mid = floor((lo+hi)/2), stopping when found; the
 *    probes walk an implicit balanced tree rooted at A[n/2], whose translation cost grows like
 *    log^2 n per search (Lemma 2.28);
 *  - veb: the same keys as a complete binary search tree (node 1 the root, node i's children 2i and
 *    2i+1, keys in in-order) stored in van Emde Boas layout, whose cost is that of a cache-oblivious
 *    search, log_P n + log_K n ln log_P m faults (Theorem 2.32).
 * Both run the same `searches` queries (default n), each for a key that is present, drawn from the
 * same seeded sequence. Key k (0-based rank) is 2k+1, so a query is made without touching memory.
 * One RAM operation per query (the draw) and one per probe. Every probe after a search's first
 * is a dependent load (MDL_CPU_FLAG_DEPENDENT): the last probe's value chose its address, through
 * a branch in the sorted layout, by arithmetic in the van Emde Boas one (MDL_CPU_FLAG_CHASE). */
#include "algos/cpu/cpu-algo.h"

#define VEB_MAX_DEPTH 64

static guint64
n_searches (const MdlParams *params, guint64 n)
{
  guint64 s = params ? mdl_params_uint (params, "searches") : 0;
  return s ? s : n;
}

/* The textbook search for @key over A[0..n-1]: its index, or @n when it is not there. */
static inline guint64
search_sorted (const guint64 *a, guint64 n, guint64 key, MdlRecorder *rec)
{
  guint64 lo = 0, hi = n;           /* the range is A[lo..hi-1]: hi is one past, so no -1 */
  (void) rec;
  while (lo < hi)
    {
      guint64 mid = (lo + hi - 1) / 2; /* floor((lo + last) / 2), last = hi - 1 */
      guint64 v = a[mid];
      /* Every probe but the first was chosen by the compare of the last one's value. */
      MDL_READ_DEP (rec, &a[mid], lo != 0 || hi != n);
      MDL_OPS (rec, 1);
      if (MDL_BRANCH (rec, v == key))
        return mid;
      if (MDL_BRANCH (rec, v < key))
        lo = mid + 1;
      else
        hi = mid;
    }
  return n;
}

/* The van Emde Boas layout of a complete tree of height h: the top half of the levels is laid out
 * first, recursively, then each bottom subtree, recursively, left to right. Every depth d >= 1 is
 * the top of the bottom trees of exactly one split; with that split's enclosing tree rooted at depth
 * root_depth[d], a node at depth d with heap index i sits at
 *   pos(ancestor at root_depth[d]) + top_size[d] + (i & path_mask[d]) * bottom_size[d],
 * because an enclosing tree starts with its own root and its bottom trees follow its top tree in
 * left-to-right order (the low bits of i below the ancestor number them). Brodal, Fagerberg and
 * Jacob (SODA 2002) search with such per-depth tables; the derivation here is our own. */
typedef struct {
  guint64 top_size[VEB_MAX_DEPTH];
  guint64 bottom_size[VEB_MAX_DEPTH];
  guint64 path_mask[VEB_MAX_DEPTH];
  guint root_depth[VEB_MAX_DEPTH];
} VebTables;

static void
veb_split (VebTables *t, guint root, guint height)
{
  guint top = height / 2, bottom = height - top;
  if (height <= 1)
    return;
  t->root_depth[root + top] = root;
  t->top_size[root + top] = (G_GUINT64_CONSTANT (1) << top) - 1;
  t->bottom_size[root + top] = (G_GUINT64_CONSTANT (1) << bottom) - 1;
  t->path_mask[root + top] = (G_GUINT64_CONSTANT (1) << top) - 1;
  veb_split (t, root, top);
  veb_split (t, root + top, bottom);
}

/* The height of the complete tree holding nodes 1..n. */
static guint
veb_height (guint64 n)
{
  return (guint) g_bit_nth_msf (n, -1) + 1;
}

static inline guint64
veb_pos (const VebTables *t, const guint64 *pos, guint depth, guint64 i)
{
  if (depth == 0)
    return 0;
  return pos[t->root_depth[depth]] + t->top_size[depth]
         + (i & t->path_mask[depth]) * t->bottom_size[depth];
}

typedef struct {
  const VebTables *t;
  guint64 *a;
  guint64 n;
  guint64 rank;
  guint64 pos[VEB_MAX_DEPTH];
} VebFill;

/* Stores the keys in in-order: node i at depth d gets the next rank once its left subtree has. */
static void
veb_fill (VebFill *f, guint64 i, guint depth)
{
  if (i > f->n)
    return;
  f->pos[depth] = veb_pos (f->t, f->pos, depth, i);
  veb_fill (f, 2 * i, depth + 1);
  f->a[f->pos[depth]] = 2 * f->rank++ + 1;
  veb_fill (f, 2 * i + 1, depth + 1);
}

/* The search for @key down the tree in van Emde Boas layout: its slot, or @none. @pos is scratch
 * (the slots of the path so far). */
static inline guint64
search_veb (const VebTables *t, guint64 *pos, const guint64 *a, guint64 n, guint64 key,
            guint64 none, MdlRecorder *rec)
{
  guint64 i = 1;
  guint depth = 0;
  (void) rec;
  while (i <= n)
    {
      guint64 p = veb_pos (t, pos, depth, i);
      guint64 v = a[p];
      pos[depth] = p;
      /* Below the root: computed from the last compare's result, with no branch to predict. */
      MDL_READ_CHASE (rec, &a[p], depth > 0);
      MDL_OPS (rec, 1);
      if (MDL_BRANCH (rec, v == key))
        return p;
      i = 2 * i + (v < key);
      depth++;
    }
  return none;
}

/* The searches both layouts run: `searches` queries for present keys drawn from one seeded
 * sequence, through the sorted array (@veb NULL) or the van Emde Boas tree of tables @veb, @none
 * being the slot count that stands for "not found". The checksum is the sum of the slots found. */
static gboolean
run_searches (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
              MdlAlgoTimer *timer, const guint64 *a, const VebTables *veb, guint64 none,
              guint64 *checksum, GError **error)
{
  guint64 state = seed ^ 0xB5EA4C11ull, sum = 0, missed = 0, first_bad = 0;
  guint64 searches = n_searches (params, n);
  guint64 pos[VEB_MAX_DEPTH];
  MDL_ALGO_ESCAPE (a);
  mdl_algo_timer_start (timer);
  MDL_PHASE_BEGIN (rec, "search");
  for (guint64 s = 0; s < searches; s++)
    {
      guint64 rank = mdl_algo_below (&state, n), key = 2 * rank + 1, found;
      MDL_OPS (rec, 1);
      found = veb ? search_veb (veb, pos, a, n, key, none, rec) : search_sorted (a, n, key, rec);
      if (G_UNLIKELY (found == none || a[found] != key) && missed++ == 0)
        first_bad = rank;
      sum += found;
    }
  MDL_PHASE_END (rec, "search");
  mdl_algo_timer_stop (timer);
  *checksum = sum;
  if (missed == 0)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "binsearch/%s: %" G_GUINT64_FORMAT " searches "
               "ended at the wrong key (the first one looked for rank %" G_GUINT64_FORMAT ")",
               veb ? "veb" : "sorted", missed, first_bad);
  return FALSE;
}

static gboolean
binsearch_sorted (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
                  MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  g_autofree guint64 *a = mdl_algo_alloc_pages (rec, params, n, sizeof *a, "array", error);
  if (a == NULL)
    return FALSE;
  for (guint64 i = 0; i < n; i++)
    a[i] = 2 * i + 1;
  return run_searches (params, n, seed, rec, timer, a, NULL, n, checksum, error);
}

static gboolean
binsearch_veb (const MdlParams *params, guint64 n, guint64 seed, MdlRecorder *rec,
               MdlAlgoTimer *timer, guint64 *checksum, GError **error)
{
  VebTables t = { { 0 }, { 0 }, { 0 }, { 0 } };
  guint height = n ? veb_height (n) : 1;
  /* The layout of the full tree of this height: slots of absent nodes (heap index > n) stay
   * untouched, so their pages are never faulted in. Up to 2n slots: larger n cannot be indexed. */
  guint64 slots = height < 63 ? (G_GUINT64_CONSTANT (1) << height) - 1 : 0;
  g_autofree guint64 *a = NULL;
  VebFill fill;
  if (n > G_MAXSIZE / (2 * sizeof *a))
    {
      mdl_algo_size_error (n, sizeof *a, "array", error);
      return FALSE;
    }
  a = mdl_algo_alloc_pages (rec, params, n ? slots : 0, sizeof *a, "array", error);
  if (a == NULL)
    return FALSE;
  veb_split (&t, 0, height);
  fill = (VebFill) { .t = &t, .a = a, .n = n, .rank = 0 };
  veb_fill (&fill, 1, 0);
  return run_searches (params, n, seed, rec, timer, a, &t, slots, checksum, error);
}

MDL_ALGO_DEFINE (binsearch_sorted, binsearch_sorted)
MDL_ALGO_DEFINE (binsearch_veb, binsearch_veb)
