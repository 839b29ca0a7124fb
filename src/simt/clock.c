/* The latency table of the clocked schedule (include/models/simt-clock.h): per SM, what a global
 * load, store and atomic and any other instruction advance a resident block's clock by. Built
 * equal on every SM, read from the per-SM probe's CSV (tools/atomic-sm-latency.cu), or spread by
 * a seeded factor per SM for sensitivity studies. Picoseconds in guint64: no rounding drift over
 * the tens of millions of instructions of a run. */
#include "simt/clock.h"

#include <math.h>
#include <string.h>

#include <models/error.h>

#define MAX_SMS 65535

static MdlSimtClock *
clock_alloc (guint n_sms)
{
  MdlSimtClock *clock = g_new0 (MdlSimtClock, 1);
  clock->n_sms = n_sms;
  clock->ps = g_new0 (guint64, (gsize) n_sms * MDL_SIMT_N_LAT);
  return clock;
}

MdlSimtClock *
mdl_simt_clock_new (guint n_sms, guint64 memory_ps, guint64 issue_ps)
{
  MdlSimtClock *clock;
  g_return_val_if_fail (n_sms >= 1 && n_sms <= MAX_SMS && memory_ps >= 1, NULL);
  clock = clock_alloc (n_sms);
  for (guint sm = 0; sm < n_sms; sm++)
    {
      guint64 *row = clock->ps + (gsize) sm * MDL_SIMT_N_LAT;
      row[MDL_SIMT_LAT_LOAD] = row[MDL_SIMT_LAT_STORE] = row[MDL_SIMT_LAT_ATOMIC] = memory_ps;
      row[MDL_SIMT_LAT_ISSUE] = issue_ps;
    }
  return clock;
}

void
mdl_simt_clock_set (MdlSimtClock *clock, guint sm, MdlSimtLatency what, guint64 ps)
{
  g_return_if_fail (clock != NULL && sm < clock->n_sms && (guint) what < MDL_SIMT_N_LAT);
  g_return_if_fail (ps >= 1 || what == MDL_SIMT_LAT_ISSUE);
  clock->ps[(gsize) sm * MDL_SIMT_N_LAT + what] = ps;
}

guint64
mdl_simt_clock_get (const MdlSimtClock *clock, guint sm, MdlSimtLatency what)
{
  g_return_val_if_fail (clock != NULL && sm < clock->n_sms && (guint) what < MDL_SIMT_N_LAT, 0);
  return mdl_simt_clock_ps (clock, sm, what);
}

void
mdl_simt_clock_set_effect (MdlSimtClock *clock, MdlSimtEffect effect)
{
  g_return_if_fail (clock != NULL
                    && (effect == MDL_SIMT_EFFECT_ISSUE || effect == MDL_SIMT_EFFECT_ARRIVE));
  clock->effect = effect;
}

MdlSimtEffect
mdl_simt_clock_effect (const MdlSimtClock *clock)
{
  g_return_val_if_fail (clock != NULL, MDL_SIMT_EFFECT_ISSUE);
  return clock->effect;
}

void
mdl_simt_clock_set_jitter (MdlSimtClock *clock, guint percent, guint64 seed)
{
  g_return_if_fail (clock != NULL && percent <= 90);
  clock->jitter_percent = percent;
  clock->jitter_seed = seed;
}

guint
mdl_simt_clock_n_sms (const MdlSimtClock *clock)
{
  g_return_val_if_fail (clock != NULL, 0);
  return clock->n_sms;
}

void
mdl_simt_clock_free (MdlSimtClock *clock)
{
  if (clock == NULL)
    return;
  g_free (clock->ps);
  g_free (clock);
}

void
mdl_simt_clock_spread (MdlSimtClock *clock, guint percent, guint64 seed)
{
  g_autoptr (GRand) rand = NULL;
  g_return_if_fail (clock != NULL && percent <= 90);
  if (percent == 0)
    return;
  rand = g_rand_new_with_seed_array ((const guint32[]) { (guint32) seed, (guint32) (seed >> 32) },
                                     2);
  for (guint sm = 0; sm < clock->n_sms; sm++)
    {
      double factor = 1.0 + g_rand_double_range (rand, -1.0, 1.0) * percent / 100.0;
      for (guint k = 0; k < MDL_SIMT_N_LAT; k++)
        {
          guint64 *ps = &clock->ps[(gsize) sm * MDL_SIMT_N_LAT + k];
          if (*ps)
            *ps = MAX ((guint64) llround ((double) *ps * factor), 1);
        }
    }
}

/* ---- the probe's CSV ---- */

enum { COL_SMID, COL_OP, COL_MODE, COL_NS, N_COLS };
static const char *const col_names[N_COLS] = { "smid", "op", "mode", "ns_per_op" };

/* The ops of the probe that the table takes, and where each goes. */
static const struct {
  const char *op;
  MdlSimtLatency what;
} op_rows[] = {
  { "load_own", MDL_SIMT_LAT_LOAD },
  { "cas_own", MDL_SIMT_LAT_ATOMIC },
  { "store_own", MDL_SIMT_LAT_STORE },
  { "issue", MDL_SIMT_LAT_ISSUE },
};

/* The column of each of col_names in the header @fields; FALSE naming the first one missing. */
static gboolean
find_columns (char **fields, int *col, const char *path, GError **error)
{
  for (int c = 0; c < N_COLS; c++)
    {
      col[c] = -1;
      for (int i = 0; fields[i]; i++)
        if (strcmp (g_strstrip (fields[i]), col_names[c]) == 0)
          col[c] = i;
      if (col[c] < 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "%s:1: no column \"%s\" in the header (needs smid, op, mode, ns_per_op)",
                       path, col_names[c]);
          return FALSE;
        }
    }
  return TRUE;
}

/* One data row: FALSE for a malformed one. A row of another mode or op is taken as read. */
static gboolean
read_row (GArray *rows, char **fields, const int *col, const char *mode, const char *where,
          GError **error)
{
  guint n = g_strv_length (fields), need = 0;
  guint64 smid;
  double ns;
  char *end;
  for (int c = 0; c < N_COLS; c++)
    need = MAX (need, (guint) col[c] + 1);
  if (n < need)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: expected %u or more fields, got %u",
                   where, need, n);
      return FALSE;
    }
  if (strcmp (g_strstrip (fields[col[COL_MODE]]), mode) != 0)
    return TRUE;
  for (gsize k = 0; k < G_N_ELEMENTS (op_rows); k++)
    if (strcmp (g_strstrip (fields[col[COL_OP]]), op_rows[k].op) == 0)
      {
        guint64 entry[3];
        smid = g_ascii_strtoull (g_strstrip (fields[col[COL_SMID]]), &end, 10);
        if (*end || end == fields[col[COL_SMID]] || smid >= MAX_SMS)
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                         "%s: expected an smid 0..%d, got \"%s\"", where, MAX_SMS - 1,
                         fields[col[COL_SMID]]);
            return FALSE;
          }
        ns = g_ascii_strtod (g_strstrip (fields[col[COL_NS]]), &end);
        if (*end || end == fields[col[COL_NS]] || !(ns >= 0) || ns > 1e9
            || (ns * 1000 < 0.5 && op_rows[k].what != MDL_SIMT_LAT_ISSUE))
          {
            g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                         "%s: expected ns_per_op a number in (0, 1e9], got \"%s\"", where,
                         fields[col[COL_NS]]);
            return FALSE;
          }
        entry[0] = smid;
        entry[1] = op_rows[k].what;
        entry[2] = (guint64) llround (ns * 1000);
        g_array_append_vals (rows, entry, 3);
      }
  return TRUE;
}

MdlSimtClock *
mdl_simt_clock_load (const char *path, const char *mode, GError **error)
{
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint64));   /* smid, what, ps */
  g_autofree guint8 *seen = NULL;
  g_autoptr (GError) io = NULL;
  MdlSimtClock *clock;
  guint n_sms = 0;
  int col[N_COLS];
  g_return_val_if_fail (path != NULL && mode != NULL, NULL);
  if (!g_file_get_contents (path, &text, NULL, &io))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_IO, "latency table: %s", io->message);
      return NULL;
    }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    {
      g_auto (GStrv) fields = NULL;
      g_autofree char *where = NULL;
      g_strchomp (lines[i]);   /* a CRLF file's \r */
      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      fields = g_strsplit (lines[i], ",", -1);
      if (i == 0)
        {
          if (!find_columns (fields, col, path, error))
            return NULL;
          continue;
        }
      where = g_strdup_printf ("%s:%u", path, i + 1);
      if (!read_row (rows, fields, col, mode, where, error))
        return NULL;
    }
  for (guint r = 0; r < rows->len; r += 3)
    n_sms = MAX (n_sms, (guint) g_array_index (rows, guint64, r) + 1);
  if (n_sms == 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                   "%s: no load_own or cas_own row of mode \"%s\"", path, mode);
      return NULL;
    }
  clock = clock_alloc (n_sms);
  seen = g_new0 (guint8, n_sms);
  for (guint r = 0; r < rows->len; r += 3)
    {
      guint sm = (guint) g_array_index (rows, guint64, r);
      guint what = (guint) g_array_index (rows, guint64, r + 1);
      clock->ps[(gsize) sm * MDL_SIMT_N_LAT + what] = g_array_index (rows, guint64, r + 2);
      seen[sm] |= 1u << what;
    }
  for (guint sm = 0; sm < n_sms; sm++)
    {
      guint64 *row = clock->ps + (gsize) sm * MDL_SIMT_N_LAT;
      guint need = 1u << MDL_SIMT_LAT_LOAD | 1u << MDL_SIMT_LAT_ATOMIC;
      if ((seen[sm] & need) != need)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "%s: SM %u has no %s row of mode \"%s\" (every SM up to %u needs load_own "
                       "and cas_own)", path, sm,
                       seen[sm] & 1u << MDL_SIMT_LAT_LOAD ? "cas_own" : "load_own", mode,
                       n_sms - 1);
          mdl_simt_clock_free (clock);
          return NULL;
        }
      /* A store does not wait for its data to land, but the probe has no row for what it does
       * wait for; the load's round trip keeps it one memory instruction, as the round robin has it. */
      if (!(seen[sm] & 1u << MDL_SIMT_LAT_STORE))
        row[MDL_SIMT_LAT_STORE] = row[MDL_SIMT_LAT_LOAD];
    }
  return clock;
}
