/* The MDL_ERROR domain. */
#include <models/error.h>

G_DEFINE_QUARK (mdl-error-quark, mdl_error)
