/* The report layer: a profile read and interpreted, ready for the commands.

   Each unit's raw values are turned into per-function facts in one place, by the
   reader of the unit's mode (report.c, mode_readers), from the function's plan as
   the notes record it; what the mode's values are comes from its row in the mode
   table (corelib/format/modes.h).  The commands only see the result.  A mode without a
   reader is refused with a message naming the unit.

   Units of a counting mode (edge-counts) get counts, and their coverage follows
   (a block or an edge is covered iff its count is not 0).  Units of a coverage mode
   get only coverage, inferred from their probes: every block's, and in edge-cover
   every edge's that can carry a probe.  */

#ifndef PATHPROF_TOOLS_REPORT_H
#define PATHPROF_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "graph.h"
#include "line-counts.h"
#include "modes.h"
#include "notes.h"
#include "plan.h"
#include "profile.h"

/* Where an edge count comes from.  */
enum report_edge_source
{
  REPORT_EDGE_MEASURED,		/* read from a counter */
  REPORT_EDGE_DERIVED,		/* recovered from the others */
  REPORT_EDGE_UNKNOWN,		/* cannot be recovered (abnormal control flow the
				   plugin could not count exactly): counts as 0 */
  REPORT_EDGE_UNMEASURED,	/* the mode does not determine it (block-counts
				   measures only what block and line counts need):
				   counts as 0 */
};

/* What the values say about whether a block or an edge ran.  */
enum report_coverage
{
  REPORT_NOT_DETERMINED,	/* the mode does not tell: ENTRY and EXIT and the
				   edges in the block coverage modes, edges that
				   cannot carry a probe in edge-cover */
  REPORT_NOT_COVERED,
  REPORT_COVERED,
};

typedef struct report_function
{
  const pp_function_notes *notes;
  uint32_t index;		/* of notes in the unit's notes */
  pp_graph graph;		/* nodes and edges numbered as in the notes */
  pp_plan plan;			/* the probes, read back from the notes */
  /* Counting units only (all 0 otherwise).  */
  uint64_t *edge_counts;	/* per edge */
  uint8_t *edge_source;		/* per edge: enum report_edge_source */
  uint32_t unknown_edges;	/* edges whose source is REPORT_EDGE_UNKNOWN */
  uint64_t *block_counts;	/* per node: the sum of its incoming edge counts */
  /* block-counts only (NULL otherwise): per edge, counts modulo 2^64 that agree
     with the true ones on every block's total in and out, not edge by edge
     (pp_propagate_vertex_counts); block and line counts are summed from these.  */
  uint64_t *flow_counts;
  uint64_t calls;		/* the sum of the non-fake edges leaving ENTRY */
  /* Every unit.  */
  uint8_t *block_coverage;	/* per node: enum report_coverage */
  uint8_t *edge_coverage;	/* per edge: enum report_coverage */
  /* Per node: no set of edge probes can determine whether the block ran (a block
     entered and left only through abnormal control flow), so in the modes with
     edge probes it is covered only when it surely ran and may have run when not
     covered.  */
  bool *block_inexact;
  bool called;			/* the block after ENTRY ran */
} report_function;

typedef struct report_unit
{
  const pp_unit_data *data;
  pp_unit_notes notes;
  const pp_mode_info *mode;	/* the row of notes.mode */
  bool counts;			/* the mode counts: edge_counts etc. are set */
  bool edges_determined;	/* the mode tells the coverage of every edge that
				   can carry a probe (edge-counts, edge-cover) */
  bool numbered;		/* the interproc mode: a program record counts
				   its paths (else its counts are unknown) */
  report_function *functions;	/* notes.nfunctions */
} report_unit;

struct report_program;

typedef struct report
{
  pp_profile profile;
  uint32_t nunits;
  report_unit *units;		/* the profile's units but program records */
  uint32_t nprograms;
  struct report_program *programs;	/* the interprocedural mode's
					   (ip-counts.h) */
} report;

/* The names the commands give the edge flags, in flag order, and the sources of
   edge counts.  */
extern const struct report_edge_flag_name
{
  uint32_t flag;
  const char *name;
} report_edge_flag_names[];
extern const size_t report_nedge_flag_names;
extern const char *const report_edge_source_names[];

/* Reads and interprets a profile.  Returns 0, or -1 with a reason in err (naming
   the unit and function when the fault is theirs).  */
int report_load (report *r, const char *path, char *err, size_t errlen);
void report_free (report *r);

/* Decodes a unit's notes and checks that every function's slice of values fits
   the unit's values.  Returns 0 with *notes filled
   (free with pp_notes_free), or -1 with a reason in err.  */
int report_decode_unit (const pp_unit_data *u, pp_unit_notes *notes, char *err,
			size_t errlen);

/* Whether f is selected by a --function argument (NULL selects everything): its
   name or its assembler name.  */
bool report_function_selected (const report_function *f, const char *name);

/* The line counts (of counting units) and line coverage (of every unit) of the
   selected functions of every unit, with gcov's semantics, and where each unit's
   files are among their sources.  */
typedef struct report_lines
{
  line_counts lc;
  uint32_t nunits;
  uint32_t **source_of_file;	/* [unit][file index in the unit's notes] */
} report_lines;

/* function_name as for report_function_selected.  Returns 0, or -1 on allocation
   failure.  */
int report_lines_compute (report_lines *rl, const report *r,
			  const char *function_name);
void report_lines_free (report_lines *rl);

#endif
