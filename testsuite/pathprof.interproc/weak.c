/* Compiled roots keep a call where it goes: hook has a weak definition
   here, which weak-part.c replaces, and a root whose supergraph holds only
   this unit's functions (count calls rank and hook, which make no call)
   must still call the replacement, as the plain build does (ranks' calls
   go to clones of rank).  The output says which hook ran.  */
/* pathprof-sources: weak-part.c */
#include <stdio.h>

__attribute__ ((weak, noinline)) int
hook (int x)
{
  return x > 3 ? 1000 : 2000;	/* the weak one: never runs */
}

static __attribute__ ((noinline)) int
rank (int x)
{
  int r = 0;
  for (int i = 0; i < x % 5; i++)
    r += i & 1 ? i : 2;
  return r;
}

static __attribute__ ((noinline)) int
count (int x)
{
  return rank (x) + hook (x) + (x & 1 ? rank (x + 1) : 0);
}

static __attribute__ ((noinline)) int
ranks (int x)
{
  return rank (x) + rank (x * 3);
}

/* count and ranks run as roots where drive calls them (depth 1: main's
   segments end there) and through the pointer.  */
static __attribute__ ((noinline)) long
drive (int i)
{
  return count (i) + ranks (i);
}

int (*volatile through) (int) = count;

int
main (void)
{
  long t = 0;
  for (int i = 0; i < 40; i++)
    t += drive (i) + through (i + 1);
  printf ("%ld\n", t);
  return 0;
}
