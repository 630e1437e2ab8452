/* GCC's __builtin_setjmp and __builtin_longjmp out of nested calls: they
   have no address, which the call probes must not take.  */
#include <stdio.h>

static void *buf[5];
static int n;

__attribute__ ((noinline)) static void
jump (int k)
{
  n += k;
  if (k > 2)
    __builtin_longjmp (buf, 1);
}

__attribute__ ((noinline)) static void
twice (int k)
{
  jump (k);
  jump (k + 1);
}

int
main (void)
{
  for (int i = 0; i < 4; i++)
    {
      if (__builtin_setjmp (buf) == 0)
	twice (i);
      else
	n += 100;
    }
  printf ("%d\n", n);
  return 0;
}
