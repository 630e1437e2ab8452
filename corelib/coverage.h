/* Minimum coverage instrumentation (Chen, Hoag, Lee, Mestre, Pupyrev, "Minimum
   Coverage Instrumentation"): where to put one-byte "was I here" probes so that the
   coverage of every block (or edge) can be inferred afterwards, and the inference.

   Three modes, as in the paper's X-cov Y-instr hierarchy:
     PP_COVER_BLOCKS           V-cov V-instr (section 4): fewest blocks, optimal.
     PP_COVER_EDGES            E-cov E-instr (section 5): fewest edges, optimal.
     PP_COVER_BLOCKS_BY_EDGES  V-cov E-instr (section 7): edges, at most twice the
                               fewest possible.

   EXECUTION MODEL.  The graph is a CFG as built by the plugin: ENTRY and EXIT are
   g->entry and g->exit; the closing edge(s) flagged PP_EDGE_EXIT_ENTRY are ignored;
   other edges are possible control flow, including PP_EDGE_FAKE ones (a call that
   does not return: block -> EXIT; a re-entry: ENTRY -> block).  ENTRY may have no
   other predecessor and EXIT no other successor.  One execution of the function is a
   walk from ENTRY that either ends at EXIT or is stopped, by a signal or a dump from
   another thread, while stuck in code that cannot reach EXIT any more (an infinite
   loop with no call in it): every block from which EXIT cannot be reached is treated
   as if it had a fake edge to EXIT.  The coverage of a run is the union of the blocks
   and edges of its executions.  Blocks not reachable from ENTRY never run.

   WHAT IS PROBED AND INFERRED.  Blocks are every node but ENTRY and EXIT; edges that
   can carry a probe are those without PP_EDGE_PINNED flags (fake, abnormal, closing).
     PP_COVER_BLOCKS: probes on blocks; every block's coverage is inferred exactly.
     PP_COVER_EDGES: probes on probe-able edges; every probe-able edge's coverage is
       inferred exactly.  Pinned edges are possible control flow, never probed, and
       their coverage is not inferred (probing them is impossible, and inferring them
       could cost probes elsewhere for edges that are not real code).
     PP_COVER_BLOCKS_BY_EDGES: probes on probe-able edges; every block's coverage is
       inferred exactly except the blocks listed in plan.inexact, whose coverage no set
       of probe-able edges can determine (for instance a block entered by a fake
       re-entry and left by a fake leave, both on execution paths around it).
   A pinned edge joining two blocks (neither ENTRY nor EXIT: PP_EDGE_ABNORMAL, which
   the plugin already replaces by a fake leave and a fake re-entry) is modelled in the
   two edge modes exactly that way, as a leave of its source and a re-entry of its
   destination.  That only adds executions, so inference stays exact; the probe set is
   minimal for that model.

   Inference needs only the graph, the mode and the probe set: it recomputes what it
   needs in linear time, so the notes need not store any inference order.  A block or
   edge x is covered iff some hit probe p lies in x's dominator or post-dominator
   subtree of the execution model (every execution through p then passes x); this is
   exact for every valid probe set, not only for the plans computed here.

   Every function here runs in O((n + m) log(n + m)) time and linear memory, without
   recursion.  */

#ifndef PATHPROF_CORE_COVERAGE_H
#define PATHPROF_CORE_COVERAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/graph.h"
#include "format/modes.h"	/* enum pp_coverage_mode */

#ifdef __cplusplus
extern "C" {
#endif

/* Return values besides 0.  */
#define PP_COVERAGE_NOMEM (-1)
#define PP_COVERAGE_BAD_GRAPH (-2)	/* see pp_coverage_check_graph */
#define PP_COVERAGE_BAD_PROBE (-3)	/* a probe id that is not a probe location */
#define PP_COVERAGE_BAD_MODE (-4)	/* not one of enum pp_coverage_mode */

typedef struct pp_coverage_plan
{
  enum pp_coverage_mode mode;
  /* Block ids (PP_COVER_BLOCKS) or edge ids (the edge modes) to probe, ascending.
     Never ENTRY, EXIT or a pinned edge.  */
  uint32_t nprobes;
  uint32_t *probes;
  /* PP_COVER_BLOCKS_BY_EDGES: blocks whose coverage cannot be inferred from any
     set of probe-able edges; PP_COVER_BLOCKS with targets
     (pp_coverage_plan_targets): the blocks the plan does not see into.
     Ascending; inference reports them covered only when they surely are.
     Empty otherwise.  */
  uint32_t ninexact;
  uint32_t *inexact;
} pp_coverage_plan;

/* 0 when g fits the model above, else PP_COVERAGE_BAD_GRAPH: ENTRY or EXIT out of
   range or equal, an edge other than a PP_EDGE_EXIT_ENTRY one entering ENTRY or
   leaving EXIT, or adjacency lists missing or stale (call pp_graph_finish after the
   last pp_graph_add_edge).  */
int pp_coverage_check_graph (const pp_graph *g);

/* 1 when a run of g may stop in a block without leaving (a block ENTRY
   reaches that cannot reach EXIT: the model's stop edge, see EXECUTION
   MODEL), 0 when none, or PP_COVERAGE_NOMEM.  */
int pp_coverage_may_stop (const pp_graph *g);

/* Computes the probes for MODE.  Deterministic: the same graph gives the same plan,
   so the tool may recompute it from the notes' graph.  Returns 0, PP_COVERAGE_NOMEM,
   PP_COVERAGE_BAD_GRAPH or PP_COVERAGE_BAD_MODE; on failure PLAN is left empty.  */
int pp_coverage_plan_compute (const pp_graph *g, enum pp_coverage_mode mode,
			      pp_coverage_plan *plan);
/* The same, choosing among the probe sets of that size the cheapest under a
   weighting (per edge, like edge counts; NULL: every probe costs 1): a block
   probe costs the sum of the weights of the block's incoming edges, an edge probe
   the edge's weight.  Exact in PP_COVER_BLOCKS and PP_COVER_EDGES: every minimum
   probe set has one probe in each closed chain that needs one and any choice
   there is valid (theorem 1: each node of a chain infers the others), so the
   cheapest minimum set takes the cheapest candidate of each chain.  In
   PP_COVER_BLOCKS_BY_EDGES each chain takes its cheapest choice of section 7,
   which keeps the factor 2, in cost (it may use more probes than the unweighted
   plan).  */
int pp_coverage_plan_weighted (const pp_graph *g, enum pp_coverage_mode mode,
			       const double *weights, pp_coverage_plan *plan);
/* The same when only some blocks need exact coverage (TARGET[v], NULL: all),
   in the block modes (PP_COVER_EDGES ignores TARGET).  PP_COVER_BLOCKS: the
   probes go only into the closed chains that hold a target or that a
   target's inference goes through, so no more than for all blocks.
   PP_COVER_BLOCKS_BY_EDGES: section 7's choices for a chain rely on its
   neighbours' being seen into (the brute-force test shows it), so rather
   than skipping chains, the blocks that are no target and only pass control
   on (one plain edge in, one out) are contracted away and the rest planned
   (plan_blocks_by_edges_for).  Either way the other blocks are listed in
   plan.inexact (reported covered only when surely covered), and Psi
   (pp_coverage_infer, on the whole graph) is exact on the targets.  pathprof's targets are the blocks with
   source lines and those ENTRY enters (whether the function was called): a
   block without lines, such as a loop's empty latch, has no coverage anyone
   reads, and probing it costs a store per iteration.  */
int pp_coverage_plan_targets (const pp_graph *g, enum pp_coverage_mode mode,
			      const double *weights, const bool *target,
			      pp_coverage_plan *plan);
void pp_coverage_plan_free (pp_coverage_plan *plan);

/* Psi: infers coverage from the probes' bits.  PROBES[0..NPROBES-1] are the probe
   locations (as in a plan of MODE, in any order); HIT[i] says whether PROBES[i] was
   reached.  COVERED receives one entry per node (block modes) or per edge
   (PP_COVER_EDGES):
     block modes: exact for every block (unreachable ones are false) given a valid
       probe set, except the plan's inexact blocks, which are true only when surely
       covered; ENTRY and EXIT are set false (they are not code);
     PP_COVER_EDGES: exact for every probe-able edge given a valid probe set; pinned
       edges are set false.
   Returns 0, PP_COVERAGE_NOMEM, PP_COVERAGE_BAD_GRAPH, PP_COVERAGE_BAD_MODE, or
   PP_COVERAGE_BAD_PROBE when a probe is out of range or not a probe location of MODE
   (ENTRY, EXIT, a pinned edge).  */
int pp_coverage_infer (const pp_graph *g, enum pp_coverage_mode mode,
		       const uint32_t *probes, uint32_t nprobes, const bool *hit,
		       bool *covered);

#ifdef __cplusplus
}
#endif

#endif
