/* libprof's heap (arena.c); corelib/format/alloc.h declares its allocation
   functions.  */

#ifndef PATHPROF_ARENA_H
#define PATHPROF_ARENA_H

#include <stdbool.h>

/* Held across fork by runtime.c's handlers.  */
void pp_arena_lock (void);
void pp_arena_unlock (void);

/* Whether P is inside a block of the arena.  */
bool pp_arena_owns (const void *p);

#endif
