/* Threads whose every activation is a compiled root's: work, started by
   pthread_create, calls no function of the program, so the plugin numbers
   it and its segments count without libprof; some threads leave through
   pthread_exit inside its loop.  The segment under way there ends at that
   call, as where a process exits, so every count must be the edge-counts
   build's.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

/* Through a pointer: a call the root may not return from, to the compiler
   one like any other (pthread_exit is noreturn, so a direct call of it
   ends the segment before it is made).  */
static void (*volatile quit) (void *) = pthread_exit;

static void *
work (void *p)
{
  unsigned long n = (unsigned long) p, s = 0;
  for (unsigned long i = 0; i < n % 11 + 3; i++)
    {
      if (n % 3 == 1 && i == 2)
	quit ((void *) s);	/* a call the root's S does not inline */
      s += i & 1 ? 3 * i + n : i / 2;
    }
  return (void *) s;
}

int
main (void)
{
  unsigned long sum = 0;
  for (unsigned long i = 0; i < 40; i++)
    {
      pthread_t t;
      void *r;
      if (pthread_create (&t, NULL, work, (void *) i) || pthread_join (t, &r))
	return 2;
      sum += (unsigned long) r;
    }
  printf ("%lu\n", sum);
  return 0;
}
