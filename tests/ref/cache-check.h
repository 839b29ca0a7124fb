/* The cache engine against the slow reference (cache-ref.h): one record fed to the reference as
 * the engine reads it, and one level's counters compared, for the agreement tests of
 * tests/test-cache.c and tests/test-cache-d1.c. */
#ifndef TESTS_CACHE_CHECK_H
#define TESTS_CACHE_CHECK_H

#include <models/models.h>

#include "cache-ref.h"

/* Feeds the record @x to @ref as the cache engine takes it: op counts and branches are no access,
 * a fetch goes to the instruction cache, a read keeps its dependent and chase flags. */
void ref_cache_record (RefCache *ref, const MdlCpuEvent *x);

/* Fails the test unless every counter of level @i that the engine @e reports (keys prefixed by
 * @prefix: "" for a single level, "l2_", "i1_") equals @ref's; a counter the report lacks must be
 * 0 in @ref. @what names the case in the message (seed, iteration, spec). */
void ref_cache_check_level (MdlEngine *e, const RefCache *ref, guint i, const char *prefix,
                            const char *what);

#endif
