/* The other unit of sites.c.  */
int part_add (int x);
int part_leaf (int x);
int part_wide (int x);
int part_apply (int (*f) (int), int n);

int
part_add (int x)
{
  return x & 1 ? x + 3 : x - 1;
}

/* No record at all: straight-line code.  */
int
part_leaf (int x)
{
  return x * 5 + 1;
}

int
part_wide (int x)
{
  int s = 0;
  for (int i = 0; i < (x & 15); i++)
    {
      if (i % 2) s += 3; else s -= 1;
      if (i % 3 == 1) s ^= 5;
      if (i % 5 == 2) s += i;
      if (i % 7 == 3) s *= 2;
      if (i % 11 == 4) s -= 9;
      if (i % 13 == 5) s |= 8;
      if (i % 17 == 6) s += 100;
      if (i % 19 == 7) s -= 100;
      if (i % 23 == 8) s = -s;
    }
  return s;
}

int
part_apply (int (*f) (int), int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += f (i);
  return s;
}
