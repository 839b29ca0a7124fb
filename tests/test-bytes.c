/* Tests of sizes as text (src/core/bytes.h), used in messages and notes. Expected texts worked out
 * by hand from the rule: the largest binary unit that keeps the number at least 1, one decimal
 * unless whole. */
#include "helpers.h"

#include "core/bytes.h"

static const struct {
  guint64 bytes;
  const char *expect;
} rows[] = {
  { 0, "0 bytes" },
  { 1, "1 byte" },
  { 1023, "1023 bytes" },
  { 1024, "1 KiB" },
  { 61644, "60.2 KiB" },                          /* 61644 / 1024 = 60.199 */
  { 65536, "64 KiB" },                            /* the --max-bytes 64k that printed "0 MiB" */
  { 6709248, "6.4 MiB" },                         /* 1638 pages of 4 KiB: 6.398 MiB */
  { G_GUINT64_CONSTANT (4) << 30, "4 GiB" },
  { G_GUINT64_CONSTANT (206158430208), "192 GiB" },   /* 192 * 2^30 */
  { G_MAXUINT64, "16.0 EiB" },                    /* 2^64 - 1, just under 16 EiB */
};

/* Ensure every size prints in the unit that keeps it at least 1, never as "0 MiB". */
static void
test_sizes_print_in_the_right_unit (void **state)
{
  (void) state;
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *got = mdl_bytes_text (rows[i].bytes);
      if (g_strcmp0 (got, rows[i].expect) != 0)
        fail_msg ("%" G_GUINT64_FORMAT ": expected \"%s\", got \"%s\"", rows[i].bytes,
                  rows[i].expect, got);
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sizes_print_in_the_right_unit),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
