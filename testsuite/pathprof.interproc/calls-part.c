/* The other unit of calls.c.  */
static int twice (int x) { return x + x + 1; }

int
fib (int n)
{
  if (n < 2)
    return n;
  return fib (n - 1) + fib (n - 2);
}

int odd (unsigned n);

int
even (unsigned n)
{
  return n == 0 ? 1 : odd (n - 1);
}

int
odd (unsigned n)
{
  return n == 0 ? 0 : even (n - 1);
}

int
apply (int (*f) (int), int x)
{
  int r = 0;
  while (x-- > 0)
    r += f (twice (x));
  return r;
}
