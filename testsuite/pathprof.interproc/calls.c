/* Interprocedural paths across two units: recursion (fib), mutual recursion
   (even/odd), static functions of the same name in both units (twice), a
   callback from the C library (qsort), calls through pointers, two calls in
   a row in one block (square: const, so no call ends its block), and exit
   from a callee when the program has three or more arguments.  */
/* pathprof-sources: calls-part.c */
#include <stdio.h>
#include <stdlib.h>

int fib (int n);
int even (unsigned n);
int apply (int (*f) (int), int x);

static int twice (int x) { return 2 * x; }
static int cube (int x) { return x * x * x; }
static int __attribute__ ((noinline, const)) square (int x) { return x * x; }

static int
by_value (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

static int
classify (int x, int argc)
{
  if (x % 3 == 0)
    return twice (x);
  if (x % 3 == 1)
    return apply (cube, x % 5);
  if (argc > 3 && x == 8)
    {
      printf ("leaving from a callee\n");
      fflush (stdout);
      exit (3);
    }
  return fib (x % 9) + even ((unsigned) x);
}

int
main (int argc, char **argv)
{
  int v[16];
  long s = 0;
  (void) argv;
  for (int i = 0; i < 16; i++)
    v[i] = (i * 7919) % 31;
  qsort (v, 16, sizeof *v, by_value);
  for (int i = 0; i < 14 + argc; i++)
    s += classify (v[i % 16] + i, argc) + square (i) * square (i + 1);
  printf ("%ld\n", s);
  return 0;
}
