/* The recorder (include/models/record.h): the out-of-line half of the instrumentation. The inline
 * append in the header fills `buf`; this file delivers full buffers and markers to the sink. The
 * public struct is the first member of the private one, so the inline code needs no call. Before
 * each batch it names the code sites (sites.h) of the batch that it has not named yet, so that a
 * sink sees a site's MDL_MARK_SITE marker before the site's first event; a recorder whose caller
 * sets sites itself names none, as its ids are not the code-site table's. It also moves the
 * accesses inside mapped regions to their simulated addresses (mdl_recorder_map()). */
#include <models/error.h>
#include <models/record.h>

#include <string.h>

#define DEFAULT_BATCH 4096
#define MAP_ALIGN (G_GUINT64_CONSTANT (2) << 20)   /* a huge page: a region never shares one */

/* A region of mdl_recorder_map(): real addresses [real, real + bytes) recorded from sim. */
typedef struct {
  guint64 real;
  guint64 bytes;
  guint64 sim;
} MapRegion;

typedef struct {
  MdlRecorder pub;
  MdlSink sink;
  guint64 n_delivered;
  GError *error;        /* the first sink error; later events are dropped */
  guint8 *named;        /* bit per code site that has had its marker (and site 0); NULL until the first batch */
  gboolean own_sites;   /* the caller has set a site: names no code site */
  GArray *regions;      /* MapRegion, in mapping order; NULL until one is mapped */
  guint64 next_sim;     /* where the next region's simulated addresses start */
} Recorder;

MdlRecorder *
mdl_recorder_new (const MdlSink *sink, guint batch_events)
{
  Recorder *r;
  g_return_val_if_fail (sink != NULL && sink->batch != NULL && sink->marker != NULL, NULL);
  r = g_new0 (Recorder, 1);
  r->sink = *sink;
  r->pub.cap = batch_events ? batch_events : DEFAULT_BATCH;
  r->pub.buf = g_new (MdlCpuEvent, r->pub.cap);
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
  g_free (rec->buf);
  g_free (r->named);
  if (r->regions)
    g_array_unref (r->regions);
  g_clear_error (&r->error);
  g_free (r);
}

/* Delivers a site marker for each code site of the pending events not named yet. Cost: one pass
 * over the batch, out of line like the flush itself, one bit test per event in the common case
 * (site 0, "none", has its bit set from the start so that it needs no test of its own: with the
 * two-region guess of map_pending(), 55 -> 36 instructions per event for both passes on
 * scan/random, by callgrind). */
static void
name_new_sites (Recorder *r)
{
  const MdlSiteTable *sites = mdl_code_sites ();
  const MdlCpuEvent *buf = r->pub.buf;
  guint n_sites = 0;
  guint8 *named;
  if (r->named == NULL)
    {
      r->named = g_new0 (guint8, (MDL_SITE_MAX + 1) / 8);
      r->named[0] = 1;
    }
  named = r->named;
  for (guint32 i = 0; i < r->pub.len; i++)
    {
      guint16 id = buf[i].site;
      const MdlSite *s;
      MdlMarker m;
      if (G_LIKELY (named[id / 8] & (1u << id % 8)))
        continue;
      if (n_sites == 0)
        n_sites = mdl_site_table_size (sites);
      if (id > n_sites || (s = mdl_site_table_get (sites, id)) == NULL)
        continue;
      named[id / 8] |= (guint8) (1u << id % 8);
      m = (MdlMarker) { .kind = MDL_MARK_SITE, .site = id, .name = s->name };
      r->sink.marker (r->sink.data, &m, &r->error);
      if (r->error)
        break;
    }
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
   * regions overlap (so the last region found in map_pending() is the only one). */
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

/* Moves the pending accesses inside mapped regions to their simulated addresses. Consecutive
 * accesses mostly stay in one region or alternate between two (an index array and the data it
 * points into: scan/random, binsearch), so the last two found are tried first. */
static void
map_pending (Recorder *r)
{
  const MapRegion *last = NULL, *before = NULL;
  for (guint32 i = 0; i < r->pub.len; i++)
    {
      MdlCpuEvent *e = &r->pub.buf[i];
      if (!mdl_cpu_is_access (e->kind))
        continue;
      if (last == NULL || e->addr - last->real >= last->bytes)
        {
          const MapRegion *m = before && e->addr - before->real < before->bytes
                               ? before : find_region (r->regions, e->addr);
          if (m == NULL)
            continue;
          before = last;
          last = m;
        }
      e->addr = last->sim + (e->addr - last->real);
    }
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
  MdlEventBatch batch = { .cpu = rec->buf, .n_cpu = rec->len };
  g_return_if_fail (rec != NULL);
  if (rec->len == 0)
    return;
  if (r->regions)
    map_pending (r);
  if (r->error == NULL && !r->own_sites)
    name_new_sites (r);
  r->n_delivered += rec->len;
  rec->len = 0;
  if (r->error == NULL)
    r->sink.batch (r->sink.data, &batch, &r->error);
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
