/* pathprof run-time API, for programs built with -fplugin=pathprof and linked
   with -lprof.  Every function is safe to call whether or not any unit of the
   program was instrumented.  */

#ifndef PATHPROF_H
#define PATHPROF_H

#ifdef __cplusplus
extern "C" {
#endif

/* Merges the profile gathered so far into the profile file and starts counting
   afresh, so nothing is counted twice.  The file is $PATHPROF_FILE (%p in it stands
   for the pid, %% for %), by default pathprof.data in the current directory.
   Concurrent processes may dump into the same file: it is locked and replaced
   atomically, so no count is lost.  A process counts as one run however often it
   dumps.  If the file is not a valid profile, or holds a profile of another build
   of one of the program's sources, it is left alone and this run's profile goes to
   <file>.<pid> instead (with a message).  Use it before a program ends in a way
   that runs no exit handlers (_exit, exec, a fatal signal); it is not
   async-signal-safe.  Returns 0, or -1 when the profile could not be written: the
   reason is printed on stderr, the file is unchanged and the counts are kept for
   the next dump.  */
int pathprof_dump (void);

/* Discards everything counted so far in this process (counters and coverage).  */
void pathprof_reset (void);

#ifdef __cplusplus
}
#endif

#endif
