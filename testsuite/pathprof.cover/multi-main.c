/* Two units: coverage of each file comes from its own unit.
   pathprof-sources: multi-part.c */
#include <stdio.h>

int part_sum (int n);
int part_unused (int n);

int
main (int argc, char **argv)
{
  int n = argc + 9;			/* covered */
  if (argc > 3)				/* covered */
    n = part_unused (n);		/* not covered */
  printf ("%s %d\n", argv[0] ? "sum" : "?", part_sum (n));	/* covered */
  return 0;				/* covered */
}
