/* Recursion, mutual recursion, calls through a pointer and back from qsort (a
   callback from code that is not instrumented), setjmp/longjmp out of two
   frames, and an exit from a callee: the regenerated sequence must give every
   edge count of the edge-counts build.  */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static int depth_seen;

static int is_even (unsigned n);
static int is_odd (unsigned n) { return n == 0 ? 0 : is_even (n - 1); }
static int is_even (unsigned n) { return n == 0 ? 1 : is_odd (n - 1); }

static int
fib (int n)
{
  return n < 2 ? n : fib (n - 1) + fib (n - 2);
}

static int
by_value (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

static void __attribute__ ((noinline))
dive (int n)
{
  if (n == 0)
    longjmp (env, 7);
  depth_seen++;
  dive (n - 1);
}

static void __attribute__ ((noinline))
leave (int code)
{
  printf ("leaving with %d\n", code);
  exit (code);
}

int
main (int argc, char **argv)
{
  int (*op) (int) = argc > 5 ? abs : fib;
  int v[16], s = 0;
  for (int i = 0; i < 16; i++)
    v[i] = (i * 7919) % 31;
  qsort (v, 16, sizeof *v, by_value);
  for (int i = 0; i < 12; i++)
    s += is_even ((unsigned) i) ? op (i) : -v[i];
  int r = setjmp (env);
  if (r == 0)
    dive (3);
  printf ("%d %d %d\n", s, r, depth_seen);
  if (argv[0][0])
    leave (s % 7);
  return 0;
}
