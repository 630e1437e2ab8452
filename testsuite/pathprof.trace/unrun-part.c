/* Second unit of unrun.c: never called.  */
int
never (int x)
{
  int s = 0;
  for (int i = 0; i < x; i++)
    s += i % 3 ? i : -i;
  return s;
}
