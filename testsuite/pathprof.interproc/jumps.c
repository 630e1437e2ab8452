/* longjmp out of nested and recursive calls, back into loops; a setjmp in a
   callee too.  */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int depth_reached;

static void
dive (int n)
{
  if (n == 0)
    longjmp (env, 1 + depth_reached % 3);
  depth_reached++;
  if (n % 2)
    dive (n - 1);
  else
    dive (n - 1);
}

static int
guarded (int n)
{
  jmp_buf inner;
  int r = setjmp (inner);
  if (r == 0)
    {
      if (n > 2)
	longjmp (inner, n);
      return n;
    }
  return r * 10;
}

int
main (void)
{
  int total = 0;
  for (int i = 0; i < 6; i++)
    {
      int r = setjmp (env);
      if (r == 0)
	dive (i + 1);
      else
	total += r;
      total += guarded (i);
    }
  printf ("%d %d\n", total, depth_reached);
  return 0;
}
