/* Preferential path profiling (Vaswani, Nori & Chilimbi, "Preferential Path
   Profiling: Compactly Numbering Interesting Paths", POPL 2007, figure 10): a
   second numbering over the DAG of a Ball-Larus numbering (paths.h) that gives a
   chosen set of "interesting" paths unique, compact numbers 0 .. span-1.  Paths
   outside the set get numbers too, which may collide with interesting ones, so a
   profiler keeps both registers and checks, at a path's end, that the slot of the
   preferential number records the Ball-Larus number in the other register.

   The assignment.  Nodes are processed in reverse topological order of the DAG;
   each interesting path p has a partial number pid(p), the sum of the weights
   assigned so far on its edges (0 at the start).  At node v, an interesting path
   through v is seen by its prefix (the part from its start to v, identified by
   its Ball-Larus partial sum, unique per prefix reaching v) and its out-edge.
   For each out-edge e in order, every prefix q reaching e proposes the weight
   cis(q) - min pid over q's paths through e, where cis(q) is the size of the
   intervals q's paths through earlier out-edges of v already took (0 first): the
   compaction that keeps those intervals apart.  W(e) is the largest proposal
   (the join: other prefixes get a hole), the paths through e add W(e), and
   cis(q) becomes 1 + the largest pid of q's paths through e.  Edges no
   interesting path takes get 0 (the paper's undefined weight).  At ENTRY a single
   prefix remains, the intervals are packed from 0, and span = 1 + the largest
   number.  Cost: O(|E| x |I| x log |I|) with the sorting.

   Why numbers are unique: two interesting paths first differ at their critical
   node v (the end of their longest common prefix q); there they leave by
   different out-edges, whose intervals for q the compaction (and the join, which
   only widens the gaps) keeps disjoint, and every weight added at v's ancestors
   is common to both.

   The range of all paths.  An uninteresting path's number is the sum of the
   weights along it like any other's, so a pass over the DAG (the shortest and
   longest path from each node to EXIT) bounds every path's number, and the
   bounds are reached.  The weights are small (interval sizes and their
   differences), so the range is too: in SQLite's bytecode interpreter, 275
   million paths with 264 interesting number from -2 to 408.  Slots that cover
   the whole range need no range check at a path end (plan.c, plan_slots).

   Compactness: delta = span / |I| >= 1 (1 is not always reachable: the paper's
   lemma 3); Ball-Larus numbering is the special case I = all paths, delta = 1.  */

#ifndef PATHPROF_CORE_PPP_H
#define PATHPROF_CORE_PPP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "paths.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_ppp
{
  uint32_t ninteresting;
  uint64_t *interesting;	/* Ball-Larus numbers, increasing, no duplicate */
  uint64_t *id;			/* per interesting path: its preferential number */
  uint64_t span;		/* numbers are 0 .. span-1 (0 when no path) */
  uint64_t *dag_weight;		/* per DAG edge of the numbering: W (mod 2^64) */
  /* Every path's number, interesting or not, read as the signed sum of the
     weights (each W an int64_t), lies in lowest .. highest, and both are
     reached; bounded is false when such a sum could leave 64 bits.  */
  bool bounded;
  int64_t lowest, highest;
} pp_ppp;

/* Numbers the interesting paths of P's DAG, given by their Ball-Larus numbers
   (any order, duplicates allowed).  Returns PP_PATHS_OK with *out filled,
   PP_PATHS_EINVAL when a number is not a path of P (>= npaths), PP_PATHS_ERANGE
   when a partial number would leave 63 bits, or PP_PATHS_ENOMEM; on failure *out
   is zeroed.  */
int pp_ppp_number (const pp_paths *p, const uint64_t *interesting, uint32_t n,
		   pp_ppp *out);
/* Inline, so that paths.c can free a plan's numbering without calling into
   ppp.c, which builds on paths.c.  */
static inline void
pp_ppp_free (pp_ppp *ppp)
{
  pp_free (ppp->interesting);
  pp_free (ppp->id);
  pp_free (ppp->dag_weight);
  memset (ppp, 0, sizeof *ppp);
}

/* The slot of Ball-Larus number PATH: its preferential number when it is
   interesting, else UINT64_MAX.  O(log |I|).  */
uint64_t pp_ppp_slot (const pp_ppp *ppp, uint64_t path);

/* Sum of the preferential weights along a decoded path of P (mod 2^64): the
   number a path register of those weights reaches.  */
uint64_t pp_ppp_path_sum (const pp_paths *p, const pp_ppp *ppp, const pp_path *path);

#ifdef __cplusplus
}
#endif

#endif
