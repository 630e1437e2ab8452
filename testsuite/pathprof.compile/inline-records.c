/* pathprof.compile/inline.exp: a function whose body calls out of its
   supergraph (ext, in another unit) keeps a record in the segments modes
   (compiled.cc expand_record_pushes: a claim, a compiler barrier, stores
   through the record's pointer) in each copy that makes such a call.  The
   plain compiler inlines rooty into both of mid's calls, with slowpart
   inlined in it; so must every mode, where mid runs as top's copy too
   (depth 1: mid's copy calls rooty itself, a root of its own).  Before
   the inliner's view took the records' stores and barrier out, rooty
   stayed a call there: "max-inline-insns-auto limit reached"; slowpart's
   copy, which pushes a record before each call, must be summarised at
   the plain slowpart's size (the barrier alone left it 2 units over).  */

int ext (const int *p, int n);

static int
slowpart (const int *p, int n)
{
  return ext (p, n) + ext (p + 2, n) * 3;
}

int
rooty (const int *p, int n)
{
  int s = n;
  if (p[0] > n)
    s += p[0] * 3;
  else
    s += slowpart (p, n);
  return s;
}

int
mid (const int *p, int n)
{
  return rooty (p, n) * 7 + rooty (p + 1, n);
}

int
top (const int *p, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += mid (p + i, n);
  return s;
}
