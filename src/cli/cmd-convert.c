/* `models convert`: a trace reader pumped straight into a trace writer. Header metadata is copied
 * across, so a converted trace still says what produced it. What the output format cannot carry
 * (phase and site markers in Lackey text) is dropped by the writer and counted; the count is
 * reported here, because a silent loss would make the converted trace look complete. With --salvage
 * a trace that stops short (a run killed while writing it) is converted up to its last complete
 * record, and what was missing is said on stderr. */
#include "cli/cli.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int convert_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_convert = {
  .name = "convert",
  .args = "IN OUT",
  .summary = "convert a trace between formats (binary, Lackey text, gzip)",
  .description =
    "Reads IN (format detected, or --from) and writes OUT (\"-\" for either means the standard\n"
    "stream). The output format is --to, or else OUT's name: \".lackey\" (or \".lackey.gz\") for\n"
    "Lackey text, binary otherwise; a name ending in \".gz\" is gzip-compressed. Markers that\n"
    "the output format cannot carry are dropped with a warning. Prints nothing on success\n"
    "unless standard output is a terminal.\n"
    "\n"
    "--salvage recovers a trace that stops short, as one left by a run killed while writing\n"
    "it (the end record missing, the last record or the gzip data cut): every complete record\n"
    "is converted, the phases still open are closed, and where the trace stopped is said on\n"
    "standard error. A corrupt record is still an error.\n"
    "\n"
    "Examples:\n"
    "  models convert prog.lackey prog.bin\n"
    "  models convert --salvage killed.bin whole.bin\n"
    "  models convert --to lackey random.bin - | less\n"
    "  models convert trace.bin trace.bin.gz",
  .main = convert_main,
};

/* Writing over the input would truncate it before it is read. */
static gboolean
same_file (const char *a, const char *b)
{
  GStatBuf sa, sb;
  return strcmp (a, "-") != 0 && strcmp (b, "-") != 0 && g_stat (a, &sa) == 0
         && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int
compare_keys (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
copy_meta (MdlTraceWriter *writer, const MdlTraceReader *reader)
{
  GHashTable *meta = mdl_trace_reader_meta (reader);
  g_autofree gpointer *keys = NULL;
  guint n = 0;
  if (meta == NULL)
    return;
  /* Sorted, so that converting the same file twice gives the same bytes. */
  keys = g_hash_table_get_keys_as_array (meta, &n);
  qsort (keys, n, sizeof *keys, compare_keys);
  for (guint i = 0; i < n; i++)
    mdl_trace_writer_set_meta (writer, keys[i], g_hash_table_lookup (meta, keys[i]));
}

static int
convert_main (int argc, char **argv)
{
  gboolean help = FALSE, done = FALSE, salvage = FALSE;
  g_autofree char *from_name = NULL, *to_name = NULL;
  const GOptionEntry entries[] = {
    { "from", 'F', 0, G_OPTION_ARG_STRING, &from_name,
      "Input format: auto (default), bin, lackey, din, raw or warp", "FORMAT" },
    { "to", 'T', 0, G_OPTION_ARG_STRING, &to_name,
      "Output format: bin, lackey, din or warp (default: from OUT's name)", "FORMAT" },
    { "salvage", 0, 0, G_OPTION_ARG_NONE, &salvage,
      "Keep every complete record of a trace that stops short", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_convert, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlTraceReader) reader = NULL;
  g_autoptr (MdlTraceWriter) writer = NULL;
  g_autoptr (MdlCliProgress) progress = NULL;
  MdlTraceFormat from = MDL_TRACE_AUTO, to = MDL_TRACE_AUTO;
  const char *in, *out, *in_name;
  MdlSink sink;
  guint64 dropped;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_convert, &help, &argc, &argv, 2, 2);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  in = argv[1];
  out = argv[2];
  in_name = strcmp (in, "-") == 0 ? "<stdin>" : in;
  if ((from_name && !mdl_trace_format_from_name (from_name, &from, &error))
      || (to_name && !mdl_trace_format_from_name (to_name, &to, &error)))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (same_file (in, out))
    return mdl_cli_usage (&mdl_cli_cmd_convert, "IN and OUT are the same file (%s)", out);

  reader = mdl_trace_reader_open (in, from, &error);
  if (reader == NULL)
    {
      mdl_cli_error_name (&error, in_name);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  writer = mdl_trace_writer_open (out, to, &error);
  if (writer == NULL)
    {
      mdl_cli_error_name (&error, out);
      return mdl_cli_fail (g_steal_pointer (&error));
    }
  copy_meta (writer, reader);
  mdl_trace_reader_set_salvage (reader, salvage);

  progress = mdl_cli_progress_new (in_name, mdl_cli_input_size (in, reader));
  sink = mdl_trace_writer_sink (writer);
  while (!done && mdl_trace_reader_pump (reader, &sink, MDL_CLI_PUMP_RECORDS, &done, &error))
    mdl_cli_progress_update (progress, mdl_trace_reader_n_records (reader),
                             mdl_trace_reader_n_bytes (reader));
  g_clear_pointer (&progress, mdl_cli_progress_free);
  if (!done || !mdl_trace_writer_close (writer, &error))
    {
      /* A trace cut short is worse than none: nothing could tell it from a complete one. */
      if (done || strstr (error->message, out) == NULL)
        mdl_cli_error_name (&error, done ? out : in_name);
      g_clear_pointer (&writer, mdl_trace_writer_free);
      if (strcmp (out, "-") != 0)
        g_unlink (out);
      return mdl_cli_fail (g_steal_pointer (&error));
    }

  mdl_cli_note_skipped (reader, in_name);
  if (mdl_trace_reader_truncation (reader))
    mdl_cli_warn ("salvaged %" G_GUINT64_FORMAT " complete records into %s; the input stops "
                  "short: %s", mdl_trace_reader_n_records (reader), out,
                  mdl_trace_reader_truncation (reader));
  dropped = mdl_trace_writer_n_dropped (writer);
  if (dropped > 0)
    mdl_cli_warn ("%s: dropped %" G_GUINT64_FORMAT " records that this format cannot carry "
                  "(markers)", out, dropped);
  if (strcmp (out, "-") != 0 && isatty (STDOUT_FILENO))
    printf ("%s (%s) -> %s: %" G_GUINT64_FORMAT " records\n", in_name,
            mdl_trace_format_name (mdl_trace_reader_format (reader)), out,
            mdl_trace_writer_n_records (writer));
  return MDL_CLI_OK;
}
