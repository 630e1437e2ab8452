/* libprof internals shared between runtime.c and ip-runtime.c (the
   interprocedural mode).  runtime.c calls the ip-runtime.c functions through
   weak references: a program with no unit of that mode does not link
   ip-runtime.c, corelib's numbering or GMP.  */

#ifndef PATHPROF_IP_RUNTIME_H
#define PATHPROF_IP_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "pathprof-abi.h"
#include "profile.h"

/* runtime.c: the registered units (malloc'd array, *units; returns how
   many), and "pathprof: ..." on stderr in one write (at_exit: not twice the
   same line).  */
uint32_t pp_registered_units (struct __pathprof_unit ***units);
void pp_report (bool at_exit, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

/* ip-runtime.c.  The program record of a dump: *rec borrows the name and
   manifest and owns wide and values; returns 1 when it holds counts, 0
   when there is none (no numbering), -1 when out of memory.  */
int pp_ip_snapshot (pp_unit_data *rec) __attribute__ ((weak));
/* Removes what the last snapshot read, slot by slot, from the live counts
   (REC is that snapshot).  */
void pp_ip_subtract (const pp_unit_data *rec) __attribute__ ((weak));
/* Zeroes the counts (pathprof_reset, a forked child).  */
void pp_ip_reset (void) __attribute__ ((weak));
/* Fork: stage 0 before units_lock is taken (the numbering's lock), stage 1
   after it (the counts'); the parent then unlocks both, the child too after
   zeroing the counts.  */
void pp_ip_before_fork (int stage) __attribute__ ((weak));
void pp_ip_after_fork (bool child) __attribute__ ((weak));
/* The process ends in the calling thread: its paths under way end where
   they are.  */
void pp_ip_end_thread_paths (void) __attribute__ ((weak));

#endif
