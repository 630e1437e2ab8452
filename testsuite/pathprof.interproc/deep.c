/* Deep recursion: libprof's activation stack grows in chunks (64, then
   128, 256, ... activations), and an ENTER that finds the stack full
   takes the slow way, which grows it: the activations past each chunk's
   end (a continuation, a root, a call whose return a longjmp would
   abandon) must count as the shallow ones do.  Each level loops, calls a
   leaf the caller's copy inlines, and recurses through two functions.  */
#include <stdio.h>

static volatile int sink;

__attribute__ ((noinline)) static int
leaf (int x)
{
  if (x % 3 == 0)
    sink++;
  return x & 7;
}

static int down_b (int depth);

__attribute__ ((noinline)) static int
down_a (int depth)
{
  int s = 0;
  for (int i = 0; i < depth % 4; i++)
    s += leaf (depth + i);
  if (depth > 0)
    s += down_b (depth - 1);
  return s;
}

__attribute__ ((noinline)) static int
down_b (int depth)
{
  int s = leaf (depth);
  if (depth > 0)
    s += down_a (depth - 1);
  return s;
}

int
main (void)
{
  int total = 0;
  for (int d = 60; d < 1100; d += 173)
    total += down_a (d);
  printf ("%d %d\n", total, sink);
  return 0;
}
