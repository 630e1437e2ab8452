/* libprof internals shared between runtime.c and trace-buffers.c.  */

#ifndef PATHPROF_TRACE_BUFFERS_H
#define PATHPROF_TRACE_BUFFERS_H

#include <sys/types.h>

/* Writes every thread's trace records out (exit, abort, exec, unit exit).  */
void pp_trace_flush_all (void);
/* The fork handlers: the forking thread's records go to the parent's file
   first; the child's file then starts where they end.  */
void pp_trace_before_fork (void);
void pp_trace_after_fork_in_parent (void);
void pp_trace_after_fork_in_child (pid_t parent);

#endif
