/* libprof: GMP's memory.  GMP takes memory through functions global to the
   process, which the program may use as well, and libprof must leave the
   program's heap as the plain build has it (alloc.h).  So libprof puts
   functions of its own in front of the ones it finds: while the thread is
   inside libprof, a new block comes from the arena, else from the
   program's functions, and a block goes back to the one that owns it.  A
   signal handler that uses GMP while its thread is inside libprof gets
   arena blocks: they work, but the handler's heap is not the plain
   build's.  */

#ifndef PATHPROF_GMP_MEMORY_H
#define PATHPROF_GMP_MEMORY_H

#include <stdbool.h>

/* libprof's functions in front of GMP's (again, if the program put its own
   there since), before libprof uses GMP.  The thread is inside libprof
   between pp_gmp_enter and pp_gmp_leave (alloc.h), and where INSIDE, when
   not NULL, says so (kept for the calls that give NULL).  */
void pp_gmp_in_front (bool (*inside) (void));

#endif
