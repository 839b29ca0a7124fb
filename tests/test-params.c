/* Tests of the one parameter parser (include/models/params.h, src/core/params.c): typed values
 * and their normalized text, range and type errors, unknown keys with a close match, machine
 * presets as defaults, and the NAME:key=value splitter. Expected values come from the header's
 * documentation; the preset values from data/machines.ini. */
#include "helpers.h"

#include <string.h>

/* A table with one row of each kind; "demo" owns it. */
static const MdlParamSpec demo_table[] = {
  { "size", MDL_PARAM_UINT, "64", NULL, 1, 0, NULL, 0, "bytes" },
  { "ways", MDL_PARAM_UINT, "8", NULL, 1, 64, NULL, MDL_PARAM_POW2, "associativity" },
  { "ratio", MDL_PARAM_DOUBLE, "0.5", NULL, 0, 0, NULL, 0, "a fraction" },
  { "verbose", MDL_PARAM_BOOL, "no", NULL, 0, 0, NULL, 0, "say more" },
  { "policy", MDL_PARAM_CHOICE, "lru", NULL, 0, 0, "lru|islru|min", 0, "replacement policy" },
  { "label", MDL_PARAM_STRING, "none", NULL, 0, 0, NULL, 0, "a name" },
  { "page_bytes", MDL_PARAM_UINT, "4096", "page_bytes", 1, 0, NULL, MDL_PARAM_POW2, "page size" },
  { "line_bytes", MDL_PARAM_UINT, "32", "line_bytes", 1, 0, NULL, MDL_PARAM_POW2, "line size" },
  { NULL }
};

/* Parses a comma-separated list of assignments ("" for none) against demo_table. */
static MdlParams *
parse_demo (const char *list, GError **error)
{
  g_auto (GStrv) a = *list ? g_strsplit (list, ",", -1) : g_new0 (char *, 1);
  return mdl_params_parse ("demo", demo_table, (const char *const *) a, error);
}

/* Rows: text given for `size` (no upper limit) and the value it must read as, by the header's rule
 * (decimal, 0x hex, k/M/G = 2^10, 2^20, 2^30). */
static const struct {
  const char *text;
  guint64 expect;
} uint_rows[] = {
  { "1", 1 },
  { "64", 64 },
  { "010", 10 },                                   /* decimal, not octal */
  { "0x40", 64 },
  { "0XfF", 255 },
  { "32k", 32768 },                                /* 32 * 1024 */
  { "2M", 2097152 },                               /* 2 * 1048576 */
  { "1G", 1073741824 },
  { "0x10k", 16384 },                              /* 16 * 1024 */
  { "16777215G", 18014397435740160ull },           /* (2^24 - 1) * 2^30 */
  { "18446744073709551615", G_MAXUINT64 },         /* 2^64 - 1 */
};

/* Ensure UINT values accept decimal, hex and the k/M/G suffixes, and normalize to decimal. */
static void
test_uint_accepts_decimal_hex_and_suffixes (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (uint_rows); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *assign = g_strdup_printf ("size=%s", uint_rows[i].text);
      g_autoptr (MdlParams) p = parse_demo (assign, &error);
      g_autofree char *norm = g_strdup_printf ("%" G_GUINT64_FORMAT, uint_rows[i].expect);
      if (p == NULL)
        fail_msg ("%s: rejected: %s", uint_rows[i].text, error->message);
      if (mdl_params_uint (p, "size") != uint_rows[i].expect)
        fail_msg ("%s: expected %" G_GUINT64_FORMAT ", got %" G_GUINT64_FORMAT, uint_rows[i].text,
                  uint_rows[i].expect, mdl_params_uint (p, "size"));
      if (strcmp (mdl_params_string (p, "size"), norm) != 0)
        fail_msg ("%s: normalized to %s, expected %s", uint_rows[i].text,
                  mdl_params_string (p, "size"), norm);
    }
}

/* Rows: texts that are not unsigned integers, or overflow 64 bits. */
static const char *const bad_uint_rows[] = {
  "18446744073709551616", /* 2^64 */
  "17179869184G",         /* 2^34 * 2^30 = 2^64 */
  "99999999999999999999k",
  "-1", "+1", " 1", "", "k", "12x", "1.5", "0x", "0x-1", "4kk", "1e3",
};

/* Ensure malformed and overflowing integers are rejected with a message naming key, value and
 * the expected type. */
static void
test_uint_rejects_garbage_and_overflow (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad_uint_rows); i++)
    {
      GError *error = NULL;
      g_autofree char *assign = g_strdup_printf ("size=%s", bad_uint_rows[i]);
      g_autofree char *needle = g_strdup_printf ("demo: bad value \"%s\" for size: expected an "
                                                 "unsigned integer (bytes)", bad_uint_rows[i]);
      MdlParams *p = parse_demo (assign, &error);
      if (p != NULL)
        fail_msg ("\"%s\": accepted as %" G_GUINT64_FORMAT, bad_uint_rows[i],
                  mdl_params_uint (p, "size"));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, needle);
    }
}

/* Rows: out-of-range and non-power-of-two values, with the message each must give. */
static const struct {
  const char *assign;
  const char *expect;
} range_rows[] = {
  { "ways=128", "demo: ways=128 is out of range (valid: 1..64)" },
  { "ways=0", "demo: ways=0 is out of range (valid: 1..64)" },
  { "ways=0x80", "demo: ways=0x80 is out of range (valid: 1..64)" },
  { "size=0", "demo: size=0 is out of range (valid: >= 1)" },
  { "ways=3", "demo: ways=3 is not a power of two" },
  { "page_bytes=12k", "demo: page_bytes=12k is not a power of two" },
};

/* Ensure range errors state the valid range and POW2 rows reject other values. */
static void
test_uint_range_errors_state_the_valid_range (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (range_rows); i++)
    {
      GError *error = NULL;
      MdlParams *p = parse_demo (range_rows[i].assign, &error);
      if (p != NULL)
        fail_msg ("%s: accepted", range_rows[i].assign);
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, range_rows[i].expect);
    }
}

/* Ensure the bounds themselves and every power of two in range are accepted. */
static void
test_uint_accepts_bounds_and_powers_of_two (void **state)
{
  (void) state;
  for (guint64 w = 1; w <= 64; w *= 2)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *assign = g_strdup_printf ("ways=%" G_GUINT64_FORMAT, w);
      g_autoptr (MdlParams) p = parse_demo (assign, &error);
      if (p == NULL)
        fail_msg ("%s: rejected: %s", assign, error->message);
      assert_int_equal (mdl_params_uint (p, "ways"), w);
    }
}

/* Rows: DOUBLE text and its normalized form, the shortest text that reads back as the same
 * double (printf %.Ng for the smallest N that round-trips). */
static const struct {
  const char *text;
  double value;
  const char *norm;
} double_rows[] = {
  { "0.50", 0.5, "0.5" },
  { "1e3", 1000.0, "1000" },                       /* shorter than 1e+03 */
  { "0.1", 0.1, "0.1" },
  { "-2.25", -2.25, "-2.25" },
  { "123456", 123456.0, "123456" },
  { "100000", 100000.0, "1e+05" },                 /* shorter than 100000 */
  { "2.5e-7", 2.5e-7, "2.5e-07" },
  { "0.30000000000000004", 0.30000000000000004, "0.30000000000000004" }, /* needs all 17 */
  { "0", 0.0, "0" },
};

/* Ensure DOUBLE values normalize to their shortest round-trip text. */
static void
test_double_normalizes_to_shortest_text (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (double_rows); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *assign = g_strdup_printf ("ratio=%s", double_rows[i].text);
      g_autoptr (MdlParams) p = parse_demo (assign, &error);
      if (p == NULL)
        fail_msg ("%s: rejected: %s", double_rows[i].text, error->message);
      if (mdl_params_double (p, "ratio") != double_rows[i].value)
        fail_msg ("%s: read as %.17g", double_rows[i].text, mdl_params_double (p, "ratio"));
      if (strcmp (mdl_params_string (p, "ratio"), double_rows[i].norm) != 0)
        fail_msg ("%s: normalized to %s, expected %s", double_rows[i].text,
                  mdl_params_string (p, "ratio"), double_rows[i].norm);
    }
}

/* Ensure non-numbers, NaN and infinities are rejected for DOUBLE rows. */
static void
test_double_rejects_non_finite_and_garbage (void **state)
{
  static const char *const bad[] = { "", "nan", "inf", "-inf", "1e999", "0.5x", "half", "1,5" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      g_autofree char *needle = g_strdup_printf ("demo: bad value \"%s\" for ratio: expected a "
                                                 "number (a fraction)", bad[i]);
      const char *list[] = { "ratio=", NULL };
      g_autofree char *assign = g_strdup_printf ("ratio=%s", bad[i]);
      MdlParams *p;
      list[0] = assign;
      /* Through the list form, so that "1,5" stays one value. */
      p = mdl_params_parse ("demo", demo_table, list, &error);
      if (p != NULL)
        fail_msg ("\"%s\": accepted as %g", bad[i], mdl_params_double (p, "ratio"));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, needle);
    }
}

/* Rows: every documented BOOL spelling (any case) and its value. */
static const struct {
  const char *text;
  gboolean value;
} bool_rows[] = {
  { "1", TRUE }, { "true", TRUE }, { "yes", TRUE }, { "on", TRUE }, { "TRUE", TRUE }, { "Yes", TRUE },
  { "0", FALSE }, { "false", FALSE }, { "no", FALSE }, { "off", FALSE }, { "OFF", FALSE },
};

/* Ensure BOOL accepts 1/0, true/false, yes/no, on/off in any case and normalizes to 1 or 0. */
static void
test_bool_accepts_every_spelling (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bool_rows); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *assign = g_strdup_printf ("verbose=%s", bool_rows[i].text);
      g_autoptr (MdlParams) p = parse_demo (assign, &error);
      if (p == NULL)
        fail_msg ("%s: rejected: %s", bool_rows[i].text, error->message);
      if (mdl_params_bool (p, "verbose") != bool_rows[i].value)
        fail_msg ("%s: read as %d", bool_rows[i].text, mdl_params_bool (p, "verbose"));
      if (strcmp (mdl_params_string (p, "verbose"), bool_rows[i].value ? "1" : "0") != 0)
        fail_msg ("%s: normalized to %s", bool_rows[i].text, mdl_params_string (p, "verbose"));
    }
}

/* Ensure other words are not booleans, and the message lists the accepted spellings. */
static void
test_bool_rejects_other_words (void **state)
{
  static const char *const bad[] = { "2", "y", "enable", "", "truee" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      g_autofree char *assign = g_strdup_printf ("verbose=%s", bad[i]);
      g_autofree char *needle = g_strdup_printf ("demo: bad value \"%s\" for verbose: expected a "
                                                 "boolean (1/0, true/false, yes/no, on/off)", bad[i]);
      assert_null (parse_demo (assign, &error));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, needle);
    }
}

/* Ensure a CHOICE gives the index of its word and its text. */
static void
test_choice_gives_index_and_word (void **state)
{
  static const char *const words[] = { "lru", "islru", "min" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (words); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *assign = g_strdup_printf ("policy=%s", words[i]);
      g_autoptr (MdlParams) p = parse_demo (assign, &error);
      if (p == NULL)
        fail_msg ("%s: rejected: %s", words[i], error->message);
      if (mdl_params_choice (p, "policy") != i)
        fail_msg ("%s: index %u, expected %u", words[i], mdl_params_choice (p, "policy"), i);
      assert_string_equal (mdl_params_string (p, "policy"), words[i]);
    }
}

/* Rows: bad CHOICE words and the full message; "did you mean" when at most two edits away
 * (lrue -> lru: one deletion; ISLRU -> islru: case-insensitive match), else no suggestion. */
static const struct {
  const char *text;
  const char *expect;
} choice_rows[] = {
  { "lrue", "demo: bad value \"lrue\" for policy; valid: lru, islru, min (did you mean \"lru\"?)" },
  { "ISLRU", "demo: bad value \"ISLRU\" for policy; valid: lru, islru, min (did you mean \"islru\"?)" },
  { "belady", "demo: bad value \"belady\" for policy; valid: lru, islru, min" },
};

/* Ensure a bad CHOICE lists the valid words and suggests a close one, and only a close one. */
static void
test_choice_error_lists_words_and_suggests (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (choice_rows); i++)
    {
      GError *error = NULL;
      g_autofree char *assign = g_strdup_printf ("policy=%s", choice_rows[i].text);
      assert_null (parse_demo (assign, &error));
      if (error == NULL || strcmp (error->message, choice_rows[i].expect) != 0)
        fail_msg ("%s: expected \"%s\", got \"%s\"", choice_rows[i].text, choice_rows[i].expect,
                  error ? error->message : "no error");
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, choice_rows[i].expect);
    }
}

/* Ensure an unknown key lists every valid key plus machine, and suggests the close one. */
static void
test_unknown_key_lists_keys_and_suggests (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (parse_demo ("polcy=lru", &error));
  assert_non_null (error);
  assert_string_equal (error->message, "demo: unknown parameter \"polcy\"; valid: size, ways, "
                       "ratio, verbose, policy, label, page_bytes, line_bytes, machine "
                       "(did you mean \"policy\"?)");
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, "unknown parameter \"polcy\"");

  /* Nothing within two edits: no suggestion. */
  assert_null (parse_demo ("colour=red", &error));
  assert_non_null (error);
  assert_null (strstr (error->message, "did you mean"));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "demo: unknown parameter \"colour\"; valid: size,");
}

/* Ensure assignments without a key or '=' are rejected by the parser, naming the text. */
static void
test_assignment_without_key_or_equals_is_rejected (void **state)
{
  static const char *const bad[] = { "=5", "size", "" };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      const char *list[] = { bad[i], NULL };
      g_autofree char *needle = g_strdup_printf ("demo: expected key=value, got \"%s\"", bad[i]);
      assert_null (mdl_params_parse ("demo", demo_table, list, &error));
      assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, needle);
    }
}

/* Ensure a parameter without default must be given, and the message says a machine may set it
 * when the row has a machine key. */
static void
test_missing_required_parameter_is_named (void **state)
{
  static const MdlParamSpec required[] = {
    { "n", MDL_PARAM_UINT, NULL, NULL, 1, 0, NULL, 0, "problem size" },
    { NULL }
  };
  static const MdlParamSpec required_preset[] = {
    { "warp", MDL_PARAM_UINT, NULL, "warp_width", 1, 64, NULL, 0, "lanes per warp" },
    { NULL }
  };
  GError *error = NULL;
  const char *h100[] = { "machine=h100", NULL };
  const char *x86[] = { "machine=x86-64", NULL };
  const char *given[] = { "n=5", NULL };
  g_autoptr (MdlParams) ok = NULL;
  g_autoptr (MdlParams) from_preset = NULL;
  (void) state;

  assert_null (mdl_params_parse ("algo", required, NULL, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "algo: missing parameter n (problem size)");
  ok = mdl_params_parse ("algo", required, given, &error);
  assert_non_null (ok);
  assert_int_equal (mdl_params_uint (ok, "n"), 5);

  assert_null (mdl_params_parse ("gpu", required_preset, NULL, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "gpu: missing parameter warp (lanes per warp); give it, or a machine= that sets it");
  /* x86-64 has no warp_width: the preset lacks it. h100 sets it to 32. */
  assert_null (mdl_params_parse ("gpu", required_preset, x86, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "gpu: machine x86-64 lacks key warp_width (parameter warp); give warp=... in "
                    "the spec, or a machine that has them: h100");
  from_preset = mdl_params_parse ("gpu", required_preset, h100, &error);
  assert_non_null (from_preset);
  assert_int_equal (mdl_params_uint (from_preset, "warp"), 32);
}

/* Ensure is_set tells given from default. */
static void
test_is_set_tells_given_from_default (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) p = parse_demo ("ways=2,policy=min", &error);
  (void) state;
  assert_non_null (p);
  assert_int_equal (mdl_params_uint (p, "ways"), 2);
  assert_true (mdl_params_is_set (p, "ways"));
  assert_true (mdl_params_is_set (p, "policy"));
  assert_false (mdl_params_is_set (p, "size"));
  assert_null (mdl_params_machine (p));
}

/* Ensure a key given twice is an error that names the key and both values, whatever the values
 * (equal or not) and wherever the repeat is; machine= counts as a key too. */
static void
test_repeated_key_is_an_error (void **state)
{
  static const struct {
    const char *list;
    const char *expect;
  } rows[] = {
    { "ways=2,policy=min,ways=16", "demo: parameter ways is given twice (ways=2, then ways=16)" },
    { "ways=2,ways=2", "demo: parameter ways is given twice (ways=2, then ways=2)" },
    { "label=a,label=", "demo: parameter label is given twice (label=a, then label=)" },
    { "machine=x86-64,machine=h100",
      "demo: parameter machine is given twice (machine=x86-64, then machine=h100)" },
  };
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GError *error = NULL;
      assert_null (parse_demo (rows[i].list, &error));
      assert_mdl_error (error, MDL_ERROR_PARAM, rows[i].expect);
    }
}

/* Ensure defaults fill every parameter, and the normalized text lists all in table order. */
static void
test_defaults_fill_and_normalize_in_table_order (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) p = parse_demo ("", &error);
  g_autofree char *norm = NULL;
  (void) state;
  assert_non_null (p);
  norm = mdl_params_normalized (p);
  assert_string_equal (norm, "size=64,ways=8,ratio=0.5,verbose=0,policy=lru,label=none,"
                             "page_bytes=4096,line_bytes=32");
  assert_int_equal (mdl_params_choice (p, "policy"), 0);
  assert_false (mdl_params_bool (p, "verbose"));
  assert_string_equal (mdl_params_string (p, "label"), "none");
}

/* Ensure machine presets supply defaults through machine_key, an explicit value beats the preset,
 * a key the preset lacks is an error unless the spec gives it, and machine= comes first in the
 * normalized text. Values: data/machines.ini (x86-64: page_bytes=4096, line_bytes=64; h100:
 * line_bytes=128, no page_bytes). */
static void
test_machine_preset_supplies_defaults (void **state)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MdlParams) x86 = parse_demo ("policy=min,machine=x86-64,ways=2", &error);
  g_autoptr (MdlParams) h100 = NULL;
  g_autoptr (MdlParams) explicit_ = NULL;
  g_autofree char *norm = NULL;
  (void) state;
  assert_non_null (x86);
  assert_string_equal (mdl_params_machine (x86), "x86-64");
  assert_int_equal (mdl_params_uint (x86, "page_bytes"), 4096);
  assert_int_equal (mdl_params_uint (x86, "line_bytes"), 64);
  assert_false (mdl_params_is_set (x86, "line_bytes"));
  norm = mdl_params_normalized (x86);
  assert_string_equal (norm, "machine=x86-64,size=64,ways=2,ratio=0.5,verbose=0,policy=min,"
                             "label=none,page_bytes=4096,line_bytes=64");

  assert_null (parse_demo ("machine=h100", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "demo: machine h100 lacks key page_bytes; give page_bytes=... in the spec, or "
                    "a machine that has them: x86-64");
  h100 = parse_demo ("machine=h100,page_bytes=2M", &error);
  assert_non_null (h100);
  assert_int_equal (mdl_params_uint (h100, "line_bytes"), 128);
  assert_int_equal (mdl_params_uint (h100, "page_bytes"), 2097152);

  explicit_ = parse_demo ("line_bytes=256,machine=h100,page_bytes=4k", &error);
  assert_non_null (explicit_);
  assert_int_equal (mdl_params_uint (explicit_, "line_bytes"), 256);
  assert_true (mdl_params_is_set (explicit_, "line_bytes"));
}

/* Ensure an unknown machine is MDL_ERROR_UNKNOWN_NAME, prefixed by the owner, listing presets. */
static void
test_unknown_machine_lists_presets (void **state)
{
  GError *error = NULL;
  (void) state;
  assert_null (parse_demo ("machine=x86", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME,
                    "demo: unknown machine \"x86\"; valid: x86-64, h100");
  assert_null (parse_demo ("machine=", &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_UNKNOWN_NAME, "unknown machine \"\"");
}

/* Ensure a preset value that does not fit the row is an error that says where it came from. */
static void
test_bad_preset_value_names_machine_and_key (void **state)
{
  static const MdlParamSpec table[] = {
    { "lanes", MDL_PARAM_UINT, "32", "description", 1, 0, NULL, 0, "lanes" },
    { "banks", MDL_PARAM_UINT, "32", "shared_banks", 1, 16, NULL, 0, "banks" },
    { NULL }
  };
  const char *x86[] = { "machine=x86-64", "banks=8", NULL };
  const char *h100[] = { "machine=h100", "lanes=4", NULL };
  GError *error = NULL;
  (void) state;
  assert_null (mdl_params_parse ("gpu", table, x86, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "(from machine x86-64, key description): expected an "
                    "unsigned integer");
  /* h100 has shared_banks=32, above this row's maximum of 16. */
  assert_null (mdl_params_parse ("gpu", table, h100, &error));
  assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM,
                    "gpu: banks=32 (from machine h100, key shared_banks) is "
                    "out of range (valid: 1..16)");
}

/* Rows: specs and how they split; NULL @name means an error containing @expect. */
static const struct {
  const char *spec;
  const char *name;
  const char *expect; /* assignments joined by '|', or the error */
} split_rows[] = {
  { "vat", "vat", "" },
  { "vat:", "vat", "" },
  { "vat:W=64", "vat", "W=64" },
  { "vat:policy=islru,P=4096,K=512", "vat", "policy=islru|P=4096|K=512" },
  { "x:a=b=c", "x", "a=b=c" },
  { "x:a=", "x", "a=" },
  { "", NULL, "spec \"\" has no name (expected NAME or NAME:key=value,...)" },
  { ":W=64", NULL, "spec \":W=64\" has no name" },
  { "vat:W", NULL, "spec \"vat:W\": expected key=value, got \"W\"" },
  { "vat:=64", NULL, "spec \"vat:=64\": expected key=value, got \"=64\"" },
  { "vat:W=1,,K=2", NULL, "spec \"vat:W=1,,K=2\": expected key=value, got \"\"" },
  { "vat:W=1,", NULL, "spec \"vat:W=1,\": expected key=value, got \"\"" },
};

/* Ensure mdl_spec_split splits NAME:key=value,... and rejects an empty name or a part without '='. */
static void
test_spec_split_rows (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (split_rows); i++)
    {
      g_autofree char *name = NULL;
      g_auto (GStrv) assignments = NULL;
      GError *error = NULL;
      gboolean ok = mdl_spec_split (split_rows[i].spec, &name, &assignments, &error);
      if (split_rows[i].name == NULL)
        {
          if (ok)
            fail_msg ("\"%s\": accepted", split_rows[i].spec);
          assert_mdl_error (g_steal_pointer (&error), MDL_ERROR_PARAM, split_rows[i].expect);
          continue;
        }
      if (!ok)
        fail_msg ("\"%s\": rejected: %s", split_rows[i].spec, error->message);
      g_autofree char *joined = g_strjoinv ("|", assignments);
      if (strcmp (name, split_rows[i].name) != 0 || strcmp (joined, split_rows[i].expect) != 0)
        fail_msg ("\"%s\": got name %s, assignments %s", split_rows[i].spec, name, joined);
    }
}

static int
setup (void **state)
{
  (void) state;
  g_unsetenv ("MODELS_MACHINES"); /* the built-in presets only */
  return 0;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_uint_accepts_decimal_hex_and_suffixes),
    cmocka_unit_test (test_uint_rejects_garbage_and_overflow),
    cmocka_unit_test (test_uint_range_errors_state_the_valid_range),
    cmocka_unit_test (test_uint_accepts_bounds_and_powers_of_two),
    cmocka_unit_test (test_double_normalizes_to_shortest_text),
    cmocka_unit_test (test_double_rejects_non_finite_and_garbage),
    cmocka_unit_test (test_bool_accepts_every_spelling),
    cmocka_unit_test (test_bool_rejects_other_words),
    cmocka_unit_test (test_choice_gives_index_and_word),
    cmocka_unit_test (test_choice_error_lists_words_and_suggests),
    cmocka_unit_test (test_unknown_key_lists_keys_and_suggests),
    cmocka_unit_test (test_assignment_without_key_or_equals_is_rejected),
    cmocka_unit_test (test_missing_required_parameter_is_named),
    cmocka_unit_test (test_is_set_tells_given_from_default),
    cmocka_unit_test (test_repeated_key_is_an_error),
    cmocka_unit_test (test_defaults_fill_and_normalize_in_table_order),
    cmocka_unit_test (test_machine_preset_supplies_defaults),
    cmocka_unit_test (test_unknown_machine_lists_presets),
    cmocka_unit_test (test_bad_preset_value_names_machine_and_key),
    cmocka_unit_test (test_spec_split_rows),
  };
  return cmocka_run_group_tests_name ("params", tests, setup, NULL);
}
