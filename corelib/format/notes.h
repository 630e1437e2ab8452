/* Notes: what the plugin records about each compiled unit so that the tool can
   interpret the raw values of a profile without the object files.  The plugin builds
   a pp_unit_notes, serialises it with pp_notes_encode and embeds the bytes in the
   object; libprof copies them verbatim into the profile; the tool decodes them.

   Encoding (all integers little-endian; str = u32 length + bytes, no NUL):
     u32 magic PP_NOTES_MAGIC, u32 version PP_NOTES_VERSION
     u32 mode (enum pp_mode), u32 weighting (enum pp_weighting)
     only in the modes of segments (modes.h pp_mode_segments): u32 depth
     str unit name (absolute path of the main source file)
     u32 nfiles, str files[nfiles]            -- file table for source lines
     u32 nfunctions, then per function:
       str asm_name, str name, u32 decl_file, u32 decl_line
       u64 cfg_checksum                       -- pp_notes_cfg_checksum: the CFG
                                                 alone, not the probes
       u32 value_offset, u32 nvalues          -- this function's slice of the unit's values
       u32 nblocks                            -- node 0 is ENTRY, node 1 is EXIT
       per block: u32 flags, i32 value (-1: none), u32 nlines,
                  nlines x (u32 file, u32 line)
       u32 nedges
       per edge: u32 src, u32 dst, u32 flags (enum pp_edge_flag), i32 value (-1: derived)
       only in the preferential modes (ppp, residual; modes.h "preferential"):
       u32 ninteresting, u64 interesting[]    -- Ball-Larus numbers, increasing
       u32 nkeys, u64 keys[]                  -- 0, or nvalues: slot k counts path
                                                 keys[k] (UINT64_MAX: a hole)
       u64 ppp_span                           -- the preferential numbers' span
       only in the preferential modes of segments (interproc-ppp, -residual):
       u64 seg_checksum                       -- pp_seg_checksum of the root's
                                                 supergraph the interesting
                                                 numbers belong to
       only in the interprocedural modes (modes.h "calls"):
       u32 function flags (enum pp_function_flag)
       u32 ncalls, per call: u32 block, u32 flags (enum pp_call_flag),
                  str callee                  -- asm name; empty when indirect
                                                 -- by block, in statement order
       only in the trace mode (modes.h "traced"):
       u32 ndirect, per direct call: u32 block, u32 callee -- a function of
                  the unit, or with bit 31 a call site; by block, in the
                  order the block makes them (trace.h "Direct calls",
                  "Announced calls")
   The edges are exactly the core graph the plan was computed on, including the
   EXIT -> ENTRY edge and the fake edges.

   What the values are, per mode: edge-counts, one u64 counter per measured edge
   (edge value); the coverage modes, one byte per probe (block or edge value).
   paths: no block or edge values; a function's nvalues is its number of paths
   when it counts them in an array (value k counts path k) and 0 when libprof
   counts them in a hash table (the profile's sparse counts).  The numbering is
   rebuilt from the graph: the edges flagged PP_EDGE_PATH_END are the plan's
   cuts; PP_EDGE_PATH_COUNT and PP_EDGE_PATH_REG say what each edge's probe
   does, for statistics only.  ppp and residual: as paths, with the function's
   interesting paths (those of the previous profile it learnt from) listed; a
   function whose paths do not fit an array but has interesting paths counts
   them by preferential number (ppp.h) in nvalues slots, keys[k] naming the path
   slot k counts, and every other path in a hash table; ppp_span is the span of
   the preferential numbers before any cap on the slots.  The segments modes
   (interproc-segments, interproc-ppp, interproc-residual): the edges
   flagged PP_EDGE_PATH_END are the function's backedges, where its
   supergraphs are cut, and PP_EDGE_SEG_TREE the forest with no probe
   (plan.h pp_plan_ip_roles).  */

#ifndef PATHPROF_CORE_NOTES_H
#define PATHPROF_CORE_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hash.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PP_NOTES_MAGIC 0x544e5050u	/* "PPNT" */
#define PP_NOTES_VERSION 3u	/* 2: cfg_checksum covers the CFG only;
				   3: the trace mode's direct calls */

enum pp_mode
{
  PP_MODE_EDGE_COUNTS = 1,
  PP_MODE_BLOCK_COVER = 2,
  PP_MODE_EDGE_COVER = 3,
  PP_MODE_BLOCK_COVER_EDGE_PROBES = 4,
  PP_MODE_BLOCK_COUNTS = 5,
  PP_MODE_PATHS = 6,
  PP_MODE_PPP = 7,
  PP_MODE_RESIDUAL = 8,
  PP_MODE_TRACE = 9,
  PP_MODE_INTERPROC = 10,
  PP_MODE_INTERPROC_PIECEWISE = 11,
  PP_MODE_INTERPROC_SEGMENTS = 12,
  PP_MODE_INTERPROC_PPP = 13,
  PP_MODE_INTERPROC_RESIDUAL = 14,
};

/* Block flags.  */
enum pp_block_flag
{
  PP_BLOCK_LANDING_PAD = 1u << 0,	/* entered only through exceptions */
  PP_BLOCK_CALLS = 1u << 1,	/* calls a function that may be instrumented
				   (not a GCC builtin): informational, outside
				   the CFG checksum */
};

/* Function flags (the interprocedural modes): how it may be entered.  */
enum pp_function_flag
{
  PP_FUNCTION_PUBLIC = 1u << 0,	/* other units (or libraries) may call it */
  PP_FUNCTION_ADDRESSED = 1u << 1,	/* its address is taken: callbacks */
  PP_FUNCTION_WEAK = 1u << 2,	/* a weak definition: a public one of another
				   unit replaces it, for its own unit's calls too */
};

/* Call flags.  */
enum pp_call_flag
{
  PP_CALL_INDIRECT = 1u << 0,	/* through a pointer: callee unknown */
  PP_CALL_RETURNS_TWICE = 1u << 1,	/* setjmp and the like */
  PP_CALL_ENDS_BLOCK = 1u << 2,	/* the block's last statement: a fake leave
				   of the block is this call's */
};

/* A call in a block (the interprocedural modes): the block splits after it.  */
typedef struct pp_call_notes
{
  uint32_t block, flags;
  char *callee;			/* asm name, "" when indirect */
} pp_call_notes;

/* A direct call (the trace mode): made in block, of function callee of the
   same unit; or, callee with PP_DIRECT_SITE, a call site (corelib/trace.h
   "Announced calls": PP_TRACE_SITE and its flags).  */
typedef struct pp_direct_call
{
  uint32_t block, callee;
} pp_direct_call;
#define PP_DIRECT_SITE 0x80000000u

/* The block flags that describe the control flow (the CFG checksum's).  */
#define PP_BLOCK_CFG_FLAGS PP_BLOCK_LANDING_PAD

typedef struct pp_line_ref
{
  uint32_t file, line;
} pp_line_ref;

typedef struct pp_block_notes
{
  uint32_t flags;
  int32_t value;		/* block probe: index into the function's values, or -1 */
  uint32_t nlines;
  pp_line_ref *lines;		/* in statement order, consecutive duplicates removed */
} pp_block_notes;

typedef struct pp_edge_notes
{
  uint32_t src, dst, flags;
  int32_t value;		/* index into the function's values, or -1 */
} pp_edge_notes;

typedef struct pp_function_notes
{
  char *asm_name, *name;
  uint32_t decl_file, decl_line;
  uint64_t cfg_checksum;
  uint32_t value_offset, nvalues;
  uint32_t nblocks;
  pp_block_notes *blocks;
  uint32_t nedges;
  pp_edge_notes *edges;
  /* The preferential modes only (else 0 and NULL).  */
  uint32_t ninteresting;
  uint64_t *interesting;	/* increasing */
  uint32_t nkeys;		/* 0 or nvalues */
  uint64_t *keys;		/* per slot: the path it counts, or UINT64_MAX */
  uint64_t ppp_span;
  /* The interprocedural modes only (else 0 and NULL).  */
  uint32_t function_flags;	/* enum pp_function_flag */
  uint32_t ncalls;
  pp_call_notes *calls;		/* by block, in statement order */
  uint64_t seg_checksum;	/* interproc-ppp, interproc-residual */
  /* The trace mode only (else 0 and NULL).  */
  uint32_t ndirect;
  pp_direct_call *direct;
  size_t notes_at;		/* where its record starts in the notes */
} pp_function_notes;

typedef struct pp_unit_notes
{
  uint32_t mode, weighting;
  char *unit_name;
  uint32_t nfiles;
  char **files;
  uint32_t nfunctions;
  pp_function_notes *functions;
  uint32_t depth;		/* the modes of segments: k, 1 .. PP_SEGMENTS_MAX_DEPTH */
  char *strings;		/* an outline's: one block holds its strings */
} pp_unit_notes;

/* Serialises notes into a malloc'd buffer.  Returns 0 or -1 (allocation).  */
int pp_notes_encode (const pp_unit_notes *n, unsigned char **buf, size_t *len);
/* Parses a buffer; every length and index is bounds-checked: counts against the
   bytes left (before allocating), file indices < nfiles, edge ends < nblocks,
   nblocks >= 2, value indices < the function's nvalues (or -1), a known mode
   (modes.h), each function's CFG checksum, interesting paths increasing, each
   key a hole or an interesting path, no key twice, call blocks in order
   below nblocks and not ENTRY or EXIT, no trailing bytes.  Returns 0, or -1 with n zeroed and a message in err naming the
   byte offset and the place, e.g. "notes truncated at byte 120: 4 more bytes
   needed at byte 118 (function 'f', edge 3)".  */
int pp_notes_decode (const unsigned char *buf, size_t len, pp_unit_notes *n,
		     char *err, size_t errlen);
/* The same for a program's own notes, which the plugin wrote into it and
   hashed (libprof, at run time): every function's CFG checksum is taken as
   recorded, not computed again (8.8 M instructions of an empty SQLite
   session's start), and blocks have no lines (nlines 0: libprof needs
   none, and allocating them cost 4 M more).  */
int pp_notes_decode_own (const unsigned char *buf, size_t len, pp_unit_notes *n,
			 char *err, size_t errlen);
/* The outline of a program's own notes (as pp_notes_decode_own), for
   libprof to lay the program out by: every function's header, record
   offset (notes_at) and calls, but no blocks, edges or preferential
   section (their counts 0, but nblocks and nedges; NULL arrays), its asm
   name for its name, every string in one block (free it with
   pp_notes_free only).  Each block's count of lines and every count is
   still checked against the bytes left; what is skipped is checked by
   pp_notes_decode_function when a function is wanted whole.  An empty
   SQLite session decoded 3.25 MB of notes whole at its first root, of
   which it used four functions.  */
int pp_notes_decode_outline (const unsigned char *buf, size_t len, pp_unit_notes *n,
			     char *err, size_t errlen);
/* Function F of the notes BUF whose outline is OUTLINE, whole (as
   pp_notes_decode_own decodes it) into FN.  Returns 0, or -1 with FN
   zeroed and a message in ERR.  */
int pp_notes_decode_function (const unsigned char *buf, size_t len,
			      const pp_unit_notes *outline, uint32_t f,
			      pp_function_notes *fn, char *err, size_t errlen);
/* Frees what pp_notes_decode allocated (also safe on a zeroed pp_unit_notes).  */
void pp_notes_free (pp_unit_notes *n);
/* The same for one function's notes (pp_notes_decode_function); zeroes FN.  */
void pp_notes_function_free (pp_function_notes *fn);
/* Checks that every function's slice of values (value_offset, nvalues) lies within
   a unit of nvalues values, as a profile record must before its values are indexed
   through the notes.  Returns 0, or -1 with a message in err.  */
int pp_notes_check_values (const pp_unit_notes *n, uint32_t nvalues, char *err,
			   size_t errlen);

/* Whether PATH is one of f's interesting paths (the preferential modes).  */
bool pp_notes_interesting (const pp_function_notes *f, uint64_t path);

/* Builds the core graph of a function (nodes = blocks, edges in notes order, so edge
   index e of the graph is edges[e] of the notes).  Returns 0 or -1.  */
int pp_notes_function_graph (const pp_function_notes *f, pp_graph *g);

/* The checksum of a function's control flow: its blocks with their flags and
   source lines, its edges with their PP_EDGE_CFG_FLAGS, not the probes or values,
   so that profiles of the same code in different modes have the same checksum.
   pp_notes_encode writes it (the field is not read); pp_notes_decode fills it
   and refuses a function whose recorded checksum differs.  */
uint64_t pp_notes_cfg_checksum (const pp_function_notes *f);

#ifdef __cplusplus
}
#endif

#endif
