/* The report layer: a profile read and interpreted, ready for the commands.

   Each unit's raw values are turned into per-function counts in one place, by the
   reader of the unit's mode (report.c, mode_readers); the commands only see the
   result.  A mode without a reader is refused with a message naming the unit.  */

#ifndef PATHPROF_TOOLS_REPORT_H
#define PATHPROF_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "graph.h"
#include "line-counts.h"
#include "notes.h"
#include "profile.h"

/* Where an edge count comes from.  */
enum report_edge_source
{
  REPORT_EDGE_MEASURED,		/* read from a counter */
  REPORT_EDGE_DERIVED,		/* recovered from the others */
  REPORT_EDGE_UNKNOWN,		/* cannot be recovered (abnormal control flow the
				   plugin could not count exactly): counts as 0 */
};

typedef struct report_function
{
  const pp_function_notes *notes;
  pp_graph graph;		/* nodes and edges numbered as in the notes */
  uint64_t *edge_counts;	/* per edge */
  uint8_t *edge_source;		/* per edge: enum report_edge_source */
  uint32_t unknown_edges;	/* edges whose source is REPORT_EDGE_UNKNOWN */
  uint64_t *block_counts;	/* per node: the sum of its incoming edge counts */
  uint64_t calls;		/* the sum of the non-fake edges leaving ENTRY */
} report_function;

typedef struct report_unit
{
  const pp_unit_data *data;
  pp_unit_notes notes;
  report_function *functions;	/* notes.nfunctions */
} report_unit;

typedef struct report
{
  pp_profile profile;
  uint32_t nunits;
  report_unit *units;
} report;

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

/* The line counts of the selected functions of every unit, with gcov's semantics,
   and where each unit's files are among their sources.  */
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
