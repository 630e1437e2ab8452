/* libprof: the names of the files it writes (the profile, its temporary
   and fallback names, the numbering cache's, the traces'), which runtime.c,
   trace-buffers.c, ip-program.c and numbering-cache.c make alike.  */

#ifndef PATHPROF_FILE_NAMES_H
#define PATHPROF_FILE_NAMES_H

#include <stdbool.h>

/* The decimal digits of the process id into buf (at least 24 bytes, NUL
   terminated); returns their number.  */
int pp_pid_digits (char *buf);
/* The profile's file name (PATHPROF_FILE, %p expanded), in memory of
   pp_malloc; NULL when out of memory.  */
char *pp_profile_path (void);
/* PATH followed by SUFFIX, and by the process id if WITH_PID, in memory of
   pp_malloc; NULL when out of memory.  */
char *pp_path_with_suffix (const char *path, const char *suffix, bool with_pid);

#endif
