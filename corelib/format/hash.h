/* The 64-bit checksum of notes, CFGs and whole profile files.  It only has to
   catch corruption and mismatched builds, not resist attacks, so it mixes eight
   bytes per step: a run of an instrumented program hashes all its notes when it
   writes its profile, and byte-at-a-time hashing made that the largest fixed cost
   of a short run.  Header-only so that libprof needs nothing else of corelib/.  */

#ifndef PATHPROF_CORE_HASH_H
#define PATHPROF_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PP_HASH_SEED 0xcbf29ce484222325ull

static inline uint64_t
pp_hash_mix (uint64_t h, uint64_t w)
{
  h = (h ^ w) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 31);
}

/* SplitMix64's finalizer: every bit of X moves every bit of the result
   (the packed traces' context hash, the fronts' multipliers).  */
static inline uint64_t
pp_mix64 (uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Hashes LEN bytes of DATA, continuing from H (PP_HASH_SEED to start), so that
   a value can be hashed in pieces.  The result does not depend on the host's
   byte order.  */
static inline uint64_t
pp_hash64 (const void *data, size_t len, uint64_t h)
{
  const unsigned char *p = (const unsigned char *) data;
  size_t n = len;
  for (; n >= 8; p += 8, n -= 8)
    {
      uint64_t w;
      memcpy (&w, p, 8);
#if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      w = __builtin_bswap64 (w);
#endif
      h = pp_hash_mix (h, w);
    }
  uint64_t tail = 0;
  for (size_t i = 0; i < n; i++)
    tail |= (uint64_t) p[i] << (8 * i);
  h = pp_hash_mix (h, tail ^ ((uint64_t) len << 56));
  return h;
}

/* Does a checksum read from a file differ from the one computed?  In a fuzzing
   build (-DPP_FUZZING: contrib/fuzz, and the testsuite's pathprof-nocheck) never,
   so that mutated input gets past the checksums to the parsers behind them; a
   product build never defines PP_FUZZING.  */
#ifdef PP_FUZZING
#define PP_CHECKSUM_DIFFERS(stored, computed) ((void) (stored), (void) (computed), 0)
#else
#define PP_CHECKSUM_DIFFERS(stored, computed) ((stored) != (computed))
#endif

#endif
