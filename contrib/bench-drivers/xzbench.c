/* xzbench: the xz (liblzma) workload of contrib/bench.
   Builds the deterministic text of text.h (MB megabytes, default 4),
   compresses all of it with the .xz preset 1 and a quarter of it with
   preset 6 (the xz tool's default: the optimal parser, slower), each with a
   CRC64 check, decodes both back, checks the round trips and prints sizes
   and checksums.  The output depends only on MB and on liblzma, so every
   instrumented build must print exactly what the plain build prints.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lzma.h"
#include "text.h"

/* Compresses LEN bytes of IN at PRESET and decodes them back into BACK;
   prints the compressed size and the CRC32 of the compressed stream.  */
static int
round_trip (const uint8_t *in, size_t len, uint32_t preset, uint8_t *out,
            size_t bound, uint8_t *back)
{
  size_t outlen = 0, inpos = 0, backlen = 0;
  uint64_t memlimit = UINT64_MAX;
  if (lzma_easy_buffer_encode (preset, LZMA_CHECK_CRC64, NULL, in, len, out,
                               &outlen, bound) != LZMA_OK
      || lzma_stream_buffer_decode (&memlimit, 0, NULL, out, &inpos, outlen,
                                    back, &backlen, len) != LZMA_OK
      || inpos != outlen || backlen != len || memcmp (in, back, len) != 0)
    {
      printf ("preset %u: round trip FAILED\n", (unsigned) preset);
      return 1;
    }
  printf ("preset %u: %zu bytes -> %zu bytes, crc32 %08x, round trip ok\n",
          (unsigned) preset, len, outlen,
          (unsigned) lzma_crc32 (out, outlen, 0));
  return 0;
}

int
main (int argc, char **argv)
{
  size_t mb = argc > 1 ? strtoul (argv[1], NULL, 10) : 4;
  size_t len = mb << 20;
  size_t bound = lzma_stream_buffer_bound (len);
  uint8_t *in = malloc (len), *back = malloc (len), *out = malloc (bound);
  if (!in || !back || !out)
    {
      fprintf (stderr, "xzbench: out of memory\n");
      return 1;
    }
  fill (in, len);
  printf ("input %zu bytes, crc64 %016llx\n", len,
          (unsigned long long) lzma_crc64 (in, len, 0));
  int status = round_trip (in, len, 1, out, bound, back)
               || round_trip (in, len / 4, 6, out, bound, back);
  free (in);
  free (back);
  free (out);
  return status;
}
