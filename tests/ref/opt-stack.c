/* The reference priority stack of tests/ref/opt-stack.h. */
#include "ref/opt-stack.h"

struct RefOptStack {
  guint64 *node, *key; /* [wmax]: position 0 is the top */
  guint64 *hist;       /* [wmax]: references found at each position */
  guint64 beyond;      /* references to nodes not on the stack */
  guint32 depth, wmax;
};

RefOptStack *
ref_opt_stack_new (guint32 wmax)
{
  RefOptStack *s = g_new0 (RefOptStack, 1);
  s->node = g_new0 (guint64, wmax);
  s->key = g_new0 (guint64, wmax);
  s->hist = g_new0 (guint64, wmax);
  s->wmax = wmax;
  return s;
}

void
ref_opt_stack_free (RefOptStack *s)
{
  if (s == NULL)
    return;
  g_free (s->node);
  g_free (s->key);
  g_free (s->hist);
  g_free (s);
}

static guint32
find (const RefOptStack *s, guint64 node)
{
  guint32 p = 0;
  while (p < s->depth && s->node[p] != node)
    p++;
  return p;
}

void
ref_opt_stack_reference (RefOptStack *s, guint64 node, guint64 key)
{
  guint32 p = find (s, node), limit = p < s->depth ? p : s->depth;
  guint64 carry_node, carry_key;
  if (p < s->depth)
    s->hist[p]++;
  else
    s->beyond++;
  if (s->depth == 0)
    s->depth = 1;
  else if (p != 0)
    {
      /* Size W <= limit evicts the largest key of its top W positions: walking down, the carried
       * node trades places with every position whose key beats all above it. */
      carry_node = s->node[0];
      carry_key = s->key[0];
      for (guint32 i = 1; i < limit; i++)
        if (s->key[i] > carry_key)
          {
            guint64 n = s->node[i], k = s->key[i];
            s->node[i] = carry_node;
            s->key[i] = carry_key;
            carry_node = n;
            carry_key = k;
          }
      if (p == s->depth && s->depth < s->wmax)
        p = s->depth++;
      if (p < s->depth)
        {
          s->node[p] = carry_node;
          s->key[p] = carry_key;
        }
    }
  s->node[0] = node;
  s->key[0] = key;
}

void
ref_opt_stack_set_key (RefOptStack *s, guint64 node, guint64 key)
{
  guint32 p = find (s, node);
  if (p < s->depth)
    s->key[p] = key;
}

void
ref_opt_stack_misses (const RefOptStack *s, guint64 *out)
{
  out[s->wmax] = s->beyond;
  for (guint32 w = s->wmax; w-- > 0;)
    out[w] = out[w + 1] + s->hist[w];
}
