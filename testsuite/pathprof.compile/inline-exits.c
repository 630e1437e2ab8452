/* pathprof.compile/inline.exp: the early-return ladder.  Each rung returns
   at its first element above N, so in the paths modes every return counts a
   path whose number is known where it ends: constant operands, which GCC's
   function summaries do not count and the plugin must not emit (before
   probes.cc folded them, the paths build inlined rungs the plain one does
   not).  */

int
exits1 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  return n;
}

int
exits2 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  return n;
}

int
exits3 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  return n;
}

int
exits4 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  if (p[3] > n)
    return p[3] * 6 + n;
  return n;
}

int
exits5 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  if (p[3] > n)
    return p[3] * 6 + n;
  if (p[4] > n)
    return p[4] * 7 + n;
  return n;
}

int
exits6 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  if (p[3] > n)
    return p[3] * 6 + n;
  if (p[4] > n)
    return p[4] * 7 + n;
  if (p[5] > n)
    return p[5] * 8 + n;
  return n;
}

int
exits7 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  if (p[3] > n)
    return p[3] * 6 + n;
  if (p[4] > n)
    return p[4] * 7 + n;
  if (p[5] > n)
    return p[5] * 8 + n;
  if (p[6] > n)
    return p[6] * 9 + n;
  return n;
}

int
exits8 (const int *p, int n)
{
  if (p[0] > n)
    return p[0] * 3 + n;
  if (p[1] > n)
    return p[1] * 4 + n;
  if (p[2] > n)
    return p[2] * 5 + n;
  if (p[3] > n)
    return p[3] * 6 + n;
  if (p[4] > n)
    return p[4] * 7 + n;
  if (p[5] > n)
    return p[5] * 8 + n;
  if (p[6] > n)
    return p[6] * 9 + n;
  if (p[7] > n)
    return p[7] * 10 + n;
  return n;
}

int
exits_caller0 (const int *p)
{
  int s = 0;
  s += exits1 (p + 0, s);
  s += exits2 (p + 0, s);
  s += exits3 (p + 0, s);
  s += exits4 (p + 0, s);
  s += exits5 (p + 0, s);
  s += exits6 (p + 0, s);
  s += exits7 (p + 0, s);
  s += exits8 (p + 0, s);
  return s;
}

int
exits_caller1 (const int *p)
{
  int s = 1;
  s += exits1 (p + 1, s);
  s += exits2 (p + 1, s);
  s += exits3 (p + 1, s);
  s += exits4 (p + 1, s);
  s += exits5 (p + 1, s);
  s += exits6 (p + 1, s);
  s += exits7 (p + 1, s);
  s += exits8 (p + 1, s);
  return s;
}

int
exits_caller2 (const int *p)
{
  int s = 2;
  s += exits1 (p + 2, s);
  s += exits2 (p + 2, s);
  s += exits3 (p + 2, s);
  s += exits4 (p + 2, s);
  s += exits5 (p + 2, s);
  s += exits6 (p + 2, s);
  s += exits7 (p + 2, s);
  s += exits8 (p + 2, s);
  return s;
}
