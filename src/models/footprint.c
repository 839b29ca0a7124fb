/* The `footprint` engine: distinct pages and lines touched, and the reuse-distance histogram of
 * pages (Mattson's stack distance: the number of distinct other pages touched since the previous
 * touch of the same page; LRU with capacity C hits exactly the reuses at distance < C).
 *
 * An access touches every page and line its bytes overlap (a straddling access counts both); each
 * active lane of a warp memory instruction is an access, in lane order. Distances are computed in
 * O(log n) with a Fenwick tree over access times holding a 1 at each page's latest touch; when the
 * tree fills up, the live times are renumbered 0..pages-1, so memory stays O(pages). The tree
 * starts small and doubles up to the span of the first renumbering (a short run, as each input
 * of the fuzz targets is, never clears 512 KiB). */
#include <models/error.h>

#include "models/engines.h"
#include "models/u64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  guint64 *hist;         /* [n_buckets]: 0, 1, 2-3, 4-7, ..., the last open-ended */
  guint64 *fenwick;      /* 1-based over time slots 1..cap */
  MdlU64Map page_time;   /* page -> its latest access time */
  MdlU64Map lines;       /* line -> unused */
  guint64 page_accesses;
  guint64 now;           /* next access time; times are 0..cap-1 */
  guint64 cap;
  guint page_shift;
  guint line_shift;
  guint n_buckets;
} Footprint;

/* Why pages and lines of at least 2 bytes: with 1-byte units the index of the last byte is
 * G_MAXUINT64, the map's empty-slot key, and the page loop in touch() could not end after it. */
static const MdlParamSpec footprint_params[] = {
  { "page_bytes", MDL_PARAM_UINT, "4096", "page_bytes", 2, 1ull << 40, NULL, MDL_PARAM_POW2,
    "page size in bytes" },
  { "line_bytes", MDL_PARAM_UINT, "64", "line_bytes", 2, 1ull << 20, NULL, MDL_PARAM_POW2,
    "cache line size in bytes" },
  { "buckets", MDL_PARAM_UINT, "22", NULL, 2, 64, NULL, 0,
    "reuse-distance buckets: 0, 1, 2-3, 4-7, ... the last one open-ended" },
  { .key = NULL }
};

static void
fenwick_add (Footprint *f, guint64 t, gint64 delta)
{
  for (guint64 i = t + 1; i <= f->cap; i += i & (~i + 1))
    f->fenwick[i] += (guint64) delta;
}

/* Number of ones at times 0..t-1. */
static guint64
fenwick_prefix (const Footprint *f, guint64 t)
{
  guint64 s = 0;
  for (guint64 i = t; i > 0; i -= i & (~i + 1))
    s += f->fenwick[i];
  return s;
}

static int
cmp_time (const void *a, const void *b)
{
  guint64 x = ((const guint64 *) a)[0], y = ((const guint64 *) b)[0];
  return x < y ? -1 : x > y;
}

/* Renumbers the live times 0..pages-1 in order and rebuilds the tree at twice that size. */
static void
compact (Footprint *f)
{
  MdlU64Map *m = &f->page_time;
  guint64 (*pairs)[2] = g_malloc (sizeof *pairs * (m->len ? m->len : 1));
  gsize n = 0;
  for (gsize s = 0; s <= m->mask; s++)
    if (m->keys[s] != MDL_U64MAP_EMPTY)
      {
        pairs[n][0] = m->values[s];
        pairs[n][1] = s;
        n++;
      }
  qsort (pairs, n, sizeof pairs[0], cmp_time);
  f->cap = MAX (f->cap, 2 * (guint64) n + 1024);
  g_free (f->fenwick);
  f->fenwick = g_new0 (guint64, f->cap + 1);
  for (gsize i = 0; i < n; i++)
    {
      m->values[pairs[i][1]] = i;
      fenwick_add (f, i, 1);
    }
  f->now = n;
  g_free (pairs);
}

/* Time slots of the tree at first, and before the first renumbering (powers of two). */
#define FIRST_SLOTS 1024
#define SPAN_SLOTS (1 << 16)

/* Doubles the tree (its cap a power of two, every time slot used). The new nodes below 2 cap
 * cover only times not used yet, so they are 0; node 2 cap covers all of them: the total. */
static void
grow (Footprint *f)
{
  guint64 total = fenwick_prefix (f, f->cap);
  f->fenwick = g_renew (guint64, f->fenwick, 2 * f->cap + 1);
  memset (f->fenwick + f->cap + 1, 0, f->cap * sizeof f->fenwick[0]);
  f->cap *= 2;
  f->fenwick[f->cap] = total;
}

static void
touch_page (Footprint *f, guint64 page)
{
  gboolean fresh;
  guint64 *last;
  if (G_UNLIKELY (f->now == f->cap))
    {
      if (f->cap < SPAN_SLOTS)
        grow (f);
      else
        compact (f);
    }
  last = mdl_u64map_upsert (&f->page_time, page, f->now, &fresh);
  f->page_accesses++;
  if (!fresh)
    {
      guint64 d = fenwick_prefix (f, f->now) - fenwick_prefix (f, *last + 1);
      guint b = d == 0 ? 0 : MIN (f->n_buckets - 1, 1 + (guint) (63 - __builtin_clzll (d)));
      f->hist[b]++;
      fenwick_add (f, *last, -1);
      *last = f->now;
    }
  fenwick_add (f, f->now, 1);
  f->now++;
}

static void
touch (Footprint *f, guint64 addr, guint64 size)
{
  guint64 last_byte = addr + (size ? size - 1 : 0);
  gboolean fresh;
  if (last_byte < addr)
    last_byte = G_MAXUINT64; /* an access that wraps the address space ends at its top */
  for (guint64 p = addr >> f->page_shift; p <= last_byte >> f->page_shift; p++)
    touch_page (f, p);
  for (guint64 l = addr >> f->line_shift; l <= last_byte >> f->line_shift; l++)
    mdl_u64map_upsert (&f->lines, l, 0, &fresh);
}

static gboolean
footprint_init (void *state, const MdlParams *params, GError **error)
{
  Footprint *f = state;
  (void) error;
  f->page_shift = (guint) __builtin_ctzll (mdl_params_uint (params, "page_bytes"));
  f->line_shift = (guint) __builtin_ctzll (mdl_params_uint (params, "line_bytes"));
  f->n_buckets = (guint) mdl_params_uint (params, "buckets");
  f->hist = g_new0 (guint64, f->n_buckets);
  f->cap = FIRST_SLOTS;
  f->fenwick = g_new0 (guint64, f->cap + 1);
  mdl_u64map_init (&f->page_time, 64);
  mdl_u64map_init (&f->lines, 64);
  return TRUE;
}

static void
footprint_finalize (void *state)
{
  Footprint *f = state;
  g_free (f->hist);
  g_free (f->fenwick);
  mdl_u64map_destroy (&f->page_time);
  mdl_u64map_destroy (&f->lines);
}

static gboolean
footprint_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Footprint *f = state;
  (void) error;
  for (gsize i = 0; i < b->n_cpu; i++)
    if (mdl_cpu_is_access (b->cpu[i].kind) && !(b->cpu[i].flags & MDL_CPU_FLAG_FETCH))
      touch (f, b->cpu[i].addr, b->cpu[i].size);
  for (gsize i = 0; i < b->n_warp; i++)
    {
      const MdlWarpEvent *w = &b->warp[i];
      guint64 addrs[MDL_WARP_MAX_LANES];
      if (!mdl_warp_is_memory (w))
        continue;
      mdl_warp_addrs (b, w, addrs);
      for (guint64 m = w->active; m; m &= m - 1)
        touch (f, addrs[__builtin_ctzll (m)], w->width);
    }
  return TRUE;
}

static void
footprint_report (void *state, MdlReport *out)
{
  Footprint *f = state;
  mdl_report_add_count (out, "page_accesses", "count", "page touches (an access may touch two)",
                        NULL, f->page_accesses);
  mdl_report_add_count (out, "pages", "count", "distinct pages touched", NULL, f->page_time.len);
  mdl_report_add_count (out, "lines", "count", "distinct lines touched", NULL, f->lines.len);
  mdl_report_add_count (out, "reuse_cold", "count", "first touches of a page (infinite distance)",
                        NULL, f->page_time.len);
  for (guint b = 0; b < f->n_buckets; b++)
    {
      g_autofree char *name = NULL;
      guint64 lo = b == 0 ? 0 : 1ull << (b - 1);
      if (b + 1 == f->n_buckets) /* open-ended; with buckets=2 that is already bucket 1 */
        name = g_strdup_printf ("reuse_%" G_GUINT64_FORMAT "_up", lo);
      else if (b <= 1)
        name = g_strdup_printf ("reuse_%" G_GUINT64_FORMAT, lo);
      else
        name = g_strdup_printf ("reuse_%" G_GUINT64_FORMAT "_%" G_GUINT64_FORMAT, lo, 2 * lo - 1);
      mdl_report_add_count (out, name, "count",
                            "page reuses at this stack distance (distinct pages in between)", NULL,
                            f->hist[b]);
    }
}

const MdlEngineClass mdl_footprint_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "footprint",
  .summary = "distinct pages and lines touched, reuse-distance histogram of pages",
  .params = footprint_params,
  .state_size = sizeof (Footprint),
  .init = footprint_init,
  .consume = footprint_consume,
  .report = footprint_report,
  .finalize = footprint_finalize,
};
