/* A profiling-timer handler that leaves by siglongjmp, wherever the program
   is: in its loop, in a witness's write, or in libprof writing the buffer
   out.  The program must end as the plain build does (libprof takes its lock
   with signals blocked: a handler leaving it held hung the next flush), and
   its trace must regenerate, every landing a LAND.  */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static sigjmp_buf env;
static volatile int jumps;
static volatile unsigned sink;

static void
on_tick (int sig)
{
  (void) sig;
  jumps++;
  siglongjmp (env, 1);
}

static unsigned __attribute__ ((noinline))
work (unsigned x, int n)
{
  for (int i = 0; i < n; i++)
    x = x & 1 ? 3 * x + 1 : x / 2 + (x & 4 ? 7 : 0);
  return x;
}

int
main (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;
  sigaction (SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 100 }, { 0, 100 } };
  setitimer (ITIMER_PROF, &it, NULL);
  volatile unsigned x = 27;	/* read after siglongjmp */
  volatile int rounds = 0;
  sigsetjmp (env, 1);
  while (rounds < 1000000)
    {
      rounds++;
      x = work (x + rounds, 20);
    }
  memset (&it, 0, sizeof it);
  setitimer (ITIMER_PROF, &it, NULL);
  sink = x;
  printf ("jumps %d\n", jumps);
  return 0;
}
