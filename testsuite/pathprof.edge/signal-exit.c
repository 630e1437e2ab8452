/* A signal handler ends the program with exit() while main is blocked in a
   call: the blocked frame leaves early through that call, counts stay exact.  */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void
on_alarm (int sig)		/* count(1) */
{
  printf ("alarm %d\n", sig);	/* count(1) */
  exit (0);			/* count(1) */
}

int
main (void)
{
  signal (SIGALRM, on_alarm);	/* count(1) */
  for (int i = 0; i < 3; i++)	/* count(4) */
    printf ("tick %d\n", i);	/* count(3) */
  fflush (stdout);		/* count(1) */
  alarm (1);			/* count(1) */
  for (;;)
    pause ();			/* count(1) */
}
