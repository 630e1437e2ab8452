/* Threads count paths while the main thread writes the profile again and
   again: each dump takes off what it wrote, slot by slot, so that a path
   counted meanwhile goes into the next dump and none twice (the file merges
   them).  The threads' paths are loop iterations counted in their own tables
   and paths through a call counted by their numbers.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

extern int pathprof_dump (void) __attribute__ ((weak));

static long result[3];

static int __attribute__ ((noinline))
step (long i)
{
  if (i % 5 == 0)
    return 2;
  return i % 3 ? 1 : 0;
}

static void *
work (void *arg)
{
  long *out = arg, s = 0;
  for (long i = 0; i < 200000; i++)
    {
      if (i % 7 == 0)
	s += step (i);
      else if (i & 1)
	s++;
    }
  *out = s;
  return NULL;
}

int
main (void)
{
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create (&t[i], NULL, work, &result[i]);
  volatile long spin = 0;
  for (int k = 0; k < 30; k++)
    {
      if (pathprof_dump)
	pathprof_dump ();
      for (int j = 0; j < 20000; j++)
	spin++;
    }
  for (int i = 0; i < 3; i++)
    pthread_join (t[i], NULL);
  printf ("%ld %ld %ld\n", result[0], result[1], result[2]);
  return 0;
}
