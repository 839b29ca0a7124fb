/* Private: the built-in engine classes, one per file, listed in registry.c. */
#ifndef MDL_ENGINES_H
#define MDL_ENGINES_H

#include <models/engine.h>

extern const MdlEngineClass mdl_count_class;
extern const MdlEngineClass mdl_footprint_class;
extern const MdlEngineClass mdl_vat_class;
extern const MdlEngineClass mdl_em_class;
extern const MdlEngineClass mdl_cache_class;
extern const MdlEngineClass mdl_tlb_class;
extern const MdlEngineClass mdl_coalesce_class;
extern const MdlEngineClass mdl_banks_class;
extern const MdlEngineClass mdl_divergence_class;
extern const MdlEngineClass mdl_agpu_class;
extern const MdlEngineClass mdl_kmodel_class;
extern const MdlEngineClass mdl_msimd_class;

/* Checks a class as mdl_engine_register() does (ABI, methods, name, parameter table). */
gboolean mdl_engine_class_check (const MdlEngineClass *klass, GError **error);

/* Appends the list of engine names, and a close match to @word, to an unknown-name message. */
void mdl_engine_append_names (GString *msg, const char *word);

#endif
