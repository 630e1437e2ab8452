/* The program ends by exit() in main, inside a loop: the path that calls exit
   ends there and is counted.  The for loop's increment runs last on the path
   around the loop.  */
#include <stdio.h>
#include <stdlib.h>

static int __attribute__ ((noinline))
step (int i)			/* paths(step, total=2, executed=2) hottest(step, 6) */
{
  if (i % 3)			/* count(9) hottest(step, 6) */
    return i;			/* count(6) hottest(step, 6) */
  return -i;			/* count(3) */
}

int
main (void)			/* paths(main, total=4, executed=3) */
{
  int s = 0;			/* count(1) */
  for (int i = 0;; i++)		/* hottest(main, 7, last) */
    {
      s += step (i);		/* hottest(main, 7) */
      if (s > 10)		/* count(9) hottest(main, 7) */
	{
	  printf ("%d\n", s);	/* count(1) */
	  exit (0);		/* count(1) */
	}
    }
}
