/* A sweep's grid (include/models/sweep.h): what was added, the sweep file that holds it, and its
 * expansion into sources (algorithm runs and trace files) and configurations. The plan is sorted
 * by (source name, n, seed, engine spec), the order of the exported table, so that a shard (a
 * contiguous run of it) is the same set on every machine and keeps the configurations of one
 * source together. */
#include "experiments/sweep-private.h"

#include <glib/gstdio.h>
#include <models/engine.h>
#include <models/error.h>
#include <string.h>
#include <sys/stat.h>

struct MdlSweep {
  GPtrArray *algos;     /* grids, char * */
  GPtrArray *traces;    /* trace file paths, char * */
  GPtrArray *engines;   /* grids, char * */
  GPtrArray *sizes;     /* value lists, char * */
  GPtrArray *seeds;     /* value lists, char * */
  char *machine;
  char *runner;         /* the `models` program that records sources, or NULL */
  guint shard_index;
  guint shard_count;    /* 0: the whole grid */
};

#define GROUP "sweep"
#define TRACE_PREFIX "trace:"   /* a source that is a trace file: "trace:PATH" */

MdlSweep *
mdl_sweep_new (void)
{
  MdlSweep *s = g_new0 (MdlSweep, 1);
  s->algos = g_ptr_array_new_with_free_func (g_free);
  s->traces = g_ptr_array_new_with_free_func (g_free);
  s->engines = g_ptr_array_new_with_free_func (g_free);
  s->sizes = g_ptr_array_new_with_free_func (g_free);
  s->seeds = g_ptr_array_new_with_free_func (g_free);
  return s;
}

void
mdl_sweep_free (MdlSweep *sweep)
{
  if (sweep == NULL)
    return;
  g_ptr_array_unref (sweep->algos);
  g_ptr_array_unref (sweep->traces);
  g_ptr_array_unref (sweep->engines);
  g_ptr_array_unref (sweep->sizes);
  g_ptr_array_unref (sweep->seeds);
  g_free (sweep->machine);
  g_free (sweep->runner);
  g_free (sweep);
}

void
mdl_sweep_add_algo (MdlSweep *sweep, const char *grid)
{
  g_ptr_array_add (sweep->algos, g_strdup (grid));
}

void
mdl_sweep_add_trace (MdlSweep *sweep, const char *path)
{
  g_ptr_array_add (sweep->traces, g_strdup (path));
}

void
mdl_sweep_add_engine (MdlSweep *sweep, const char *grid)
{
  g_ptr_array_add (sweep->engines, g_strdup (grid));
}

void
mdl_sweep_add_sizes (MdlSweep *sweep, const char *values)
{
  g_ptr_array_add (sweep->sizes, g_strdup (values));
}

void
mdl_sweep_add_seeds (MdlSweep *sweep, const char *values)
{
  g_ptr_array_add (sweep->seeds, g_strdup (values));
}

void
mdl_sweep_set_machine (MdlSweep *sweep, const char *machine)
{
  g_free (sweep->machine);
  sweep->machine = g_strdup (machine);
}

void
mdl_sweep_set_runner (MdlSweep *sweep, const char *runner)
{
  g_free (sweep->runner);
  sweep->runner = g_strdup (runner);
}

gboolean
mdl_sweep_set_shard (MdlSweep *sweep, guint index, guint count, GError **error)
{
  if (index >= count)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sweep: shard %u/%u: expected I/K with "
                   "I < K", index, count);
      return FALSE;
    }
  sweep->shard_index = index;
  sweep->shard_count = count;
  return TRUE;
}

/* Adds each item of the list @key of @kf (absent: nothing) with @add. */
static void
load_list (GKeyFile *kf, const char *key, MdlSweep *sweep, void (*add) (MdlSweep *, const char *))
{
  g_auto (GStrv) items = g_key_file_get_string_list (kf, GROUP, key, NULL, NULL);
  for (char **i = items; i && *i; i++)
    {
      g_strstrip (*i);
      if (**i)
        add (sweep, *i);
    }
}

MdlSweep *
mdl_sweep_load (const char *path, GError **error)
{
  static const char *const known[] = { "algos", "traces", "engines", "n", "seeds", "machine",
                                       "shard", NULL };
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (MdlSweep) sweep = mdl_sweep_new ();
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) keys = NULL;
  g_autofree char *machine = NULL, *shard = NULL;
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local))
    {
      g_set_error (error, MDL_ERROR, local->domain == G_FILE_ERROR ? MDL_ERROR_IO
                                                                 : MDL_ERROR_FORMAT,
                   "%s: %s", path, local->message);
      return NULL;
    }
  keys = g_key_file_get_keys (kf, GROUP, NULL, NULL);
  if (keys == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: no group [" GROUP "]", path);
      return NULL;
    }
  for (char **k = keys; *k; k++)
    if (!g_strv_contains (known, *k))
      {
        g_autofree char *valid = g_strjoinv (", ", (char **) known);
        g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: [" GROUP "]: unknown key \"%s\" "
                     "(valid: %s)", path, *k, valid);
        return NULL;
      }
  load_list (kf, "algos", sweep, mdl_sweep_add_algo);
  load_list (kf, "traces", sweep, mdl_sweep_add_trace);
  load_list (kf, "engines", sweep, mdl_sweep_add_engine);
  load_list (kf, "n", sweep, mdl_sweep_add_sizes);
  load_list (kf, "seeds", sweep, mdl_sweep_add_seeds);
  machine = g_key_file_get_string (kf, GROUP, "machine", NULL);
  if (machine && *g_strstrip (machine))
    mdl_sweep_set_machine (sweep, machine);
  shard = g_key_file_get_string (kf, GROUP, "shard", NULL);
  if (shard)
    {
      guint64 index, count;
      g_auto (GStrv) parts = g_strsplit (g_strstrip (shard), "/", 2);
      if (g_strv_length (parts) != 2
          || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT, &index, NULL)
          || !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT, &count, NULL)
          || !mdl_sweep_set_shard (sweep, (guint) index, (guint) count, NULL))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: [" GROUP "]: shard=%s: expected "
                       "I/K with I < K (shard I of K, from 0)", path, shard);
          return NULL;
        }
    }
  return g_steal_pointer (&sweep);
}

static void
save_list (GKeyFile *kf, const char *key, GPtrArray *items)
{
  if (items->len > 0)
    g_key_file_set_string_list (kf, GROUP, key, (const char *const *) items->pdata, items->len);
}

gboolean
mdl_sweep_save (const MdlSweep *sweep, const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  save_list (kf, "algos", sweep->algos);
  save_list (kf, "traces", sweep->traces);
  save_list (kf, "n", sweep->sizes);
  save_list (kf, "seeds", sweep->seeds);
  save_list (kf, "engines", sweep->engines);
  if (sweep->machine)
    g_key_file_set_string (kf, GROUP, "machine", sweep->machine);
  if (sweep->shard_count > 0)
    {
      g_autofree char *shard = g_strdup_printf ("%u/%u", sweep->shard_index, sweep->shard_count);
      g_key_file_set_string (kf, GROUP, "shard", shard);
    }
  if (!g_key_file_save_to_file (kf, path, &local))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: %s", path, local->message);
      return FALSE;
    }
  return TRUE;
}

static void
source_free (SweepSource *s)
{
  if (s == NULL)
    return;
  mdl_params_free (s->params);
  g_free (s->name);
  g_free (s);
}

static void
config_free (SweepConfig *c)
{
  if (c == NULL)
    return;
  g_free (c->key);
  g_free (c->spec);
  g_free (c);
}

void
mdl_sweep_plan_free (SweepPlan *plan)
{
  if (plan == NULL)
    return;
  g_ptr_array_unref (plan->sources);
  g_ptr_array_unref (plan->configs);
  g_free (plan->machine);
  g_free (plan->runner);
  g_free (plan);
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Export order of sources: name (byte order, as SQLite's), then n, then seed. */
static gint
compare_sources (gconstpointer a, gconstpointer b)
{
  const SweepSource *x = *(SweepSource *const *) a, *y = *(SweepSource *const *) b;
  int by_name = strcmp (x->name, y->name);
  if (by_name != 0)
    return by_name;
  if (x->n != y->n)
    return x->n < y->n ? -1 : 1;
  return x->seed < y->seed ? -1 : x->seed > y->seed;
}

/* Every value of the value lists @lists, in order; @fallback when there are none. (The sources
 * made of them are sorted and deduplicated.) */
static GArray *
values_of (GPtrArray *lists, const char *key, guint64 fallback, GError **error)
{
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < lists->len; i++)
    if (!mdl_sweep_values_expand ("sweep", key, g_ptr_array_index (lists, i), values, error))
      return NULL;
  if (values->len == 0)
    g_array_append_val (values, fallback);
  return g_steal_pointer (&values);
}

/* The normalized specs of every grid in @grids, deduplicated and sorted; @check turns a spec
 * into its normalized form or fails. */
static GPtrArray *
specs_of (GPtrArray *grids, char *(*check) (const char *spec, const char *machine, GError **),
          const char *machine, GError **error)
{
  g_autoptr (GPtrArray) specs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *unique = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < grids->len; i++)
    if (!mdl_sweep_grid_expand (g_ptr_array_index (grids, i), specs, error))
      goto fail;
  for (guint i = 0; i < specs->len; i++)
    {
      char *normal = check (g_ptr_array_index (specs, i), machine, error);
      if (normal == NULL)
        goto fail;
      if (g_hash_table_add (seen, normal))
        g_ptr_array_add (unique, normal);
      else
        g_free (normal);
    }
  g_ptr_array_sort (unique, compare_strings);
  return unique;
fail:
  g_ptr_array_unref (unique);
  return NULL;
}

static char *
engine_normalized (const char *spec, const char *machine, GError **error)
{
  g_autoptr (MdlEngine) e = mdl_engine_new_on (spec, machine, error);
  return e ? g_strdup (mdl_engine_spec (e)) : NULL;
}

static char *
algo_normalized (const char *spec, const char *machine, GError **error)
{
  g_autofree char *name = NULL, *params_text = NULL;
  g_auto (GStrv) assignments = NULL;
  g_autoptr (MdlParams) params = NULL;
  const MdlAlgo *algo;
  (void) machine;
  if (!mdl_spec_split (spec, &name, &assignments, error)
      || !(algo = mdl_algo_lookup (name, error))
      || !(params = mdl_params_parse (algo->name, algo->params, (const char *const *) assignments,
                                      error)))
    return NULL;
  params_text = mdl_params_normalized (params);
  return g_strdup_printf ("%s%s%s", algo->name, *params_text ? ":" : "", params_text);
}

static SweepSource *
source_new (const char *name, guint64 n, guint64 seed, GError **error)
{
  g_autofree char *algo_name = NULL;
  g_auto (GStrv) assignments = NULL;
  SweepSource *s = g_new0 (SweepSource, 1);
  s->name = g_strdup (name);
  s->n = n;
  s->seed = seed;
  if (g_str_has_prefix (name, TRACE_PREFIX))
    {
      s->trace = s->name + strlen (TRACE_PREFIX);
      return s;
    }
  /* @name is normalized already: this parse cannot fail where algo_normalized() succeeded. */
  if (!mdl_spec_split (name, &algo_name, &assignments, error)
      || !(s->algo = mdl_algo_lookup (algo_name, error))
      || !(s->params = mdl_params_parse (s->algo->name, s->algo->params,
                                         (const char *const *) assignments, error)))
    {
      source_free (s);
      return NULL;
    }
  return s;
}

/* Appends the sources of the grid to @sources in export order (name, n, seed): each algorithm
 * at every size and seed, each trace once with n its size in bytes (so that a trace rewritten
 * with other content of another size is a new source) and seed 0. */
static gboolean
sources_of (MdlSweep *sweep, GPtrArray *sources, GError **error)
{
  g_autoptr (GPtrArray) algos = NULL;
  g_autoptr (GArray) sizes = NULL, seeds = NULL;
  if (!(algos = specs_of (sweep->algos, algo_normalized, NULL, error))
      || !(sizes = values_of (sweep->sizes, "n", (guint64) 1 << 20, error))
      || !(seeds = values_of (sweep->seeds, "seed", 1, error)))
    return FALSE;
  for (guint t = 0; t < sweep->traces->len; t++)
    {
      const char *path = g_ptr_array_index (sweep->traces, t);
      g_autofree char *name = g_strdup_printf (TRACE_PREFIX "%s", path);
      GStatBuf st;
      if (g_stat (path, &st) != 0 || !S_ISREG (st.st_mode))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: not a readable trace file", path);
          return FALSE;
        }
      g_ptr_array_add (sources, source_new (name, (guint64) st.st_size, 0, error));
    }
  for (guint a = 0; a < algos->len; a++)
    for (guint i = 0; i < sizes->len; i++)
      for (guint j = 0; j < seeds->len; j++)
        {
          SweepSource *src = source_new (g_ptr_array_index (algos, a),
                                         g_array_index (sizes, guint64, i),
                                         g_array_index (seeds, guint64, j), error);
          if (src == NULL)
            return FALSE;
          g_ptr_array_add (sources, src);
        }
  /* A trace or a size named twice is one source, as a spec written twice is one spec. */
  g_ptr_array_sort (sources, compare_sources);
  for (guint i = 1; i < sources->len; i++)
    if (compare_sources (&sources->pdata[i - 1], &sources->pdata[i]) == 0)
      g_ptr_array_remove_index (sources, i--);
  return TRUE;
}

SweepPlan *
mdl_sweep_plan (MdlSweep *sweep, GError **error)
{
  g_autoptr (SweepPlan) plan = g_new0 (SweepPlan, 1);
  g_autoptr (GPtrArray) engines = NULL, sources = NULL;
  guint64 total, first, last, k = 0;

  plan->sources = g_ptr_array_new_with_free_func ((GDestroyNotify) source_free);
  plan->configs = g_ptr_array_new_with_free_func ((GDestroyNotify) config_free);
  plan->machine = g_strdup (sweep->machine);
  plan->runner = g_strdup (sweep->runner);
  if (sweep->algos->len + sweep->traces->len == 0 || sweep->engines->len == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "sweep: the grid needs at least one %s",
                   sweep->engines->len > 0 ? "algorithm or trace" : "engine spec");
      return NULL;
    }
  sources = g_ptr_array_new_with_free_func ((GDestroyNotify) source_free);
  if (!(engines = specs_of (sweep->engines, engine_normalized, sweep->machine, error))
      || !sources_of (sweep, sources, error))
    return NULL;

  /* Every configuration in export order (source, then spec); the shard keeps a slice of it, and
   * the plan the sources of that slice. */
  total = (guint64) sources->len * engines->len;
  first = 0, last = total;
  if (sweep->shard_count > 0)
    {
      first = total * sweep->shard_index / sweep->shard_count;
      last = total * (sweep->shard_index + 1) / sweep->shard_count;
    }
  for (guint i = 0; i < sources->len; i++)
    {
      SweepSource *src = g_ptr_array_index (sources, i);
      gboolean used = FALSE;
      for (guint e = 0; e < engines->len; e++, k++)
        {
          SweepConfig *c;
          if (k < first || k >= last)
            continue;
          c = g_new0 (SweepConfig, 1);
          c->spec = g_strdup (g_ptr_array_index (engines, e));
          c->source = plan->sources->len;
          c->key = g_strdup_printf ("%s|%" G_GUINT64_FORMAT "|%" G_GUINT64_FORMAT "|%s|%s",
                                    src->name, src->n, src->seed, c->spec, MDL_VERSION_STRING);
          g_ptr_array_add (plan->configs, c);
          used = TRUE;
        }
      if (used)
        {
          g_ptr_array_add (plan->sources, src);
          sources->pdata[i] = NULL;   /* moved into the plan */
        }
    }
  return g_steal_pointer (&plan);
}

guint
mdl_sweep_count (MdlSweep *sweep, guint *n_sources, GError **error)
{
  g_autoptr (SweepPlan) plan = mdl_sweep_plan (sweep, error);
  if (plan == NULL)
    return 0;
  if (n_sources)
    *n_sources = plan->sources->len;
  return plan->configs->len;
}

gboolean
mdl_sweep_run (MdlSweep *sweep, const char *db_path, guint n_threads,
               MdlSweepProgressFunc progress, void *data, MdlSweepProgress *stats, GError **error)
{
  g_autoptr (SweepPlan) plan = NULL;
  g_autoptr (GHashTable) done = NULL;
  sqlite3 *db;
  gboolean ok;
  g_return_val_if_fail (sweep != NULL && db_path != NULL && n_threads >= 1, FALSE);
  plan = mdl_sweep_plan (sweep, error);
  if (plan == NULL || !(db = mdl_sweep_db_open (db_path, TRUE, error)))
    return FALSE;
  done = mdl_sweep_db_done (db, db_path, error);
  ok = done && mdl_sweep_run_plan (plan, done, db, db_path, n_threads, progress, data, stats,
                                   error);
  mdl_sweep_db_close (db);
  return ok;
}
