/* Private: text for groff's man macros, shared by the man pages of the command (src/cli/man.c)
 * and of the API (tools/man-api.c), so that both escape the same way. */
#ifndef MDL_GROFF_H
#define MDL_GROFF_H

#include <glib.h>

/* Appends @len bytes (-1: all) of UTF-8 @text to @out as groff text: backslashes and dashes
 * escaped, a '.' or '\'' that would start a line made literal, and every character outside ASCII
 * written as \[uXXXX], so that a page needs no input encoding. */
void mdl_groff_text (GString *out, const char *text, gssize len);

/* Appends @n lines of text as one paragraph: filled (the lines joined and wrapped by groff), or
 * line by line when some line after the first is indented (a table or a list in the text). */
void mdl_groff_paragraph (GString *out, char **lines, guint n);

#endif
