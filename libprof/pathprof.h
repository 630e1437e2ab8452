/* pathprof run-time API, for programs built with -fplugin=pathprof and linked
   with -lprof.  Every function is safe to call whether or not any unit of the
   program was instrumented.  */

#ifndef PATHPROF_H
#define PATHPROF_H

#ifdef __cplusplus
extern "C" {
#endif

/* Merges the profile gathered so far into the profile file (PATHPROF_FILE, default
   pathprof.data) and starts counting afresh, so nothing is counted twice.  Use it
   before a program ends in a way that runs no exit handlers (_exit, exec, a fatal
   signal).  Returns 0, or -1 when the profile could not be written (the reason is
   printed on stderr).  */
int pathprof_dump (void);

/* Discards everything counted so far in this process.  */
void pathprof_reset (void);

#ifdef __cplusplus
}
#endif

#endif
