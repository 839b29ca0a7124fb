#include "cli/cli.h"
int
mdl_cli_complete_main (int argc, char **argv)
{
  (void) argc; (void) argv;
  return 0;
}
