/* Dominator and post-dominator trees (Lengauer-Tarjan, iterative, O(m log n)).

   u dominates v when every path from the root to v goes through u; with REVERSE set the
   edges are followed backwards, so rooted at EXIT the tree gives post-dominators.
   Every node dominates itself.  The tree is numbered by a depth-first walk so that
   "u dominates v" is a constant-time interval test: these are the A(u)/B(u)
   membership tests of the minimum-coverage paper (section 4.1), since v is in A(u)
   (reachable from ENTRY avoiding u) exactly when u does not dominate v, and v is in
   B(u) (reaches EXIT avoiding u) exactly when u does not post-dominate v.  */

#ifndef PATHPROF_CORE_DOMINATORS_H
#define PATHPROF_CORE_DOMINATORS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PP_DOM_NONE UINT32_MAX

typedef struct pp_domtree
{
  uint32_t nnodes, root;
  /* idom[v]: immediate dominator of v; PP_DOM_NONE for the root and for nodes the
     root does not reach.  */
  uint32_t *idom;
  /* Preorder and postorder numbers of v in the dominator tree (PP_DOM_NONE when v is
     not reached): u dominates v iff pre[u] <= pre[v] and post[v] <= post[u].  */
  uint32_t *pre, *post;
} pp_domtree;

/* Computes the dominator tree of g (pp_graph_finish must have been called) rooted at
   ROOT, following edges forwards, or backwards when REVERSE.  Edges whose flags
   intersect SKIP_FLAGS are ignored (pass PP_EDGE_EXIT_ENTRY to drop the closing edge
   of a CFG).  Returns 0, or -1 on allocation failure (T is then empty).  */
int pp_dominators (const pp_graph *g, uint32_t root, bool reverse,
		   uint32_t skip_flags, pp_domtree *t);
void pp_domtree_free (pp_domtree *t);

/* Whether u dominates v (reflexive); false when v is not reached from the root.  */
static inline bool
pp_dominates (const pp_domtree *t, uint32_t u, uint32_t v)
{
  return t->pre[v] != PP_DOM_NONE && t->pre[u] <= t->pre[v]
	 && t->post[v] <= t->post[u];
}

#ifdef __cplusplus
}
#endif

#endif
