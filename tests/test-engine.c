/* Tests of engines and their registry (include/models/engine.h, src/models/engine.c, registry.c):
 * spec lookup and normalization, user registration and the class check, the per-phase breakdown
 * that the core keeps for every engine, failure latching and reset.
 *
 * "tally" below is a tiny engine defined here: it adds `weight` per access, counts bytes, reports
 * one derived real, rejects the address 0xdead (MDL_ERROR_MODEL), refuses weight=13 in init, and
 * allocates in init so that the sanitizer run checks that finalize runs on every path. */
#include "helpers.h"

#include "models/engines.h"

#include <math.h>
#include <string.h>

typedef struct {
  guint64 weight;
  guint64 accesses;
  guint64 bytes;
  guint64 *scratch; /* allocated by init, freed by finalize */
} Tally;

static const MdlParamSpec tally_params[] = {
  { "weight", MDL_PARAM_UINT, "1", NULL, 1, 1000, NULL, 0, "added per access" },
  { NULL }
};

static gboolean
tally_init (void *state, const MdlParams *params, GError **error)
{
  Tally *t = state;
  t->scratch = g_new0 (guint64, 4);
  t->weight = mdl_params_uint (params, "weight");
  if (t->weight == 13)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_PARAM, "tally: weight=13 is unlucky");
      return FALSE;
    }
  return TRUE;
}

static gboolean
tally_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Tally *t = state;
  for (gsize i = 0; i < b->n_cpu; i++)
    {
      if (b->cpu[i].kind == MDL_CPU_OPS)
        continue;
      if (b->cpu[i].addr == 0xdead)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_MODEL, "tally: address 0xdead is poisoned");
          return FALSE;
        }
      t->accesses += t->weight;
      t->bytes += b->cpu[i].size;
    }
  return TRUE;
}

static void
tally_report (void *state, MdlReport *out)
{
  Tally *t = state;
  mdl_report_add_count (out, "accesses", "count", "weighted accesses", NULL, t->accesses);
  mdl_report_add_count (out, "bytes", "bytes", "bytes accessed", NULL, t->bytes);
  mdl_report_add_real (out, "mean_bytes", "bytes", "bytes per weighted access", NULL,
                       t->accesses ? (double) t->bytes / (double) t->accesses : NAN);
}

static void
tally_reset (void *state)
{
  Tally *t = state;
  t->accesses = 0;
  t->bytes = 0;
}

static void
tally_finalize (void *state)
{
  Tally *t = state;
  g_free (t->scratch);
}

static const MdlEngineClass tally_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "tally",
  .summary = "weighted access count (test engine)",
  .params = tally_params,
  .state_size = sizeof (Tally),
  .init = tally_init,
  .consume = tally_consume,
  .report = tally_report,
  .reset = tally_reset,
  .finalize = tally_finalize,
};

/* "ledger": a class that keeps its own phase breakdown (MDL_ENGINE_OWN_PHASES). It counts CPU
 * records, remembers the count at each phase begin, charges the difference at any phase end (it
 * does not check names), and reports how often its report has been asked for, this time
 * included. */
typedef struct {
  guint64 records;
  guint64 at_begin;
  guint64 in_phases;
  guint report_calls;
} Ledger;

static const MdlParamSpec ledger_params[] = { { NULL } };

static gboolean
ledger_init (void *state, const MdlParams *params, GError **error)
{
  (void) state, (void) params, (void) error;
  return TRUE;
}

static gboolean
ledger_consume (void *state, const MdlEventBatch *b, GError **error)
{
  Ledger *l = state;
  (void) error;
  l->records += b->n_cpu;
  return TRUE;
}

static gboolean
ledger_marker (void *state, const MdlMarker *m, GError **error)
{
  Ledger *l = state;
  (void) error;
  if (m->kind == MDL_MARK_PHASE_BEGIN)
    l->at_begin = l->records;
  if (m->kind == MDL_MARK_PHASE_END)
    l->in_phases += l->records - l->at_begin;
  return TRUE;
}

static void
ledger_report (void *state, MdlReport *out)
{
  Ledger *l = state;
  MdlReport *phase = mdl_report_new ("all phases", NULL);
  l->report_calls++;
  mdl_report_add_count (out, "records", "count", "CPU records", NULL, l->records);
  mdl_report_add_count (out, "report_calls", "count", "reports asked for", NULL, l->report_calls);
  mdl_report_add_count (phase, "records", "count", "CPU records", NULL, l->in_phases);
  mdl_report_add_phase (out, phase);
}

static const MdlEngineClass ledger_class = {
  .abi = MDL_ENGINE_ABI,
  .name = "ledger",
  .summary = "keeps its own phase breakdown (test engine)",
  .params = ledger_params,
  .state_size = sizeof (Ledger),
  .init = ledger_init,
  .consume = ledger_consume,
  .marker = ledger_marker,
  .report = ledger_report,
  .flags = MDL_ENGINE_OWN_PHASES,
};

/* ---- stream helpers ---- */

/* One step of a scripted stream: 'c' a CPU event, 'b'/'e' phase begin/end of @name, 's' sync. */
typedef struct {
  char what;
  guint8 kind;
  guint16 size;
  guint64 addr;
  const char *name;
} Step;

#define CPU(kind, size, addr) { 'c', (kind), (size), (addr), NULL }
#define BEGIN(name) { 'b', 0, 0, 0, (name) }
#define END(name) { 'e', 0, 0, 0, (name) }
#define SYNC { 's', 0, 0, 0, NULL }

/* Feeds @steps to @e, consecutive CPU steps as one batch; fails the test on any error. With
 * @fresh, an empty batch goes before every marker. */
static void
feed_with (MdlEngine *e, const Step *steps, gsize n, gboolean fresh)
{
  g_autoptr (GArray) pending = g_array_new (FALSE, FALSE, sizeof (MdlCpuEvent));
  for (gsize i = 0; i <= n; i++)
    {
      g_autoptr (GError) error = NULL;
      if (i < n && steps[i].what == 'c')
        {
          MdlCpuEvent ev = { .kind = steps[i].kind, .size = steps[i].size, .addr = steps[i].addr };
          g_array_append_val (pending, ev);
          continue;
        }
      if (pending->len)
        {
          MdlEventBatch b = { .cpu = (const MdlCpuEvent *) (void *) pending->data,
                              .n_cpu = pending->len };
          if (!mdl_engine_consume (e, &b, &error))
            fail_msg ("step %" G_GSIZE_FORMAT ": %s", i, error->message);
          g_array_set_size (pending, 0);
        }
      if (i < n && fresh)
        {
          MdlEventBatch none = { .cpu = NULL, .n_cpu = 0 };
          if (!mdl_engine_consume (e, &none, &error))
            fail_msg ("step %" G_GSIZE_FORMAT ": %s", i, error->message);
        }
      if (i < n)
        {
          MdlMarker m = { .kind = steps[i].what == 'b' ? MDL_MARK_PHASE_BEGIN
                                  : steps[i].what == 'e' ? MDL_MARK_PHASE_END : MDL_MARK_SYNC,
                          .name = steps[i].name };
          if (!mdl_engine_marker (e, &m, &error))
            fail_msg ("step %" G_GSIZE_FORMAT ": %s", i, error->message);
        }
    }
}

static void
feed (MdlEngine *e, const Step *steps, gsize n)
{
  feed_with (e, steps, n, FALSE);
}

static gboolean
marker (MdlEngine *e, MdlMarkerKind kind, const char *name, GError **error)
{
  MdlMarker m = { .kind = kind, .name = name };
  return mdl_engine_marker (e, &m, error);
}

static gboolean
read_at (MdlEngine *e, guint64 addr, GError **error)
{
  MdlCpuEvent ev = { .kind = MDL_CPU_READ, .size = 8, .addr = addr };
  MdlEventBatch b = { .cpu = &ev, .n_cpu = 1 };
  return mdl_engine_consume (e, &b, error);
}

/* The report of @e as JSON text, a deep value to compare two engines by. */
static char *
report_json (MdlEngine *e)
{
  g_autoptr (MdlReport) r = mdl_engine_report (e);
  MdlReport *one[] = { r };
  MdlSourceInfo src = { "s", 0, 0.0 };
  GString *out = g_string_new (NULL);
  mdl_reports_write (&src, one, 1, MDL_FORMAT_JSON, out);
  return g_string_free (out, FALSE);
}

/* ---- registry ---- */

/* Ensure an unknown engine is MDL_ERROR_UNKNOWN_NAME listing the engines and a close match. */
static void
test_unknown_engine_suggests_close_name (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (mdl_engine_new ("cont", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown engine \"cont\"; valid: count, footprint");
  assert_null (mdl_engine_new ("footprnt:page_bytes=4096", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "(did you mean \"footprint\"?)");
  assert_null (mdl_engine_new ("zzzzzzzz", &error));
  assert_non_null (error);
  assert_null (strstr (error->message, "did you mean"));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "unknown engine \"zzzzzzzz\"");
  assert_null (mdl_engine_new (":x=1", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "has no name");
}

/* Rows: a spec and the full normalized spec of the engine it makes (every parameter, table order,
 * machine first; page_bytes and line_bytes from data/machines.ini where a machine is named). */
static const struct {
  const char *spec;
  const char *expect;
} spec_rows[] = {
  { "count", "count" },
  { "count:", "count" },
  { "footprint", "footprint:page_bytes=4096,line_bytes=64,buckets=22" },
  { "footprint:buckets=8,page_bytes=4k", "footprint:page_bytes=4096,line_bytes=64,buckets=8" },
  { "footprint:page_bytes=0x10000,line_bytes=32",
    "footprint:page_bytes=65536,line_bytes=32,buckets=22" },
  { "footprint:machine=x86-64", "footprint:machine=x86-64,page_bytes=4096,line_bytes=64,buckets=22" },
  { "footprint:machine=h100,page_bytes=2M",
    "footprint:machine=h100,page_bytes=2097152,line_bytes=128,buckets=22" },
  { "footprint:line_bytes=32,machine=h100,page_bytes=4k",
    "footprint:machine=h100,page_bytes=4096,line_bytes=32,buckets=22" },
  { "tally", "tally:weight=1" },
  { "tally:weight=0x10", "tally:weight=16" },
};

/* Ensure each engine carries its full, normalized spec, and the name of its class. */
static void
test_spec_is_full_and_normalized (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (spec_rows); i++)
    {
      g_autoptr (MdlEngine) e = test_engine_new (spec_rows[i].spec);
      g_autoptr (MdlReport) r = mdl_engine_report (e);
      g_autofree char *name = g_strndup (spec_rows[i].spec, strcspn (spec_rows[i].spec, ":"));
      if (strcmp (mdl_engine_spec (e), spec_rows[i].expect) != 0)
        fail_msg ("%s: spec %s, expected %s", spec_rows[i].spec, mdl_engine_spec (e),
                  spec_rows[i].expect);
      assert_string_equal (mdl_engine_name (e), name);
      assert_string_equal (mdl_report_spec (r), spec_rows[i].expect);
      assert_string_equal (mdl_report_engine (r), name);
    }
}

/* Rows: bad parameters, and the error each gives. */
static const struct {
  const char *spec;
  int code;
  const char *expect;
} bad_spec_rows[] = {
  { "footprint:page_bytes=3", MDL_ERROR_PARAM, "footprint: page_bytes=3 is not a power of two" },
  { "footprint:buckets=1", MDL_ERROR_PARAM, "footprint: buckets=1 is out of range (valid: 2..64)" },
  { "footprint:pagebytes=4096", MDL_ERROR_PARAM,
    "footprint: unknown parameter \"pagebytes\"; valid: page_bytes, line_bytes, buckets, machine "
    "(did you mean \"page_bytes\"?)" },
  { "footprint:machine=z80", MDL_ERROR_UNKNOWN_NAME, "footprint: unknown machine \"z80\"" },
  { "count:x=1", MDL_ERROR_PARAM, "count: unknown parameter \"x\"; valid: machine" },
  { "footprint:page_bytes", MDL_ERROR_PARAM, "expected key=value, got \"page_bytes\"" },
  { "tally:weight=13", MDL_ERROR_PARAM, "tally: weight=13 is unlucky" },
  { "tally:weight=1001", MDL_ERROR_PARAM, "tally: weight=1001 is out of range (valid: 1..1000)" },
};

/* Ensure a bad parameter, or a failing init, gives the error naming the engine. */
static void
test_bad_parameters_name_the_engine (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_spec_rows); i++)
    {
      GError *error = NULL;
      MdlEngine *e = mdl_engine_new (bad_spec_rows[i].spec, &error);
      if (e != NULL)
        fail_msg ("%s: accepted as %s", bad_spec_rows[i].spec, mdl_engine_spec (e));
      assert_mdl_error (error, bad_spec_rows[i].code, bad_spec_rows[i].expect);
    }
}

/* Rows: a spec, a default machine, and the engine's spec (or the error's text). */
static const struct {
  const char *spec;
  const char *machine;
  const char *expect;
} machine_rows[] = {
  { "footprint:page_bytes=2M", "h100",
    "footprint:machine=h100,page_bytes=2097152,line_bytes=128,buckets=22" },
  { "footprint:machine=x86-64", "h100",
    "footprint:machine=x86-64,page_bytes=4096,line_bytes=64,buckets=22" },
  { "footprint:line_bytes=32,page_bytes=4k", "h100",
    "footprint:machine=h100,page_bytes=4096,line_bytes=32,buckets=22" },
  { "footprint", NULL, "footprint:page_bytes=4096,line_bytes=64,buckets=22" },
  { "footprint", "z80", "footprint: unknown machine \"z80\"" },
};

/* Ensure mdl_engine_new_on puts an engine on the machine given, unless its spec names its own, and
 * that a pipeline's machine does the same for the engines added by spec. */
static void
test_default_machine_yields_to_the_spec (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (machine_rows); i++)
    {
      GError *error = NULL;
      g_autoptr (MdlEngine) e = mdl_engine_new_on (machine_rows[i].spec, machine_rows[i].machine,
                                                   &error);
      g_autoptr (MdlPipeline) p = mdl_pipeline_new ();
      GError *pipe_error = NULL;
      mdl_pipeline_set_machine (p, machine_rows[i].machine);
      if (e == NULL)
        {
          assert_false (mdl_pipeline_add_engine_spec (p, machine_rows[i].spec, &pipe_error));
          assert_mdl_error (pipe_error, MDL_ERROR_UNKNOWN_NAME, machine_rows[i].expect);
          assert_mdl_error (error, MDL_ERROR_UNKNOWN_NAME, machine_rows[i].expect);
          continue;
        }
      if (strcmp (mdl_engine_spec (e), machine_rows[i].expect) != 0)
        fail_msg ("%s on %s: spec %s, expected %s", machine_rows[i].spec,
                  machine_rows[i].machine ? machine_rows[i].machine : "(none)", mdl_engine_spec (e),
                  machine_rows[i].expect);
      assert_true (mdl_pipeline_add_engine_spec (p, machine_rows[i].spec, NULL));
      assert_string_equal (mdl_engine_spec (mdl_pipeline_engine (p, 0)), machine_rows[i].expect);
    }
}

/* Ensure every built-in class passes the check that user classes must pass. */
static void
test_builtin_classes_pass_the_class_check (void **state)
{
  guint n;
  g_autofree const MdlEngineClass **all = mdl_engine_classes (&n);
  (void) state;
  assert_true (n >= 2);
  assert_ptr_equal (all[0], &mdl_count_class);
  assert_ptr_equal (all[1], &mdl_footprint_class);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GError) error = NULL;
      if (!mdl_engine_class_check (all[i], &error))
        fail_msg ("%s: %s", all[i]->name, error->message);
      assert_ptr_equal (mdl_engine_class_lookup (all[i]->name), all[i]);
    }
  assert_null (mdl_engine_class_lookup ("nope"));
}

/* Ensure registered user classes are listed after the built-in ones, in order, and found by name. */
static void
test_user_class_is_listed_and_found (void **state)
{
  guint n;
  g_autofree const MdlEngineClass **all = mdl_engine_classes (&n);
  (void) state;
  assert_ptr_equal (all[n - 2], &tally_class);
  assert_ptr_equal (all[n - 1], &ledger_class);
  assert_ptr_equal (mdl_engine_class_lookup ("tally"), &tally_class);
  assert_ptr_equal (mdl_engine_class_lookup ("ledger"), &ledger_class);
}

/* Ensure a name already taken, built-in or user, cannot be registered again. */
static void
test_duplicate_engine_name_is_rejected (void **state)
{
  static MdlEngineClass count_again;
  static MdlEngineClass tally_again;
  GError *error = NULL;
  guint before, after;
  g_free (mdl_engine_classes (&before));
  (void) state;
  count_again = tally_class;
  count_again.name = "count";
  tally_again = tally_class;
  assert_false (mdl_engine_register (&tally_class, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "engine name \"tally\" is already registered");
  assert_false (mdl_engine_register (&count_again, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "engine name \"count\" is already registered");
  assert_false (mdl_engine_register (&tally_again, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "engine name \"tally\" is already registered");
  g_free (mdl_engine_classes (&after));
  assert_int_equal (before, after);
}

/* Parameter tables that break one rule each. */
static const MdlParamSpec params_reserved[] = {
  { "machine", MDL_PARAM_STRING, "x", NULL, 0, 0, NULL, 0, "reserved" }, { NULL } };
static const MdlParamSpec params_no_help[] = {
  { "k", MDL_PARAM_UINT, "1", NULL, 0, 0, NULL, 0, NULL }, { NULL } };
static const MdlParamSpec params_no_choices[] = {
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, NULL, 0, "policy" }, { NULL } };
static const MdlParamSpec params_twice[] = {
  { "k", MDL_PARAM_UINT, "1", NULL, 0, 0, NULL, 0, "k" },
  { "k", MDL_PARAM_UINT, "2", NULL, 0, 0, NULL, 0, "k again" }, { NULL } };
static const MdlParamSpec params_bad_type[] = {
  { "k", (MdlParamType) 9, "1", NULL, 0, 0, NULL, 0, "k" }, { NULL } };
static const MdlParamSpec params_default_garbage[] = {
  { "k", MDL_PARAM_UINT, "abc", NULL, 0, 0, NULL, 0, "k" }, { NULL } };
static const MdlParamSpec params_default_not_pow2[] = {
  { "k", MDL_PARAM_UINT, "3", NULL, 1, 0, NULL, MDL_PARAM_POW2, "k" }, { NULL } };
static const MdlParamSpec params_default_out_of_range[] = {
  { "k", MDL_PARAM_UINT, "0", NULL, 1, 8, NULL, 0, "k" }, { NULL } };
static const MdlParamSpec params_default_not_a_choice[] = {
  { "policy", MDL_PARAM_CHOICE, "fifo", NULL, 0, 0, "lru|min", 0, "policy" }, { NULL } };
static const MdlParamSpec params_default_not_a_bool[] = {
  { "on", MDL_PARAM_BOOL, "maybe", NULL, 0, 0, NULL, 0, "switch" }, { NULL } };

/* Rows: a class that differs from tally in one way (under a fresh name), and the message. */
static const struct {
  const char *row;
  guint32 abi;
  const char *name;
  const MdlParamSpec *params;
  gboolean no_consume;
  gboolean no_summary;
  const char *expect;
} bad_class_rows[] = {
  { "ABI 0", 0, "bad-abi", NULL, FALSE, FALSE,
    "engine bad-abi: ABI 0 not supported (this library has ABI 1)" },
  { "ABI from the future", MDL_ENGINE_ABI + 1, "bad-abi", NULL, FALSE, FALSE,
    "engine bad-abi: ABI 2 not supported" },
  { "upper-case name", MDL_ENGINE_ABI, "Tally2", NULL, FALSE, FALSE,
    "engine name \"Tally2\" must start with a lower-case letter and use only a-z, 0-9, '-' and '_'" },
  { "name with a colon", MDL_ENGINE_ABI, "t:x", NULL, FALSE, FALSE, "engine name \"t:x\" must start" },
  { "empty name", MDL_ENGINE_ABI, "", NULL, FALSE, FALSE, "engine name \"\" must start" },
  { "no name", MDL_ENGINE_ABI, NULL, NULL, FALSE, FALSE, "engine name \"(null)\" must start" },
  { "no consume", MDL_ENGINE_ABI, "noconsume", NULL, TRUE, FALSE,
    "engine noconsume: summary, params, init, consume and report are required" },
  { "no summary", MDL_ENGINE_ABI, "nosummary", NULL, FALSE, TRUE, "are required" },
  { "reserved key", MDL_ENGINE_ABI, "p1", params_reserved, FALSE, FALSE,
    "engine p1: parameter row \"machine\" is malformed" },
  { "row without help", MDL_ENGINE_ABI, "p2", params_no_help, FALSE, FALSE,
    "engine p2: parameter row \"k\" is malformed" },
  { "choice without choices", MDL_ENGINE_ABI, "p3", params_no_choices, FALSE, FALSE,
    "engine p3: parameter row \"policy\" is malformed" },
  { "unknown type", MDL_ENGINE_ABI, "p4", params_bad_type, FALSE, FALSE,
    "engine p4: parameter row \"k\" is malformed" },
  { "key declared twice", MDL_ENGINE_ABI, "p5", params_twice, FALSE, FALSE,
    "engine p5: parameter \"k\" is declared twice" },
  { "default not a number", MDL_ENGINE_ABI, "d1", params_default_garbage, FALSE, FALSE,
    "engine d1: bad default: d1: bad value \"abc\" for k: expected an unsigned integer" },
  { "default not a power of two", MDL_ENGINE_ABI, "d2", params_default_not_pow2, FALSE, FALSE,
    "engine d2: bad default: d2: k=3 is not a power of two" },
  { "default out of range", MDL_ENGINE_ABI, "d3", params_default_out_of_range, FALSE, FALSE,
    "engine d3: bad default: d3: k=0 is out of range (valid: 1..8)" },
  { "default not a choice", MDL_ENGINE_ABI, "d4", params_default_not_a_choice, FALSE, FALSE,
    "engine d4: bad default: d4: bad value \"fifo\" for policy; valid: lru, min" },
  { "default not a boolean", MDL_ENGINE_ABI, "d5", params_default_not_a_bool, FALSE, FALSE,
    "engine d5: bad default: d5: bad value \"maybe\" for on: expected a boolean" },
};

/* Ensure the class check rejects a bad ABI, a bad name, a missing method and every kind of
 * malformed parameter row or default, and that a rejected class is not registered. */
static void
test_bad_classes_are_rejected (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_class_rows); i++)
    {
      MdlEngineClass *k = g_new (MdlEngineClass, 1);
      GError *error = NULL;
      *k = tally_class;
      k->abi = bad_class_rows[i].abi;
      k->name = bad_class_rows[i].name;
      if (bad_class_rows[i].params)
        k->params = bad_class_rows[i].params;
      if (bad_class_rows[i].no_consume)
        k->consume = NULL;
      if (bad_class_rows[i].no_summary)
        k->summary = NULL;
      if (mdl_engine_register (k, &error))
        fail_msg ("%s: registered", bad_class_rows[i].row);
      if (error == NULL || strstr (error->message, bad_class_rows[i].expect) == NULL)
        fail_msg ("%s: expected \"%s\", got \"%s\"", bad_class_rows[i].row, bad_class_rows[i].expect,
                  error ? error->message : "no error");
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, bad_class_rows[i].expect);
      if (k->name && *k->name)
        assert_null (mdl_engine_class_lookup (k->name));
      g_free (k);
    }
}

/* Ensure a class with flag bits this library does not know is rejected, naming the bits. */
static void
test_unknown_class_flags_are_rejected (void **state)
{
  MdlEngineClass k = tally_class;
  GError *error = NULL;
  (void) state;
  k.name = "flagged";
  k.flags = MDL_ENGINE_OWN_PHASES | 0x6;
  assert_false (mdl_engine_register (&k, &error));
  assert_mdl_error (error, MDL_ERROR_PARAM, "engine flagged: unknown flags 0x6");
  assert_null (mdl_engine_class_lookup ("flagged"));
}

/* ---- per-phase breakdown ---- */

/* The stream of the phase tests. Phase "outer" holds steps 2-8, "inner" is entered twice (steps
 * 4-6 inside outer, steps 10-12 after it). A phase's own begin and end markers belong to it: the
 * core snapshots before the engine sees the begin, and after it sees the end. */
static const Step phase_stream[] = {
  CPU (MDL_CPU_READ, 8, 0x100),                               /* 1 */
  BEGIN ("outer"),                                            /* 2 */
  CPU (MDL_CPU_READ, 8, 0x108), CPU (MDL_CPU_WRITE, 4, 0x200), /* 3 */
  BEGIN ("inner"),                                            /* 4 */
  CPU (MDL_CPU_READ, 8, 0x110), CPU (MDL_CPU_OPS, 0, 5),      /* 5 */
  END ("inner"),                                              /* 6 */
  CPU (MDL_CPU_WRITE, 4, 0x204),                              /* 7 */
  END ("outer"),                                              /* 8 */
  SYNC,                                                       /* 9 */
  BEGIN ("inner"),                                            /* 10 */
  CPU (MDL_CPU_MODIFY, 2, 0x300), CPU (MDL_CPU_READ, 1, 0x302), /* 11 */
  END ("inner"),                                              /* 12 */
  CPU (MDL_CPU_READ, 8, 0x118),                               /* 13 */
};

/* Rows: expected count-engine counters per phase ("" = the whole run), worked out from the
 * numbered steps above:
 *   outer = steps 2-8: begin outer | R8 W4 | begin inner | R8 ops5 | end inner | W4 | end outer
 *   inner = steps 4-6 + 10-12: begin, R8 ops5, end + begin, M2 R1, end (modify bytes count as
 *           read and written)
 *   total = everything: reads R8 R8 R8 R1 R8 (33 bytes) + M2, writes W4 W4 + M2. */
static const struct {
  const char *phase;
  const char *counter;
  guint64 value;
} phase_rows[] = {
  { "outer", "cpu_reads", 2 },        { "outer", "cpu_writes", 2 },
  { "outer", "cpu_modifies", 0 },     { "outer", "bytes_read", 16 },
  { "outer", "bytes_written", 8 },    { "outer", "ram_ops", 5 },
  { "outer", "size_8", 2 },           { "outer", "size_4", 2 },
  { "outer", "size_1", 0 },           { "outer", "markers_phase_begin", 2 },
  { "outer", "markers_phase_end", 2 }, { "outer", "markers_sync", 0 },
  { "inner", "cpu_reads", 2 },        { "inner", "cpu_writes", 0 },
  { "inner", "cpu_modifies", 1 },     { "inner", "bytes_read", 11 },
  { "inner", "bytes_written", 2 },    { "inner", "ram_ops", 5 },
  { "inner", "size_8", 1 },           { "inner", "size_2", 1 },
  { "inner", "size_1", 1 },           { "inner", "size_4", 0 },
  { "inner", "markers_phase_begin", 2 }, { "inner", "markers_phase_end", 2 },
  { "inner", "markers_sync", 0 },
  { "", "cpu_reads", 5 },             { "", "cpu_writes", 2 },
  { "", "cpu_modifies", 1 },          { "", "bytes_read", 35 },
  { "", "bytes_written", 10 },        { "", "ram_ops", 5 },
  { "", "markers_phase_begin", 3 },   { "", "markers_phase_end", 3 },
  { "", "markers_sync", 1 },
};

/* Ensure nested and repeated phases get exactly the counts between their markers. */
static void
test_phase_breakdown_of_nested_and_repeated_phases (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("count");
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  feed (e, phase_stream, G_N_ELEMENTS (phase_stream));
  r = mdl_engine_report (e);
  /* Phases are listed in order of first appearance: outer begins before inner. */
  assert_int_equal (mdl_report_n_phases (r), 2);
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 0)), "outer");
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 1)), "inner");
  for (guint i = 0; i < G_N_ELEMENTS (phase_rows); i++)
    {
      const MdlReport *where = r;
      guint64 got;
      for (guint p = 0; p < mdl_report_n_phases (r) && *phase_rows[i].phase; p++)
        if (strcmp (mdl_report_engine (mdl_report_phase (r, p)), phase_rows[i].phase) == 0)
          where = mdl_report_phase (r, p);
      got = test_report_count (where, phase_rows[i].counter);
      if (got != phase_rows[i].value)
        fail_msg ("phase \"%s\", %s: expected %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT,
                  phase_rows[i].phase, phase_rows[i].counter, phase_rows[i].value, got);
    }
  /* Every count of the engine appears in each phase, in the same order. */
  for (guint p = 0; p < 2; p++)
    {
      const MdlReport *ph = mdl_report_phase (r, p);
      assert_int_equal (mdl_report_n_counters (ph), mdl_report_n_counters (r));
      for (guint c = 0; c < mdl_report_n_counters (r); c++)
        assert_string_equal (mdl_report_counter (ph, c)->name, mdl_report_counter (r, c)->name);
    }
}

/* Ensure a phase mark with no event and no marker since the previous one keeps that one's
 * counts exactly (the core takes no new report then): random streams of events, nested phases
 * entered and left back to back, and syncs, against the same streams with an empty batch before
 * every marker (so that every mark takes a fresh report), under an engine that counts markers
 * and one that takes none. Seed: MODELS_TEST_SEED (default 77), named in every failure. */
static void
test_back_to_back_marks_match_fresh_reports (void **state)
{
  static const char *const specs[] = { "count", "tally:weight=3" };
  static const char *const names[] = { "a", "b", "c" };
  guint32 seed = test_seed (77);
  GRand *r = g_rand_new_with_seed (seed);
  (void) state;
  for (guint round = 0; round < 300; round++)
    {
      g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (Step));
      const char *open[64];
      guint depth = 0, n = (guint) g_rand_int_range (r, 1, 40);
      for (guint i = 0; i < n || depth > 0; i++)
        {
          guint pick = (guint) g_rand_int_range (r, 0, 10);
          Step st = CPU (MDL_CPU_READ, 4, (guint64) g_rand_int_range (r, 0, 64) * 4);
          if (i >= n || (pick < 3 && depth > 0))
            st = (Step) END (open[--depth]);
          else if (pick < 6 && depth < G_N_ELEMENTS (open))
            st = (Step) BEGIN (open[depth++] = names[g_rand_int_range (r, 0, 3)]);
          else if (pick < 7)
            st = (Step) SYNC;
          g_array_append_val (steps, st);
        }
      for (guint k = 0; k < G_N_ELEMENTS (specs); k++)
        {
          g_autoptr (MdlEngine) reused = test_engine_new (specs[k]);
          g_autoptr (MdlEngine) fresh = test_engine_new (specs[k]);
          g_autoptr (MdlReport) a = NULL, b = NULL;
          feed_with (reused, (const Step *) (void *) steps->data, steps->len, FALSE);
          feed_with (fresh, (const Step *) (void *) steps->data, steps->len, TRUE);
          a = mdl_engine_report (reused);
          b = mdl_engine_report (fresh);
          if (mdl_report_n_phases (a) != mdl_report_n_phases (b))
            fail_msg ("seed %u: round %u: %s: %u phases, %u with fresh reports", seed, round,
                      specs[k], mdl_report_n_phases (a), mdl_report_n_phases (b));
          for (guint p = 0; p < mdl_report_n_phases (a); p++)
            for (guint c = 0; c < mdl_report_n_counters (mdl_report_phase (a, p)); c++)
              if (mdl_report_counter (mdl_report_phase (a, p), c)->count
                  != mdl_report_counter (mdl_report_phase (b, p), c)->count)
                fail_msg ("seed %u: round %u: %s: phase %s, %s differs", seed, round, specs[k],
                          mdl_report_engine (mdl_report_phase (a, p)),
                          mdl_report_counter (mdl_report_phase (a, p), c)->name);
        }
    }
  g_rand_free (r);
}

/* Ensure derived reals are left out of phase sub-reports (they do not add up), counts are kept. */
static void
test_phase_breakdown_leaves_out_reals (void **state)
{
  static const Step stream[] = {
    CPU (MDL_CPU_READ, 8, 0x0), BEGIN ("p"), CPU (MDL_CPU_READ, 4, 0x8), CPU (MDL_CPU_WRITE, 2, 0x10),
    END ("p"),
  };
  g_autoptr (MdlEngine) e = test_engine_new ("tally:weight=3");
  g_autoptr (MdlReport) r = NULL;
  const MdlReport *p;
  (void) state;
  feed (e, stream, G_N_ELEMENTS (stream));
  r = mdl_engine_report (e);
  assert_int_equal (test_report_count (r, "accesses"), 9);   /* 3 accesses of weight 3 */
  assert_true (mdl_report_lookup (r, "mean_bytes")->real == 14.0 / 9.0);
  p = mdl_report_phase (r, 0);
  assert_int_equal (mdl_report_n_counters (p), 2);
  assert_int_equal (test_report_count (p, "accesses"), 6);   /* 2 accesses of weight 3 */
  assert_int_equal (test_report_count (p, "bytes"), 6);
  assert_null (mdl_report_lookup (p, "mean_bytes"));
}

/* Ensure site phases attribute each run of one site id to a phase named by its latest SITE marker
 * (or "site N"), across batch boundaries, and leave site 0 out. Stream, by hand: a batch with sites
 * 1 1 0 2 and a second batch with sites 2 1; site 1 is named "partition", site 2 is not. So
 * "partition" gets reads 1, 2 and 6 (3 reads, 24 bytes), "site 2" reads 4 and 5 (2 reads), and
 * the read of site 0 is in the totals only (6 reads). */
static void
test_site_phases_follow_site_ids (void **state)
{
  static const guint16 first_sites[] = { 1, 1, 0, 2 };
  static const guint16 second_sites[] = { 2, 1 };
  g_autoptr (MdlEngine) e = test_engine_new ("count");
  g_autoptr (MdlReport) r = NULL;
  MdlCpuEvent first[4], second[2];
  MdlMarker name = { .kind = MDL_MARK_SITE, .site = 1, .name = "partition" };
  MdlEventBatch b1 = { .cpu = first, .n_cpu = 4 }, b2 = { .cpu = second, .n_cpu = 2 };
  (void) state;
  for (guint i = 0; i < 4; i++)
    first[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .site = first_sites[i], .addr = 8 * i };
  for (guint i = 0; i < 2; i++)
    second[i] = (MdlCpuEvent) { .kind = MDL_CPU_READ, .size = 8, .site = second_sites[i], .addr = 64 };
  mdl_engine_set_site_phases (e, TRUE);
  assert_true (mdl_engine_marker (e, &name, NULL));
  assert_true (mdl_engine_consume (e, &b1, NULL));
  assert_true (mdl_engine_consume (e, &b2, NULL));
  r = mdl_engine_report (e);
  assert_int_equal (mdl_report_lookup (r, "cpu_reads")->count, 6);
  assert_int_equal (mdl_report_n_phases (r), 2);
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 0)), "partition");
  assert_int_equal (mdl_report_lookup (mdl_report_phase (r, 0), "cpu_reads")->count, 3);
  assert_int_equal (mdl_report_lookup (mdl_report_phase (r, 0), "bytes_read")->count, 24);
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 1)), "site 2");
  assert_int_equal (mdl_report_lookup (mdl_report_phase (r, 1), "cpu_reads")->count, 2);
}

/* Ensure only closed phases are reported. */
static void
test_open_phase_is_not_reported (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("count");
  g_autoptr (MdlReport) open = NULL;
  g_autoptr (MdlReport) closed = NULL;
  (void) state;
  assert_true (marker (e, MDL_MARK_PHASE_BEGIN, "a", NULL));
  assert_true (read_at (e, 0x10, NULL));
  open = mdl_engine_report (e);
  assert_int_equal (mdl_report_n_phases (open), 0);
  assert_true (marker (e, MDL_MARK_PHASE_END, "a", NULL));
  closed = mdl_engine_report (e);
  assert_int_equal (mdl_report_n_phases (closed), 1);
  assert_int_equal (test_report_count (mdl_report_phase (closed, 0), "cpu_reads"), 1);
}

/* Rows: phase markers that do not nest, and the message of the failing end. */
static const struct {
  const char *row;
  const char *begins[2];
  const char *end;
  const char *expect;
} mismatch_rows[] = {
  { "end without begin", { NULL, NULL }, "a", "phase end \"a\" does not match any open phase" },
  { "end of another phase", { "a", NULL }, "b", "phase end \"b\" does not match the open phase \"a\"" },
  { "end of the outer phase first", { "a", "b" }, "a",
    "phase end \"a\" does not match the open phase \"b\"" },
};

/* Ensure a phase end that does not match the innermost open phase is MDL_ERROR_FORMAT, and the
 * engine then refuses further events. */
static void
test_mismatched_phase_end_is_a_format_error (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (mismatch_rows); i++)
    {
      g_autoptr (MdlEngine) e = test_engine_new ("count");
      GError *error = NULL;
      for (guint b = 0; b < 2 && mismatch_rows[i].begins[b]; b++)
        if (!marker (e, MDL_MARK_PHASE_BEGIN, mismatch_rows[i].begins[b], NULL))
          fail_msg ("%s: begin refused", mismatch_rows[i].row);
      if (marker (e, MDL_MARK_PHASE_END, mismatch_rows[i].end, &error))
        fail_msg ("%s: accepted", mismatch_rows[i].row);
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_FORMAT, mismatch_rows[i].expect);
      assert_false (read_at (e, 0x10, &error));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL,
                        "engine stopped by an earlier error");
    }
}

/* Ensure an engine whose consume failed refuses every later batch and marker, and counts nothing
 * more. The refusal does not repeat the spec: a pipeline prefixes every engine error with it. */
static void
test_failed_engine_refuses_further_events (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("tally:weight=2");
  g_autoptr (MdlReport) r = NULL;
  GError *error = NULL;
  (void) state;
  assert_true (read_at (e, 0x10, NULL));
  assert_false (read_at (e, 0xdead, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL, "tally: address 0xdead is poisoned");
  assert_false (read_at (e, 0x20, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL,
                    "engine stopped by an earlier error");
  assert_false (marker (e, MDL_MARK_SYNC, NULL, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_MODEL,
                    "engine stopped by an earlier error");
  r = mdl_engine_report (e);
  assert_int_equal (test_report_count (r, "accesses"), 2);
}

/* Ensure a class with MDL_ENGINE_OWN_PHASES gets no core snapshots (the core does not call its
 * report during the stream), no core phase checks (an unmatched end is its own business), and
 * exactly the phase sub-reports it adds itself. phase_stream holds 9 CPU records. */
static void
test_engine_owning_its_phases_gets_no_core_breakdown (void **state)
{
  g_autoptr (MdlEngine) e = test_engine_new ("ledger");
  g_autoptr (MdlReport) r = NULL;
  (void) state;
  feed (e, phase_stream, G_N_ELEMENTS (phase_stream));
  assert_true (marker (e, MDL_MARK_PHASE_END, "never-begun", NULL));
  r = mdl_engine_report (e);
  assert_int_equal (test_report_count (r, "records"), 9);
  assert_int_equal (test_report_count (r, "report_calls"), 1);
  assert_int_equal (mdl_report_n_phases (r), 1);
  assert_string_equal (mdl_report_engine (mdl_report_phase (r, 0)), "all phases");
}

/* A second stream for the reset test: different counts, and a phase of its own. */
static const Step other_stream[] = {
  BEGIN ("p2"), CPU (MDL_CPU_WRITE, 16, 0x5000), CPU (MDL_CPU_READ, 64, 0x9ff0), END ("p2"),
  CPU (MDL_CPU_READ, 2, 0x10), CPU (MDL_CPU_OPS, 0, 9),
};

/* Ensure reset forgets everything, counts, phases, open phases and a failure, so that the engine
 * then reports what a new engine fed the same events reports; for classes with and without a
 * reset method. */
static void
test_reset_gives_a_fresh_engine (void **state)
{
  static const char *const specs[] = { "count", "footprint:buckets=6", "tally:weight=3" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (MdlEngine) used = test_engine_new (specs[i]);
      g_autoptr (MdlEngine) fresh = test_engine_new (specs[i]);
      g_autofree char *want = NULL, *got = NULL;
      feed (used, phase_stream, G_N_ELEMENTS (phase_stream));
      /* Leave a phase open, and for tally a failure, before the reset. */
      assert_true (marker (used, MDL_MARK_PHASE_BEGIN, "left-open", NULL));
      if (strcmp (mdl_engine_name (used), "tally") == 0)
        assert_false (read_at (used, 0xdead, NULL));
      mdl_engine_reset (used);
      feed (used, other_stream, G_N_ELEMENTS (other_stream));
      feed (fresh, other_stream, G_N_ELEMENTS (other_stream));
      want = report_json (fresh);
      got = report_json (used);
      if (strcmp (want, got) != 0)
        fail_msg ("%s: after reset\n%s\nexpected\n%s", specs[i], got, want);
    }
}

static int
group_setup (void **state)
{
  g_autoptr (GError) error = NULL;
  (void) state;
  g_unsetenv ("MODELS_MACHINES");
  if (!mdl_engine_register (&tally_class, &error) || !mdl_engine_register (&ledger_class, &error))
    {
      print_error ("cannot register the test engines: %s\n", error->message);
      return -1;
    }
  return 0;
}

/* Ensure every choice of vat's policy parameter (the list the engine accepts, made from
 * VAT_POLICIES) has its one-line explanation in the public header engine.h, so a new policy
 * cannot ship unexplained there. */
static void
test_engine_header_explains_every_vat_policy (void **state)
{
  const MdlEngineClass *vat = mdl_engine_class_lookup ("vat");
  g_autofree char *header = NULL;
  g_autoptr (GError) error = NULL;
  const MdlParamSpec *policy = NULL;
  (void) state;
  assert_non_null (vat);
  for (const MdlParamSpec *p = vat->params; p->key; p++)
    if (strcmp (p->key, "policy") == 0)
      policy = p;
  assert_non_null (policy);
  if (!g_file_get_contents ("include/models/engine.h", &header, NULL, &error))
    fail_msg ("include/models/engine.h (tests run from the repository root): %s", error->message);
  g_auto (GStrv) names = g_strsplit (policy->choices, "|", -1);
  for (char **name = names; *name; name++)
    {
      /* A line " *   NAME  text" or " *   a, NAME  text" of the policy list. */
      g_autofree char *pattern = g_strdup_printf ("^ \\*   ([a-z]+, )*%s[ ,] ", *name);
      if (!g_regex_match_simple (pattern, header, G_REGEX_MULTILINE, 0))
        fail_msg ("vat policy %s has no line in include/models/engine.h", *name);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_unknown_engine_suggests_close_name),
    cmocka_unit_test (test_spec_is_full_and_normalized),
    cmocka_unit_test (test_bad_parameters_name_the_engine),
    cmocka_unit_test (test_default_machine_yields_to_the_spec),
    cmocka_unit_test (test_builtin_classes_pass_the_class_check),
    cmocka_unit_test (test_user_class_is_listed_and_found),
    cmocka_unit_test (test_duplicate_engine_name_is_rejected),
    cmocka_unit_test (test_bad_classes_are_rejected),
    cmocka_unit_test (test_unknown_class_flags_are_rejected),
    cmocka_unit_test (test_site_phases_follow_site_ids),
    cmocka_unit_test (test_phase_breakdown_of_nested_and_repeated_phases),
    cmocka_unit_test (test_phase_breakdown_leaves_out_reals),
    cmocka_unit_test (test_open_phase_is_not_reported),
    cmocka_unit_test (test_mismatched_phase_end_is_a_format_error),
    cmocka_unit_test (test_failed_engine_refuses_further_events),
    cmocka_unit_test (test_engine_owning_its_phases_gets_no_core_breakdown),
    cmocka_unit_test (test_reset_gives_a_fresh_engine),
    cmocka_unit_test (test_back_to_back_marks_match_fresh_reports),
    cmocka_unit_test (test_engine_header_explains_every_vat_policy),
  };
  return cmocka_run_group_tests_name ("engine", tests, group_setup, NULL);
}
