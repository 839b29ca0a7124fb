/* The recorder (include/models/record.h): the out-of-line half of the instrumentation. The inline
 * append in the header fills `buf`; this file delivers full buffers and markers to the sink. The
 * public struct is the first member of the private one, so the inline code needs no call. Before
 * each batch it names the code sites (sites.h) of the batch that it has not named yet, so that a
 * sink sees a site's MDL_MARK_SITE marker before the site's first event; a recorder whose caller
 * sets sites itself names none, as its ids are not the code-site table's. It also moves the
 * accesses inside mapped regions to their simulated addresses (mdl_recorder_map()). Its buffers
 * are lent to the sinks (MdlEventBatch.keep), so that a threaded pipeline keeps a batch instead of
 * copying it; while a sink holds one, the appends go on in another. */
#include <models/error.h>
#include <models/record.h>

#include "traces/batch-keep.h"

#include <string.h>

#define DEFAULT_BATCH 4096
#define MAP_ALIGN (G_GUINT64_CONSTANT (2) << 20)   /* a huge page: a region never shares one */

/* A region of mdl_recorder_map(): real addresses [real, real + bytes) recorded from sim. */
typedef struct {
  guint64 real;
  guint64 bytes;
  guint64 sim;
} MapRegion;

/* A buffer of batch events the recorder lends its sinks: the recorder holds one reference, each
 * sink's hold adds one, and whoever drops the last frees it. */
typedef struct {
  MdlBatchKeep keep;
  MdlCpuEvent events[];
} Lend;

typedef struct {
  MdlRecorder pub;
  MdlSink sink;
  GPtrArray *lends;     /* Lend *, each held by the recorder; pub.buf is lends[lend_at]'s */
  guint lend_at;
  guint64 n_delivered;
  GError *error;        /* the first sink error; later events are dropped */
  guint8 *named;        /* per code site, TRUE once it needs no marker any more: site 0, the
                           sites named, and under own_sites every site met; NULL until the first
                           batch (a byte, not a bit: one instruction a test, not five) */
  gboolean own_sites;   /* the caller has set a site: names no code site */
  GArray *regions;      /* MapRegion, in mapping order; NULL until one is mapped */
  guint64 next_sim;     /* where the next region's simulated addresses start */
} Recorder;

static void
lend_free (MdlBatchKeep *keep)
{
  g_free (keep);
}

/* A new buffer of pub.cap events, held by the recorder, which appends into it from now on. */
static void
lend_add (Recorder *r)
{
  Lend *lend = g_malloc (sizeof (Lend) + r->pub.cap * sizeof (MdlCpuEvent));
  lend->keep = (MdlBatchKeep) { .refs = 1, .free_func = lend_free };
  r->lend_at = r->lends->len;
  g_ptr_array_add (r->lends, lend);
  r->pub.buf = lend->events;
}

/* After a batch went to the sink: the buffer for the next one. The same while no sink holds it
 * (it stays in the cache: the serial pipeline, a trace writer), else the next one no sink holds
 * any more, in the order they were lent (the oldest is the likeliest to be free), or a new one.
 * A threaded pipeline bounds how many it holds (its queue), and so how many there are. */
static void
lend_next (Recorder *r)
{
  Lend *lend = g_ptr_array_index (r->lends, r->lend_at);
  if (mdl_batch_keep_is_free (&lend->keep))
    return;
  for (guint k = 1; k < r->lends->len; k++)
    {
      guint at = (r->lend_at + k) % r->lends->len;
      lend = g_ptr_array_index (r->lends, at);
      if (mdl_batch_keep_is_free (&lend->keep))
        {
          r->lend_at = at;
          r->pub.buf = lend->events;
          return;
        }
    }
  lend_add (r);
}

MdlRecorder *
mdl_recorder_new (const MdlSink *sink, guint batch_events)
{
  Recorder *r;
  g_return_val_if_fail (sink != NULL && sink->batch != NULL && sink->marker != NULL, NULL);
  r = g_new0 (Recorder, 1);
  r->sink = *sink;
  r->pub.cap = batch_events ? batch_events : DEFAULT_BATCH;
  r->lends = g_ptr_array_new ();
  lend_add (r);
  return &r->pub;
}

/* Freeing delivers what is pending, so that a recorder dropped by g_autoptr without
 * mdl_recorder_finish() still hands the sink the whole stream: dropping the last batch changed the
 * engines' counts with nothing to show it (issue 20). A sink error that nobody collected cannot be
 * returned from here; it is logged with g_warning rather than lost, since the caller skipped the
 * one call that would have reported it. The sink remembers its failure too (a trace writer's close
 * fails, an engine refuses further work). */
void
mdl_recorder_free (MdlRecorder *rec)
{
  Recorder *r = (Recorder *) rec;
  if (rec == NULL)
    return;
  mdl_recorder_flush (rec);
  if (r->error)
    g_warning ("mdl_recorder_free: a sink error was never collected with mdl_recorder_finish(): %s",
               r->error->message);
  for (guint i = 0; i < r->lends->len; i++)
    mdl_batch_keep_release (&((Lend *) g_ptr_array_index (r->lends, i))->keep);
  g_ptr_array_unref (r->lends);
  g_free (r->named);
  if (r->regions)
    g_array_unref (r->regions);
  g_clear_error (&r->error);
  g_free (r);
}

void
mdl_recorder_map (MdlRecorder *rec, const void *base, gsize bytes)
{
  Recorder *r = (Recorder *) rec;
  MapRegion region = { (guint64) (uintptr_t) base, bytes, 0 };
  g_return_if_fail (rec != NULL && base != NULL);
  if (bytes == 0)
    return;
  mdl_recorder_flush (rec);   /* the pending events were made under the old regions */
  if (r->regions == NULL)
    {
      r->regions = g_array_new (FALSE, FALSE, sizeof (MapRegion));
      r->next_sim = MDL_RECORDER_MAP_BASE;
    }
  /* Memory freed and allocated again: the old region's bytes belong to the new one, and no two
   * regions overlap (so the region found in prepare_rare() is the only one). */
  for (guint i = r->regions->len; i-- > 0;)
    {
      const MapRegion *m = &g_array_index (r->regions, MapRegion, i);
      if (m->real < region.real + bytes && region.real < m->real + m->bytes)
        g_array_remove_index (r->regions, i);
    }
  region.sim = r->next_sim;
  r->next_sim += (bytes + MAP_ALIGN - 1) & ~(MAP_ALIGN - 1);
  g_array_append_val (r->regions, region);
}

/* The region that holds @addr, or NULL. */
static const MapRegion *
find_region (const GArray *regions, guint64 addr)
{
  for (guint i = regions->len; i-- > 0;)
    {
      const MapRegion *m = &g_array_index (regions, MapRegion, i);
      if (addr - m->real < m->bytes)
        return m;
    }
  return NULL;
}

/* A site not marked in `named` met by the pass below: while @name its marker goes to the sink
 * when the site table knows it, and it is marked so that later events of the site take no call.
 * A recorder whose caller sets the sites marks every site it meets without naming it, for the
 * same reason; after a sink error nothing is marked, as the events are dropped. Returns whether
 * to go on naming. */
static gboolean
name_site (Recorder *r, guint16 id, gboolean name)
{
  const MdlSiteTable *sites = mdl_code_sites ();
  const MdlSite *s;
  MdlMarker m;
  if (!name)
    {
      if (r->own_sites)
        r->named[id] = TRUE;
      return FALSE;
    }
  if (id > mdl_site_table_size (sites) || (s = mdl_site_table_get (sites, id)) == NULL)
    return TRUE;
  r->named[id] = TRUE;
  m = (MdlMarker) { .kind = MDL_MARK_SITE, .site = id, .name = s->name };
  r->sink.marker (r->sink.data, &m, &r->error);
  return r->error == NULL;
}

/* The two mapped regions the pass below found last, the last first: consecutive accesses mostly
 * stay in one region or alternate between two (an index array and the data it points into:
 * scan/random, binsearch). A slot of no region yet is empty (bytes 0). */
typedef struct {
  guint64 real[2];
  guint64 bytes[2];
  guint64 shift[2];   /* sim - real, added modulo 2^64 */
} Windows;

/* The pass's common case, over the events from @e to @end: sites already named, and accesses
 * inside one of the two windows (moved to their simulated addresses) or not mapped at all (!@map).
 * Returns the first event that needs more (a site to name, an access outside both windows), or
 * @end. It makes no call, so that the windows stay in registers: the pass with the rare cases
 * inline (calls there) kept them on the stack, 23 instructions an event on scan/random. */
static inline MdlCpuEvent *
prepare_common (MdlCpuEvent *e, const MdlCpuEvent *end, const guint8 *named, const Windows *w,
                gboolean map)
{
  guint64 a_real = w->real[0], a_bytes = w->bytes[0], a_shift = w->shift[0];
  guint64 b_real = w->real[1], b_bytes = w->bytes[1], b_shift = w->shift[1];
  for (; e != end; e++)
    {
      guint64 addr = e->addr;
      if (G_UNLIKELY (!named[e->site]))
        break;
      if (!map || !mdl_cpu_is_access (e->kind))
        continue;
      if (addr - a_real < a_bytes)
        e->addr = addr + a_shift;
      else if (addr - b_real < b_bytes)
        e->addr = addr + b_shift;
      else
        break;
    }
  return e;
}

/* The event prepare_common() stopped at, in full: its site named if need be, and an access moved
 * when a region holds it, that region becoming the first window. Returns whether to go on naming
 * (name_site()). */
static __attribute__ ((noinline)) gboolean
prepare_rare (Recorder *r, MdlCpuEvent *e, Windows *w, gboolean name)
{
  const MapRegion *m;
  if (!r->named[e->site])
    name = name_site (r, e->site, name);
  if (r->regions == NULL || !mdl_cpu_is_access (e->kind))
    return name;
  for (guint k = 0; k < 2; k++)
    if (e->addr - w->real[k] < w->bytes[k])
      {
        e->addr += w->shift[k];
        return name;
      }
  if ((m = find_region (r->regions, e->addr)) == NULL)
    return name;
  w->real[1] = w->real[0], w->bytes[1] = w->bytes[0], w->shift[1] = w->shift[0];
  w->real[0] = m->real, w->bytes[0] = m->bytes, w->shift[0] = m->sim - m->real;
  e->addr += w->shift[0];
  return name;
}

/* The pending events made ready for the sink, in one pass over them (out of line, like the flush
 * itself):
 * - a site marker goes out for each code site not named yet, one byte test per event in the
 *   common case (site 0, "none", is marked from the start so that it needs no test of its own);
 * - accesses inside mapped regions move to their simulated addresses, from the two windows.
 * Two passes, one per concern, took 36 instructions per event on scan/random (callgrind); one
 * with the rare cases inline 23; this one, the common case a loop without calls, 16.7 (scan/random
 * at 2^20). */
static void
prepare_pending (Recorder *r)
{
  MdlCpuEvent *e = r->pub.buf, *end = e + r->pub.len;
  gboolean name = r->error == NULL && !r->own_sites, map = r->regions != NULL;
  Windows w = { .bytes = { 0, 0 } };   /* both empty */
  if (r->named == NULL)
    {
      r->named = g_new0 (guint8, MDL_SITE_MAX + 1);
      r->named[0] = TRUE;
    }
  while ((e = prepare_common (e, end, r->named, &w, map)) != end)
    name = prepare_rare (r, e++, &w, name);
}

void
mdl_recorder_set_site (MdlRecorder *rec, guint16 site)
{
  Recorder *r = (Recorder *) rec;
  g_return_if_fail (rec != NULL);
  rec->site = site;
  r->own_sites |= site != 0;
}

void
mdl_recorder_flush (MdlRecorder *rec)
{
  Recorder *r = (Recorder *) rec;
  MdlEventBatch batch;
  g_return_if_fail (rec != NULL);
  if (rec->len == 0)
    return;
  batch = (MdlEventBatch) { .cpu = rec->buf, .n_cpu = rec->len,
                            .keep = &((Lend *) g_ptr_array_index (r->lends, r->lend_at))->keep };
  prepare_pending (r);
  r->n_delivered += rec->len;
  rec->len = 0;
  if (r->error == NULL)
    {
      r->sink.batch (r->sink.data, &batch, &r->error);
      lend_next (r);
    }
}

gboolean
mdl_recorder_finish (MdlRecorder *rec, GError **error)
{
  Recorder *r = (Recorder *) rec;
  g_return_val_if_fail (rec != NULL, FALSE);
  mdl_recorder_flush (rec);
  if (r->error)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  return TRUE;
}

guint64
mdl_recorder_n_events (const MdlRecorder *rec)
{
  const Recorder *r = (const Recorder *) rec;
  g_return_val_if_fail (rec != NULL, 0);
  return r->n_delivered + rec->len;
}

void
mdl_recorder_marker (MdlRecorder *rec, const MdlMarker *marker)
{
  Recorder *r = (Recorder *) rec;
  g_return_if_fail (rec != NULL && marker != NULL);
  mdl_recorder_flush (rec);
  if (r->error == NULL)
    r->sink.marker (r->sink.data, marker, &r->error);
}

static void
phase (MdlRecorder *rec, MdlMarkerKind kind, const char *name)
{
  MdlMarker m = { .kind = kind, .name = name };
  g_return_if_fail (name != NULL && strlen (name) <= MDL_NAME_MAX);
  mdl_recorder_marker (rec, &m);
}

void
mdl_recorder_phase_begin (MdlRecorder *rec, const char *name)
{
  phase (rec, MDL_MARK_PHASE_BEGIN, name);
}

void
mdl_recorder_phase_end (MdlRecorder *rec, const char *name)
{
  phase (rec, MDL_MARK_PHASE_END, name);
}

MdlSink
mdl_recorder_sink (MdlRecorder *rec)
{
  Recorder *r = (Recorder *) rec;
  g_return_val_if_fail (rec != NULL, (MdlSink) { 0 });
  mdl_recorder_flush (rec);
  return r->sink;
}
