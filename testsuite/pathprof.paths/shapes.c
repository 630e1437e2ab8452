/* Paths of the usual shapes: branches, a loop with a branch, a loop left by
   break, nested loops and a switch.  */
#include <stdio.h>

static int __attribute__ ((noinline))
classify (int x)		/* paths(classify, total=3, executed=3) hottest(classify, 5) */
{
  if (x < 0)			/* count(8) hottest(classify, 5) */
    return -1;			/* count(5) hottest(classify, 5) */
  if (x == 0)			/* count(3) */
    return 0;			/* count(1) */
  return 1;			/* count(2) */
}

static int __attribute__ ((noinline))
collatz (unsigned long x)	/* paths(collatz, total=6, executed=4) */
{
  int steps = 0;		/* count(1) */
  while (x != 1)		/* count(112) hottest(collatz, 70) */
    {
      if (x % 2)		/* count(111) hottest(collatz, 70) */
	x = 3 * x + 1;		/* count(41) */
      else
	x /= 2;			/* count(70) hottest(collatz, 70) */
      steps++;			/* count(111) hottest(collatz, 70) */
    }
  return steps;			/* count(1) */
}

static int __attribute__ ((noinline))
find (const int *a, int n, int key)	/* paths(find, total=6, executed=4) */
{
  int i;
  for (i = 0; i < n; i++)	/* count(11) hottest(find, 7) */
    if (a[i] == key)		/* count(10) hottest(find, 7) */
      break;			/* count(1) */
  return i;			/* count(2) */
}

static int __attribute__ ((noinline))
triangle (int n)		/* paths(triangle, total=8, executed=5) */
{
  int s = 0;			/* count(1) */
  for (int i = 0; i < n; i++)	/* count(5) */
    for (int j = 0; j <= i; j++)	/* count(14) hottest(triangle, 6) */
      s += j;			/* count(10) hottest(triangle, 6) */
  return s;			/* count(1) */
}

static const char *__attribute__ ((noinline))
name (int day)			/* paths(name, total=3, executed=3) hottest(name, 5) */
{
  switch (day)			/* count(7) hottest(name, 5) */
    {
    case 0:			/* count(1) */
      return "sun";		/* count(1) */
    case 6:			/* count(1) */
      return "sat";		/* count(1) */
    default:			/* count(5) hottest(name, 5) */
      return "week";		/* count(5) hottest(name, 5) */
    }
}

int
main (void)			/* paths(main, total=8, executed=5) calls(main, 1) */
{
  int a[] = { 4, 8, 15, 16, 23, 42 };	/* count(1) */
  int sum = 0;			/* count(1) */
  for (int i = -5; i < 3; i++)	/* count(9) hottest(main, 7) */
    sum += classify (i);	/* count(8) hottest(main, 7) */
  printf ("%d %d\n", sum, collatz (27));	/* count(1) */
  printf ("%d %d\n", find (a, 6, 16), find (a, 6, 5));	/* count(1) */
  printf ("%d\n", triangle (4));	/* count(1) */
  for (int d = 0; d < 7; d++)	/* count(8) */
    printf ("%s ", name (d));	/* count(7) */
  printf ("\n");		/* count(1) */
  return 0;			/* count(1) */
}
