/* A slow, obviously correct reference for the longest bank queue that the GPU engines cost shared
 * accesses by (gpu_bank_queue(), gpu_rows_queue(), gpu_window_queue() in src/models/gpu/gpu.h,
 * and kmodel's and agpu's latencies), for tests/test-gpu-queue.c, test-gpu-window.c and
 * test-kmodel.c. Word w lives in bank w mod banks; for every bank, a count over the whole list:
 * O(banks x n^2), on purpose, no bitmap or shortcut that could share a mistake with the engines. */
#ifndef TESTS_REF_BANK_QUEUE_H
#define TESTS_REF_BANK_QUEUE_H

#include <glib.h>

/* The most of the @n words @words that one of @banks banks serves: every request (a word that
 * comes twice queues twice), or with @distinct each distinct word once (a broadcast). */
guint ref_bank_queue (const guint64 *words, guint n, guint64 banks, gboolean distinct);

#endif
