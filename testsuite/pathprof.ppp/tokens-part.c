/* The other unit of tokens.c.  */
int
classify (int c)
{
  if (c >= 'a' && c <= 'z')
    return 1;
  if (c >= 'A' && c <= 'Z')
    return 1;
  if (c >= '0' && c <= '9')
    return 2;
  if (c == '#')
    return 3;
  return 0;
}

int
digits (const char *s, int *value)
{
  int n = 0, v = 0;
  while (s[n] >= '0' && s[n] <= '9')
    {
      if (v > 100000)
	v = 0;
      v = v * 10 + (s[n] - '0');
      n++;
    }
  *value = v;
  return n;
}
