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

#endif
