/* The next-use pre-pass of the offline policies (min, ismin): for every access t and layer l, the
 * next access whose path shares the layer-l node, from one backward pass.
 *
 * Each layer remembers, per node, the latest access seen so far in the backward sweep. Where the
 * layer's node numbers are dense (at most DIRECT_PER_NODE times its distinct nodes, as with any
 * trace over one contiguous region) that is a plain array indexed by node number, zeroed (0: not
 * seen; else the access + 1), so a step is one load and one store: on bench-vat's random pages
 * over 16 GiB the leaf array is 16 MiB where the hash table below was 128 MiB with two probes per
 * access. Sparse layers keep the hash table. There a node is used by a run of consecutive accesses
 * far more often than not (every access of a page uses the same root, most use the same upper
 * nodes), so the pass consults it only at the ends of runs: inside a run the next use is simply
 * t+1, and the table remembers where each node's latest run starts. The table is local: key and
 * value side by side (one line per probe), its lookups prefetched PREFETCH accesses ahead, and on
 * Linux backed by transparent huge pages where the system allows it on request (0.56 s -> 0.12 s
 * for 4M random accesses over 16 GiB). */
#include "models/vat/policy.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define PREFETCH 16
/* A layer gets a direct array when its node numbers stay below DIRECT_PER_NODE times its distinct
 * nodes (plus DIRECT_SLACK): 4 bytes per number is then at most twice what the hash table's 16
 * bytes per pair, at most half full, would take, with no probing. */
#define DIRECT_PER_NODE 16
#define DIRECT_SLACK (1u << 16)
#define EMPTY VAT_NO_NODE  /* the key of a free pair (vat_pair_find) */

typedef struct {
  guint64 *kv;     /* [2 * (mask + 1)]: key (node number), value (first access of its run) */
  gsize mask;
  gsize len;       /* keys in the table */
} RunTable;

static guint64 *
table_alloc (gsize slots)
{
  gsize bytes = 2 * slots * sizeof (guint64);
  guint64 *kv = NULL;
  if (bytes >= (2u << 20))
    {
      if (posix_memalign ((void **) &kv, 2u << 20, bytes) != 0)
        kv = NULL;
#ifdef MADV_HUGEPAGE
      else
        madvise (kv, bytes, MADV_HUGEPAGE);
#endif
    }
  if (kv == NULL)
    kv = g_malloc (bytes);
  memset (kv, 0xff, bytes);
  return kv;
}

static void
table_init (RunTable *t, gsize expect)
{
  gsize slots = 64;
  while (slots < 2 * expect)
    slots *= 2;
  t->kv = table_alloc (slots);
  t->mask = slots - 1;
  t->len = 0;
}

static inline gsize
table_home (const RunTable *t, guint64 key)
{
  return (gsize) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 24) & t->mask;
}

static inline guint64 *
table_slot (const RunTable *t, guint64 key)
{
  return vat_pair_find (t->kv, t->mask, table_home (t, key), key);
}

/* The caller's count of distinct nodes sized the table: it stays at most half full. */
static inline void
table_set (RunTable *t, guint64 key, guint64 value)
{
  guint64 *e = table_slot (t, key);
  if (e[0] == EMPTY)
    {
      g_assert (2 * ++t->len <= t->mask + 1);
      e[0] = key;
    }
  e[1] = value;
}

guint32 *
mdl_vat_nextuse (const guint64 *pages, gsize n, guint depth, guint k_bits, const guint64 *distinct)
{
  gsize stride = depth + 1;
  guint32 *next = g_new (guint32, MAX (n * stride, 1));
  RunTable run_start[VAT_MAX_DEPTH + 1];
  guint32 *latest[VAT_MAX_DEPTH + 1];   /* per layer: the direct array, or NULL for the table */
  guint64 top = 0;
  for (gsize t = 0; t < n; t++)
    top = MAX (top, pages[t]);
  for (guint l = 0; l <= depth; l++)
    {
      guint64 numbers = (top >> (k_bits * l)) + 1;
      latest[l] = NULL;
      if (numbers <= DIRECT_PER_NODE * distinct[l] + DIRECT_SLACK)
        latest[l] = g_new0 (guint32, numbers);
      else
        table_init (&run_start[l], (gsize) MIN (distinct[l], n));
    }
  for (gsize t = n; t-- > 0;)
    {
      guint64 page = pages[t];
      if (t >= PREFETCH)
        __builtin_prefetch (latest[0] ? (void *) &latest[0][pages[t - PREFETCH]]
                            : (void *) &run_start[0].kv[2 * table_home (&run_start[0],
                                                                          pages[t - PREFETCH])], 1);
      for (guint l = 0; l <= depth; l++)
        {
          guint shift = k_bits * l;
          guint64 node = page >> shift;
          guint32 nu;
          if (latest[l])
            {
              /* Why t + 1 fits: vat.c stores fewer than 2^32 - 1 accesses. 0 - 1 is G_MAXUINT32,
               * "no next use". */
              nu = latest[l][node] - 1;
              latest[l][node] = (guint32) (t + 1);
            }
          else
            {
              gboolean in_run = t + 1 < n && (pages[t + 1] >> shift) == node;
              gboolean run_begins = t == 0 || (pages[t - 1] >> shift) != node;
              if (in_run)
                nu = (guint32) (t + 1);
              else
                {
                  const guint64 *e = table_slot (&run_start[l], node);
                  nu = e[0] == node ? (guint32) e[1] : G_MAXUINT32;
                }
              if (run_begins)
                table_set (&run_start[l], node, t);
            }
          next[t * stride + l] = nu;
        }
    }
  for (guint l = 0; l <= depth; l++)
    if (latest[l])
      g_free (latest[l]);
    else
      free (run_start[l].kv);
  return next;
}
