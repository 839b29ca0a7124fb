/* The phase ledger (ledger.h): the nesting check of phase markers, and per-phase totals of count
 * vectors. Phases are few (the names an algorithm gives its stages), so they are found by a linear
 * search in order of first appearance, which is also the order of the report. */
#include <models/error.h>

#include "core/ledger.h"

#include <string.h>

typedef struct {
  char *name;
  guint64 *totals;   /* [n_counts] */
  guint64 n_closed;  /* phases still open for the first time are not reported */
} Phase;

struct MdlPhaseLedger {
  GPtrArray *nest;      /* char *, the phases open as the markers arrived, innermost last */
  GArray *open;         /* guint, the phase of each open entry, innermost last */
  GArray *at_begin;     /* guint64 [open->len * n_counts], the counts at each open entry's begin */
  GPtrArray *phases;    /* Phase *, in order of first appearance */
  guint n_counts;       /* of every vector; 0 until the first */
};

static void
phase_free (Phase *p)
{
  g_free (p->name);
  g_free (p->totals);
  g_free (p);
}

MdlPhaseLedger *
mdl_phase_ledger_new (void)
{
  MdlPhaseLedger *l = g_new0 (MdlPhaseLedger, 1);
  l->nest = g_ptr_array_new_with_free_func (g_free);
  l->open = g_array_new (FALSE, FALSE, sizeof (guint));
  l->at_begin = g_array_new (FALSE, FALSE, sizeof (guint64));
  l->phases = g_ptr_array_new_with_free_func ((GDestroyNotify) phase_free);
  return l;
}

void
mdl_phase_ledger_free (MdlPhaseLedger *ledger)
{
  if (ledger == NULL)
    return;
  g_ptr_array_unref (ledger->nest);
  g_array_unref (ledger->open);
  g_array_unref (ledger->at_begin);
  g_ptr_array_unref (ledger->phases);
  g_free (ledger);
}

void
mdl_phase_ledger_restart (MdlPhaseLedger *ledger)
{
  g_array_set_size (ledger->open, 0);
  g_array_set_size (ledger->at_begin, 0);
  g_ptr_array_set_size (ledger->phases, 0);
}

void
mdl_phase_ledger_clear (MdlPhaseLedger *ledger)
{
  mdl_phase_ledger_restart (ledger);
  g_ptr_array_set_size (ledger->nest, 0);
  ledger->n_counts = 0;
}

gboolean
mdl_phase_ledger_nest (MdlPhaseLedger *ledger, gboolean begin, const char *name, GError **error)
{
  const char *top = ledger->nest->len ? g_ptr_array_index (ledger->nest, ledger->nest->len - 1)
                                      : NULL;
  name = name ? name : "";
  if (begin)
    {
      g_ptr_array_add (ledger->nest, g_strdup (name));
      return TRUE;
    }
  if (top == NULL || strcmp (top, name) != 0)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "phase end \"%s\" does not match %s%s%s",
                   name, top ? "the open phase \"" : "any open phase", top ? top : "",
                   top ? "\"" : "");
      return FALSE;
    }
  g_ptr_array_set_size (ledger->nest, ledger->nest->len - 1);
  return TRUE;
}

/* The number of @name's phase, created (listed last) when new. */
static guint
phase_of (MdlPhaseLedger *l, const char *name, guint n_counts)
{
  Phase *p;
  /* Why one length: a ledger serves one engine, whose counts depend only on its parameters. */
  g_assert (l->n_counts == 0 || l->n_counts == n_counts);
  l->n_counts = n_counts;
  name = name ? name : "";
  for (guint i = 0; i < l->phases->len; i++)
    if (strcmp (((Phase *) g_ptr_array_index (l->phases, i))->name, name) == 0)
      return i;
  p = g_new0 (Phase, 1);
  p->name = g_strdup (name);
  p->totals = g_new0 (guint64, n_counts);
  g_ptr_array_add (l->phases, p);
  return l->phases->len - 1;
}

static void
phase_add (MdlPhaseLedger *l, guint phase, const guint64 *now, const guint64 *then)
{
  Phase *p = g_ptr_array_index (l->phases, phase);
  for (guint i = 0; i < l->n_counts; i++)
    p->totals[i] += now[i] - then[i];
  p->n_closed++;
}

void
mdl_phase_ledger_mark (MdlPhaseLedger *ledger, gboolean begin, const char *name,
                       const guint64 *counts, guint n_counts)
{
  guint top, phase;
  if (begin)
    {
      phase = phase_of (ledger, name, n_counts);
      g_array_append_val (ledger->open, phase);
      g_array_append_vals (ledger->at_begin, counts, n_counts);
      return;
    }
  /* Why an entry of @name is open: the caller checked the marker with mdl_phase_ledger_nest. */
  g_assert (ledger->open->len > 0);
  top = ledger->open->len - 1;
  phase = g_array_index (ledger->open, guint, top);
  g_assert (n_counts == ledger->n_counts
            && strcmp (((Phase *) g_ptr_array_index (ledger->phases, phase))->name,
                       name ? name : "") == 0);
  phase_add (ledger, phase, counts, &g_array_index (ledger->at_begin, guint64, top * n_counts));
  g_array_set_size (ledger->open, top);
  g_array_set_size (ledger->at_begin, top * n_counts);
}

void
mdl_phase_ledger_add (MdlPhaseLedger *ledger, const char *name, const guint64 *now,
                      const guint64 *then, guint n_counts)
{
  phase_add (ledger, phase_of (ledger, name, n_counts), now, then);
}

void
mdl_phase_ledger_report (const MdlPhaseLedger *ledger, MdlReport *out, MdlPhaseFill fill,
                         void *data)
{
  for (guint i = 0; i < ledger->phases->len; i++)
    {
      const Phase *p = g_ptr_array_index (ledger->phases, i);
      MdlReport *r;
      if (p->n_closed == 0)
        continue;
      r = mdl_report_new (p->name, mdl_report_spec (out));
      fill (p->totals, r, data);
      mdl_report_add_phase (out, r);
    }
}
