/* The machine of the branch streams (`pathprof trace --branches`, hw/): it
   lays the functions out one after the other from 0x400000, as a linker
   does, each function's blocks in reverse postorder of a depth-first search
   over its real edges (blocks only a re-entry reaches go last), 16 bytes a
   block, a block's calls at +8 and its branch at +12.  A branch is then
   backward exactly when it goes back along that order.  What a real edge
   retires: a block with more than two real successors ends in an indirect
   jump (a jump table), one with two in a conditional branch, taken unless it
   goes to the next block, one with one in a jump unless it falls through.
   `pathprof trace --branches` prints a run on this machine, and `pathprof
   paths --descriptors` the path descriptors its Ball-Larus paths would get
   on it, so that pathprof-hw can compare the two.  */

#ifndef PATHPROF_TOOLS_BRANCH_LAYOUT_H
#define PATHPROF_TOOLS_BRANCH_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "graph.h"

#define BRANCH_TEXT_START 0x400000

/* Each block's place in g's layout (0 for the first), malloc'd; NULL when out
   of memory.  */
uint32_t *branch_layout_order (const pp_graph *g);

enum branch_kind
{
  BRANCH_NONE,			/* falls through, or not a real edge */
  BRANCH_COND_TAKEN,
  BRANCH_COND_NOT_TAKEN,
  BRANCH_JUMP,
  BRANCH_INDIRECT,
};

/* What taking edge e of g retires (ORDER from branch_layout_order); edges
   from ENTRY and into EXIT retire none (calls and returns are not edges).  */
enum branch_kind branch_layout_kind (const pp_graph *g, const uint32_t *order,
				     uint32_t e);

/* The stream's name of a kind: "ct", "cn", "j", "ij".  */
const char *branch_kind_name (enum branch_kind k);

/* How labels and descriptors name a function: its name, followed by
   [UNIT] (the base name of its unit's source) when another unit of the
   same file has a function of that name (static functions of headers).
   NAMES are the function names of every unit of the file; a malloc'd
   string, NULL when out of memory.  */
typedef struct branch_names
{
  size_t n;
  const char **names;		/* sorted */
} branch_names;

int branch_names_init (branch_names *b, const char *const *names, size_t n);
void branch_names_free (branch_names *b);
/* Writes the function's label name into buf.  */
void branch_function_name (const branch_names *b, const char *name,
			   const char *unit, char *buf, size_t len);

#endif
