/* libmodels: parameters and specs.
 *
 * Engines and algorithms declare their parameters as data (MdlParamSpec rows); one parser turns a
 * spec `NAME:key=value,key=value` or a list of `key=value` strings into checked MdlParams, with
 * errors that name the unknown key or the bad value and list the valid ones. Every parameter table
 * also accepts `machine=NAME`: a row with a machine_key then takes its default from that preset. */
#ifndef MODELS_PARAMS_H
#define MODELS_PARAMS_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/**
 * MdlParamType:
 * @MDL_PARAM_UINT: an unsigned 64-bit integer; accepts decimal, 0x hex and the suffixes k, M, G
 *   (powers of 1024), e.g. `W=64`, `size=32k`.
 * @MDL_PARAM_DOUBLE: a real number.
 * @MDL_PARAM_BOOL: 1/0, true/false, yes/no, on/off.
 * @MDL_PARAM_CHOICE: one of the words in @choices ("lru|islru|min").
 * @MDL_PARAM_STRING: any text without ',' (a ',' ends the value in a spec).
 */
typedef enum {
  MDL_PARAM_UINT = 0,
  MDL_PARAM_DOUBLE,
  MDL_PARAM_BOOL,
  MDL_PARAM_CHOICE,
  MDL_PARAM_STRING,
} MdlParamType;

/** MDL_PARAM_POW2: flag of a UINT parameter that must be a power of two. */
#define MDL_PARAM_POW2 0x1

/**
 * MdlParamSpec: one parameter of an engine or algorithm; tables end with a row whose @key is NULL.
 * @key: the name used in specs, reports and the CLI.
 * @type: an MdlParamType.
 * @default_value: the default as it would be written in a spec; NULL when the parameter is
 *   required (unless a machine preset supplies it).
 * @machine_key: when not NULL and a machine is selected, the preset's value of this key replaces
 *   @default_value (a value in the spec still wins); a preset without this key is an error unless
 *   the spec gives the value.
 * @min: UINT: smallest valid value; DOUBLE: ignored.
 * @max: UINT: largest valid value, 0 for no limit.
 * @choices: CHOICE: the valid words separated by '|'.
 * @flags: MDL_PARAM_POW2 or 0.
 * @help: one line for `models list` and errors.
 */
typedef struct {
  const char *key;
  MdlParamType type;
  const char *default_value;
  const char *machine_key;
  guint64 min;
  guint64 max;
  const char *choices;
  guint flags;
  const char *help;
} MdlParamSpec;

/** MdlParams: parameter values checked against a table; opaque. */
typedef struct MdlParams MdlParams;

/**
 * mdl_params_parse: checks `key=value` assignments against @table and fills in the defaults.
 * @owner: the engine or algorithm name, used to start error messages ("vat: ...").
 * @table: the parameter rows, ending with a NULL key.
 * @assignments: (nullable) a NULL-terminated array of "key=value" strings, each key at most once.
 *   The key "machine" is always accepted; the preset it names must then have a value for every
 *   row's machine_key that the assignments do not give.
 * @error: MDL_ERROR_PARAM for a bad or missing value, an unknown key (listing the valid keys and
 *   a close match), a key given twice, or a preset that lacks a key the table needs (naming the
 *   keys and the presets that have them); MDL_ERROR_UNKNOWN_NAME for an unknown machine.
 * Returns: (transfer full) the values, or NULL.
 */
MDL_API MdlParams *mdl_params_parse (const char *owner, const MdlParamSpec *table,
                                     const char *const *assignments, GError **error);

/**
 * mdl_spec_split: splits a spec `NAME:key=value,key=value` (or just `NAME`).
 * @spec: the spec.
 * @name: (out) (transfer full) the name.
 * @assignments: (out) (transfer full) NULL-terminated array of "key=value", possibly empty.
 * @error: MDL_ERROR_PARAM for an empty name or an assignment without '='.
 * Returns: TRUE on success.
 */
MDL_API gboolean mdl_spec_split (const char *spec, char **name, char ***assignments,
                                 GError **error);

/**
 * mdl_params_parse_uint: parses one unsigned value as a UINT parameter row would, so that a size
 * outside a spec ("--n 64k", a field of a compact list) reads exactly as `key=64k` does.
 * @owner: starts error messages, as in mdl_params_parse().
 * @key: the value's name in messages.
 * @text: the value: decimal, 0x hex, or with a k, M or G suffix.
 * @min, @max, @flags: as in an MdlParamSpec row (@max 0: no limit; MDL_PARAM_POW2).
 * @out: (out) the value.
 * @error: MDL_ERROR_PARAM naming @owner, @key and the valid range.
 * Returns: FALSE on error.
 */
MDL_API gboolean mdl_params_parse_uint (const char *owner, const char *key, const char *text,
                                        guint64 min, guint64 max, guint flags, guint64 *out,
                                        GError **error);

/** mdl_params_free: NULL is fine. */
MDL_API void mdl_params_free (MdlParams *params);

/* Accessors. Asking for a key that is not in the table, or with the wrong type, is a caller bug
 * (g_return_val_if_fail). */
/** mdl_params_uint: the value of UINT parameter @key. */
MDL_API guint64 mdl_params_uint (const MdlParams *params, const char *key);
/** mdl_params_double: the value of DOUBLE parameter @key. */
MDL_API double mdl_params_double (const MdlParams *params, const char *key);
/** mdl_params_bool: the value of BOOL parameter @key. */
MDL_API gboolean mdl_params_bool (const MdlParams *params, const char *key);
/** mdl_params_choice: the index, in the row's @choices, of CHOICE parameter @key. */
MDL_API guint mdl_params_choice (const MdlParams *params, const char *key);
/** mdl_params_string: the text of any parameter as normalized (borrowed from @params). */
MDL_API const char *mdl_params_string (const MdlParams *params, const char *key);
/** mdl_params_is_set: TRUE when @key was given explicitly (not from a default or preset). */
MDL_API gboolean mdl_params_is_set (const MdlParams *params, const char *key);
/** mdl_params_machine: the selected machine preset's name, or NULL. */
MDL_API const char *mdl_params_machine (const MdlParams *params);

/**
 * mdl_params_normalized: the full normalized assignment list "machine=...,key=value,..." in table
 * order, every parameter with a value included.
 * Returns: (transfer full) the string.
 */
MDL_API char *mdl_params_normalized (const MdlParams *params);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlParams, mdl_params_free)

G_END_DECLS

#endif
