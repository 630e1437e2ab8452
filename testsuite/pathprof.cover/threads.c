/* Threads run the same function; a function no thread runs is not covered.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

void *
work (void *arg)			/* covered calls(work, 4) */
{
  long n = (long) arg;			/* covered */
  long odd = 0;				/* covered */
  for (long i = 0; i < n; i++)		/* covered */
    if (i % 2)				/* covered */
      odd++;				/* covered */
  if (n < 0)				/* covered */
    puts ("negative");			/* not covered */
  return (void *) odd;			/* covered */
}

void *
idle (void *arg)			/* not covered calls(idle, 0) */
{
  puts ("idle");			/* not covered */
  return arg;				/* not covered */
}

int
main (void)
{
  pthread_t t[4];
  long sum = 0;				/* covered */
  for (long i = 0; i < 4; i++)		/* covered */
    pthread_create (&t[i], NULL, work, (void *) (1000 * (i + 1)));	/* covered */
  for (int i = 0; i < 4; i++)		/* covered */
    {
      void *odd;
      pthread_join (t[i], &odd);	/* covered */
      sum += (long) odd;		/* covered */
    }
  printf ("%ld\n", sum);		/* covered */
  return 0;				/* covered */
}
