/* libmodels: machine presets.
 *
 * A preset is a named group of a GKeyFile data file (data/machines.ini, compiled into the library):
 * page size, translation tree arity and depth, TLB sizes, warp width, sector and line sizes, banks,
 * shared memory, SM count... Engine parameters name the preset key they default from (see
 * MdlParamSpec.machine_key), so `vat:machine=x86-64` and `coalesce:machine=h100` pick everything up.
 * Setting the environment variable MODELS_MACHINES to a file of the same shape adds presets (or
 * replaces built-in ones of the same name). The preset `host` is read from the running machine
 * (caches from sysfs or cpuid, TLBs from cpuid or an estimate, page sizes and the transparent
 * huge page mode from sysfs); its keys cache_source and tlb_source say where each came from. */
#ifndef MODELS_MACHINE_H
#define MODELS_MACHINE_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/**
 * mdl_machine_names: the preset names, built-in first, in file order, then those the
 * MODELS_MACHINES file adds, then "host" (unless that file defines it).
 * @error: MDL_ERROR_FORMAT when the MODELS_MACHINES file cannot be parsed.
 * Returns: (transfer full) a NULL-terminated array, or NULL.
 */
MDL_API char **mdl_machine_names (GError **error);

/**
 * mdl_machine_get: the value of @key in preset @machine.
 * @machine: a preset name.
 * @key: a preset key (page_bytes, tree_arity, warp_width...).
 * @value: (out) (transfer full) the value as text, or NULL when the preset lacks the key.
 * @error: MDL_ERROR_UNKNOWN_NAME for an unknown preset (listing the valid ones), MDL_ERROR_FORMAT
 *   for an unreadable MODELS_MACHINES file.
 * Returns: FALSE on error; TRUE with *value == NULL when the key is absent.
 */
MDL_API gboolean mdl_machine_get (const char *machine, const char *key, char **value,
                                  GError **error);

/**
 * mdl_machine_keys: the keys of preset @machine, in file order.
 * @error: as for mdl_machine_get().
 * Returns: (transfer full) a NULL-terminated array, or NULL.
 */
MDL_API char **mdl_machine_keys (const char *machine, GError **error);

G_END_DECLS

#endif
