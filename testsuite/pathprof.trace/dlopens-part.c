/* The shared object dlopens.c opens (trace.exp builds it with -shared).  */
int
lib_fn (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i % 3 ? i : 2 * i;
  return s;
}
