/* Private to the library: the inside of MdlBatchKeep (include/models/event.h), for a source that
 * lends its batches' memory (the SIMT layer, src/simt/simt.c). The source holds one reference for
 * itself; every sink's hold adds one; whoever drops the last calls @free_func. */
#ifndef MODELS_BATCH_KEEP_H
#define MODELS_BATCH_KEEP_H

#include <models/event.h>

struct MdlBatchKeep {
  gint refs;                              /* atomic */
  void (*free_func) (MdlBatchKeep *keep); /* frees the memory the hold covers, and @keep */
};

/* TRUE when no sink holds @keep any more (only its source's own reference is left), so the
 * source may write over the memory it covers. */
static inline gboolean
mdl_batch_keep_is_free (MdlBatchKeep *keep)
{
  return g_atomic_int_get (&keep->refs) == 1;
}

#endif
