/* libmodels: source lines of a program's instructions, from its DWARF debug information.
 *
 * The one part of libmodels that needs elfutils (libdw): it lives in its own archive,
 * libmodels-dwarf.a, which `models` links, so that the core library and the programs that link
 * it keep GLib as their only dependency (docs/howto/annotate.md). A program opened here gives
 * mdl_dwarf_lines_lookup() to an attributor (annotate.h). */
#ifndef MODELS_DWARF_H
#define MODELS_DWARF_H

#include <glib.h>
#include <models/api.h>

G_BEGIN_DECLS

/**
 * MDL_DWARF_VALGRIND_PIE_BASE: where Valgrind (3.x, amd64 Linux) loads a position-independent
 * main executable: its address-space manager places the client's program at this fixed address
 * whatever the kernel's randomization, so a Lackey trace of a PIE shows its code at this base plus
 * the ELF addresses.
 */
#define MDL_DWARF_VALGRIND_PIE_BASE G_GUINT64_CONSTANT (0x108000)

/** MdlDwarfLines: a program's line table and symbols, at one load address; opaque. */
typedef struct MdlDwarfLines MdlDwarfLines;

/**
 * mdl_dwarf_lines_open: reads @path's debug information.
 * @load_base: where the program was loaded if it is position-independent (ET_DYN), e.g.
 *   MDL_DWARF_VALGRIND_PIE_BASE; ignored for a fixed-address executable.
 * @error: MDL_ERROR_IO when @path cannot be read, MDL_ERROR_FORMAT when it is not an ELF file or
 *   has no DWARF line table (not built with -g).
 * Returns: (transfer full), or NULL.
 */
MDL_API MdlDwarfLines *mdl_dwarf_lines_open (const char *path, guint64 load_base, GError **error);

/** mdl_dwarf_lines_free: NULL is fine. */
MDL_API void mdl_dwarf_lines_free (MdlDwarfLines *lines);

/** mdl_dwarf_lines_is_pie: TRUE for a position-independent executable (ET_DYN). */
MDL_API gboolean mdl_dwarf_lines_is_pie (const MdlDwarfLines *lines);

/**
 * mdl_dwarf_lines_lookup: the source line of the instruction at run-time address @addr (an
 * MdlAddrLineFunc; @data is the MdlDwarfLines).
 * @file, @line, @function: (out) strings that live as long as @data (the function from the symbol
 *   table, "???" without one).
 * Returns: FALSE for an address outside the program or without a line.
 */
MDL_API gboolean mdl_dwarf_lines_lookup (void *data, guint64 addr, const char **file, guint *line,
                                         const char **function);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlDwarfLines, mdl_dwarf_lines_free)

G_END_DECLS

#endif
