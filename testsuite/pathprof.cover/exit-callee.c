/* A callee ends the program with exit(): the caller's code after the call
   never runs.  */
#include <stdio.h>
#include <stdlib.h>

static void __attribute__ ((noinline))
finish (int code)			/* covered calls(finish, 1) */
{
  printf ("finish %d\n", code);		/* covered */
  exit (code);				/* covered */
}

void __attribute__ ((noinline))
never (void)				/* not covered calls(never, 0) */
{
  puts ("never");			/* not covered */
}

int
main (int argc, char **argv)
{
  int n = argc + 2;			/* covered */
  if (n > 100)				/* covered */
    never ();				/* not covered */
  printf ("%s %d\n", argv[0] ? "n" : "?", n);	/* covered */
  finish (n - 3);			/* covered */
  puts ("after finish");		/* not covered */
  return 1;				/* not covered */
}
