/* `models list`: everything a spec or an option can name, read from the same tables the library
 * checks specs against (engine classes, algorithm registry, machine presets), so the listing can
 * never disagree with what is accepted. JSON for programs, aligned columns for people.
 * An engine's counters are the report of an engine made from the spec (the class name: its
 * defaults) that has seen no event: the engine's own list, which no table here can fall behind. */
#include "cli/cli.h"
#include "core/json.h"

#include <stdio.h>
#include <string.h>

static int list_main (int argc, char **argv);

const MdlCliCommand mdl_cli_cmd_list = {
  .name = "list",
  .args = "[machines]",
  .summary = "list engines with their parameters and counters, algorithms, machine presets and "
             "formats",
  .description =
    "Every parameter shows its type, default, the machine-preset key it defaults from when a\n"
    "spec says machine=NAME, and its valid range or choices. Every spec also accepts\n"
    "machine=NAME. Every engine shows the counters it reports, with their units, descriptions\n"
    "and hardware metric names; --engine SPEC lists only that engine, with the counters of that\n"
    "spec (some parameters add counters: vat's d and curve, cache's depth and levels).\n"
    "`models list machines` lists only the machine presets, `host` (read from this machine:\n"
    "caches, TLBs, pages, and where each came from) among them.\n"
    "\n"
    "Examples:\n"
    "  models list\n"
    "  models list machines\n"
    "  models list --engine vat\n"
    "  models list --engine vat:curve=1,curve_max=8 --format json\n"
    "  models list --format json | jq '.engines[].name'",
  .main = list_main,
};

static const char *const type_names[] = { "uint", "double", "bool", "choice", "string" };

static const struct {
  MdlTraceFormat format;
  const char *description;
} trace_formats[] = {
  { MDL_TRACE_BIN, "binary trace format v1 (docs/trace-format.md)" },
  { MDL_TRACE_LACKEY, "Valgrind Lackey text: valgrind --tool=lackey --trace-mem=yes" },
  { MDL_TRACE_DIN, "Dinero IV din text, classic or extended (docs/trace-format.md)" },
  { MDL_TRACE_RAW, "little-endian 64-bit addresses, read only, never detected" },
  { MDL_TRACE_WARP, "warp text: one GPU warp instruction per line (docs/trace-format.md)" },
};
/* One row per format but MDL_TRACE_AUTO (0), so that a new format cannot be left out. */
G_STATIC_ASSERT (G_N_ELEMENTS (trace_formats) == MDL_TRACE_WARP);

static const char *const format_descriptions[MDL_CLI_N_FORMATS] = {
  "aligned columns for people",
  "one document: source, then one object per engine (docs/cli.md)",
  "one row per counter: engine,spec,phase,counter,value,unit,metric",
};

/* The "valid" column: a range, "power of two", or the choices. */
static char *
param_valid (const MdlParamSpec *p)
{
  GString *s = g_string_new (NULL);
  switch (p->type)
    {
    case MDL_PARAM_UINT:
      if (p->max)
        g_string_printf (s, "%" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, p->min, p->max);
      else
        g_string_printf (s, ">= %" G_GUINT64_FORMAT, p->min);
      if (p->flags & MDL_PARAM_POW2)
        g_string_append (s, ", power of two");
      break;
    case MDL_PARAM_BOOL:
      g_string_append (s, "1/0, true/false, yes/no, on/off");
      break;
    case MDL_PARAM_CHOICE:
      g_string_append (s, p->choices);
      break;
    default:
      g_string_append (s, "-");
      break;
    }
  return g_string_free (s, FALSE);
}

/* The counters of an engine made from @spec, on no event: (transfer full) its report, or NULL with
 * @error as mdl_engine_new() sets it. */
static MdlReport *
engine_counters (const char *spec, GError **error)
{
  g_autoptr (MdlEngine) engine = mdl_engine_new (spec, error);
  return engine ? mdl_engine_report (engine) : NULL;
}

static const char *
counter_kind (const MdlCounter *c)
{
  return c->is_real ? "real" : c->is_peak ? "peak" : "count";
}

/* The counters table of one engine; a spec that cannot make an engine (a user class with a
 * required parameter) gets a line saying why, not an empty table. */
static void
counters_table (GString *out, const char *spec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlReport) report = engine_counters (spec, &error);
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  if (report == NULL)
    {
      g_string_append_printf (out, "      (counters: give a full spec to --engine: %s)\n",
                              error->message);
      return;
    }
  if (mdl_report_n_counters (report) == 0)
    {
      g_string_append (out, "      (no counters)\n");
      return;
    }
  g_ptr_array_add (rows, g_strsplit ("COUNTER|UNIT|DESCRIPTION|METRIC", "|", -1));
  for (guint i = 0; i < mdl_report_n_counters (report); i++)
    {
      const MdlCounter *c = mdl_report_counter (report, i);
      char **row = g_new0 (char *, 5);
      row[0] = g_strdup (c->name);
      row[1] = g_strdup (c->unit);
      row[2] = g_strdup (c->description);
      row[3] = g_strdup (c->metric ? c->metric : "-");
      g_ptr_array_add (rows, row);
    }
  mdl_cli_text_table (out, "      ", rows, G_MAXUINT);
}

static void
params_table (GString *out, const MdlParamSpec *params)
{
  g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  if (params[0].key == NULL)
    {
      g_string_append (out, "      (no parameters)\n");
      return;
    }
  g_ptr_array_add (rows, g_strsplit ("KEY|TYPE|DEFAULT|MACHINE KEY|VALID|HELP", "|", -1));
  for (const MdlParamSpec *p = params; p->key; p++)
    {
      char **row = g_new0 (char *, 7);
      row[0] = g_strdup (p->key);
      row[1] = g_strdup (type_names[p->type]);
      row[2] = g_strdup (p->default_value ? p->default_value : "(required)");
      row[3] = g_strdup (p->machine_key ? p->machine_key : "-");
      row[4] = param_valid (p);
      row[5] = g_strdup (p->help);
      g_ptr_array_add (rows, row);
    }
  mdl_cli_text_table (out, "      ", rows, G_MAXUINT);
}

/* The machine presets with every key, `host` (read from this machine) among them. */
static gboolean
machines_table (GString *out, char **machines, GError **error)
{
  g_string_append (out, "Machine presets (machine=NAME in a spec, or --machine NAME)\n");
  for (char **m = machines; *m; m++)
    {
      g_auto (GStrv) keys = mdl_machine_keys (*m, error);
      g_autofree char *description = NULL;
      g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
      if (keys == NULL || !mdl_machine_get (*m, "description", &description, error))
        return FALSE;
      g_string_append_printf (out, "  %-12s %s\n", *m, description ? description : "");
      for (char **k = keys; *k; k++)
        {
          char **row = g_new0 (char *, 3);
          if (strcmp (*k, "description") == 0)
            {
              g_free (row);
              continue;
            }
          row[0] = g_strdup (*k);
          if (!mdl_machine_get (*m, *k, &row[1], error))
            {
              g_strfreev (row);
              return FALSE;
            }
          if (row[1] == NULL)
            row[1] = g_strdup ("");
          g_ptr_array_add (rows, row);
        }
      mdl_cli_text_table (out, "      ", rows, G_MAXUINT);
    }
  return TRUE;
}

static gboolean
write_table (GString *out, GError **error)
{
  guint n_classes = 0, n_algos = 0;
  int algo_width = 12;   /* the names line up, as the other sections' do at 12 */
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n_classes);
  const MdlAlgo *algos = mdl_algos (&n_algos);
  g_auto (GStrv) machines = mdl_machine_names (error);
  if (machines == NULL)
    return FALSE;

  g_string_append (out, "Engines (--engine NAME:key=value,...; every spec also takes "
                        "machine=NAME; counters of the default spec: models list --engine SPEC "
                        "for another)\n");
  for (guint i = 0; i < n_classes; i++)
    {
      g_string_append_printf (out, "  %-12s %s\n", classes[i]->name, classes[i]->summary);
      params_table (out, classes[i]->params);
      counters_table (out, classes[i]->name);
    }
  g_string_append (out, "\nAlgorithms (models run ALGORITHM [--n N] [--seed S] "
                        "[--param KEY=VALUE])\n");
  for (guint i = 0; i < n_algos; i++)
    algo_width = MAX (algo_width, (int) strlen (algos[i].name));
  for (guint i = 0; i < n_algos; i++)
    {
      g_string_append_printf (out, "  %-*s %s\n", algo_width, algos[i].name, algos[i].summary);
      params_table (out, algos[i].params);
    }
  g_string_append_c (out, '\n');
  if (!machines_table (out, machines, error))
    return FALSE;
  g_string_append (out, "\nTrace formats (--trace-format, --from, --to)\n");
  for (guint i = 0; i < G_N_ELEMENTS (trace_formats); i++)
    g_string_append_printf (out, "  %-12s %s\n", mdl_trace_format_name (trace_formats[i].format),
                            trace_formats[i].description);
  g_string_append (out, "\nOutput formats (--format)\n");
  for (guint i = 0; i < MDL_CLI_N_FORMATS; i++)
    g_string_append_printf (out, "  %-12s %s\n", mdl_cli_format_names[i], format_descriptions[i]);
  return TRUE;
}

static void
json_params (GString *out, const MdlParamSpec *params)
{
  g_string_append_c (out, '[');
  for (const MdlParamSpec *p = params; p->key; p++)
    {
      g_string_append (out, p == params ? "\n      {\"key\": " : ",\n      {\"key\": ");
      mdl_json_string (out, p->key);
      g_string_append (out, ", \"type\": ");
      mdl_json_string (out, type_names[p->type]);
      g_string_append (out, ", \"default\": ");
      if (p->default_value)
        mdl_json_string (out, p->default_value);
      else
        g_string_append (out, "null");
      g_string_append (out, ", \"machine_key\": ");
      if (p->machine_key)
        mdl_json_string (out, p->machine_key);
      else
        g_string_append (out, "null");
      if (p->type == MDL_PARAM_UINT)
        {
          g_string_append_printf (out, ", \"min\": %" G_GUINT64_FORMAT ", \"max\": ", p->min);
          if (p->max)
            g_string_append_printf (out, "%" G_GUINT64_FORMAT, p->max);
          else
            g_string_append (out, "null");
          g_string_append_printf (out, ", \"power_of_two\": %s",
                                  p->flags & MDL_PARAM_POW2 ? "true" : "false");
        }
      if (p->type == MDL_PARAM_CHOICE)
        {
          g_auto (GStrv) words = g_strsplit (p->choices, "|", -1);
          g_string_append (out, ", \"choices\": [");
          for (char **w = words; *w; w++)
            {
              if (w != words)
                g_string_append (out, ", ");
              mdl_json_string (out, *w);
            }
          g_string_append_c (out, ']');
        }
      g_string_append (out, ", \"help\": ");
      mdl_json_string (out, p->help);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
}

static void
json_named (GString *out, const char *name, const char *summary, const MdlParamSpec *params,
            gboolean first)
{
  g_string_append (out, first ? "\n    {\"name\": " : ",\n    {\"name\": ");
  mdl_json_string (out, name);
  g_string_append (out, ", \"summary\": ");
  mdl_json_string (out, summary);
  g_string_append (out, ", \"params\": ");
  json_params (out, params);
  g_string_append_c (out, '}');
}

/* Ends an engine's object (opened by json_named, whose closing brace is taken back) with the spec
 * its counters are of and the counters: {"name", "unit", "kind", "description", "metric"}. A spec
 * that cannot make an engine gets "counters": null and "counters_error": its message. */
static void
json_counters (GString *out, const char *spec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlReport) report = engine_counters (spec, &error);
  g_string_truncate (out, out->len - 1);
  g_string_append (out, ",\n     \"spec\": ");
  if (report == NULL)
    {
      mdl_json_string (out, spec);
      g_string_append (out, ", \"counters\": null, \"counters_error\": ");
      mdl_json_string (out, error->message);
      g_string_append_c (out, '}');
      return;
    }
  mdl_json_string (out, mdl_report_spec (report));
  g_string_append (out, ", \"counters\": [");
  for (guint i = 0; i < mdl_report_n_counters (report); i++)
    {
      const MdlCounter *c = mdl_report_counter (report, i);
      g_string_append (out, i ? ",\n      {\"name\": " : "\n      {\"name\": ");
      mdl_json_string (out, c->name);
      g_string_append (out, ", \"unit\": ");
      mdl_json_string (out, c->unit);
      g_string_append (out, ", \"kind\": ");
      mdl_json_string (out, counter_kind (c));
      g_string_append (out, ", \"description\": ");
      mdl_json_string (out, c->description);
      g_string_append (out, ", \"metric\": ");
      if (c->metric)
        mdl_json_string (out, c->metric);
      else
        g_string_append (out, "null");
      g_string_append_c (out, '}');
    }
  g_string_append (out, "]}");
}

/* The presets as JSON objects {"name", "values"}, comma-separated. */
static gboolean
machines_json (GString *out, char **machines, GError **error)
{
  for (char **m = machines; *m; m++)
    {
      g_auto (GStrv) keys = mdl_machine_keys (*m, error);
      if (keys == NULL)
        return FALSE;
      g_string_append (out, m == machines ? "\n    {\"name\": " : ",\n    {\"name\": ");
      mdl_json_string (out, *m);
      g_string_append (out, ", \"values\": {");
      for (char **k = keys; *k; k++)
        {
          g_autofree char *value = NULL;
          if (!mdl_machine_get (*m, *k, &value, error))
            return FALSE;
          if (k != keys)
            g_string_append (out, ", ");
          mdl_json_string (out, *k);
          g_string_append (out, ": ");
          mdl_json_string (out, value ? value : "");
        }
      g_string_append (out, "}}");
    }
  return TRUE;
}

static gboolean
write_json (GString *out, GError **error)
{
  guint n_classes = 0, n_algos = 0;
  g_autofree const MdlEngineClass **classes = mdl_engine_classes (&n_classes);
  const MdlAlgo *algos = mdl_algos (&n_algos);
  g_auto (GStrv) machines = mdl_machine_names (error);
  if (machines == NULL)
    return FALSE;

  g_string_append (out, "{\"engines\": [");
  for (guint i = 0; i < n_classes; i++)
    {
      json_named (out, classes[i]->name, classes[i]->summary, classes[i]->params, i == 0);
      json_counters (out, classes[i]->name);
    }
  g_string_append (out, "],\n \"algorithms\": [");
  for (guint i = 0; i < n_algos; i++)
    json_named (out, algos[i].name, algos[i].summary, algos[i].params, i == 0);
  g_string_append (out, "],\n \"machines\": [");
  if (!machines_json (out, machines, error))
    return FALSE;
  g_string_append (out, "],\n \"trace_formats\": [");
  for (guint i = 0; i < G_N_ELEMENTS (trace_formats); i++)
    {
      if (i)
        g_string_append (out, ", ");
      mdl_json_string (out, mdl_trace_format_name (trace_formats[i].format));
    }
  g_string_append (out, "],\n \"output_formats\": [");
  for (guint i = 0; i < MDL_CLI_N_FORMATS; i++)
    {
      if (i)
        g_string_append (out, ", ");
      mdl_json_string (out, mdl_cli_format_names[i]);
    }
  g_string_append (out, "]}\n");
  return TRUE;
}

/* `--engine SPEC...`: only those engines, each with the counters of its spec. A spec that makes
 * no engine is an error naming it, as it is for `run` and `analyze`. */
static gboolean
write_engines (GString *out, char **specs, MdlFormat format, GError **error)
{
  if (format == MDL_FORMAT_JSON)
    g_string_append (out, "{\"engines\": [");
  for (char **spec = specs; *spec; spec++)
    {
      g_autoptr (MdlEngine) engine = mdl_engine_new (*spec, error);
      const MdlEngineClass *klass;
      if (engine == NULL)
        return FALSE;
      klass = mdl_engine_class_lookup (mdl_engine_name (engine));
      if (format == MDL_FORMAT_JSON)
        {
          json_named (out, klass->name, klass->summary, klass->params, spec == specs);
          json_counters (out, *spec);
          continue;
        }
      g_string_append_printf (out, "%s%-12s %s\n", spec == specs ? "" : "\n", klass->name,
                              klass->summary);
      g_string_append_printf (out, "  spec: %s\n", mdl_engine_spec (engine));
      params_table (out, klass->params);
      counters_table (out, *spec);
    }
  if (format == MDL_FORMAT_JSON)
    g_string_append (out, "]}\n");
  return TRUE;
}

static int
list_main (int argc, char **argv)
{
  gboolean help = FALSE;
  g_autofree char *format_name = NULL;
  g_auto (GStrv) engines = NULL;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_name,
      "Listing format: table (default) or json", "FORMAT" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &engines,
      "List only this engine, with the counters of this spec NAME:key=value,... (repeat for "
      "several)", "SPEC" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = mdl_cli_context_new (&mdl_cli_cmd_list, entries, &help);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) text = g_string_new (NULL);
  MdlFormat format;
  gboolean ok;
  int rc;

  rc = mdl_cli_parse (ctx, &mdl_cli_cmd_list, &help, &argc, &argv, 0, 1);
  if (rc != MDL_CLI_CONTINUE)
    return rc;
  if (argc == 2 && strcmp (argv[1], "machines") != 0)
    return mdl_cli_usage (&mdl_cli_cmd_list, "unknown section \"%s\" (valid: machines)", argv[1]);
  if (!mdl_cli_format_parse (format_name, &format, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  if (format >= MDL_CLI_LIST_FORMATS)
    return mdl_cli_usage (&mdl_cli_cmd_list, "--format must be table or json");
  if (argc == 2)
    {
      g_auto (GStrv) machines = mdl_machine_names (&error);
      if (format == MDL_FORMAT_JSON)
        g_string_append (text, "{\"machines\": [");
      ok = machines && (format == MDL_FORMAT_JSON ? machines_json (text, machines, &error)
                                                  : machines_table (text, machines, &error));
      if (format == MDL_FORMAT_JSON)
        g_string_append (text, "]}\n");
    }
  else if (engines != NULL)
    ok = write_engines (text, engines, format, &error);
  else
    ok = format == MDL_FORMAT_JSON ? write_json (text, &error) : write_table (text, &error);
  if (!ok || !mdl_cli_output_write (NULL, text, &error))
    return mdl_cli_fail (g_steal_pointer (&error));
  return MDL_CLI_OK;
}
