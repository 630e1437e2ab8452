/* Edge profiling with edge counters (Ball & Larus 1994, sections 3.2 and 5).

   Counters go on the chords of a maximum spanning tree of the CFG (closed by its
   EXIT -> ENTRY edge) under a weighting; every other edge count is recovered
   afterwards by flow propagation.  The graph given to these functions must already
   contain the EXIT -> ENTRY edge (flag PP_EDGE_EXIT_ENTRY) and the fake edges that
   model early leaves and re-entries, so that flow is conserved at every node for
   every execution.  */

#ifndef PATHPROF_CORE_EDGEPROF_H
#define PATHPROF_CORE_EDGEPROF_H

#include "format/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pp_weighting
{
  PP_WEIGHTS_HEURISTIC = 0,	/* Ball-Larus structural heuristic (section 5) */
  PP_WEIGHTS_GCC = 1,		/* GCC's static estimate, supplied by the plugin */
  PP_WEIGHTS_UNIFORM = 2,	/* every edge weighs 1 */
  PP_WEIGHTS_PROFILE = 3,	/* measured counts of a previous run, the
				   static estimate breaking ties */
};

/* Fills w[0..nedges-1] with the Ball-Larus structural weighting: DFS back edges,
   natural loops, LOOP_MULTIPLIER 10, loop-exit edges share the loop's weight, each
   predicate's branches equally likely.  EXIT -> ENTRY (recognised by its flag, not
   followed by the DFS, never a back edge) weighs 1.  Fake edges (calls that might
   not return, re-entries) are outside the paper's model and assumed rare: they
   weigh 0 wherever a real edge can take the share, so code after a call does not
   look colder than code before it.  Any graph is
   accepted: edges out of blocks unreachable from ENTRY weigh 0, irreducible loops
   use their natural loops as defined (Kirchhoff's law then holds only roughly), and
   weights are clamped at 1e300 so deep nesting stays finite.  Time is linear plus
   the total size of all natural loops.  Returns 0, or -1 on allocation failure.  */
int pp_weights_heuristic (const pp_graph *g, double *w);
void pp_weights_uniform (const pp_graph *g, double *w);
/* Measured edge counts as weights: w[e] = counts[e] + est[e] / (2 max est), so
   that a more frequent edge never weighs less (exactly so while counts stay
   below 2^52) and edges of equal counts, the never-executed ones above all,
   are ordered by the static estimate EST (>= 0, may be W; NULL: by edge
   index, as the spanning tree breaks ties).  A maximum spanning tree under these weights has
   chords of the least total count: the cheapest counters for the run measured
   (Ball & Larus 1994, section 3.2).  */
void pp_weights_from_counts (const pp_graph *g, const uint64_t *counts,
			     const double *est, double *w);

/* Maximum spanning tree over the undirected view of g (Kruskal).  Pinned edges
   (PP_EDGE_PINNED) are added first, EXIT -> ENTRY before the other pinned ones so it
   is never the pinned edge left off; within each group heavier edges first, ties
   broken by lower edge index so the result is deterministic.  A NaN weight counts
   as the lightest.  Self loops are never on the tree.  Sets on_tree[e].  Returns the
   number of pinned edges that could not be put on the tree because they close a
   cycle of pinned edges (they then need a probe they cannot have: the caller must
   restructure the graph or report the edges as inexact), or -1 on allocation
   failure.  Disconnected graphs give a spanning forest.  */
int pp_max_spanning_tree (const pp_graph *g, const double *w, bool *on_tree);

/* The edge-counter plan: counter_of_edge[e] is the counter index of edge e, or -1
   when e is on the tree (its count is derived).  Counters are numbered 0..n-1 in edge
   order.  Returns n (= |E| - |V| + 1 on a connected graph with no pinned chords), or
   -1 on allocation failure.  *pinned_chords receives the spanning-tree result above
   (pinned edges that had to be chords; they get no counter and stay unknown).  */
int pp_plan_edge_counters (const pp_graph *g, const double *w,
			   int32_t *counter_of_edge, int *pinned_chords);

/* Recovers every edge count from the chord counters (figure 6 of the paper, done
   iteratively so deep graphs cannot overflow the stack).  Edges with
   counter_of_edge[e] >= 0 take counters[counter_of_edge[e]]; the others are derived
   from flow conservation, whatever their number: an unmeasured edge is determined
   exactly when it lies on no (undirected) cycle of unmeasured edges, and every such
   edge is determined.  counts[e] receives the count of edge e (0 when unknown).
   Returns 0 when every edge was determined and flow is conserved at every node; 1
   when the counters are inconsistent with the graph (a derived count would be
   negative or overflow 64 bits, or a node whose edges are all known does not
   balance: a stale or corrupted profile); 2 when some edges are undetermined
   (pinned chords, and the unmeasured edges on cycles with them; unmeasured self
   loops); -1 on allocation failure.  known[e], if non-NULL, says which edges were
   determined.  */
int pp_propagate_counts (const pp_graph *g, const int32_t *counter_of_edge,
			 const uint64_t *counters, uint64_t *counts, bool *known);

/* The same, following DESIGN.md's rule for fake edges: the derived count of a
   PP_EDGE_FAKE edge may be negative (a leave taken -1 times is a return through a
   frame entered before a fork or a counter reset).  Such a count is stored in two's
   complement: (int64_t) counts[e] is its value, and uint64_t sums over a node's
   edges still come out right.  A fake edge's count must fit int64_t (else 1); other
   edges still may not go negative.  Measured edges are read as before.  */
int pp_propagate_counts_signed_fakes (const pp_graph *g,
				      const int32_t *counter_of_edge,
				      const uint64_t *counters, uint64_t *counts,
				      bool *known);

/* The same with no range check: every derived count is kept modulo 2^64 (a
   "negative" one in two's complement), for stand-in counts whose sums matter
   rather than the counts themselves (pp_propagate_vertex_counts).  */
int pp_propagate_counts_modular (const pp_graph *g, const int32_t *counter_of_edge,
				 const uint64_t *counters, uint64_t *counts);

/* Vertex profiling with edge counters, Vprof(Ecnt) (Ball & Larus 1994, section
   3.3; vertexprof.c).  The heuristic of figure 11: the chords of a maximum
   spanning tree, then, heaviest first, a chord loses its counter when the cycle
   it closes in the tree is pipeless, shares no vertex with an earlier such cycle
   (or a pinned chord's) and has no edge with keep[e] set (keep may be NULL).
   Fills counter_of_edge as pp_plan_edge_counters does; *removed receives the
   number of chords left without a counter, *pinned_chords as there.  Every simple
   cycle of the edges without a counter is then pipeless, so every vertex count
   is determined (the paper's theorem).  Returns the number of counters, or -1 on
   allocation failure.  */
int pp_plan_vertex_counters (const pp_graph *g, const double *w, const bool *keep,
			     int32_t *counter_of_edge, int *pinned_chords,
			     uint32_t *removed);

/* Figure 8: every cycle of unmeasured edges broken by an edge counted 0, the rest
   derived; counts[e] receives edge counts, modulo 2^64, whose sum over any
   vertex's incoming (or outgoing) edges is that vertex's count whenever the
   counters satisfy the theorem above.  The counts of edges on cycles of
   unmeasured edges are stand-ins, not the edges' own; pp_propagate_counts tells
   which edges are determined.  Returns 0, 1 when the counters contradict the
   graph, or -1 on allocation failure.  */
int pp_propagate_vertex_counts (const pp_graph *g, const int32_t *counter_of_edge,
				const uint64_t *counters, uint64_t *counts);

#ifdef __cplusplus
}
#endif

#endif
