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
#include "text.h"

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
