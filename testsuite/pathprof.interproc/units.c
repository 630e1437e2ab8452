/* A root (main) that calls a function of another instrumented unit:
   compiled alone, the plugin takes the call for code not instrumented (a
   leaf edge), but the program's supergraph inlines the callee, so libprof
   must run the root as its clone (the unit's ip_alone is 0); its segments
   must be those of -fplugin-arg-pathprof-roots=runtime.  */
/* pathprof-sources: units-part.c */
#include <stdio.h>

int step (int x);

static int __attribute__ ((noinline))
walk (int x)
{
  int s = 0;
  for (int i = 0; i < (x & 3) + 1; i++)
    s += x & 1 ? step (x + i) : step (x - i) + 1;
  return s;
}

int
main (void)
{
  long t = 0;
  for (int i = 0; i < 200; i++)
    t += i & 1 ? walk (i) : step (i);
  printf ("%ld\n", t);
  return 0;
}
