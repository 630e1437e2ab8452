/* The planners: each makes a function's plan (format/probes.h: the plan's
   shape, its probes' actions and sites, the runtime model) from its graph,
   the one of a mode its row names (format/modes.h, pp_plan_mode); and what
   the plugin and the tool compute around them (weights, the notes of a
   plan and back).  */

#ifndef PATHPROF_CORE_PLAN_H
#define PATHPROF_CORE_PLAN_H

#include "format/graph.h"
#include "format/notes.h"
#include "format/probes.h"
#include "coverage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a planner gets besides the graph.  */
typedef struct pp_plan_input
{
  const double *weights;	/* per edge, for spanning trees (pp_plan_weights) */
  uint64_t path_array_max;	/* paths: more paths than this go to a table */
  bool all_witnesses;		/* trace: a witness on every real edge (the
				   exhaustive tracer of the tests) */
  bool two_registers;		/* preferential: never pack (the tests' way to
				   the form of numbers too wide to pack) */
  /* Coverage modes: what a counter increment costs against a coverage
     store (1 where both are one instruction; 0: never count, as under
     atomic updates).  A function counts its edges instead of storing
     coverage bytes where that weighs less (pp_plan_coverage).  */
  double counter_cost;
  /* The function's blocks and their source lines, numbered as the graph's nodes
     (block-counts: the edges that line counts need stay exact); may be NULL.  */
  const pp_function_notes *notes;
  /* Preferential modes: the function as a previous paths profile saw it (NULL
     and 0 when it has none): its path ends (region cuts included), so that the
     numbering is that profile's, and the Ball-Larus numbers of the interesting
     paths.  */
  const bool *prior_path_end;
  const uint64_t *interesting;
  uint32_t ninteresting;
} pp_plan_input;

enum pp_plan_status
{
  PP_PLAN_OK = 0,
  PP_PLAN_ENOMEM = -1,
  PP_PLAN_EGRAPH = -2,		/* the graph breaks the planner's conventions */
};

void pp_plan_free (pp_plan *plan);

/* Per edge (NEDGES), the value index of the probe on it, or -1: the counter
   of each edge of a counter plan, for the propagations.  malloc'd; NULL when
   out of memory.  */
int32_t *pp_plan_counter_of_edge (const pp_plan *plan, uint32_t nedges);

/* The spanning-tree weighting: REQUESTED (enum pp_weighting) with GCC's static
   estimates GCC_WEIGHT (per edge; NULL when GCC has none, at -O0, where the
   structural heuristic stands in) and, for PP_WEIGHTS_PROFILE, the edge COUNTS
   of a previous run (NULL when it has none for the function: the static
   weighting stands in, GCC's or the heuristic).  Fills w[0..nedges-1] and
   returns the weighting used, or -1 on allocation failure.  */
int pp_plan_weights (const pp_graph *g, int requested, const double *gcc_weight,
		     const uint64_t *counts, double *w);

/* Segments in place (PP_PROBE_IP_ADD), per edge of function graph G:
   PP_SEG_ROLE_CUT on the backedges of a DFS from ENTRY (all edges walked),
   where a segment ends in every copy of the function in a supergraph
   (segments.h); PP_SEG_ROLE_TREE on the edges of a maximum spanning forest
   of the real edges under weights W (NULL: the Ball-Larus structural
   heuristic), which get no probe: libprof moves each copy's values onto the
   other edges (chord increments); else 0.  Never on the forest: cuts, edges
   into re-entry targets (every arrival there starts a segment), edges that
   are not real.  A function with more than PP_PLAN_IP_INLINE_EDGES edges
   has no forest (an EDGE call on every edge).  The plugin places its probes
   by these roles and records them in the notes (PP_EDGE_PATH_END,
   PP_EDGE_SEG_TREE), where libprof and the tool read them
   (ip-notes.h pp_ip_roles_of_notes).  Returns 0, or -1 when out of memory.  */
int pp_plan_ip_roles (const pp_graph *g, const double *w, uint8_t *role);

/* The coverage plan of MODE for a function (FN's blocks are G's nodes), the
   one the plugin makes and the tool recomputes: with FN, in the block modes,
   its targets are the blocks with source lines and those ENTRY enters by a
   real edge (whether the function was called), as block-cover wants;
   without, every block (block-cover-edge-probes).  Returns as
   pp_coverage_plan_targets.  */
int pp_plan_coverage_of (const pp_graph *g, const pp_function_notes *fn,
			 enum pp_coverage_mode mode, const double *weights,
			 pp_coverage_plan *plan);

/* Records the plan in a function's notes: nvalues, the value index of each site's
   MARK or COUNT probe (-1 elsewhere), and the edge flags (the plan's edge_flags,
   PP_EDGE_PATH_COUNT/_CONST and PP_EDGE_PATH_REG/_SET for path probes), and
   the preferential section, whose arrays the notes borrow from the plan.  The
   notes' blocks and edges must be those of the graph the plan was made on.  */
void pp_plan_to_notes (const pp_plan *plan, pp_function_notes *fn);

typedef struct pp_mode_info pp_mode_info;

/* Makes the plan of one function for MODE: the planner its row names.
   Returns PP_PLAN_OK with *out filled, PP_PLAN_ENOMEM, or PP_PLAN_EGRAPH
   with *why set to a static message; on failure *out is empty.  */
int pp_plan_mode (const pp_mode_info *mode, const pp_graph *g,
		  const pp_plan_input *in, pp_plan *out, const char **why);

/* The planners, one an enum pp_planner_id (modes.h), of pp_plan_mode's shape.  */
typedef int pp_planner (const pp_mode_info *mode, const pp_graph *g,
			const pp_plan_input *in, pp_plan *out, const char **why);
pp_planner pp_plan_edge_counts, pp_plan_block_counts, pp_plan_coverage,
  pp_plan_trace, pp_plan_interproc, pp_plan_paths;

/* The plan of a function of MODE back from its notes, as far as they record it:
   every probe's site, action and value index; path operands are not recorded (0:
   the tool rebuilds the numbering, which needs none of them).  Returns 0, or -1
   with a reason in err when a value index appears twice, not at all, or where
   the mode puts none (a corrupted profile), or on allocation failure.  */
int pp_plan_from_notes (const pp_function_notes *fn, const pp_mode_info *mode,
			pp_plan *plan, char *err, size_t errlen);

struct pp_seg_graph;
struct pp_seg_actions;
/* Compiled roots (the segments modes; libprof/kseg-runtime.c, "Compiled
   roots"): the plan of copy C of a root's supergraph S, numbered at compile
   time (its actions A, NPATHS segments), that counts the root's segments
   as the paths mode counts paths.  G is the copy's procedure graph (the
   layout's: its first edges the notes' edges, then its calls' leaf edges),
   SITE_OF_CALL and LEAF_EDGE its calls' program sites and leaf edges
   (NCALLS; ip-notes.h pp_ip_layout; LEAF_EDGE may be NULL where every call
   is a program call).  One register, packed with one bit (PACK_BITS 1: r
   holds twice the sum of the actions, so that the sum modulo 2^64 is twice
   S's number modulo 2^63), or (PACK_BITS 0, where pp_plan_exact_numbers
   holds and no copy keeps a record) the sum itself, each operand the
   signed representative of its residue modulo 2^63, which is its value
   over the integers there, so that a count indexes with the number
   itself: the root's copy (C 0) sets it on its entry edge
   to the start of ENTRY's segments and counts on its real edges into EXIT;
   another copy takes it from the thread's word (probes.h
   PP_PROBE_PATH_TAKE) on its entry edge and passes it back on its real
   edges into EXIT with its RETURN edge's add (and takes again on the ways
   out of its first block that lead to calls, where that block makes none,
   PP_TAKE_APART; the count or the pass on the ways into a block whose one
   way out returns: plan.c take_block, last_block, so that a quick return
   holds no register); every copy adds on its
   chords, counts and sets at its cuts, and passes the register with the
   CALL edge's add before each call S inlines and takes it back after.
   Before a call S does not inline (a SUMMARY edge or a leaf edge: a call
   through a pointer), PP_PROBE_PATH_LEAVE records what the segment would
   end with on the call vertex's leave (PP_LEAVE_NONE where it has none);
   after it a PP_LEAVE_NONE and the call edge's add.  Segment k counts in
   value k (npaths values), or, with more than ARRAY_MAX of them (or more
   than 32 bits count), in a path table (path_table, no values).  A cut (a backedge, or a
   region cut of a large S, which may be on any edge off the forest: a
   call's, a return's, an entry's) counts and sets where the edge is
   taken, the edges around it adding before and after.  Returns
   PP_PLAN_OK, PP_PLAN_ENOMEM, or PP_PLAN_EGRAPH where S needs what such a
   plan cannot do (a re-entry, an edge on no segment, a leave that is not
   one add, a record's leave with PACK_BITS 0); on failure *out is empty.  */
int pp_plan_compiled_copy (const pp_graph *g, const struct pp_seg_graph *s, uint32_t c,
			   const struct pp_seg_actions *a, uint64_t npaths,
			   const uint32_t *site_of_call, const uint32_t *leaf_edge,
			   uint32_t ncalls, uint64_t array_max, unsigned pack_bits,
			   pp_plan *out);
/* The register operand of value X (modulo 2^63) in a compiled plan of
   PLAN's pack_bits (above).  */
uint64_t pp_plan_reg_operand (const pp_plan *plan, uint64_t x);
/* Whether every value of S's actions and every sum of a few of them is,
   over the integers, below 2^62 in magnitude where S has NPATHS segments
   (a Ball-Larus value is at most NPATHS, a potential at most the nodes
   times that): then PACK_BITS 0 numbers exactly.  */
bool pp_plan_exact_numbers (const struct pp_seg_graph *s, uint64_t npaths);
/* Does PLAN (pp_plan_compiled_copy's) keep a record: a call S does not
   inline?  */
bool pp_plan_keeps_record (const pp_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
