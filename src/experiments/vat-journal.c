/* The VAT experiment's journal (vat-journal.h): one CSV file, rows appended and flushed as the
 * steps finish, so that nothing finished is lost when a run is cut (a time limit, a kill).
 *
 * Rows, by their first field:
 *   option,NAME,VALUE           the run's options; a resumed run must have the same
 *   machine,FINGERPRINT         where the timings are measured (CPU model and count)
 *   setup,KEY,VALUE...          what the counts depend on (cache sizes and ways, cache and tlb
 *                               specs, whether the huge series runs): a resumed run adopts them
 *   probe,NAME,VALUE...         the latency probe, run once per journal
 *   probe_end,VALUE...          the same probe again after the timed passes (since s10; the
 *                               two tell whether the host drifted while it timed)
 *   thp,ALGO,N,PAGES,PASS,ASKED,GRANTED...                 before the time row of a pass whose
 *                               arrays asked for 2 MiB pages: the bytes each repetition asked
 *                               for, and per repetition the bytes the kernel granted (since s8;
 *                               a pass without one ran on 4 KiB pages)
 *   time,ALGO,N,PAGES,PASS,PER_PASS,CHECKSUM,SECONDS...   one timing pass of a point
 *   columns,NAME...             the names of the counts rows that follow
 *   counts,ALGO,N,PAGES,CHECKSUM,VALUE...                 one point's instrumented counts
 * Times are written with 17 significant digits, so that a value read back is the one measured. A
 * counts row under a columns row that lacks a count this build has is not reused: the point is
 * counted again. */
#include "experiments/vat-journal.h"

#include <models/error.h>

#include "core/json.h"
#include "experiments/csv.h"
#include "experiments/host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The counts of a point, by name, as the journal stores them. */
#define COUNT(field) { #field, G_STRUCT_OFFSET (MdlVatPoint, field) }
static const struct {
  const char *name;
  glong offset;
} count_fields[] = {
  COUNT (ram_ops), COUNT (accesses), COUNT (tc_misses), COUNT (tc_misses_small),
  { "em_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, em_misses[0]) },
  { "em_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, em_misses[1]) },
  { "em_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, em_misses[2]) },
  COUNT (lines),
  { "cache_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, cache_misses[0]) },
  { "cache_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, cache_misses[1]) },
  { "cache_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, cache_misses[2]) },
  { "random_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, random_misses[0]) },
  { "random_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, random_misses[1]) },
  { "random_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, random_misses[2]) },
  COUNT (tlb_misses), COUNT (walks), COUNT (branches), COUNT (mispredicts),
  { "dependent_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, dependent_misses[0]) },
  { "dependent_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, dependent_misses[1]) },
  { "dependent_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, dependent_misses[2]) },
  COUNT (dependent_reads), COUNT (writes),
  { "random_write_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, random_write_misses[0]) },
  { "random_write_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, random_write_misses[1]) },
  { "random_write_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, random_write_misses[2]) },
  COUNT (warm_mispredicts), COUNT (chase_reads),
  { "chase_misses_l1", G_STRUCT_OFFSET (MdlVatPoint, chase_misses[0]) },
  { "chase_misses_l2", G_STRUCT_OFFSET (MdlVatPoint, chase_misses[1]) },
  { "chase_misses_l3", G_STRUCT_OFFSET (MdlVatPoint, chase_misses[2]) },
  COUNT (dependent_walks),
};
#undef COUNT
#define N_COUNTS G_N_ELEMENTS (count_fields)

typedef struct {
  guint64 checksum;
  guint64 values[N_COUNTS];
} Counts;

struct MdlVatJournal {
  char *path;
  FILE *file;
  gboolean resumed;
  char *machine;
  GString *options;     /* its option rows, "name=value\n" each */
  gboolean has_setup, has_probe, has_probe_end, columns_written;
  MdlVatJournalSetup setup;
  MdlProbe probe, probe_end;
  GHashTable *times;    /* "algo n pages pass" -> MdlVatJournalTime */
  GHashTable *thp;      /* the same keys -> a thp row's MdlVatJournalTime (no seconds) whose
                         * time row is still to come */
  GHashTable *counts;   /* "algo n pages" -> Counts */
  guint appended, stop_after;
};

char *
mdl_vat_journal_fingerprint (void)
{
  g_autofree char *cpu = mdl_host_cpu_model ();
  return g_strdup_printf ("%s, %u CPUs", cpu, g_get_num_processors ());
}

static const char *
pages_name (gboolean huge)
{
  return huge ? "huge" : "4k";
}

static char *
point_key (const char *algorithm, guint64 n, gboolean huge)
{
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT " %s", algorithm, n, pages_name (huge));
}

static void
time_free (gpointer data)
{
  MdlVatJournalTime *t = data;
  g_clear_pointer (&t->seconds, g_array_unref);
  g_clear_pointer (&t->huge_granted, g_array_unref);
  g_free (t);
}

void
mdl_vat_journal_setup_clear (MdlVatJournalSetup *setup)
{
  g_clear_pointer (&setup->cache_spec, g_free);
  g_clear_pointer (&setup->tlb_spec, g_free);
}

void
mdl_vat_journal_free (MdlVatJournal *j)
{
  if (j == NULL)
    return;
  if (j->file)
    fclose (j->file);
  g_free (j->path);
  g_free (j->machine);
  g_string_free (j->options, TRUE);
  mdl_vat_journal_setup_clear (&j->setup);
  g_hash_table_unref (j->times);
  g_hash_table_unref (j->thp);
  g_hash_table_unref (j->counts);
  g_free (j);
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct {
  MdlVatJournal *j;
  const MdlCsv *csv;
  guint row;
  GError **error;
} Reader;

static gboolean
bad_row (Reader *r, const char *what)
{
  g_set_error (r->error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%u: %s", r->j->path,
               mdl_csv_line (r->csv, r->row), what);
  return FALSE;
}

static gboolean
field_uint (Reader *r, GPtrArray *row, guint i, guint64 *out)
{
  const char *s = mdl_csv_field (row, i);
  char *end = NULL;
  g_autofree char *what = NULL;
  errno = 0;
  *out = g_ascii_strtoull (s, &end, 10);
  if (g_ascii_isdigit (*s) && end && *end == '\0' && errno == 0)   /* strtoull takes "-1" and " 1" */
    return TRUE;
  what = g_strdup_printf ("field %u: expected an unsigned integer, got \"%s\"", i + 1, s);
  return bad_row (r, what);
}

static gboolean
field_real (Reader *r, GPtrArray *row, guint i, double *out)
{
  const char *s = mdl_csv_field (row, i);
  char *end = NULL;
  g_autofree char *what = NULL;
  *out = g_ascii_strtod (s, &end);
  if (*s && end && *end == '\0')
    return TRUE;
  what = g_strdup_printf ("field %u: expected a number, got \"%s\"", i + 1, s);
  return bad_row (r, what);
}

static gboolean
field_pages (Reader *r, GPtrArray *row, guint i, gboolean *huge)
{
  const char *s = mdl_csv_field (row, i);
  if (strcmp (s, "4k") == 0 || strcmp (s, "huge") == 0)
    {
      *huge = s[0] == 'h';
      return TRUE;
    }
  return bad_row (r, "expected pages 4k or huge");
}

/* Compares the journal's option row with this run's @options; FALSE naming both values. */
static gboolean
check_option (Reader *r, GPtrArray *row, const char *options, GHashTable *seen)
{
  const char *name = mdl_csv_field (row, 1), *value = mdl_csv_field (row, 2);
  g_autofree char *prefix = g_strconcat (name, "=", NULL);
  g_auto (GStrv) lines = g_strsplit (options, "\n", -1);
  g_autofree char *what = NULL;
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        g_hash_table_add (seen, g_strdup (name));
        if (strcmp (lines[i] + strlen (prefix), value) == 0)
          return TRUE;
        what = g_strdup_printf ("the journal's option %s=%s differs from this run's %s (resume "
                                "with the options the journal was started with)", name, value,
                                lines[i]);
        break;
      }
  if (what == NULL)
    what = g_strdup_printf ("the journal has option %s, which this build does not know", name);
  g_set_error (r->error, MDL_ERROR, MDL_ERROR_PARAM, "%s:%u: %s", r->j->path,
               mdl_csv_line (r->csv, r->row), what);
  return FALSE;
}

static gboolean
read_setup (Reader *r, GPtrArray *row)
{
  MdlVatJournalSetup *s = &r->j->setup;
  const char *key = mdl_csv_field (row, 1);
  if (strcmp (key, "caches") == 0)
    {
      guint64 v[7];
      for (guint i = 0; i < 7; i++)
        if (!field_uint (r, row, i + 2, &v[i]))
          return FALSE;
      for (guint l = 0; l < 3; l++)
        {
          s->cache_bytes[l] = v[l];
          s->cache_assoc[l] = (guint) MIN (v[3 + l], 64);
        }
      s->huge_measured = v[6] != 0;
      r->j->has_setup = TRUE;
    }
  else if (strcmp (key, "cache_spec") == 0)
    g_free (s->cache_spec), s->cache_spec = g_strdup (mdl_csv_field (row, 2));
  else if (strcmp (key, "tlb_spec") == 0)
    g_free (s->tlb_spec), s->tlb_spec = g_strdup (mdl_csv_field (row, 2));
  else
    return bad_row (r, "unknown setup row (valid: caches, cache_spec, tlb_spec)");
  return TRUE;
}

static gboolean
read_probe (Reader *r, GPtrArray *row, MdlProbe *p)
{
  guint64 bytes;
  for (guint i = 0; i < 5; i++)
    if (!field_real (r, row, 1 + i, &p->chase_ns[i]) || !field_uint (r, row, 6 + i, &bytes)
        || !field_real (r, row, 11 + i, &p->random_ns[i]))
      return FALSE;
    else
      p->chase_bytes[i] = bytes;
  return field_real (r, row, 16, &p->stream_ns) && field_real (r, row, 17, &p->mispredict_ns);
}

static char *
time_key (const char *algorithm, guint64 n, gboolean huge, guint pass)
{
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT " %s %u", algorithm, n, pages_name (huge), pass);
}

static gboolean
read_thp (Reader *r, GPtrArray *row)
{
  g_autoptr (GArray) granted = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 n, pass, asked;
  gboolean huge;
  MdlVatJournalTime *t;
  if (!field_uint (r, row, 2, &n) || !field_pages (r, row, 3, &huge)
      || !field_uint (r, row, 4, &pass) || !field_uint (r, row, 5, &asked))
    return FALSE;
  for (guint i = 6; i < row->len; i++)
    {
      guint64 g;
      if (!field_uint (r, row, i, &g))
        return FALSE;
      g_array_append_val (granted, g);
    }
  if (asked == 0 || granted->len == 0)
    return bad_row (r, "a thp row needs the bytes asked (> 0) and what each repetition got");
  t = g_new0 (MdlVatJournalTime, 1);
  *t = (MdlVatJournalTime) { .pass = (guint) pass, .huge_asked = asked,
                             .huge_granted = g_steal_pointer (&granted) };
  g_hash_table_replace (r->j->thp, time_key (mdl_csv_field (row, 1), n, huge, t->pass), t);
  return TRUE;
}

static gboolean
read_time (Reader *r, GPtrArray *row)
{
  g_autoptr (GArray) seconds = g_array_new (FALSE, FALSE, sizeof (double));
  guint64 n, pass, per_pass, checksum;
  gboolean huge;
  MdlVatJournalTime *t;
  char *key;
  gpointer thp_key;
  if (!field_uint (r, row, 2, &n) || !field_pages (r, row, 3, &huge)
      || !field_uint (r, row, 4, &pass) || !field_uint (r, row, 5, &per_pass)
      || !field_uint (r, row, 6, &checksum))
    return FALSE;
  for (guint i = 7; i < row->len; i++)
    {
      double s;
      if (!field_real (r, row, i, &s))
        return FALSE;
      g_array_append_val (seconds, s);
    }
  if (seconds->len == 0 || seconds->len != per_pass)
    return bad_row (r, "a time row needs PER_PASS times");
  key = time_key (mdl_csv_field (row, 1), n, huge, (guint) pass);
  if (!g_hash_table_steal_extended (r->j->thp, key, &thp_key, (gpointer *) &t))
    t = g_new0 (MdlVatJournalTime, 1);
  else if (g_free (thp_key), t->huge_granted->len != per_pass)
    {
      time_free (t);
      g_free (key);
      return bad_row (r, "the thp row before a time row needs one grant per repetition");
    }
  t->pass = (guint) pass;
  t->per_pass = (guint) per_pass;
  t->checksum = checksum;
  t->seconds = g_steal_pointer (&seconds);
  g_hash_table_replace (r->j->times, g_steal_pointer (&key), t);
  return TRUE;
}

/* A counts row, read through the columns row before it: @column maps its fields to
 * count_fields (-1: a count this build does not have); a row under columns that lack one of this
 * build's counts is not kept. */
static gboolean
read_counts (Reader *r, GPtrArray *row, const GArray *column, gboolean complete)
{
  Counts *c;
  guint64 n;
  gboolean huge;
  if (column == NULL)
    return bad_row (r, "a counts row before any columns row");
  if (row->len != 5 + column->len)
    return bad_row (r, "a counts row has as many values as its columns row names");
  if (!field_uint (r, row, 2, &n) || !field_pages (r, row, 3, &huge))
    return FALSE;
  c = g_new0 (Counts, 1);
  if (!field_uint (r, row, 4, &c->checksum))
    return g_free (c), FALSE;
  for (guint i = 0; i < column->len; i++)
    {
      guint64 v;
      gint f = g_array_index (column, gint, i);
      if (!field_uint (r, row, 5 + i, &v))
        return g_free (c), FALSE;
      if (f >= 0)
        c->values[f] = v;
    }
  if (!complete)
    return g_free (c), TRUE;
  g_hash_table_replace (r->j->counts, point_key (mdl_csv_field (row, 1), n, huge), c);
  return TRUE;
}

static GArray *
read_columns (GPtrArray *row, gboolean *complete)
{
  GArray *column = g_array_new (FALSE, FALSE, sizeof (gint));
  guint found = 0;
  for (guint i = 1; i < row->len; i++)
    {
      gint f = -1;
      for (guint k = 0; k < N_COUNTS && f < 0; k++)
        if (strcmp (count_fields[k].name, mdl_csv_field (row, i)) == 0)
          f = (gint) k, found++;
      g_array_append_val (column, f);
    }
  *complete = found == N_COUNTS;
  return column;
}

static gboolean
read_rows (MdlVatJournal *j, const MdlCsv *csv, const char *options, GError **error)
{
  Reader r = { .j = j, .csv = csv, .error = error };
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GArray) column = NULL;
  g_auto (GStrv) lines = g_strsplit (options ? options : "", "\n", -1);
  gboolean complete = FALSE, ok = TRUE;
  for (r.row = 0; ok && r.row < csv->rows->len; r.row++)
    {
      GPtrArray *row = mdl_csv_row (csv, r.row);
      const char *kind = mdl_csv_field (row, 0);
      if (strcmp (kind, "option") == 0)
        {
          g_string_append_printf (j->options, "%s=%s\n", mdl_csv_field (row, 1),
                                  mdl_csv_field (row, 2));
          ok = options == NULL || check_option (&r, row, options, seen);
        }
      else if (strcmp (kind, "machine") == 0)
        g_free (j->machine), j->machine = g_strdup (mdl_csv_field (row, 1));
      else if (strcmp (kind, "setup") == 0)
        ok = read_setup (&r, row);
      else if (strcmp (kind, "probe") == 0)
        ok = j->has_probe = read_probe (&r, row, &j->probe);
      else if (strcmp (kind, "probe_end") == 0)
        ok = j->has_probe_end = read_probe (&r, row, &j->probe_end);
      else if (strcmp (kind, "thp") == 0)
        ok = read_thp (&r, row);
      else if (strcmp (kind, "time") == 0)
        ok = read_time (&r, row);
      else if (strcmp (kind, "columns") == 0)
        {
          g_clear_pointer (&column, g_array_unref);
          column = read_columns (row, &complete);
        }
      else if (strcmp (kind, "counts") == 0)
        ok = read_counts (&r, row, column, complete);
      else
        ok = bad_row (&r, "unknown row (valid: option, machine, setup, probe, probe_end, "
                      "thp, time, columns, counts)");
    }
  if (!ok)
    return FALSE;
  for (guint i = 0; lines[i]; i++)
    {
      g_autofree char *name = g_strndup (lines[i], strcspn (lines[i], "="));
      if (*name && !g_hash_table_contains (seen, name))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "%s: the journal has no option %s "
                       "(this run's %s): it was started by another version", j->path, name,
                       lines[i]);
          return FALSE;
        }
    }
  if (!j->has_setup || !j->setup.cache_spec || !j->setup.tlb_spec || !j->machine)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: the journal lacks its machine or "
                   "setup rows", j->path);
      return FALSE;
    }
  return TRUE;
}

/* Reads the journal at j->path; a last line without its end is left out, and cut off the file
 * unless @options is NULL (a refit, which writes nothing). */
static gboolean
read_journal (MdlVatJournal *j, const char *options, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (MdlCsv) csv = NULL;
  g_autoptr (GError) io = NULL;
  gsize len;
  if (!g_file_get_contents (j->path, &text, &len, &io))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "no journal to resume: %s", io->message);
      return FALSE;
    }
  if (len > 0 && text[len - 1] != '\n')
    {
      char *end = strrchr (text, '\n');
      len = end ? (gsize) (end - text) + 1 : 0;
      text[len] = '\0';
      if (options && !g_file_set_contents (j->path, text, (gssize) len, &io))
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s", io->message);
          return FALSE;
        }
    }
  if ((csv = mdl_csv_parse (text, j->path, 0, error)) == NULL)
    return FALSE;
  return read_rows (j, csv, options, error);
}

MdlVatJournal *
mdl_vat_journal_open (const char *dir, gboolean resume, const char *options, GError **error)
{
  g_autoptr (MdlVatJournal) j = g_new0 (MdlVatJournal, 1);
  j->path = g_build_filename (dir, MDL_VAT_JOURNAL_FILE, NULL);
  j->times = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, time_free);
  j->thp = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, time_free);
  j->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  j->options = g_string_new (NULL);
  j->resumed = resume;
  if (resume && !read_journal (j, options, error))
    return NULL;
  if (resume && options == NULL)
    return g_steal_pointer (&j);   /* a refit appends nothing */
  if (g_mkdir_with_parents (dir, 0755) != 0 || (j->file = fopen (j->path, resume ? "a" : "w"))
      == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot write: %s", j->path,
                   g_strerror (errno));
      return NULL;
    }
  return g_steal_pointer (&j);
}

gboolean
mdl_vat_journal_resumed (const MdlVatJournal *j)
{
  return j->resumed;
}

const char *
mdl_vat_journal_path (const MdlVatJournal *j)
{
  return j->path;
}

const char *
mdl_vat_journal_options (const MdlVatJournal *j)
{
  return j->options->str;
}

const char *
mdl_vat_journal_machine (const MdlVatJournal *j)
{
  return j->machine;
}

gboolean
mdl_vat_journal_setup (const MdlVatJournal *j, MdlVatJournalSetup *setup)
{
  if (!j->has_setup)
    return FALSE;
  *setup = j->setup;
  setup->cache_spec = g_strdup (j->setup.cache_spec);
  setup->tlb_spec = g_strdup (j->setup.tlb_spec);
  return TRUE;
}

gboolean
mdl_vat_journal_probe (const MdlVatJournal *j, MdlProbe *probe)
{
  if (j->has_probe)
    *probe = j->probe;
  return j->has_probe;
}

gboolean
mdl_vat_journal_probe_end (const MdlVatJournal *j, MdlProbe *probe)
{
  if (j->has_probe_end)
    *probe = j->probe_end;
  return j->has_probe_end;
}

const MdlVatJournalTime *
mdl_vat_journal_time (const MdlVatJournal *j, const char *algorithm, guint64 n, gboolean huge,
                      guint pass)
{
  g_autofree char *key = time_key (algorithm, n, huge, pass);
  return g_hash_table_lookup (j->times, key);
}

gboolean
mdl_vat_journal_counts (const MdlVatJournal *j, MdlVatPoint *pt, guint64 *checksum)
{
  g_autofree char *key = point_key (pt->algorithm, pt->n, pt->huge_pages);
  const Counts *c = g_hash_table_lookup (j->counts, key);
  if (c == NULL)
    return FALSE;
  for (guint k = 0; k < N_COUNTS; k++)
    G_STRUCT_MEMBER (guint64, pt, count_fields[k].offset) = c->values[k];
  *checksum = c->checksum;
  return TRUE;
}

/* ---- appending ---------------------------------------------------------------------------- */

void
mdl_vat_journal_set_stop (MdlVatJournal *j, guint stop_after)
{
  j->stop_after = stop_after;
  j->appended = 0;
}

/* Writes @row (one line) and flushes it; then the stop hook. */
static gboolean
append (MdlVatJournal *j, const GString *row, gboolean counted, GError **error)
{
  if (fwrite (row->str, 1, row->len, j->file) != row->len || fflush (j->file) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: cannot write: %s", j->path,
                   g_strerror (errno));
      return FALSE;
    }
  if (counted && j->stop_after && ++j->appended >= j->stop_after)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "%s: stopped after %u rows, as asked "
                   "(continue with --resume)", j->path, j->appended);
      return FALSE;
    }
  return TRUE;
}

static void
append_real (GString *row, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_string_append_c (row, ',');
  g_string_append (row, g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

gboolean
mdl_vat_journal_add_header (MdlVatJournal *j, const char *options, const char *machine,
                            const MdlVatJournalSetup *s, GError **error)
{
  g_autoptr (GString) row = g_string_new ("# models experiment vat: journal, version 1 "
                                          "(docs/experiments/cpu-model.md)\n");
  g_auto (GStrv) lines = g_strsplit (options, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (*lines[i])
      {
        g_autofree char *name = g_strndup (lines[i], strcspn (lines[i], "="));
        g_string_append (row, "option,");
        mdl_csv_append_field (row, name);
        g_string_append_c (row, ',');
        mdl_csv_append_field (row, lines[i] + strlen (name) + 1);
        g_string_append_c (row, '\n');
      }
  g_string_append (row, "machine,");
  mdl_csv_append_field (row, machine);
  g_string_append_printf (row, "\nsetup,caches,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
                          G_GUINT64_FORMAT ",%u,%u,%u,%d\nsetup,cache_spec,", s->cache_bytes[0],
                          s->cache_bytes[1], s->cache_bytes[2], s->cache_assoc[0],
                          s->cache_assoc[1], s->cache_assoc[2], s->huge_measured ? 1 : 0);
  mdl_csv_append_field (row, s->cache_spec);
  g_string_append (row, "\nsetup,tlb_spec,");
  mdl_csv_append_field (row, s->tlb_spec);
  g_string_append_c (row, '\n');
  return append (j, row, FALSE, error);
}

static gboolean
add_probe_row (MdlVatJournal *j, const char *kind, const MdlProbe *p, GError **error)
{
  g_autoptr (GString) row = g_string_new (kind);
  for (guint i = 0; i < 5; i++)
    append_real (row, p->chase_ns[i]);
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (row, ",%" G_GUINT64_FORMAT, p->chase_bytes[i]);
  for (guint i = 0; i < 5; i++)
    append_real (row, p->random_ns[i]);
  append_real (row, p->stream_ns);
  append_real (row, p->mispredict_ns);
  g_string_append_c (row, '\n');
  return append (j, row, TRUE, error);
}

gboolean
mdl_vat_journal_add_probe (MdlVatJournal *j, const MdlProbe *p, GError **error)
{
  return add_probe_row (j, "probe", p, error);
}

gboolean
mdl_vat_journal_add_probe_end (MdlVatJournal *j, const MdlProbe *p, GError **error)
{
  return add_probe_row (j, "probe_end", p, error);
}

gboolean
mdl_vat_journal_add_time (MdlVatJournal *j, const char *algorithm, guint64 n, gboolean huge,
                          guint pass, guint per_pass, guint64 checksum, const double *seconds,
                          guint count, guint64 huge_asked, const guint64 *huge_granted,
                          GError **error)
{
  g_autoptr (GString) row = g_string_new (NULL);
  /* The thp row first, in the same write: a run cut between them leaves a thp row alone, which
   * nothing reads, never a time row that would read as 4 KiB pages. */
  if (huge_asked)
    {
      g_string_append (row, "thp,");
      mdl_csv_append_field (row, algorithm);
      g_string_append_printf (row, ",%" G_GUINT64_FORMAT ",%s,%u,%" G_GUINT64_FORMAT, n,
                              pages_name (huge), pass, huge_asked);
      for (guint i = 0; i < count; i++)
        g_string_append_printf (row, ",%" G_GUINT64_FORMAT, huge_granted[i]);
      g_string_append_c (row, '\n');
    }
  g_string_append (row, "time,");
  mdl_csv_append_field (row, algorithm);
  g_string_append_printf (row, ",%" G_GUINT64_FORMAT ",%s,%u,%u,%" G_GUINT64_FORMAT, n,
                          pages_name (huge), pass, per_pass, checksum);
  for (guint i = 0; i < count; i++)
    append_real (row, seconds[i]);
  g_string_append_c (row, '\n');
  return append (j, row, TRUE, error);
}

gboolean
mdl_vat_journal_add_counts (MdlVatJournal *j, const MdlVatPoint *pt, guint64 checksum,
                            GError **error)
{
  g_autoptr (GString) row = g_string_new (NULL);
  if (!j->columns_written)
    {
      g_string_append (row, "columns");
      for (guint k = 0; k < N_COUNTS; k++)
        g_string_append_printf (row, ",%s", count_fields[k].name);
      g_string_append_c (row, '\n');
      j->columns_written = TRUE;
    }
  g_string_append (row, "counts,");
  mdl_csv_append_field (row, pt->algorithm);
  g_string_append_printf (row, ",%" G_GUINT64_FORMAT ",%s,%" G_GUINT64_FORMAT, pt->n,
                          pages_name (pt->huge_pages), checksum);
  for (guint k = 0; k < N_COUNTS; k++)
    g_string_append_printf (row, ",%" G_GUINT64_FORMAT,
                            G_STRUCT_MEMBER (guint64, pt, count_fields[k].offset));
  g_string_append_c (row, '\n');
  return append (j, row, TRUE, error);
}
