/* The program ends inside a callee through exit(): every frame still active
   has left early, and the counts before the exit stay exact.  */
#include <stdio.h>
#include <stdlib.h>

static void __attribute__ ((noinline))
check (int i)			/* count(4) calls(check, 4) */
{
  if (i == 3)			/* count(4) */
    {
      printf ("leaving at %d\n", i);	/* count(1) */
      exit (3);			/* count(1) */
    }
  printf ("ok %d\n", i);	/* count(3) */
}

static void __attribute__ ((noinline))
loop (void)			/* count(1) calls(loop, 1) */
{
  for (int i = 0; i < 10; i++)	/* count(4) */
    check (i);			/* count(4) */
  printf ("never\n");		/* count(0) */
}

int
main (void)
{
  loop ();			/* count(1) */
  return 0;			/* count(0) */
}
