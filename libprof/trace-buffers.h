/* libprof internals shared between runtime.c and trace-buffers.c.  */

#ifndef PATHPROF_TRACE_BUFFERS_H
#define PATHPROF_TRACE_BUFFERS_H

#include <sys/types.h>

struct __pathprof_unit;

/* Writes every thread's trace records out (exit, abort, exec).  */
void pp_trace_flush_all (void);
/* A traced unit, at its registration: it gets its trace id, and its notes
   go to each trace file with the first records written there.  */
void pp_trace_register (struct __pathprof_unit *u);
/* A traced unit that goes away (its destructor): every thread's records are
   written out, and the files opened from now on take its notes from a copy.  */
void pp_trace_forget (struct __pathprof_unit *u);
/* The fork handlers: the forking thread's records go to the parent's file
   first; the child's file then starts where they end.  */
void pp_trace_before_fork (void);
void pp_trace_after_fork_in_parent (void);
void pp_trace_after_fork_in_child (pid_t parent);

#endif
