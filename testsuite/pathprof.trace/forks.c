/* Threads and a fork: each thread is regenerated from its own records, and the
   child's trace starts with the records the forking thread wrote before it.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int
work (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += (i & 1) ? i : -i;
  return s;
}

static void *
thread (void *arg)
{
  return (void *) (long) work ((int) (long) arg);
}

int
main (void)
{
  pthread_t t[3];
  long sum = 0;
  for (long i = 0; i < 3; i++)
    pthread_create (&t[i], NULL, thread, (void *) (i * 100 + 1));
  for (int i = 0; i < 3; i++)
    {
      void *r;
      pthread_join (t[i], &r);
      sum += (long) r;
    }
  fflush (stdout);
  pid_t p = fork ();
  if (p == 0)
    {
      printf ("child %d\n", work (7));
      exit (3);
    }
  int status;
  waitpid (p, &status, 0);
  printf ("parent %ld %d\n", sum + work (5), WEXITSTATUS (status));
  return 0;
}
