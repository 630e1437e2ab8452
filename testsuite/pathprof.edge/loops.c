/* Loops of every shape: counts are exact whatever the spanning tree.  */
#include <stdio.h>

static int __attribute__ ((noinline))
sum_to (int n)			/* count(3) calls(sum_to, 3) */
{
  int s = 0;			/* count(3) */
  for (int i = 1; i <= n; i++)	/* count(12) */
    s += i;			/* count(9) */
  return s;			/* count(3) */
}

static int __attribute__ ((noinline))
collatz (unsigned long x)
{
  int steps = 0;		/* count(1) */
  while (x != 1)		/* count(112) */
    {
      if (x % 2)		/* count(111) */
	x = 3 * x + 1;		/* count(41) */
      else
	x /= 2;			/* count(70) */
      steps++;			/* count(111) */
    }
  return steps;			/* count(1) */
}

int
main (void)
{
  int total = 0;		/* count(1) */
  for (int k = 0; k < 3; k++)	/* count(4) */
    total += sum_to (k * 2 + 1);	/* count(3) */
  int j = 0;			/* count(1) */
  do
    j++;			/* count(5) */
  while (j < 5);		/* count(5) */
  printf ("%d %d %d\n", total, collatz (27), j);	/* count(1) */
  return 0;			/* count(1) */
}
