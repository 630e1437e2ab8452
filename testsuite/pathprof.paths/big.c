/* Functions with more paths than the default array of 4096 counters: bits20
   counts its 2^20 paths in a libprof hash table, bits70 has 2^70 paths, which the
   plugin cuts into regions of at most 2^63 paths.  */
#include <stdio.h>

#define BIT(v, k) if ((v) & (1ul << (k))) n++;
#define BITS5(v, k) BIT (v, k) BIT (v, k + 1) BIT (v, k + 2) BIT (v, k + 3) BIT (v, k + 4)
#define BITS35(v) BITS5 (v, 0) BITS5 (v, 5) BITS5 (v, 10) BITS5 (v, 15) \
  BITS5 (v, 20) BITS5 (v, 25) BITS5 (v, 30)

static int __attribute__ ((noinline))
bits20 (unsigned long x)	/* paths(bits20, total=1048576, executed=3000) hottest(bits20, 11) */
{
  int n = 0;			/* count(3010) hottest(bits20, 11) */
  BITS5 (x, 0) BITS5 (x, 5) BITS5 (x, 10) BITS5 (x, 15)	/* hottest(bits20, 11) */
  return n;			/* count(3010) hottest(bits20, 11) */
}

static int __attribute__ ((noinline))
bits70 (unsigned long x, unsigned long y)	/* paths(bits70, total=4611686018427388160, executed=101) */
{
  int n = 0;			/* count(100) */
  BITS35 (x)
  BITS35 (y)			/* hottest(bits70, 100) */
  return n;			/* count(100) hottest(bits70, 100) */
}

int
main (void)
{
  long total = 0;
  for (unsigned long i = 0; i < 3000; i++)	/* count(3001) hottest(main, 2999) */
    total += bits20 (i);	/* count(3000) hottest(main, 2999) */
  for (int k = 0; k < 10; k++)	/* count(11) */
    total += bits20 (5);	/* count(10) */
  for (unsigned long i = 0; i < 100; i++)	/* count(101) */
    total += bits70 (i, i * 7);	/* count(100) */
  printf ("%ld\n", total);
  return 0;
}
