/* The other unit of weak.c: the definition of hook that replaces its weak
   one.  */
int
hook (int x)
{
  return x & 2 ? 3 : 4;
}
