/* Loops whose bodies branch: block-cover probes such functions on edges
   (the fewest block probes would store on every iteration's common way) and
   skips their empty latches; the report must not change.  */
#include <stdio.h>

static unsigned short table[4096];

static void __attribute__ ((noinline))
slide (unsigned n, unsigned w)		/* covered calls(slide, 20) */
{
  unsigned short *p = &table[n];	/* covered */
  do
    {
      unsigned m = *--p;		/* covered */
      *p = (unsigned short) (m >= w ? m - w : 0);	/* covered */
    }
  while (--n);				/* covered */
}

static int __attribute__ ((noinline))
count_big (unsigned limit)		/* covered calls(count_big, 1) */
{
  int big = 0;				/* covered */
  for (unsigned i = 0; i < 4096; i++)	/* covered */
    if (table[i] > limit)		/* covered */
      {
	printf ("big %u\n", table[i]);	/* not covered */
	big++;				/* not covered */
      }
  return big;				/* covered */
}

int
main (void)
{
  for (unsigned i = 0; i < 4096; i++)	/* covered */
    table[i] = (unsigned short) (i * 7);	/* covered */
  for (int r = 0; r < 20; r++)		/* covered */
    slide (4096, 300);			/* covered */
  printf ("%d %d\n", table[100], count_big (60000));	/* covered */
  return 0;				/* covered */
}
