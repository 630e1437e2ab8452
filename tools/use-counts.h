/* A profile's exact edge counts, function by function, for the use build
   (plugin/use.cc: -fplugin-arg-pathprof-use).  The report layer reads the
   profile (report.h: any mode, program records and trace files included)
   and this finds a function of the program being compiled in it.

   This header includes nothing of pathprof's own, so that the plugin's C++,
   which sees GCC's headers of the same names (profile.h, graph.h), can
   include it.  */

#ifndef PATHPROF_TOOLS_USE_COUNTS_H
#define PATHPROF_TOOLS_USE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct use_counts use_counts;

/* Reads the profile (or trace) at PATH.  Every unit must tell every edge's
   count (the counting modes but block-counts; an interprocedural unit must
   have been numbered by its runs).  Returns 0 with *OUT set, or -1 with a
   reason in err (the file's name not included).  */
int use_counts_open (const char *path, use_counts **out, char *err,
		     size_t errlen);
void use_counts_close (use_counts *u);

/* The function ASM_NAME of the unit UNIT_NAME (the main source file's
   absolute path; a unit the profile does not have falls back to the one
   function of that assembler name the profile has, if only one), whose CFG
   checksum and edge count must be CFG_CHECKSUM and NEDGES: 1 with *COUNTS
   set to its NEDGES edge counts (edges numbered as in its notes; those the
   profile cannot tell, 0) and *EXECUTIONS to its blocks' (ENTRY and EXIT
   not counted), 0 when the profile does not have it, -1 when it has it
   with another control flow.  */
int use_counts_find (const use_counts *u, const char *unit_name,
		     const char *asm_name, uint64_t cfg_checksum,
		     uint32_t nedges, const uint64_t **counts,
		     uint64_t *executions);

/* The largest edge count of the profile, and its runs (of the unit that ran
   most): GCC's profile summary.  */
uint64_t use_counts_max (const use_counts *u);
uint64_t use_counts_runs (const use_counts *u);

/* The block executions (ENTRY and EXIT not counted) the profile counts in
   the functions of unit UNIT_NAME: what -fplugin-arg-pathprof-verbose
   measures the annotated functions' share against.  */
uint64_t use_counts_unit_executions (const use_counts *u, const char *unit_name);

#ifdef __cplusplus
}
#endif

#endif
