/* A program for the use build: its branches go one way for most inputs, so
   the counts of a training run tell GCC's optimiser something its static
   estimates do not.  Built with -DCHANGED, checksum's control flow differs
   from the training build's and rare_path, which it calls, is new: use.exp
   expects one warning for each.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CHANGED
static int __attribute__ ((noinline))
rare_path (int x)
{
  return x * 3;
}
#endif

static unsigned __attribute__ ((noinline))
checksum (const unsigned char *p, size_t n)
{
  unsigned h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    {
      h ^= p[i];
      h *= 16777619u;
#ifdef CHANGED
      if (h == 0)
	h = rare_path (1);
#endif
    }
  return h;
}

static int __attribute__ ((noinline))
classify (int c)
{
  if (c >= '0' && c <= '9')
    return 1;
  if (c == ' ')
    return 2;
  if (c < 0)			/* never in training */
    return 3;
  return 0;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 200;
  char buf[64];
  unsigned sum = 0;
  int kinds[4] = { 0 };
  for (int r = 0; r < rounds; r++)
    {
      snprintf (buf, sizeof buf, "round %d of %d", r, rounds);
      for (const char *s = buf; *s; s++)
	kinds[classify (*s)]++;
      sum += checksum ((const unsigned char *) buf, strlen (buf));
    }
  printf ("%u %d %d %d %d\n", sum, kinds[0], kinds[1], kinds[2], kinds[3]);
  return 0;
}
