/* zbench: the zlib workload of contrib/bench.
   Builds a deterministic buffer (MB megabytes, default 16) of text-like data
   with some incompressible stretches, compresses it with deflate at levels 1
   and 6, inflates it back, checks the round trip and prints sizes and
   checksums.  The output depends only on MB and on zlib, so every
   instrumented build must print exactly what the plain build prints.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zlib.h"

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

/* Text from a 2000-word vocabulary with a skewed choice of words, numbers
   now and then and short random stretches: deflate makes it about 2.5 times
   smaller, so both its matcher and its literal coding get work.  */
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

int
main (int argc, char **argv)
{
  size_t mb = argc > 1 ? strtoul (argv[1], NULL, 10) : 16;
  size_t len = mb << 20;
  unsigned char *in = malloc (len), *back = malloc (len);
  uLong bound = compressBound (len);
  unsigned char *out = malloc (bound);
  if (!in || !back || !out)
    {
      fprintf (stderr, "zbench: out of memory\n");
      return 1;
    }
  fill (in, len);
  printf ("input %zu bytes, adler32 %08lx, crc32 %08lx\n", len,
          adler32 (adler32 (0, NULL, 0), in, len),
          crc32 (crc32 (0, NULL, 0), in, len));

  static const int levels[] = { 1, 6 };
  for (int l = 0; l < 2; l++)
    {
      uLongf outlen = bound, backlen = len;
      if (compress2 (out, &outlen, in, len, levels[l]) != Z_OK
          || uncompress (back, &backlen, out, outlen) != Z_OK
          || backlen != len || memcmp (in, back, len) != 0)
        {
          printf ("level %d: round trip FAILED\n", levels[l]);
          return 1;
        }
      printf ("level %d: %lu bytes, crc32 %08lx, round trip ok\n", levels[l],
              (unsigned long) outlen, crc32 (crc32 (0, NULL, 0), out, outlen));
    }
  free (in);
  free (back);
  free (out);
  return 0;
}
