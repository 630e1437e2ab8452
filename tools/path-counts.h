/* The path-counting modes (paths, ppp, residual): the path counts of a
   function (corelib/prior.h says where they are: counters, preferential slots,
   sparse counts), with the Ball-Larus numbering rebuilt from the notes (the
   edges flagged PP_EDGE_PATH_END are the plan's cuts), and every edge count
   derived from them.  */

#ifndef PATHPROF_TOOLS_PATH_COUNTS_H
#define PATHPROF_TOOLS_PATH_COUNTS_H

#include <stddef.h>
#include <stdint.h>
#include "paths.h"
#include "prior.h"
#include "profile.h"
#include "report.h"

typedef pp_path_count path_count;

typedef struct function_paths
{
  pp_paths *numbering;
  uint32_t nexecuted;
  path_count *executed;		/* the paths with a count, by path number */
} function_paths;

/* Reads the path counts of f, the function of index f->index in unit u.
   Returns 0, or -1 with a reason in err (a numbering that does not fit the counts
   means a stale or corrupted profile).  */
int function_paths_load (function_paths *fp, const report_function *f,
			 const pp_unit_data *u, char *err, size_t errlen);
void function_paths_free (function_paths *fp);

/* Sorts fp->executed hottest first, paths of equal counts by number.  */
void function_paths_sort_hottest (function_paths *fp);

/* The work the probes of a paths-mode function did in the recorded runs: the
   decoded paths, each with the path probes of f's plan on its edges (counts
   and register updates, as the notes record them), beside what Ball and Larus' simple
   placement would have done on the same paths: set the register at every path
   start (r = 0 at the entry, r = Val at a loop head) and add Val(e) on every
   edge whose Ball-Larus value is not 0.  Both count a path once.  */
typedef struct path_probe_work
{
  uint64_t paths;		/* paths recorded (the sum of the path counts) */
  uint64_t counts;		/* path counts the probes made: equals paths */
  uint64_t updates;		/* path-register updates the probes made */
  uint64_t simple_updates;	/* those of the simple placement */
} path_probe_work;

/* Adds the work of f, whose paths fp holds (function_paths_load), to *w.
   Returns 0, or -1 (out of memory) with a reason in err.  */
int function_path_work (const report_function *f, const function_paths *fp,
			path_probe_work *w, char *err, size_t errlen);

/* The mode reader of the paths mode (report.c): every edge count from the
   decoded paths (pp_edge_counts_of_paths).  */
int report_read_paths (report_function *f, const pp_unit_data *u,
		       const pp_mode_info *mode, char *err, size_t errlen);

#endif
