/* Enough records to write a thread's 1 MiB trace buffer out a few times
   (trace.exp also runs it with one trace file a thread, %t).  */
#include <stdio.h>

int
main (void)
{
  unsigned x = 1, n = 0;
  for (int i = 0; i < 6000000; i++)
    {
      x = x * 1103515245u + 12345u;
      if (x >> 31)		/* a witness every iteration or so */
	n++;
      else
	n += 2;
    }
  printf ("%u\n", n);
  return 0;
}
