/* Signal handlers running anywhere, also between a direct call's
   announcement and its callee's entry and in the middle of libprof's
   writes: a profiling timer interrupts a loop of direct calls whose handler
   makes the same calls.  The trace must regenerate; the handler's
   activations in it and those libprof reports left out (they interrupted a
   write) add up to the ticks this prints.  */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;
static unsigned long leaves;

__attribute__ ((noinline)) static unsigned long
leaf (unsigned long x)
{
  leaves++;
  return x * 2654435761u;
}

__attribute__ ((noinline)) static unsigned long
mid (unsigned long x)
{
  unsigned long s = leaf (x);
  if (x & 1)
    s += leaf (x + 1);
  return s;
}

static void
on_tick (int sig)
{
  (void) sig;
  ticks++;
  sink += mid (ticks);
}

int
main (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;
  sa.sa_flags = SA_RESTART;
  sigaction (SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 200 }, { 0, 200 } };
  setitimer (ITIMER_PROF, &it, NULL);
  unsigned long s = 0;
  for (unsigned long i = 0; ticks < 200 && i < 400000000ul; i++)
    s += mid (i);
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_PROF, &off, NULL);
  sink += s;
  printf ("ticks %d leaves %lu\n", (int) ticks, leaves);
  return 0;
}
