/* Private: what tests reach past the engine API. A direct constructor for the engine state (so a
 * test can watch every TC operation through the TC's hook, policy.h) and the engine's methods on
 * it. The TC's consistency checks and the node encoding come with policy.h. Nothing here is
 * installed. */
#ifndef MDL_VAT_H
#define MDL_VAT_H

#include <glib.h>
#include <models/engine.h>

#include "models/vat/policy.h"

/* The engine state (vat.c). */
typedef struct Vat Vat;

/**
 * mdl_vat_new: the engine state without the MdlEngine wrapper.
 * @assignments: the spec's parameter part, "policy=lru,K=4,d=3,W=8" ("" for the defaults).
 * @error: MDL_ERROR_PARAM as for mdl_engine_new("vat:...").
 * Returns: (transfer full) the state, or NULL.
 */
Vat *mdl_vat_new (const char *assignments, GError **error);
/* mdl_vat_free: NULL is fine. */
void mdl_vat_free (Vat *vat);
/* The engine's consume method, on a state from mdl_vat_new(). */
gboolean mdl_vat_consume (Vat *vat, const MdlEventBatch *batch, GError **error);
/* (transfer full) the report, as the engine gives it. */
MdlReport *mdl_vat_report (Vat *vat);
/* Feeds one 1-byte read at the start of each page of @pages (page numbers, not addresses). */
gboolean mdl_vat_pages (Vat *vat, const guint64 *pages, gsize n, GError **error);
/* Installs (or with NULL removes) the observation hook. */
void mdl_vat_set_hook (Vat *vat, VatHook hook, void *data);
/* With @general, never take the policy's fast runs (VatPolicy.run_fast and run_offline_fast),
 * only the shared walk; the tests compare the two. Takes effect at the next batch. */
void mdl_vat_set_general (Vat *vat, gboolean general);
/* The TC of @vat (borrowed). */
const VatTc *mdl_vat_tc (const Vat *vat);
/* The depth in force (after huge=1). */
guint mdl_vat_depth (const Vat *vat);

#endif
