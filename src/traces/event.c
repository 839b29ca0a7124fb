/* Names of event kinds, the validity rules of warp events and the holds on lent batches
 * (include/models/event.h). Readers and the SIMT layer call mdl_warp_event_check() once per event,
 * so engines can trust what they get. */
#include <models/error.h>
#include <models/event.h>

#include "traces/batch-keep.h"

static const char *const cpu_kind_names[] = { "read", "write", "modify", "ops", "branch" };
static const char *const warp_op_names[] = { "ld", "st", "atom", "alu", "branch", "bar",
                                               "jump", "shfl", "vote" };
static const char *const space_names[] = { "none", "global", "shared", "local" };
static const char *const marker_kind_names[] = { "launch", "barrier", "sync",
                                                 "phase-begin", "phase-end", "site" };

#define NAME_OF(table, i) ((i) < G_N_ELEMENTS (table) ? (table)[i] : NULL)

const char *
mdl_cpu_kind_name (guint kind)
{
  return NAME_OF (cpu_kind_names, kind);
}

const char *
mdl_warp_op_name (guint op)
{
  return NAME_OF (warp_op_names, op);
}

const char *
mdl_space_name (guint space)
{
  return NAME_OF (space_names, space);
}

const char *
mdl_marker_kind_name (guint kind)
{
  return NAME_OF (marker_kind_names, kind);
}

gboolean
mdl_warp_event_check (const MdlEventBatch *batch, const MdlWarpEvent *w, guint warp_width,
                      GError **error)
{
  const char *why = NULL;
  gboolean memory = w->op <= MDL_WARP_ATOMIC;

  if (w->op >= MDL_WARP_N_OPS)
    why = "unknown op";
  else if (w->active == 0)
    why = "empty active mask";
  else if (warp_width < MDL_WARP_MAX_LANES && (w->active >> warp_width) != 0)
    why = "active lanes beyond the warp width";
  else if (w->taken & ~w->active)
    why = "taken lanes that are not active";
  else if (w->taken && w->op != MDL_WARP_BRANCH
           && !(w->op == MDL_WARP_ATOMIC && (w->flags & MDL_WARP_ATOM_CAS)))
    why = "taken mask on an instruction that is neither a branch nor a CAS";
  else if (w->space >= MDL_SPACE_N || memory != (w->space != MDL_SPACE_NONE))
    why = "memory space does not match the op";
  else if (memory && (w->width == 0 || w->width > 64))
    why = "access width outside 1..64 bytes";
  else if (!memory && (w->width != 0 || (w->flags & MDL_WARP_STRIDED)))
    why = "addresses on an instruction that is not a memory access";
  else if (w->flags & ~MDL_WARP_FLAGS)
    why = "unknown flags";
  else if ((w->flags & (MDL_WARP_ATOM_RED | MDL_WARP_ATOM_CAS)) && w->op != MDL_WARP_ATOMIC)
    why = "atomic flags on an instruction that is not an atomic";
  else if ((w->flags & MDL_WARP_ATOM_RED) && (w->flags & MDL_WARP_ATOM_CAS))
    why = "a compare-and-swap flagged as a reduction (a CAS returns its old values)";
  /* Why the limit: mdl_warp_addrs computes lane * stride in 64 bits for lanes up to 63. */
  else if ((w->flags & MDL_WARP_STRIDED)
           && (w->stride > MDL_WARP_STRIDE_MAX || w->stride < -MDL_WARP_STRIDE_MAX))
    why = "stride out of range (|stride| <= MDL_WARP_STRIDE_MAX = 144115188075855871)";
  else if (memory && !(w->flags & MDL_WARP_STRIDED)
           && ((guint64) w->first_addr + (guint64) __builtin_popcountll (w->active)
               > batch->n_lane_addrs))
    why = "lane addresses outside the batch";
  if (why == NULL)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
               "warp event (launch %u, block %u, warp %u, %s): %s", w->launch, w->block, w->warp,
               NAME_OF (warp_op_names, w->op) ? NAME_OF (warp_op_names, w->op) : "?", why);
  return FALSE;
}

MdlBatchKeep *
mdl_event_batch_keep (const MdlEventBatch *batch)
{
  g_return_val_if_fail (batch != NULL, NULL);
  if (batch->keep)
    g_atomic_int_inc (&batch->keep->refs);
  return batch->keep;
}

void
mdl_batch_keep_release (MdlBatchKeep *keep)
{
  if (keep && g_atomic_int_dec_and_test (&keep->refs))
    keep->free_func (keep);
}
