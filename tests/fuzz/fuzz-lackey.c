/* libFuzzer target: the Valgrind Lackey reader (src/traces/reader-lackey.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the reader
 * accepts, the Lackey writer writes, and the reader reads back as the same records (Lackey text is
 * canonical after one round: banners and instruction addresses are gone, op runs are merged). The
 * input is also read as MDL_TRACE_AUTO in pump calls of one record, so that detection and the
 * budget logic see every input. */
#include "common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_text_round_trip (data, size, MDL_TRACE_LACKEY, FALSE, TRUE, FALSE);
  fuzz_read (data, size, MDL_TRACE_AUTO, 1, FALSE, &fuzz_drop);
  return 0;
}
