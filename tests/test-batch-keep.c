/* Holds on lent batches (mdl_event_batch_keep(), include/models/event.h): the SIMT layer's batches
 * stay as they were delivered for as long as a sink holds them, also after the layer is freed and
 * while the layer goes on writing the batches after them; a source that lends nothing gives no
 * hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include <models/algo.h>
#include <models/event.h>

/* One held batch and a copy of its arrays taken when it was delivered. */
typedef struct {
  MdlEventBatch view;
  MdlBatchKeep *keep;
  GBytes *warp, *lanes;
} Held;

/* A sink that holds every batch, and gives each back once @lag later batches have come (0: keeps
 * all of them to the end), checking it first. */
typedef struct {
  GQueue held;
  guint lag;
  guint n_batches;
  gsize n_events;
} Holder;

/* TRUE when @data holds the bytes of @copy (an empty copy has no data to compare). */
static gboolean
same_bytes (const void *data, GBytes *copy)
{
  gsize n = g_bytes_get_size (copy);
  return n == 0 || memcmp (data, g_bytes_get_data (copy, NULL), n) == 0;
}

static void
held_check_release (Held *h, guint at)
{
  if (!same_bytes (h->view.warp, h->warp) || !same_bytes (h->view.lane_addrs, h->lanes))
    fail_msg ("batch %u of %u warp events changed while held", at, (guint) h->view.n_warp);
  mdl_batch_keep_release (h->keep);
  g_bytes_unref (h->warp);
  g_bytes_unref (h->lanes);
  g_free (h);
}

static gboolean
hold_batch (void *data, const MdlEventBatch *batch, GError **error)
{
  Holder *s = data;
  Held *h = g_new0 (Held, 1);
  (void) error;
  s->n_batches++;
  s->n_events += batch->n_warp;
  h->keep = mdl_event_batch_keep (batch);
  if (h->keep == NULL)
    fail_msg ("batch %u: the SIMT layer lent no hold", s->n_batches);
  h->view = *batch;
  h->warp = g_bytes_new (batch->warp, batch->n_warp * sizeof *batch->warp);
  h->lanes = g_bytes_new (batch->lane_addrs, batch->n_lane_addrs * sizeof *batch->lane_addrs);
  g_queue_push_tail (&s->held, h);
  if (s->lag > 0 && s->held.length > s->lag)
    held_check_release (g_queue_pop_head (&s->held), s->n_batches - s->lag);
  return TRUE;
}

static gboolean
skip_marker (void *data, const MdlMarker *marker, GError **error)
{
  (void) data, (void) marker, (void) error;
  return TRUE;
}

/* Runs @algo_name into a holder of @lag and checks what it still holds after the layer is gone. */
static void
run_holding (const char *algo_name, guint64 n, guint lag)
{
  Holder s = { .lag = lag };
  MdlSink sink = { .batch = hold_batch, .marker = skip_marker, .data = &s };
  const MdlAlgo *algo = mdl_algo_lookup (algo_name, NULL);
  MdlParams *params = mdl_params_parse (algo->name, algo->params, NULL, NULL);
  GError *error = NULL;
  guint at;
  g_queue_init (&s.held);
  if (!mdl_algo_run_into (algo, params, n, 5, &sink, NULL, &error))
    fail_msg ("%s: %s", algo_name, error->message);
  mdl_params_free (params);
  /* Why so many: the layer's blocks of batch memory hold 16384 events (src/simt/simt.c), so the
   * stream must span several for the layer to move past held batches and reuse given-back
   * blocks. */
  if (s.n_events < 4 * 16384)
    fail_msg ("%s: only %" G_GSIZE_FORMAT " warp events", algo_name, s.n_events);
  at = s.n_batches - s.held.length;
  while (!g_queue_is_empty (&s.held))
    held_check_release (g_queue_pop_head (&s.held), ++at);
}

/* Ensure batches held to the end outlive the layer unchanged (and asan sees no leak or reuse). */
static void
test_held_batches_outlive_the_layer (void **state)
{
  (void) state;
  run_holding ("sort/warpsort", 8192, 0);
  run_holding ("sort/bitonic", 16384, 0);
}

/* Ensure the layer writes no held batch over while it reuses the blocks given back. */
static void
test_layer_reuses_only_given_back_blocks (void **state)
{
  (void) state;
  for (guint lag = 1; lag <= 64; lag *= 4)
    {
      run_holding ("sort/warpsort", 8192, lag);
      run_holding ("sort/gpu-quicksort", 8192, lag);
    }
}

/* Ensure a batch whose source lends nothing gives no hold, and releasing none is fine. */
static void
test_unlent_batch_gives_no_hold (void **state)
{
  MdlCpuEvent ev = { .kind = MDL_CPU_READ, .size = 8, .addr = 64 };
  MdlEventBatch batch = { .cpu = &ev, .n_cpu = 1 };
  (void) state;
  assert_null (mdl_event_batch_keep (&batch));
  mdl_batch_keep_release (NULL);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_held_batches_outlive_the_layer),
    cmocka_unit_test (test_layer_reuses_only_given_back_blocks),
    cmocka_unit_test (test_unlent_batch_gives_no_hold),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
