/* longjmp leaves two frames: the code after the calls it abandons never runs,
   the code after setjmp runs again.  */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void __attribute__ ((noinline))
jump (int i)				/* covered calls(jump, 3) */
{
  if (i > 1)				/* covered */
    longjmp (env, i);			/* covered */
  if (i < 0)				/* covered */
    puts ("negative");			/* not covered */
  printf ("no jump %d\n", i);		/* covered */
}

static void __attribute__ ((noinline))
middle (int i)				/* covered */
{
  jump (i);				/* covered */
  if (i == 2)				/* covered */
    puts ("middle after jump 2");	/* not covered */
}

int
main (void)
{
  volatile int round = 0;		/* covered */
  int r = setjmp (env);			/* covered */
  if (r > 5)				/* covered */
    puts ("too far");			/* not covered */
  while (round < 3)			/* covered */
    middle (round++);			/* covered */
  printf ("back with %d\n", r);		/* covered */
  return 0;				/* covered */
}
