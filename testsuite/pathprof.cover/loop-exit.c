/* A loop without an exit, left by exit() from a callee inside it.  */
#include <stdio.h>
#include <stdlib.h>

static int __attribute__ ((noinline))
step (int i)				/* covered calls(step, 6) */
{
  if (i == 5)				/* covered */
    {
      printf ("stop at %d\n", i);	/* covered */
      exit (0);				/* covered */
    }
  return i + 1;				/* covered */
}

int
main (void)
{
  int i = 0;				/* covered */
  for (;;)
    {
      i = step (i);			/* covered */
      if (i > 100)			/* covered */
	puts ("never");			/* not covered */
    }
}
