/* Ball-Larus path profiling (Ball & Larus, "Efficient Path Profiling", MICRO 1996):
   the DAG of a CFG, exact path numbering, region cuts when a function has too many
   paths, probe placement on the chords of a maximum spanning tree, and decoding.
   paths.c numbers the paths (pp_paths_number, decode, encode: all the tool needs);
   paths-place.c places the probes on that numbering (pp_paths_plan, for the
   plugin), and the numbering never calls the placement.

   The input is the graph edgeprof.h describes: ENTRY, EXIT, the EXIT -> ENTRY edge
   (PP_EDGE_EXIT_ENTRY), fake edges (PP_EDGE_FAKE) for early leaves (block -> EXIT)
   and re-entries (ENTRY -> block).  Abnormal edges must already be modelled as such
   a leave and re-entry pair, as the plugin does; pp_graph_finish must have run.

   Paths.  A path starts at ENTRY or at a "head" and ends at EXIT or on a "cut":
   - every DFS backedge t -> h (irreducible loops too), every caller-designated path
     end, every region cut and every real edge into a re-entry target is a cut: the
     running path ends at t, a new one starts at h.  In the DAG the cut becomes an
     end edge t -> EXIT (one per cut, so a path tells which cut ended it) and h gets
     one start edge ENTRY -> h (shared by every cut and re-entry into h);
   - a fake re-entry ENTRY -> h starts a path at h (so do function entries into such
     an h: a re-entry target only ever starts paths, hence every edge into it is a
     cut and the path register needs no code at the re-entry);
   - a fake leave b -> EXIT that is b's only successor (b ends in a call that does
     not return, or a computed or nonlocal goto) ends the path at b: its count goes
     just before b's last statement;
   - a fake leave from a block with other successors (a call that may not return) is
     not part of any path: a path that leaves through it is lost, never recorded.
   Paths are numbered 0 .. npaths-1 densely: number = sum of the Ball-Larus values of
   the DAG edges along the path (values computed exactly with GMP).  When a function
   has more than max_paths (at most 2^63) paths, pp_paths_plan cuts it into regions:
   in topological order, every edge into a node whose prefix path count exceeds a
   threshold becomes a cut (the threshold halves until the total fits).

   Runtime model (what the plugin emits).  One 64-bit unsigned path register r per
   activation, arithmetic modulo 2^64, no initialisation needed; a table of npaths
   counters.  Traversing original edge e executes action[e] as:
       first  count: PP_PATH_COUNT_REG    count[r + count_offset]++
                     PP_PATH_COUNT_CONST  count[count_offset]++
       then   reg:   PP_PATH_REG_ADD      r += reg_value
                     PP_PATH_REG_SET      r = reg_value
   on the edge itself, or, when at_source_end, just before the last statement of
   the edge's source block.  Guarantee: on every path, the first action that reads
   r comes after one that sets it, and exactly one count happens, with the path's
   number as index: at the path's end, or earlier once the rest of the path is
   forced (every block still to run has a single successor in the graph, so none
   can leave); no action of the path follows its count.  Backedges and cuts
   typically get "count[r + a]++; r = b".  Increments sit only on chords of a
   maximum spanning tree of the DAG (event counting); the initialisation is pushed
   down and merged into the first increments (r = c), the count pulled up and
   merged into the last ones (count[r + c]++).  Fake edges never get an action
   other than an at_source_end count.  */

#ifndef PATHPROF_CORE_PATHS_H
#define PATHPROF_CORE_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of paths of one function (or region set): numbers fit in 63 bits.  */
#define PP_PATHS_MAX ((uint64_t) 1 << 63)
/* "No edge" / "no node".  */
#define PP_PATH_NONE UINT32_MAX

enum pp_paths_status
{
  PP_PATHS_OK = 0,
  PP_PATHS_ENOMEM = -1,
  PP_PATHS_EGRAPH = -2,		/* the graph breaks the conventions above */
  PP_PATHS_ERANGE = -3,		/* too many paths / number out of range */
  PP_PATHS_EINVAL = -4,		/* not a path of this function */
};

/* What each original edge is to the path numbering.  */
enum pp_path_role
{
  PP_PATH_ROLE_DAG = 0,		/* a DAG edge: paths run along it */
  PP_PATH_ROLE_BACK = 1,	/* DFS backedge: a cut */
  PP_PATH_ROLE_CUT = 2,		/* path end, region cut, or edge into a re-entry target */
  PP_PATH_ROLE_START = 3,	/* ENTRY -> re-entry target: starts a path there */
  PP_PATH_ROLE_LOST = 4,	/* fake leave of a block with other successors */
  PP_PATH_ROLE_CLOSING = 5,	/* EXIT -> ENTRY */
  PP_PATH_ROLE_DEAD = 6,	/* on no path (unreachable, or EXIT unreachable from it) */
};

enum pp_path_count_op
{
  PP_PATH_COUNT_NONE = 0,
  PP_PATH_COUNT_REG = 1,	/* count[r + count_offset]++ */
  PP_PATH_COUNT_CONST = 2,	/* count[count_offset]++ */
};

enum pp_path_reg_op
{
  PP_PATH_REG_NONE = 0,
  PP_PATH_REG_ADD = 1,		/* r += reg_value */
  PP_PATH_REG_SET = 2,		/* r = reg_value */
};

/* The probe of one original edge: count first, then the register update.  */
typedef struct pp_path_action
{
  uint8_t count;		/* enum pp_path_count_op */
  uint8_t reg;			/* enum pp_path_reg_op */
  bool at_source_end;		/* before the source block's last statement */
  uint64_t count_offset;	/* modulo 2^64 */
  uint64_t reg_value;		/* modulo 2^64 */
  /* With preferential numbers (pp_paths.ppp), the same for the second register
     q: a count also gets slot q + count_offset2 (a constant count: the slot
     count_offset2), an update sets or adds reg_value2.  0 otherwise.  */
  uint64_t count_offset2;
  uint64_t reg_value2;
} pp_path_action;

/* Kinds of DAG edges.  */
enum pp_dag_edge_kind
{
  PP_DAG_EDGE = 0,		/* an original edge (role PP_PATH_ROLE_DAG) */
  PP_DAG_END = 1,		/* t -> EXIT for the cut (backedge) t -> h */
  PP_DAG_START = 2,		/* ENTRY -> h for the head h */
};

typedef struct pp_paths
{
  /* Per original edge.  */
  uint32_t nedges;
  uint8_t *role;		/* enum pp_path_role */
  /* The cuts to record in the notes and pass back to pp_paths_number: the
     caller's effective path ends (those not from ENTRY, not into EXIT, not into
     a re-entry target) and the region cuts.  */
  bool *path_end;
  uint32_t nregion_cuts;
  pp_path_action *action;	/* pp_paths_plan only, else NULL */

  uint64_t npaths;		/* path numbers are 0 .. npaths-1 */
  char *npaths_uncut;		/* decimal: the number of paths before region
				   cuts (NULL where a supergraph's numbering
				   left it uncounted: paths-internal.h) */
  uint32_t max_path_edges;	/* room pp_paths_decode needs in pp_path.edges */

  /* The DAG (read-only): nodes are the original ones; only edges on some
     ENTRY -> EXIT path.  Each node's successors are in increasing value order.  */
  pp_graph dag;
  uint8_t *dag_kind;		/* enum pp_dag_edge_kind */
  uint32_t *dag_origin;		/* EDGE, END: the original edge; START: the head */
  uint64_t *dag_val;		/* Ball-Larus value */
  uint32_t *dag_of_edge;	/* per original edge: its DAG edge (DAG: itself, BACK and
				   CUT: their end edge, START: the head's start), or
				   PP_PATH_NONE */
  uint32_t *start_of_node;	/* per node: its start edge, or PP_PATH_NONE */
  /* pp_paths_plan only, else NULL: the spanning tree and the event-counting
     increments (0 on tree edges; sum along a path = its number).  */
  bool *dag_on_tree;
  uint64_t *dag_inc;
  /* pp_paths_plan with interesting paths only, else NULL: their preferential
     numbering (ppp.h) and its increments on the same chords; pp_paths_free
     frees ppp with free_ppp, which the planner sets (the numbering itself
     knows nothing of ppp.c, which builds on it).  */
  struct pp_ppp *ppp;
  void (*free_ppp) (struct pp_ppp *ppp);
  uint64_t *dag_inc2;
} pp_paths;

typedef struct pp_paths_options
{
  const double *weights;	/* per original edge, like edge counts (e.g. from
				   pp_weights_heuristic); NULL: all equal */
  const bool *path_end;		/* per original edge, or NULL: cuts wanted by the caller */
  uint64_t max_paths;		/* 0: PP_PATHS_MAX; larger values mean PP_PATHS_MAX */
  /* Preferential path profiling (ppp.h): the Ball-Larus numbers of the
     interesting paths, in the numbering the other options give (path_end must
     hold any region cuts already, so that no new cut renumbers them).  With
     ninteresting > 0, pp_paths_plan also numbers them and places the second
     register's updates on the same edges as the first's.  */
  const uint64_t *interesting;
  uint32_t ninteresting;
} pp_paths_options;

/* A decoded path.  */
typedef struct pp_path
{
  /* g->entry when the path begins at the function entry (edges[0] leaves
     ENTRY); otherwise the head where it begins, after a cut into it, or a
     re-entry (or the function entry, when the head is a re-entry target).  */
  uint32_t start_node;
  /* PP_PATH_NONE when the path ends at EXIT (edges[nedges-1] enters it);
     otherwise the cut (backedge) it ends on, which is not in edges[].  */
  uint32_t end_edge;
  uint32_t nedges;
  uint32_t *edges;		/* original edges in order; caller-allocated */
} pp_path;

/* For the plugin: DAG, numbering (with region cuts as needed) and placement.
   Returns PP_PATHS_OK with *out set, or a negative status (ERANGE: even cutting
   every edge leaves more than max_paths paths).  */
int pp_paths_plan (const pp_graph *g, const pp_paths_options *opt, pp_paths **out);

/* For the tool: the same DAG and numbering from the graph and the recorded
   path_end (NULL: none), no further cuts, no placement.  ERANGE when that gives
   more than PP_PATHS_MAX paths.  */
int pp_paths_number (const pp_graph *g, const bool *path_end, pp_paths **out);

void pp_paths_free (pp_paths *p);

/* Path number -> path in O(length x log(out-degree)).  path->edges must have room
   for p->max_path_edges.  ERANGE when number >= npaths.  */
int pp_paths_decode (const pp_paths *p, uint64_t number, pp_path *path);

/* One step of decoding: the DAG edge from v that a path with *number left to
   decode takes (v != EXIT, *number below the paths from v), *number reduced by
   its value.  */
uint32_t pp_paths_dag_step (const pp_paths *p, uint32_t v, uint64_t *number);

/* Path -> number in O(length).  EINVAL when it is not a path of p.  */
int pp_paths_encode (const pp_paths *p, const pp_path *path, uint64_t *number);

/* A message for a pp_paths_status.  */
const char *pp_paths_strerror (int status);

#ifdef __cplusplus
}
#endif

#endif
