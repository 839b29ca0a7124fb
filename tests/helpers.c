/* Shared test helpers (tests/helpers.h). */
#include "helpers.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

guint32
test_seed (guint32 fallback)
{
  const char *s = g_getenv ("MODELS_TEST_SEED");
  return s ? (guint32) g_ascii_strtoull (s, NULL, 0) : fallback;
}

static gboolean
collect_batch (void *data, const MdlEventBatch *b, GError **error)
{
  TestCollector *c = data;
  (void) error;
  c->n_batches++;
  if (b->n_cpu)
    g_array_append_vals (c->cpu, b->cpu, (guint) b->n_cpu);
  for (gsize i = 0; i < b->n_cpu; i++)
    g_string_append_c (c->order, 'c');
  for (gsize i = 0; i < b->n_warp; i++)
    {
      MdlWarpEvent w = b->warp[i];
      if (mdl_warp_is_memory (&w) && !(w.flags & MDL_WARP_STRIDED))
        {
          guint n = (guint) __builtin_popcountll (w.active);
          guint first = c->lane_addrs->len;
          g_array_append_vals (c->lane_addrs, b->lane_addrs + w.first_addr, n);
          w.first_addr = first;
        }
      else
        w.first_addr = 0;
      g_array_append_val (c->warp, w);
      g_string_append_c (c->order, 'w');
    }
  return TRUE;
}

static gboolean
collect_marker (void *data, const MdlMarker *m, GError **error)
{
  TestCollector *c = data;
  TestMarker *t = g_new0 (TestMarker, 1);
  (void) error;
  t->marker = *m;
  if (m->name)
    g_strlcpy (t->name, m->name, sizeof t->name);
  t->marker.name = m->name ? t->name : NULL;
  g_ptr_array_add (c->markers, t);
  g_string_append_c (c->order, 'm');
  return TRUE;
}

TestCollector *
test_collector_new (void)
{
  TestCollector *c = g_new0 (TestCollector, 1);
  c->cpu = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  c->warp = g_array_new (FALSE, FALSE, sizeof (MdlWarpEvent));
  c->lane_addrs = g_array_new (FALSE, FALSE, sizeof (guint64));
  c->markers = g_ptr_array_new_with_free_func (g_free);
  c->order = g_string_new (NULL);
  return c;
}

void
test_collector_free (TestCollector *c)
{
  if (!c)
    return;
  g_array_unref (c->cpu);
  g_array_unref (c->warp);
  g_array_unref (c->lane_addrs);
  g_ptr_array_unref (c->markers);
  g_string_free (c->order, TRUE);
  g_free (c);
}

MdlSink
test_collector_sink (TestCollector *c)
{
  return (MdlSink) { collect_batch, collect_marker, c };
}

gboolean
test_collector_replay (const TestCollector *c, const MdlSink *sink, guint batch, GError **error)
{
  guint ci = 0, wi = 0, mi = 0;
  gsize pos = 0;
  while (pos < c->order->len)
    {
      char k = c->order->str[pos];
      guint run = 0;
      while (pos + run < c->order->len && c->order->str[pos + run] == k && (k == 'm' || batch == 0 || run < batch))
        {
          run++;
          if (k == 'm')
            break;
        }
      if (k == 'm')
        {
          const TestMarker *t = g_ptr_array_index (c->markers, mi++);
          if (!sink->marker (sink->data, &t->marker, error))
            return FALSE;
        }
      else if (k == 'c')
        {
          MdlEventBatch b = { .cpu = &g_array_index (c->cpu, MdlCpuEvent, ci), .n_cpu = run };
          ci += run;
          if (!sink->batch (sink->data, &b, error))
            return FALSE;
        }
      else
        {
          MdlEventBatch b = { .warp = &g_array_index (c->warp, MdlWarpEvent, wi), .n_warp = run,
                              .lane_addrs = (const guint64 *) (void *) c->lane_addrs->data,
                              .n_lane_addrs = c->lane_addrs->len };
          wi += run;
          if (!sink->batch (sink->data, &b, error))
            return FALSE;
        }
      pos += run;
    }
  return TRUE;
}

GError *
test_collector_drain (TestCollector *c, MdlTraceReader *r, guint64 max_records,
                      MdlTraceReader **keep, GError *error)
{
  MdlSink sink = test_collector_sink (c);
  gboolean done = FALSE;
  while (r && !done)
    if (!mdl_trace_reader_pump (r, &sink, max_records, &done, &error))
      break;
  if (keep)
    *keep = r;
  else
    mdl_trace_reader_free (r);
  return error;
}

void
test_collector_assert_equal (const TestCollector *a, const TestCollector *b)
{
  assert_string_equal (a->order->str, b->order->str);
  assert_int_equal (a->cpu->len, b->cpu->len);
  for (guint i = 0; i < a->cpu->len; i++)
    if (memcmp (&g_array_index (a->cpu, MdlCpuEvent, i), &g_array_index (b->cpu, MdlCpuEvent, i),
                sizeof (MdlCpuEvent)) != 0)
      fail_msg ("CPU event %u differs", i);
  assert_int_equal (a->warp->len, b->warp->len);
  for (guint i = 0; i < a->warp->len; i++)
    {
      const MdlWarpEvent *x = &g_array_index (a->warp, MdlWarpEvent, i);
      const MdlWarpEvent *y = &g_array_index (b->warp, MdlWarpEvent, i);
      guint64 ax[MDL_WARP_MAX_LANES] = { 0 }, ay[MDL_WARP_MAX_LANES] = { 0 };
      MdlEventBatch ba = { .lane_addrs = (const guint64 *) (void *) a->lane_addrs->data,
                           .n_lane_addrs = a->lane_addrs->len };
      MdlEventBatch bb = { .lane_addrs = (const guint64 *) (void *) b->lane_addrs->data,
                           .n_lane_addrs = b->lane_addrs->len };
      if (x->active != y->active || x->taken != y->taken || x->launch != y->launch
          || x->block != y->block || x->warp != y->warp || x->width != y->width
          || x->site != y->site || x->op != y->op || x->space != y->space)
        fail_msg ("warp event %u differs", i);
      if (mdl_warp_is_memory (x))
        {
          mdl_warp_addrs (&ba, x, ax);
          mdl_warp_addrs (&bb, y, ay);
          if (memcmp (ax, ay, sizeof ax) != 0)
            fail_msg ("warp event %u: lane addresses differ", i);
        }
    }
  assert_int_equal (a->markers->len, b->markers->len);
  for (guint i = 0; i < a->markers->len; i++)
    {
      const TestMarker *x = g_ptr_array_index (a->markers, i);
      const TestMarker *y = g_ptr_array_index (b->markers, i);
      if (x->marker.kind != y->marker.kind || x->marker.launch != y->marker.launch
          || x->marker.block != y->marker.block || x->marker.grid_blocks != y->marker.grid_blocks
          || x->marker.block_threads != y->marker.block_threads
          || x->marker.shared_bytes != y->marker.shared_bytes
          || x->marker.warp_width != y->marker.warp_width || x->marker.site != y->marker.site
          || strcmp (x->name, y->name) != 0)
        fail_msg ("marker %u differs", i);
    }
}

/* The directories test_temp_dir() made, removed with their contents when the test program exits.
 * Process-wide state, but test-only: a test program is one process and its tests share it. */
static GPtrArray *temp_dirs;

/* Removes @path and, if it is a directory, everything under it; symbolic links are removed, not
 * followed. */
static void
remove_tree (const char *path)
{
  GDir *dir;
  const char *name;
  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && (dir = g_dir_open (path, 0, NULL)) != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_dir_close (dir);
    }
  g_remove (path);
}

static void
remove_temp_dirs (void)
{
  if (g_getenv ("MODELS_TEST_KEEP"))
    {
      for (guint i = 0; i < temp_dirs->len; i++)
        g_printerr ("kept %s (MODELS_TEST_KEEP is set)\n", (char *) temp_dirs->pdata[i]);
      return;
    }
  for (guint i = 0; i < temp_dirs->len; i++)
    remove_tree (temp_dirs->pdata[i]);
  g_ptr_array_free (temp_dirs, TRUE);
  temp_dirs = NULL;
}

char *
test_temp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("models-test-XXXXXX", &error);
  if (dir == NULL)
    fail_msg ("cannot make a temporary directory: %s", error->message);
  if (temp_dirs == NULL)
    {
      temp_dirs = g_ptr_array_new_with_free_func (g_free);
      atexit (remove_temp_dirs);
    }
  g_ptr_array_add (temp_dirs, g_strdup (dir));
  return dir;
}

char *
test_write_temp (const char *basename, const void *data, gsize len)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = test_temp_dir ();
  char *path;
  path = g_build_filename (dir, basename, NULL);
  if (!g_file_set_contents (path, data, (gssize) len, &error))
    fail_msg ("cannot write %s: %s", path, error->message);
  return path;
}

char *
test_read_text (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    fail_msg ("cannot read %s", path);
  return text;
}

MdlGpuExperiment *
test_gpu_experiment_on (const char *timings, MdlGpuExperimentConfig *cfg, char **dir_out)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "timings.csv", NULL);
  MdlGpuExperiment *exp;
  if (!g_file_set_contents (path, timings, -1, &error))
    fail_msg ("cannot write %s: %s", path, error->message);
  cfg->measured = dir;
  exp = mdl_gpu_experiment_run (cfg, &error);
  cfg->measured = NULL;
  if (exp == NULL)
    fail_msg ("%s", error->message);
  if (dir_out)
    *dir_out = g_steal_pointer (&dir);
  return exp;
}

const MdlGpuPoint *
test_gpu_point (const MdlGpuExperiment *exp, const char *spec, guint *index)
{
  const MdlGpuResults *r = mdl_gpu_experiment_results (exp);
  for (guint i = 0; i < r->n_points; i++)
    if (strcmp (r->points[i].spec, spec) == 0)
      {
        if (index)
          *index = i;
        return &r->points[i];
      }
  fail_msg ("no point %s", spec);
  return NULL;
}

void
test_assert_error (GError *error, int code, const char *needle, const char *file, int line)
{
  if (error == NULL)
    {
      print_error ("%s:%d: expected an error containing \"%s\", got none\n", file, line, needle);
      fail ();
    }
  if (error->domain != MDL_ERROR || error->code != code || strstr (error->message, needle) == NULL)
    {
      print_error ("%s:%d: expected MDL_ERROR code %d containing \"%s\", got %s code %d: %s\n",
                      file, line, code, needle, g_quark_to_string (error->domain), error->code,
                      error->message);
      g_error_free (error);
      fail ();
    }
  g_error_free (error);
}

MdlEngine *
test_engine_new (const char *spec)
{
  g_autoptr (GError) error = NULL;
  MdlEngine *e = mdl_engine_new (spec, &error);
  if (e == NULL)
    fail_msg ("%s: %s", spec, error->message);
  return e;
}

void
test_feed_cpu (MdlEngine *e, const MdlCpuEvent *ev, gsize n)
{
  g_autoptr (GError) error = NULL;
  MdlEventBatch b = { .cpu = ev, .n_cpu = n };
  if (!mdl_engine_consume (e, &b, &error))
    fail_msg ("%s: consume: %s", mdl_engine_spec (e), error->message);
}

void
test_feed_cpu_batches (MdlEngine *e, const MdlCpuEvent *ev, gsize n, GRand *rand, guint max_len)
{
  for (gsize k = 0; k < n;)
    {
      /* Not inside MIN, which would draw twice. */
      gsize len = (gsize) g_rand_int_range (rand, 1, (gint32) max_len);
      len = MIN (len, n - k);
      test_feed_cpu (e, ev + k, len);
      k += len;
    }
}

static const MdlCounter *
lookup (const MdlReport *r, const char *name)
{
  const MdlCounter *c = mdl_report_lookup (r, name);
  if (c == NULL)
    fail_msg ("%s: no counter %s", mdl_report_spec (r), name);
  return c;
}

guint64
test_report_count (const MdlReport *r, const char *name)
{
  return lookup (r, name)->count;
}

double
test_report_real (const MdlReport *r, const char *name)
{
  return lookup (r, name)->real;
}

void
test_report_append_text (GString *out, const MdlReport *r)
{
  for (guint c = 0; c < mdl_report_n_counters (r); c++)
    {
      const MdlCounter *k = mdl_report_counter (r, c);
      g_string_append_printf (out, "%s=%" G_GUINT64_FORMAT "/%.17g ", k->name, k->count, k->real);
    }
}

guint64
test_engine_count (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  return test_report_count (r, name);
}

double
test_engine_real (MdlEngine *e, const char *name)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  return test_report_real (r, name);
}

guint64
test_phase_count (const MdlReport *r, const char *phase, const char *name)
{
  if (phase == NULL)
    return test_report_count (r, name);
  for (guint i = 0; i < mdl_report_n_phases (r); i++)
    if (strcmp (mdl_report_engine (mdl_report_phase (r, i)), phase) == 0)
      return test_report_count (mdl_report_phase (r, i), name);
  fail_msg ("%s: no phase %s", mdl_report_spec (r), phase);
  return 0;
}

GPtrArray *
test_run_algo_all (const char *algo_spec, guint64 n, guint64 seed,
                   const char *const *engine_specs, guint64 *checksum)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
  g_autoptr (MdlRecorder) rec = NULL;
  g_autofree MdlReport **reports = NULL;
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) mdl_report_free);
  const MdlAlgo *algo = NULL;
  MdlSink sink;
  guint64 sum;
  guint nr;
  if (!mdl_spec_split (algo_spec, &name, &assigns, &error)
      || !(algo = mdl_algo_lookup (name, &error))
      || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error)))
    fail_msg ("%s: %s", algo_spec, error->message);
  for (const char *const *e = engine_specs; *e; e++)
    if (!mdl_pipeline_add_engine_spec (p, *e, &error))
      fail_msg ("%s: %s", *e, error->message);
  sink = mdl_pipeline_sink (p);
  rec = mdl_recorder_new (&sink, 0);
  if (!algo->run (params, n, seed, rec, checksum ? checksum : &sum, &error)
      || !mdl_recorder_finish (rec, &error))
    fail_msg ("%s n=%" G_GUINT64_FORMAT ": %s", algo_spec, n, error->message);
  reports = mdl_pipeline_reports (p, &nr);
  for (guint i = 0; i < nr; i++)
    g_ptr_array_add (out, reports[i]);
  return out;
}

MdlReport *
test_run_algo (const char *algo_spec, guint64 n, guint64 seed, const char *engine_spec,
               guint64 *checksum)
{
  const char *const engines[] = { engine_spec, NULL };
  g_autoptr (GPtrArray) reports = test_run_algo_all (algo_spec, n, seed, engines, checksum);
  assert_int_equal (reports->len, 1);
  return g_ptr_array_steal_index (reports, 0);
}

/* ---- a strict JSON validator (RFC 8259) ---- */

typedef struct {
  const char *p, *end;
  const char *why;
  guint depth;
} JsonCheck;

static void
jc_ws (JsonCheck *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static gboolean
jc_fail (JsonCheck *c, const char *why)
{
  if (c->why == NULL)
    c->why = why;
  return FALSE;
}

static int
jc_hex4 (JsonCheck *c)
{
  int v = 0;
  if (c->end - c->p < 4)
    return -1;
  for (int k = 0; k < 4; k++)
    {
      if (!g_ascii_isxdigit (c->p[k]))
        return -1;
      v = v * 16 + g_ascii_xdigit_value (c->p[k]);
    }
  c->p += 4;
  return v;
}

static gboolean
jc_string (JsonCheck *c)
{
  const char *start;
  if (c->p >= c->end || *c->p != '"')
    return jc_fail (c, "expected a string");
  start = ++c->p;
  while (c->p < c->end && *c->p != '"')
    {
      guchar ch = (guchar) *c->p;
      if (ch < 0x20)
        return jc_fail (c, "a control character not escaped in a string");
      if (ch != '\\')
        {
          c->p++;
          continue;
        }
      if (++c->p >= c->end)
        return jc_fail (c, "a string ends in a backslash");
      switch (*c->p++)
        {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
          break;
        case 'u':
          {
            int u = jc_hex4 (c);
            if (u < 0)
              return jc_fail (c, "\\u without four hex digits");
            if (u >= 0xdc00 && u <= 0xdfff)
              return jc_fail (c, "a lone low surrogate");
            if (u >= 0xd800 && u <= 0xdbff)
              {
                int low;
                if (c->end - c->p < 2 || c->p[0] != '\\' || c->p[1] != 'u')
                  return jc_fail (c, "a high surrogate without its low half");
                c->p += 2;
                low = jc_hex4 (c);
                if (low < 0xdc00 || low > 0xdfff)
                  return jc_fail (c, "a high surrogate without its low half");
              }
            break;
          }
        default:
          return jc_fail (c, "an escape JSON does not have");
        }
    }
  if (c->p >= c->end)
    return jc_fail (c, "a string without its closing quote");
  if (!g_utf8_validate (start, c->p - start, NULL))
    return jc_fail (c, "a string that is not UTF-8");
  c->p++;
  return TRUE;
}

static gboolean
jc_digits (JsonCheck *c)
{
  const char *start = c->p;
  while (c->p < c->end && g_ascii_isdigit (*c->p))
    c->p++;
  return c->p > start;
}

static gboolean
jc_number (JsonCheck *c)
{
  if (c->p < c->end && *c->p == '-')
    c->p++;
  if (c->p < c->end && *c->p == '0')
    c->p++;
  else if (!(c->p < c->end && *c->p >= '1' && *c->p <= '9') || !jc_digits (c))
    return jc_fail (c, "a number without digits (or with a leading zero)");
  if (c->p < c->end && *c->p == '.')
    {
      c->p++;
      if (!jc_digits (c))
        return jc_fail (c, "no digits after a decimal point");
    }
  if (c->p < c->end && (*c->p == 'e' || *c->p == 'E'))
    {
      c->p++;
      if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
        c->p++;
      if (!jc_digits (c))
        return jc_fail (c, "no digits in an exponent");
    }
  return TRUE;
}

static gboolean jc_value (JsonCheck *c);

static gboolean
jc_container (JsonCheck *c, gboolean object)
{
  char close = object ? '}' : ']';
  if (++c->depth > 256)
    return jc_fail (c, "nested deeper than 256");
  c->p++;
  jc_ws (c);
  if (c->p < c->end && *c->p == close)
    {
      c->p++;
      c->depth--;
      return TRUE;
    }
  for (;;)
    {
      jc_ws (c);
      if (object)
        {
          if (!jc_string (c))
            return jc_fail (c, "expected a key");
          jc_ws (c);
          if (c->p >= c->end || *c->p++ != ':')
            return jc_fail (c, "expected ':' after a key");
        }
      if (!jc_value (c))
        return FALSE;
      jc_ws (c);
      if (c->p < c->end && *c->p == ',')
        c->p++;
      else if (c->p < c->end && *c->p == close)
        {
          c->p++;
          c->depth--;
          return TRUE;
        }
      else
        return jc_fail (c, object ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static gboolean
jc_value (JsonCheck *c)
{
  static const char *const words[] = { "null", "true", "false" };
  jc_ws (c);
  if (c->p >= c->end)
    return jc_fail (c, "expected a value, found the end");
  if (*c->p == '{' || *c->p == '[')
    return jc_container (c, *c->p == '{');
  if (*c->p == '"')
    return jc_string (c);
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      gsize n = strlen (words[i]);
      if ((gsize) (c->end - c->p) >= n && memcmp (c->p, words[i], n) == 0)
        {
          c->p += n;
          return TRUE;
        }
    }
  if (*c->p == '-' || g_ascii_isdigit (*c->p))
    return jc_number (c);
  return jc_fail (c, "expected a value");
}

gboolean
test_json_check (const char *text, gsize len, char **why)
{
  JsonCheck c = { text, text + len, NULL, 0 };
  gboolean ok = jc_value (&c);
  if (ok)
    {
      jc_ws (&c);
      if (c.p != c.end)
        ok = jc_fail (&c, "text after the document");
    }
  if (!ok && why)
    *why = g_strdup_printf ("%s at byte %" G_GSIZE_FORMAT, c.why, (gsize) (c.p - text));
  return ok;
}

guint64
test_native_checksum (const char *spec, guint64 n, guint64 seed)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  g_auto (GStrv) assigns = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo = NULL;
  guint64 sum = 0;
  if (!mdl_spec_split (spec, &name, &assigns, &error) || !(algo = mdl_algo_lookup (name, &error))
      || !(params = mdl_params_parse (name, algo->params, (const char *const *) assigns, &error))
      || !algo->run_native (params, n, seed, NULL, &sum, &error))
    fail_msg ("%s n=%" G_GUINT64_FORMAT " seed=%" G_GUINT64_FORMAT ": %s", spec, n, seed,
              error->message);
  return sum;
}

/* The text of @bytes; an empty stream's bytes have no data pointer, and give "". */
static char *
bytes_text (GBytes *bytes)
{
  gsize len = g_bytes_get_size (bytes);
  return len ? g_strndup (g_bytes_get_data (bytes, NULL), len) : g_strdup ("");
}

int
test_spawn (const char *const *argv, const char *input, char **out, char **err)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_autoptr (GSubprocess) proc = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) in = g_bytes_new (input ? input : "", input ? strlen (input) : 0);
  g_autoptr (GBytes) out_bytes = NULL, err_bytes = NULL;
  const char *bin = g_getenv ("MODELS_BIN");
  for (const char *const *a = argv; *a; a++)
    g_ptr_array_add (args, (gpointer) (a == argv && strcmp (*a, "models") == 0
                                       ? (bin && *bin ? bin : "build/bin/models") : *a));
  g_ptr_array_add (args, NULL);
  proc = g_subprocess_newv ((const char *const *) args->pdata,
                            G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                              | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  if (proc == NULL || !g_subprocess_communicate (proc, in, NULL, &out_bytes, &err_bytes, &error))
    fail_msg ("cannot run %s: %s", (const char *) args->pdata[0], error->message);
  if (out)
    *out = bytes_text (out_bytes);
  if (err)
    *err = bytes_text (err_bytes);
  return g_subprocess_get_if_exited (proc) ? g_subprocess_get_exit_status (proc) : -1;
}

GPtrArray *
test_models_commands (void)
{
  const char *const argv[] = { "models", "--help", NULL };
  g_autofree char *out = NULL;
  g_auto (GStrv) lines = NULL;
  GPtrArray *commands = g_ptr_array_new_with_free_func (g_free);
  gboolean in_commands = FALSE;
  if (test_spawn (argv, NULL, &out, NULL) != 0)
    fail_msg ("models --help failed");
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strcmp (lines[i], "Commands:") == 0)
      in_commands = TRUE;
    else if (in_commands && g_str_has_prefix (lines[i], "  "))
      g_ptr_array_add (commands, g_strndup (lines[i] + 2, strcspn (lines[i] + 2, " ")));
    else
      in_commands = FALSE;
  return commands;
}

int
test_run_models (const char *const *env, const char *const *args, char **out, char **err)
{
  const char *bin = g_getenv ("MODELS_BIN") ? g_getenv ("MODELS_BIN") : "build/bin/models";
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  int status = -1;
  g_ptr_array_add (argv, (gpointer) bin);
  for (const char *const *a = args; *a; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, (char **) env, G_SPAWN_DEFAULT, NULL, NULL, out,
                     err, &status, NULL))
    return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}
