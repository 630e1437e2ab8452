/* Plain control-flow graphs: the one data structure every algorithm in corelib/ works on.

   A graph has nodes 0..nnodes-1 and edges 0..nedges-1 (parallel edges and self loops
   allowed).  ENTRY and EXIT are ordinary node numbers stored in the graph.  Edges are
   appended with pp_graph_add_edge; pp_graph_finish then builds the successor and
   predecessor lists (compressed, in edge order) that the algorithms read.  */

#ifndef PATHPROF_CORE_GRAPH_H
#define PATHPROF_CORE_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Edge kinds.  Edges that cannot carry a probe are "pinned": the spanning-tree
   algorithms put them on the tree first so that they are derived, never measured.  */
enum pp_edge_flag
{
  PP_EDGE_FAKE = 1u << 0,	/* not real control flow: models an early leave
				   (block -> EXIT) or a re-entry (ENTRY -> block) */
  PP_EDGE_ABNORMAL = 1u << 1,	/* setjmp/computed goto/nonlocal goto: no probe */
  PP_EDGE_EH = 1u << 2,		/* exception edge (probes allowed) */
  PP_EDGE_EXIT_ENTRY = 1u << 3,	/* the closing EXIT -> ENTRY edge */
  PP_EDGE_FALLTHRU = 1u << 4,	/* informational, for reports */
  PP_EDGE_TRUE = 1u << 5,	/* condition true (informational) */
  PP_EDGE_FALSE = 1u << 6,	/* condition false (informational) */
  PP_EDGE_PATH_END = 1u << 7,	/* a cut chosen by the plugin or a region cut:
				   paths end and restart here (paths mode) */
  /* Paths mode, informational: what the probe on the edge does (corelib/paths.h,
     pp_path_action), so that the tool can count the work the probes did.  */
  PP_EDGE_PATH_COUNT = 1u << 8,	/* counts a path */
  PP_EDGE_PATH_REG = 1u << 9,	/* adds to or sets the path register */
  PP_EDGE_PATH_CONST = 1u << 10,	/* with PATH_COUNT: counts a constant path */
  PP_EDGE_PATH_SET = 1u << 11,	/* with PATH_REG: sets rather than adds */
};

/* The flags that describe the control flow itself (the others describe probes):
   what a function's CFG checksum covers.  */
#define PP_EDGE_CFG_FLAGS (PP_EDGE_FAKE | PP_EDGE_ABNORMAL | PP_EDGE_EH \
			   | PP_EDGE_EXIT_ENTRY | PP_EDGE_FALLTHRU | PP_EDGE_TRUE \
			   | PP_EDGE_FALSE)

/* Edges that must never be chosen for a probe.  */
#define PP_EDGE_PINNED (PP_EDGE_FAKE | PP_EDGE_ABNORMAL | PP_EDGE_EXIT_ENTRY)

typedef struct pp_edge
{
  uint32_t src, dst;
  uint32_t flags;
} pp_edge;

typedef struct pp_graph
{
  uint32_t nnodes, nedges, edge_cap;
  uint32_t entry, exit;
  pp_edge *edges;
  /* Built by pp_graph_finish: edges leaving node v are
     succ_edges[succ_start[v] .. succ_start[v+1]-1], likewise for preds.  */
  uint32_t *succ_start, *succ_edges;
  uint32_t *pred_start, *pred_edges;
} pp_graph;

/* All functions return 0 on success and -1 on allocation failure.  */
int pp_graph_init (pp_graph *g, uint32_t nnodes, uint32_t entry, uint32_t exit);
/* Appends an edge; returns its index, or UINT32_MAX on allocation failure or when
   src or dst is not a node of g.  */
uint32_t pp_graph_add_edge (pp_graph *g, uint32_t src, uint32_t dst, uint32_t flags);
/* Builds the adjacency lists.  Call again after adding more edges.  */
int pp_graph_finish (pp_graph *g);
void pp_graph_free (pp_graph *g);

static inline uint32_t pp_graph_out_degree (const pp_graph *g, uint32_t v)
{ return g->succ_start[v + 1] - g->succ_start[v]; }
static inline uint32_t pp_graph_in_degree (const pp_graph *g, uint32_t v)
{ return g->pred_start[v + 1] - g->pred_start[v]; }

#ifdef __cplusplus
}
#endif

#endif
