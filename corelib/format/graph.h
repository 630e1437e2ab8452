/* Plain control-flow graphs: the one data structure every algorithm in corelib/ works on.

   A graph has nodes 0..nnodes-1 and edges 0..nedges-1 (parallel edges and self loops
   allowed).  ENTRY and EXIT are ordinary node numbers stored in the graph.  Edges are
   appended with pp_graph_add_edge; pp_graph_finish then builds the successor and
   predecessor lists (compressed, in edge order) that the algorithms read, and
   pp_dfs walks them depth-first.  */

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
  /* Coverage modes: the edge's value counts its traversals, a chord counter of
     edge counting, which the function uses where it costs less than coverage
     probes (pp_plan_coverage); its values are then all such counters.  */
  PP_EDGE_COUNTER = 1u << 12,
  /* Segments modes: an edge of the function's spanning forest, which has no
     probe (plan.h pp_plan_ip_roles); their cuts are PP_EDGE_PATH_END.  */
  PP_EDGE_SEG_TREE = 1u << 13,
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
/* Room for NEDGES edges, so that adding that many moves nothing (a graph
   whose size is known: the interprocedural layout's procedures).  */
int pp_graph_reserve (pp_graph *g, uint32_t nedges);
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

/* Depth-first search: the one walk behind every depth-first order in corelib/
   (back edges, pre- and postorder, DFS trees, Tarjan's algorithms).  Iterative, so
   graphs of any depth are fine.

   The walk is a sequence of steps the caller pulls with pp_dfs_next and can act on
   (or stop at) one by one; pp_dfs_run just runs it to the end for the numbers.
   Guarantee: from each root given to pp_dfs_root, in the order given, the steps are
   exactly those of this recursive walk:

     visit (v):  number v in preorder; ENTER v;
       for each edge e in v's list, in list order, that is followed:
         t = the other end of e;
         if t is not reached yet:      visit (t)   (e is t's tree edge)
         else if t is on the stack:    BACK e      (t is v or an ancestor of v)
         else:                         CROSS e     (t is finished)
       number v in postorder; LEAVE v.

   v's list is succ_edges (PP_DFS_SUCCS), pred_edges (PP_DFS_PREDS: the reverse
   walk dominator-style analyses need), or succ_edges then pred_edges (PP_DFS_BOTH:
   the undirected view, in which the tree edge v was reached by is not walked back
   from v; a parallel copy of it is).  An edge is followed when its flags have no bit
   of skip_flags and then the filter, if not NULL, returns true.  The filter is
   asked once per list entry, at the moment the walk gets there, so it may read
   state the caller changes while walking.  Preorder and postorder numbers count on
   across roots from 0; a root already reached starts nothing.  */

#define PP_DFS_NONE UINT32_MAX

enum pp_dfs_direction
{
  PP_DFS_SUCCS = 0,		/* follow edges forwards */
  PP_DFS_PREDS = 1,		/* follow edges backwards */
  PP_DFS_BOTH = 2,		/* undirected: successor, then predecessor edges */
};

enum pp_dfs_event
{
  PP_DFS_ENTER = 0,		/* dst reached by tree edge src -> dst (a root: src and
				   edge are PP_DFS_NONE) */
  PP_DFS_LEAVE = 1,		/* dst finished, back to its parent src (same src and
				   edge as its ENTER) */
  PP_DFS_BACK = 2,		/* edge followed from src to dst on the stack */
  PP_DFS_CROSS = 3,		/* edge followed from src to dst already finished: a
				   forward or cross edge */
};

/* One step.  src -> dst is the direction of the walk: for PP_DFS_PREDS it is
   dst -> src in the graph; for PP_DFS_BOTH, g->edges[edge].dst == dst tells a
   tree edge walked forwards (a tree edge is never a self loop).  */
typedef struct pp_dfs_step
{
  enum pp_dfs_event event;
  uint32_t src, dst, edge;
} pp_dfs_step;

/* Whether to follow edge EDGE (of the graph given to pp_dfs_init).  */
typedef bool pp_dfs_filter (void *data, uint32_t edge);

typedef struct pp_dfs
{
  const pp_graph *g;
  enum pp_dfs_direction dir;
  uint32_t skip_flags;
  pp_dfs_filter *filter;
  void *data;
  /* Per node, PP_DFS_NONE until set: preorder and postorder numbers (a node is on
     the stack when it has the first and not the second), and the tree edge the node
     was reached by (PP_DFS_NONE for a root).  */
  uint32_t *pre, *post, *tree_edge;
  /* The nodes reached so far in preorder, preorder[0 .. npre-1], and those
     finished in postorder, postorder[0 .. npost-1].  */
  uint32_t *preorder, *postorder;
  uint32_t npre, npost;
  /* Private: the stack of nodes being visited and how far each one's list is
     walked; whether the root on the stack still has its ENTER to report.  */
  uint32_t *stack, *cursor;
  uint32_t depth;
  bool root_pending;
} pp_dfs;

/* Prepares a walk of g (pp_graph_finish must have run) with no node reached.
   Returns 0, or -1 on allocation failure (then nothing needs freeing).  */
int pp_dfs_init (pp_dfs *d, const pp_graph *g, enum pp_dfs_direction dir,
		 uint32_t skip_flags, pp_dfs_filter *filter, void *data);
/* Starts the walk from ROOT, once the previous one has ended.  Returns false (and
   starts nothing) when ROOT is not a node or already reached.  */
bool pp_dfs_root (pp_dfs *d, uint32_t root);
/* The next step of the walk from the current root into *STEP; false when that
   walk has ended.  */
bool pp_dfs_next (pp_dfs *d, pp_dfs_step *step);
/* pp_dfs_root, then every step: fills the numbers and orders.  */
void pp_dfs_run (pp_dfs *d, uint32_t root);
void pp_dfs_free (pp_dfs *d);

#ifdef __cplusplus
}
#endif

#endif
