/* Threads whose loop has too many segments from its head for an array
   (2^14 paths through its body): in the segments modes they count in their
   root's hashed places, which the threads take and fill at once and
   which grow while they count; every count must still be the edge-counts
   build's.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

static unsigned
rnd (unsigned *s)
{
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

static unsigned
body (unsigned *s, unsigned n)
{
  unsigned acc = 0;
  for (unsigned i = 0; i < n; i++)
    {
      unsigned r = rnd (s);
#define B(k) if (r & (1u << k)) acc += k; else acc ^= k;
      B (0) B (1) B (2) B (3) B (4) B (5) B (6) B (7) B (8) B (9) B (10)
      B (11) B (12) B (13)
    }
  return acc;
}

static void *
work (void *p)
{
  unsigned s = (unsigned) (unsigned long) p, acc = 0;
  for (int j = 0; j < 40; j++)
    acc += body (&s, 200 + j);
  return (void *) (unsigned long) acc;
}

int
main (void)
{
  pthread_t t[4];
  unsigned long sum = 0;
  for (unsigned long i = 0; i < 4; i++)
    pthread_create (&t[i], NULL, work, (void *) (i + 1));
  for (int i = 0; i < 4; i++)
    {
      void *r;
      pthread_join (t[i], &r);
      sum += (unsigned long) r;
    }
  printf ("%lu\n", sum);
  return 0;
}
