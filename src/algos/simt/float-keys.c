/* keys=f32 of the seed sorts' SIMT twins: floats are sorted as the unsigned words of
 * mdl_keys_f32_order (src/algos/keys.h), so that every sort keeps its one unsigned code path.
 * One kernel maps the input into words before the sort and one maps the sorted words back to
 * float bits after it (thread i: load word i, two ALU instructions, store word i), as the CUDA
 * twins do (src/algos/cuda/float-keys.cu). Why a pass each way rather than the map at every key
 * load and store: the sorts' kernels, and their instruction counts at keys=u32, stay as they are;
 * the price is 8n bytes read and 8n written, which docs/experiments/sorting.md measures. */
#include "algos/simt/simt-algo.h"

#include "algos/keys.h"

/* The threads of a block of the map (the CUDA twin's). */
#define ORDER_BLOCK 256

typedef struct {
  guint64 src, dst, n;
  gboolean back;
} OrderArgs;

static void
order_kernel (MdlSimtBlock *blk, void *p)
{
  const OrderArgs *a = p;
  guint64 *at = mdl_simt_reg (blk, 1), *x = mdl_simt_reg (blk, 1);
  guint64 first = (guint64) blk->idx_x * ORDER_BLOCK;
  guint8 *cond = mdl_simt_cond (blk);
  mdl_simt_alu (blk, 2);   /* the index and its bound */
  MDL_SIMT_EACH (blk, t)
    cond[t] = first + t < a->n;
  mdl_simt_if (blk);
  MDL_SIMT_EACH (blk, t)
    at[t] = a->src + 4 * (first + t);
  mdl_simt_ld (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_alu (blk, 2);   /* the sign spread and the xor */
  MDL_SIMT_EACH (blk, t)
    {
      x[t] = a->back ? mdl_keys_f32_unorder ((guint32) x[t]) : mdl_keys_f32_order ((guint32) x[t]);
      at[t] = a->dst + 4 * (first + t);
    }
  mdl_simt_st (blk, MDL_SPACE_GLOBAL, 4, at, x);
  mdl_simt_endif (blk);
}

gboolean
mdl_simt_keys_order (MdlSimt *gpu, guint64 src, guint64 dst, guint64 n, gboolean back,
                     GError **error)
{
  OrderArgs a = { src, dst, n, back };
  MdlSimtLaunch shape = { .grid_x = (guint32) ((n + ORDER_BLOCK - 1) / ORDER_BLOCK),
                          .block_x = ORDER_BLOCK };
  if (n == 0)
    return TRUE;
  return mdl_simt_launch (gpu, &shape, order_kernel, &a, error);
}
