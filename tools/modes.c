/* pathprof modes: the plugin's modes, from the mode table (corelib/format/modes.c),
   one a line: the name -fplugin-arg-pathprof-mode= takes and what a profile
   of the mode tells.  The build makes one specs file per line
   (plugin/Makefile.am), so the table is the only list of modes.  */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "commands.h"
#include "modes.h"

int
modes_command (int argc, char **argv)
{
  int parsed = tool_parse_options (argc, argv, NULL);
  if (parsed >= 0)
    return parsed;
  if (optind < argc)
    return tool_usage_error ("modes: expected no arguments");
  for (unsigned i = 0; i < pp_nmodes; i++)
    printf ("%-24s %s\n", pp_modes[i].name, pp_modes[i].summary);
  return ferror (stdout) ? EXIT_FAILURE : EXIT_SUCCESS;
}
