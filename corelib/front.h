/* Fronts of interesting numbers (plugin/compiled.cc, "Fronts"): a
   compiled root whose segments count in a path table first looks its
   number up in 2^log2 slots fixed when the unit is compiled, slot
   (number * mul) >> (64 - log2), each holding one interesting number or
   PP_FRONT_HOLE (no number is: numbers are below 2^63), and counts there
   when the slot holds the number; any other number goes on to the table.
   So a front is exact whatever it holds: it only decides which numbers
   skip the table.  No allocator in the header, so that the plugin can
   include it.  */

#ifndef PATHPROF_CORE_FRONT_H
#define PATHPROF_CORE_FRONT_H

#include <stdint.h>

#include "format/hash.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PP_FRONT_HOLE UINT64_MAX
#define PP_FRONT_ROOM 8u
#define PP_FRONT_TRIES 64u
/* At most 2^PP_FRONT_MAX_LOG2 slots a root (16 K: 128 kB of keys and as
   many of counts); libprof takes a larger size for no front.  */
#define PP_FRONT_MAX_LOG2 14u

/* The T-th multiplier pp_front_place tries: odd, from a fixed sequence, so
   that a unit compiles to the same front every time.  */
static inline uint64_t
pp_front_multiplier (uint32_t t)
{
  return pp_mix64 (0x9e3779b97f4a7c15ull * (t + 2)) | 1;
}

static inline uint64_t
pp_front_slot (uint64_t number, uint64_t mul, uint32_t log2)
{
  return (number * mul) >> (64 - log2);
}

/* Picks log2 (the least power of two of at least PP_FRONT_ROOM slots a
   key, at most max_log2, and at least 1) and, among the first
   PP_FRONT_TRIES multipliers, the one that leaves the fewest keys without
   a slot (two keys with one slot: the first of KEYS keeps it), and fills
   the malloc'd *SLOTS (pp_free: libc's free outside libprof).  KEYS: N
   numbers, no duplicate.  Returns 0, or -1 when out of memory.  */
int pp_front_place (const uint64_t *keys, uint32_t n, uint32_t max_log2, uint64_t *mul,
		    uint32_t *log2, uint64_t **slots);

#ifdef __cplusplus
}
#endif

#endif
