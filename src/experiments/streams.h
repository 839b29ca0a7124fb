/* Private to src/experiments: a cheap sequential-stream detector (streams.c), the software twin of
 * a hardware stream prefetcher. The CPU cost model runs a second cache over the accesses it does
 * not call sequential; the misses that cache lacks are the ones a prefetcher hides. */
#ifndef MDL_EXPERIMENTS_STREAMS_H
#define MDL_EXPERIMENTS_STREAMS_H

#include <glib.h>

/* Streams tracked at once: about what a core's L2 stream prefetcher follows. */
#define MDL_STREAMS 16

typedef struct {
  guint64 last_line[MDL_STREAMS];   /* the line each stream touched last */
  guint next;                       /* the entry a new stream replaces (round robin) */
} MdlStreams;

/* Forgets every stream. */
void mdl_streams_init (MdlStreams *s);

/* Whether an access to 64-byte line @line continues a stream: it is the line a tracked stream
 * touched last or a neighbour of it (ascending or descending); that stream then moves to @line.
 * Otherwise @line starts a new stream in the oldest entry, and the answer is FALSE. */
gboolean mdl_streams_follow (MdlStreams *s, guint64 line);

#endif
