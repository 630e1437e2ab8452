/* Two registers, not a vector: in interproc-ppp a function keeps its root's
   number r and preferential weight q in locals and adds to both on the same
   chords; GCC 12's -O2 would pair those adds into one vector add (its
   basic-block vectorizer) and shuffle r and q between vector and general
   registers at each.  The plain build vectorizes no basic block here, so
   segments.exp requires the interproc-ppp build not to either (leaf's loop,
   a copy in mid's supergraph, paired them before).  */
static int __attribute__ ((noinline))
leaf (const unsigned char *p, int n, int lim)
{
  int c = 0;
  while (n-- > 0)
    {
      if (p[n] > lim)
	c += 2;
      else if (p[n] == 7)
	c--;
      else
	c++;
    }
  return c;
}

int __attribute__ ((noinline))
mid (const unsigned char *p, int n)
{
  int s = 0;
  for (int k = 0; k < 4; k++)
    s += leaf (p, n, k * 40);
  return s;
}

int
main (int argc, char **argv)
{
  unsigned char b[256];
  (void) argv;
  for (int i = 0; i < 256; i++)
    b[i] = (unsigned char) (i * 37 + argc);
  return mid (b, 256) & 1;
}
