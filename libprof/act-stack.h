/* libprof: a thread's stack of activations whose entries never move.

   The interprocedural modes hand the instrumented code the address of an
   activation (pathprof-abi.h, struct __pathprof_ip_frame), which the code
   reads and writes while the activation runs, so the stack cannot be an
   array that is reallocated as it grows.  It is chunks that double in
   size, taken with mmap (never from the program's heap) and kept for the
   thread's life: chunk c holds 64 << c entries, from index 64 (2^c - 1).
   The entries are of one size, the user's struct; ctx-runtime.c (context
   and piecewise paths) and kseg-runtime.c (segments) each keep one.  */

#ifndef PATHPROF_ACT_STACK_H
#define PATHPROF_ACT_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PP_ACT_STACK_CHUNKS 26

struct pp_act_stack
{
  unsigned char *chunk[PP_ACT_STACK_CHUNKS];
  uint32_t cap;			/* entries in the chunks taken so far */
};

/* Entry I (below S->cap) of a stack of entries of SIZE bytes.  */
static inline void *
pp_act_at (const struct pp_act_stack *s, uint32_t i, size_t size)
{
  if (__builtin_expect (i < 64, 1))
    return s->chunk[0] + i * size;	/* most stacks are shallow */
  uint32_t c = 31 - (uint32_t) __builtin_clz ((i >> 6) + 1);
  return s->chunk[c] + (i - ((64u << c) - 64)) * size;
}

/* Takes S's next chunk (zeroed) for entries of SIZE bytes; false when there
   can be none (out of chunks or of memory).  The new entries are those from
   the old S->cap.  */
bool pp_act_stack_grow (struct pp_act_stack *s, size_t size);

/* The activations of S above DEPTH are gone (a longjmp past them, or the
   process ends in them), *TOP (the thread's __pathprof_ip_depth) being
   the stack's depth: the path or segment under way ends at its top
   activation's call under way (END_AT_CALL), and each activation that
   began one (BEGAN, which gives back what it suspended) uncovers its
   caller's, which ends at its call under way too.  With DEPTH 0, every
   path of the thread.  The activation at DEPTH ends its path at its call
   too where a longjmp LANDED in it (its LAND restarts it); otherwise one
   of its probes found the stack so (the longjmp landed in code not
   instrumented that its call under way had called, which returned), and
   its path goes on past the call.  The walk the context, piecewise and
   segments runtimes share; each inlines it with its own two functions.  */
static inline void
pp_act_abandon_above (const struct pp_act_stack *s, size_t size, uint32_t *top,
		      uint32_t depth, bool landed, void (*end_at_call) (void *act),
		      bool (*began) (void *act))
{
  if (*top == 0)
    return;
  end_at_call (pp_act_at (s, *top - 1, size));
  while (*top > depth)
    if (began (pp_act_at (s, --*top, size)) && *top > 0 && (landed || *top > depth))
      end_at_call (pp_act_at (s, *top - 1, size));
}

/* A thread's probe under way: set BUSY before a probe changes the
   thread's stack, clear it after, so that the probes of a signal handler
   that interrupts the probe find it set and do nothing.  The compiler
   barrier keeps each store where it is written (a store of true that
   nothing in the thread reads before the store of false is otherwise
   dead) and the probe's other stores between the two.  */
static inline void
pp_busy_set (bool *busy)
{
  *busy = true;
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
}

static inline void
pp_busy_clear (bool *busy)
{
  __atomic_signal_fence (__ATOMIC_SEQ_CST);
  *busy = false;
}

#endif
