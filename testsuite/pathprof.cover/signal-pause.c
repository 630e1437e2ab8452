/* A loop blocked in pause(), ended by a signal handler that calls exit().  */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static void
on_alarm (int sig)			/* covered calls(on_alarm, 1) */
{
  printf ("alarm %d\n", sig);		/* covered */
  exit (0);				/* covered */
}

int
main (void)
{
  struct itimerval soon = { { 0, 0 }, { 0, 20000 } };
  signal (SIGALRM, on_alarm);		/* covered */
  puts ("waiting");			/* covered */
  fflush (stdout);			/* covered */
  setitimer (ITIMER_REAL, &soon, NULL);	/* covered */
  for (;;)
    {
      pause ();				/* covered */
      puts ("woken");			/* not covered */
    }
}
