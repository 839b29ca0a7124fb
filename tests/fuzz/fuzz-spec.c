/* libFuzzer target: the engine spec parser (src/core/params.c, src/models/registry.c) and every
 * engine's init, consume, marker, report and reset behind it.
 *
 * Two ways to read the input, picked by its first byte: even, the rest is a spec as a user types
 * it (`NAME:key=value,...`; tests/fuzz/fuzz-spec.dict gives the fuzzer the names); odd, the second
 * byte picks a built-in engine and each further line is "K VALUE", K picking one of that engine's
 * parameters (or machine=), so that mutations spend their time on values of real keys. Whatever
 * spec is built must give an engine or an MDL_ERROR, and the engine must run a small stream of
 * every event kind without a crash, a leak or undefined behaviour. */
#include "common.h"

#include <string.h>

/* A spec over the parameters of the engine @data[0] picks, from "K VALUE" lines. */
static char *
structured_spec (const uint8_t *data, size_t size)
{
  guint n_classes, n_params = 0;
  const MdlEngineClass **classes = mdl_engine_classes (&n_classes);
  const MdlEngineClass *klass = classes[data[0] % n_classes];
  GString *spec = g_string_new (klass->name);
  g_autofree char *text = g_strndup ((const char *) data + 1, size - 1);
  g_auto (GStrv) lines = g_strsplit (text, "\n", 32);
  char sep = ':';

  while (klass->params[n_params].key)
    n_params++;
  for (char **l = lines; *l; l++)
    {
      guint k;
      if (**l == '\0')
        continue;
      k = (guint8) **l % (n_params + 1);
      g_string_append_printf (spec, "%c%s=%s", sep,
                              k == n_params ? "machine" : klass->params[k].key, *l + 1);
      sep = ',';
    }
  g_free (classes);
  return g_string_free (spec, FALSE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *spec;

  if (size < 2)
    return 0;
  if (data[0] % 2 == 0)
    spec = g_strndup ((const char *) data + 1, size - 1);
  else
    spec = structured_spec (data + 1, size - 1);
  fuzz_engine (spec, NULL);
  g_free (spec);
  return 0;
}
