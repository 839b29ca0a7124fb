/* The sweep table in SQLite: one row per configuration in `configs`, its counters in `counters`
 * (one row each, so that `SELECT ... WHERE name = 'tc_misses'` needs no JSON). Counts are
 * 64-bit unsigned and SQLite's integers signed: they are stored as the same 64 bits and read back
 * as unsigned. A NaN real (not applicable) is stored as NULL. The schema's version is
 * `PRAGMA user_version`, so a file from another schema is refused rather than misread. Version 2
 * added each configuration's timeline (the report's time, when and on which worker its recording
 * and its replay ran); a version 1 file is brought up to it when opened for writing (its old rows
 * get NULL times) and read as it is otherwise. Only the writer thread of a run touches its
 * connection. */
#include "experiments/sweep-private.h"

#include "core/dtoa.h"
#include "core/json.h"

#include <math.h>
#include <models/error.h>
#include <string.h>

#define SCHEMA_VERSION 2

/* Version 1, then what version 2 adds. */
static const char schema[] =
  "CREATE TABLE IF NOT EXISTS configs ("
  " key TEXT PRIMARY KEY, algo TEXT NOT NULL, n INTEGER NOT NULL, seed INTEGER NOT NULL,"
  " spec TEXT NOT NULL, engine TEXT NOT NULL, version TEXT NOT NULL, events INTEGER NOT NULL,"
  " source_seconds REAL NOT NULL, engine_seconds REAL NOT NULL);"
  "CREATE TABLE IF NOT EXISTS counters ("
  " key TEXT NOT NULL REFERENCES configs (key), position INTEGER NOT NULL, name TEXT NOT NULL,"
  " unit TEXT NOT NULL, is_real INTEGER NOT NULL, count INTEGER, real REAL,"
  " PRIMARY KEY (key, name));"
  "PRAGMA user_version = 1;";
static const char schema_2[] =
  "ALTER TABLE configs ADD COLUMN report_seconds REAL;"
  "ALTER TABLE configs ADD COLUMN source_start REAL;"
  "ALTER TABLE configs ADD COLUMN source_end REAL;"
  "ALTER TABLE configs ADD COLUMN source_thread INTEGER;"
  "ALTER TABLE configs ADD COLUMN engine_start REAL;"
  "ALTER TABLE configs ADD COLUMN engine_end REAL;"
  "ALTER TABLE configs ADD COLUMN engine_thread INTEGER;"
  "PRAGMA user_version = 2;";

/* The columns of `configs` in each version, for copying rows between files. */
#define COLUMNS_1 "key, algo, n, seed, spec, engine, version, events, source_seconds, engine_seconds"
#define COLUMNS_2 COLUMNS_1 ", report_seconds, source_start, source_end, source_thread, " \
                  "engine_start, engine_end, engine_thread"

/* Sets MDL_ERROR_IO (MDL_ERROR_FORMAT for a file that is not a database) with SQLite's words. */
static gboolean
db_fail (sqlite3 *db, const char *path, const char *what, GError **error)
{
  int code = sqlite3_errcode (db);
  g_set_error (error, MDL_ERROR, code == SQLITE_NOTADB ? MDL_ERROR_FORMAT : MDL_ERROR_IO,
               "%s: %s: %s", path, what, sqlite3_errmsg (db));
  return FALSE;
}

static gboolean
exec (sqlite3 *db, const char *path, const char *sql, GError **error)
{
  return sqlite3_exec (db, sql, NULL, NULL, NULL) == SQLITE_OK
         || db_fail (db, path, "cannot write", error);
}

void
mdl_sweep_db_close (sqlite3 *db)
{
  sqlite3_close (db);
}

/* The schema version of @schema_name ("main", or an attached name). */
static gboolean
user_version (sqlite3 *db, const char *path, const char *schema_name, int *version,
              GError **error)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA %s.user_version", schema_name);
  sqlite3_stmt *st = NULL;
  gboolean ok = sqlite3_prepare_v2 (db, sql, -1, &st, NULL) == SQLITE_OK
                && sqlite3_step (st) == SQLITE_ROW;
  if (ok)
    *version = sqlite3_column_int (st, 0);
  sqlite3_finalize (st);
  return ok || db_fail (db, path, "cannot read", error);
}

sqlite3 *
mdl_sweep_db_open (const char *path, gboolean create, GError **error)
{
  sqlite3 *db = NULL;
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  int version = 0;
  if (!create && !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: no such file", path);
      return NULL;
    }
  if (sqlite3_open_v2 (path, &db, flags, NULL) != SQLITE_OK)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot open: %s", path,
                   db ? sqlite3_errmsg (db) : "out of memory");
      sqlite3_close (db);
      return NULL;
    }
  /* A busy file (another sweep writing it) is waited for a while rather than failed at once. */
  sqlite3_busy_timeout (db, 10000);
  if (!user_version (db, path, "main", &version, error))
    goto fail;
  if (create && version == 0)
    {
      if (!exec (db, path, schema, error))
        goto fail;
      version = 1;
    }
  if (create && version == 1)
    {
      if (!exec (db, path, "BEGIN IMMEDIATE", error))
        goto fail;
      if (!exec (db, path, schema_2, error))
        {
          sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
          goto fail;
        }
      if (!exec (db, path, "COMMIT", error))
        goto fail;
      version = 2;
    }
  if (version != SCHEMA_VERSION && (version != 1 || create))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: not a sweep table of this version "
                   "(schema %d, expected %d)", path, version, SCHEMA_VERSION);
      goto fail;
    }
  return db;
fail:
  sqlite3_close (db);
  return NULL;
}

GHashTable *
mdl_sweep_db_done (sqlite3 *db, const char *path, GError **error)
{
  g_autoptr (GHashTable) done = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *st = NULL;
  int rc;
  if (sqlite3_prepare_v2 (db, "SELECT key FROM configs", -1, &st, NULL) != SQLITE_OK)
    {
      db_fail (db, path, "cannot read", error);
      return NULL;
    }
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    g_hash_table_add (done, g_strdup ((const char *) sqlite3_column_text (st, 0)));
  sqlite3_finalize (st);
  if (rc != SQLITE_DONE)
    {
      db_fail (db, path, "cannot read", error);
      return NULL;
    }
  return g_steal_pointer (&done);
}

static gboolean
insert_result (sqlite3_stmt *config, sqlite3_stmt *counter, const SweepResult *r)
{
  const SweepConfig *c = r->config;
  MdlReport *report = r->report;
  sqlite3_reset (config);
  sqlite3_bind_text (config, 1, c->key, -1, SQLITE_STATIC);
  sqlite3_bind_text (config, 2, r->source->name, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (config, 3, (sqlite3_int64) r->source->n);
  sqlite3_bind_int64 (config, 4, (sqlite3_int64) r->source->seed);
  sqlite3_bind_text (config, 5, c->spec, -1, SQLITE_STATIC);
  sqlite3_bind_text (config, 6, mdl_report_engine (report), -1, SQLITE_STATIC);
  sqlite3_bind_text (config, 7, MDL_VERSION_STRING, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (config, 8, (sqlite3_int64) r->events);
  sqlite3_bind_double (config, 9, r->source_seconds);
  sqlite3_bind_double (config, 10, r->engine_seconds);
  sqlite3_bind_double (config, 11, r->report_seconds);
  sqlite3_bind_double (config, 12, r->source_span.start);
  sqlite3_bind_double (config, 13, r->source_span.end);
  sqlite3_bind_int (config, 14, (int) r->source_span.thread);
  sqlite3_bind_double (config, 15, r->engine_span.start);
  sqlite3_bind_double (config, 16, r->engine_span.end);
  sqlite3_bind_int (config, 17, (int) r->engine_span.thread);
  if (sqlite3_step (config) != SQLITE_DONE)
    return FALSE;
  for (guint i = 0; i < mdl_report_n_counters (report); i++)
    {
      const MdlCounter *k = mdl_report_counter (report, i);
      sqlite3_reset (counter);
      sqlite3_bind_text (counter, 1, c->key, -1, SQLITE_STATIC);
      sqlite3_bind_int (counter, 2, (int) i);
      sqlite3_bind_text (counter, 3, k->name, -1, SQLITE_STATIC);
      sqlite3_bind_text (counter, 4, k->unit, -1, SQLITE_STATIC);
      sqlite3_bind_int (counter, 5, k->is_real);
      if (k->is_real)
        {
          sqlite3_bind_null (counter, 6);
          if (isfinite (k->real))
            sqlite3_bind_double (counter, 7, k->real);
          else
            sqlite3_bind_null (counter, 7);
        }
      else
        {
          sqlite3_bind_int64 (counter, 6, (sqlite3_int64) k->count);
          sqlite3_bind_null (counter, 7);
        }
      if (sqlite3_step (counter) != SQLITE_DONE)
        return FALSE;
    }
  return TRUE;
}

gboolean
mdl_sweep_db_write (sqlite3 *db, const char *path, GPtrArray *results, GError **error)
{
  sqlite3_stmt *config = NULL, *counter = NULL;
  gboolean ok;
  if (!exec (db, path, "BEGIN IMMEDIATE", error))
    return FALSE;
  ok = sqlite3_prepare_v2 (db, "INSERT INTO configs (" COLUMNS_2 ") "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &config,
                           NULL) == SQLITE_OK
       && sqlite3_prepare_v2 (db, "INSERT INTO counters VALUES (?,?,?,?,?,?,?)", -1, &counter,
                              NULL) == SQLITE_OK;
  for (guint i = 0; ok && i < results->len; i++)
    ok = insert_result (config, counter, g_ptr_array_index (results, i));
  if (!ok)
    db_fail (db, path, "cannot write", error);
  sqlite3_finalize (config);
  sqlite3_finalize (counter);
  if (!ok)
    {
      sqlite3_exec (db, "ROLLBACK", NULL, NULL, NULL);
      return FALSE;
    }
  return exec (db, path, "COMMIT", error);
}

/* ---- export ---- */

/* Appends the value of the counter row at column 2 (is_real), 3 (count), 4 (real). */
static void
value_text (GString *out, sqlite3_stmt *st, const char *null_text)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!sqlite3_column_int (st, 2))
    g_string_append_printf (out, "%" G_GUINT64_FORMAT, (guint64) sqlite3_column_int64 (st, 3));
  else if (sqlite3_column_type (st, 4) == SQLITE_NULL)
    g_string_append (out, null_text);
  else
    g_string_append (out, mdl_dtoa_shortest (sqlite3_column_double (st, 4), buf));
}

/* The times --times exports, from column 6 of the export's query on: the recording's and the
 * engine's seconds, then the timeline (seconds since the sweep's start, worker numbers). */
static const char *const time_columns[] = {
  "source_seconds", "engine_seconds", "report_seconds", "source_start", "source_end",
  "source_thread", "engine_start", "engine_end", "engine_thread", NULL
};

/* Appends the configuration row's times: JSON members, or CSV fields (NULL, from a version 1
 * table, is null or empty). */
static void
times_text (GString *out, sqlite3_stmt *cfg, MdlFormat format)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int i = 0; time_columns[i]; i++)
    {
      int type = sqlite3_column_type (cfg, 6 + i);
      if (format == MDL_FORMAT_JSON)
        g_string_append_printf (out, ", \"%s\": ", time_columns[i]);
      else
        g_string_append_c (out, ',');
      if (type == SQLITE_NULL)
        g_string_append (out, format == MDL_FORMAT_JSON ? "null" : "");
      else if (type == SQLITE_INTEGER)
        g_string_append_printf (out, "%d", sqlite3_column_int (cfg, 6 + i));
      else
        g_string_append (out, mdl_dtoa_shortest (sqlite3_column_double (cfg, 6 + i), buf));
    }
}

/* One configuration (the row of @cfg) and its counters (@ctr, bound to its key here). */
static gboolean
export_config (GString *out, MdlFormat format, gboolean with_times, gboolean first,
               sqlite3_stmt *cfg, sqlite3_stmt *ctr)
{
  const char *algo = (const char *) sqlite3_column_text (cfg, 1);
  const char *spec = (const char *) sqlite3_column_text (cfg, 4);
  guint64 n = (guint64) sqlite3_column_int64 (cfg, 2), seed = (guint64) sqlite3_column_int64 (cfg, 3);
  int rc;
  sqlite3_reset (ctr);
  sqlite3_bind_text (ctr, 1, (const char *) sqlite3_column_text (cfg, 0), -1, SQLITE_TRANSIENT);
  if (format == MDL_FORMAT_JSON)
    {
      g_string_append (out, first ? "[\n  {\"algo\": " : ",\n  {\"algo\": ");
      mdl_json_string (out, algo);
      g_string_append_printf (out, ", \"n\": %" G_GUINT64_FORMAT ", \"seed\": %" G_GUINT64_FORMAT
                              ", \"spec\": ", n, seed);
      mdl_json_string (out, spec);
      g_string_append_printf (out, ", \"events\": %" G_GUINT64_FORMAT,
                              (guint64) sqlite3_column_int64 (cfg, 5));
      if (with_times)
        times_text (out, cfg, format);
      g_string_append (out, ", \"counters\": {");
    }
  for (guint i = 0; (rc = sqlite3_step (ctr)) == SQLITE_ROW; i++)
    {
      const char *name = (const char *) sqlite3_column_text (ctr, 0);
      if (format == MDL_FORMAT_JSON)
        {
          g_string_append (out, i ? ", " : "");
          mdl_json_string (out, name);
          g_string_append (out, ": ");
          value_text (out, ctr, "null");
          continue;
        }
      mdl_csv_append_field (out, algo);
      g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",", n, seed);
      mdl_csv_append_field (out, spec);
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, name);
      g_string_append_c (out, ',');
      value_text (out, ctr, "");
      g_string_append_c (out, ',');
      mdl_csv_append_field (out, (const char *) sqlite3_column_text (ctr, 1));
      if (with_times)
        times_text (out, cfg, format);
      g_string_append_c (out, '\n');
    }
  if (format == MDL_FORMAT_JSON)
    g_string_append (out, "}}");
  return rc == SQLITE_DONE;
}

gboolean
mdl_sweep_export (const char *db_path, MdlFormat format, gboolean with_times, GString *out,
                  GError **error)
{
  sqlite3 *db;
  sqlite3_stmt *cfg = NULL, *ctr = NULL;
  g_autofree char *select = NULL;
  gboolean ok, first = TRUE;
  int rc = SQLITE_DONE, version;
  if (format == MDL_FORMAT_TABLE)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_UNSUPPORTED, "%s: a sweep table exports as csv or "
                   "json", db_path);
      return FALSE;
    }
  if (!(db = mdl_sweep_db_open (db_path, FALSE, error)))
    return FALSE;
  if (!user_version (db, db_path, "main", &version, error))
    {
      sqlite3_close (db);
      return FALSE;
    }
  /* In the order of time_columns; a version 1 table has no timeline. */
  select = g_strdup_printf ("SELECT key, algo, n, seed, spec, events, source_seconds, "
                            "engine_seconds, %s FROM configs ORDER BY algo, n, seed, spec",
                            version == 1 ? "NULL, NULL, NULL, NULL, NULL, NULL, NULL"
                                         : "report_seconds, source_start, source_end, "
                                           "source_thread, engine_start, engine_end, "
                                           "engine_thread");
  ok = sqlite3_prepare_v2 (db, select, -1, &cfg, NULL) == SQLITE_OK
       && sqlite3_prepare_v2 (db, "SELECT name, unit, is_real, count, real FROM counters "
                              "WHERE key = ? ORDER BY position", -1, &ctr, NULL) == SQLITE_OK;
  if (ok && format == MDL_FORMAT_CSV)
    {
      g_string_append (out, "algo,n,seed,spec,counter,value,unit");
      for (int i = 0; with_times && time_columns[i]; i++)
        g_string_append_printf (out, ",%s", time_columns[i]);
      g_string_append_c (out, '\n');
    }
  while (ok && (rc = sqlite3_step (cfg)) == SQLITE_ROW)
    {
      ok = export_config (out, format, with_times, first, cfg, ctr);
      first = FALSE;
    }
  ok = ok && rc == SQLITE_DONE;
  if (ok && format == MDL_FORMAT_JSON)
    g_string_append (out, first ? "[]\n" : "\n]\n");
  if (!ok)
    db_fail (db, db_path, "cannot read", error);
  sqlite3_finalize (cfg);
  sqlite3_finalize (ctr);
  sqlite3_close (db);
  return ok;
}

/* ---- merge ---- */

gboolean
mdl_sweep_merge (const char *out_path, const char *const *in_paths, GError **error)
{
  sqlite3 *out = mdl_sweep_db_open (out_path, TRUE, error);
  gboolean ok = out != NULL;
  for (const char *const *p = in_paths; ok && *p; p++)
    {
      /* Opened alone first: ATTACH would create a missing file and take a foreign one. */
      sqlite3 *in = mdl_sweep_db_open (*p, FALSE, error);
      const char *columns;
      char *sql;
      int version;
      ok = in && user_version (in, *p, "main", &version, error);
      sqlite3_close (in);
      if (!ok)
        break;
      /* A version 1 shard's rows come without their timeline. */
      columns = version == 1 ? COLUMNS_1 : COLUMNS_2;
      sql = sqlite3_mprintf ("ATTACH %Q AS shard;"
                             "BEGIN IMMEDIATE;"
                             "INSERT OR IGNORE INTO configs (%s) SELECT %s FROM shard.configs;"
                             "INSERT OR IGNORE INTO counters SELECT * FROM shard.counters;"
                             "COMMIT;"
                             "DETACH shard;", *p, columns, columns);
      ok = exec (out, *p, sql, error);
      sqlite3_free (sql);
    }
  sqlite3_close (out);
  return ok;
}
