/* libprof, the interprocedural modes' program (ip-program.c): the units'
   program, its layout and its numbering, made once at the first ENTER of
   the process, which the runtimes of the modes read: ctx-runtime.c
   (context and piecewise paths) and kseg-runtime.c (segments).  */

#ifndef PATHPROF_IP_PROGRAM_H
#define PATHPROF_IP_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "interproc.h"
#include "ip-notes.h"
#include "notes.h"
#include "pathprof-abi.h"

/* A row's ab word for a value that does not fit 64 bits.  */
#define PP_IP_WIDE UINT64_MAX

struct pp_ip_kind_ops;		/* ip-program.c: what runtime.c's hooks do */

/* Context and piecewise paths: what an activation of a procedure reads,
   made with the program (ip-program.c make_value_tables).  */
struct pp_ip_row
{
  /* What its G*_fin edge k adds to the sums A and B, at ab[2 k] and
     ab[2 k + 1]: its piece value and 0 where the procedure's pieces are
     numbered (a segment's A is then a piece number, B 0), else its rho =
     <a, b>, or PP_IP_WIDE at ab[2 k] when a or b does not fit 64 bits.  */
  const uint64_t *ab;
  /* What the code does in place (pathprof-abi.h, __pathprof_ip_step with
     one register, A, and "Context and piecewise paths"), two words per
     edge of its graph (notes index): a, 0; at a backedge a_out | TOP,
     a_in; or UINT64_MAX first where EDGE must take the edge.  */
  const uint64_t *values;
  /* Two words per call (notes index), the frames' calls
     (__pathprof_ip_return_step; ip-program.c make_calls).  */
  const uint64_t *calls;
  const uint32_t *fin;		/* the procedure's fin_of_edge */
  const uint32_t *cont;		/* per call: its site where the callee
				   continues the path (a non-recursive
				   site), else UINT32_MAX */
  const uint32_t *call_edge;	/* per call: the G*_fin edge its return
				   takes where cont has no site (the leaf
				   edge c -> r, a recursive or cut site's
				   summary edge; UINT32_MAX: none) */
  const uint64_t *ret_start;	/* per call: where the sums start at its
				   return vertex (pp_ip_piece_start) */
  uint64_t restart;		/* the sums' start after a backedge or a
				   landing: ENTRY's piece start (GENTRY's
				   when piecewise) */
  uint64_t gentry_key;		/* piecewise: GENTRY's start + 1 where it is a
				   root, else 0 (ctx-runtime.c sync_place) */
  bool keyed;			/* a backedge's row counts in place */
};

/* The program (under ip-program.c's lock until ready; read-only after).  */
struct pp_ip_prog
{
  bool tried, ready;
  uint32_t nunits;
  struct __pathprof_unit **units;	/* sorted by (name, checksum) */
  pp_unit_notes *notes;		/* decoded when first needed: NULL for
				   context and piecewise paths whose
				   program came from the cache, and for
				   segments until a root libprof numbers
				   needs them (then outlined) */
  pp_ip_layout layout;		/* segments: made when first needed, each
				   graph when a root's supergraph holds it */
  pp_function_notes **whole;	/* segments, per procedure: its notes
				   whole, once its graph is made */
  uint32_t nprocs;
  const uint32_t *first_proc;	/* per unit: the procedure of its function 0 */
  bool *ok;			/* segments, per procedure: a compiled root
				   whose assumed callees are none of the
				   units' (pathprof-abi.h ip_ok) */
  pp_ip_numbering nb;		/* context and piecewise paths */
  uint32_t kind;		/* enum pp_ip_kind */
  const struct pp_ip_kind_ops *kind_of;	/* its behaviour */
  uint32_t depth;		/* segments: k */
  bool piecewise;
  /* Per procedure: its pieces (corelib/ip-pieces.c; npieces 0: it has
     more than 2^62, and its sums are the paper's values).  */
  pp_ip_pieces *pieces;
  /* Per procedure: what its activations read (context and piecewise
     paths).  */
  struct pp_ip_row *rows;
  uint32_t *root_of;		/* per procedure: its ENTRY root, or UINT32_MAX */
  uint32_t *gentry_root_of;	/* piecewise: its GENTRY root, or UINT32_MAX */
  uint32_t words;		/* 64-bit words of a path number */
  unsigned char *manifest;
  uint32_t manifest_len;
  uint64_t checksum;
  char name[64];
};
extern struct pp_ip_prog ip_prog;

/* Numbers the program and sets it up, once, whichever thread comes first;
   whether it is counted.  */
bool pp_ip_number_once (void);

/* Where procedure p's sums start when a segment starts at its vertex v (a
   return vertex, ENTRY or GENTRY): v's piece start, or 0 where p's pieces
   are not numbered or v is UINT32_MAX.  */
static inline uint64_t
pp_ip_piece_start (uint32_t p, uint32_t v)
{
  const pp_ip_pieces *pc = &ip_prog.pieces[p];
  return pc->npieces && v != UINT32_MAX ? pc->start[v] : 0;
}

/* Whether the program is numbered (numbering it at the first call).  */
static inline bool
pp_ip_ready (void)
{
  return __atomic_load_n (&ip_prog.ready, __ATOMIC_ACQUIRE) || pp_ip_number_once ();
}

/* The procedure of function F of unit U, or UINT32_MAX (a unit outside the
   numbering: registered after it).  */
static inline uint32_t
pp_ip_proc_of (const struct __pathprof_unit *u, uint32_t f)
{
  uint64_t first = __atomic_load_n (&u->ip_first, __ATOMIC_RELAXED);
  return first ? (uint32_t) (first - 1) + f : UINT32_MAX;
}

/* A segments unit's first ENTER, before the program is set up
   (kseg-runtime.c): sets it up, then gives the procedure of function F of
   unit U, or UINT32_MAX when the program is not counted as segments.  */
uint32_t pp_ip_set_up (struct __pathprof_unit *u, uint32_t f);

#endif
