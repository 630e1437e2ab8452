/* Four threads count the paths of the same functions at once: exact counts in the
   arrays (atomic updates under -pthread) and in libprof's hash table.
   pathprof-options: -pthread */
#include <pthread.h>
#include <stdio.h>

#define BIT(k) if (x & (1u << (k))) n++;
#define BITS4(k) BIT (k) BIT (k + 1) BIT (k + 2) BIT (k + 3)

static int __attribute__ ((noinline))
bits16 (unsigned x)		/* paths(bits16, total=65536, executed=2000) hottest(bits16, 5) */
{
  int n = 0;			/* count(8001) hottest(bits16, 5) */
  BITS4 (0) BITS4 (4) BITS4 (8) BITS4 (12)	/* hottest(bits16, 5) */
  return n;			/* count(8001) hottest(bits16, 5) */
}

static int __attribute__ ((noinline))
odd (unsigned x)		/* paths(odd, total=2, executed=2) hottest(odd, 5332) */
{
  if (x % 3)			/* count(8000) hottest(odd, 5332) */
    return 1;			/* count(5332) hottest(odd, 5332) */
  return 0;			/* count(2668) */
}

static long sums[4];

static void *
work (void *arg)
{
  long t = (long) arg;
  for (unsigned i = 0; i < 2000; i++)	/* count(8004) */
    sums[t] += bits16 (i * 33) + odd (i);	/* count(8000) */
  return NULL;
}

int
main (void)
{
  pthread_t t[4];
  for (long i = 0; i < 4; i++)	/* count(5) */
    pthread_create (&t[i], NULL, work, (void *) i);
  for (int i = 0; i < 4; i++)	/* count(5) */
    pthread_join (t[i], NULL);
  printf ("%ld %d\n", sums[0] + sums[1] + sums[2] + sums[3], bits16 (7 * 33));
  return 0;
}
