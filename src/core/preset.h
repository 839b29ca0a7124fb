/* Private: one preset read once. mdl_params_parse asks a preset for every row's machine key; with
 * this it reads the preset files once per parse, not once per key, and every key comes from the
 * same version of the file even if it changes meanwhile. */
#ifndef MDL_PRESET_H
#define MDL_PRESET_H

#include <glib.h>

/* The key file holding preset @machine (the MODELS_MACHINES file if it has the group, else the
 * built-in presets), or NULL with MDL_ERROR_FORMAT (a bad file) or MDL_ERROR_UNKNOWN_NAME. Read
 * keys with mdl_preset_get; free with g_key_file_unref. (transfer full) */
GKeyFile *mdl_preset_open (const char *machine, GError **error);

/* The value of @key in @machine's group of @preset, stripped, or NULL. (transfer full) */
char *mdl_preset_get (GKeyFile *preset, const char *machine, const char *key);

/* Frees the parsed MODELS_MACHINES file; the next question reads it again. For fuzz-machines,
 * which must end each input having freed what the input made the library allocate (libFuzzer
 * runs an input again, to look for leaks, whenever it ends with more allocations than frees). */
void mdl_preset_forget_user (void);

#endif
