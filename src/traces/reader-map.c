/* The reader's input through mmap(2), for an uncompressed regular file: the format readers see a
 * window of the mapping as their buffer (reader->buf), so the bytes are never copied out of the
 * page cache; read(2) stays for pipes, stdin and gzip. A window is MAP_WINDOW_BYTES of the file
 * from a page boundary, mapped with MAP_POPULATE (its page tables made in one call rather than one
 * fault per few pages); moving on unmaps it, so memory stays bounded whatever the file's size.
 * docs/trace-format.md, "Branch s12-trace", has the measurements.
 *
 * A mapped file that another process truncates while it is read raises SIGBUS, where read(2)
 * would see a short file: the price of reading in place, as for every mapped reader. */
#include "trace-private.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gio/gfiledescriptorbased.h>

/* Large enough that the mmap(2) and munmap(2) per window disappear next to the records in it,
 * and at least a page more than the most a format reader asks for at once. */
#define MAP_WINDOW_BYTES ((gsize) 16 << 20)
_Static_assert (MAP_WINDOW_BYTES >= 2 * MDL_TRACE_BUF_BYTES, "a window holds any need()");

/* Maps the window of the file that starts at the page holding byte @from; the unread bytes keep
 * their file offset (buf_offset + pos). */
static gboolean
map_window (MdlTraceReader *r, guint64 from, GError **error)
{
  guint64 page = (guint64) sysconf (_SC_PAGESIZE);
  guint64 start = from / page * page;
  gsize len = (gsize) MIN ((guint64) MAP_WINDOW_BYTES, r->map_file_bytes - start);
  void *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, r->map_fd, (off_t) start);

  if (map == MAP_FAILED)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot map bytes %" G_GUINT64_FORMAT
                   "..%" G_GUINT64_FORMAT ": %s", r->name, start, start + len - 1,
                   g_strerror (errno));
      return FALSE;
    }
  if (r->buf != NULL)
    munmap (r->buf, r->cap);
  r->buf = map;
  r->cap = len;
  r->len = len;
  r->pos = (gsize) (from - start);
  r->buf_offset = start;
  r->eof = start + len == r->map_file_bytes;
  return TRUE;
}

gboolean
mdl_trace_map_open (MdlTraceReader *r, GInputStream *stream)
{
  struct stat st;
  int fd;

  if (!G_IS_FILE_DESCRIPTOR_BASED (stream))
    return FALSE;
  fd = g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (stream));
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 2
      || lseek (fd, 0, SEEK_CUR) != 0)
    return FALSE;
  r->map_fd = fd;
  r->map_file_bytes = (guint64) st.st_size;
  if (!map_window (r, 0, NULL))
    {
      r->map_fd = -1;   /* read(2) it is */
      return FALSE;
    }
  if (r->buf[0] == 0x1f && r->buf[1] == 0x8b)
    {
      mdl_trace_map_close (r);   /* gzip: inflated from the stream, as from a pipe */
      return FALSE;
    }
  return TRUE;
}

gboolean
mdl_trace_map_next (MdlTraceReader *r, GError **error)
{
  return map_window (r, r->buf_offset + r->pos, error);
}

void
mdl_trace_map_close (MdlTraceReader *r)
{
  if (r->buf != NULL)
    munmap (r->buf, r->cap);
  r->buf = NULL;
  r->cap = r->len = r->pos = 0;
  r->buf_offset = 0;
  r->eof = FALSE;
  r->map_fd = -1;
}
