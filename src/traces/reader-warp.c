/* Reader of the warp text format (docs/trace-format.md, "Warp text"): one warp instruction or
 * marker per line, '#' comments and empty lines skipped.
 *
 *   launch ID grid=GX block=BX shared=BYTES [warp=W]    a kernel launch (warp width default 32)
 *   B W ld|st|atom global|shared|local WIDTH MASK ADDR...
 *   B W branch ACTIVE TAKEN
 *   B W jump|alu|bar|shfl|vote MASK
 *   bar B                                                 the barrier of block B
 *   sync                                                  a global sync
 *
 * B and W are decimal; masks and addresses hexadecimal with or without "0x"; a memory line has
 * one address per active lane, in lane order. Instructions belong to the latest launch (launch 0
 * before any). An op may end in ".m" (MDL_WARP_MACHINE); an atomic may be "atom.red" (its old
 * values unused, MDL_WARP_ATOM_RED) or "atom.cas" (MDL_WARP_ATOM_CAS), before any ".m". Files
 * written before shfl, vote and the atomic suffixes read as they always did. Every line is validated (the event rules of mdl_warp_event_check() included) and
 * the first bad one is reported as "NAME:LINE: what was expected, what was found". */
#include "trace-private.h"

#include <stdarg.h>
#include <stdlib.h>

#define OUT_EVENTS 4096
#define OUT_ADDRS (OUT_EVENTS * 8)
#define MAX_TOKENS (8 + MDL_WARP_MAX_LANES)

/* The batch's arrays grow by doubling up to OUT_EVENTS and OUT_ADDRS, where a batch is
 * delivered: a short trace (a test's, a fuzz input's) neither allocates nor clears the 450 KiB of
 * a full batch. */
typedef struct {
  MdlWarpEvent *out;
  guint64 *addrs;
  gsize cap_out;
  gsize cap_addrs;
  gsize n_out;
  gsize n_addrs;
  guint64 line;
  guint32 launch;
} WarpReader;

static gboolean
line_error (MdlTraceReader *r, GError **error, const char *s, gsize len, const char *format, ...)
  G_GNUC_PRINTF (5, 6);

static gboolean
line_error (MdlTraceReader *r, GError **error, const char *s, gsize len, const char *format, ...)
{
  WarpReader *k = r->priv;
  char *quoted = mdl_text_quote (s, len);
  va_list args;
  char *why;
  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s:%" G_GUINT64_FORMAT ": %s in \"%s\"", r->name,
               k->line, why, quoted);
  g_free (why);
  g_free (quoted);
  return FALSE;
}

/* A hexadecimal number with an optional 0x; NULL or why not. */
static const char *
parse_hex (const char *t, guint64 *v)
{
  guint64 x = 0;
  const char *p = t;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  if (*p == '\0')
    return "an empty hexadecimal number";
  for (; *p; p++)
    {
      int d = g_ascii_xdigit_value (*p);
      if (d < 0)
        return "a character that is not a hexadecimal digit";
      if (x >> 60)
        return "a hexadecimal number wider than 64 bits";
      x = (x << 4) | (guint64) d;
    }
  *v = x;
  return NULL;
}

static gboolean
parse_dec (const char *t, guint64 max, guint64 *v)
{
  return g_ascii_string_to_unsigned (t, 10, 0, max, v, NULL);
}

/* Room for one more event with @n_addrs lane addresses, once the batch is not full. */
static void
make_room (WarpReader *k, gsize n_addrs)
{
  if (k->n_out == k->cap_out)
    {
      k->cap_out = MAX (2 * k->cap_out, (gsize) 64);
      k->out = g_renew (MdlWarpEvent, k->out, k->cap_out);
    }
  while (k->n_addrs + n_addrs > k->cap_addrs)
    {
      k->cap_addrs = MIN (MAX (2 * k->cap_addrs, (gsize) 4 * MDL_WARP_MAX_LANES),
                          (gsize) OUT_ADDRS);
      k->addrs = g_renew (guint64, k->addrs, k->cap_addrs);
    }
}

static void
warp_finalize (MdlTraceReader *r)
{
  WarpReader *k = r->priv;
  g_free (k->out);
  g_free (k->addrs);
}

static gboolean
deliver (MdlTraceReader *r, WarpReader *k, const MdlSink *sink, GError **error)
{
  MdlEventBatch batch = { .warp = k->out, .n_warp = k->n_out, .lane_addrs = k->addrs,
                          .n_lane_addrs = k->n_addrs };
  if (k->n_out == 0)
    return TRUE;
  r->n_records += k->n_out;
  k->n_out = 0;
  k->n_addrs = 0;
  return sink->batch (sink->data, &batch, error);
}

static gboolean
emit_marker (MdlTraceReader *r, WarpReader *k, const MdlSink *sink, const MdlMarker *m,
             const char *s, gsize len, GError **error)
{
  GError *local = NULL;
  if (!mdl_trace_check_marker (&r->check, m, &local))
    {
      line_error (r, error, s, len, "%s", local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!deliver (r, k, sink, error))
    return FALSE;
  r->n_records++;
  return sink->marker (sink->data, m, error);
}

/* Parses one non-empty, non-comment line into an event or a marker. */
static gboolean
parse_line (MdlTraceReader *r, WarpReader *k, const MdlSink *sink, const char *s, gsize len,
            GError **error)
{
  static const char *const ops[] = { "ld", "st", "atom", "alu", "branch", "bar", "jump", "shfl",
                                     "vote" };
  static const char *const spaces[] = { "none", "global", "shared", "local" };
  g_autofree char *copy = g_strndup (s, len);
  char *tok[MAX_TOKENS + 1] = { NULL };
  char *save = NULL;
  guint n = 0;
  guint64 block, warp;
  const char *why;
  MdlWarpEvent e = { 0 };
  GError *local = NULL;
  MdlEventBatch view;

  for (char *p = strtok_r (copy, " \t", &save); p && n <= MAX_TOKENS; p = strtok_r (NULL, " \t", &save))
    tok[n++] = p;
  if (n == 0)
    return line_error (r, error, s, len, "an empty line");
  if (n > MAX_TOKENS)
    return line_error (r, error, s, len, "more than %d fields", MAX_TOKENS);
  if (strcmp (tok[0], "sync") == 0)
    {
      MdlMarker m = { .kind = MDL_MARK_SYNC };
      if (n != 1)
        return line_error (r, error, s, len, "expected \"sync\" alone");
      return emit_marker (r, k, sink, &m, s, len, error);
    }
  if (strcmp (tok[0], "bar") == 0)
    {
      MdlMarker m = { .kind = MDL_MARK_BARRIER, .launch = k->launch };
      if (n != 2 || !parse_dec (tok[1], G_MAXUINT32, &block))
        return line_error (r, error, s, len, "expected \"bar BLOCK\" with a decimal block id");
      m.block = (guint32) block;
      return emit_marker (r, k, sink, &m, s, len, error);
    }
  if (strcmp (tok[0], "launch") == 0)
    {
      MdlMarker m = { .kind = MDL_MARK_LAUNCH, .warp_width = 32 };
      guint64 id, val;
      gboolean have_grid = FALSE, have_block = FALSE, have_shared = FALSE;
      if (n < 5 || n > 6 || !parse_dec (tok[1], G_MAXUINT32, &id))
        return line_error (r, error, s, len, "expected \"launch ID grid=GX block=BX shared=BYTES "
                           "[warp=W]\"");
      for (guint i = 2; i < n; i++)
        {
          char *eq = strchr (tok[i], '=');
          if (eq == NULL || !parse_dec (eq + 1, G_MAXUINT32, &val))
            return line_error (r, error, s, len, "expected KEY=DECIMAL, got \"%s\"", tok[i]);
          *eq = '\0';
          if (strcmp (tok[i], "grid") == 0 && !have_grid)
            m.grid_blocks = (guint32) val, have_grid = TRUE;
          else if (strcmp (tok[i], "block") == 0 && !have_block)
            m.block_threads = (guint32) val, have_block = TRUE;
          else if (strcmp (tok[i], "shared") == 0 && !have_shared)
            m.shared_bytes = (guint32) val, have_shared = TRUE;
          else if (strcmp (tok[i], "warp") == 0)
            m.warp_width = (guint32) val;
          else
            return line_error (r, error, s, len, "unknown or repeated launch key \"%s\" (valid: grid, "
                               "block, shared, warp)", tok[i]);
        }
      if (!have_grid || !have_block || !have_shared)
        return line_error (r, error, s, len, "a launch needs grid=, block= and shared=");
      m.launch = (guint32) id;
      k->launch = m.launch;
      return emit_marker (r, k, sink, &m, s, len, error);
    }

  /* B W OP ... */
  if (n < 3 || !parse_dec (tok[0], G_MAXUINT32, &block) || !parse_dec (tok[1], G_MAXUINT16, &warp))
    return line_error (r, error, s, len, "expected \"BLOCK WARP OP ...\", \"launch\", \"bar\" or "
                       "\"sync\" (block and warp decimal, warp at most 65535)");
  e.block = (guint32) block;
  e.warp = (guint16) warp;
  e.launch = k->launch;
  e.op = MDL_WARP_N_OPS;
  if (g_str_has_suffix (tok[2], ".m"))
    {
      e.flags = MDL_WARP_MACHINE;
      tok[2][strlen (tok[2]) - 2] = '\0';
    }
  if (strcmp (tok[2], "atom.red") == 0 || strcmp (tok[2], "atom.cas") == 0)
    {
      e.flags |= tok[2][5] == 'r' ? MDL_WARP_ATOM_RED : MDL_WARP_ATOM_CAS;
      tok[2][4] = '\0';
    }
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (strcmp (tok[2], ops[i]) == 0)
      e.op = (guint8) i;
  if (e.op == MDL_WARP_N_OPS)
    return line_error (r, error, s, len, "unknown op \"%s\" (valid: ld, st, atom, atom.red, atom.cas, "
                       "alu, branch, jump, bar, shfl, vote, each with .m for a machine instruction)", tok[2]);
  if (mdl_warp_is_memory (&e))
    {
      guint64 width;
      guint n_lanes;
      if (n < 6)
        return line_error (r, error, s, len, "expected \"B W %s SPACE WIDTH MASK ADDR...\"", tok[2]);
      for (guint i = 1; i < G_N_ELEMENTS (spaces); i++)
        if (strcmp (tok[3], spaces[i]) == 0)
          e.space = (guint8) i;
      if (e.space == MDL_SPACE_NONE)
        return line_error (r, error, s, len, "unknown space \"%s\" (valid: global, shared, local)",
                           tok[3]);
      if (!parse_dec (tok[4], 64, &width) || width == 0)
        return line_error (r, error, s, len, "access width \"%s\" is not a decimal 1..64", tok[4]);
      e.width = (guint16) width;
      if ((why = parse_hex (tok[5], &e.active)))
        return line_error (r, error, s, len, "mask \"%s\": %s", tok[5], why);
      n_lanes = (guint) __builtin_popcountll (e.active);
      /* A CAS may end with failed=MASK, the lanes whose compare failed. */
      if ((e.flags & MDL_WARP_ATOM_CAS) && n > 6 && g_str_has_prefix (tok[n - 1], "failed="))
        {
          if ((why = parse_hex (tok[n - 1] + 7, &e.taken)))
            return line_error (r, error, s, len, "failed mask \"%s\": %s", tok[n - 1] + 7, why);
          n--;
        }
      if (n - 6 != n_lanes)
        return line_error (r, error, s, len, "mask %s has %u active lanes but the line has %u "
                           "addresses", tok[5], n_lanes, n - 6);
      if (k->n_out == OUT_EVENTS || k->n_addrs + MDL_WARP_MAX_LANES > (gsize) OUT_ADDRS)
        if (!deliver (r, k, sink, error))
          return FALSE;
      make_room (k, n_lanes);
      e.first_addr = (guint32) k->n_addrs;
      for (guint i = 0; i < n_lanes; i++)
        if ((why = parse_hex (tok[6 + i], &k->addrs[k->n_addrs + i])))
          return line_error (r, error, s, len, "address \"%s\": %s", tok[6 + i], why);
    }
  else
    {
      guint want = e.op == MDL_WARP_BRANCH ? 5 : 4;
      if (n != want)
        return line_error (r, error, s, len, e.op == MDL_WARP_BRANCH
                           ? "expected \"B W branch ACTIVE TAKEN\"" : "expected \"B W %s MASK\"",
                           tok[2]);
      if ((why = parse_hex (tok[3], &e.active)))
        return line_error (r, error, s, len, "mask \"%s\": %s", tok[3], why);
      if (e.op == MDL_WARP_BRANCH && (why = parse_hex (tok[4], &e.taken)))
        return line_error (r, error, s, len, "taken mask \"%s\": %s", tok[4], why);
      if (k->n_out == OUT_EVENTS && !deliver (r, k, sink, error))
        return FALSE;
      make_room (k, 0);
    }
  view = (MdlEventBatch) { .warp = &e, .n_warp = 1, .lane_addrs = k->addrs,
                           .n_lane_addrs = k->n_addrs + (mdl_warp_is_memory (&e)
                                                         ? (gsize) __builtin_popcountll (e.active) : 0) };
  if (!mdl_warp_event_check (&view, &e, mdl_trace_check_warp_width (&r->check, e.launch), &local))
    {
      const char *colon = strstr (local->message, "): ");
      line_error (r, error, s, len, "%s", colon ? colon + 3 : local->message);
      g_error_free (local);
      return FALSE;
    }
  k->n_addrs = view.n_lane_addrs;
  k->out[k->n_out++] = e;
  return TRUE;
}

static gboolean
warp_pump (MdlTraceReader *r, const MdlSink *sink, guint64 budget, GError **error)
{
  WarpReader *k = r->priv;
  guint64 done = 0;

  while (done < budget)
    {
      const char *s;
      gsize len, consumed;
      GError *local = NULL;
      switch (mdl_text_next_line (r, &k->line, &s, &len, &consumed, error))
        {
        case MDL_TEXT_OK: break;
        case MDL_TEXT_TOO_LONG:
          return line_error (r, error, s, 0, "line longer than %" G_GSIZE_FORMAT " bytes",
                             MDL_LACKEY_LINE_MAX);
        case MDL_TEXT_FAILED: return FALSE;
        case MDL_TEXT_END:
          if (!mdl_trace_check_end (&r->check, &local))
            {
              g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "%s: %s", r->name, local->message);
              g_error_free (local);
              return FALSE;
            }
          return deliver (r, k, sink, error);
        }
      r->pos += consumed;
      while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
      while (len > 0 && (*s == ' ' || *s == '\t'))
        s++, len--;
      if (len == 0 || s[0] == '#')
        continue;
      if (memchr (s, '\0', len))
        return line_error (r, error, s, len, "a NUL byte");
      if (!parse_line (r, k, sink, s, len, error))
        return FALSE;
      done++;
    }
  return deliver (r, k, sink, error);
}

const MdlTraceReaderClass mdl_trace_reader_warp_class = {
  .priv_bytes = sizeof (WarpReader),
  .pump = warp_pump,
  .finalize = warp_finalize,
};
