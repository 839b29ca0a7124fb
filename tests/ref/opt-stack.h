/* A slow, obviously correct reference for the one-pass min/ismin curve (src/models/vat/curve-min.c),
 * for tests/test-vat-curve-min.c.
 *
 * Mattson's stack update for a priority policy, written out as in the textbook: the stack is a
 * plain array, the referenced node is found by a linear search, and every position above it is
 * compared in turn with the carried node (the largest key so far moves down one record at a time).
 * O(stack) per reference, on purpose: no tree, nothing that could share a mistake with the engine. */
#ifndef TESTS_REF_OPT_STACK_H
#define TESTS_REF_OPT_STACK_H

#include <glib.h>

typedef struct RefOptStack RefOptStack;

/* A stack that keeps the top @wmax positions (deeper nodes fall off). */
RefOptStack *ref_opt_stack_new (guint32 wmax);
void ref_opt_stack_free (RefOptStack *s);

/* A reference to @node, whose key (larger = evicted first) is @key from now on. */
void ref_opt_stack_reference (RefOptStack *s, guint64 node, guint64 key);

/* Sets the key of @node, if it is on the stack. */
void ref_opt_stack_set_key (RefOptStack *s, guint64 node, guint64 key);

/* @out[W] = the references that miss at size W, for W = 0..wmax. */
void ref_opt_stack_misses (const RefOptStack *s, guint64 *out);

#endif
