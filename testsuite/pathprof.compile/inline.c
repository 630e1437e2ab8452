/* pathprof.compile/inline.exp: functions of growing size around GCC's -O2
   limit for inlining a function not declared inline (--param
   max-inline-insns-auto).  The plain compiler inlines ladder3 and ladder4
   into every caller at IPA time and no larger rung; each rung's probes
   (one to four statements a branch, by mode) would push those two over
   the limit if the inliner counted them.  */

int
ladder1 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  return s;
}

int
ladder2 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  return s;
}

int
ladder3 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  return s;
}

int
ladder4 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  if (p[3] > n)
    s += p[3] * 6;
  return s;
}

int
ladder5 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  if (p[3] > n)
    s += p[3] * 6;
  if (p[4] > n)
    s += p[4] * 7;
  return s;
}

int
ladder6 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  if (p[3] > n)
    s += p[3] * 6;
  if (p[4] > n)
    s += p[4] * 7;
  if (p[5] > n)
    s += p[5] * 8;
  return s;
}

int
ladder7 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  if (p[3] > n)
    s += p[3] * 6;
  if (p[4] > n)
    s += p[4] * 7;
  if (p[5] > n)
    s += p[5] * 8;
  if (p[6] > n)
    s += p[6] * 9;
  return s;
}

int
ladder8 (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  if (p[1] > n)
    s += p[1] * 4;
  if (p[2] > n)
    s += p[2] * 5;
  if (p[3] > n)
    s += p[3] * 6;
  if (p[4] > n)
    s += p[4] * 7;
  if (p[5] > n)
    s += p[5] * 8;
  if (p[6] > n)
    s += p[6] * 9;
  if (p[7] > n)
    s += p[7] * 10;
  return s;
}

int
caller0 (const int *p)
{
  int s = 0;
  s += ladder1 (p + 0, s);
  s += ladder2 (p + 0, s);
  s += ladder3 (p + 0, s);
  s += ladder4 (p + 0, s);
  s += ladder5 (p + 0, s);
  s += ladder6 (p + 0, s);
  s += ladder7 (p + 0, s);
  s += ladder8 (p + 0, s);
  return s;
}

int
caller1 (const int *p)
{
  int s = 1;
  s += ladder1 (p + 1, s);
  s += ladder2 (p + 1, s);
  s += ladder3 (p + 1, s);
  s += ladder4 (p + 1, s);
  s += ladder5 (p + 1, s);
  s += ladder6 (p + 1, s);
  s += ladder7 (p + 1, s);
  s += ladder8 (p + 1, s);
  return s;
}

int
caller2 (const int *p)
{
  int s = 2;
  s += ladder1 (p + 2, s);
  s += ladder2 (p + 2, s);
  s += ladder3 (p + 2, s);
  s += ladder4 (p + 2, s);
  s += ladder5 (p + 2, s);
  s += ladder6 (p + 2, s);
  s += ladder7 (p + 2, s);
  s += ladder8 (p + 2, s);
  return s;
}
