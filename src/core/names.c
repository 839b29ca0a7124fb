/* Suggestions for unknown names (src/core/names.h). Edit distance is the plain dynamic
 * programme; names are short and this runs only on the error path. */
#include "core/names.h"

#include <string.h>

static guint
edit_distance (const char *a, const char *b)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          guint cost = g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1]) ? 0 : 1;
          row[j] = MIN (MIN (row[j] + 1, row[j - 1] + 1), diag + cost);
          diag = up;
        }
    }
  return row[lb];
}

const char *
mdl_names_closest (const char *word, const char *const *candidates, guint n)
{
  const char *best = NULL;
  guint best_d = 3;
  if (word == NULL || *word == '\0')
    return NULL;
  for (guint i = 0; i < n; i++)
    {
      guint d = edit_distance (word, candidates[i]);
      if (d < best_d || (best == NULL && g_str_has_prefix (candidates[i], word)))
        {
          best = candidates[i];
          best_d = MIN (d, best_d);
        }
    }
  return best;
}

void
mdl_names_append_choices (GString *msg, const char *word, const char *const *candidates, guint n)
{
  const char *close = mdl_names_closest (word, candidates, n);
  g_string_append (msg, "; valid: ");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (msg, "%s%s", i ? ", " : "", candidates[i]);
  if (close)
    g_string_append_printf (msg, " (did you mean \"%s\"?)", close);
}
