/* A root (main) that calls a function of another instrumented unit:
   compiled alone, the plugin takes the call for code not instrumented (a
   leaf edge), but the program's supergraph inlines the callee, so libprof
   must run the root as its clone (main's byte of the unit's ip_ok stays
   0); its segments must be those of -fplugin-arg-pathprof-roots=runtime.
   A root of the same unit whose only such call is the library's (tally,
   called through a pointer, calls getenv) runs compiled: its byte is 1,
   the unit's other call notwithstanding.  */
/* pathprof-sources: units-part.c */
#include <stdio.h>
#include <stdlib.h>

int step (int x);

static int __attribute__ ((noinline))
walk (int x)
{
  int s = 0;
  for (int i = 0; i < (x & 3) + 1; i++)
    s += x & 1 ? step (x + i) : step (x - i) + 1;
  return s;
}

static long __attribute__ ((noinline))
tally (long t, int i)
{
  if (i % 50 == 0 && getenv ("PATHPROF_UNITS_NEVER"))
    t++;
  return t + (i % 7 == 0 ? 3 : 1);
}

static long (*volatile tally_p) (long, int) = tally;

int
main (void)
{
  long t = 0;
  for (int i = 0; i < 200; i++)
    {
      t += i & 1 ? walk (i) : step (i);
      t = tally_p (t, i);
    }
  printf ("%ld\n", t);
  return 0;
}
