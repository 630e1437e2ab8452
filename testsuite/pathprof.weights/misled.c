/* Branches whose static estimates are wrong.  GCC is told that the two
   then-branches of clamp are unlikely, yet they run 99 times in 100.  Every
   path from the function's entry to its exit crosses a counter; with two
   branches in a row, two of the four branch edges carry one and a third goes
   on one of the others: the static estimates put the two on the then-edges,
   a run of the program on the edges around them.  In skip_spaces the
   structural heuristic expects the loop to iterate; it seldom does.  So
   weights=profile makes fewer counter increments than any static weighting,
   at -O0 and -O2.  */
#include <stdio.h>

__attribute__ ((noinline)) static int
clamp (int x, int *hi)
{
  if (__builtin_expect (x > 10, 0))	/* true 99 times in 100 */
    x = 10 + (x & 1);
  if (__builtin_expect (x > 5, 0))	/* as often */
    *hi += x;
  return x;
}

__attribute__ ((noinline)) static int
skip_spaces (const char *s)
{
  int n = 0;
  while (*s == ' ')
    {
      s++;
      n += n < 3 ? 2 : 1;
    }
  return n;
}

int
main (void)
{
  static const char *const words[] = { "a", "b", "  c", "d", "e", "f" };
  long sum = 0;
  int hi = 0;
  for (int i = 0; i < 20000; i++)
    sum += clamp (i % 100 == 0 ? 1 : 20 + i % 7, &hi) + skip_spaces (words[i % 6]);
  printf ("%ld %d\n", sum, hi);
  return 0;
}
