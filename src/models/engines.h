/* Private: the built-in engine classes, one per file, listed once below. */
#ifndef MDL_ENGINES_H
#define MDL_ENGINES_H

#include <models/engine.h>

/* The built-in engines, in the order `models list` shows them: X (NAME) for the class
 * mdl_NAME_class, defined in NAME.c (or a folder of that name). Adding an engine: its file and a
 * row here. */
#define MDL_BUILTIN_ENGINES(X)                                                                     \
  X (count)                                                                                        \
  X (footprint)                                                                                    \
  X (vat)                                                                                          \
  X (em)                                                                                           \
  X (cache)                                                                                        \
  X (tlb)                                                                                          \
  X (branch)                                                                                       \
  X (coalesce)                                                                                     \
  X (banks)                                                                                        \
  X (divergence)                                                                                   \
  X (occupancy)                                                                                    \
  X (agpu)                                                                                         \
  X (kmodel)                                                                                       \
  X (msimd)                                                                                        \
  X (warpio)

#define MDL_ENGINE_EXTERN(name) extern const MdlEngineClass mdl_##name##_class;
MDL_BUILTIN_ENGINES (MDL_ENGINE_EXTERN)

/* Checks a class as mdl_engine_register() does (ABI, methods, name, parameter table). */
gboolean mdl_engine_class_check (const MdlEngineClass *klass, GError **error);

/* Appends the list of engine names, and a close match to @word, to an unknown-name message. */
void mdl_engine_append_names (GString *msg, const char *word);

#endif
