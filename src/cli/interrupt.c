/* Ctrl-C (SIGINT) and SIGTERM during long work: the first one only sets a flag that the loops of
 * run, trace and analyze poll between batches, so that they stop at an event boundary, leave a
 * trace file that readers report as truncated at its last record (and `convert --salvage`
 * recovers), and print the report of what was processed, marked partial. A second signal ends
 * the process the usual way, for a loop that does not poll. The flag is the one piece of mutable
 * global state of the command, because a signal handler can reach nothing else. */
#include "cli/cli.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;   /* the signal number of the first one, or 0 */

static void
on_signal (int sig)
{
  if (caught)
    {
      signal (sig, SIG_DFL);
      raise (sig);
      return;
    }
  caught = sig;
}

void
mdl_cli_catch_interrupts (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
}

const char *
mdl_cli_interrupted (void)
{
  switch (caught)
    {
    case 0:
      return NULL;
    case SIGINT:
      return "interrupted by SIGINT";
    default:
      return "interrupted by SIGTERM";
    }
}

int
mdl_cli_interrupted_status (void)
{
  return 128 + caught;
}
