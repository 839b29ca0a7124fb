/* Shared test helpers: seeded randomness and an event collector. */
#ifndef TESTS_HELPERS_H
#define TESTS_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib.h>
#include <models/models.h>

/* The seed of property tests: MODELS_TEST_SEED from the environment, else @fallback. Every failure
 * message of a property test prints it, so a failure can be replayed. */
guint32 test_seed (guint32 fallback);

/* A sink that keeps a copy of everything it receives, in order: CPU events, warp events (with their
 * lane addresses copied out, so they no longer depend on the batch) and markers. */
typedef struct {
  GArray *cpu;        /* MdlCpuEvent */
  GArray *warp;       /* MdlWarpEvent; first_addr indexes lane_addrs below */
  GArray *lane_addrs; /* guint64 */
  GPtrArray *markers; /* TestMarker * */
  GString *order;     /* one letter per delivered item: 'c' CPU event, 'w' warp event, 'm' marker */
  guint n_batches;
} TestCollector;

typedef struct {
  MdlMarker marker;   /* marker.name points into name below */
  char name[MDL_NAME_MAX + 1];
} TestMarker;

TestCollector *test_collector_new (void);
void test_collector_free (TestCollector *c);
MdlSink test_collector_sink (TestCollector *c);
/* Replays everything collected into @sink, in the original order, in batches of at most @batch
 * events (0: runs as long as they were collected). */
gboolean test_collector_replay (const TestCollector *c, const MdlSink *sink, guint batch,
                                GError **error);
/* Asserts that two collections hold the same events and markers in the same order. */
void test_collector_assert_equal (const TestCollector *a, const TestCollector *b);
/* Pumps @r into @c, @max_records a call (0: no limit), until its end or an error, and hands @r to
 * *@keep or frees it (@keep NULL). @r may be NULL, opening it having failed with @error. Returns
 * the error, @error's or the pump's, or NULL. */
GError *test_collector_drain (TestCollector *c, MdlTraceReader *r, guint64 max_records,
                              MdlTraceReader **keep, GError *error);

/* An engine from @spec; fails the test, with the library's message, when the spec is refused. */
MdlEngine *test_engine_new (const char *spec);
/* Feeds @n CPU events to @e in one batch; fails the test if the engine refuses them. */
void test_feed_cpu (MdlEngine *e, const MdlCpuEvent *ev, gsize n);
/* Feeds them in batches of random length 1 .. @max_len - 1 drawn from @rand, so that batch
 * boundaries fall anywhere. */
void test_feed_cpu_batches (MdlEngine *e, const MdlCpuEvent *ev, gsize n, GRand *rand,
                            guint max_len);

/* The count (or real) @name of a report or of an engine's current report; fails the test, naming
 * the spec, when there is no such counter. */
guint64 test_report_count (const MdlReport *r, const char *name);
double test_report_real (const MdlReport *r, const char *name);
guint64 test_engine_count (MdlEngine *e, const char *name);
double test_engine_real (MdlEngine *e, const char *name);
/* Appends every counter of @r to @out as "name=count/real " (real to 17 digits), so that two
 * reports compare as strings and a difference names its counter. */
void test_report_append_text (GString *out, const MdlReport *r);

/* The count @name of the phase @phase of @r (NULL: the whole run); fails the test when either is
 * missing. */
guint64 test_phase_count (const MdlReport *r, const char *phase, const char *name);

/* Runs the instrumented algorithm @algo_spec ("reduce/tree:b=32") on @n elements from @seed into
 * one engine per spec of the NULL-terminated @engine_specs, and returns their reports in order
 * (transfer full: a GPtrArray that frees them); the run's checksum goes to @checksum when not
 * NULL. Fails the test on any error. */
GPtrArray *test_run_algo_all (const char *algo_spec, guint64 n, guint64 seed,
                              const char *const *engine_specs, guint64 *checksum);
/* test_run_algo_all() with one engine: its report (transfer full). */
MdlReport *test_run_algo (const char *algo_spec, guint64 n, guint64 seed, const char *engine_spec,
                          guint64 *checksum);

/* TRUE when @text (@len bytes) is one JSON document by RFC 8259, strictly: UTF-8 throughout,
 * no raw control characters in strings, only JSON's escapes, paired surrogates, JSON's number
 * grammar (no NaN, no hex, no leading zeros), nothing after the document. Else *@why (if not NULL)
 * says what and where (transfer full). */
gboolean test_json_check (const char *text, gsize len, char **why);

/* A fresh directory under the temporary folder (TMPDIR), removed with all it holds when the test
 * program exits, unless MODELS_TEST_KEEP is set (then its name is printed); transfer full. */
char *test_temp_dir (void);

/* Writes @len bytes to a fresh temporary file, in a directory of test_temp_dir(), and returns its
 * path (transfer full). */
char *test_write_temp (const char *basename, const void *data, gsize len);

/* The text of file @name in folder @dir (transfer full); a file that cannot be read fails the
 * test. */
char *test_read_text (const char *dir, const char *name);

/* Runs the GPU experiment with @cfg on @timings, the text of a timings.csv written into a fresh
 * test_temp_dir(), which becomes cfg->measured; that folder in *@dir_out when not NULL (transfer
 * full). An error fails the test. */
MdlGpuExperiment *test_gpu_experiment_on (const char *timings, MdlGpuExperimentConfig *cfg,
                                          char **dir_out);

/* The point of case @spec in @exp, and its index in *@index when not NULL; a case the experiment
 * does not have fails the test. */
const MdlGpuPoint *test_gpu_point (const MdlGpuExperiment *exp, const char *spec, guint *index);

/* Asserts that @error is set, in MDL_ERROR with @code, and that its message contains @needle;
 * prints the message on failure. Frees the error. */
#define assert_mdl_error(error, code, needle) test_assert_error ((error), (code), (needle), __FILE__, __LINE__)
void test_assert_error (GError *error, int code, const char *needle, const char *file, int line);

/* Runs @argv (a program and its arguments; "models" means $MODELS_BIN, default
 * build/bin/models) with @input on its standard input when not NULL, and returns its exit status
 * (-1 when it did not exit normally); its standard output and error in *@out and *@err when not
 * NULL (transfer full). A program that cannot start fails the test. */
int test_spawn (const char *const *argv, const char *input, char **out, char **err);

/* The commands `models --help` lists under "Commands:", help included, in its order
 * (transfer full). */
GPtrArray *test_models_commands (void);

/* Runs the `models` command (MODELS_BIN, else build/bin/models) with the NULL-terminated @args,
 * in environment @env (NULL: the test's own); returns its exit status (-1 when it did not exit)
 * and its standard output and error (transfer full). */
int test_run_models (const char *const *env, const char *const *args, char **out, char **err);

/* Runs the algorithm @spec (`NAME:key=value,...`) natively (no events) on @n elements from
 * @seed and returns its checksum; fails the test with the library's message on an error (a sort
 * whose output is not its sorted input is one). */
guint64 test_native_checksum (const char *spec, guint64 n, guint64 seed);

#endif
