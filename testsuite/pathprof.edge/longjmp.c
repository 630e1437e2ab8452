/* setjmp/longjmp across two frames: abnormal edges are modelled as leaves and
   re-entries, so every other count is exact.  */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

static void __attribute__ ((noinline))
deep (int i)			/* count(5) calls(deep, 5) */
{
  if (i % 2)			/* count(5) */
    longjmp (env, i);		/* count(2) */
  printf ("deep %d\n", i);	/* count(3) */
}

static void __attribute__ ((noinline))
middle (int i)			/* count(5) calls(middle, 5) */
{
  deep (i);			/* count(5) */
  printf ("middle %d\n", i);	/* count(3) */
}

int
main (void)
{
  volatile int i = 0;		/* count(1) */
  volatile int jumps = 0;	/* count(1) */
  if (setjmp (env))		/* count(3) */
    jumps++;			/* count(2) */
  while (i < 5)			/* count(6) */
    {
      int k = i++;		/* count(5) */
      middle (k);		/* count(5) */
    }
  printf ("jumps %d\n", jumps);	/* count(1) */
  return 0;			/* count(1) */
}
