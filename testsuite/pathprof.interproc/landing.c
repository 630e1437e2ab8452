/* A longjmp that passes compiled roots with records and lands in code
   that is not instrumented (landing-part.c), which returns to a compiled
   root whose record is below theirs: it ends them as it returns
   (pathprof-abi.h __pathprof_seg_unwind).  */
/* pathprof-plain-sources: landing-part.c */
#include <stdio.h>

extern int guard (int (*f) (int), int x);
extern void jump_out (void);

static int (*step) (int);
/* Through a pointer, so that around's supergraph is the same in every
   program (a direct call of another unit's function may be inlined).  */
static int (*guarded) (int (*) (int), int) = guard;

static int __attribute__ ((noinline))
leaf (int x)
{
  if (x % 37 == 5)
    jump_out ();
  return x & 1 ? x * 3 + 1 : x / 2;
}

static int __attribute__ ((noinline))
spin (int x)
{
  int s = 0;
  for (int i = 0; i < (x & 3); i++)
    s += step (x + i);
  return s;
}

static int __attribute__ ((noinline))
callback (int x)
{
  return spin (x) + spin (x + 1);
}

/* A compiled root with a record whose callback chain longjmps back into
   guard, which returns here.  */
static int __attribute__ ((noinline))
around (int x)
{
  int s = guarded (callback, x);
  s += x & 1 ? spin (x) : guarded (callback, x + 2);
  return s;
}

int
main (void)
{
  long t = 0;
  step = leaf;
  for (int i = 0; i < 3000; i++)
    t += around (i);
  printf ("%ld\n", t);
  return 0;
}
