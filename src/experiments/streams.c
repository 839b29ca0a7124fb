/* The stream detector of streams.h. A line within one of a stream's last line is sequential: a
 * scan, a merge's two inputs and output, a transpose's rows. Round-robin replacement keeps it a
 * few instructions per access; a random access costs one entry, so a burst of random accesses
 * (a heap's sift-down, a binary search) evicts the streams as a real prefetcher's table would. */
#include "experiments/streams.h"

#include <string.h>

void
mdl_streams_init (MdlStreams *s)
{
  /* Why G_MAXUINT64 - 1: no line is within one of it, so empty entries never match. */
  for (guint i = 0; i < MDL_STREAMS; i++)
    s->last_line[i] = G_MAXUINT64 - 1;
  s->next = 0;
}

gboolean
mdl_streams_follow (MdlStreams *s, guint64 line)
{
  for (guint i = 0; i < MDL_STREAMS; i++)
    if (line - s->last_line[i] + 1 <= 2)   /* line - last in {-1, 0, 1}, unsigned */
      {
        s->last_line[i] = line;
        return TRUE;
      }
  s->last_line[s->next] = line;
  s->next = (s->next + 1) % MDL_STREAMS;
  return FALSE;
}
