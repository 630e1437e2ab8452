/* Loops that neither call nor store, where GCC's predictive commoning
   (on at -O2) would carry a counter from one iteration to the next in a
   register: counters.exp checks that every counter stays one add to
   memory.  Here, that the counts stay exact.  */
#include <stdio.h>

/* One block per iteration: the back edge is always a counter.  */
static long __attribute__ ((noinline))
length (const unsigned char *p)
{
  const unsigned char *s = p;		/* count(2) */
  while (*p)				/* count(20) */
    p++;				/* count(18) */
  return p - s;				/* count(2) */
}

/* A compare chain with one exit per compare, as zlib's longest_match.  */
static int __attribute__ ((noinline))
common (const unsigned char *a, const unsigned char *b, const unsigned char *end)
{
  const unsigned char *s = a;		/* count(2) */
  do
    {
    }
  while (*++a == *++b && *++a == *++b	/* count(12) */
	 && a < end);
  return (int) (a - s);			/* count(2) */
}

int
main (void)
{
  static const unsigned char x[] = "abcdefghijklmnopqrstuvwxyz";
  static const unsigned char y[] = "abcdefghijklmnopqrsXuvwxyz";
  printf ("%ld %ld\n", length (x + 20), length (x + 20 - 6));	/* count(1) */
  printf ("%d %d\n", common (x, y, x + 25), common (x, x, x + 6));	/* count(1) */
  return 0;				/* count(1) */
}
