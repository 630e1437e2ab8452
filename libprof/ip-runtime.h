/* libprof internals shared between runtime.c and the interprocedural
   modes' runtime (ip-program.c, ctx-runtime.c, kseg-runtime.c).  runtime.c
   calls it through the hooks that ip-program.c installs from a
   constructor: a program with no unit of those modes does not link them,
   corelib's numbering or GMP.  (Not weak
   references: each weak undefined symbol costs the dynamic linker a failed
   lookup through every library at each start, about 450 instructions.)  */

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

/* What runtime.c asks ip-program.c; pp_ip is NULL when the program has no
   interprocedural unit.  */
struct pp_ip_hooks
{
  /* The program record of a dump: *rec borrows the name and manifest and
     owns wide and values; returns 1 when it holds counts, 0 when there is
     none (no numbering), -1 when out of memory.  */
  int (*snapshot) (pp_unit_data *rec);
  /* Removes what the last snapshot read, slot by slot, from the live counts
     (REC is that snapshot).  */
  void (*subtract) (const pp_unit_data *rec);
  /* Zeroes the counts (pathprof_reset, a forked child).  */
  void (*reset) (void);
  /* Fork: stage 0 before units_lock is taken (the numbering's lock), stage 1
     after it (the counts'); the parent then unlocks both, the child too after
     zeroing the counts.  */
  void (*before_fork) (int stage);
  void (*after_fork) (bool child);
  /* The process ends in the calling thread: its paths under way end where
     they are.  */
  void (*end_thread_paths) (void);
};
extern const struct pp_ip_hooks *pp_ip;

#endif
