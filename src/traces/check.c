/* The stream rules that trace readers and writers both enforce (trace-private.h): CPU record rules,
 * marker fields, phase nesting, and the warp width each launch declares. Readers run them to reject
 * malformed files with a position; writers run the same ones so that they never write a trace their
 * own reader would refuse. */
#include "trace-private.h"

char *
mdl_trace_cpu_problem (guint kind, guint flags, guint size, guint64 addr)
{
  if (kind >= MDL_CPU_N_KINDS)
    return g_strdup_printf ("unknown CPU record kind %u", kind);
  if (kind == MDL_CPU_BRANCH && (flags & ~MDL_CPU_FLAG_TAKEN) != 0)
    return g_strdup_printf ("branch record has flags 0x%02x (only the taken flag 0x%02x is valid)",
                            flags, MDL_CPU_FLAG_TAKEN);
  if (kind == MDL_CPU_READ && flags != 0 && flags != MDL_CPU_FLAG_DEPENDENT
      && flags != (MDL_CPU_FLAG_DEPENDENT | MDL_CPU_FLAG_CHASE))
    return g_strdup_printf ("read record has flags 0x%02x (valid: the dependent flag 0x%02x, alone "
                            "or with the chase flag 0x%02x)", flags, MDL_CPU_FLAG_DEPENDENT,
                            MDL_CPU_FLAG_CHASE);
  if (kind != MDL_CPU_BRANCH && kind != MDL_CPU_READ && flags != 0)
    return g_strdup_printf ("%s record has nonzero flags 0x%02x", mdl_cpu_kind_name (kind), flags);
  if (!mdl_cpu_is_access (kind) && size != 0)
    return g_strdup_printf ("%s record has size %u (%s have size 0)", mdl_cpu_kind_name (kind),
                            size, kind == MDL_CPU_OPS ? "op counts" : "branches");
  if (mdl_cpu_is_access (kind) && size == 0)
    return g_strdup_printf ("%s record has size 0 (accesses are 1..65535 bytes)",
                            mdl_cpu_kind_name (kind));
  if (mdl_access_wraps (addr, size))
    return g_strdup_printf ("%s of %u bytes at 0x%" G_GINT64_MODIFIER "x runs past the top of the "
                            "64-bit address space", mdl_cpu_kind_name (kind), size, addr);
  return NULL;
}

void
mdl_trace_check_init (MdlTraceCheck *check)
{
  check->phases = g_ptr_array_new_with_free_func (g_free);
  check->widths = g_hash_table_new (g_direct_hash, g_direct_equal);
  check->last_launch = 0;
  check->last_width = 0;   /* 0: the cache is empty */
}

void
mdl_trace_check_clear (MdlTraceCheck *check)
{
  g_clear_pointer (&check->phases, g_ptr_array_unref);
  g_clear_pointer (&check->widths, g_hash_table_unref);
}

static gboolean
name_ok (const char *name, GError **error)
{
  gsize len;
  if (name == NULL)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "name missing");
      return FALSE;
    }
  len = strlen (name);
  if (len == 0 || len > MDL_NAME_MAX)
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "name of %" G_GSIZE_FORMAT
                   " bytes (names are 1..%d bytes)", len, MDL_NAME_MAX);
      return FALSE;
    }
  if (!g_utf8_validate (name, (gssize) len, NULL))
    {
      g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "name is not valid UTF-8");
      return FALSE;
    }
  return TRUE;
}

gboolean
mdl_trace_check_marker (MdlTraceCheck *check, const MdlMarker *m, GError **error)
{
  GPtrArray *phases = check->phases;

  switch (m->kind)
    {
    case MDL_MARK_LAUNCH:
      if (m->warp_width == 0 || m->warp_width > MDL_WARP_MAX_LANES)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "launch %u has warp width %u (valid: 1..%d)", m->launch, m->warp_width,
                       MDL_WARP_MAX_LANES);
          return FALSE;
        }
      g_hash_table_insert (check->widths, GUINT_TO_POINTER (m->launch),
                           GUINT_TO_POINTER (m->warp_width));
      check->last_launch = m->launch;
      check->last_width = m->warp_width;
      return TRUE;
    case MDL_MARK_BARRIER:
    case MDL_MARK_SYNC:
      return TRUE;
    case MDL_MARK_PHASE_BEGIN:
      if (!name_ok (m->name, error))
        {
          g_prefix_error (error, "phase begin: ");
          return FALSE;
        }
      if (phases->len >= MDL_TRACE_PHASE_DEPTH_MAX)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "phase \"%s\" nests deeper than %d phases", m->name,
                       MDL_TRACE_PHASE_DEPTH_MAX);
          return FALSE;
        }
      g_ptr_array_add (phases, g_strdup (m->name));
      return TRUE;
    case MDL_MARK_PHASE_END:
      if (!name_ok (m->name, error))
        {
          g_prefix_error (error, "phase end: ");
          return FALSE;
        }
      if (phases->len == 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "phase end \"%s\" while no phase is open", m->name);
          return FALSE;
        }
      if (strcmp (g_ptr_array_index (phases, phases->len - 1), m->name) != 0)
        {
          g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT,
                       "phase end \"%s\" does not match the open phase \"%s\"", m->name,
                       (const char *) g_ptr_array_index (phases, phases->len - 1));
          return FALSE;
        }
      g_ptr_array_set_size (phases, phases->len - 1);
      return TRUE;
    case MDL_MARK_SITE:
      if (!name_ok (m->name, error))
        {
          g_prefix_error (error, "site %u: ", m->site);
          return FALSE;
        }
      return TRUE;
    }
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "unknown marker kind %d", (int) m->kind);
  return FALSE;
}

guint
mdl_trace_check_warp_width (MdlTraceCheck *check, guint32 launch)
{
  gpointer width;
  if (check->last_width != 0 && check->last_launch == launch)
    return check->last_width;
  width = g_hash_table_lookup (check->widths, GUINT_TO_POINTER (launch));
  if (width == NULL)
    return MDL_WARP_MAX_LANES;
  check->last_launch = launch;
  check->last_width = GPOINTER_TO_UINT (width);
  return check->last_width;
}

gboolean
mdl_trace_check_end (MdlTraceCheck *check, GError **error)
{
  if (check->phases->len == 0)
    return TRUE;
  g_set_error (error, MDL_ERROR, MDL_ERROR_FORMAT, "the trace ends inside phase \"%s\"",
               (const char *) g_ptr_array_index (check->phases, check->phases->len - 1));
  return FALSE;
}
