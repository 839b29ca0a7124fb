/* Private to src/experiments: the VAT experiment's journal (vat-journal.c), an append-only CSV file
 * in the output directory that gets a row as each step finishes (a pass of a point's timing, a
 * point's counts), flushed at once, so that a run cut short keeps every finished step and a later
 * run can continue it (--resume) or refit it without running anything (--from). */
#ifndef MDL_EXPERIMENTS_VAT_JOURNAL_H
#define MDL_EXPERIMENTS_VAT_JOURNAL_H

#include <models/experiment.h>

#include "experiments/probe.h"

#define MDL_VAT_JOURNAL_FILE "vat-journal.csv"

/* What a run sets up from the machine and that its counts depend on: a resumed run takes these
 * from the journal, so that counts made on two machines agree. */
typedef struct {
  guint64 cache_bytes[3];
  guint cache_assoc[3];
  char *cache_spec;
  char *tlb_spec;
  gboolean huge_measured;
} MdlVatJournalSetup;

/* One pass of a point's timing: its repetitions in that pass, in the order they ran, and where
 * its arrays asked for 2 MiB pages, what each repetition got of them. */
typedef struct {
  guint pass;
  guint per_pass;
  guint64 checksum;
  GArray *seconds;          /* double */
  guint64 huge_asked;       /* bytes asked for on 2 MiB pages per repetition; 0: 4 KiB pages */
  GArray *huge_granted;     /* guint64 bytes granted, per repetition; NULL when none asked */
} MdlVatJournalTime;

typedef struct MdlVatJournal MdlVatJournal;

/* The identity of this machine for the timings: CPU model and count. */
char *mdl_vat_journal_fingerprint (void);

/* Opens @dir/vat-journal.csv: a fresh journal (truncated) when @resume is FALSE, else the journal
 * there, whose options must equal @options (lines "name=value"; NULL: any, and the journal is
 * only read: a refit, nothing may be appended) and whose rows are read. A last
 * row without its line end (a run killed while writing it) is dropped. MDL_ERROR_IO, or
 * MDL_ERROR_FORMAT naming the file and line, or MDL_ERROR_PARAM for an option that differs. */
MdlVatJournal *mdl_vat_journal_open (const char *dir, gboolean resume, const char *options,
                                     GError **error);
void mdl_vat_journal_free (MdlVatJournal *j);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MdlVatJournal, mdl_vat_journal_free)

/* Whether the journal was read from an earlier run, and its path (for messages). */
gboolean mdl_vat_journal_resumed (const MdlVatJournal *j);
const char *mdl_vat_journal_path (const MdlVatJournal *j);
/* The journal's options, lines "name=value" ("" for a fresh journal). */
const char *mdl_vat_journal_options (const MdlVatJournal *j);
/* The machine the journal's timings come from (NULL for a fresh journal). */
const char *mdl_vat_journal_machine (const MdlVatJournal *j);
/* The setup and probe of the journal: FALSE when it has none (a fresh one). */
gboolean mdl_vat_journal_setup (const MdlVatJournal *j, MdlVatJournalSetup *setup);
gboolean mdl_vat_journal_probe (const MdlVatJournal *j, MdlProbe *probe);
/* The probe run again after the timed passes; FALSE when none (journals before s10). */
gboolean mdl_vat_journal_probe_end (const MdlVatJournal *j, MdlProbe *probe);
/* The recorded pass @pass of point (@algorithm, @n, @huge), borrowed; NULL when not recorded. */
const MdlVatJournalTime *mdl_vat_journal_time (const MdlVatJournal *j, const char *algorithm,
                                               guint64 n, gboolean huge, guint pass);
/* Copies the recorded counts of the point into @pt (its counts only) and its instrumented
 * checksum into @checksum; FALSE when not recorded. */
gboolean mdl_vat_journal_counts (const MdlVatJournal *j, MdlVatPoint *pt, guint64 *checksum);

/* Appending rows; each is written and flushed at once. The first three belong to a fresh
 * journal. Every append counts towards the stop hook: once @stop_after rows (> 0) have been
 * appended, the append that reaches it returns FALSE with MDL_ERROR_IO "stopped after N rows". */
void mdl_vat_journal_set_stop (MdlVatJournal *j, guint stop_after);
gboolean mdl_vat_journal_add_header (MdlVatJournal *j, const char *options, const char *machine,
                                     const MdlVatJournalSetup *setup, GError **error);
gboolean mdl_vat_journal_add_probe (MdlVatJournal *j, const MdlProbe *probe, GError **error);
gboolean mdl_vat_journal_add_probe_end (MdlVatJournal *j, const MdlProbe *probe, GError **error);
/* @huge_asked: bytes each repetition asked for on 2 MiB pages (0: it ran on 4 KiB pages, and
 * @huge_granted is ignored); @huge_granted: @count bytes the kernel granted of them. */
gboolean mdl_vat_journal_add_time (MdlVatJournal *j, const char *algorithm, guint64 n,
                                   gboolean huge, guint pass, guint per_pass, guint64 checksum,
                                   const double *seconds, guint count, guint64 huge_asked,
                                   const guint64 *huge_granted, GError **error);
gboolean mdl_vat_journal_add_counts (MdlVatJournal *j, const MdlVatPoint *pt, guint64 checksum,
                                     GError **error);

void mdl_vat_journal_setup_clear (MdlVatJournalSetup *setup);

#endif
