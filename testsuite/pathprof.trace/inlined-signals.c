/* Callees GCC inlines after the probes went in (plugin/trace-probes.cc,
   "Markers"): their activations continue their callers' pending bits, one
   with calls of its own writes them before each call.  A profiling timer
   interrupts them anywhere, its handler with traced calls of its own.  The
   trace must regenerate, with every activation of the inlined functions the
   program counted, and the handler's activations in it and those libprof
   left out (they interrupted a write) adding up to the ticks this prints.  */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;
static unsigned long leaves, mids, aways;

__attribute__ ((noinline)) static unsigned long
away (unsigned long x)
{
  aways++;
  return x ^ (x >> 3);
}

/* Inlined, no calls: it adds to the caller's pending bits.  */
static inline unsigned long
leaf (unsigned long x)
{
  leaves++;
  switch (x & 7)
    {
    case 1: return x * 2654435761u;
    case 2: return x + 7;
    case 4: return x >> 2;
    case 5: return x ^ 0x5bd1e995u;
    default: return x;
    }
}

/* Inlined, with calls: it writes before them.  */
static unsigned long
mid (unsigned long x)
{
  mids++;
  unsigned long s = leaf (x);
  if (x & 1)
    s += leaf (x + 1);
  if ((x & 15) == 3)
    s += away (s);
  return s;
}

__attribute__ ((noinline)) static unsigned long
hleaf (unsigned long x)
{
  return x & 1 ? x * 3 : x + 2;
}

static void
on_tick (int sig)
{
  (void) sig;
  ticks++;
  sink += hleaf (ticks);
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
  for (unsigned long i = 0; ticks < 50 && i < 400000000ul; i++)
    s += mid (i);
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  setitimer (ITIMER_PROF, &off, NULL);
  sink += s;
  printf ("ticks %d leaves %lu mids %lu aways %lu\n", (int) ticks, leaves, mids, aways);
  return 0;
}
