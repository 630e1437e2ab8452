/* units.c's other unit: a callee with branches and a loop, so that a
   supergraph that inlines it numbers other segments.  */
int
step (int x)
{
  int r = 0;
  while (x > 0)
    {
      r += x % 3 == 0 ? 2 : 1;
      x /= 4;
    }
  return r;
}
