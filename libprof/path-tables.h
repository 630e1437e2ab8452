/* libprof's hash tables for the path counts of the functions with more paths than
   fit a counter array (paths mode; compiled roots' segments in the segments
   modes), as runtime.c dumps, resets and forks them.
   Every function here except pp_tables_lock/unlock takes the tables' lock itself;
   callers that hold units_lock take it after that one.  */

#ifndef PATHPROF_LIBPROF_PATH_TABLES_H
#define PATHPROF_LIBPROF_PATH_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pathprof-abi.h"
#include "profile.h"

/* Where the counts a dump took came from, to subtract them once written.  */
typedef struct pp_taken_count
{
  uint64_t *slot;
  uint64_t value;
} pp_taken_count;

typedef struct pp_tables_taken
{
  size_t n;
  pp_taken_count *counts;
} pp_tables_taken;

/* Sets snap->sparse and snap->nsparse to the path counts of u's tables (but
   those of compiled roots, PATHPROF_TABLE_COMPILED: pp_table_drain; sorted,
   equal keys added, zero counts left out; NULL and 0 when there are none) and
   taken to where they came from.  Returns 1 if there are counts, 0 if none, -1
   when out of memory (then nothing is allocated).  */
int pp_tables_snapshot (const struct __pathprof_unit *u, pp_unit_data *snap,
			pp_tables_taken *taken);
/* Removes what a snapshot took, keeping what was counted since.  */
void pp_tables_subtract (const pp_tables_taken *taken);
void pp_tables_taken_free (pp_tables_taken *taken);

/* Moves the counts of table T out: ADD (path, count, ARG) for each slot
   with a count (a path may come more than once), the slot left 0.  */
void pp_table_drain (struct __pathprof_path_table *t,
		     void (*add) (uint64_t path, uint64_t count, void *arg), void *arg);

/* Whether any path of u's tables (but compiled roots') has a count.  */
bool pp_tables_have_counts (const struct __pathprof_unit *u);
/* Forgets every count of u's tables.  */
void pp_tables_zero (const struct __pathprof_unit *u);

/* Held across fork, so that the child never inherits a table half grown.  */
void pp_tables_lock (void);
void pp_tables_unlock (void);

#endif
