/* Fronts of interesting numbers (front.h).  */

#include "format/alloc.h"
#include "front.h"

/* The keys of KEYS that a front of 2^LOG2 slots with multiplier MUL has no
   slot for; SLOTS (2^LOG2 of them) left as the front.  */
static uint32_t
front_fill (const uint64_t *keys, uint32_t n, uint64_t mul, uint32_t log2, uint64_t *slots)
{
  uint32_t lost = 0;
  for (uint64_t i = 0; i < (uint64_t) 1 << log2; i++)
    slots[i] = PP_FRONT_HOLE;
  for (uint32_t i = 0; i < n; i++)
    {
      uint64_t *at = &slots[pp_front_slot (keys[i], mul, log2)];
      if (*at == PP_FRONT_HOLE)
	*at = keys[i];
      else
	lost++;
    }
  return lost;
}

int
pp_front_place (const uint64_t *keys, uint32_t n, uint32_t max_log2, uint64_t *mul,
		uint32_t *log2, uint64_t **slots)
{
  uint32_t b = 1;
  while (b < max_log2 && ((uint64_t) 1 << b) < (uint64_t) n * PP_FRONT_ROOM)
    b++;
  uint64_t *s = pp_malloc (((size_t) 1 << b) * sizeof *s);
  if (!s)
    return -1;
  uint64_t best = 0;
  uint32_t least = UINT32_MAX;
  for (uint32_t t = 0; t < PP_FRONT_TRIES && least; t++)
    {
      uint64_t mul = pp_front_multiplier (t);
      uint32_t lost = front_fill (keys, n, mul, b, s);
      if (lost < least)
	{
	  least = lost;
	  best = mul;
	}
    }
  front_fill (keys, n, best, b, s);
  *mul = best;
  *log2 = b;
  *slots = s;
  return 0;
}
