/* across.c's code not instrumented (pathprof-plain-sources), which
   segments.exp also builds as an instrumented unit.  */
int
leaf (int x)
{
  return x % 3 == 0 ? x + 1 : x - 1;
}
