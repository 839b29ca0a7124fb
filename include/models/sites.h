/* libmodels: sites, the source lines that issue accesses.
 *
 * An event's 16-bit site id (MdlCpuEvent.site) indexes a site table: file, line and function. Two
 * kinds of table exist. The code-site table is process-wide: every MDL_READ/MDL_WRITE/MDL_MODIFY/
 * MDL_OPS call site of instrumented code registers itself there the first time it runs (a static
 * id per call site, so the hot path pays one load and a well-predicted branch), and a recorder
 * names the sites it delivers with MDL_MARK_SITE markers. A source that attributes accesses itself
 * (`models annotate` on a Lackey trace, through DWARF line tables) keeps a table of its own. A
 * site's name, `FILE:LINE`, is also the name of its phase when engines break counts down by site
 * (mdl_engine_set_site_phases()), which is how an annotation finds its counts. */
#ifndef MODELS_SITES_H
#define MODELS_SITES_H

#include <glib.h>
#include <stdint.h>
#include <models/api.h>

G_BEGIN_DECLS

/** MDL_SITE_MAX: the most sites a table holds (ids 1..MDL_SITE_MAX; 0 means no site). */
#define MDL_SITE_MAX 65535

/**
 * MdlSite: one site.
 * @file: the source file, as the compiler or the debug information names it.
 * @line: the line, from 1; 0 when unknown.
 * @function: the function holding the line ("???" when unknown).
 * @name: `FILE:LINE`, at most MDL_NAME_MAX bytes (a long path loses its leading directories).
 */
typedef struct {
  const char *file;
  guint line;
  const char *function;
  const char *name;
} MdlSite;

/** MdlSiteTable: sites by id; opaque. Safe to use from several threads. */
typedef struct MdlSiteTable MdlSiteTable;

/** mdl_site_table_new: an empty table. Returns: (transfer full). */
MDL_API MdlSiteTable *mdl_site_table_new (void);

/** mdl_site_table_free: NULL is fine; never the code-site table. */
MDL_API void mdl_site_table_free (MdlSiteTable *table);

/**
 * mdl_site_table_intern: the id of @file:@line, added with @function if new (a line keeps the
 * function it was first seen in).
 * Returns: the id (1..MDL_SITE_MAX), or 0 when the table is full.
 * Cost: one hash lookup under a lock; callers on a hot path cache the id.
 */
MDL_API guint16 mdl_site_table_intern (MdlSiteTable *table, const char *file, guint line,
                                       const char *function);

/** mdl_site_table_size: the number of sites; their ids are 1..size. */
MDL_API guint mdl_site_table_size (const MdlSiteTable *table);

/** mdl_site_table_get: site @id, or NULL for 0 or an id not in the table. Borrowed: sites live as
 * long as the table. */
MDL_API const MdlSite *mdl_site_table_get (const MdlSiteTable *table, guint id);

/** mdl_site_table_find: the id of the site named @name (`FILE:LINE`), or 0. */
MDL_API guint16 mdl_site_table_find (const MdlSiteTable *table, const char *name);

/** mdl_code_sites: the process-wide table of instrumented call sites (transfer none). */
MDL_API MdlSiteTable *mdl_code_sites (void);

/**
 * mdl_code_site_register: what MDL_SITE_HERE() calls the first time a call site runs: interns the
 * site in mdl_code_sites() and stores its id in *@slot (MDL_SITE_MAX + 1 when the table is full,
 * which reads as site 0).
 * Returns: the id, or 0.
 */
MDL_API guint16 mdl_code_site_register (gint *slot, const char *file, guint line,
                                        const char *function);

/* MDL_SITE_HERE (): the code-site id of the call site it is written at. A static slot per call site
 * holds the id once registered; it needs GNU C's statement expressions (gcc, clang), and other
 * compilers get site 0 (no attribution). */
#if defined(__GNUC__)
#define MDL_SITE_HERE()                                                                          \
  __extension__ ({                                                                               \
    static gint mdl_site_slot_;                                                                  \
    gint mdl_site_id_ = __atomic_load_n (&mdl_site_slot_, __ATOMIC_RELAXED);                    \
    G_LIKELY (mdl_site_id_ != 0)                                                                 \
      ? (guint16) mdl_site_id_                                                                   \
      : mdl_code_site_register (&mdl_site_slot_, __FILE__, __LINE__, G_STRFUNC);                 \
  })
#else
#define MDL_SITE_HERE() ((guint16) 0)
#endif

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlSiteTable, mdl_site_table_free)

G_END_DECLS

#endif
