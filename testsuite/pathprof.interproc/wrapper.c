/* A small function (step) that calls a large one (run, an interpreter's
   loop over 72 small callees), as SQLite's sqlite3Step calls
   sqlite3VdbeExec: at depth 2 step's supergraph holds 73 copies with
   about a hundred times step's own edges but each function once, so the
   plugin compiles it (plugin/compiled.cc, COMPILED_COPIES_GROWTH against
   the distinct functions' edges): interproc.exp finds run's clone for
   step's root in the object, and its counts must be edge-counts' and
   those of -fplugin-arg-pathprof-roots=runtime like every program here.  */
#include <stdio.h>

#define OP(n)								\
  static unsigned __attribute__ ((noinline))				\
  op##n (unsigned x)							\
  {									\
    return x % 7 == n % 7 ? x / 2 + n : x * 3 + 1;			\
  }
#define OPS8(n) OP (n##0) OP (n##1) OP (n##2) OP (n##3) \
  OP (n##4) OP (n##5) OP (n##6) OP (n##7)
OPS8 (1) OPS8 (2) OPS8 (3) OPS8 (4) OPS8 (5) OPS8 (6) OPS8 (7) OPS8 (8) OPS8 (9)

#define CASE(n) case n: x = op##n (x); break;
#define CASES8(n) CASE (n##0) CASE (n##1) CASE (n##2) CASE (n##3) \
  CASE (n##4) CASE (n##5) CASE (n##6) CASE (n##7)

static unsigned __attribute__ ((noinline))
run (unsigned x, int steps)
{
  for (int i = 0; i < steps; i++)
    switch ((x + i) % 100)
      {
	CASES8 (1) CASES8 (2) CASES8 (3) CASES8 (4) CASES8 (5)
	CASES8 (6) CASES8 (7) CASES8 (8) CASES8 (9)
      }
  return x;
}

static unsigned __attribute__ ((noinline))
step (unsigned x)
{
  return run (x, x & 15);
}

int
main (void)
{
  unsigned t = 0;
  for (int i = 0; i < 300; i++)
    t = t * 31 + step (i);
  printf ("%u\n", t);
  return 0;
}
