/* Compiled roots that keep a record (their supergraph does not inline a
   call: through a pointer, or a summary call at depth k): the process ends
   in such a call (exit through a pointer, two compiled roots deep), a
   longjmp passes compiled roots in the middle of their calls and lands in
   a function that calls setjmp, recursion deeper than libprof's stack of
   records (the deepest activations run as their clones), and callbacks from
   code that is not instrumented (qsort's comparisons through a compiled
   root).  Every count must be what libprof's own numbering counts
   (interproc.exp: -fplugin-arg-pathprof-roots=runtime) and what
   edge-counts counts.  */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static int (*step) (int);
static long total;

static int __attribute__ ((noinline))
odd (int x)
{
  if (x % 41 == 17)
    longjmp (env, x);		/* past every compiled root above main */
  return x & 1 ? 3 * x + 1 : x / 2;
}

static int __attribute__ ((noinline))
twice (int x)
{
  return 2 * x + (x > 100);
}

static int __attribute__ ((noinline))
finish (int x)
{
  printf ("finish %d %ld\n", x, total);
  fflush (stdout);
  exit (0);			/* the process ends under two records */
}

/* A root whose only call goes through a pointer (a leaf edge).  */
static int __attribute__ ((noinline))
apply (int x, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += step (x + i) & 0xff;
  return s;
}

/* Inlines apply at depth 1; apply's call through the pointer is a leaf edge
   in its copy too.  */
static int __attribute__ ((noinline))
outer (int x)
{
  int s = x & 1 ? apply (x, 3) : apply (x + 1, (x & 3) + 1);
  if (s > 300)
    s -= twice (s);
  return s;
}

/* Recursion: each level's call of itself is inlined once, then a summary
   call at depth 1; with depth 300 the stack of records fills.  */
static int __attribute__ ((noinline))
deep (int n)
{
  if (n <= 0)
    return step (7);
  int s = n & 1 ? deep (n - 1) : deep (n - 1) + twice (n);
  return s % 10007;
}

static int
by_value (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (twice (x) > twice (y)) - (twice (x) < twice (y));
}

int
main (int argc, char **argv)
{
  int n = 300;
  (void) argv;
  step = odd;
  for (volatile int i = 0; i < n; i++)
    {
      if (setjmp (env))
	{
	  total += 1000;
	  continue;
	}
      total += outer (i);
      if (i % 50 == 0)
	total += deep (i % 100 == 0 ? 300 : 20);
    }
  int a[64];
  for (int i = 0; i < 64; i++)
    a[i] = (i * 37) % 64;
  qsort (a, 64, sizeof a[0], by_value);
  total += a[5];
  printf ("%ld\n", total);
  step = argc > 0 ? finish : odd;
  total += outer (5);
  return 1;
}
