/* A loop with a branch, a branch never taken and a function never called, for
   pathprof dot (dot.exp): in every mode its picture must show what "pathprof
   show" reports, grey where nothing ran, and in the paths mode the hottest
   paths of "pathprof paths".  */
#include <stdio.h>

static int __attribute__ ((noinline))
count_odd (int n)
{
  int odd = 0;
  for (int i = 0; i < n; i++)
    if (i % 3)
      odd++;
  return odd;
}

static int __attribute__ ((noinline))
never (int x)
{
  if (x > 100)
    return x * 2;
  return x;
}

int
main (int argc, char **argv)
{
  (void) argv;
  int r = count_odd (10);
  if (argc > 5)
    r += never (argc);
  printf ("%d\n", r);
  return 0;
}
