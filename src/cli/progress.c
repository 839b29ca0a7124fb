/* The progress line of long work (analyze, run, convert): records done, rate, and for files of
 * known size the share read and an ETA; for work counted in items (a sweep's configurations), a
 * bar with the items done and an ETA. It is drawn on stderr only when stderr is a terminal and
 * the work has already taken a second, so short runs and pipes stay clean; it redraws with '\r' at
 * most four times a second (more is flicker, not information) and is erased at the end, so that
 * what follows on the terminal starts on a clean line. */
#include "cli/cli.h"

#include <stdio.h>
#include <unistd.h>

#define FIRST_DRAW_US G_USEC_PER_SEC       /* quiet for work shorter than this */
#define REDRAW_US (G_USEC_PER_SEC / 4)

struct MdlCliProgress {
  char *label;
  guint64 total_bytes;  /* 0: unknown, no percentage */
  gint64 start_us;
  gint64 next_draw_us;
  int drawn_len;        /* characters on screen now; 0: nothing drawn */
  gboolean enabled;
};

MdlCliProgress *
mdl_cli_progress_new (const char *label, guint64 total_bytes)
{
  MdlCliProgress *p = g_new0 (MdlCliProgress, 1);
  p->label = g_strdup (label);
  p->total_bytes = total_bytes;
  p->enabled = isatty (STDERR_FILENO);
  p->start_us = g_get_monotonic_time ();
  p->next_draw_us = p->start_us + FIRST_DRAW_US;
  return p;
}

/* "12.3 M" for people reading a number that changes four times a second. */
static void
append_millions (GString *s, double v)
{
  g_string_append_printf (s, v < 10e6 ? "%.2fM" : v < 100e6 ? "%.1fM" : "%.0fM", v / 1e6);
}

/* Draws @line over the previous one. */
static void
show (MdlCliProgress *p, const GString *line)
{
  int len = (int) line->len;
  /* Pad with spaces over the rest of a longer previous line rather than rely on terminal codes. */
  fprintf (stderr, "\r%s%*s", line->str, MAX (0, p->drawn_len - len), "");
  fflush (stderr);
  p->drawn_len = MAX (len, p->drawn_len);
}

/* ", ETA m:ss" for @done of @total after @seconds, at the rate so far. */
static void
append_eta (GString *line, double seconds, double done, double total)
{
  double left = seconds * (total - done) / done;
  g_string_append_printf (line, ", ETA %d:%02d", (int) left / 60, (int) left % 60);
}

static void
draw (MdlCliProgress *p, guint64 records, guint64 bytes, gint64 now_us)
{
  double seconds = (double) (now_us - p->start_us) / G_USEC_PER_SEC;
  g_autoptr (GString) line = g_string_new (NULL);
  g_string_append_printf (line, "models: %s: ", p->label);
  append_millions (line, (double) records);
  g_string_append (line, " records, ");
  append_millions (line, (double) records / seconds);
  g_string_append (line, " rec/s");
  if (p->total_bytes > 0 && bytes > 0 && bytes <= p->total_bytes)
    {
      g_string_append_printf (line, ", %.0f%%", 100.0 * (double) bytes / (double) p->total_bytes);
      append_eta (line, seconds, (double) bytes, (double) p->total_bytes);
    }
  show (p, line);
}

void
mdl_cli_progress_update (MdlCliProgress *p, guint64 records, guint64 bytes)
{
  gint64 now_us;
  if (p == NULL || !p->enabled)
    return;
  now_us = g_get_monotonic_time ();
  if (now_us < p->next_draw_us)
    return;
  p->next_draw_us = now_us + REDRAW_US;
  draw (p, records, bytes, now_us);
}

void
mdl_cli_progress_items (MdlCliProgress *p, guint64 before, guint64 done, guint64 total,
                        const char *unit)
{
  enum { BAR = 24 };
  g_autoptr (GString) line = NULL;
  gint64 now_us;
  guint filled;
  double seconds;
  if (p == NULL || !p->enabled || total == 0)
    return;
  now_us = g_get_monotonic_time ();
  if (now_us < p->next_draw_us)
    return;
  p->next_draw_us = now_us + REDRAW_US;
  seconds = (double) (now_us - p->start_us) / G_USEC_PER_SEC;
  filled = (guint) (BAR * MIN (before + done, total) / total);
  line = g_string_new (NULL);
  g_string_append_printf (line, "models: %s: [", p->label);
  for (guint i = 0; i < BAR; i++)
    g_string_append_c (line, i < filled ? '#' : '.');
  g_string_append_printf (line, "] %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " %s",
                          before + done, total, unit);
  /* The rate of this run only: items found done before cost nothing. */
  if (done > 0 && before + done <= total)
    append_eta (line, seconds, (double) done, (double) (total - before));
  show (p, line);
}

void
mdl_cli_progress_free (MdlCliProgress *p)
{
  if (p == NULL)
    return;
  if (p->drawn_len > 0)
    {
      fprintf (stderr, "\r%*s\r", p->drawn_len, "");
      fflush (stderr);
    }
  g_free (p->label);
  g_free (p);
}

/* The relay refuses events once the command is interrupted, which stops the source. */
static gboolean
interrupted (GError **error)
{
  g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s", mdl_cli_interrupted ());
  return FALSE;
}

static gboolean
relay_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  MdlCliProgressRelay *r = data;
  if (G_UNLIKELY (mdl_cli_interrupted () != NULL))
    return interrupted (error);
  r->n_events += batch->n_cpu + batch->n_warp;
  mdl_cli_progress_update (r->progress, r->n_events, 0);
  return r->next.batch (r->next.data, batch, error);
}

static gboolean
relay_marker (void *data, const MdlMarker *marker, GError **error)
{
  MdlCliProgressRelay *r = data;
  if (G_UNLIKELY (mdl_cli_interrupted () != NULL))
    return interrupted (error);
  r->n_events++;
  return r->next.marker (r->next.data, marker, error);
}

MdlSink
mdl_cli_progress_relay (MdlCliProgressRelay *relay, MdlCliProgress *p, const MdlSink *next)
{
  *relay = (MdlCliProgressRelay) { .next = *next, .progress = p };
  return (MdlSink) { .batch = relay_batch, .marker = relay_marker, .data = relay };
}
