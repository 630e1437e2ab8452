/* Interprocedural path numbering (Melski and Reps 1998): context paths
   (sections 3-5) and piecewise paths (section 6).

   The supergraph.  A program is its procedures' graphs (pp_graph: ENTRY, EXIT,
   intraprocedural edges; an EXIT -> ENTRY closing edge is ignored) and its call
   sites: a call vertex c of procedure P calling Q, whose return vertex r in P
   is entered from Q's EXIT.  A call vertex has no intraprocedural successor and
   its return vertex no intraprocedural predecessor: control goes c -> ENTRY_Q
   ... EXIT_Q -> r.  ENTRY has no predecessor, EXIT no successor.

   G*_fin (section 3.2).  Each procedure gets a vertex GEXIT (index nnodes of
   its graph); a depth-first search from ENTRY (c -> r counting as an edge)
   finds the intraprocedural backedges, each w -> v replaced by a surrogate
   ENTRY -> v and an edge w -> GEXIT.
   Unlike the paper, which has one surrogate per target and per source,
   every cut edge gets its own pair (as paths.h's end and start edges), so
   that a profile tells each backedge's count.
   The plugin's fake edges (PP_EDGE_FAKE, DESIGN.md "CFG normalisation") are
   replaced the same way, as section 9.2 does for exceptions: a leave u ->
   EXIT (a call that may not return; u may be a call vertex, whose call then
   comes before the surrogate in value order) by u -> GEXIT, a re-entry
   ENTRY -> v (where a longjmp lands) by the surrogate ENTRY -> v: a path
   ends where the process or a longjmp left, and one starts where it landed,
   in the context of the activation it landed in.  A
   depth-first search of the call graph from the roots finds the recursive call
   sites; such a site gets a summary edge c -> r instead of its call and
   return, and its callee becomes a root.  The roots: main, every procedure
   that may be entered from code that is not instrumented (a callback: its own
   context), and the callees of recursive sites; ENTRY_global has an edge to
   each root's ENTRY, in that order.

   Numbering (sections 4, 5.1-5.3).  An unbalanced-left path from ENTRY_global
   to EXIT_global (it may leave calls open: it ends at some GEXIT, or at the
   EXIT of its first procedure) gets a number in [0, npaths): the sum of the
   values its edges take in the context of the path before them
   (edgeValueInContext).  psi_v = <a, b> is the linear function x -> a x + b
   from the number of valid completions at EXIT of v's procedure to the number
   at v: EXIT <1, 0>, GEXIT <0, 1>, a call vertex psi_ENTRY_Q o psi_r, any
   other vertex the sum over its successors.  An edge v -> w_i, the i-th
   successor of v, has rho = sum of psi_w_j for j < i; a root's edge from
   ENTRY_global has the sum of psi_ENTRY(1) of the roots before it.  All in
   GMP: the counts of real programs overflow 64 bits.

   Computing a number (section 5.4; pp_ip_cursor): start at a root with its
   value and x = 1 valid completions at its EXIT; a call through site s
   pushes x and sets x = psi_r(x), a return pops it, an intraprocedural edge
   adds rho_e(x).  pp_ip_decode inverts it (section 5.6).

   Piecewise paths (section 6): each procedure also gets GENTRY (index nnodes
   - 1; GEXIT is nnodes - 2), from which the surrogates start instead of
   ENTRY, and ENTRY_global an edge to every GENTRY after the roots' ENTRY
   edges: a path may start in the middle of a procedure and return past it
   (unbalanced-right-left paths).  unbal[P], the number of such paths from
   EXIT_P when no call is open, sums over EXIT_P's successors: the return
   vertex of each non-recursive site calling P (psi_r(unbal[Q]), Q its
   procedure) and EXIT_global (1) for a root; exit_value[i] is the sum over
   the successors before the i-th.  A path started at GENTRY_P has x =
   unbal[P] and no open call; a return with none open adds the exit edge's
   value and sets x = unbal of the procedure returned to (Algorithm 6.1, whose
   psi_r there would count the completions at r, not at EXIT).  */

#ifndef PATHPROF_CORE_INTERPROC_H
#define PATHPROF_CORE_INTERPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gmp.h>

#include "format/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_ip_call
{
  uint32_t proc, call, ret;	/* in proc's graph */
  uint32_t callee;
} pp_ip_call;

typedef struct pp_ip_program
{
  uint32_t nprocs;
  const pp_graph *procs;	/* nprocs graphs */
  const bool *external;		/* per procedure: may be entered from
				   uninstrumented code (NULL: none) */
  uint32_t main;		/* the first root */
  uint32_t ncalls;
  const pp_ip_call *calls;
  uint32_t max_bits;		/* 0: PP_IP_MAX_BITS */
  /* NULL, or per procedure (nprocs + 1): the calls are grouped by
     procedure, procedure p's calls[call_start[p] .. call_start[p + 1]), so
     that segments.h need not sort them for every root.  */
  const uint32_t *call_start;
  /* NULL, or per procedure its graph edges' roles for segments in place
     (enum pp_seg_role, plan.h pp_plan_ip_roles; a procedure's leaf edges
     c -> r have role 0): segments.h cuts its supergraphs there.  */
  const uint8_t *const *edge_role;
  /* The reference search for the cuts below, one cut, build and solve at a
     time (test-interproc checks the numbering's own against it).  */
  bool cut_one_by_one;
} pp_ip_program;

enum pp_seg_role
{
  PP_SEG_ROLE_CUT = 1,		/* a segment ends there in every copy */
  PP_SEG_ROLE_TREE = 2,		/* no probe: its value moves to the chords */
};

/* Where the numbering cuts: a procedure with more paths from its ENTRY than
   fit max_bits bits gets, one at a time, its call of the most paths made a
   summary edge (the callee a root of its own, as for a recursive call),
   until it fits or has no call left (interproc.c find_cuts finds the same
   cuts in a few solves).  Real programs need it: SQLite's
   context paths need 3,916,016 bits uncut.  */
#define PP_IP_MAX_BITS 1024u

/* x -> a x + b.  */
typedef struct pp_ip_lin
{
  mpz_t a, b;
} pp_ip_lin;

enum pp_ip_edge_kind
{
  PP_IP_EDGE = 0,		/* an edge of the procedure's graph (arg: its index) */
  PP_IP_SURROGATE_ENTRY = 1,	/* ENTRY -> v for cut edge w -> v (arg: it) */
  PP_IP_SURROGATE_GEXIT = 2,	/* w -> GEXIT for cut edge w -> v (arg: it) */
  PP_IP_SUMMARY = 3,		/* c -> r of a recursive call site (arg: site) */
};

/* An edge of G*_fin inside one procedure.  */
typedef struct pp_ip_edge
{
  uint32_t src, dst;
  uint8_t kind;			/* enum pp_ip_edge_kind */
  uint32_t arg;
  pp_ip_lin rho;
} pp_ip_edge;

typedef struct pp_ip_proc
{
  uint32_t nnodes;		/* the graph's, plus GEXIT (and GENTRY) */
  uint32_t entry, exit, gexit;
  uint32_t gentry;		/* piecewise: the surrogates' source; else
				   UINT32_MAX */
  pp_ip_lin *psi;		/* per vertex */
  /* The edges of G*_fin in the procedure, each vertex's out-edges together
     in successor order: out[out_start[v] .. out_start[v + 1]).  */
  uint32_t nedges;
  pp_ip_edge *edges;
  uint32_t *out_start;
  uint32_t *call_at;		/* per vertex: the non-recursive call site whose
				   call vertex it is, or UINT32_MAX */
  int32_t *back_of_edge;	/* per edge of the graph: 1 for a backedge, 2
				   for a fake edge (both: replaced by their
				   surrogates) */
  /* What the instrumentation adds on an edge of the graph: the G*_fin edge
     it is (UINT32_MAX for a backedge, a fake edge, EXIT -> ENTRY); at a
     backedge e, the path ends on e's surrogate to GEXIT (exit_of_edge) and
     the next starts on e's surrogate from ENTRY (entry_of_edge); per vertex,
     the surrogate of its fake leave and of the fake re-entry into it
     (UINT32_MAX: none).  */
  uint32_t *fin_of_edge, *exit_of_edge, *entry_of_edge, *leave_of, *reentry_of;
  /* Piecewise: unbalanced-right-left paths from EXIT with no call open, and
     EXIT's successors in order: the sites calling the procedure
     (non-recursive), then UINT32_MAX for EXIT_global if it is a root.  */
  mpz_t unbal;
  uint32_t nexits;
  uint32_t *exit_site;
  mpz_t *exit_value;
} pp_ip_proc;

typedef struct pp_ip_numbering
{
  uint32_t nprocs;
  pp_ip_proc *procs;
  uint32_t ncalls;
  pp_ip_call *calls;		/* the program's, copied */
  uint32_t *exit_of_site;	/* piecewise: per non-recursive site, its index
				   among its callee's EXIT successors */
  bool *recursive;		/* per call site: recursive, or cut (too many
				   paths): a summary edge, the callee a root */
  bool piecewise;
  uint32_t nroots;
  uint32_t *roots;		/* procedures, in ENTRY_global's edge order */
  bool *root_gentry;		/* piecewise: the edge goes to GENTRY */
  mpz_t *root_value;		/* per root: its edge's value */
  mpz_t npaths;			/* numValidComps of the empty path */
} pp_ip_numbering;

enum
{
  PP_IP_OK = 0,
  PP_IP_ENOMEM = -1,
  PP_IP_EGRAPH = -2,		/* a call or return vertex with other edges, a
				   call site out of range, an edge into ENTRY */
};

int pp_ip_number (const pp_ip_program *prog, bool piecewise, pp_ip_numbering *out);
void pp_ip_numbering_free (pp_ip_numbering *n);

/* The numbering NB of PROG as one block of words (interproc-pack.c has the
   format), *WORDS from pp_malloc, for a cache of numberings.  Returns
   PP_IP_OK or PP_IP_ENOMEM.  */
int pp_ip_pack (const pp_ip_program *prog, const pp_ip_numbering *nb,
		uint64_t **words, size_t *nwords);
/* The numbering a block of pp_ip_pack holds, for PROG (checked: a block
   of another program, or damaged, gives PP_IP_EGRAPH): its arrays and
   numbers stay in WORDS, which must outlive it, and never change.  Free it
   with pp_ip_adopted_free, never pp_ip_numbering_free.  */
int pp_ip_adopt (const pp_ip_program *prog, bool piecewise, uint64_t *words,
		 size_t nwords, pp_ip_numbering *nb);
void pp_ip_adopted_free (pp_ip_numbering *nb);

/* The running computation of a path number (Algorithm 5.1).  */
typedef struct pp_ip_cursor
{
  mpz_t num, x;			/* the number so far; completions at EXIT */
  mpz_t *stack;			/* the callers' x */
  uint32_t depth, cap;
  bool rooted;			/* the path began at a root's ENTRY, whose
				   parenthesis is open below the calls' */
} pp_ip_cursor;

int pp_ip_cursor_init (pp_ip_cursor *c);
void pp_ip_cursor_free (pp_ip_cursor *c);
/* The path starts at root i (an index into n->roots).  */
void pp_ip_start (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t root);
/* Edge k of procedure p's G*_fin edges.  */
void pp_ip_step (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t p, uint32_t k);
/* A call through the non-recursive site s (-1 when out of memory); a return
   to site s.  */
int pp_ip_call_site (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t s);
void pp_ip_return (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t s);
/* Piecewise: the path leaves procedure p's EXIT for EXIT_global with no call
   open.  */
void pp_ip_exit_global (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t p);

/* What pp_ip_decode reports, in path order.  */
enum pp_ip_step_kind
{
  PP_IP_STEP_ROOT = 0,		/* a: the root's procedure, b: 1 for GENTRY */
  PP_IP_STEP_EDGE = 1,		/* a: procedure, b: edge of its G*_fin */
  PP_IP_STEP_CALL = 2,		/* a: call site */
  PP_IP_STEP_RETURN = 3,	/* a: the site returned to */
  PP_IP_STEP_END = 4,		/* at a GEXIT, or EXIT_global from EXIT */
};

typedef void pp_ip_step_fn (void *ctx, int kind, uint32_t a, uint32_t b);

/* The path of number NUM, step by step (Algorithm 5.2).  Returns 0, -1 when
   out of memory, or -2 when NUM >= npaths.  */
int pp_ip_decode (const pp_ip_numbering *n, const mpz_t num, pp_ip_step_fn *fn,
		  void *ctx);

/* Pieces (ip-pieces.c has the design): procedure p's G*_fin edges between
   two of the points where libprof's nodes begin (ENTRY, GENTRY, a return
   vertex) and end (a call vertex, EXIT, GEXIT), numbered per procedure,
   Ball-Larus fashion, so that the sums libprof adds in place fit 62 bits
   where the paper's values do not.  */
typedef struct pp_ip_pieces
{
  uint64_t npieces;		/* 0: 2^62 or more, not numbered */
  uint64_t *val;		/* per G*_fin edge: its value */
  uint64_t *count;		/* per vertex: the pieces from it (at most 2^62) */
  uint64_t *start;		/* per vertex: the value of SRC -> it, or
				   UINT64_MAX (no piece starts there) */
  uint32_t nstarts;
  uint32_t *starts;		/* the vertices pieces start at, in SRC's
				   order (their start values increase) */
} pp_ip_pieces;

int pp_ip_pieces_number (const pp_ip_numbering *n, uint32_t p, pp_ip_pieces *out);
void pp_ip_pieces_free (pp_ip_pieces *pc);
typedef void pp_ip_piece_fn (void *ctx, uint32_t k);
/* The G*_fin edges of piece PIECE of procedure p, in order, to FN.  Returns
   0, or -1 when PIECE is no piece.  */
int pp_ip_piece_decode (const pp_ip_numbering *n, uint32_t p, const pp_ip_pieces *pc,
			uint64_t piece, pp_ip_piece_fn *fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
