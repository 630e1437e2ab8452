/* A root whose supergraph holds another unit's function (compiled roots
   across units): main's S at depth 2 inlines step, and step's call of
   across-part.c's pick, whose own calls are summary edges.  Built in
   interproc-ppp from its interproc-segments profile, main is numbered by
   the plugin over the training program and calls the clones of pick,
   width and digits that across-part.c makes for it (pick's pushes main's
   record before its call of scale, digits' counts the segments its loop
   ends in main's counts), and of twice, a copy with copies below it (of
   its unit's digits and of this unit's half, which this unit makes
   public for twice's clone); every segment must count as in
   interproc-segments, also main's last, under way when the process
   exits in scale (called from pick's clone: main's record counts it).  leaf is code not instrumented (a leaf edge of
   main's S), but segments.exp also builds it instrumented, a unit the
   training program did not have: main must then run as libprof's.  */
/* pathprof-sources: across-part.c */
/* pathprof-plain-sources: across-leaf-part.c */
#include <stdio.h>

int pick (int x);
int leaf (int x);
int digits (int x);
int twice (int x);
/* Declared const, as xz's lzma_check_size is: its clone writes the pass
   word all the same, which main must read back after the call.  */
int width (int t) __attribute__ ((const));

static int __attribute__ ((noinline))
step (int x)
{
  int r = x & 1 ? pick (x) : pick (x / 2) + 1;
  r += width (x & 15);
  r += digits (x);
  return x % 5 == 0 ? r * 2 : leaf (r);
}

int __attribute__ ((noinline))
half (int x)
{
  return x > 100 ? x / 2 : x;
}

int
main (void)
{
  long t = 0;
  for (int i = 0; i < 300; i++)
    t += i % 3 == 0 ? step (i) : i % 3 == 1 ? twice (i) : i;
  printf ("%ld\n", t);
  return 0;
}
