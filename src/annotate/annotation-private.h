/* Private to src/annotate: the layout of an annotation, shared by its builder (annotation.c) and
 * its printer (write.c). */
#ifndef MDL_ANNOTATION_PRIVATE_H
#define MDL_ANNOTATION_PRIVATE_H

#include <models/annotate.h>

struct MdlAnnotation {
  const MdlSiteTable *sites;
  guint n_sites;       /* sites 1..n_sites, as the table held them when the annotation was made */
  GPtrArray *columns;  /* char *, `ENGINE.COUNTER` */
  GArray *totals;      /* guint64 per column: the engine's own totals */
  guint64 *counts;     /* [(n_sites + 1) * columns->len]; row 0 (no site) stays 0 */
};

#endif
