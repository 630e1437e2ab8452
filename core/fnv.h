/* 64-bit FNV-1a: the checksum used for notes, CFGs and whole profile files.
   Header-only so that libprof can use it without pulling in the rest of core/.  */

#ifndef PATHPROF_CORE_FNV_H
#define PATHPROF_CORE_FNV_H

#include <stddef.h>
#include <stdint.h>

#define PP_FNV_SEED 0xcbf29ce484222325ull

static inline uint64_t
pp_fnv1a64 (const void *data, size_t len, uint64_t h)
{
  const unsigned char *p = (const unsigned char *) data;
  for (size_t i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

#endif
