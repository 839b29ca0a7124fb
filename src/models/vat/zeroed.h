/* Private to src/models/vat/: large zeroed tables whose untouched parts cost no memory (the
 * seen-set's bitmaps, the index's direct tables). */
#ifndef MDL_VAT_ZEROED_H
#define MDL_VAT_ZEROED_H

#include <glib.h>

/* @bytes of zeroes. A large table is mapped directly (malloc may hand out reused memory, which it
 * must then clear): the kernel's zero pages make the parts never written cost nothing. */
gpointer mdl_vat_zeroed_new (gsize bytes);
/* Frees what mdl_vat_zeroed_new (@bytes) returned; NULL is fine. */
void mdl_vat_zeroed_free (gpointer table, gsize bytes);

#endif
