/* Compiled roots (plugin/compiled.cc) interrupted anywhere by a profiling
   timer whose handler runs the same roots: the copies of work and once pass
   their register and their record's address through the thread's words,
   push the record before their calls through a pointer or to another root
   (step's at depth 1, inner's at depth 2), and hand it back.  The handler's activations must
   give the words back as they found them and push above the interrupted
   one's record, so that every activation the program counts is in the
   profile: interproc.exp compares each function's calls with the counts
   this prints.  */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define COUNT(c) __atomic_fetch_add (&(c), 1, __ATOMIC_RELAXED)

static volatile sig_atomic_t ticks;
static volatile unsigned long sink;
static unsigned long works, steps, inners, aways, hooks, onces;

__attribute__ ((noinline)) static unsigned long
away (unsigned long x)
{
  COUNT (aways);
  return x ^ (x >> 3);
}

static unsigned long
hooked (unsigned long x)
{
  COUNT (hooks);
  return x * 2654435761u;
}

static unsigned long (*volatile hook) (unsigned long) = hooked;

__attribute__ ((noinline)) static unsigned long
inner (unsigned long x)
{
  COUNT (inners);
  if (((x >> 3) & 7) == 0)
    return hook (x);
  return x + 1;
}

__attribute__ ((noinline)) static unsigned long
step (unsigned long x)
{
  COUNT (steps);
  if ((x & 7) == 3)
    x = inner (x);
  if ((x & 255) == 17)
    x = away (x);
  return x * 3 + (x >> 5);
}

__attribute__ ((noinline)) unsigned long
work (unsigned long x, int n)
{
  COUNT (works);
  for (int i = 0; i < n; i++)
    x = step (x + (unsigned long) i);
  return x;
}

/* Its pass is in no loop: it saves the thread's words there, not on
   entry (compiled.cc keep_pass), and most of its calls save nothing.  */
__attribute__ ((noinline)) unsigned long
once (unsigned long x)
{
  COUNT (onces);
  if ((x & 3) == 1)
    return step (x);
  return x + 1;
}

static void
on_tick (int sig)
{
  (void) sig;
  ticks++;
  sink ^= work ((unsigned long) ticks, 50) + once ((unsigned long) ticks);
}

int
main (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_tick;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGPROF, &sa, NULL);
  struct itimerval it = { { 0, 500 }, { 0, 500 } };
  setitimer (ITIMER_PROF, &it, NULL);
  unsigned long x = 1;
  while (ticks < 100)
    {
      x = work (x, 1000);
      for (int i = 0; i < 1000; i++)
	x = once (x + (unsigned long) i);
    }
  struct itimerval off;
  memset (&off, 0, sizeof off);
  setitimer (ITIMER_PROF, &off, NULL);
  sink ^= x;
  printf ("ticks %d works %lu onces %lu steps %lu inners %lu aways %lu hooks %lu\n",
	  (int) ticks, works, onces, steps, inners, aways, hooks);
  return 0;
}
