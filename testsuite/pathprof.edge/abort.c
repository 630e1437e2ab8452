/* abort() runs no exit handler: the profile is written just before it.  */
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  int n = 0;			/* count(1) */
  for (int i = 0; i < 7; i++)	/* count(8) */
    n += i;			/* count(7) */
  printf ("%d\n", n);		/* count(1) */
  fflush (stdout);		/* count(1) */
  if (argc < 5)			/* count(1) */
    abort ();			/* count(1) */
  return 0;			/* count(0) */
}
