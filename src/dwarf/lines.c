/* Source lines through elfutils' libdwfl (include/models/dwarf.h). The program is reported as the
 * only module of a Dwfl session at its load address (a PIE at the base the caller gives, a fixed
 * executable where its headers say), so run-time addresses from a trace go straight to
 * dwfl_module_getsrc. Function names come from the symbol table (dwfl_module_addrname), which a
 * program keeps even when only some of its files were built with -g. */
#include <models/dwarf.h>
#include <models/error.h>

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

struct MdlDwarfLines {
  Dwfl *dwfl;
  Dwfl_Module *module;
  Dwarf_Addr low, high;   /* the module's run-time address range */
  gboolean pie;
};

static const Dwfl_Callbacks callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

/* Whether @path is an ELF file of type ET_DYN; FALSE with @error when it is no ELF file. */
static gboolean
elf_type (const char *path, gboolean *pie, GError **error)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  Elf *elf;
  GElf_Ehdr ehdr;
  gboolean ok;
  if (fd < 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, g_strerror (errno));
      return FALSE;
    }
  elf_version (EV_CURRENT);
  elf = elf_begin (fd, ELF_C_READ, NULL);
  ok = elf != NULL && elf_kind (elf) == ELF_K_ELF && gelf_getehdr (elf, &ehdr) != NULL;
  if (ok)
    *pie = ehdr.e_type == ET_DYN;
  else
    g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: not an ELF executable", path);
  if (elf)
    elf_end (elf);
  close (fd);
  return ok;
}

MdlDwarfLines *
mdl_dwarf_lines_open (const char *path, guint64 load_base, GError **error)
{
  g_autoptr (MdlDwarfLines) d = g_new0 (MdlDwarfLines, 1);
  Dwarf_Addr bias;
  g_return_val_if_fail (path != NULL, NULL);
  if (!elf_type (path, &d->pie, error))
    return NULL;
  d->dwfl = dwfl_begin (&callbacks);
  d->module = d->dwfl ? dwfl_report_elf (d->dwfl, path, path, -1, d->pie ? load_base : 0, false)
                      : NULL;
  if (d->module == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: cannot read it: %s", path,
                   dwfl_errmsg (-1));
      return NULL;
    }
  dwfl_report_end (d->dwfl, NULL, NULL);
  dwfl_module_info (d->module, NULL, &d->low, &d->high, NULL, NULL, NULL, NULL);
  if (dwfl_module_getdwarf (d->module, &bias) == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: no DWARF debug information (build it "
                   "with -g; a stripped binary cannot be annotated)", path);
      return NULL;
    }
  return g_steal_pointer (&d);
}

void
mdl_dwarf_lines_free (MdlDwarfLines *lines)
{
  if (lines == NULL)
    return;
  if (lines->dwfl)
    dwfl_end (lines->dwfl);
  g_free (lines);
}

gboolean
mdl_dwarf_lines_is_pie (const MdlDwarfLines *lines)
{
  g_return_val_if_fail (lines != NULL, FALSE);
  return lines->pie;
}

gboolean
mdl_dwarf_lines_lookup (void *data, guint64 addr, const char **file, guint *line,
                        const char **function)
{
  MdlDwarfLines *d = data;
  Dwfl_Line *l;
  const char *src, *name;
  int lineno = 0;
  if (addr < d->low || addr >= d->high || (l = dwfl_module_getsrc (d->module, addr)) == NULL
      || (src = dwfl_lineinfo (l, NULL, &lineno, NULL, NULL, NULL)) == NULL || lineno <= 0)
    return FALSE;
  name = dwfl_module_addrname (d->module, addr);
  *file = src;
  *line = (guint) lineno;
  *function = name ? name : "???";
  return TRUE;
}
