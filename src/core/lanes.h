/* Private to the library: eight 16-byte CPU records (MdlCpuEvent, the binary trace's record) as
 * vectors of eight 32-bit lanes, one lane a record, for the loops that look at a block of records
 * at once (the trace reader's check, the count engine). GCC's and clang's vector extensions, so
 * that one source builds for SSE2 and for AVX2 (core/clones.h). Each of the four vectors loaded
 * holds two records; the gathers below are the two in-lane unpacks, one cycle each on AVX2, and
 * give the records in the order 0 2 4 6 1 3 5 7: dword i of either half belongs to the records
 * of vector i. (The gathers write through a pointer: a vector return value would change the ABI
 * between the clones.) */
#ifndef MDL_CORE_LANES_H
#define MDL_CORE_LANES_H

#include <glib.h>
#include <string.h>

typedef guint32 MdlLanes __attribute__ ((vector_size (32)));
typedef gint32 MdlSignedLanes __attribute__ ((vector_size (32)));
typedef guint64 MdlQuads __attribute__ ((vector_size (32)));

#define MDL_LANES 8

/* Loads the eight records at @p (any alignment) into @v, two records a vector. */
static inline __attribute__ ((always_inline)) void
mdl_lanes_load_records (const void *p, MdlLanes v[4])
{
#pragma GCC unroll 4
  for (guint i = 0; i < 4; i++)
    memcpy (&v[i], (const guint8 *) p + 32 * i, sizeof v[i]);
}

/* Sets *@out to the heads (kind | flags << 8 | size << 16) of the records of @v. */
static inline __attribute__ ((always_inline)) void
mdl_lanes_heads (const MdlLanes v[4], MdlLanes *out)
{
  MdlLanes a = __builtin_shufflevector (v[0], v[1], 0, 8, 1, 9, 4, 12, 5, 13);
  MdlLanes b = __builtin_shufflevector (v[2], v[3], 0, 8, 1, 9, 4, 12, 5, 13);
  *out = __builtin_shufflevector (a, b, 0, 1, 8, 9, 4, 5, 12, 13);
}

/* Sets *@out to the high halves of the addresses of the records of @v. */
static inline __attribute__ ((always_inline)) void
mdl_lanes_addr_high (const MdlLanes v[4], MdlLanes *out)
{
  MdlLanes a = __builtin_shufflevector (v[0], v[1], 2, 10, 3, 11, 6, 14, 7, 15);
  MdlLanes b = __builtin_shufflevector (v[2], v[3], 2, 10, 3, 11, 6, 14, 7, 15);
  *out = __builtin_shufflevector (a, b, 2, 3, 10, 11, 6, 7, 14, 15);
}

#endif
