/* A switch whose cases are not all taken.  */
#include <stdio.h>

static void __attribute__ ((noinline))
name (int c)				/* covered calls(name, 3) */
{
  switch (c)				/* covered */
    {
    case 0:
      puts ("zero");			/* covered */
      break;
    case 1:
      puts ("one");			/* not covered */
      break;
    case 2:
    case 3:
      puts ("two or three");		/* covered */
      break;
    case 7:
      puts ("seven");			/* not covered */
      /* fall through */
    case 8:
      puts ("eight");			/* not covered */
      break;
    default:
      puts ("other");			/* covered */
    }
}

int
main (void)
{
  for (int c = 0; c < 6; c += 2)	/* covered */
    name (c);				/* covered */
  return 0;				/* covered */
}
