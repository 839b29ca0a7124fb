/* "picky", a test engine shared by the pipeline tests: it rejects a CPU access at or beyond its
 * `limit` parameter (so that an engine's error and its place can be checked), and sleeps
 * `delay_us` per batch (so that a producer runs into a threaded queue's bound). */
#ifndef TESTS_PICKY_H
#define TESTS_PICKY_H

#include <models/models.h>

/* Register it with mdl_engine_register() once per test program. Its report: `seen`, the CPU
 * records it accepted (not the batches: they depend on how a pipeline cuts the stream). */
extern const MdlEngineClass test_picky_class;

/* Batches accepted by every picky engine of the program, counted atomically as they are: a test
 * watches an engine on a pipeline's worker thread through it while the run goes on. */
extern gint test_picky_batches;

#endif
