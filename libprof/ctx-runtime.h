/* libprof, context and piecewise paths counted at run time
   (ctx-runtime.c): their probes are pathprof-abi.h's __pathprof_ip_*; what
   ip-program.c asks of them for runtime.c's hooks.  */

#ifndef PATHPROF_CTX_RUNTIME_H
#define PATHPROF_CTX_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

/* The calling thread's paths under way end where they are (the process
   ends).  */
void pp_ctx_end_thread_paths (void);

/* A count of the thread tables (ip-tables.h pp_ipt_number_fn): the path
   of start CTX and sums A and B, its number, in GMP (a dump's).  */
bool pp_ctx_key (uint64_t ctx, uint64_t a, uint64_t b, uint64_t *key);

#endif
