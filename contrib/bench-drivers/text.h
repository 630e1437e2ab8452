/* text.h: the deterministic input of contrib/bench's compression workloads
   (zbench, xzbench): text from a 2000-word vocabulary with a skewed choice of
   words, numbers now and then and short random stretches.  Deflate and LZMA
   make it 2.5 to 3 times smaller, so both their matchers and their literal
   coding get work.  The same on every platform:
   xorshift64*, not rand().  */

#ifndef BENCH_TEXT_H
#define BENCH_TEXT_H

#include <stdio.h>
#include <stddef.h>

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: deterministic on every platform, unlike rand().  */
static unsigned long long
next (void)
{
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ULL;
}

/* Fills BUF with LEN bytes of the text above.  */
static void
fill (unsigned char *buf, size_t len)
{
  enum { NWORDS = 2000 };
  static char words[NWORDS][12];
  for (int w = 0; w < NWORDS; w++)
    {
      int n = 2 + next () % 9;
      for (int i = 0; i < n; i++)
        words[w][i] = "etaoinshrdlucmfwypvbgkjqxz"[next () % 26 % (4 + i * 3)];
      words[w][n] = 0;
    }
  size_t pos = 0;
  while (pos < len)
    {
      unsigned long long r = next ();
      char tmp[64];
      int n;
      if (r % 200 == 0)
        {
          n = 16 + r % 40;                      /* incompressible stretch */
          for (int i = 0; i < n; i++)
            tmp[i] = next () & 0xff;
        }
      else if (r % 13 == 0)
        n = snprintf (tmp, sizeof tmp, "%llu, ", (r >> 8) % 100000);
      else
        {
          /* min of two uniform draws skews towards the frequent words.  */
          unsigned a = (r >> 8) % NWORDS, b = (r >> 32) % NWORDS;
          const char *w = words[a < b ? a : b];
          n = snprintf (tmp, sizeof tmp, "%s%s", w, r % 11 == 0 ? ".\n" : " ");
        }
      for (int i = 0; i < n && pos < len; i++)
        buf[pos++] = tmp[i];
    }
}

#endif
