/* across.c's other unit: pick has branches and a call out of main's
   supergraph (scale, a summary edge), and no loop; digits has a loop,
   whose backedge ends main's segments in its clone.  */
#include <stdio.h>
#include <stdlib.h>

int scale (int y);

int
pick (int x)
{
  int r = x > 150 ? x - 150 : x;
  if (r % 7 == 0)
    r += scale (r);
  return r & 0xff;
}

/* The second time it gets 147 (main's i = 294) the process ends here,
   in a call that pick's clone makes with main's record pushed: main's
   segment under way counts from the record, as interproc-segments counts
   it from libprof's activation.  */
int __attribute__ ((noinline))
scale (int y)
{
  static int seen;
  if (y == 147 && ++seen == 2)
    {
      printf ("exit in scale\n");
      exit (0);
    }
  return y % 4 == 0 ? y * 3 : y;
}

/* Declared const in across.c; its second way never runs.  */
int
width (int t)
{
  if (t > 15)
    return -1;
  return t * 2;
}

/* Its clone counts main's segments that its backedge ends, in main's
   array or, with path-array-max=2, main's table (not its front).  */
int
digits (int x)
{
  int n = 0;
  do
    {
      n += x % 10 == 3 ? 2 : 1;
      x /= 10;
    }
  while (x);
  return n;
}

/* A copy of another unit with copies below: main's S at depth 2 holds
   twice and its calls of digits (this unit's) and half (across.c's,
   whose unit makes the copy public for this clone to call).  */
int half (int x);

int
twice (int x)
{
  int r = digits (x * 7);
  if (x % 4 == 1)
    r += half (x);
  return r;
}
