/* Four threads hammer the same loop: with -pthread the counters are updated
   atomically and no increment is lost.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

static volatile long sink;

static void *
work (void *arg)		/* count(4) */
{
  long n = (long) arg;		/* count(4) */
  for (long i = 0; i < n; i++)	/* count(400004) */
    if (i % 3 == 0)		/* count(400000) */
      sink++;			/* count(133336) */
  return NULL;			/* count(4) */
}

int
main (void)
{
  pthread_t t[4];
  for (int i = 0; i < 4; i++)	/* count(5) */
    pthread_create (&t[i], NULL, work, (void *) 100000L);	/* count(4) */
  for (int i = 0; i < 4; i++)	/* count(5) */
    pthread_join (t[i], NULL);	/* count(4) */
  printf ("done\n");		/* count(1) */
  return 0;			/* count(1) */
}
