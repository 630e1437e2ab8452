/* Callees GCC inlines after the probes went in (plugin/trace-probes.cc,
   "Markers"): an inlined activation continues its caller's pending bits,
   nested, with loops, with calls of its own (before which it writes them),
   through recursion, and not in a function that calls setjmp (which keeps
   nothing pending).  The regenerated sequence must give every edge count of
   the edge-counts build.  */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static unsigned long sink;

__attribute__ ((noinline)) static unsigned long
away (unsigned long x)
{
  sink += x;
  return x ^ (x >> 3);
}

static inline unsigned long
pick (unsigned long x)
{
  switch (x & 7)
    {
    case 1: return x * 3;
    case 2: return x + 7;
    case 4: return x >> 2;
    case 5: return x ^ 0x55;
    default: return x;
    }
}

static inline unsigned long
spin (unsigned long x)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < (x & 3); i++)
    s += pick (x + i);
  return s;
}

static inline unsigned long
calls_out (unsigned long x)
{
  unsigned long s = pick (x);
  if (x % 5 == 1)
    s += away (s);
  if (x % 7 == 2)
    s += spin (s);
  return s;
}

static inline unsigned long
rec (unsigned long n)
{
  return n < 2 ? n : rec (n - 1) + pick (n);
}

static unsigned long
jumpy (unsigned long x)
{
  if (setjmp (env))
    return 1;
  unsigned long s = calls_out (x) + pick (x);
  if (x % 13 == 0)
    longjmp (env, 1);
  return s;
}

int
main (int argc, char **argv)
{
  unsigned long s = 0, n = argc > 5 ? strtoul (argv[1], NULL, 10) : 300;
  for (unsigned long i = 0; i < n; i++)
    {
      s += calls_out (i);
      s += spin (i);
      if (i % 11 == 0)
	s += rec (i % 9);
      s += jumpy (i);
    }
  printf ("%lu %lu\n", s, sink);
  return 0;
}
