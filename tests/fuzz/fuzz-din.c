/* libFuzzer target: the Dinero din reader (src/traces/reader-din.c) and the raw address reader
 * (reader-raw.c) on arbitrary bytes.
 *
 * Besides "no crash, no leak, no undefined behaviour", it checks one property: whatever the din
 * reader accepts (fetches kept), the din writer writes, and the reader reads back as the same
 * accesses and fetches (op counts are not written, and come back only from the fetches). The
 * input is also read as MDL_TRACE_AUTO and MDL_TRACE_RAW in pump calls of one record. */
#include "common.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_text_round_trip (data, size, MDL_TRACE_DIN, TRUE, FALSE, TRUE);
  fuzz_read (data, size, MDL_TRACE_AUTO, 1, FALSE, &fuzz_drop);
  fuzz_read (data, size, MDL_TRACE_RAW, 1, FALSE, &fuzz_drop);
  return 0;
}
