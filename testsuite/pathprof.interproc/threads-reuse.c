/* Many threads, one after another, some leaving through pthread_exit from
   two calls deep: each thread's profile state (its table of nodes and
   counts, its arrays, its stack of activations) goes on to the next thread
   when it ends, so that memory does not grow with the threads that ran
   (a thread's counts stay the profile's); the paths under way where
   pthread_exit leaves end at its call, as where a process exits.  Every
   count must be the edge-counts build's.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>

static unsigned long
leaf (unsigned long x, int quit)
{
  if (quit && x % 5 == 4)
    pthread_exit ((void *) x);	/* two calls deep, inside mid's loop */
  return x & 1 ? 3 * x + 1 : x / 2;
}

static unsigned long
mid (unsigned long x, int quit)
{
  unsigned long s = 0;
  for (unsigned long i = 0; i < x % 9 + 3; i++)
    s += leaf (x + i, quit && i == 2);
  return s;
}

static void *
work (void *p)
{
  unsigned long n = (unsigned long) p, s = 0;
  for (unsigned long j = 0; j < 6; j++)
    s += mid (n + j, n % 7 == 3 && j == 4);
  return (void *) s;
}

static long
max_rss_kb (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int
main (void)
{
  unsigned long sum = 0;
  long before = 0;
  for (unsigned long i = 0; i < 600; i++)
    {
      pthread_t t;
      void *r;
      if (pthread_create (&t, NULL, work, (void *) i) || pthread_join (t, &r))
	return 2;
      sum += (unsigned long) r;
      if (i == 99)
	before = max_rss_kb ();
    }
  /* 500 threads more: about 60 MB where each thread's state stayed.  */
  long grown = max_rss_kb () - before;
  if (grown > 16 * 1024)
    {
      printf ("memory grew by %ld kB over 500 threads\n", grown);
      return 1;
    }
  printf ("%lu\n", sum);
  return 0;
}
