/* A search loop as zlib's longest_match: most turns leave early by a
   continue, and the latch has lines of its own.  A coverage probe must see
   the latch on every way round, where edge counting's counter on the rarest
   way tells it by subtraction, so at -O2 the coverage modes count here
   (counting.exp checks that they do); the report must not change.  */
#include <stdio.h>

static unsigned char text[8192];
static unsigned short prev[8192];

static unsigned __attribute__ ((noinline))
search (unsigned cur, unsigned chain, unsigned want)	/* covered calls(search, 64) */
{
  unsigned best = 0;				/* covered */
  do
    {
      const unsigned char *m = &text[cur];	/* covered */
      if (m[0] != text[want] || m[1] != text[want + 1])	/* covered */
	continue;
      unsigned len = 2;				/* covered */
      while (len < 64 && m[len] == text[want + len])	/* covered */
	len++;					/* covered */
      if (len > best)				/* covered */
	best = len;				/* covered */
      if (len >= 200)				/* covered */
	break;					/* not covered */
    }
  while ((cur = prev[cur & 8191]) > 16	/* covered */
	 && --chain != 0);			/* covered */
  return best;					/* covered */
}

int
main (void)
{
  unsigned seed = 7;				/* covered */
  for (unsigned i = 0; i < sizeof text; i++)	/* covered */
    {
      seed = seed * 1103515245u + 12345u;	/* covered */
      text[i] = (unsigned char) ("abcd"[(seed >> 16) & 3]);	/* covered */
      prev[i] = (unsigned short) (i > 64 ? i - 1 - (seed >> 20) % 48 : 0);	/* covered */
    }
  unsigned total = 0;				/* covered */
  for (unsigned k = 0; k < 64; k++)		/* covered */
    total += search (8000 - k * 7, 128, 100 + k);	/* covered */
  printf ("%u\n", total);			/* covered */
  return 0;					/* covered */
}
