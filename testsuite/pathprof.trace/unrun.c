/* A unit none of whose code runs (unrun-part.c) is in the reports of a
   trace with zero counts, as in edge-counts' profile: libprof writes every
   traced unit's notes with the first records, not only those the records
   name.
   pathprof-sources: unrun-part.c */
#include <stdio.h>

int never (int);

int
main (int argc, char **argv)
{
  (void) argv;
  if (argc > 5)
    return never (argc);
  puts ("ran");
  return 0;
}
