/* libmodels: export macro and version.
 *
 * Only declarations marked MDL_API are exported from the shared library; the build uses
 * -fvisibility=hidden so that internal helpers cannot become API by accident. */
#ifndef MODELS_API_H
#define MODELS_API_H

#define MDL_VERSION_MAJOR 0
#define MDL_VERSION_MINOR 1
#define MDL_VERSION_MICRO 0
#define MDL_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define MDL_API __attribute__ ((visibility ("default")))
#else
#define MDL_API
#endif

#endif
