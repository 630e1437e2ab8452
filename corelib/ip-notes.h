/* The program of the interprocedural modes, from its units' notes: the
   supergraph interproc.h numbers, built the same way by libprof (at program
   start, from the units it registered) and by the tool (from the profile).

   Procedures are the functions of the units in the order given (unit by
   unit, functions in notes order).  A block with calls splits after each:
   block b with calls k1 .. km (notes order) becomes vertices b (up to the
   call k1: its call vertex), then one new vertex per call (appended after
   the function's blocks), the one after km taking b's successors; call kj's
   return vertex is the vertex after it.  Graph edge e is the notes' edge e,
   its source moved to the last vertex of its block, but for a fake leave of
   a block that ends with a call, which leaves from the call vertex (the call
   did not return: exit, longjmp); then come the edges
   c -> r of the calls that are not calls of the program: indirect calls,
   calls of functions no unit defines (libraries, not instrumented), setjmp.
   A call's callee is the function of that asm name in its own unit, else the
   public one of another unit; the linker's choice where definitions are
   weak: a unit's weak one gives way to another unit's strong one, and of
   several public ones a strong one comes first.  The roots: main (the public function named
   "main"; without one, the first procedure), then every public or addressed
   function (external: it may be entered from code not instrumented).  */

#ifndef PATHPROF_CORE_IP_NOTES_H
#define PATHPROF_CORE_IP_NOTES_H

#include "interproc.h"
#include "format/ip-records.h"
#include "format/notes.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef struct pp_ip_layout
{
  pp_ip_program prog;		/* what pp_ip_number numbers; owns its arrays */
  uint32_t nunits;
  uint32_t *first_proc;		/* per unit: the procedure of its function 0 */
  /* Per procedure, per call of its notes: the program's call site, or
     UINT32_MAX for a call that is an edge (leaf_edge).  */
  uint32_t **site_of_call;
  uint32_t **leaf_edge;		/* per call: the edge c -> r, or UINT32_MAX */
  uint32_t **call_vertex;	/* per call: its call and return vertices */
  uint32_t **return_vertex;
  uint32_t *ncalls_of;		/* per procedure: its calls */
  uint32_t *nblocks_of;		/* per procedure: its blocks (NULL when
				   adopted: every graph is made then) */
  uint32_t *call_words;		/* holds the five per-call arrays above */
  uint32_t **call_block;	/* per call: its block */
  /* Per procedure, its edges' roles for segments as its notes record them
     (pp_ip_roles_of_notes); prog.edge_role points here.  */
  uint8_t **edge_role;
} pp_ip_layout;

/* Builds the program of units[0 .. nunits) (decoded notes of a mode with
   calls).  Returns 0, or -1 when out of memory.  */
int pp_ip_layout_build (const pp_unit_notes *const *units, uint32_t nunits,
			pp_ip_layout *out);
/* The same in two steps, for a program that needs few of its procedures'
   graphs (libprof's segments modes, which number a root's supergraph when
   it first runs): pp_ip_layout_index lays out everything but the graphs,
   from notes whole or outlined (notes.h pp_notes_decode_outline: it reads
   the functions' names, flags, block counts and calls): the procedures,
   their calls' vertices and the program's call sites, every procedure's
   graph empty (nnodes 0) and its leaf_edge and edge_role unset;
   pp_ip_layout_build_proc then makes procedure p's graph, leaf edges and
   roles from its function's notes whole (FN, the function the index was
   made from), once (0 at once where it has a graph).  Both return 0, or
   -1 when out of memory (or for notes that are not the index's).  */
int pp_ip_layout_index (const pp_unit_notes *const *units, uint32_t nunits,
			pp_ip_layout *out);
int pp_ip_layout_build_proc (pp_ip_layout *l, uint32_t p, const pp_function_notes *fn);
void pp_ip_layout_free (pp_ip_layout *l);

/* The layout L as one block of words (interproc-pack.c), *WORDS from
   pp_malloc.  Returns PP_IP_OK or PP_IP_ENOMEM.  */
int pp_ip_layout_pack (const pp_ip_layout *l, uint64_t **words, size_t *nwords);
/* The layout a block of pp_ip_layout_pack holds, of NUNITS units (PP_IP_OK;
   PP_IP_EGRAPH for a block of another number of units, or damaged: every
   index range-checked): its arrays stay in WORDS, which must outlive it.
   Free it with pp_ip_layout_adopted_free, never pp_ip_layout_free.  */
int pp_ip_layout_adopt (uint32_t nunits, uint64_t *words, size_t nwords,
			pp_ip_layout *l);
void pp_ip_layout_adopted_free (pp_ip_layout *l);

/* The unit of procedure PROC (its function is PROC - first_proc[unit]).  */
uint32_t pp_ip_layout_unit_of (const pp_ip_layout *l, uint32_t proc);
/* The last vertex of block BLOCK of procedure P: the return vertex of its
   last call, else the block's.  */
uint32_t pp_ip_layout_last_vertex (const pp_ip_layout *l, uint32_t p, uint32_t block);
/* Per procedure, the CFG checksum of its function in UNITS (the notes the
   layout was built from), in a malloc'd array; NULL when out of memory.  */
uint64_t *pp_ip_layout_cfg_checksums (const pp_ip_layout *l, const pp_unit_notes *units);

/* Which units call another unit's function, without the layout (libprof
   knows it at the first ENTER from what each unit's record lists:
   pathprof-abi.h ip_names).  A unit's names are hashes of asm names, bit 0
   a flag: first its imports, the callees of its direct calls that the
   layout could resolve in another unit (calls of a name it does not
   define, flag 0, or defines weakly, flag 1), then its exports, its public
   functions (flag 1 where strong); each part sorted, without repeats.
   pp_ip_unit_names makes them from a unit's notes (*NAMES from pp_malloc).
   Returns 0, or -1 when out of memory.  */
int pp_ip_unit_names (const pp_unit_notes *u, uint64_t **names, uint32_t *nimports,
		      uint32_t *nexports);
/* ALONE[u] for units 0 .. N-1 (NAMES[u] holding NIMPORTS[u] imports then
   NEXPORTS[u] exports): false where an import of u matches an export of
   another unit that the linker would take (any, for a name u does not
   define; a strong one for a name u defines weakly).  A unit the layout
   finds alone (no call of it resolved in another unit) may be found not
   alone only where two names share a hash or two weak definitions meet;
   never the other way.  Returns 0, or -1 when out of memory.  */
int pp_ip_units_alone (const uint64_t *const *names, const uint32_t *nimports,
		       const uint32_t *nexports, uint32_t n, bool *alone);
/* The same per import: RESOLVED[u][i] for import i of unit u, true where
   an export of another unit matches it as above (so a unit is alone where
   none of its imports is resolved).  A compiled root's own imports say
   whether its supergraph is the program's (pathprof-abi.h ip_ok).
   Returns 0, or -1 when out of memory.  */
int pp_ip_imports_resolved (const uint64_t *const *names, const uint32_t *nimports,
			    const uint32_t *nexports, uint32_t n, bool *const *resolved);
/* A program's signature, whatever the order of its N units: from each
   unit's name (UNIT_NAMES[u]) and its exports (NAMES[u] past its
   NIMPORTS[u] imports, NEXPORTS[u] of them, as pp_ip_unit_names makes
   them), so that libprof (from the units' records) and the plugin (from
   a profile's notes) tell whether the program is the one a profile ran:
   the same units, defining the same functions, resolve calls alike.  */
uint64_t pp_ip_program_signature (const char *const *unit_names,
				  const uint64_t *const *names, const uint32_t *nimports,
				  const uint32_t *nexports, uint32_t n);
/* The index among a unit's NIMPORTS imports (NAMES, as above) of CALLEE, a
   name the unit does not define, or UINT32_MAX where it is not one.  */
uint32_t pp_ip_import_index (const uint64_t *names, uint32_t nimports, const char *callee);

/* Which of function FN's notes edges add 0 to the path number in every
   program FN may be part of: the first edge out of a vertex in G*_fin order
   (its value is the sum of the values before it).  Numbering FN alone, its
   calls as edges, gives the same order as numbering the whole program: the
   backedge walk sees c -> r either way, after the vertex's other edges.  The
   order depends on the kind of paths (piecewise: the surrogates leave GENTRY,
   not ENTRY).  The planner puts no probe there.  Returns 0, or -1 when out
   of memory.  */
int pp_ip_zero_edges (const pp_function_notes *fn, bool piecewise, bool *zero);
/* The segment roles (PP_SEG_ROLE_*) FN's notes record, per edge, into ROLE:
   what the plugin placed by pp_plan_ip_roles (plan.h).  */
void pp_ip_roles_of_notes (const pp_function_notes *fn, uint8_t *role);

#ifdef __cplusplus
}
#endif

#endif
