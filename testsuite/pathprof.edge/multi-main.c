/* A program of two units: counts from both land in one profile.
   pathprof-sources: multi-part.c */
#include <stdio.h>

int classify (int x);

int
main (void)
{
  int hist[3] = {0, 0, 0};	/* count(1) */
  for (int i = -5; i < 20; i++)	/* count(26) */
    hist[classify (i)]++;	/* count(25) */
  printf ("%d %d %d\n", hist[0], hist[1], hist[2]);	/* count(1) */
  return 0;			/* count(1) */
}
