/* Call sites (corelib/trace.h "Announced calls"): calls through pointers
   whose callees change (functions of this unit, of another, a wide one, one
   without records, libc's), calls of another unit's functions, a callback
   from that unit through a pointer, recursion through a pointer, and a call
   site followed in its block by a call that writes its own ENTER: the
   regenerated sequence must give every edge count of the edge-counts build.
   pathprof-sources: sites-part.c */
#include <stdio.h>
#include <stdlib.h>

int part_add (int x);
int part_leaf (int x);
int part_wide (int x);
int part_apply (int (*f) (int), int n);

static int
twice (int x)
{
  return x > 100 ? x : 2 * x;
}

static int
down (int x)
{
  int (*self) (int) = down;
  return x <= 0 ? 0 : 1 + self (x - 1);
}

/* Wide: more witnesses than a call site may announce (a case each).  */
#define C(n) case n: s += x * n + (i ^ n); break;
#define C10(n) C (n##0) C (n##1) C (n##2) C (n##3) C (n##4) \
  C (n##5) C (n##6) C (n##7) C (n##8) C (n##9)
static int __attribute__ ((noinline))
wide (int x)
{
  int s = 0;
  for (int i = 0; i < (x & 7); i++)
    switch ((i * 37 + x) % 300)
      {
	C10 (1) C10 (2) C10 (3) C10 (4) C10 (5) C10 (6) C10 (7) C10 (8)
	C10 (9) C10 (10) C10 (11) C10 (12) C10 (13) C10 (14) C10 (15)
	C10 (16) C10 (17) C10 (18) C10 (19) C10 (20) C10 (21) C10 (22)
	C10 (23) C10 (24) C10 (25) C10 (26) C10 (27) C10 (28) C10 (29)
      default: s--; break;
      }
  return s;
}

int
main (int argc, char **argv)
{
  int (*fns[]) (int) = { twice, part_add, down, part_leaf, wide, abs, part_wide };
  unsigned n = sizeof fns / sizeof *fns;
  long s = 0;
  for (int i = 0; i < 400; i++)
    {
      /* Mostly the same callee for a while, then others.  */
      int (*f) (int) = fns[(i / 37 + (i % 5 == 0)) % n];
      s += f (i % 23 - 4);
      /* A call site, then a call with its own ENTER in the same block.  */
      int (*g) (int) = i % 3 ? part_leaf : twice;
      int a = g (i);
      s += wide (i % 4) + a;
      s += part_add (i);
    }
  s += part_apply (twice, 9) + part_apply (down, 5) + part_apply (part_leaf, 3);
  printf ("%ld %d\n", s, argc > 7 ? atoi (argv[1]) : 0);
  return 0;
}
