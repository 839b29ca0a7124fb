/* Private: the "valid: a, b, c (did you mean "b"?)" tail of every unknown-name message, so all
 * layers word it the same way. */
#ifndef MDL_NAMES_H
#define MDL_NAMES_H

#include <glib.h>

/* The candidate closest to @word by edit distance (at most 2 edits, or a prefix), or NULL. */
const char *mdl_names_closest (const char *word, const char *const *candidates, guint n);

/* Appends "; valid: a, b, c" and, when one is close, " (did you mean "b"?)" to @msg. */
void mdl_names_append_choices (GString *msg, const char *word, const char *const *candidates,
                               guint n);

#endif
