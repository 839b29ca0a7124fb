/* The reference VAT translation cache (vat-ref.h). Each cell remembers its node, when it was last
 * used and when it was inserted; every decision is a linear scan over the cells. */
#include "ref/vat-ref.h"

#include <string.h>

const char *const ref_policy_names[REF_N_POLICIES] = {
  "lru", "islru", "min", "ismin", "fifo", "random", "levels",
};

typedef struct {
  guint layer;
  guint tree;
  guint64 index;
} Node;

typedef struct {
  gboolean used;
  Node node;
  gsize last_use;     /* position of the last access */
  gsize inserted;     /* position of the insertion */
} Cell;

static gboolean
node_eq (Node a, Node b)
{
  return a.layer == b.layer && a.tree == b.tree && a.index == b.index;
}

/* TRUE when @c is a child of @p in the tree. */
static gboolean
is_child (Node c, Node p, guint k_bits)
{
  return c.tree == p.tree && c.layer + 1 == p.layer && (c.index >> k_bits) == p.index;
}

static gboolean
has_cached_child (const Cell *cells, guint w, Node p, guint k_bits)
{
  for (guint i = 0; i < w; i++)
    if (cells[i].used && is_child (cells[i].node, p, k_bits))
      return TRUE;
  return FALSE;
}

/* The next position after @pos that accesses the same node, or none; as a key where larger means
 * later and a node never used again comes after every use, lower layers later still. */
static guint64
next_use_key (const Node *seq, gsize len, gsize pos)
{
  for (gsize j = pos + 1; j < len; j++)
    if (node_eq (seq[j], seq[pos]))
      return j;
  return (G_GUINT64_CONSTANT (1) << 62) + 64 - seq[pos].layer;
}

void
ref_vat_run (const RefVatConfig *cfg, const guint64 *pages, gsize n, RefVatResult *out)
{
  guint d = cfg->depth, trees = cfg->vm ? 2 : 1, walk_len = d + 1;
  gsize len = n * trees * walk_len;
  Node *seq = g_new (Node, MAX (len, 1));
  guint64 *next_key = NULL;
  Cell *cells = g_new0 (Cell, cfg->w);
  guint level_cap[64] = { 0 };
  GArray *seen = g_array_new (FALSE, FALSE, sizeof (Node));
  GRand *rand = g_rand_new_with_seed (cfg->seed);
  gsize at = 0;

  memset (out, 0, sizeof *out);
  out->outcome = g_string_new (NULL);
  for (gsize t = 0; t < n; t++)
    for (guint tree = 0; tree < trees; tree++)
      for (guint l = d + 1; l-- > 0;)
        seq[at++] = (Node) { l, tree, pages[t] >> (cfg->k_bits * l) };
  if (cfg->policy == REF_MIN || cfg->policy == REF_ISMIN)
    {
      next_key = g_new (guint64, MAX (len, 1));
      for (gsize i = 0; i < len; i++)
        next_key[i] = next_use_key (seq, len, i);
    }
  if (cfg->policy == REF_LEVELS)
    {
      /* Root layer: one cell per tree; the rest evenly, remainder to the lowest layers. */
      guint rest = cfg->w - trees;
      for (guint l = 0; l < d; l++)
        level_cap[l] = rest / d + (l < rest % d ? 1 : 0);
      level_cap[d] = trees;
    }

  for (gsize i = 0; i < len; i++)
    {
      Node x = seq[i];
      gsize walk_start = i - (d - x.layer);   /* the current walk is [walk_start, +walk_len) */
      guint found = cfg->w, victim = cfg->w, n_used = 0, n_layer = 0;
      gboolean fresh = TRUE;

      for (guint c = 0; c < cfg->w; c++)
        if (cells[c].used && node_eq (cells[c].node, x))
          found = c;
      if (found < cfg->w)
        {
          cells[found].last_use = i;
          out->hits++;
          g_string_append_c (out->outcome, 'H');
          continue;
        }

      out->misses++;
      out->layer_misses[x.layer]++;
      g_string_append_c (out->outcome, 'M');
      for (guint s = 0; s < seen->len; s++)
        if (node_eq (g_array_index (seen, Node, s), x))
          fresh = FALSE;
      if (fresh)
        {
          g_array_append_val (seen, x);
          out->compulsory++;
        }

      for (guint c = 0; c < cfg->w; c++)
        {
          n_used += cells[c].used;
          n_layer += cells[c].used && cells[c].node.layer == x.layer;
        }
      if (cfg->policy == REF_LEVELS ? n_layer < level_cap[x.layer] : n_used < cfg->w)
        {
          /* A free cell: the lowest one (levels has no fixed cells, so any free one). */
          for (guint c = cfg->w; c-- > 0;)
            if (!cells[c].used)
              victim = c;
        }
      else
        switch (cfg->policy)
          {
          case REF_LRU:
            for (guint c = 0; c < cfg->w; c++)
              if (victim == cfg->w || cells[c].last_use < cells[victim].last_use)
                victim = c;
            break;
          case REF_FIFO:
            for (guint c = 0; c < cfg->w; c++)
              if (victim == cfg->w || cells[c].inserted < cells[victim].inserted)
                victim = c;
            break;
          case REF_RANDOM:
            victim = (guint) g_rand_int_range (rand, 0, (gint32) cfg->w);
            break;
          case REF_LEVELS:
            for (guint c = 0; c < cfg->w; c++)
              if (cells[c].used && cells[c].node.layer == x.layer
                  && (victim == cfg->w || cells[c].last_use < cells[victim].last_use))
                victim = c;
            break;
          case REF_ISLRU:
            {
              /* Def. 2.9: the least recently used node not on the current path, then down
               * through its most recently used cached child while it has one. */
              gboolean descended = TRUE;
              for (guint c = 0; c < cfg->w; c++)
                {
                  gboolean on_path = FALSE;
                  for (gsize j = walk_start; j < walk_start + walk_len; j++)
                    on_path |= node_eq (seq[j], cells[c].node);
                  if (!on_path && (victim == cfg->w || cells[c].last_use < cells[victim].last_use))
                    victim = c;
                }
              while (descended)
                {
                  guint best = cfg->w;
                  for (guint c = 0; c < cfg->w; c++)
                    if (cells[c].used && is_child (cells[c].node, cells[victim].node, cfg->k_bits)
                        && (best == cfg->w || cells[c].last_use > cells[best].last_use))
                      best = c;
                  descended = best < cfg->w;
                  if (descended)
                    victim = best;
                }
              break;
            }
          case REF_MIN:
            for (guint c = 0; c < cfg->w; c++)
              if (victim == cfg->w
                  || next_key[cells[c].last_use] > next_key[cells[victim].last_use])
                victim = c;
            break;
          case REF_ISMIN:
            /* Def. 2.12: among nodes with no cached children, not on the current path. */
            for (guint c = 0; c < cfg->w; c++)
              {
                gboolean on_path = FALSE;
                for (gsize j = walk_start; j < walk_start + walk_len; j++)
                  on_path |= node_eq (seq[j], cells[c].node);
                if (on_path || has_cached_child (cells, cfg->w, cells[c].node, cfg->k_bits))
                  continue;
                if (victim == cfg->w
                    || next_key[cells[c].last_use] > next_key[cells[victim].last_use])
                  victim = c;
              }
            break;
          }
      g_assert (victim < cfg->w);
      if (cells[victim].used && cells[victim].node.layer == d)
        out->root_evicted_after_insert = TRUE;
      cells[victim] = (Cell) { TRUE, x, i, i };
    }
  g_free (seq);
  g_free (next_key);
  g_free (cells);
  g_array_unref (seen);
  g_rand_free (rand);
}

void
ref_vat_result_clear (RefVatResult *out)
{
  if (out->outcome)
    g_string_free (out->outcome, TRUE);
  out->outcome = NULL;
}

void
ref_vat_random_pages (GRand *rand, guint k_bits, guint depth, gsize n, guint64 *out)
{
  guint bits = k_bits * depth;
  guint64 span = bits >= 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << bits) - 1;
  guint64 hot[6], page = 0;
  /* A few hot subtrees, rooted a layer or two below the root, hold most of the random picks, so
   * upper nodes are shared and reused as they are in real programs. */
  for (guint i = 0; i < G_N_ELEMENTS (hot); i++)
    hot[i] = ((guint64) g_rand_int (rand) << 32 | g_rand_int (rand)) & span;
  for (gsize i = 0; i < n; i++)
    {
      guint r = (guint) g_rand_int_range (rand, 0, 100);
      guint layer = (guint) g_rand_int_range (rand, 0, (gint32) depth);
      guint64 sub = (G_GUINT64_CONSTANT (1) << (k_bits * MIN (layer + 1, depth))) - 1;
      guint64 rnd = (guint64) g_rand_int (rand) << 32 | g_rand_int (rand);
      if (r < 30)          /* random page inside a hot subtree */
        page = (hot[rnd % G_N_ELEMENTS (hot)] & ~sub) | ((rnd >> 8) & sub);
      else if (r < 55)     /* sequential */
        page = (page + 1) & span;
      else if (r < 70)     /* local jump on a random layer */
        page = (page + ((guint64) g_rand_int_range (rand, 1, 4) << (k_bits * layer))) & span;
      else if (r < 80)     /* back to an earlier page of the sequence */
        page = i ? out[g_rand_int_range (rand, 0, (gint32) i)] : page;
      else if (r < 88)     /* repeat */
        ;
      else                 /* anywhere */
        page = rnd & span;
      out[i] = page;
    }
}
