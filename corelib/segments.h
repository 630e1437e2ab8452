/* Interprocedural path segments of depth k (Vaswani's thesis, section 3.4):
   the k-inlined supergraph of a root procedure, numbered as one procedure.

   A segment is a Ball-Larus path (paths.h) of its root's supergraph S: the
   root's graph with each of its program calls (interproc.h's call sites)
   replaced by a copy of the callee's graph, entered by a CALL edge from the
   call vertex and left by a RETURN edge into the return vertex, and so on in
   the copies down to depth k; a call deeper than that is a SUMMARY edge
   c -> r, and its callee runs as a root of its own supergraph.  So a segment
   starts at the root's ENTRY or at a loop head anywhere in S (in a copy too:
   the loop of a callee inlined at depth d sees k - d calls deeper), follows
   calls and returns up to depth k, and ends at a backedge of any copy or at
   the root's EXIT: the segments of a run partition its execution, as
   intraprocedural paths partition a function's.  With k = 0 they are the
   root's own paths, calls as edges.

   Recursion needs nothing special: the copies are bounded by k.  Fake edges
   keep their meaning (paths.h): a leave u -> EXIT in a copy (the process or
   a longjmp left) goes to S's EXIT, a re-entry ENTRY -> v in a copy (a
   longjmp lands there) comes from S's ENTRY; the copies' EXIT -> ENTRY edges
   are dropped, the root's kept.  A leave whose source has another way out
   (a call vertex: the call under way did not return, the process or a
   longjmp left inside it) goes through a node of its own, u -> L -> EXIT,
   so that it is L's only way out: paths.h numbers such a leave, where the
   call's edge beside it would make the leave u -> EXIT lost.  The extra
   nodes come after the copies'.

   The same construction, node for node and edge for edge, serves the runtime
   (which adds each copy's edge values to the root activation's path number)
   and the tool (which decodes): pp_seg_build is deterministic.  */

#ifndef PATHPROF_CORE_SEGMENTS_H
#define PATHPROF_CORE_SEGMENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/graph.h"
#include "interproc.h"
#include "paths.h"

#ifdef __cplusplus
extern "C" {
#endif

/* No more copies than this, nor more nodes in S than PP_SEG_MAX_NODES: the
   sites that would exceed them stay SUMMARY edges (callers first, in
   breadth-first order, so the cut is the same everywhere).  */
#define PP_SEG_MAX_COPIES (1u << 16)
#define PP_SEG_MAX_NODES (1u << 22)

enum pp_seg_edge_kind
{
  PP_SEG_EDGE = 0,		/* an edge of a copy's graph (arg: its index) */
  PP_SEG_CALL = 1,		/* call vertex -> the callee copy's ENTRY (arg: site) */
  PP_SEG_RETURN = 2,		/* the callee copy's EXIT -> return vertex (arg: site) */
  PP_SEG_SUMMARY = 3,		/* call vertex -> return vertex, not inlined (arg: site) */
  PP_SEG_LEAVE = 4,		/* L -> S's EXIT after a leave u -> L,
				   which is the PP_SEG_EDGE of the leave (arg: the
				   leave's graph edge) */
};

typedef struct pp_seg_copy
{
  uint32_t proc;
  uint32_t parent;		/* the copy it is inlined into; UINT32_MAX for the root */
  uint32_t site;		/* the program's call site it is inlined at */
  uint32_t depth;		/* 0 for the root */
  uint32_t first_node;		/* vertex v of proc's graph is S node first_node + v */
  uint32_t first_slot;		/* its rows in edge_of and call_of (below) */
} pp_seg_copy;

typedef struct pp_seg_graph
{
  pp_graph g;			/* S; its ENTRY and EXIT are the root copy's */
  uint32_t depth;		/* k */
  uint32_t ncopies;
  pp_seg_copy *copies;		/* breadth-first: the root is copy 0 */
  /* Per S edge.  */
  uint8_t *kind;		/* enum pp_seg_edge_kind */
  uint32_t *copy_of;		/* the copy it belongs to (CALL, SUMMARY: the
				   caller's; RETURN: the caller's too) */
  uint32_t *arg;
  /* Per copy, per edge of its procedure's graph (from first_slot): its S
     edge, or UINT32_MAX (a copy's EXIT -> ENTRY edge).  */
  uint32_t *edge_of;
  /* Per procedure: its call sites in program order (into prog->calls):
     the j-th of procedure p is pp_seg_site (s, site_start[p] + j).  */
  uint32_t *site_start, *sites;	/* sites NULL: the identity (grouped calls) */
  /* Per copy, per call site of its procedure (from first_call): the copy
     inlined there, or UINT32_MAX (a SUMMARY edge); and the S edges of the
     call (CALL or SUMMARY) and of the return (RETURN, or UINT32_MAX).  */
  uint32_t *first_call;		/* per copy */
  uint32_t *child, *call_edge, *return_edge;
  /* Per S edge, its role (enum pp_seg_role) where the program gives them
     (pp_ip_program.edge_role), else NULL: S is then cut at the backedges
     of a DFS of S, anywhere.  */
  uint8_t *role;
} pp_seg_graph;

enum
{
  PP_SEG_OK = 0,
  PP_SEG_ENOMEM = -1,
  PP_SEG_EGRAPH = -2,		/* a call site or root out of range */
};

/* Builds the depth-K supergraph of procedure ROOT of PROG (pp_graph_finish
   done).  Returns PP_SEG_OK with *out filled, or a negative status.  */
int pp_seg_build (const pp_ip_program *prog, uint32_t root, uint32_t k,
		  pp_seg_graph *out);
void pp_seg_free (pp_seg_graph *s);

/* Numbers S's paths (paths.h) as libprof and the tool both do: region cuts
   where S has more than PP_PATHS_MAX paths, no probes placed.  With roles,
   the cuts are the copies' PP_SEG_ROLE_CUT edges (they break every cycle of
   S: a cycle through a callee's copy is one through the call's block in the
   caller, whose own cuts break it) and no region cut is on a
   PP_SEG_ROLE_TREE edge, which has no probe, nor on a leave's edge u -> L
   (a compiled root's record ends the segment there with one number).
   Returns a pp_paths_status.  */
int pp_seg_number (const pp_seg_graph *s, pp_paths **out);
/* The same with region cuts where S has more than MAX_PATHS segments
   (PP_PATHS_MAX in pp_seg_number; the tests' way to region cuts in small
   supergraphs).  */
int pp_seg_number_max (const pp_seg_graph *s, uint64_t max_paths, pp_paths **out);
/* Both, as libprof, the tool and learning use them: S in *S and its
   numbering in *OUT, or a PP_SEG status (PP_SEG_EGRAPH when the numbering
   refuses S) with both freed.  */
int pp_seg_build_numbered (const pp_ip_program *prog, uint32_t root, uint32_t k,
			   pp_seg_graph *s, pp_paths **out);

/* A checksum of S as a numbering sees it: its depth, nodes and edges (with
   what each is), and the CFG checksum of each copy's procedure
   (CFG_CHECKSUM, per procedure: pp_notes_cfg_checksum), so that numbers
   learnt on one build mean the same paths in another exactly when the two
   are equal.  */
uint64_t pp_seg_checksum (const pp_seg_graph *s, const uint64_t *cfg_checksum);

/* Actions (seg-actions.c): what each S edge does to a root activation's
   register r, the sum of S's values along the segment so far, modulo 2^63,
   and, in the preferential modes, to q, the sum of its pp_ppp weights: the
   numbering's values moved onto the chords (the edges that are not
   PP_SEG_ROLE_TREE; all of them when S has no roles), so that an edge of
   the plugin's spanning forest does nothing.  A segment that starts at node
   v starts with r = start_r[v], q = start_q[v] (PP_SEG_NOSTART: none starts
   there); an ADD adds val to r and val2[e] to q; a CUT ends the segment
   under way with number (r + val) mod 2^63, whose interesting slot (ppp) is
   q + val2[e], and a segment starts at `to`; a SET (ENTRY into a re-entry
   target) starts one at `to`; a LOST edge is on no numbered path; at S's
   EXIT the segment's number is r.  start_first[v] is the number of the first
   segment from v (Ball-Larus numbers a start's segments consecutively).
   libprof applies them at run time; they are the same for anyone who
   numbers the same S.  */
enum pp_seg_op_kind
{
  PP_SEG_OP_NONE,		/* no action (fake edges, EXIT -> ENTRY) */
  PP_SEG_OP_ADD,
  PP_SEG_OP_CUT,
  PP_SEG_OP_SET,
  PP_SEG_OP_LOST,
};

typedef struct pp_seg_op
{
  uint64_t val;			/* ADD, CUT: for r */
  uint32_t to;			/* CUT, SET: the S node the next segment starts at */
  uint8_t kind;			/* enum pp_seg_op_kind */
} pp_seg_op;

#define PP_SEG_NOSTART UINT64_MAX
#define PP_SEG_LOW ((UINT64_C (1) << 63) - 1)	/* r is modulo 2^63 */

typedef struct pp_seg_actions
{
  pp_seg_op *op;		/* per S edge */
  uint64_t *val2;		/* per S edge: its add to q (0 without PPP) */
  uint64_t *start_r, *start_q, *start_first;	/* per S node */
} pp_seg_actions;

struct pp_ppp;
/* S's actions from its numbering P and, in the preferential modes, PPP's
   weights (pp_ppp_number of P; NULL: q stays 0).  Returns 0, or -1 when
   out of memory (*A then empty).  */
int pp_seg_actions_make (const pp_seg_graph *s, const pp_paths *p,
			 const struct pp_ppp *ppp, pp_seg_actions *a);
void pp_seg_actions_free (pp_seg_actions *a);

/* The S edge of edge E of copy C's procedure graph (UINT32_MAX: none).  */
static inline uint32_t pp_seg_edge (const pp_seg_graph *s, uint32_t c, uint32_t e)
{ return s->edge_of[s->copies[c].first_slot + e]; }

static inline uint32_t pp_seg_site (const pp_seg_graph *s, uint32_t i)
{ return s->sites ? s->sites[i] : i; }

/* The index of SITE among copy C's procedure's call sites, or UINT32_MAX.  */
uint32_t pp_seg_site_index (const pp_seg_graph *s, uint32_t c, uint32_t site);

#ifdef __cplusplus
}
#endif

#endif
