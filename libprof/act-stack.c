/* libprof: a thread's stack of activations (act-stack.h).  */

#include <sys/mman.h>

#include "act-stack.h"

bool
pp_act_stack_grow (struct pp_act_stack *s, size_t size)
{
  uint32_t c = 31 - (uint32_t) __builtin_clz ((s->cap >> 6) + 1);
  if (c >= PP_ACT_STACK_CHUNKS)
    return false;
  void *m = mmap (NULL, ((size_t) 64 << c) * size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return false;
  s->chunk[c] = m;
  s->cap += 64u << c;
  return true;
}
