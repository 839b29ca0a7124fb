/* libmodels: the one error domain.
 *
 * Data and user errors are reported through GError in the MDL_ERROR domain; the code says what a
 * caller would do differently, the message names the place (file, record, byte offset, parameter)
 * and, where there is a finite set, the valid choices. Caller bugs (NULL handles) are
 * g_return_val_if_fail checks instead. */
#ifndef MODELS_ERROR_H
#define MODELS_ERROR_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/** MDL_ERROR: the GQuark of libmodels errors. */
#define MDL_ERROR (mdl_error_quark ())

/**
 * MdlErrorCode:
 * @MDL_ERROR_IO: reading or writing a file or stream failed.
 * @MDL_ERROR_FORMAT: input data is malformed (a trace record, a text line, a preset file).
 * @MDL_ERROR_PARAM: a parameter is missing, of the wrong type, out of range or inconsistent.
 * @MDL_ERROR_UNKNOWN_NAME: no engine, algorithm, machine, format or parameter of that name.
 * @MDL_ERROR_UNSUPPORTED: the request is valid but this component cannot do it (a format that
 *   cannot carry warp events, an engine that ignores them, ...).
 * @MDL_ERROR_MODEL: the input violates a rule of the model (an address beyond the translation
 *   tree, a stream element larger than the model allows).
 */
typedef enum {
  MDL_ERROR_IO = 1,
  MDL_ERROR_FORMAT,
  MDL_ERROR_PARAM,
  MDL_ERROR_UNKNOWN_NAME,
  MDL_ERROR_UNSUPPORTED,
  MDL_ERROR_MODEL,
} MdlErrorCode;

/** mdl_error_quark: returns the quark of the MDL_ERROR domain. */
MDL_API GQuark mdl_error_quark (void);

G_END_DECLS

#endif
